// Interpreter: data movement ops (reshape, transpose, broadcast, slices, concatenate, pad, iota, reverse).
#include <algorithm>

#include "core/exec/Interpreter.h"

namespace shardx::exec {

namespace {

std::vector<Tensor> shpReshapeOp(OpContext& ctx)
{
    Tensor out = ctx.result(0);
    if (out.numElements() != ctx.in(0).numElements() || !(out.elementType() == ctx.in(0).elementType()))
        ctx.fail("cannot reshape " + ctx.in(0).typeString() + " to " + out.typeString());
    out.bytes() = ctx.in(0).bytes();
    return {std::move(out)};
}

std::vector<Tensor> shpTransposeOp(OpContext& ctx)
{
    const Tensor& x = ctx.in(0);
    const auto perm = ctx.ints("permutation");
    Tensor out = ctx.result(0);
    if (static_cast<int>(perm.size()) != x.rank())
        ctx.fail("permutation does not match the operand's rank");
    const auto xs = rowMajorStrides(x.shape());
    std::vector<int64_t> idx(out.rank(), 0);
    for (int64_t i = 0; i < out.numElements(); ++i, nextIndex(idx, out.shape())) {
        int64_t src = 0;
        for (size_t d = 0; d < perm.size(); ++d)
            src += idx[d] * xs[static_cast<size_t>(perm[d])];
        out.copyElement(i, x, src);
    }
    return {std::move(out)};
}

std::vector<Tensor> shpBroadcastInDimOp(OpContext& ctx)
{
    const Tensor& x = ctx.in(0);
    const auto dims = ctx.ints("broadcast_dimensions");
    Tensor out = ctx.result(0);
    if (static_cast<int>(dims.size()) != x.rank())
        ctx.fail("broadcast_dimensions does not match the operand's rank");
    const auto xs = rowMajorStrides(x.shape());
    std::vector<int64_t> idx(out.rank(), 0);
    for (int64_t i = 0; i < out.numElements(); ++i, nextIndex(idx, out.shape())) {
        int64_t src = 0;
        for (size_t d = 0; d < dims.size(); ++d)
            src += (x.dim(static_cast<int>(d)) == 1 ? 0 : idx[static_cast<size_t>(dims[d])]) * xs[d];
        out.copyElement(i, x, src);
    }
    return {std::move(out)};
}

std::vector<Tensor> shpSliceOp(OpContext& ctx)
{
    const Tensor& x = ctx.in(0);
    const auto start = ctx.ints("start_indices");
    const auto strides = ctx.intsOr("strides", std::vector<int64_t>(x.rank(), 1));
    Tensor out = ctx.result(0);
    if (static_cast<int>(start.size()) != x.rank() || static_cast<int>(strides.size()) != x.rank())
        ctx.fail("start_indices or strides do not match the operand's rank");
    const auto xs = rowMajorStrides(x.shape());
    std::vector<int64_t> idx(out.rank(), 0);
    for (int64_t i = 0; i < out.numElements(); ++i, nextIndex(idx, out.shape())) {
        int64_t src = 0;
        for (size_t d = 0; d < idx.size(); ++d)
            src += (start[d] + idx[d] * strides[d]) * xs[d];
        out.copyElement(i, x, src);
    }
    return {std::move(out)};
}

/// The start indices of dynamic_slice / dynamic_update_slice (operands from `first` on), clamped so
/// that a box of `sizes` fits in `shape`.
std::vector<int64_t> shpClampedStarts(const OpContext& ctx, unsigned first, const std::vector<int64_t>& shape,
                                      const std::vector<int64_t>& sizes)
{
    if (ctx.numIn() - first != shape.size())
        ctx.fail("expected " + std::to_string(shape.size()) + " start indices");
    std::vector<int64_t> starts(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) {
        const int64_t s = ctx.in(first + static_cast<unsigned>(d)).getInt(0);
        starts[d] = std::clamp<int64_t>(s, 0, std::max<int64_t>(0, shape[d] - sizes[d]));
    }
    return starts;
}

std::vector<Tensor> shpDynamicSliceOp(OpContext& ctx)
{
    const Tensor& x = ctx.in(0);
    Tensor out = ctx.result(0);
    const auto starts = shpClampedStarts(ctx, 1, x.shape(), out.shape());
    const auto xs = rowMajorStrides(x.shape());
    std::vector<int64_t> idx(out.rank(), 0);
    for (int64_t i = 0; i < out.numElements(); ++i, nextIndex(idx, out.shape())) {
        int64_t src = 0;
        for (size_t d = 0; d < idx.size(); ++d)
            src += (starts[d] + idx[d]) * xs[d];
        out.copyElement(i, x, src);
    }
    return {std::move(out)};
}

std::vector<Tensor> shpDynamicUpdateSliceOp(OpContext& ctx)
{
    Tensor out = ctx.in(0);
    const Tensor& update = ctx.in(1);
    const auto starts = shpClampedStarts(ctx, 2, out.shape(), update.shape());
    const auto os = rowMajorStrides(out.shape());
    std::vector<int64_t> idx(update.rank(), 0);
    for (int64_t i = 0; i < update.numElements(); ++i, nextIndex(idx, update.shape())) {
        int64_t dst = 0;
        for (size_t d = 0; d < idx.size(); ++d)
            dst += (starts[d] + idx[d]) * os[d];
        out.copyElement(dst, update, i);
    }
    return {std::move(out)};
}

std::vector<Tensor> shpConcatenateOp(OpContext& ctx)
{
    const int64_t dim = ctx.integer("dimension");
    Tensor out = ctx.result(0);
    if (dim < 0 || dim >= out.rank())
        ctx.fail("dimension out of range");
    const auto os = rowMajorStrides(out.shape());
    int64_t offset = 0;
    for (unsigned k = 0; k < ctx.numIn(); ++k) {
        const Tensor& x = ctx.in(k);
        std::vector<int64_t> idx(x.rank(), 0);
        for (int64_t i = 0; i < x.numElements(); ++i, nextIndex(idx, x.shape())) {
            int64_t dst = 0;
            for (size_t d = 0; d < idx.size(); ++d)
                dst += (idx[d] + (static_cast<int64_t>(d) == dim ? offset : 0)) * os[d];
            out.copyElement(dst, x, i);
        }
        offset += x.dim(static_cast<int>(dim));
    }
    return {std::move(out)};
}

std::vector<Tensor> shpPadOp(OpContext& ctx)
{
    const Tensor& x = ctx.in(0);
    const Tensor& padValue = ctx.in(1);
    const auto low = ctx.ints("edge_padding_low");
    const auto interior = ctx.intsOr("interior_padding", std::vector<int64_t>(x.rank(), 0));
    Tensor out = ctx.result(0);
    if (static_cast<int>(low.size()) != x.rank() || static_cast<int>(interior.size()) != x.rank())
        ctx.fail("padding does not match the operand's rank");
    for (int64_t i = 0; i < out.numElements(); ++i)
        out.copyElement(i, padValue, 0);
    const auto os = rowMajorStrides(out.shape());
    std::vector<int64_t> idx(x.rank(), 0);
    for (int64_t i = 0; i < x.numElements(); ++i, nextIndex(idx, x.shape())) {
        int64_t dst = 0;
        bool inside = true;
        for (size_t d = 0; d < idx.size() && inside; ++d) {
            const int64_t p = low[d] + idx[d] * (interior[d] + 1);
            inside = p >= 0 && p < out.dim(static_cast<int>(d));
            dst += p * os[d];
        }
        if (inside)
            out.copyElement(dst, x, i);
    }
    return {std::move(out)};
}

std::vector<Tensor> shpIotaOp(OpContext& ctx)
{
    const int64_t dim = ctx.integer("iota_dimension");
    Tensor out = ctx.result(0);
    if (dim < 0 || dim >= out.rank())
        ctx.fail("iota_dimension out of range");
    std::vector<int64_t> idx(out.rank(), 0);
    for (int64_t i = 0; i < out.numElements(); ++i, nextIndex(idx, out.shape())) {
        if (out.elementType().isFloat() || out.elementType().isComplex())
            out.setFloat(i, static_cast<double>(idx[static_cast<size_t>(dim)]));
        else
            out.setInt(i, idx[static_cast<size_t>(dim)]);
    }
    return {std::move(out)};
}

std::vector<Tensor> shpReverseOp(OpContext& ctx)
{
    const Tensor& x = ctx.in(0);
    const auto dims = ctx.ints("dimensions");
    Tensor out = ctx.result(0);
    std::vector<bool> reversed(x.rank(), false);
    for (int64_t d : dims) {
        if (d < 0 || d >= x.rank())
            ctx.fail("dimension out of range");
        reversed[static_cast<size_t>(d)] = true;
    }
    const auto xs = rowMajorStrides(x.shape());
    std::vector<int64_t> idx(out.rank(), 0);
    for (int64_t i = 0; i < out.numElements(); ++i, nextIndex(idx, out.shape())) {
        int64_t src = 0;
        for (size_t d = 0; d < idx.size(); ++d)
            src += (reversed[d] ? x.dim(static_cast<int>(d)) - 1 - idx[d] : idx[d]) * xs[d];
        out.copyElement(i, x, src);
    }
    return {std::move(out)};
}

std::vector<Tensor> shpGetDimensionSizeOp(OpContext& ctx)
{
    const int64_t dim = ctx.integer("dimension");
    if (dim < 0 || dim >= ctx.in(0).rank())
        ctx.fail("dimension out of range");
    Tensor out = ctx.result(0);
    out.setInt(0, ctx.in(0).dim(static_cast<int>(dim)));
    return {std::move(out)};
}

} // namespace

void registerShapeOps(HandlerMap& map)
{
    map["stablehlo.reshape"] = shpReshapeOp;
    map["stablehlo.transpose"] = shpTransposeOp;
    map["stablehlo.broadcast_in_dim"] = shpBroadcastInDimOp;
    map["stablehlo.slice"] = shpSliceOp;
    map["stablehlo.dynamic_slice"] = shpDynamicSliceOp;
    map["stablehlo.dynamic_update_slice"] = shpDynamicUpdateSliceOp;
    map["stablehlo.concatenate"] = shpConcatenateOp;
    map["stablehlo.pad"] = shpPadOp;
    map["stablehlo.iota"] = shpIotaOp;
    map["stablehlo.reverse"] = shpReverseOp;
    map["stablehlo.get_dimension_size"] = shpGetDimensionSizeOp;
}

} // namespace shardx::exec
