// Reading and writing the sharding of a value, data-flow edges and manual axes.
#include "core/propagation/ValueSharding.h"

#include <algorithm>

#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/propagation/ShardingWrites.h"

namespace shardx {

using ir::Op;
using ir::Value;

namespace {

bool isRegionDataFlowOp(const std::string& n) { return n == "sdy.manual_computation" || n == "sdy.named_computation"; }

Op* parentOfArg(const Value* v) { return v->isBlockArgument() ? v->ownerBlock()->parentOp() : nullptr; }

/// `old` (or an empty list) with entry `index` set to `s`, first filled to one open sharding
/// per rank when its length differs from `ranks`.
ShardingPerValue withEntry(const ShardingPerValue* old, unsigned index, const TensorSharding& s,
                           const std::vector<int>& ranks)
{
    ShardingPerValue list;
    if (old)
        list = *old;
    if (list.shardings.size() != ranks.size()) {
        MeshRef mesh = s.mesh;
        std::vector<TensorSharding> filled;
        for (size_t i = 0; i < ranks.size(); ++i)
            filled.push_back(i < list.shardings.size() ? list.shardings[i] : TensorSharding::open(mesh, ranks[i]));
        list.shardings = std::move(filled);
    }
    if (index < list.shardings.size())
        list.shardings[index] = s;
    return list;
}

std::vector<int> resultRanks(const Op& op)
{
    std::vector<int> ranks;
    for (const auto& r : op.results())
        ranks.push_back(valueRank(r.get()));
    return ranks;
}

std::vector<int> argRanks(const Op& op)
{
    std::vector<int> ranks;
    if (op.numRegions() && !op.region(0).empty())
        for (const auto& a : op.region(0).blocks().front()->args())
            ranks.push_back(valueRank(a.get()));
    return ranks;
}

} // namespace

void replaceUses(Value* from, Value* to, const Op* except)
{
    if (from == to)
        return;
    const std::vector<ir::Use> uses = from->uses();
    for (auto it = uses.rbegin(); it != uses.rend(); ++it)
        if (it->user != except)
            it->user->setOperand(it->index, to);
}

int valueRank(const Value* v) { return v->type().isRankedTensor() ? v->type().rank() : 0; }

bool isDataFlowOp(const Op& op)
{
    // Asked of every op at every propagation step: the names are compared as interned pointers.
    static const ir::OperationName kWhile("stablehlo.while"), kCase("stablehlo.case"),
        kBarrier("stablehlo.optimization_barrier"), kManual("sdy.manual_computation"), kNamed("sdy.named_computation");
    const ir::OperationName n = op.opName();
    return n == kWhile || n == kCase || n == kBarrier || n == kManual || n == kNamed;
}

std::vector<Value*> blockArgOwners(const Op& op)
{
    std::vector<Value*> out;
    if (isRegionDataFlowOp(op.name()) && op.numRegions() && !op.region(0).empty())
        for (const auto& a : op.region(0).blocks().front()->args())
            out.push_back(a.get());
    return out;
}

std::vector<Value*> resultOwners(const Op& op)
{
    std::vector<Value*> out;
    if (isDataFlowOp(op))
        for (const auto& r : op.results())
            out.push_back(r.get());
    return out;
}

Value* edgeOwnerOf(const Value* v)
{
    if (!v)
        return nullptr;
    if (v->isBlockArgument()) {
        Op* parent = parentOfArg(v);
        if (!parent)
            return nullptr;
        if (isRegionDataFlowOp(parent->name()))
            return const_cast<Value*>(v);
        if (parent->name() == "stablehlo.while" && v->index() < parent->numResults())
            return parent->result(v->index());
        return nullptr;
    }
    Op* def = v->definingOp();
    if (def && isDataFlowOp(*def))
        return const_cast<Value*>(v);
    return nullptr;
}

Op* dataFlowEdgeOpOf(const Value* owner)
{
    if (!owner)
        return nullptr;
    for (const ir::Use& u : owner->uses())
        if (u.user->name() == "sdy.data_flow_edge")
            return u.user;
    return nullptr;
}

std::vector<Value*> edgeSources(const Value* owner)
{
    std::vector<Value*> out;
    if (!owner)
        return out;
    const unsigned i = owner->index();
    if (owner->isBlockArgument()) {
        Op* parent = parentOfArg(owner);
        if (parent && i < parent->numOperands())
            out.push_back(parent->operand(i));
        return out;
    }
    Op* op = owner->definingOp();
    const std::string& n = op->name();
    auto terminatorOperand = [&](unsigned region) {
        if (region >= op->numRegions() || op->region(region).empty())
            return;
        Op* term = op->region(region).blocks().front()->terminator();
        if (term && i < term->numOperands())
            out.push_back(term->operand(i));
    };
    if (n == "stablehlo.while") {
        if (i < op->numOperands())
            out.push_back(op->operand(i));
        terminatorOperand(1);
    } else if (n == "stablehlo.case") {
        for (unsigned r = 0; r < op->numRegions(); ++r)
            terminatorOperand(r);
    } else if (n == "stablehlo.optimization_barrier") {
        if (i < op->numOperands())
            out.push_back(op->operand(i));
    } else if (isRegionDataFlowOp(n)) {
        terminatorOperand(0);
    }
    return out;
}

std::vector<Value*> edgeNonOwnerTargets(const Value* owner)
{
    std::vector<Value*> out;
    if (!owner || owner->isBlockArgument())
        return out;
    Op* op = owner->definingOp();
    if (op->name() != "stablehlo.while")
        return out;
    for (unsigned r = 0; r < op->numRegions() && r < 2; ++r) {
        if (op->region(r).empty())
            continue;
        ir::Block* b = op->region(r).blocks().front().get();
        if (owner->index() < b->numArgs())
            out.push_back(b->arg(owner->index()));
    }
    return out;
}

bool isDataFlowSourceUser(const Op& user)
{
    if (isDataFlowOp(user))
        return true;
    Op* parent = user.parentOp();
    return parent && isDataFlowOp(*parent) && user.parentBlock() && user.parentBlock()->terminator() == &user &&
           user.nextInBlock() == nullptr;
}

std::vector<Op*> edgeOpsOfSourceUse(const Op& user, unsigned index)
{
    std::vector<Op*> out;
    auto add = [&](Value* owner) {
        if (Op* e = dataFlowEdgeOpOf(owner))
            out.push_back(e);
    };
    const std::string& n = user.name();
    if (isDataFlowOp(user)) {
        if (isRegionDataFlowOp(n)) {
            std::vector<Value*> args = blockArgOwners(user);
            if (index < args.size())
                add(args[index]);
        } else if ((n == "stablehlo.while" || n == "stablehlo.optimization_barrier") && index < user.numResults()) {
            add(user.result(index));
        }
        return out;
    }
    Op* parent = user.parentOp();
    if (!parent || !isDataFlowOp(*parent))
        return out;
    const std::string& pn = parent->name();
    if (pn == "stablehlo.while") {
        // Only the body's terminator is a source (the cond returns the predicate).
        if (parent->numRegions() > 1 && !parent->region(1).empty() &&
            user.parentBlock() == parent->region(1).blocks().front().get() && index < parent->numResults())
            add(parent->result(index));
    } else if (index < parent->numResults()) {
        add(parent->result(index));
    }
    return out;
}

std::vector<std::string> manualAxesOf(const Op& op)
{
    const std::vector<std::string>* axes = ir::manualAxes(op);
    return axes ? *axes : std::vector<std::string>{};
}

namespace {

bool isManual(const AxisRef& a, const std::vector<std::string>& manual)
{
    return std::find(manual.begin(), manual.end(), a.name) != manual.end();
}

std::vector<AxisRef> withoutManual(const std::vector<AxisRef>& axes, const std::vector<std::string>& manual)
{
    std::vector<AxisRef> out;
    for (const AxisRef& a : axes)
        if (!isManual(a, manual))
            out.push_back(a);
    return out;
}

} // namespace

TensorSharding eraseManualAxes(const TensorSharding& s, const std::vector<std::string>& manual)
{
    if (manual.empty())
        return s;
    TensorSharding out = s;
    for (DimSharding& d : out.dims) {
        size_t k = 0;
        while (k < d.axes.size() && isManual(d.axes[k], manual))
            ++k;
        d.axes.erase(d.axes.begin(), d.axes.begin() + static_cast<long>(k));
    }
    out.replicated = withoutManual(out.replicated, manual);
    out.unreduced = withoutManual(out.unreduced, manual);
    return out;
}

TensorSharding addManualAxes(const TensorSharding& outer, const TensorSharding& s,
                             const std::vector<std::string>& manual)
{
    if (manual.empty())
        return s;
    TensorSharding out = s;
    for (size_t d = 0; d < out.dims.size(); ++d) {
        std::vector<AxisRef> axes;
        if (d < outer.dims.size())
            for (const AxisRef& a : outer.dims[d].axes) {
                if (!isManual(a, manual))
                    break;
                axes.push_back(a);
            }
        axes.insert(axes.end(), out.dims[d].axes.begin(), out.dims[d].axes.end());
        out.dims[d].axes = std::move(axes);
    }
    out.replicated = outer.replicated;
    out.unreduced = outer.unreduced;
    out.unreducedKind = outer.unreducedKind;
    return out;
}

std::optional<TensorSharding> getOwnSharding(const Value* v)
{
    if (!v)
        return std::nullopt;
    if (v->isBlockArgument()) {
        Op* parent = parentOfArg(v);
        if (!parent)
            return std::nullopt;
        if (parent->name() == "sdy.manual_computation") {
            const TensorSharding* s = ir::shardingOfValue(v);
            if (!s)
                return std::nullopt;
            return eraseManualAxes(*s, manualAxesOf(*parent));
        }
        if (parent->name() == "stablehlo.async_start") {
            if (v->index() < parent->numOperands())
                return getOwnSharding(parent->operand(v->index()));
            return std::nullopt;
        }
    }
    const TensorSharding* s = ir::shardingOfValue(v);
    if (!s)
        return std::nullopt;
    return *s;
}

bool canHoldSharding(const Value* v)
{
    if (!v)
        return false;
    if (!v->isBlockArgument())
        return true;
    Op* parent = parentOfArg(v);
    if (!parent)
        return false;
    const std::string& n = parent->name();
    if (n == "func.func" || isRegionDataFlowOp(n))
        return true;
    if (n == "stablehlo.async_start")
        return v->index() < parent->numOperands() && canHoldSharding(parent->operand(v->index()));
    if (n == "stablehlo.while")
        return dataFlowEdgeOpOf(edgeOwnerOf(v)) != nullptr;
    return false;
}

void setOwnSharding(Value* v, const TensorSharding& s)
{
    if (!v)
        return;
    if (v->isBlockArgument()) {
        Op* parent = parentOfArg(v);
        if (!parent)
            return;
        const std::string& n = parent->name();
        if (n == "func.func") {
            ir::setFuncArgSharding(*parent, v->index(), s);
            notifyShardingsWritten(*parent);
        } else if (n == "sdy.manual_computation") {
            TensorSharding outer = s;
            if (const TensorSharding* old = ir::shardingOfValue(v))
                outer = *old;
            ir::setInShardings(*parent, withEntry(ir::inShardings(*parent), v->index(),
                                                  addManualAxes(outer, s, manualAxesOf(*parent)), argRanks(*parent)));
            notifyShardingsWritten(*parent);
        } else if (n == "sdy.named_computation") {
            ir::setInShardings(*parent, withEntry(ir::inShardings(*parent), v->index(), s, argRanks(*parent)));
            notifyShardingsWritten(*parent);
        } else if (n == "stablehlo.async_start" && v->index() < parent->numOperands()) {
            setOwnSharding(parent->operand(v->index()), s);
        }
        return;
    }
    Op* def = v->definingOp();
    const std::string& n = def->name();
    if (n == "sdy.sharding_constraint" || n == "sdy.reshard" || n == "sdy.data_flow_edge") {
        ir::setOpSharding(*def, s);
    } else if (ir::isCollectiveOp(n)) {
        ir::setOutSharding(*def, s);
    } else if (isRegionDataFlowOp(n)) {
        ir::setOutShardings(*def, withEntry(ir::outShardings(*def), v->index(), s, resultRanks(*def)));
    } else {
        ir::setResultShardings(*def, withEntry(ir::resultShardings(*def), v->index(), s, resultRanks(*def)));
    }
    notifyShardingsWritten(*def);
}

std::optional<TensorSharding> getSharding(const Value* v)
{
    if (Op* edge = dataFlowEdgeOpOf(edgeOwnerOf(v)))
        return getOwnSharding(edge->result(0));
    if (v && v->isBlockArgument()) {
        Op* parent = parentOfArg(v);
        if (parent && parent->name() == "stablehlo.while")
            return std::nullopt;
    }
    if (v && !v->isBlockArgument() && v->definingOp()->name() == "stablehlo.while")
        return getOwnSharding(v);
    return getOwnSharding(v);
}

const TensorSharding* getShardingRef(const Value* v, std::optional<TensorSharding>& storage)
{
    // Op results of ops without data-flow edges hold their sharding as is (the common case), and
    // so do function arguments (getSharding() copies it: no edge owner, no manual view).
    if (v && !v->isBlockArgument() && !isDataFlowOp(*v->definingOp()))
        return ir::shardingOfValue(v);
    if (v && v->isBlockArgument()) {
        static const ir::OperationName kFunc("func.func");
        if (const Op* parent = parentOfArg(v); parent && parent->opName() == kFunc)
            return ir::shardingOfValue(v);
    }
    storage = getSharding(v);
    return storage ? &*storage : nullptr;
}

void setSharding(Value* v, const TensorSharding& s)
{
    if (Op* edge = dataFlowEdgeOpOf(edgeOwnerOf(v))) {
        setOwnSharding(edge->result(0), s);
        return;
    }
    if (!canHoldSharding(v))
        return;
    setOwnSharding(v, s);
}

} // namespace shardx
