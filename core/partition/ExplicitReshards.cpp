// ExplicitReshards: the op walk of `sdy-insert-explicit-reshards` (SDY.md 3.8).
#include "core/partition/ExplicitReshards.h"

#include <algorithm>
#include <unordered_map>

#include "core/ir/OpRegistry.h"
#include "core/ir/ShardingAccess.h"
#include "core/partition/ExplicitReshardsInternal.h"
#include "core/partition/LocalOps.h"
#include "core/propagation/ShardingWrites.h"
#include "core/propagation/ValueSharding.h"
#include "core/rules/RuleRegistry.h"

namespace shardx {

using ir::Op;
using ir::Value;
using namespace reshards;

namespace {

bool isTerminator(const Op& op)
{
    const ir::Block* b = op.parentBlock();
    if (!b)
        return false;
    const Op* parent = b->parentOp();
    if (!parent || parent->name() == "builtin.module")
        return false;
    return b->terminator() == &op;
}

void collectPostOrder(ir::Block& block, std::vector<Op*>& out)
{
    for (auto& up : block.ops()) {
        Op* op = up.get();
        for (const auto& r : op->regions())
            for (const auto& b : r->blocks())
                collectPostOrder(*b, out);
        if (!isTerminator(*op))
            out.push_back(op);
    }
}

std::optional<TensorSharding> copyOf(const TensorSharding* s)
{
    return s ? std::optional<TensorSharding>(*s) : std::nullopt;
}

/// The sharding of an operand, looking through `sdy.propagation_barrier` chains, without a copy
/// where the IR holds it as is (getShardingRef).
const TensorSharding* operandShardingRef(const Value* v, std::optional<TensorSharding>& storage)
{
    while (v && v->definingOp() && v->definingOp()->name() == "sdy.propagation_barrier" &&
           v->definingOp()->numOperands() > 0)
        v = v->definingOp()->operand(0);
    return getShardingRef(v, storage);
}

/// True for the ops whose sharding rule reads nothing but the op's own name, attributes and types
/// (the rules of concatenate, dynamic_slice and custom_call, for instance, look at the ops around
/// it): for these, what steps 7-11 of the walk do follows from that and the shardings alone.
bool explicitReshardsRuleIsLocal(const Op& op)
{
    static const ir::OperationName kLocal[] = {ir::OperationName("stablehlo.broadcast_in_dim"),
                                               ir::OperationName("stablehlo.transpose"),
                                               ir::OperationName("stablehlo.dot"),
                                               ir::OperationName("stablehlo.dot_general"),
                                               ir::OperationName("stablehlo.reduce"),
                                               ir::OperationName("stablehlo.reshape")};
    const ir::OperationName name = op.opName();
    if (std::find(std::begin(kLocal), std::end(kLocal), name) != std::end(kLocal))
        return true;
    const ir::OpInfo* info = ir::OpRegistry::instance().lookup(name);
    return info && info->hasPointwiseRule;
}

bool sameAttrList(const ir::NamedAttrList& a, const ir::NamedAttrList& b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i].name != b[i].name)
            return false;
        if (a[i].value != b[i].value && (!a[i].value || !b[i].value || !(*a[i].value == *b[i].value)))
            return false;
    }
    return true;
}

bool sameShardingRefs(const std::vector<std::optional<TensorSharding>>& kept,
                      const std::vector<const TensorSharding*>& refs)
{
    if (kept.size() != refs.size())
        return false;
    for (size_t i = 0; i < kept.size(); ++i)
        if (kept[i].has_value() != (refs[i] != nullptr) || (refs[i] && !(*kept[i] == *refs[i])))
            return false;
    return true;
}

/// The ops steps 7-11 of the walk left unchanged, by everything those steps read: name, attributes,
/// operand and result types and shardings, and whether the full version applies. The layers of a
/// model repeat the same few dozen of them, so the rule, projection and common axes of most ops are
/// computed once (the rule is kept for PermutationFreeOps::note).
class UnchangedOpMemo {
public:
    struct Entry {
        ir::OperationName name;
        bool full = false;
        ir::NamedAttrList props, attrs;
        std::vector<ir::Type> types; ///< operands, then results
        std::vector<std::optional<TensorSharding>> operands, results;
        std::optional<OpShardingRule> rule;
    };

