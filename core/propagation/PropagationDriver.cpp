// PropagationDriver: worklist, notifications, runs and the end of a pass (SDY.md 4.8).
#include "core/propagation/PropagationDriver.h"

#include <algorithm>

#include "core/ir/Canonicalizer.h"
#include "core/ir/OpRegistry.h"
#include "core/propagation/ValueSharding.h"
#include "core/rules/RuleRegistry.h"

namespace shardx {

using ir::Op;
using ir::Value;

bool isElementwiseOp(const Op& op)
{
    // Asked at every step (and by the op-priority heuristics for every factor): the registry's
    // answer is remembered per interned name, per thread.
    static const ir::OperationName kBitcastConvert("stablehlo.bitcast_convert");
    const ir::OperationName n = op.opName();
    if (n == kBitcastConvert)
        return op.numOperands() == 1 && op.numResults() == 1 &&
               op.operand(0)->type().shape() == op.result(0)->type().shape();
    thread_local const std::string* lastName = nullptr;
    thread_local bool lastAnswer = false;
    if (lastName != &n.str()) {
        const ir::OpInfo* info = ir::OpRegistry::instance().lookup(n.str());
        lastAnswer = info && info->isElementwise;
        lastName = &n.str();
    }
    return lastAnswer;
}

PropagationDriver::PropagationDriver(ir::Module& module, PropagationOptions options, DiagnosticList& diags)
    : m_module(module), m_options(options), m_diags(diags)
{}

Op* PropagationDriver::mainFunc() const
{
    std::vector<Op*> funcs = m_module.funcs();
    if (funcs.size() == 1)
        return funcs.front();
    return m_module.findFunc("main");
}

bool PropagationDriver::prepare()
{
    bool ok = true;
    m_module.op().walk([&](Op* op) {
        for (const auto& r : op->results()) {
            const ir::Type& t = r->type();
            if (t.isTuple() || (t.isTensor() && !t.hasStaticShape())) {
                SourcePos pos = op->pos;
                if (pos.file.empty())
                    pos.file = m_module.fileName;
                m_diags.error(pos, "propagation requires statically shaped, non-tuple results; got " + t.toString());
                ok = false;
                return;
            }
        }
    });
    if (!ok)
        return false;
    buildGroups();
    return syncGroups();
}

// ---- worklist -----------------------------------------------------------------------------

void PropagationDriver::push(Op* op)
{
    if (m_inWorklist.contains(op))
        return;
    m_inWorklist.insert(op, m_worklist.size());
    m_worklist.push_back(op);
}

void PropagationDriver::queue(Op* op)
{
    for (Op* o = op; o && o != &m_module.op(); o = o->parentOp())
        push(o);
}

Op* PropagationDriver::pop()
{
    while (!m_worklist.empty()) {
        Op* op = m_worklist.back();
        m_worklist.pop_back();
        if (op) {
            m_inWorklist.erase(op);
            return op;
        }
    }
    return nullptr;
}

void PropagationDriver::removeFromWorklist(Op* op)
{
    const size_t* slot = m_inWorklist.find(op);
    if (!slot)
        return;
    m_worklist[*slot] = nullptr;
    m_inWorklist.erase(op);
}

void PropagationDriver::eraseDeadOp(Op* op)
{
    if (m_options.observer)
        m_options.observer->opErased(op);
    m_callsIndexed = false; // the erased op may hold calls (none today: calls are not pure)
    m_lastMesh = nullptr;   // nor meshes
    std::vector<Op*> nested;
    op->walk([&](Op* o) { nested.push_back(o); });
    std::reverse(nested.begin(), nested.end()); // post-order-ish: nested before parent
    for (Op* o : nested) {
        for (Value* operand : o->operands()) {
            Op* def = operand ? operand->definingOp() : nullptr;
            if (!def)
                continue;
            // Queue the definition when at most one distinct other user remains.
            Op* other = nullptr;
            bool several = false;
            for (const ir::Use& u : operand->uses()) {
                if (u.user == o || u.user == other)
                    continue;
                if (other) {
                    several = true;
                    break;
                }
                other = u.user;
            }
            if (!several)
                queue(def);
        }
        removeFromWorklist(o);
    }
    for (const auto& r : op->results())
        m_groupOf.erase(r.get());
    op->dropAllReferences();
    op->erase();
}

// ---- notifications ------------------------------------------------------------------------

void PropagationDriver::queueUsers(Value* v, int depth)
{
    if (!v || depth > 16)
        return;
    // Nothing below edits use lists (it only queues ops), so the list is read in place.
    const std::vector<ir::Use>& uses = v->uses();
    for (auto it = uses.rbegin(); it != uses.rend(); ++it) {
        Op* user = it->user;
        if (isDataFlowSourceUser(*user)) {
            for (Op* edge : edgeOpsOfSourceUse(*user, it->index))
                queue(edge);
            continue;
        }
        if (user->name() == "func.return") {
            Op* func = user->parentOp();
            bool called = false;
            if (func) {
                const std::string name = ir::symbolName(*func);
                if (!name.empty()) {
                    for (Op* o : callsTo(name)) {
                        called = true;
                        if (it->index < o->numResults())
                            queueUsers(o->result(it->index), depth + 1);
                    }
                }
                if (!called)
                    queue(func);
            }
            continue;
        }
        const ir::OpInfo* info = ir::OpRegistry::instance().lookup(user->name());
        if (info && info->isTerminator) {
            if (Op* parent = user->parentOp())
                queue(parent);
            continue;
        }
        if (user->name() == "func.call") {
            Op* func = m_module.findCallee(*user);
            if (func && func->numRegions() && !func->region(0).empty()) {
                ir::Block* entry = func->region(0).blocks().front().get();
                if (it->index < entry->numArgs())
                    queueUsers(entry->arg(it->index), depth + 1);
            }
            continue;
        }
        queue(user);
    }
}

void PropagationDriver::notifyChanged(Value* v, Op* current, bool inWorklist)
{
    if (inWorklist) {
        Op* def = v->definingOp();
        if (def && def->name() == "sdy.data_flow_edge" && def->numOperands() == 1)
            for (Value* t : edgeNonOwnerTargets(def->operand(0)))
                queueUsers(t);
        Op* owner = def ? def : v->ownerBlock()->parentOp();
        if (owner && owner != current)
            queue(owner);
        queueUsers(v);
    }
}

void PropagationDriver::copyToGroup(Value* v, Op* current, bool inWorklist)
{
    auto it = m_groupOf.find(v);
    if (it == m_groupOf.end())
        return;
    std::optional<TensorSharding> s = getSharding(v);
    if (!s)
        return;
    for (Value* w : m_groups[it->second]) {
        if (w == v)
            continue;
        std::optional<TensorSharding> old = getSharding(w);
        if (old && *old == *s)
            continue;
        setSharding(w, *s);
        if (m_options.observer && m_inStep)
            m_pendingGroupCopies.emplace_back(it->second, v, w);
        else if (m_options.observer)
            m_options.observer->shardingGroupCopy(it->second, v, w);
        notifyChanged(w, current, inWorklist);
    }
}

// ---- runs -----------------------------------------------------------------------------------

void PropagationDriver::run(FactorStrategy strategy, OpDirectionFn direction)
{
    m_strategy = strategy;
    m_direction = std::move(direction);
    m_lastMesh = nullptr;
    if (stopRequested())
        return;
    if (m_options.observer)
        m_options.observer->runBegin(strategy == FactorStrategy::Basic ? "basic" : "aggressive");
    Op* main = mainFunc();
    if (main)
        funcResultSteps(main);

    m_worklist.clear();
    m_inWorklist.clear();
    m_callsIndexed = false;
    std::vector<Op*> order;
    for (const auto& top : m_module.body().ops())
        top->walkPreOrder([&](Op* o) {
            order.push_back(o);
            return true;
        });
    m_worklist.reserve(order.size());
    m_inWorklist.reserve(order.size());
    for (auto it = order.rbegin(); it != order.rend(); ++it)
        push(*it);
    while (Op* op = pop()) {
        if (stopRequested())
            return;
        if (ir::isTriviallyDead(*op)) {
            eraseDeadOp(op);
            continue;
        }
        visit(op);
    }
    if (main)
        funcResultSteps(main);
}

bool PropagationDriver::stopRequested()
{
    if (m_cancelled)
        return true;
    if (!m_options.cancel || !m_options.cancel->load(std::memory_order_relaxed))
        return false;
    m_cancelled = true;
    m_worklist.clear();
    m_diags.error(SourcePos{m_module.fileName, 0, 0}, "propagation cancelled");
    return true;
}

const std::vector<Op*>& PropagationDriver::callsTo(const std::string& name)
{
    if (!m_callsIndexed) {
        m_callsByCallee.clear();
        m_module.op().walk([&](Op* o) {
            if (o->name() != "func.call")
                return;
            m_callsByCallee[ir::calleeName(*o).value_or(std::string())].push_back(o);
        });
        m_callsIndexed = true;
    }
    static const std::vector<Op*> kNone;
    auto it = m_callsByCallee.find(name);
    return it == m_callsByCallee.end() ? kNone : it->second;
}

void PropagationDriver::finish()
{
    if (m_options.keepShardingRules)
        return;
    m_module.op().walk([&](Op* op) {
        const ir::Attribute* a = op->attr(kShardingRuleAttrName);
        const ir::OpShardingRuleAttr* r = a ? a->as<ir::OpShardingRuleAttr>() : nullptr;
        if (r && !r->rule.isCustom)
            op->removeAttribute(kShardingRuleAttrName);
    });
}

} // namespace shardx
