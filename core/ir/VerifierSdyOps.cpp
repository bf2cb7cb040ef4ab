// Module verifier (Verifier.h, VerifierInternal.h): the sdy ops other than collectives (SDY.md 2.1-2.11).
#include <algorithm>

#include "core/ir/VerifierInternal.h"
#include "core/sharding/LocalShape.h"

namespace shardx::ir::verifier {

namespace {

/// Looks through chains of sdy.propagation_barrier to the sharding of the input.
const TensorSharding* inputSharding(const Value* v)
{
    while (v && v->definingOp() && v->definingOp()->name() == "sdy.propagation_barrier" &&
           v->definingOp()->numOperands() == 1)
        v = v->definingOp()->operand(0);
    return shardingOfValue(v);
}

const Op* terminatorOf(const Op& op)
{
    if (op.numRegions() == 0 || op.region(0).empty())
        return nullptr;
    const Op* t = op.region(0).blocks().front()->terminator();
    return t && t->name() == "sdy.return" ? t : nullptr;
}

const Block* bodyOf(const Op& op)
{
    if (op.numRegions() == 0 || op.region(0).empty())
        return nullptr;
    return op.region(0).blocks().front().get();
}

bool verifyConstraintLike(Context& ctx, const Op& op)
{
    const TensorSharding* s = opSharding(op);
    if (!s)
        return opError(ctx, op, "requires a 'sharding' attribute of type TensorShardingAttr");
    if (op.numResults() != 1 || op.numOperands() != 1)
        return opError(ctx, op, "expects one operand and one result");
    if (!verifyShardingAt(ctx, op, *s, &op.result(0)->type(), enclosingManualAxes(op), ""))
        return false;
    const TensorSharding* in = inputSharding(op.operand(0));
    if (in)
        if (auto err = checkUnreducedTransition(ctx, in, *s, ReductionKind::Sum, RemovePolicy{true, std::nullopt}))
            return opError(ctx, op, *err);
    return true;
}

std::string valueList(const std::string& what, size_t n, size_t i)
{
    return n == 1 ? what + " - " : what + " " + std::to_string(i) + " - ";
}

/// Operand or result side of a manual computation (SDY.md 2.4 rules 1-5).
bool verifyManualSide(Context& ctx, const Op& op, bool results, const ShardingPerValue& shardings,
                      const std::vector<Type>& globalTypes, const std::vector<Type>& localTypes,
                      const std::vector<std::string>& manualAxes,
                      const std::vector<std::pair<std::string, const Op*>>& bound)
{
    const std::string what = results ? "result" : "operand";
    const size_t n = globalTypes.size();
    if (shardings.shardings.size() != n)
        return opError(ctx, op,
                       what + " shardings don't match number of values: " + std::to_string(shardings.shardings.size()) +
                           " shardings vs " + std::to_string(n) + " values");
    for (size_t i = 0; i < n; ++i)
        if (!verifyShardingAt(ctx, op, shardings.shardings[i], &globalTypes[i], bound, valueList(what, n, i)))
            return false;
    if (localTypes.size() != n)
        return opError(ctx, op,
                       results ? "number of results (" + std::to_string(n) +
                                     ") must match the number of values returned by the body (" +
                                     std::to_string(localTypes.size()) + ")"
                               : "number of operands (" + std::to_string(n) +
                                     ") must match the number of region arguments (" +
                                     std::to_string(localTypes.size()) + ")");
    auto isManual = [&](const AxisRef& a) {
        return std::find(manualAxes.begin(), manualAxes.end(), a.name) != manualAxes.end();
    };
    for (size_t i = 0; i < n; ++i) {
        const TensorSharding& s = shardings.shardings[i];
        const Type& global = globalTypes[i];
        if (!global.isRankedTensor())
            continue;
        const Mesh* mesh = ctx.resolve(s.mesh);
        if (!mesh)
            continue;
        for (int d = 0; d < s.rank(); ++d) {
            const AxisRef* firstFree = nullptr;
            for (const AxisRef& a : s.dims[d].axes) {
                if (!isManual(a)) {
                    if (!firstFree)
                        firstFree = &a;
                } else if (firstFree) {
                    return opError(ctx, op,
                                   what + " sharding at index " + std::to_string(i) +
                                       " must have all manual axes come before free axes in its dimension "
                                       "sharding at index " +
                                       std::to_string(d) + ". Saw manual axis " + a.toString() + " after free axis " +
                                       firstFree->toString());
                }
            }
        }
        for (int d = 0; d < s.rank() && d < global.rank(); ++d) {
            if (global.isDynamicDim(d))
                continue;
            int64_t k = 1;
            for (const AxisRef& a : s.dims[d].axes)
                if (isManual(a))
                    k *= a.size(*mesh);
            if (k > 0 && global.dim(d) % k != 0)
                return opError(ctx, op,
                               what + " sharding at index " + std::to_string(i) + " dimension size " +
                                   std::to_string(global.dim(d)) + " is not divisible by the manual axes size " +
                                   std::to_string(k));
        }
        const Type expected =
            global.isRankedTensor() ? global.withShape(manualLocalShape(global.shape(), s, *mesh, manualAxes)) : global;
        if (expected != localTypes[i])
            return opError(ctx, op,
                           what + " shape, corresponding sharding, and region " + what + " shape at index " +
                               std::to_string(i) + " must match. Expected local shape '" + expected.toString() +
                               "', actual local shape '" + localTypes[i].toString() + "'");
    }
    return true;
}

bool verifyManualComputation(Context& ctx, const Op& op)
{
    const auto bound = enclosingManualAxes(op);
    static const std::vector<std::string> kNoAxes;
    const std::vector<std::string>* axes = ir::manualAxes(op);
    const std::vector<std::string>& manualAxes = axes ? *axes : kNoAxes;
    static const ShardingPerValue kEmpty;
    const ShardingPerValue* in = inShardings(op);
    const ShardingPerValue* out = outShardings(op);
    if (!in)
        in = &kEmpty;
    if (!out)
        out = &kEmpty;

    std::vector<Type> operandTypes, resultTypes, argTypes, returnTypes;
    for (const Value* v : op.operands())
        operandTypes.push_back(v->type());
    for (const auto& v : op.results())
        resultTypes.push_back(v->type());
    if (const Block* body = bodyOf(op))
        for (const auto& arg : body->args())
            argTypes.push_back(arg->type());
    if (const Op* ret = terminatorOf(op))
        for (const Value* v : ret->operands())
            returnTypes.push_back(v->type());

    if (!verifyManualSide(ctx, op, false, *in, operandTypes, argTypes, manualAxes, bound))
        return false;
    if (!verifyManualSide(ctx, op, true, *out, resultTypes, returnTypes, manualAxes, bound))
        return false;

    // Rule 6: one common mesh (empty meshes ignored); manual axes exist in it.
    const Mesh* common = nullptr;
    bool any = false;
    for (const ShardingPerValue* list : {in, out})
        for (const TensorSharding& s : list->shardings) {
            any = true;
            const Mesh* m = ctx.resolve(s.mesh);
            if (!m || m->isEmpty())
                continue;
            if (common && !(*common == *m)) {
                if (!manualAxes.empty())
                    return opError(ctx, op,
                                   "all in and out shardings must be bound to the same mesh or an empty "
                                   "mesh.");
                continue;
            }
            common = m;
        }
    if (any && common)
        for (const std::string& axis : manualAxes)
            if (!common->hasAxis(axis))
                return opError(ctx, op, "unknown manual axis: " + quoteString(axis));

    // Rule 7: manual axes already bound by a parent.
    for (const std::string& axis : manualAxes)
        if (const Op* parent = binderOf(bound, axis))
            return opError(ctx, op,
                           "operates on axis " + quoteString(axis) +
                               " which is already bound by a parent sdy.manual_computation op",
                           parent, "parent bounding this axis as manual");
    return true;
}

bool verifyNamedComputation(Context& ctx, const Op& op)
{
    const Block* body = bodyOf(op);
    const Op* ret = terminatorOf(op);
    if (ret) {
        bool match = ret->numOperands() == op.numResults();
        for (unsigned i = 0; match && i < op.numResults(); ++i)
            match = ret->operand(i)->type() == op.result(i)->type();
        if (!match) {
            std::string inferred;
            for (unsigned i = 0; i < ret->numOperands(); ++i)
                inferred += std::string(i ? ", " : "") + "'" + ret->operand(i)->type().toString() + "'";
            return opError(ctx, op,
                           "inferred type(s) " + inferred + " are incompatible with return type(s) of operation");
        }
    }
    const unsigned numArgs = body ? body->numArgs() : 0;
    if (numArgs != op.numOperands())
        return opError(ctx, op,
                       "number of block arguments must match the number of operands: " + std::to_string(numArgs) +
                           " != " + std::to_string(op.numOperands()));
    for (unsigned i = 0; i < numArgs; ++i)
        if (body->arg(i)->type() != op.operand(i)->type())
            return opError(ctx, op,
                           "expected the type of the " + std::to_string(i) +
                               "'th block argument to match the type of the corresponding operand: " +
                               body->arg(i)->type().toString() + " vs " + op.operand(i)->type().toString());
    const auto bound = enclosingManualAxes(op);
    for (int side = 0; side < 2; ++side) {
        const char* name = side ? kOutShardingsAttr : kInShardingsAttr;
        const Attribute* a = op.attr(name);
        if (!a)
            continue;
        const ShardingPerValueAttr* list = a->as<ShardingPerValueAttr>();
        if (!list)
            return opError(ctx, op, std::string(name) + " should be a TensorShardingPerValueAttr");
        const size_t n = side ? op.numResults() : op.numOperands();
        const auto& shardings = list->value.shardings;
        if (shardings.size() != n)
            return opError(ctx, op,
                           std::string(name) + " shardings don't match number of values: " +
                               std::to_string(shardings.size()) + " shardings vs " + std::to_string(n) + " values");
        for (size_t i = 0; i < n; ++i) {
            const Type& t =
                side ? op.result(static_cast<unsigned>(i))->type() : op.operand(static_cast<unsigned>(i))->type();
            if (!verifyShardingAt(ctx, op, shardings[i], &t, bound, valueList(name, n, i)))
                return false;
        }
    }
    return true;
}

bool isStaticTensor(const Type& t) { return t.isRankedTensor() && t.hasStaticShape(); }

/// What both data-flow edge ops check first: one operand, one result of static shape, and this
/// op the operand's only user (`operandWords` names the operand in the message).
bool verifyEdgeOperand(Context& ctx, const Op& op, const std::string& operandWords)
{
    if (op.numOperands() != 1 || op.numResults() != 1)
        return opError(ctx, op, "expects one operand and one result");
    if (!isStaticTensor(op.result(0)->type()))
        return opError(ctx, op, "expected a ranked tensor with a static shape, got " + op.result(0)->type().toString());
    if (op.operand(0)->uses().size() != 1)
        return opError(ctx, op, "expected " + operandWords + " to have a single user");
    return true;
}

bool verifyDataFlowEdge(Context& ctx, const Op& op)
{
    if (!verifyEdgeOperand(ctx, op, "input of sdy.data_flow_edge"))
        return false;
    const Value* input = op.operand(0);
    if (const Op* def = input->definingOp())
        if (def->dialect() == "sdy" && def->name() != "sdy.manual_computation" &&
            def->name() != "sdy.named_computation")
            return opError(ctx, op,
                           "expected input of sdy.data_flow_edge to not be defined by an SdyDialect op (other than "
                           "an sdy.manual_computation or sdy.named_computation)",
                           def, "sdy op defining the input of the sdy.data_flow_edge");
    if (const Attribute* a = op.attr(kShardingAttr)) {
        const ShardingAttr* s = a->as<ShardingAttr>();
        if (!s)
            return opError(ctx, op, "sharding should be a TensorShardingAttr");
        if (!verifyShardingAt(ctx, op, s->sharding, &op.result(0)->type(), enclosingManualAxes(op), ""))
            return false;
    }
    return true;
}

bool verifyFuncDataFlowEdge(Context& ctx, const Op& op)
{
    if (!verifyEdgeOperand(ctx, op, "operand of sdy.func_data_flow_edge"))
        return false;
    const Value* input = op.operand(0);
    if (input->isBlockArgument()) {
        const Op* parent = input->ownerBlock()->parentOp();
        if (!parent || parent->name() != "func.func")
            return opError(ctx, op, "expected operand of sdy.func_data_flow_edge to be a block argument of a func op.");
    } else if (!input->definingOp() || input->definingOp()->name() != "func.call") {
        return opError(ctx, op, "expected operand of sdy.func_data_flow_edge to be a result of a func.call op.");
    }
    return true;
}

bool verifyPropagationBarrier(Context& ctx, const Op& op)
{
    if (barrierDirection(op) == PropagationDirection::Both)
        return opError(ctx, op, "cannot specify `BOTH` as the direction");
    return true;
}

} // namespace

bool verifySdyOp(Context& ctx, const Op& op)
{
    const std::string& n = op.name();
    if (n == "sdy.mesh") {
        const Op* parent = op.parentOp();
        if (!parent || parent->name() != "builtin.module")
            return opError(ctx, op, "expects parent op 'builtin.module'");
        return true;
    }
    if (n == "sdy.sharding_constraint" || n == "sdy.reshard")
        return verifyConstraintLike(ctx, op);
    if (n == "sdy.manual_computation")
        return verifyManualComputation(ctx, op);
    if (n == "sdy.named_computation")
        return verifyNamedComputation(ctx, op);
    if (n == "sdy.data_flow_edge")
        return verifyDataFlowEdge(ctx, op);
    if (n == "sdy.func_data_flow_edge")
        return verifyFuncDataFlowEdge(ctx, op);
    if (n == "sdy.propagation_barrier")
        return verifyPropagationBarrier(ctx, op);
    if (n == "sdy.constant") {
        if (op.numResults() == 1 && !isStaticTensor(op.result(0)->type()))
            return opError(ctx, op, "elements literal type must have static shape");
        return true;
    }
    if (n == "sdy.sharding_group") {
        if (op.numOperands() == 1 && !op.operand(0)->type().isRankedTensor())
            return opError(ctx, op, "operand must be a ranked tensor, got " + op.operand(0)->type().toString());
        return true;
    }
    return true;
}

} // namespace shardx::ir::verifier
