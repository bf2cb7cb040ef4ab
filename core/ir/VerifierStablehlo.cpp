// Module verifier (Verifier.h, VerifierInternal.h): signature checks of StableHLO and func ops (operand/result
// counts, required attributes, the cheap type checks MLIR makes), block terminators and function declarations.
#include <algorithm>

#include "core/ir/OpRegistry.h"
#include "core/ir/VerifierInternal.h"

namespace shardx::ir::verifier {

namespace {

/// What ODS generates for an op: operand count (-1 = variadic, at least `minOperands`), result
/// count and the required inherent attributes, checked in this order as MLIR does.
struct Signature {
    const char* op;
    int operands;
    int results;
    std::vector<const char*> required = {};
    int minOperands = 0;
};

const std::vector<Signature>& signatures()
{
    static const std::vector<Signature> table = {
        {"func.call_indirect", -1, -1, {}, 1},
        {"func.constant", 0, 1, {"value"}},
        {"stablehlo.broadcast", 1, 1, {"broadcast_sizes"}},
        {"stablehlo.cross-replica-sum", 1, 1, {"replica_groups"}},
        {"stablehlo.dynamic_broadcast_in_dim", 2, 1, {"broadcast_dimensions"}},
        {"stablehlo.dynamic_conv", 3, 1, {"dimension_numbers", "feature_group_count", "batch_group_count"}},
        {"stablehlo.dynamic_gather", 3, 1, {"dimension_numbers"}},
        {"stablehlo.dynamic_iota", 1, 1, {"iota_dimension"}},
        {"stablehlo.dynamic_pad", 5, 1},
        {"stablehlo.dynamic_reshape", 2, 1},
        {"stablehlo.einsum", 2, 1, {"einsum_config"}},
        {"stablehlo.real_dynamic_slice", 4, 1},
        {"stablehlo.rng", 3, 1, {"rng_distribution"}},
        {"stablehlo.set_dimension_size", 2, 1, {"dimension"}},
        {"stablehlo.unary_einsum", 1, 1, {"einsum_config"}},
        {"stablehlo.uniform_dequantize", 1, 1},
        {"stablehlo.uniform_quantize", 1, 1},
    };
    return table;
}

bool checkSignature(Context& ctx, const Op& op, const Signature& sig)
{
    const unsigned nOps = op.numOperands(), nRes = op.numResults();
    if (sig.operands == 0 && nOps != 0)
        return opError(ctx, op, "requires zero operands");
    if (sig.operands == 1 && nOps != 1)
        return opError(ctx, op, "requires a single operand");
    if (sig.operands > 1 && nOps != static_cast<unsigned>(sig.operands))
        return opError(ctx, op,
                       "expected " + std::to_string(sig.operands) + " operands, but found " + std::to_string(nOps));
    if (sig.operands < 0 && nOps < static_cast<unsigned>(sig.minOperands))
        return opError(ctx, op,
                       "expected " + std::to_string(sig.minOperands) + " or more operands, but found " +
                           std::to_string(nOps));
    if (sig.results == 0 && nRes != 0)
        return opError(ctx, op, "requires zero results");
    if (sig.results == 1 && nRes != 1)
        return opError(ctx, op, "requires one result");
    if (sig.results > 1 && nRes != static_cast<unsigned>(sig.results))
        return opError(ctx, op, "expected " + std::to_string(sig.results) + " results");
    for (const char* attr : sig.required)
        if (!op.attr(attr))
            return opError(ctx, op, std::string("requires attribute '") + attr + "'");
    return true;
}

/// Same rank, same element type, each dimension equal or dynamic in either.
bool compatible(const Type& a, const Type& b)
{
    if (!a.isRankedTensor() || !b.isRankedTensor())
        return a.isTensor() && b.isTensor() && a.elementType() == b.elementType();
    if (a.elementType() != b.elementType() || a.shape().size() != b.shape().size())
        return false;
    for (size_t i = 0; i < a.shape().size(); ++i)
        if (a.shape()[i] != b.shape()[i] && a.shape()[i] != Type::kDynamic && b.shape()[i] != Type::kDynamic)
            return false;
    return true;
}

/// `stablehlo.broadcast`: the result is `broadcast_sizes ++ operand shape` (inferred type).
bool verifyBroadcast(Context& ctx, const Op& op)
{
    const Attribute* a = op.attr("broadcast_sizes");
    const DenseArrayAttr* sizes = a ? a->as<DenseArrayAttr>() : nullptr;
    const Type& in = op.operand(0)->type();
    if (!sizes || !in.isRankedTensor())
        return true;
    for (int64_t s : sizes->ints)
        if (s < 0)
            return opError(ctx, op, "Broadcast with negative dimension size " + std::to_string(s));
    std::vector<int64_t> shape(sizes->ints.begin(), sizes->ints.end());
    shape.insert(shape.end(), in.shape().begin(), in.shape().end());
    const Type inferred = Type::tensor(shape, in.elementType());
    const Type& out = op.result(0)->type();
    if (!compatible(inferred, out))
        return opError(ctx, op,
                       "inferred type(s) '" + inferred.toString() +
                           "' are incompatible with return type(s) of operation '" + out.toString() + "'");
    return true;
}

/// `func.constant`: the symbol names a function of the result's type (MLIR's verifySymbolUses).
bool verifyFuncConstant(Context& ctx, const Op& op)
{
    const Attribute* a = op.attr("value");
    const SymbolRefAttr* ref = a ? a->as<SymbolRefAttr>() : nullptr;
    if (!ref || ref->path.size() != 1)
        return opError(ctx, op, "attribute 'value' failed to satisfy constraint: flat symbol reference attribute");
    const Op* fn = ctx.module.findFunc(ref->path.front());
    if (!fn)
        return opError(ctx, op, "reference to undefined function '" + ref->path.front() + "'");
    if (funcType(*fn) != op.result(0)->type())
        return opError(ctx, op, "reference to function with mismatched type");
    return true;
}

/// `func.call_indirect`: the callee is function-typed and its type matches arguments and results.
bool verifyCallIndirect(Context& ctx, const Op& op)
{
    const Type& ft = op.operand(0)->type();
    if (ft.kind() != Type::Kind::Function)
        return opError(ctx, op, "operand #0 must be function type, but got '" + ft.toString() + "'");
    bool inputsMatch = ft.elements().size() == op.numOperands() - 1;
    for (unsigned i = 1; inputsMatch && i < op.numOperands(); ++i)
        inputsMatch = op.operand(i)->type() == ft.elements()[i - 1];
    if (!inputsMatch)
        return opError(ctx, op, "failed to verify that callee input types match argument types");
    bool resultsMatch = ft.results().size() == op.numResults();
    for (unsigned i = 0; resultsMatch && i < op.numResults(); ++i)
        resultsMatch = op.result(i)->type() == ft.results()[i];
    if (!resultsMatch)
        return opError(ctx, op, "failed to verify that callee result types match result types");
    return true;
}

} // namespace

bool verifyOpSignature(Context& ctx, const Op& op)
{
    const std::string& name = op.name();
    if (name == "func.func") {
        // SymbolOpInterface: a declaration (no body) must not be public.
        const std::optional<std::string> visibility = symbolVisibility(op);
        const bool isPublic = !visibility || *visibility == "public";
        if (op.numRegions() == 1 && op.region(0).blocks().empty() && isPublic)
            return opError(ctx, op, "symbol declaration cannot have public visibility");
        return true;
    }
    const std::vector<Signature>& table = signatures();
    auto it = std::find_if(table.begin(), table.end(), [&](const Signature& s) { return name == s.op; });
    if (it == table.end())
        return true;
    if (!checkSignature(ctx, op, *it))
        return false;
    if (name == "stablehlo.broadcast")
        return verifyBroadcast(ctx, op);
    if (name == "func.constant")
        return verifyFuncConstant(ctx, op);
    if (name == "func.call_indirect")
        return verifyCallIndirect(ctx, op);
    return true;
}

namespace {

/// MLIR's mayBeValidWithoutTerminator: a single-block region of an op that has (or, being
/// unregistered, might have) the NoTerminator trait.
bool mayLackTerminator(const Op& parent, const Region& region)
{
    if (region.blocks().size() != 1)
        return false;
    return parent.name() == "builtin.module" || !OpRegistry::instance().lookup(parent.name());
}

bool mightBeTerminator(const Op& op)
{
    const OpInfo* info = OpRegistry::instance().lookup(op.name());
    return !info || info->isTerminator;
}

} // namespace

bool verifyBlockEntry(Context& ctx, const Op& parent, const Region& region, const Block& block)
{
    if (block.ops().empty() && !mayLackTerminator(parent, region)) {
        ctx.diags.add(Diagnostic{Severity::Error, parent.pos, "empty block: expect at least a terminator", {}});
        return false;
    }
    return true;
}

bool verifyBlockExit(Context& ctx, const Op& parent, const Region& region, const Block& block)
{
    if (block.ops().empty() || mayLackTerminator(parent, region))
        return true;
    const Op& last = *block.ops().back();
    if (!mightBeTerminator(last)) {
        ctx.diags.add(Diagnostic{Severity::Error, last.pos, "block with no terminator, has '" + last.name() + "'", {}});
        return false;
    }
    return true;
}

} // namespace shardx::ir::verifier
