// PropagationDriver (PropagationDriver.h): one propagation step per op kind, func-result steps (SDY.md 4.8, 4.9).
#include <algorithm>
#include <functional>

#include "core/ir/OpRegistry.h"
#include "core/ir/ShardingAccess.h"
#include "core/ir/StablehloAttrs.h"
#include "core/propagation/PropagationDriver.h"
#include "core/propagation/ShardingWrites.h"
#include "core/propagation/ValueSharding.h"
#include "core/rules/RuleRegistry.h"

namespace shardx {

using ir::Op;
using ir::Value;

namespace {

/// The common mesh of the present shardings (SDY.md 4.2): name and mesh, or nullopt. `resolve`
/// gives the mesh of a reference.
template <typename Resolve>
std::optional<std::pair<std::string, const Mesh*>> commonMesh(const std::vector<const TensorSharding*>& shardings,
                                                              Resolve&& resolve)
{
    std::string name;
    const Mesh* mesh = nullptr;
    for (const TensorSharding* s : shardings) {
        if (!s)
            continue;
        const Mesh* m = resolve(s->mesh);
        if (!m)
            return std::nullopt;
        if (m->isEmpty())
            continue;
        if (s->mesh.isInline())
            return std::nullopt;
        if (!mesh) {
            mesh = m;
            name = s->mesh.symbol;
        } else if (!(*mesh == *m)) {
            return std::nullopt;
        }
    }
    if (!mesh || mesh->isMaximal())
        return std::nullopt;
    return std::make_pair(name, mesh);
}

/// A step's factor directions: the run's direction function asked of one op and rule. Steps hand it
/// on as std::cref(...): a std::function keeps a reference_wrapper without allocating, where a
/// lambda capturing the three pointers was a heap allocation per step.
struct OpDirections {
    const OpDirectionFn* fn;
    const Op* op;
    const OpShardingRule* rule;
    PropagationDirection operator()(int64_t f) const { return (*fn)(*op, *rule, f); }
};

} // namespace

std::vector<Value*> PropagationDriver::funcEdgeSources(Value* v)
{
    std::vector<Value*> out;
    if (v->isBlockArgument()) {
        Op* func = v->ownerBlock()->parentOp();
        if (!func || func->name() != "func.func")
            return out;
        for (Op* o : callsTo(ir::symbolName(*func)))
            if (v->index() < o->numOperands())
                out.push_back(o->operand(v->index()));
        return out;
    }
    Op* call = v->definingOp();
    if (call->name() != "func.call")
        return out;
    Op* callee = m_module.findCallee(*call);
    if (!callee || !callee->numRegions() || callee->region(0).empty())
        return out;
    Op* ret = callee->region(0).blocks().front()->terminator();
    if (ret && v->index() < ret->numOperands())
        out.push_back(ret->operand(v->index()));
    return out;
}

const Mesh* PropagationDriver::resolveMesh(const MeshRef& ref)
{
    if (ref.isInline())
        return m_module.resolveMesh(ref);
    // Steps name one or two meshes over and over: the last one found is kept (the mesh ops do not
    // change during a pass).
    if (!m_lastMesh || ref.symbol != m_lastMeshName) {
        m_lastMesh = m_module.resolveMesh(ref);
        m_lastMeshName = ref.symbol;
        if (!m_lastMesh)
            return nullptr;
    }
    return m_lastMesh;
}

PropagationDriver::StepTensor PropagationDriver::plainTensor(Value* v) const
{
    StepTensor t;
    t.value = v;
    t.ref = getShardingRef(v, t.own);
    if (t.own)
        t.ref = nullptr; // copied (current() reads `own`): the pointer would not survive a move
    return t;
}

Value* PropagationDriver::store(const StepTensor& t, const TensorSharding& s)
{
    if (t.func) {
        ir::setFuncResultSharding(*t.func, static_cast<unsigned>(t.funcResult), s);
        notifyShardingsWritten(*t.func);
        return nullptr;
    }
    Value* v = t.value;
    switch (t.view) {
    case StepTensor::View::Plain: {
        if (!canHoldSharding(v))
            return nullptr;
        setSharding(v, s);
        Op* edge = dataFlowEdgeOpOf(edgeOwnerOf(v));
        return edge ? edge->result(0) : v;
    }
    case StepTensor::View::LocalAsGlobal: {
        TensorSharding local = eraseManualAxes(s, manualAxesOf(*t.manualOp));
        std::optional<TensorSharding> old = getOwnSharding(v);
        if (old && *old == local)
            return nullptr;
        setOwnSharding(v, local);
        return v;
    }
    case StepTensor::View::GlobalAsLocal: {
        TensorSharding outer = s;
        unsigned idx = v->definingOp()->operand(0)->index();
        if (const ShardingPerValue* outs = ir::outShardings(*t.manualOp); outs && idx < outs->shardings.size())
            outer = outs->shardings[idx];
        else if (std::optional<TensorSharding> own = getOwnSharding(v))
            outer = *own;
        TensorSharding global = addManualAxes(outer, s, manualAxesOf(*t.manualOp));
        std::optional<TensorSharding> old = getOwnSharding(v);
        if (old && *old == global)
            return nullptr;
        setOwnSharding(v, global);
        return v;
    }
    }
    return nullptr;
}

const OpShardingRule* PropagationDriver::ruleOf(Op* op, ir::AttrPtr& keepAlive)
{
    // The rule is read in place from the attached attribute (no copy); `keepAlive` holds the
    // attribute while the caller uses the rule, even if the op's attributes change meanwhile.
    if (const ir::AttrPtr* a = op->findInterned(shardingRuleAttrName()); a && *a)
        if (const ir::OpShardingRuleAttr* r = (*a)->as<ir::OpShardingRuleAttr>()) {
            keepAlive = *a;
            return &r->rule;
        }
    // What the rule depends on is known from the op's name: ops that never get one are answered
    // at once, and ops whose rule reads only shapes share the rule of the first op of their shapes.
    const std::string* name = &op->opName().str();
    auto cls = m_ruleClass.find(name);
    if (cls == m_ruleClass.end())
        cls = m_ruleClass.emplace(name, ruleNameClass(*name)).first;
    if (cls->second == RuleNameClass::None)
        return nullptr;
    std::vector<std::vector<int64_t>> shapes;
    if (cls->second == RuleNameClass::ShapesOnly) {
        auto add = [&shapes](const Value* v) {
            const ir::Type& t = v->type();
            if (!t.isRankedTensor() || !t.hasStaticShape())
                return false;
            shapes.push_back(t.shape());
            return true;
        };
        bool staticShapes = true;
        for (const Value* v : op->operands())
            staticShapes = staticShapes && add(v);
        shapes.push_back({-1}); // between operands and results
        for (const auto& r : op->results())
            staticShapes = staticShapes && add(r.get());
        if (!staticShapes) {
            shapes.clear(); // the registry reports why (not cached)
        } else {
            auto it = m_shapeRules.find(shapes);
            if (it != m_shapeRules.end()) {
                keepAlive = it->second;
                op->setDiscardableInterned(shardingRuleAttrName(), keepAlive);
                return &keepAlive->as<ir::OpShardingRuleAttr>()->rule;
            }
        }
    }
    std::optional<OpShardingRule> rule = createOpShardingRule(*op, m_options.conservative);
    if (!rule)
        return nullptr;
    // Ops of one kind and shape have one rule: the attribute is shared by content (a transformer's
    // layers would otherwise hold one copy per op).
    keepAlive = ir::sharedAttr(
        hashRule(*rule),
        [&rule](const ir::Attribute& a) {
            const ir::OpShardingRuleAttr* x = a.as<ir::OpShardingRuleAttr>();
            return x && x->rule == *rule;
        },
        [&rule] { return ir::Attribute::Payload(ir::OpShardingRuleAttr{std::move(*rule)}); });
    op->setDiscardableInterned(shardingRuleAttrName(), keepAlive);
    if (!shapes.empty())
        m_shapeRules.emplace(std::move(shapes), keepAlive);
    return &keepAlive->as<ir::OpShardingRuleAttr>()->rule;
}

/// Why `op` has no sharding rule, as the trace says it ("no sharding rule" first, so that
/// readers can match it).
static std::string missingRuleReason(const Op& op)
{
    if (op.opaqueSyntax() || !ir::OpRegistry::instance().lookup(op.name()))
        return "no sharding rule: an op shardx does not know, kept as written";
    if (std::optional<std::string> target = stablehlo::customCallTarget(op))
        return "no sharding rule: custom call '" + *target + "' has none";
    return "no sharding rule";
}

bool PropagationDriver::propagateStep(StepKind kind, Op* op, const OpShardingRule& rule,
                                      std::vector<StepTensor>& tensors, int numOperands, const FactorDirectionFn& dir,
                                      bool elementwise, bool inWorklist, const ir::AttrPtr& ruleAttr)
{
    PropagationObserver* obs = m_options.observer;
    auto skip = [&](const char* reason) {
        if (obs && kind != StepKind::FuncResult)
            obs->opSkipped(op, reason);
        return false;
    };
    const int numResults = static_cast<int>(tensors.size()) - numOperands;
    if (static_cast<int>(rule.operands.size()) != numOperands || static_cast<int>(rule.results.size()) != numResults)
        return skip("rule/operand mismatch");
    // The step's shardings and directions live in vectors kept across steps (steps do not nest):
    // two allocations per step fewer.
    std::vector<const TensorSharding*>& all = m_stepShardings;
    all.clear();
    for (const StepTensor& t : tensors)
        all.push_back(t.current());
    auto mesh = commonMesh(all, [this](const MeshRef& ref) { return resolveMesh(ref); });
    if (!mesh)
        return skip("no common mesh");
    // Shardings must match the rank of their mapping to be projected.
    for (size_t i = 0; i < tensors.size(); ++i) {
        const TensorFactorMapping& mapping =
            static_cast<int>(i) < numOperands ? rule.operands[i] : rule.results[i - static_cast<size_t>(numOperands)];
        if (all[i] && all[i]->dims.size() != mapping.size())
            return skip("rank mismatch");
    }
    // Factor propagation of equal inputs gives equal tables, decisions and back-projections: an
    // outcome computed before is reused (StepCache.h).
    FactorPropagationInput in;
    in.rule = &rule;
    in.mesh = mesh->second;
    in.direction = dir;
    in.conservative = m_options.conservative;
    in.elementwise = elementwise;
    std::vector<PropagationDirection>& directions = m_stepDirections;
    directions.assign(static_cast<size_t>(rule.numFactors()), PropagationDirection::None);
    for (int64_t f = 0; f < rule.numFactors(); ++f)
        directions[static_cast<size_t>(f)] = factorDirection(in, f);
    StepCache::Key key;
    key.rule = &rule;
    key.ruleAttr = ruleAttr ? &ruleAttr : nullptr;
    key.mesh = mesh->second;
    key.meshName = &mesh->first;
    key.shardings = &all;
    key.directions = &directions;
    key.aggressive = m_strategy == FactorStrategy::Aggressive;
    key.conservative = m_options.conservative;
    key.elementwise = elementwise;
    const uint64_t hash = StepCache::hashOf(key);
    StepOutcome* outcome = m_stepCache.find(key, hash);
    if (!outcome) {
        StepOutcome fresh;
        std::vector<const TensorSharding*> ops(all.begin(), all.begin() + numOperands);
        std::vector<const TensorSharding*> res(all.begin() + numOperands, all.end());
        ShardingProjection proj = buildProjection(ops, res, rule, *mesh->second);
        if (obs)
            fresh.record.before = proj;
        // The directions were asked once above; the factor propagation reads them from there.
        in.direction = [&directions](int64_t f) { return directions[static_cast<size_t>(f)]; };
        UpdatedTensors updated = m_strategy == FactorStrategy::Basic
                                     ? propagateBasic(proj, in, obs ? &fresh.record.decisions : nullptr)
                                     : propagateAggressive(proj, in, obs ? &fresh.record.decisions : nullptr);
        fresh.updated.assign(tensors.size(), 0);
        fresh.backProjected.resize(tensors.size());
        for (int i = 0; i < static_cast<int>(tensors.size()); ++i) {
            const bool isOperand = i < numOperands;
            if (!(isOperand ? updated.operands[static_cast<size_t>(i)]
                            : updated.results[static_cast<size_t>(i - numOperands)]))
                continue;
            const TensorFactorMapping& mapping =
                isOperand ? rule.operands[static_cast<size_t>(i)] : rule.results[static_cast<size_t>(i - numOperands)];
            fresh.updated[static_cast<size_t>(i)] = 1;
            fresh.backProjected[static_cast<size_t>(i)] =
                backProject(proj.tensor(i), mapping, rule.factorSizes, mesh->first, *mesh->second);
        }
        if (obs)
            fresh.record.after = std::move(proj);
        outcome = &m_stepCache.insert(key, hash, std::move(fresh));
    }

    PropagationStep& rec = outcome->record;
    m_inStep = obs != nullptr;
    if (obs) {
        rec.kind = kind;
        rec.op = op;
        rec.rule = &rule;
        rec.meshName = mesh->first;
        rec.aggressive = m_strategy == FactorStrategy::Aggressive;
        rec.numOperands = numOperands;
        rec.funcResultIndex = kind == StepKind::FuncResult ? tensors.back().funcResult : -1;
        rec.operandValues.clear();
        rec.resultValues.clear();
        rec.changes.clear();
        for (int i = 0; i < static_cast<int>(tensors.size()); ++i)
            (i < numOperands ? rec.operandValues : rec.resultValues).push_back(tensors[i].value);
    }
    // Which tensors change is decided on the shardings as the step found them, before anything is
    // stored: a store may replace the attribute another tensor's sharding is read from.
    struct PendingChange {
        int tensor;
        std::optional<TensorSharding> old;
    };
    std::vector<PendingChange> pending;
    for (int i = 0; i < static_cast<int>(tensors.size()); ++i) {
        if (!outcome->updated[static_cast<size_t>(i)])
            continue;
        const TensorSharding& nw = outcome->backProjected[static_cast<size_t>(i)];
        const StepTensor& t = tensors[static_cast<size_t>(i)];
        const TensorSharding* old = t.current();
        if (!old && !nw.hasDimAxes() && nw.replicated.empty() && nw.unreduced.empty())
            continue;
        if (old && *old == nw)
            continue;
        const bool holdable = t.func || t.view != StepTensor::View::Plain || canHoldSharding(t.value);
        if (!holdable)
            continue;
        pending.push_back(PendingChange{i, old ? std::optional<TensorSharding>(*old) : std::nullopt});
    }
    for (PendingChange& change : pending) {
        const int i = change.tensor;
        const TensorSharding& nw = outcome->backProjected[static_cast<size_t>(i)];
        StepTensor& t = tensors[static_cast<size_t>(i)];
        Value* notifyValue = store(t, nw);
        if (obs)
            rec.changes.push_back(ShardingChange{i, t.value, t.funcResult, std::move(change.old), nw});
        t.own = nw;
        if (notifyValue) {
            notifyChanged(notifyValue, op, inWorklist);
            copyToGroup(t.value, op, inWorklist);
            if (notifyValue != t.value)
                copyToGroup(notifyValue, op, inWorklist);
        }
    }
    const bool changed = !pending.empty();
    m_inStep = false;
    if (obs) {
        obs->step(rec);
        // The outcome is kept for later steps: only what every step sets again is cleared.
        rec.op = nullptr;
        rec.rule = nullptr;
        rec.operandValues.clear();
        rec.resultValues.clear();
        rec.changes.clear();
        for (const auto& [group, from, to] : m_pendingGroupCopies)
            obs->shardingGroupCopy(group, from, to);
        m_pendingGroupCopies.clear();
    }
    return changed;
}

void PropagationDriver::visit(Op* op)
{
    const std::string& n = op->name();
    if (n == "sdy.propagation_barrier") {
        if (op->numOperands() != 1 || op->numResults() != 1 || !op->result(0)->type().isRankedTensor())
            return;
        OpShardingRule rule = identityRule(op->result(0)->type().shape(), 1, 1);
        std::vector<StepTensor> tensors = {plainTensor(op->operand(0)), plainTensor(op->result(0))};
        const PropagationDirection d = ir::barrierDirection(*op).value_or(PropagationDirection::None);
        propagateStep(
            StepKind::Barrier, op, rule, tensors, 1, [d](int64_t) { return d; }, true, true);
        return;
    }
    if (n == "sdy.data_flow_edge") {
        if (op->numOperands() != 1 || !op->result(0)->type().isRankedTensor())
            return;
        Value* owner = op->operand(0);
        std::vector<Value*> sources = edgeSources(owner);
        std::vector<StepTensor> tensors;
        for (Value* s : sources)
            tensors.push_back(plainTensor(s));
        StepTensor target;
        target.value = op->result(0);
        target.ref = ir::shardingOfValue(target.value); // getOwnSharding() of an op result, in place
        Op* manual = nullptr;
        if (owner->isBlockArgument()) {
            Op* parent = owner->ownerBlock()->parentOp();
            if (parent && parent->name() == "sdy.manual_computation")
                manual = parent;
        } else if (owner->definingOp()->name() == "sdy.manual_computation") {
            manual = owner->definingOp();
        }
        if (manual && !manualAxesOf(*manual).empty()) {
            target.manualOp = manual;
            if (owner->isBlockArgument()) {
                target.view = StepTensor::View::LocalAsGlobal;
                const TensorSharding* in = ir::shardingOfValue(owner);
                if (target.ref && in)
                    target.own = addManualAxes(*in, *target.ref, manualAxesOf(*manual));
            } else {
                target.view = StepTensor::View::GlobalAsLocal;
                if (target.ref)
                    target.own = eraseManualAxes(*target.ref, manualAxesOf(*manual));
            }
        }
        tensors.push_back(target);
        OpShardingRule rule = identityRule(op->result(0)->type().shape(), static_cast<int>(sources.size()), 1);
        const OpDirections directions{&m_direction, op, &rule};
        FactorDirectionFn dir;
        if (m_direction)
            dir = std::cref(directions);
        propagateStep(StepKind::DataFlowEdge, op, rule, tensors, static_cast<int>(sources.size()), dir, false, true);
        return;
    }
    if (n == "sdy.func_data_flow_edge") {
        if (op->numOperands() != 1 || !op->result(0)->type().isRankedTensor())
            return;
        std::vector<Value*> sources = funcEdgeSources(op->operand(0));
        if (sources.empty())
            return;
        std::vector<StepTensor> tensors;
        for (Value* s : sources)
            tensors.push_back(plainTensor(s));
        tensors.push_back(plainTensor(op->result(0)));
        OpShardingRule rule = identityRule(op->result(0)->type().shape(), static_cast<int>(sources.size()), 1);
        const OpDirections directions{&m_direction, op, &rule};
        FactorDirectionFn dir;
        if (m_direction)
            dir = std::cref(directions);
        propagateStep(StepKind::FuncDataFlowEdge, op, rule, tensors, static_cast<int>(sources.size()), dir, false,
                      true);
        return;
    }
    ir::AttrPtr ruleAttr;
    const OpShardingRule* rule = ruleOf(op, ruleAttr);
    if (!rule) {
        if (m_options.observer)
            m_options.observer->opSkipped(op, missingRuleReason(*op));
        return;
    }
    std::vector<StepTensor>& tensors = m_opTensors; // kept for its capacity (visits do not nest)
    tensors.clear();
    for (Value* v : op->operands())
        tensors.push_back(plainTensor(v));
    for (const auto& r : op->results())
        tensors.push_back(plainTensor(r.get()));
    const OpShardingRule& ruleRef = *rule;
    const OpDirections directions{&m_direction, op, rule};
    FactorDirectionFn dir;
    if (m_direction)
        dir = std::cref(directions);
    propagateStep(StepKind::Op, op, ruleRef, tensors, static_cast<int>(op->numOperands()), dir, isElementwiseOp(*op),
                  true, ruleAttr);
}

void PropagationDriver::funcResultSteps(Op* func)
{
    if (!func->numRegions() || func->region(0).empty())
        return;
    Op* ret = func->region(0).blocks().front()->terminator();
    if (!ret || ret->name() != "func.return")
        return;
    for (unsigned i = 0; i < ret->numOperands(); ++i) {
        Value* v = ret->operand(i);
        if (!v->type().isRankedTensor() || !v->type().hasStaticShape())
            continue;
        std::vector<StepTensor> tensors = {plainTensor(v)};
        StepTensor res;
        res.func = func;
        res.funcResult = static_cast<int>(i);
        if (const TensorSharding* s = ir::funcResultSharding(*func, i))
            res.ref = s;
        tensors.push_back(res);
        OpShardingRule rule = identityRule(v->type().shape(), 1, 1);
        propagateStep(StepKind::FuncResult, func, rule, tensors, 1, {}, false, false);
    }
}

} // namespace shardx