    static uint64_t hash(const Op& op, bool full, const std::vector<const TensorSharding*>& operands,
                         const std::vector<const TensorSharding*>& results)
    {
        uint64_t h = std::hash<const void*>{}(&op.opName().str());
        auto mix = [&h](uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
        mix(full ? 1 : 2);
        mix(op.props().size() * 31 + op.attrs().size());
        for (const Value* v : op.operands())
            mix(std::hash<const void*>{}(v->type().impl()));
        for (const auto& r : op.results())
            mix(std::hash<const void*>{}(r->type().impl()));
        for (const TensorSharding* s : operands)
            mix(s ? hashSharding(*s) : 3);
        for (const TensorSharding* s : results)
            mix(s ? hashSharding(*s) : 5);
        return h;
    }

    const Entry* find(uint64_t h, const Op& op, bool full, const std::vector<const TensorSharding*>& operands,
                      const std::vector<const TensorSharding*>& results) const
    {
        auto it = m_entries.find(h);
        if (it == m_entries.end())
            return nullptr;
        for (const Entry& e : it->second)
            if (matches(e, op, full, operands, results))
                return &e;
        return nullptr;
    }

    void add(uint64_t h, const Op& op, bool full, std::vector<std::optional<TensorSharding>> operands,
             std::vector<std::optional<TensorSharding>> results, std::optional<OpShardingRule> rule)
    {
        Entry e;
        e.name = op.opName();
        e.full = full;
        e.props = op.props();
        e.attrs = op.attrs();
        for (const Value* v : op.operands())
            e.types.push_back(v->type());
        for (const auto& r : op.results())
            e.types.push_back(r->type());
        e.operands = std::move(operands);
        e.results = std::move(results);
        e.rule = std::move(rule);
        m_entries[h].push_back(std::move(e));
    }

private:
    static bool matches(const Entry& e, const Op& op, bool full, const std::vector<const TensorSharding*>& operands,
                        const std::vector<const TensorSharding*>& results)
    {
        if (!(e.name == op.opName()) || e.full != full || e.types.size() != op.numOperands() + op.numResults())
            return false;
        size_t t = 0;
        for (const Value* v : op.operands())
            if (!(e.types[t++] == v->type()))
                return false;
        for (const auto& r : op.results())
            if (!(e.types[t++] == r->type()))
                return false;
        return sameShardingRefs(e.operands, operands) && sameShardingRefs(e.results, results) &&
               sameAttrList(e.props, op.props()) && sameAttrList(e.attrs, op.attrs());
    }

    std::unordered_map<uint64_t, std::vector<Entry>> m_entries;
};

int64_t tensorSize(const Value* v)
{
    const ir::Type& t = v->type();
    if (!t.isRankedTensor() || !t.hasStaticShape())
        return 0;
    return t.numElements();
}

struct Use {
    Op* user;
    unsigned index;
};

/// The uses feeding the data-flow edge of `owner` (SDY.md 4.9).
std::vector<Use> edgeSourceUses(Op* op, const Value* owner)
{
    std::vector<Use> out;
    const unsigned i = owner->index();
    if (owner->isBlockArgument()) {
        if (i < op->numOperands())
            out.push_back({op, i});
        return out;
    }
    auto terminatorUse = [&](unsigned region) {
        if (region >= op->numRegions() || op->region(region).empty())
            return;
        Op* term = op->region(region).blocks().front()->terminator();
        if (term && i < term->numOperands())
            out.push_back({term, i});
    };
    const std::string& n = op->name();
    if (n == "stablehlo.while") {
        if (i < op->numOperands())
            out.push_back({op, i});
        terminatorUse(1);
    } else if (n == "stablehlo.case") {
        for (unsigned r = 0; r < op->numRegions(); ++r)
            terminatorUse(r);
    } else if (n == "stablehlo.optimization_barrier") {
        if (i < op->numOperands())
            out.push_back({op, i});
    } else {
        terminatorUse(0);
    }
    return out;
}

class OpWalker {
public:
    explicit OpWalker(Context& ctx) : m_ctx(ctx), m_meshes(ctx.module) {}

