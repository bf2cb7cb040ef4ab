// Pipeline steps (PipelineSteps.h) rewriting ops: constants, sharding groups, manual axes, I/O shardings (SDY.md 3.7).
#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "core/ir/OpRegistry.h"
#include "core/ir/ShardingAccess.h"
#include "core/propagation/PipelineSteps.h"
#include "core/propagation/PropagationDriver.h"
#include "core/propagation/ShardingWrites.h"
#include "core/propagation/ValueSharding.h"
#include "core/support/PointerMap.h"

namespace shardx {

using ir::Op;
using ir::Value;

namespace {

bool isPure(const Op& op)
{
    const ir::OpInfo* info = ir::OpRegistry::instance().lookup(op.name());
    return info && info->isPure;
}

bool isScalarExpansion(const Op& op)
{
    static const ir::OperationName kBroadcast("stablehlo.broadcast_in_dim");
    return op.opName() == kBroadcast && op.numOperands() == 1 && op.operand(0)->type().isRankedTensor() &&
           op.operand(0)->type().rank() == 0;
}

class ConstantSplitter {
public:
    explicit ConstantSplitter(ir::Module& module) : m_module(module) {}

    bool isConstExpr(const Op* op)
    {
        // Asked of every operand of every op: the kinds that can never be one are answered by
        // their interned name, without a memo entry.
        static const ir::OperationName kConstant("sdy.constant"), kIota("stablehlo.iota");
        if (!op)
            return false;
        const ir::OperationName n = op->opName();
        if (n == kConstant || n == kIota)
            return true;
        if (op->numRegions() != 0 || !kindMayBeConstExpr(*op))
            return false;
        if (const bool* known = m_memo.find(op))
            return *known;
        bool result = true;
        for (const Value* v : op->operands())
            result = result && isConstExpr(v->definingOp());
        m_memo.insert(op, result);
        return result;
    }

    bool isSplittable(const Op* op) { return op && (isConstExpr(op) || isScalarExpansion(*op)); }

    Value* cloneValue(Value* v)
    {
        Op* def = v->definingOp();
        auto clone = std::make_unique<Op>(def->name());
        for (Value* operand : def->operands()) {
            const bool scalar = operand->type().isRankedTensor() && operand->type().rank() == 0;
            if (!scalar && isSplittable(operand->definingOp()))
                clone->addOperand(cloneValue(operand));
            else
                clone->addOperand(operand);
        }
        for (const auto& r : def->results())
            clone->addResult(r->type());
        clone->props() = def->props();
        clone->attrs() = def->attrs();
        clone->pos = def->pos;
        clone->loc = def->loc;
        Op* raw = def->parentBlock()->insertBefore(def, std::move(clone));
        m_module.noteDerived(*raw, *def, ir::Derivation::Copy);
        notifyOpsInserted(*raw);
        m_memo.insert(raw, isConstExpr(def));
        m_originals.insert(def);
        Value* result = raw->result(v->index());
        // Sharding groups of the original value are cloned for the clone.
        for (Op* group : groupUsers(v)) {
            auto g = std::make_unique<Op>("sdy.sharding_group");
            g->addOperand(result);
            g->props() = group->props();
            g->attrs() = group->attrs();
            Op* copy = group->parentBlock()->insertAfter(group, std::move(g));
            m_module.noteDerived(*copy, *group, ir::Derivation::Copy);
        }
        return result;
    }

