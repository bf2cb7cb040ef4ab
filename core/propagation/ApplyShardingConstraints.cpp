// sdy-apply-sharding-constraints (DataFlowEdgePasses.h, SDY.md 3.6).
#include <functional>

#include "core/ir/ShardingAccess.h"
#include "core/propagation/DataFlowEdgePasses.h"
#include "core/propagation/PropagationObserver.h"
#include "core/propagation/ShardingWrites.h"
#include "core/propagation/ValueSharding.h"

namespace shardx {

using ir::Op;
using ir::Value;

namespace {

bool isConstraint(const Op* op)
{
    static const ir::OperationName kConstraint("sdy.sharding_constraint");
    return op && op->opName() == kConstraint;
}

bool isManual(const Op* op)
{
    static const ir::OperationName kManual("sdy.manual_computation");
    return op && op->opName() == kManual;
}

const TensorSharding* inShardingFor(const Op& manual, unsigned operandIndex)
{
    const ShardingPerValue* l = ir::inShardings(manual);
    return l && operandIndex < l->shardings.size() ? &l->shardings[operandIndex] : nullptr;
}

bool fullyClosed(const TensorSharding& s)
{
    for (const DimSharding& d : s.dims)
        if (!d.closed)
            return false;
    return true;
}

bool hasConstraintOrManualUser(const Value* v, const Op* except)
{
    for (const ir::Use& u : v->uses())
        if (u.user != except && (isConstraint(u.user) || isManual(u.user)))
            return true;
    return false;
}

/// True if `v` is the result of an `sdy.data_flow_edge` or a target whose owner has one.
bool isDataFlowTarget(const Value* v)
{
    if (!v->isBlockArgument() && v->definingOp()->name() == "sdy.data_flow_edge")
        return true;
    return dataFlowEdgeOpOf(edgeOwnerOf(v)) != nullptr;
}

/// Rule 2's conditions other than the data-flow case: no sharding yet, `s` fully closed, no
/// other user of `x` asks for a different sharding.
bool canApply(Value* x, const TensorSharding& s, const Op* self, unsigned selfIndex)
{
    if (!canHoldSharding(x) || getSharding(x) || !fullyClosed(s))
        return false;
    for (const ir::Use& u : x->uses()) {
        if (u.user == self && u.index == selfIndex)
            continue;
        if (isConstraint(u.user)) {
            const TensorSharding* other = ir::opSharding(*u.user);
            if (!other || !(*other == s))
                return false;
        } else if (isManual(u.user)) {
            const TensorSharding* other = inShardingFor(*u.user, u.index);
            if (!other || !(*other == s))
                return false;
        }
    }
    return true;
}

void redirectOtherUses(Value* x, Op* keep, Value* to) { replaceUses(x, to, keep); }

void setUnreducedOf(Value* x, const TensorSharding& s)
{
    if (s.unreduced.empty())
        return;
    std::optional<TensorSharding> cur = getSharding(x);
    TensorSharding nw = cur ? *cur : TensorSharding::open(s.mesh, valueRank(x));
    nw.unreduced = s.unreduced;
    nw.unreducedKind = s.unreducedKind;
    setSharding(x, nw);
}

void handleChain(Op& head)
{
    Value* x = head.operand(0);
    if (isConstraint(x->definingOp()) || getSharding(x) || hasConstraintOrManualUser(x, &head))
        return;
    Op* tail = &head;
    while (tail->result(0)->hasOneUse() && isConstraint(tail->result(0)->uses().front().user))
        tail = tail->result(0)->uses().front().user;
    if (tail == &head || hasConstraintOrManualUser(tail->result(0), nullptr))
        return;
    const std::vector<ir::Use> uses = x->uses();
    for (auto it = uses.rbegin(); it != uses.rend(); ++it) {
        const ir::Use& u = *it;
        Op* user = u.user;
        if (user == &head || user->name() == "func.return" || user->parentBlock() != tail->parentBlock())
            continue;
        if (!tail->isBeforeInBlock(user))
            continue;
        user->setOperand(u.index, tail->result(0));
    }
}

/// Reports the copy of `s` from `op`'s value `from` onto `x` as one step.
void report(PropagationObserver* obs, Op& op, Value* x, Value* from, const TensorSharding& s)
{
    if (!obs)
        return;
    PropagationStep step;
    step.kind = StepKind::ApplyConstraint;
    step.op = &op;
    step.meshName = s.mesh.symbol;
    step.numOperands = 1;
    step.operandValues = {x};
    step.resultValues = {from};
    step.changes.push_back(ShardingChange{0, x, -1, std::nullopt, s});
    obs->step(step);
}

void applyConstraint(Op& c, PropagationObserver* obs)
{
    handleChain(c);
    Value* x = c.operand(0);
    const TensorSharding* s = ir::opSharding(c);
    if (!s || !canApply(x, *s, &c, 0))
        return;
    if (isDataFlowTarget(x)) {
        std::unique_ptr<Op> owned = c.parentBlock()->remove(&c);
        Op* raw = owned.get();
        ir::insertAtDefinition(*x, std::move(owned));
        notifyOpsInserted(*raw);
        redirectOtherUses(x, raw, raw->result(0));
        setUnreducedOf(x, *s);
        return;
    }
    setSharding(x, *s);
    report(obs, c, x, c.result(0), *s);
}

void applyManualInShardings(ir::Module& module, Op& mc, PropagationObserver* obs)
{
    for (unsigned i = 0; i < mc.numOperands(); ++i) {
        Value* x = mc.operand(i);
        const TensorSharding* s = inShardingFor(mc, i);
        if (!s || !canApply(x, *s, &mc, i))
            continue;
        if (isDataFlowTarget(x)) {
            auto op = std::make_unique<Op>("sdy.sharding_constraint");
            op->addOperand(x);
            Value* r = op->addResult(x->type());
            ir::setOpSharding(*op, *s);
            Op* raw = op.get();
            ir::insertAtDefinition(*x, std::move(op));
            module.noteDerived(*raw, *x, ir::Derivation::Constraint);
            notifyOpsInserted(*raw);
            redirectOtherUses(x, raw, r);
            continue;
        }
        setSharding(x, *s);
        report(obs, mc, x, nullptr, *s);
    }
}

} // namespace

bool applyShardingConstraints(ir::Module& module, PropagationObserver* observer)
{
    module.op().walkPostOrder([&module, observer](Op* op) {
        if (isConstraint(op) && op->numOperands() == 1)
            applyConstraint(*op, observer);
        else if (isManual(op))
            applyManualInShardings(module, *op, observer);
    });
    return true;
}

} // namespace shardx