    void processOp(Op* op);
    void handleFuncReturn(Op* func);

private:
    bool isFull(const Op* op) const;
    void handleDataFlow(Op* op, bool full);
    void handleCall(Op* op);
    bool reshardToUnreduced(Op* op);
    void pendingReductions(Op* op);
    bool applyRule(Op* op, bool full, const std::vector<std::optional<TensorSharding>>& operands,
                   const std::vector<std::optional<TensorSharding>>& results, std::optional<OpShardingRule>& rule);
    bool insertReshards(Op* op, const OpShardingRule& rule, const ShardingProjection& before,
                        const ShardingProjection& after, const Mesh& mesh, const MeshRef& meshRef,
                        const std::vector<std::optional<TensorSharding>>& operands,
                        const std::vector<std::optional<TensorSharding>>& results);
    void insertReductions(Op* op, std::vector<AxisRef> axes, const MeshRef& meshRef, const Mesh& mesh);

    Context& m_ctx;
    partition::MeshLookup m_meshes;
    UnchangedOpMemo m_unchanged;
    // Scratch of processOp, kept between ops for their capacity.
    std::vector<std::optional<TensorSharding>> m_storage;
    std::vector<const TensorSharding*> m_operandRefs, m_resultRefs;
};

bool OpWalker::isFull(const Op* op) const
{
    if (m_ctx.fullVersion)
        return true;
    const std::string& n = op->name();
    if (n == "mhlo.ragged_dot" || n == "func.call")
        return true;
    if (n == "stablehlo.concatenate" && op->numResults() == 1) {
        std::optional<TensorSharding> r = getSharding(op->result(0));
        for (Value* v : op->operands())
            if (getSharding(v) != r)
                return true;
    }
    return false;
}

void OpWalker::handleDataFlow(Op* op, bool full)
{
    const bool manual = op->name() == "sdy.manual_computation";
    const std::vector<std::string> manualAxes = manualAxesOf(*op);
    auto process = [&](Value* owner, std::optional<TensorSharding> target) {
        for (const Use& u : edgeSourceUses(op, owner)) {
            InsertPoint ip;
            ip.afterDefOf = u.user->operand(u.index);
            reshardToTarget(m_ctx, u.user, u.index, target, full, ip);
        }
    };
    for (Value* owner : resultOwners(*op)) {
        std::optional<TensorSharding> target = getSharding(owner);
        if (manual && target)
            target = eraseManualAxes(*target, manualAxes);
        process(owner, target);
    }
    const ShardingPerValue* inShardings = manual ? ir::inShardings(*op) : nullptr;
    for (Value* owner : blockArgOwners(*op)) {
        std::optional<TensorSharding> target;
        if (manual) {
            if (inShardings && owner->index() < inShardings->shardings.size())
                target = inShardings->shardings[owner->index()];
        } else {
            target = getSharding(owner);
        }
        process(owner, target);
    }
}

void OpWalker::handleCall(Op* op)
{
    Op* callee = m_ctx.module.findCallee(*op);
    if (!callee)
        return;
    std::optional<MeshRef> fallbackMesh;
    for (Value* v : op->operands()) {
        std::optional<TensorSharding> s = getSharding(v);
        if (!s)
            continue;
        const Mesh* m = ir::meshOf(m_ctx.module, *s);
        if (m && !m->isMaximal()) {
            fallbackMesh = s->mesh;
            break;
        }
    }
    for (unsigned i = 0; i < op->numOperands(); ++i) {
        std::optional<TensorSharding> target = copyOf(ir::funcArgSharding(*callee, i));
        if (!target) {
            if (!fallbackMesh)
                continue;
            target = TensorSharding::closedReplicated(*fallbackMesh, valueRank(op->operand(i)));
        }
        InsertPoint ip;
        ip.afterDefOf = op->operand(i);
        reshardToTarget(m_ctx, op, i, target, true, ip);
    }
}

bool OpWalker::reshardToUnreduced(Op* op)
{
    const TensorSharding* out = ir::opSharding(*op);
    if (!out || op->numOperands() != 1)
        return false;
    std::optional<TensorSharding> in = getSharding(op->operand(0));
    if (!in)
        return false;
    const Mesh* mesh = ir::meshOf(m_ctx.module, *out);
    if (!mesh || axisListDifference(out->unreduced, in->unreduced, *mesh).empty())
        return false;
    InsertPoint ip;
    ip.before = op;
    Value* v = insertUnreducedCollectives(m_ctx, op->operand(0), *in, *out, ip, op);
    if (v == op->operand(0))
        return false;
    op->result(0)->replaceAllUsesWith(v);
    eraseNotified(*op);
    return true;
}

void OpWalker::pendingReductions(Op* op)
{
    auto fail = [&](const std::string& why) {
        m_ctx.diags.error(op->pos, "'" + op->name() + "' op " + why);
        m_ctx.failed = true;
    };
    // Read without copies (getShardingRef): nothing changes the IR before the all-reduces below.
    std::optional<TensorSharding> storage;
    if (op->numResults() == 0) {
        for (Value* v : op->operands()) {
            const TensorSharding* s = getShardingRef(v, storage);
            if (s && !s->unreduced.empty())
                return fail("has no results but an operand with unreduced axes");
        }
        return;
    }
    const TensorSharding* first = getShardingRef(op->result(0), storage);
    const std::vector<AxisRef> keep = first ? first->unreduced : std::vector<AxisRef>{};
    for (unsigned i = 1; i < op->numResults(); ++i) {
        const TensorSharding* s = getShardingRef(op->result(i), storage);
        if ((s ? s->unreduced : std::vector<AxisRef>{}) != keep)
            return fail("has results with different unreduced axes");
    }
    for (unsigned i = 0; i < op->numOperands(); ++i) {
        InsertPoint ip;
        ip.before = op;
        Value* v = allReducePending(m_ctx, op->operand(i), keep, ip);
        if (v != op->operand(i))
            op->setOperand(i, v);
    }
}

TensorSharding rebuild(const TensorFactorShardings& table, const TensorFactorMapping& mapping,
                       const OpShardingRule& rule, const Mesh& mesh, const MeshRef& meshRef,
                       const std::optional<TensorSharding>& original)
{
    TensorSharding s = backProject(table, mapping, rule.factorSizes, meshRef.symbol, mesh);
    s.mesh = meshRef;
    for (size_t d = 0; d < s.dims.size(); ++d) {
        s.dims[d].closed = !original || d >= original->dims.size() || original->dims[d].closed;
        s.dims[d].priority.reset();
    }
    return s;
}

bool sameFactors(const TensorFactorShardings& a, const TensorFactorShardings& b)
{
    if (a.factors.size() != b.factors.size())
        return false;
    for (const auto& [f, fs] : a.factors) {
        const FactorSharding* o = b.find(f);
        if (!o || o->axes != fs.axes || o->overflowAxes != fs.overflowAxes)
            return false;
    }
    return true;
}

/// True if `s` has the same dimension axes as `original` (missing = replicated).
bool sameDimAxes(const TensorSharding& s, const std::optional<TensorSharding>& original)
{
    if (!original)
        return !s.hasDimAxes();
    if (original->dims.size() != s.dims.size() || !(original->mesh == s.mesh))
        return false;
    for (size_t d = 0; d < s.dims.size(); ++d)
        if (original->dims[d].axes != s.dims[d].axes)
            return false;
    return true;
}

bool differentDeviceOrder(const Context& ctx, const std::optional<TensorSharding>& s, const Mesh& mesh)
{
    if (!s || !s->hasDimAxes())
        return false;
    const Mesh* m = ir::meshOf(ctx.module, *s);
    if (!m || m == &mesh)
        return false;
    // allDeviceIds() without building the iota lists of two meshes that have no device_ids.
    if (m->deviceIds().empty() && mesh.deviceIds().empty())
        return m->totalSize() != mesh.totalSize();
    return m->allDeviceIds() != mesh.allDeviceIds();
}

/// Returns true when it inserted a reshard.
bool OpWalker::insertReshards(Op* op, const OpShardingRule& rule, const ShardingProjection& before,
                              const ShardingProjection& after, const Mesh& mesh, const MeshRef& meshRef,
                              const std::vector<std::optional<TensorSharding>>& operands,
                              const std::vector<std::optional<TensorSharding>>& results)
{
    bool inserted = false;
    for (int i = 0; i < after.numOperands() && i < static_cast<int>(op->numOperands()); ++i) {
        if (sameFactors(before.operands[i], after.operands[i]) && !differentDeviceOrder(m_ctx, operands[i], mesh))
            continue;
        TensorSharding s = rebuild(after.operands[i], rule.operands[i], rule, mesh, meshRef, operands[i]);
        if (sameDimAxes(s, operands[i]) && !differentDeviceOrder(m_ctx, operands[i], mesh))
            continue;
        Value* r = insertBefore(op, makeReshard(op->operand(i), s));
        op->setOperand(static_cast<unsigned>(i), r);
        inserted = true;
    }
    Op* last = op;
    for (int i = 0; i < after.numResults() && i < static_cast<int>(op->numResults()); ++i) {
        if (sameFactors(before.results[i], after.results[i]) && !differentDeviceOrder(m_ctx, results[i], mesh))
            continue;
        Value* res = op->result(static_cast<unsigned>(i));
        TensorSharding old = results[i] ? *results[i] : TensorSharding::closedReplicated(meshRef, valueRank(res));
        TensorSharding s = rebuild(after.results[i], rule.results[i], rule, mesh, meshRef, results[i]);
        if (sameDimAxes(s, results[i]) && !differentDeviceOrder(m_ctx, results[i], mesh))
            continue;
        Value* r = insertAfter(last, makeReshard(res, old));
        last = r->definingOp();
        replaceUses(res, r, last);
        setSharding(res, s);
        inserted = true;
    }
    return inserted;
}

void OpWalker::insertReductions(Op* op, std::vector<AxisRef> axes, const MeshRef& meshRef, const Mesh& mesh)
{
    if (op->numResults() == 0)
        return;
    std::optional<TensorSharding> first = getSharding(op->result(0));
    if (first)
        axes = axisListDifference(axes, first->unreduced, mesh);
    if (axes.empty())
        return;
    axes = sortAndMerge(axes, mesh);
    Op* last = op;
    for (unsigned i = 0; i < op->numResults(); ++i) {
        Value* res = op->result(i);
        std::optional<TensorSharding> s = getSharding(res);
        TensorSharding out = s ? *s : TensorSharding::closedReplicated(meshRef, valueRank(res));
        Value* r = insertAfter(last, makeAllReduce(res, axes, out, out.unreducedKind));
        last = r->definingOp();
        replaceUses(res, r, last);
    }
}

void OpWalker::processOp(Op* op)
{
    const std::string& name = op->name();
    const bool full = isFull(op);
    // 1-2. Data-flow ops and calls.
    if (isDataFlowOp(*op)) {
        handleDataFlow(op, full);
        return;
    }
    if (name == "func.call") {
        handleCall(op);
        return;
    }
    // 3. Reshard to unreduced.
    if (name == "sdy.reshard" && reshardToUnreduced(op))
        return;
    // 4. Pending reductions.
    pendingReductions(op);
    if (m_ctx.failed)
        return;
    // 5. Shardings, read without copies: nothing changes the IR before step 10.
    const size_t numOperands = op->numOperands(), numResults = op->numResults();
    m_storage.assign(numOperands + numResults, std::nullopt);
    m_operandRefs.clear();
    m_resultRefs.clear();
    for (size_t i = 0; i < numOperands; ++i)
        m_operandRefs.push_back(operandShardingRef(op->operand(static_cast<unsigned>(i)), m_storage[i]));
    for (size_t i = 0; i < numResults; ++i)
        m_resultRefs.push_back(getShardingRef(op->result(static_cast<unsigned>(i)), m_storage[numOperands + i]));
    // 6. Single-device ops.
    for (const TensorSharding* r : m_resultRefs) {
        if (!r)
            continue;
        const Mesh* m = m_meshes(*r);
        if (m && m->isMaximal()) {
            std::vector<std::optional<TensorSharding>> results;
            for (const TensorSharding* s : m_resultRefs)
                results.push_back(copyOf(s));
            handleSingleDeviceOp(m_ctx, op, results);
            return;
        }
    }
    // 7-11, or what they found for an op alike.
    const bool memo = explicitReshardsRuleIsLocal(*op);
    uint64_t hash = 0;
    if (memo) {
        hash = UnchangedOpMemo::hash(*op, full, m_operandRefs, m_resultRefs);
        if (const UnchangedOpMemo::Entry* e = m_unchanged.find(hash, *op, full, m_operandRefs, m_resultRefs)) {
            if (m_ctx.permutationFree)
                m_ctx.permutationFree->note(*op, e->rule ? &*e->rule : nullptr);
            return;
        }
    }
    std::vector<std::optional<TensorSharding>> operands;
    std::vector<std::optional<TensorSharding>> results;
    operands.reserve(numOperands);
    results.reserve(numResults);
    for (const TensorSharding* s : m_operandRefs)
        operands.push_back(copyOf(s));
    for (const TensorSharding* s : m_resultRefs)
        results.push_back(copyOf(s));
    std::optional<OpShardingRule> rule;
    const bool changed = applyRule(op, full, operands, results, rule);
    if (memo && !changed && !m_ctx.failed)
        m_unchanged.add(hash, *op, full, std::move(operands), std::move(results), std::move(rule));
}

/// Steps 7-11 of processOp: returns true when it changed the IR.
bool OpWalker::applyRule(Op* op, bool full, const std::vector<std::optional<TensorSharding>>& operands,
                         const std::vector<std::optional<TensorSharding>>& results, std::optional<OpShardingRule>& rule)
{
    const std::string& name = op->name();
    // 7. Rule.
    rule = getOrCreateOpShardingRule(*op);
    if (m_ctx.permutationFree)
        m_ctx.permutationFree->note(*op, rule ? &*rule : nullptr);
    if (!rule || rule->isCustom)
        return false;
    if (rule->operands.size() != op->numOperands() || rule->results.size() != op->numResults())
        return false;
    // 8. Mesh.
    const Mesh* common = nullptr;
    MeshRef commonRef;
    std::vector<const TensorSharding*> all;
    for (const auto& s : operands)
        if (s)
            all.push_back(&*s);
    for (const auto& s : results)
        if (s)
            all.push_back(&*s);
    for (const TensorSharding* s : all) {
        const Mesh* m = m_meshes(*s);
        if (!m || m->isEmpty())
            continue;
        if (!common) {
            common = m;
            commonRef = s->mesh;
        } else if (!common->equalsIgnoringDeviceIds(*m)) {
            return false;
        }
    }
    if (!common || common->isMaximal())
        return false;
    {
        // The mesh most shardings with axes name (the first to get there on a tie). Two references
        // are the same mesh when they are equal (they print the same).
        std::vector<std::pair<const MeshRef*, int>> counts;
        int best = 0;
        for (const TensorSharding* s : all) {
            if (!s->hasDimAxes())
                continue;
            auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& e) { return *e.first == s->mesh; });
            if (it == counts.end())
                it = counts.insert(counts.end(), {&s->mesh, 0});
            const int c = ++it->second;
            if (c > best) {
                best = c;
                commonRef = s->mesh;
            }
        }
    }
    const Mesh* meshPtr = m_meshes(commonRef);
    const Mesh& mesh = meshPtr ? *meshPtr : *common;
    // 9. Projection.
    std::vector<const TensorSharding*> opPtrs, resPtrs;
    for (const auto& s : operands)
        opPtrs.push_back(s ? &*s : nullptr);
    for (const auto& s : results)
        resPtrs.push_back(s ? &*s : nullptr);
    const ShardingProjection projection = buildProjection(opPtrs, resPtrs, *rule, mesh, true);
    FactorProblem problem;
    problem.rule = &*rule;
    problem.projection = &projection;
    problem.mesh = &mesh;
    for (Value* v : op->operands())
        problem.tensorSizes.push_back(tensorSize(v));
    for (const auto& r : op->results())
        problem.tensorSizes.push_back(tensorSize(r.get()));

    // 10. Factor shardings.
    bool changed = false;
    std::vector<AxisRef> reductionAxes;
    if (full) {
        std::vector<std::vector<AxisRef>> commonAxes;
        bool done = false;
        if (name == "stablehlo.reshape")
            done = reshapeOverflowCommonAxes(problem, commonAxes);
        if (!done)
            commonAxes = computeCommonAxes(problem);
        // Most ops already agree: every factor keeps its axes and none overflows. The updated
        // projection is then the projection itself (no copy).
        bool unchanged = true;
        for (int t = 0; t < projection.numTensors() && unchanged; ++t)
            for (const auto& [f, fs] : projection.tensor(t).factors)
                if (!fs.overflowAxes.empty() || fs.axes != commonAxes[static_cast<size_t>(f)]) {
                    unchanged = false;
                    break;
                }
        if (unchanged) {
            changed = insertReshards(op, *rule, projection, projection, mesh, commonRef, operands, results);
        } else {
            ShardingProjection updated = projection;
            for (int t = 0; t < updated.numTensors(); ++t)
                for (auto& [f, fs] : updated.tensor(t).factors) {
                    fs.axes = commonAxes[static_cast<size_t>(f)];
                    fs.overflowAxes.clear();
                }
            changed = insertReshards(op, *rule, projection, updated, mesh, commonRef, operands, results);
        }
        for (int64_t f : rule->reductionFactors)
            for (const AxisRef& a : commonAxes[static_cast<size_t>(f)])
                reductionAxes.push_back(a);
    } else {
        if ((name == "stablehlo.dot" || name == "stablehlo.dot_general") && op->numResults() == 1 && results[0]) {
            ShardingProjection updated = projection;
            if (dotSpecialCase(problem, updated, name == "stablehlo.dot_general"))
                changed = insertReshards(op, *rule, projection, updated, mesh, commonRef, operands, results);
        }
        if (op->numResults() > 0 && results[0] && !results[0]->unreduced.empty()) {
            for (int64_t f : rule->reductionFactors) {
                std::optional<std::vector<AxisRef>> axes;
                for (int t = 0; t < projection.numTensors(); ++t) {
                    const FactorSharding* fs = projection.tensor(t).find(f);
                    if (!fs)
                        continue;
                    if (axes && *axes != fs->axes) {
                        m_ctx.diags.error(op->pos, "reduction factors are not sharded identically in '" + name + "'");
                        m_ctx.failed = true;
                        return changed;
                    }
                    axes = fs->axes;
                }
                if (axes)
                    reductionAxes.insert(reductionAxes.end(), axes->begin(), axes->end());
            }
        }
    }
    // 11. Reductions (counted as a change even when every axis is already unreduced).
    if (reductionAxes.empty())
        return changed;
    insertReductions(op, reductionAxes, commonRef, mesh);
    return true;
}