    void run(Op& func)
    {
        std::vector<Op*> order;
        func.walk([&](Op* op) {
            if (op != &func)
                order.push_back(op);
        });
        static const ir::OperationName kGroup("sdy.sharding_group");
        for (Op* op : order) {
            if (isSplittable(op) || op->opName() == kGroup)
                continue;
            for (unsigned i = 0; i < op->numOperands(); ++i) {
                Value* v = op->operand(i);
                const bool scalar = v->type().isRankedTensor() && v->type().rank() == 0;
                if (scalar || !isSplittable(v->definingOp()))
                    continue;
                op->setOperand(i, cloneValue(v));
            }
        }
        // Erase originals used only by sharding groups (users first), in reverse program order.
        std::vector<Op*> originals;
        for (Op* op : order)
            if (m_originals.count(op))
                originals.push_back(op);
        bool changed = true;
        while (changed) {
            changed = false;
            for (auto it = originals.rbegin(); it != originals.rend(); ++it) {
                Op* op = *it;
                if (!op)
                    continue;
                bool onlyGroups = true;
                for (const auto& r : op->results())
                    for (const ir::Use& u : r->uses())
                        onlyGroups = onlyGroups && u.user->name() == "sdy.sharding_group";
                if (!onlyGroups)
                    continue;
                for (const auto& r : op->results()) {
                    const std::vector<ir::Use> uses = r->uses();
                    for (const ir::Use& u : uses)
                        eraseNotified(*u.user);
                }
                m_originals.erase(op);
                *it = nullptr;
                eraseNotified(*op);
                changed = true;
            }
        }
    }

private:
    /// A pure broadcast, reshape, slice or elementwise op (by its name, remembered per name: the
    /// registry is asked once per kind of op, not for every operand).
    bool kindMayBeConstExpr(const Op& op)
    {
        static const ir::OperationName kBroadcast("stablehlo.broadcast_in_dim"), kReshape("stablehlo.reshape"),
            kSlice("stablehlo.slice"), kBitcastConvert("stablehlo.bitcast_convert");
        const ir::OperationName n = op.opName();
        if (n == kBitcastConvert) // elementwise or not by its shapes
            return isElementwiseOp(op) && isPure(op);
        auto [it, inserted] = m_kindMayBeConstExpr.try_emplace(&n.str(), false);
        if (inserted)
            it->second = (n == kBroadcast || n == kReshape || n == kSlice || isElementwiseOp(op)) && isPure(op);
        return it->second;
    }

    ir::Module& m_module;
    std::unordered_map<const std::string*, bool> m_kindMayBeConstExpr;
    /// The `sdy.sharding_group` users of `v`, found once per value: a value with many uses is
    /// cloned once per use, and the groups added meanwhile use the clones, not `v`.
    const std::vector<Op*>& groupUsers(const Value* v)
    {
        auto [it, inserted] = m_groupUsers.try_emplace(v);
        if (inserted)
            for (const ir::Use& u : v->uses())
                if (u.user->name() == "sdy.sharding_group")
                    it->second.push_back(u.user);
        return it->second;
    }

    PointerMap<Op, bool> m_memo; ///< whether an op of a possible kind is a constant expression
    std::set<Op*> m_originals;
    std::unordered_map<const Value*, std::vector<Op*>> m_groupUsers;
};

bool sameOp(const Op& a, const Op& b)
{
    if (a.name() != b.name() || a.numOperands() != b.numOperands() || a.numResults() != b.numResults() ||
        a.numRegions() != 0 || b.numRegions() != 0)
        return false;
    for (unsigned i = 0; i < a.numOperands(); ++i)
        if (a.operand(i) != b.operand(i))
            return false;
    for (unsigned i = 0; i < a.numResults(); ++i)
        if (a.result(i)->type() != b.result(i)->type())
            return false;
    auto sameList = [](const ir::NamedAttrList& x, const ir::NamedAttrList& y) {
        if (x.size() != y.size())
            return false;
        for (size_t i = 0; i < x.size(); ++i)
            if (x[i].name != y[i].name || !ir::attrEquals(x[i].value, y[i].value))
                return false;
        return true;
    };
    return sameList(a.props(), b.props()) && sameList(a.attrs(), b.attrs());
}

void mergeInBlock(ir::Block& block)
{
    std::vector<Op*> seen;
    std::vector<Op*> ops;
    for (const auto& op : block.ops())
        ops.push_back(op.get());
    for (Op* op : ops) {
        for (const auto& r : op->regions())
            for (const auto& b : r->blocks())
                mergeInBlock(*b);
        static const ir::OperationName kSdyConstant("sdy.constant"), kConstant("stablehlo.constant");
        const bool constant = op->opName() == kSdyConstant || op->opName() == kConstant;
        if (!constant && !isScalarExpansion(*op))
            continue;
        auto it = std::find_if(seen.begin(), seen.end(), [&](Op* s) { return sameOp(*s, *op); });
        if (it == seen.end()) {
            seen.push_back(op);
            continue;
        }
        for (unsigned i = 0; i < op->numResults(); ++i)
            replaceUses(op->result(i), (*it)->result(i));
        eraseNotified(*op);
    }
}

} // namespace

void constantOrScalarSplitter(ir::Module& module)
{
    static const ir::OperationName kConstant("stablehlo.constant");
    module.op().walk([](Op* op) {
        if (op->opName() == kConstant)
            op->setName("sdy.constant");
    });
    for (Op* func : module.funcs()) {
        ConstantSplitter splitter(module);
        splitter.run(*func);
    }
}

void constantOrScalarMerger(ir::Module& module)
{
    for (Op* func : module.funcs())
        for (const auto& r : func->regions())
            for (const auto& b : r->blocks())
                mergeInBlock(*b);
}

} // namespace shardx
