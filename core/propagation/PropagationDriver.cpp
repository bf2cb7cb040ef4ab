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

size_t PropagationDriver::initialSlot(const Op* op) const
{
    const uint32_t* index = m_orderIndex.find(op);
    if (!index)
        return SIZE_MAX;
    const size_t slot = m_order.size() - 1 - *index; // the initial slots hold m_order reversed
    return slot < m_initial && m_worklist[slot] == op ? slot : SIZE_MAX;
}

void PropagationDriver::push(Op* op)
{
    if (m_inWorklist.contains(op) || initialSlot(op) != SIZE_MAX)
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
        if (m_worklist.size() < m_initial) {
            m_initial = m_worklist.size(); // an initial slot: not in the map
            if (op)
                return op;
            continue;
        }
        if (op) {
            m_inWorklist.erase(op);
            return op;
        }
    }
    return nullptr;
}

void PropagationDriver::prefetchNext() const
{
    // A visit is bound by memory: each op of a 100k-op module is read from far caches in every run.
    // The ops next on the stack are asked for ahead: the op two pops away, and the lists of the
    // next one (its record was asked for on the previous visit).
    const size_t n = m_worklist.size();
    if (n >= 3 && m_worklist[n - 3])
        __builtin_prefetch(m_worklist[n - 3]);
    if (n >= 1)
        if (const Op* next = m_worklist[n - 1])
            next->prefetchLists();
}

void PropagationDriver::removeFromWorklist(Op* op)
{
    if (const size_t slot = initialSlot(op); slot != SIZE_MAX) {
        m_worklist[slot] = nullptr;
        return;
    }
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
    // Gone from the kept order too (its address may be reused).
    for (Op* o : nested)
        if (std::optional<uint32_t> index = m_orderIndex.erase(o))
            m_order[*index] = nullptr;
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

    m_inWorklist.clear();
    m_callsIndexed = false;
    if (!m_orderBuilt) {
        for (const auto& top : m_module.body().ops())
            top->walkPreOrder([&](Op* o) {
                m_order.push_back(o);
                return true;
            });
        m_orderIndex.reserve(m_order.size());
        for (size_t i = 0; i < m_order.size(); ++i)
            m_orderIndex.insert(m_order[i], static_cast<uint32_t>(i));
        m_orderBuilt = true;
    }
    m_worklist.assign(m_order.rbegin(), m_order.rend());
    m_initial = m_worklist.size();
    while (Op* op = pop()) {
        if (stopRequested())
            return;
        prefetchNext();
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
    m_initial = 0;
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
        const ir::AttrPtr* found = op->findInterned(shardingRuleAttrName());
        const ir::Attribute* a = found ? found->get() : nullptr;
        const ir::OpShardingRuleAttr* r = a ? a->as<ir::OpShardingRuleAttr>() : nullptr;
        if (r && !r->rule.isCustom)
            op->removeAttribute(kShardingRuleAttrName);
    });
}

} // namespace shardx