void OpWalker::handleFuncReturn(Op* func)
{
    if (func->numRegions() == 0 || func->region(0).empty())
        return;
    Op* term = func->region(0).front().terminator();
    if (!term)
        return;
    for (unsigned i = 0; i < term->numOperands(); ++i) {
        std::optional<TensorSharding> target = copyOf(ir::funcResultSharding(*func, i));
        InsertPoint ip;
        ip.before = term;
        reshardToTarget(m_ctx, term, i, target, m_ctx.fullVersion, ip);
    }
}

bool checkNotMaximal(Context& ctx, Op* func)
{
    const ir::Type ft = ir::funcType(*func);
    bool ok = true;
    auto check = [&](const std::optional<TensorSharding>& s, const std::string& what, size_t i) {
        if (!s)
            return;
        const Mesh* m = ir::meshOf(ctx.module, *s);
        if (m && m->isMaximal()) {
            ctx.diags.error(func->pos, "function " + what + " " + std::to_string(i) +
                                           " cannot have a single-device (maximal) sharding attribute");
            ok = false;
        }
    };
    for (size_t i = 0; i < ft.elements().size(); ++i)
        check(copyOf(ir::funcArgSharding(*func, static_cast<unsigned>(i))), "argument", i);
    for (size_t i = 0; i < ft.results().size(); ++i)
        check(copyOf(ir::funcResultSharding(*func, static_cast<unsigned>(i))), "result", i);
    return ok;
}

} // namespace

bool insertExplicitReshards(ir::Module& module, const ExplicitReshardsOptions& options, DiagnosticList& diags)
{
    Context ctx{module, options.fullVersion, diags};
    ctx.permutationFree = options.permutationFree;
    for (Op* func : module.funcs()) {
        if (!checkNotMaximal(ctx, func)) {
            ctx.failed = true;
            continue;
        }
        if (func->numRegions() == 0 || func->region(0).empty())
            continue;
        std::vector<Op*> ops;
        for (const auto& b : func->region(0).blocks())
            collectPostOrder(*b, ops);
        OpWalker walker(ctx);
        for (Op* op : ops) {
            walker.processOp(op);
            if (ctx.failed)
                return false;
        }
        walker.handleFuncReturn(func);
    }
    return !ctx.failed && !diags.hasErrors();
}

} // namespace shardx
