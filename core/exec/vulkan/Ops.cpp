// Ops.cpp - shape checks and parameter words of every op, recorded as dispatches.
#include "core/exec/vulkan/Ops.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "core/exec/vulkan/Device.h"

namespace shardx::exec::vk {

uint32_t dtypeSize(DType dtype) { return (dtype == DType::I64 || dtype == DType::F64) ? 8 : 4; }

const char* dtypeName(DType dtype)
{
    switch (dtype) {
    case DType::F32: return "f32";
    case DType::I32: return "i32";
    case DType::U32: return "u32";
    case DType::I64: return "i64";
    case DType::F64: return "f64";
    }
    return "?";
}

int64_t elementCount(const Shape& shape)
{
    int64_t n = 1;
    for (int64_t d : shape)
        n *= d;
    return n;
}

std::vector<int64_t> rowMajorStrides(const Shape& shape)
{
    std::vector<int64_t> strides(shape.size(), 1);
    for (int i = int(shape.size()) - 2; i >= 0; --i)
        strides[i] = strides[i + 1] * shape[i + 1];
    return strides;
}

namespace {

constexpr uint32_t kElementwiseGroup = 256;
constexpr uint32_t kDotPreciseGroup = 64;
constexpr int64_t kMaxWords = int64_t(std::numeric_limits<uint32_t>::max());

std::string shapeText(const Shape& s)
{
    std::string t = "[";
    for (size_t i = 0; i < s.size(); ++i)
        t += (i ? "x" : "") + std::to_string(s[i]);
    return t + "]";
}

/// (min(groups, 65535), ceil(groups / 65535), 1) workgroups of `groupSize` for `count` invocations.
std::array<uint32_t, 3> flatGroups(int64_t count, uint32_t groupSize)
{
    int64_t groups = std::max<int64_t>(1, (count + groupSize - 1) / groupSize);
    int64_t x = std::min<int64_t>(groups, 65535);
    return {uint32_t(x), uint32_t((groups + x - 1) / x), 1};
}

uint32_t arithmeticCode(DType dtype)
{
    switch (dtype) {
    case DType::F32: return SHARDX_VK_DT_F32;
    case DType::I32: return SHARDX_VK_DT_I32;
    default: return SHARDX_VK_DT_U32;
    }
}

Status needArithmetic(const char* op, DType dtype)
{
    if (dtype == DType::F32 || dtype == DType::I32 || dtype == DType::U32)
        return Status::success();
    return Error{std::string(op) + ": element type " + dtypeName(dtype) + " is not supported (f32, i32, u32 are)", {}};
}

Status needElements(const char* op, const char* which, const Buffer& b, int64_t count, DType dtype)
{
    if (count < 0 || uint64_t(count) * dtypeSize(dtype) > b.size())
        return Error{std::string(op) + ": the " + which + " buffer holds " + std::to_string(b.size()) +
                         " bytes, fewer than " + std::to_string(count) + " " + dtypeName(dtype) + " elements",
                     {}};
    if (count * (dtypeSize(dtype) / 4) > kMaxWords)
        return Error{std::string(op) + ": more than 2^32 words in one tensor", {}};
    return Status::success();
}

Status checkPermutation(const char* op, const std::vector<int64_t>& perm, size_t rank)
{
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i) {
        if (sorted[i] != int64_t(i) || sorted.size() != rank)
            return Error{std::string(op) + ": not a permutation of the " + std::to_string(rank) + " dimensions", {}};
    }
    if (sorted.size() != rank)
        return Error{std::string(op) + ": not a permutation of the " + std::to_string(rank) + " dimensions", {}};
    return Status::success();
}

Dispatch elementwiseDispatch(KernelId kernel, std::vector<const Buffer*> buffers, std::vector<uint32_t> params,
                             int64_t count, const char* label)
{
    Dispatch d;
    d.kernel = kernel;
    d.buffers = std::move(buffers);
    d.params = std::move(params);
    d.groups = flatGroups(count, kElementwiseGroup);
    d.label = label;
    return d;
}

} // namespace

namespace ops {

Status unary(CommandBatch& batch, UnaryOp op, DType dtype, const Buffer& in, const Buffer& out, int64_t count)
{
    SHARDX_VK_TRY(needArithmetic("unary", dtype));
    SHARDX_VK_TRY(needElements("unary", "operand", in, count, dtype));
    SHARDX_VK_TRY(needElements("unary", "result", out, count, dtype));
    const bool rounding = op == UnaryOp::RoundBf16 || op == UnaryOp::RoundF16;
    if (rounding && dtype != DType::F32)
        return Error{std::string("unary: rounding to bf16 or f16 takes f32 elements, not ") + dtypeName(dtype), {}};
    batch.add(elementwiseDispatch(KernelId::Unary, {&in, &out}, {uint32_t(count), uint32_t(op), arithmeticCode(dtype)},
                                  count,
                                  !rounding                  ? "unary"
                                  : op == UnaryOp::RoundBf16 ? "round_bf16"
                                                             : "round_f16"));
    return Status::success();
}

Status convert(CommandBatch& batch, DType from, DType to, const Buffer& in, const Buffer& out, int64_t count)
{
    SHARDX_VK_TRY(needArithmetic("convert", from));
    SHARDX_VK_TRY(needArithmetic("convert", to));
    SHARDX_VK_TRY(needElements("convert", "operand", in, count, from));
    SHARDX_VK_TRY(needElements("convert", "result", out, count, to));
    uint32_t op =
        to == DType::F32 ? SHARDX_VK_UN_TO_F32 : (to == DType::I32 ? SHARDX_VK_UN_TO_I32 : SHARDX_VK_UN_TO_U32);
    batch.add(elementwiseDispatch(KernelId::Unary, {&in, &out}, {uint32_t(count), op, arithmeticCode(from)}, count,
                                  "convert"));
    return Status::success();
}

Status binary(CommandBatch& batch, BinaryOp op, DType dtype, const Buffer& a, const Buffer& b, const Buffer& out,
              int64_t count)
{
    SHARDX_VK_TRY(needArithmetic("binary", dtype));
    if (dtype == DType::F32 &&
        (op == BinaryOp::Rem || op == BinaryOp::And || op == BinaryOp::Or || op == BinaryOp::Xor))
        return Error{"binary: remainder and bitwise ops take integers, not f32", {}};
    SHARDX_VK_TRY(needElements("binary", "lhs", a, count, dtype));
    SHARDX_VK_TRY(needElements("binary", "rhs", b, count, dtype));
    SHARDX_VK_TRY(needElements("binary", "result", out, count, dtype));
    batch.add(elementwiseDispatch(KernelId::Binary, {&a, &b, &out},
                                  {uint32_t(count), uint32_t(op), arithmeticCode(dtype)}, count, "binary"));
    return Status::success();
}

Status compare(CommandBatch& batch, CompareDirection dir, DType dtype, const Buffer& a, const Buffer& b,
               const Buffer& out, int64_t count)
{
    SHARDX_VK_TRY(needArithmetic("compare", dtype));
    SHARDX_VK_TRY(needElements("compare", "lhs", a, count, dtype));
    SHARDX_VK_TRY(needElements("compare", "rhs", b, count, dtype));
    SHARDX_VK_TRY(needElements("compare", "result", out, count, DType::U32));
    batch.add(elementwiseDispatch(KernelId::Compare, {&a, &b, &out},
                                  {uint32_t(count), uint32_t(dir), arithmeticCode(dtype)}, count, "compare"));
    return Status::success();
}

Status select(CommandBatch& batch, DType dtype, const Buffer& pred, const Buffer& onTrue, const Buffer& onFalse,
              const Buffer& out, int64_t count)
{
    SHARDX_VK_TRY(needElements("select", "predicate", pred, count, DType::U32));
    SHARDX_VK_TRY(needElements("select", "on-true", onTrue, count, dtype));
    SHARDX_VK_TRY(needElements("select", "on-false", onFalse, count, dtype));
    SHARDX_VK_TRY(needElements("select", "result", out, count, dtype));
    batch.add(elementwiseDispatch(KernelId::Select, {&pred, &onTrue, &onFalse, &out},
                                  {uint32_t(count), dtypeSize(dtype) / 4}, count, "select"));
    return Status::success();
}

Status stridedCopy(CommandBatch& batch, DType dtype, const Buffer& src, const Buffer& dst,
                   const StridedCopyParams& params)
{
    const size_t rank = params.dims.size();
    int64_t count = 1;
    // The lowest and highest source and destination elements touched, to check the buffers hold them.
    int64_t srcLo = params.srcBase, srcHi = params.srcBase, dstHi = params.dstBase;
    bool readsSource = true;
    for (const CopyDim& d : params.dims) {
        if (d.size < 0 || d.srcSize < 0 || d.interior < 0 || d.dstStride < 0)
            return Error{"strided copy: negative size, interior padding or destination stride", {}};
        count *= d.size;
        dstHi += (d.size - 1) * d.dstStride;
        // Source indices that are read: t / (interior + 1) for t = o - lo in [0, size), within [0, srcSize).
        int64_t firstT = std::max<int64_t>(0, -d.lo);
        int64_t lastT = d.size - 1 - d.lo;
        int64_t firstI = (firstT + d.interior) / (d.interior + 1);
        int64_t lastI = std::min<int64_t>(d.srcSize - 1, lastT < 0 ? -1 : lastT / (d.interior + 1));
        if (lastI < firstI) {
            readsSource = false;
            continue;
        }
        int64_t a = firstI * d.srcStride, b = lastI * d.srcStride;
        srcLo += std::min(a, b);
        srcHi += std::max(a, b);
    }
    if (count == 0)
        return Status::success();
    if (rank > 64)
        return Error{"strided copy: rank " + std::to_string(rank) + " is too large", {}};
    const int64_t esz = dtypeSize(dtype);
    if (params.dstBase < 0 || uint64_t(dstHi + 1) * esz > dst.size())
        return Error{"strided copy: the destination buffer (" + std::to_string(dst.size()) +
                         " bytes) does not hold the region",
                     {}};
    if (readsSource && (srcLo < 0 || uint64_t(srcHi + 1) * esz > src.size()))
        return Error{"strided copy: the source buffer (" + std::to_string(src.size()) +
                         " bytes) does not hold the elements read",
                     {}};
    if (count * (esz / 4) > kMaxWords || (dstHi + 1) * (esz / 4) > kMaxWords || (srcHi + 1) * (esz / 4) > kMaxWords)
        return Error{"strided copy: more than 2^32 words", {}};
    std::vector<uint32_t> p = {uint32_t(count),
                               uint32_t(rank),
                               uint32_t(esz / 4),
                               uint32_t(params.srcBase),
                               uint32_t(params.dstBase),
                               uint32_t(params.padBits & 0xffffffffu),
                               uint32_t(params.padBits >> 32)};
    p.resize(7 + 6 * rank);
    for (size_t d = 0; d < rank; ++d) {
        const CopyDim& c = params.dims[d];
        p[7 + d] = uint32_t(c.size);
        p[7 + rank + d] = uint32_t(int32_t(c.srcStride));
        p[7 + 2 * rank + d] = uint32_t(c.dstStride);
        p[7 + 3 * rank + d] = uint32_t(int32_t(c.lo));
        p[7 + 4 * rank + d] = uint32_t(c.interior);
        p[7 + 5 * rank + d] = uint32_t(c.srcSize);
    }
    batch.add(elementwiseDispatch(KernelId::StridedCopy, {&src, &dst}, std::move(p), count, "strided_copy"));
    return Status::success();
}

Status transpose(CommandBatch& batch, DType dtype, const Buffer& src, const Shape& srcShape,
                 const std::vector<int64_t>& permutation, const Buffer& dst)
{
    SHARDX_VK_TRY(checkPermutation("transpose", permutation, srcShape.size()));
    std::vector<int64_t> srcStrides = rowMajorStrides(srcShape);
    Shape dstShape;
    for (int64_t p : permutation)
        dstShape.push_back(srcShape[p]);
    std::vector<int64_t> dstStrides = rowMajorStrides(dstShape);
    StridedCopyParams params;
    for (size_t i = 0; i < permutation.size(); ++i)
        params.dims.push_back({dstShape[i], srcStrides[permutation[i]], dstStrides[i], 0, 0, dstShape[i]});
    return stridedCopy(batch, dtype, src, dst, params);
}

Status broadcastInDim(CommandBatch& batch, DType dtype, const Buffer& src, const Shape& srcShape, const Shape& dstShape,
                      const std::vector<int64_t>& broadcastDims, const Buffer& dst)
{
    if (broadcastDims.size() != srcShape.size())
        return Error{"broadcast_in_dim: " + std::to_string(broadcastDims.size()) +
                         " broadcast dimensions for an operand of rank " + std::to_string(srcShape.size()),
                     {}};
    std::vector<int64_t> srcStrides = rowMajorStrides(srcShape);
    std::vector<int64_t> dstStrides = rowMajorStrides(dstShape);
    StridedCopyParams params;
    for (size_t j = 0; j < dstShape.size(); ++j)
        params.dims.push_back({dstShape[j], 0, dstStrides[j], 0, 0, dstShape[j]});
    for (size_t i = 0; i < broadcastDims.size(); ++i) {
        int64_t j = broadcastDims[i];
        if (j < 0 || j >= int64_t(dstShape.size()) || (srcShape[i] != 1 && srcShape[i] != dstShape[j]))
            return Error{"broadcast_in_dim: operand dimension " + std::to_string(i) + " of " + shapeText(srcShape) +
                             " does not broadcast to result dimension " + std::to_string(j) + " of " +
                             shapeText(dstShape),
                         {}};
        if (srcShape[i] == dstShape[j] && srcShape[i] != 1)
            params.dims[j].srcStride = srcStrides[i];
    }
    return stridedCopy(batch, dtype, src, dst, params);
}

Status slice(CommandBatch& batch, DType dtype, const Buffer& src, const Shape& srcShape,
             const std::vector<int64_t>& start, const std::vector<int64_t>& limit, const std::vector<int64_t>& strides,
             const Buffer& dst)
{
    size_t rank = srcShape.size();
    if (start.size() != rank || limit.size() != rank || strides.size() != rank)
        return Error{"slice: start, limit and strides need one entry per dimension", {}};
    std::vector<int64_t> srcStrides = rowMajorStrides(srcShape);
    Shape dstShape(rank);
    for (size_t d = 0; d < rank; ++d) {
        if (strides[d] < 1 || start[d] < 0 || limit[d] < start[d] || limit[d] > srcShape[d])
            return Error{"slice: dimension " + std::to_string(d) + " has a bad start, limit or stride", {}};
        dstShape[d] = (limit[d] - start[d] + strides[d] - 1) / strides[d];
    }
    std::vector<int64_t> dstStrides = rowMajorStrides(dstShape);
    StridedCopyParams params;
    for (size_t d = 0; d < rank; ++d) {
        params.srcBase += start[d] * srcStrides[d];
        params.dims.push_back({dstShape[d], srcStrides[d] * strides[d], dstStrides[d], 0, 0, dstShape[d]});
    }
    return stridedCopy(batch, dtype, src, dst, params);
}

Status pad(CommandBatch& batch, DType dtype, const Buffer& src, const Shape& srcShape, const std::vector<int64_t>& lo,
           const std::vector<int64_t>& hi, const std::vector<int64_t>& interior, uint64_t padBits, const Buffer& dst)
{
    size_t rank = srcShape.size();
    if (lo.size() != rank || hi.size() != rank || interior.size() != rank)
        return Error{"pad: low, high and interior padding need one entry per dimension", {}};
    Shape dstShape(rank);
    for (size_t d = 0; d < rank; ++d) {
        if (interior[d] < 0)
            return Error{"pad: negative interior padding", {}};
        int64_t inner = srcShape[d] == 0 ? 0 : srcShape[d] + (srcShape[d] - 1) * interior[d];
        dstShape[d] = lo[d] + inner + hi[d];
        if (dstShape[d] < 0)
            return Error{"pad: dimension " + std::to_string(d) + " would be negative", {}};
    }
    std::vector<int64_t> srcStrides = rowMajorStrides(srcShape);
    std::vector<int64_t> dstStrides = rowMajorStrides(dstShape);
    StridedCopyParams params;
    params.padBits = padBits;
    for (size_t d = 0; d < rank; ++d)
        params.dims.push_back({dstShape[d], srcStrides[d], dstStrides[d], lo[d], interior[d], srcShape[d]});
    return stridedCopy(batch, dtype, src, dst, params);
}

Status concatenate(CommandBatch& batch, DType dtype, const std::vector<const Buffer*>& srcs,
                   const std::vector<Shape>& shapes, int64_t dimension, const Buffer& dst)
{
    if (srcs.empty() || srcs.size() != shapes.size())
        return Error{"concatenate: one shape per operand, at least one operand", {}};
    Shape dstShape = shapes[0];
    if (dimension < 0 || dimension >= int64_t(dstShape.size()))
        return Error{"concatenate: dimension " + std::to_string(dimension) + " out of range", {}};
    dstShape[dimension] = 0;
    for (const Shape& s : shapes) {
        for (size_t d = 0; d < s.size(); ++d) {
            if (s.size() != dstShape.size() || (int64_t(d) != dimension && s[d] != shapes[0][d]))
                return Error{"concatenate: operand " + shapeText(s) + " does not match " + shapeText(shapes[0]) +
                                 " outside dimension " + std::to_string(dimension),
                             {}};
        }
        dstShape[dimension] += s[dimension];
    }
    std::vector<int64_t> dstStrides = rowMajorStrides(dstShape);
    int64_t offset = 0;
    for (size_t k = 0; k < srcs.size(); ++k) {
        std::vector<int64_t> srcStrides = rowMajorStrides(shapes[k]);
        StridedCopyParams params;
        params.dstBase = offset * dstStrides[dimension];
        for (size_t d = 0; d < dstShape.size(); ++d)
            params.dims.push_back({shapes[k][d], srcStrides[d], dstStrides[d], 0, 0, shapes[k][d]});
        SHARDX_VK_TRY(stridedCopy(batch, dtype, *srcs[k], dst, params));
        offset += shapes[k][dimension];
    }
    return Status::success();
}

Status reverse(CommandBatch& batch, DType dtype, const Buffer& src, const Shape& shape,
               const std::vector<int64_t>& dims, const Buffer& dst)
{
    std::vector<int64_t> strides = rowMajorStrides(shape);
    StridedCopyParams params;
    for (size_t d = 0; d < shape.size(); ++d)
        params.dims.push_back({shape[d], strides[d], strides[d], 0, 0, shape[d]});
    for (int64_t d : dims) {
        if (d < 0 || d >= int64_t(shape.size()))
            return Error{"reverse: dimension " + std::to_string(d) + " out of range", {}};
        params.srcBase += (shape[d] - 1) * strides[d];
        params.dims[d].srcStride = -strides[d];
    }
    return stridedCopy(batch, dtype, src, dst, params);
}

Status dynamicSlice(CommandBatch& batch, DType dtype, const Buffer& src, const Shape& srcShape,
                    std::vector<int64_t> start, const Shape& sizes, const Buffer& dst)
{
    if (start.size() != srcShape.size() || sizes.size() != srcShape.size())
        return Error{"dynamic_slice: one start index and one size per dimension", {}};
    std::vector<int64_t> limit(srcShape.size()), strides(srcShape.size(), 1);
    for (size_t d = 0; d < srcShape.size(); ++d) {
        if (sizes[d] < 0 || sizes[d] > srcShape[d])
            return Error{"dynamic_slice: slice size larger than the operand", {}};
        start[d] = std::clamp<int64_t>(start[d], 0, srcShape[d] - sizes[d]);
        limit[d] = start[d] + sizes[d];
    }
    return slice(batch, dtype, src, srcShape, start, limit, strides, dst);
}

Status dynamicUpdateSlice(CommandBatch& batch, DType dtype, const Buffer& operand, const Shape& shape,
                          const Buffer& update, const Shape& updateShape, std::vector<int64_t> start, const Buffer& dst)
{
    if (&operand == &dst)
        return Error{"dynamic_update_slice: the result buffer must differ from the operand", {}};
    if (start.size() != shape.size() || updateShape.size() != shape.size())
        return Error{"dynamic_update_slice: one start index per dimension, update of the operand's rank", {}};
    std::vector<int64_t> strides = rowMajorStrides(shape);
    std::vector<int64_t> updStrides = rowMajorStrides(updateShape);
    StridedCopyParams whole;
    for (size_t d = 0; d < shape.size(); ++d)
        whole.dims.push_back({shape[d], strides[d], strides[d], 0, 0, shape[d]});
    SHARDX_VK_TRY(stridedCopy(batch, dtype, operand, dst, whole));
    StridedCopyParams part;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (updateShape[d] > shape[d])
            return Error{"dynamic_update_slice: update larger than the operand", {}};
        start[d] = std::clamp<int64_t>(start[d], 0, shape[d] - updateShape[d]);
        part.dstBase += start[d] * strides[d];
        part.dims.push_back({updateShape[d], updStrides[d], strides[d], 0, 0, updateShape[d]});
    }
    return stridedCopy(batch, dtype, update, dst, part);
}

Status reduce(CommandBatch& batch, ReduceOp op, DType dtype, const Buffer& src, const Shape& srcShape,
              const std::vector<int64_t>& dims, uint32_t initBits, const Buffer& dst)
{
    SHARDX_VK_TRY(needArithmetic("reduce", dtype));
    std::vector<bool> reduced(srcShape.size(), false);
    for (int64_t d : dims) {
        if (d < 0 || d >= int64_t(srcShape.size()) || reduced[d])
            return Error{"reduce: bad or repeated dimension " + std::to_string(d), {}};
        reduced[d] = true;
    }
    if (dims.size() > SHARDX_VK_MAX_RANK)
        return Error{"reduce: more than " + std::to_string(SHARDX_VK_MAX_RANK) + " reduced dimensions", {}};
    std::vector<int64_t> strides = rowMajorStrides(srcShape);
    std::vector<uint32_t> keptDims, keptStrides, redDims, redStrides;
    int64_t outCount = 1;
    // Reduced dimensions in increasing order, the last one fastest: row-major order of the reduced elements.
    for (size_t d = 0; d < srcShape.size(); ++d) {
        if (reduced[d]) {
            redDims.push_back(uint32_t(srcShape[d]));
            redStrides.push_back(uint32_t(strides[d]));
        } else {
            keptDims.push_back(uint32_t(srcShape[d]));
            keptStrides.push_back(uint32_t(strides[d]));
            outCount *= srcShape[d];
        }
    }
    SHARDX_VK_TRY(needElements("reduce", "operand", src, elementCount(srcShape), dtype));
    SHARDX_VK_TRY(needElements("reduce", "result", dst, outCount, dtype));
    if (outCount == 0)
        return Status::success();
    std::vector<uint32_t> p = {uint32_t(outCount), arithmeticCode(dtype),     uint32_t(op),
                               initBits,           uint32_t(keptDims.size()), uint32_t(redDims.size())};
    p.insert(p.end(), keptDims.begin(), keptDims.end());
    p.insert(p.end(), keptStrides.begin(), keptStrides.end());
    p.insert(p.end(), redDims.begin(), redDims.end());
    p.insert(p.end(), redStrides.begin(), redStrides.end());
    Dispatch d = elementwiseDispatch(KernelId::Reduce, {&src, &dst}, std::move(p), outCount, "reduce");
    batch.add(std::move(d));
    return Status::success();
}

Status iota(CommandBatch& batch, DType dtype, const Shape& shape, int64_t dimension, const Buffer& dst)
{
    SHARDX_VK_TRY(needArithmetic("iota", dtype));
    if (dimension < 0 || dimension >= int64_t(shape.size()))
        return Error{"iota: dimension " + std::to_string(dimension) + " out of range for " + shapeText(shape), {}};
    int64_t count = elementCount(shape);
    SHARDX_VK_TRY(needElements("iota", "result", dst, count, dtype));
    if (count == 0)
        return Status::success();
    std::vector<int64_t> strides = rowMajorStrides(shape);
    batch.add(elementwiseDispatch(
        KernelId::Iota, {&dst},
        {uint32_t(count), arithmeticCode(dtype), uint32_t(strides[dimension]), uint32_t(shape[dimension])}, count,
        "iota"));
    return Status::success();
}

namespace {

/// A shared-memory matmul kernel and the tile of C one workgroup computes.
struct SharedMatmulShape {
    MatmulKernel choice;
    KernelId kernel;
    int64_t tileM, tileN;
};

constexpr SharedMatmulShape kSharedMatmuls[] = {
    {MatmulKernel::Shared, KernelId::MatmulShared, 128, 128},
    {MatmulKernel::Shared16, KernelId::MatmulShared16, 128, 128},
    {MatmulKernel::Shared128x256, KernelId::MatmulShared128x256, 128, 256},
    {MatmulKernel::Shared256x128, KernelId::MatmulShared256x128, 256, 128},
    {MatmulKernel::Shared64x64, KernelId::MatmulShared64x64, 64, 64},
    {MatmulKernel::Shared128t128, KernelId::MatmulShared128t128, 128, 128},
};

/// The shared-memory kernel of `choice`; nullptr for the texel and storage kernels.
const SharedMatmulShape* sharedMatmulShape(MatmulKernel choice)
{
    for (const SharedMatmulShape& s : kSharedMatmuls)
        if (s.choice == choice)
            return &s;
    return nullptr;
}

} // namespace

Status matmulTiled(CommandBatch& batch, const Buffer& a, const Buffer& b, const Buffer& c, int64_t batches, int64_t m,
                   int64_t n, int64_t k)
{
    SHARDX_VK_TRY(needElements("matmul", "lhs", a, batches * m * k, DType::F32));
    SHARDX_VK_TRY(needElements("matmul", "rhs", b, batches * k * n, DType::F32));
    SHARDX_VK_TRY(needElements("matmul", "result", c, batches * m * n, DType::F32));
    if (batches == 0 || m == 0 || n == 0)
        return Status::success();
    if (batches > 65535)
        return Error{"matmul: more than 65535 batches", {}};
    Dispatch d;
    d.buffers = {&a, &b, &c};
    d.params = {uint32_t(m), uint32_t(n), uint32_t(k)};
    // K and N multiples of 4: every row of A and B is whole vec4s, and the vectorised kernels apply. On a GPU a
    // shared-memory kernel: 128 x 128 tiles on 128 invocations, or 64 x 64 tiles where the 128 x 128 ones would be
    // too few to fill the GPU (under 256: an H200 has 132 multiprocessors); bench_vulkan measured both best in their
    // range on an H200 (tests/benchmarks/README.md). On a CPU driver the texel kernel (much faster on lavapipe, see
    // matmul_texel.comp) when the device takes texel buffers of these sizes.
    const PhysicalDeviceInfo& physical = c.device().physical();
    MatmulKernel choice = c.device().matmulKernel();
    if (choice == MatmulKernel::Auto) {
        const int64_t bigTiles = ((m + 127) / 128) * ((n + 127) / 128) * batches;
        choice = physical.type == VK_PHYSICAL_DEVICE_TYPE_CPU ? MatmulKernel::Texel
                 : bigTiles < 256                             ? MatmulKernel::Shared64x64
                                                              : MatmulKernel::Shared128t128;
    }
    const bool vec4Rows = k % 4 == 0 && n % 4 == 0 && k > 0;
    uint64_t maxTexels = physical.maxTexelBufferElements;
    const SharedMatmulShape* shared = sharedMatmulShape(choice);
    if (shared && vec4Rows) {
        d.kernel = shared->kernel;
        d.groups = {uint32_t((n + shared->tileN - 1) / shared->tileN),
                    uint32_t((m + shared->tileM - 1) / shared->tileM), uint32_t(batches)};
        d.label = kernelInfo(shared->kernel).name;
    } else if (choice == MatmulKernel::Texel && vec4Rows && a.size() / 16 <= maxTexels && b.size() / 16 <= maxTexels &&
               c.size() <= physical.maxStorageBufferRange) {
        d.kernel = KernelId::MatmulTexel;
        d.groups = {uint32_t((n + 127) / 128), uint32_t((m + 127) / 128), uint32_t(batches)};
        d.label = "matmul_texel";
    } else {
        d.kernel = KernelId::MatmulTiled;
        d.groups = {uint32_t((n + 127) / 128), uint32_t((m + 15) / 16), uint32_t(batches)};
        d.label = "matmul_tiled";
    }
    batch.add(std::move(d));
    return Status::success();
}

Status matmulCoopF16(CommandBatch& batch, const Buffer& a, const Buffer& b, const Buffer& c, int64_t batches, int64_t m,
                     int64_t n, int64_t k, CoopMatmul how)
{
    const PhysicalDeviceInfo& physical = c.device().physical();
    if (!c.device().cooperativeMatrixF16())
        return Error{"matmul on matrix units: " + physical.describe() +
                         " offers no VK_NV_cooperative_matrix with 16x16x16 f16*f16+f32 on subgroups of 32",
                     {}};
    if (m % 16 != 0 || n % 16 != 0 || k % 16 != 0)
        return Error{"matmul on matrix units: M, N and K must be multiples of 16 (" + std::to_string(m) + ", " +
                         std::to_string(n) + ", " + std::to_string(k) + ")",
                     {}};
    auto need = [](const char* which, const Buffer& buf, int64_t elements, int64_t bytesEach) -> Status {
        if (elements < 0 || uint64_t(elements) * uint64_t(bytesEach) > buf.size())
            return Error{std::string("matmul on matrix units: the ") + which + " buffer holds " +
                             std::to_string(buf.size()) + " bytes, fewer than " + std::to_string(elements) +
                             " elements of " + std::to_string(bytesEach) + " bytes",
                         {}};
        if (elements > int64_t(kMaxWords))
            return Error{"matmul on matrix units: more than 2^32 elements in one matrix", {}};
        return Status::success();
    };
    SHARDX_VK_TRY(need("lhs", a, batches * m * k, 2));
    SHARDX_VK_TRY(need("rhs", b, batches * k * n, 2));
    SHARDX_VK_TRY(need("result", c, batches * m * n, 4));
    if (batches == 0 || m == 0 || n == 0)
        return Status::success();
    if (batches > 65535)
        return Error{"matmul on matrix units: more than 65535 batches", {}};
    Dispatch d;
    d.buffers = {&a, &b, &c};
    d.params = {uint32_t(m), uint32_t(n), uint32_t(k)};
    d.kernel = how == CoopMatmul::Staged ? KernelId::MatmulCoopF16Smem : KernelId::MatmulCoopF16;
    d.groups = {uint32_t((n + 127) / 128), uint32_t((m + 127) / 128), uint32_t(batches)};
    d.label = kernelInfo(d.kernel).name;
    batch.add(std::move(d));
    return Status::success();
}

Status dotGeneral(CommandBatch& batch, DType dtype, const Buffer& lhs, const Shape& lhsShape, const Buffer& rhs,
                  const Shape& rhsShape, const DotDims& dims, DotMode mode, const Buffer& dst, DotRounding rounding)
{
    if (dtype != DType::F32 && dtype != DType::I32)
        return Error{std::string("dot_general: element type ") + dtypeName(dtype) + " is not supported (f32, i32 are)",
                     {}};
    if (rounding != DotRounding::None && dtype != DType::F32)
        return Error{"dot_general: rounding to bf16 or f16 takes f32 words", {}};
    if (rounding != DotRounding::None)
        mode = DotMode::Precise; // the rounding of every step is the reference's order of sums
    if (dims.lhsBatch.size() != dims.rhsBatch.size() || dims.lhsContracting.size() != dims.rhsContracting.size())
        return Error{"dot_general: batch and contracting dimension lists must pair up", {}};
    std::vector<int> lhsRole(lhsShape.size(), 0), rhsRole(rhsShape.size(), 0); // 0 free, 1 batch, 2 contracting
    auto mark = [](std::vector<int>& role, const std::vector<int64_t>& list, int value) {
        for (int64_t d : list) {
            if (d < 0 || d >= int64_t(role.size()) || role[d] != 0)
                return false;
            role[d] = value;
        }
        return true;
    };
    if (!mark(lhsRole, dims.lhsBatch, 1) || !mark(lhsRole, dims.lhsContracting, 2) ||
        !mark(rhsRole, dims.rhsBatch, 1) || !mark(rhsRole, dims.rhsContracting, 2))
        return Error{"dot_general: a batch or contracting dimension is out of range or repeated", {}};
    for (size_t i = 0; i < dims.lhsBatch.size(); ++i) {
        if (lhsShape[dims.lhsBatch[i]] != rhsShape[dims.rhsBatch[i]])
            return Error{"dot_general: batch dimensions differ in size", {}};
    }
    for (size_t i = 0; i < dims.lhsContracting.size(); ++i) {
        if (lhsShape[dims.lhsContracting[i]] != rhsShape[dims.rhsContracting[i]])
            return Error{"dot_general: contracting dimensions differ in size", {}};
    }
    if (dims.lhsContracting.size() > SHARDX_VK_MAX_RANK)
        return Error{"dot_general: more than " + std::to_string(SHARDX_VK_MAX_RANK) + " contracting dimensions", {}};
    std::vector<int64_t> lhsFree, rhsFree;
    for (size_t d = 0; d < lhsShape.size(); ++d)
        if (lhsRole[d] == 0)
            lhsFree.push_back(int64_t(d));
    for (size_t d = 0; d < rhsShape.size(); ++d)
        if (rhsRole[d] == 0)
            rhsFree.push_back(int64_t(d));

    int64_t batches = 1, m = 1, n = 1, k = 1;
    for (int64_t d : dims.lhsBatch)
        batches *= lhsShape[d];
    for (int64_t d : lhsFree)
        m *= lhsShape[d];
    for (int64_t d : rhsFree)
        n *= rhsShape[d];
    for (int64_t d : dims.lhsContracting)
        k *= lhsShape[d];
    SHARDX_VK_TRY(needElements("dot_general", "lhs", lhs, elementCount(lhsShape), dtype));
    SHARDX_VK_TRY(needElements("dot_general", "rhs", rhs, elementCount(rhsShape), dtype));
    SHARDX_VK_TRY(needElements("dot_general", "result", dst, batches * m * n, dtype));
    if (batches * m * n == 0)
        return Status::success();

    if (mode == DotMode::Fast && dtype == DType::F32) {
        // [batch..., free..., contracting...] x [batch..., contracting..., free...] is [B, M, K] x [B, K, N].
        std::vector<int64_t> lhsPerm = dims.lhsBatch, rhsPerm = dims.rhsBatch;
        lhsPerm.insert(lhsPerm.end(), lhsFree.begin(), lhsFree.end());
        lhsPerm.insert(lhsPerm.end(), dims.lhsContracting.begin(), dims.lhsContracting.end());
        rhsPerm.insert(rhsPerm.end(), dims.rhsContracting.begin(), dims.rhsContracting.end());
        rhsPerm.insert(rhsPerm.end(), rhsFree.begin(), rhsFree.end());
        auto canonical = [&](const Buffer& operand, const Shape& shape,
                             const std::vector<int64_t>& perm) -> Expected<const Buffer*> {
            std::vector<int64_t> identity(perm.size());
            std::iota(identity.begin(), identity.end(), 0);
            if (perm == identity)
                return &operand;
            Expected<std::unique_ptr<Buffer>> scratch =
                dst.device().createBuffer(uint64_t(elementCount(shape)) * 4, MemoryKind::DeviceLocal);
            if (!scratch)
                return scratch.error();
            const Buffer* kept = batch.keep(std::move(*scratch));
            Status t = transpose(batch, DType::F32, operand, shape, perm, *kept);
            if (!t)
                return t.error();
            return kept;
        };
        Expected<const Buffer*> a = canonical(lhs, lhsShape, lhsPerm);
        if (!a)
            return a.error();
        Expected<const Buffer*> b = canonical(rhs, rhsShape, rhsPerm);
        if (!b)
            return b.error();
        return matmulTiled(batch, **a, **b, dst, batches, m, n, k);
    }

    std::vector<int64_t> ls = rowMajorStrides(lhsShape), rs = rowMajorStrides(rhsShape);
    std::vector<uint32_t> resDims, lhsStr, rhsStr, cDims, lhsCStr, rhsCStr;
    for (size_t i = 0; i < dims.lhsBatch.size(); ++i) {
        resDims.push_back(uint32_t(lhsShape[dims.lhsBatch[i]]));
        lhsStr.push_back(uint32_t(ls[dims.lhsBatch[i]]));
        rhsStr.push_back(uint32_t(rs[dims.rhsBatch[i]]));
    }
    for (int64_t d : lhsFree) {
        resDims.push_back(uint32_t(lhsShape[d]));
        lhsStr.push_back(uint32_t(ls[d]));
        rhsStr.push_back(0);
    }
    for (int64_t d : rhsFree) {
        resDims.push_back(uint32_t(rhsShape[d]));
        lhsStr.push_back(0);
        rhsStr.push_back(uint32_t(rs[d]));
    }
    for (size_t i = 0; i < dims.lhsContracting.size(); ++i) {
        cDims.push_back(uint32_t(lhsShape[dims.lhsContracting[i]]));
        lhsCStr.push_back(uint32_t(ls[dims.lhsContracting[i]]));
        rhsCStr.push_back(uint32_t(rs[dims.rhsContracting[i]]));
    }
    int64_t count = batches * m * n;
    const uint32_t code = rounding == DotRounding::Bf16  ? SHARDX_VK_DT_F32_BF16
                          : rounding == DotRounding::F16 ? SHARDX_VK_DT_F32_F16
                                                         : arithmeticCode(dtype);
    std::vector<uint32_t> p = {uint32_t(count), code, uint32_t(resDims.size()), uint32_t(cDims.size())};
    for (const std::vector<uint32_t>* v : {&resDims, &lhsStr, &rhsStr, &cDims, &lhsCStr, &rhsCStr})
        p.insert(p.end(), v->begin(), v->end());
    Dispatch d;
    // Through texel buffers where the device takes them: the same arithmetic, but on lavapipe 5x faster loads.
    uint64_t maxTexels = dst.device().physical().maxTexelBufferElements;
    bool texel = lhs.size() / 4 <= maxTexels && rhs.size() / 4 <= maxTexels && lhs.size() >= 4 && rhs.size() >= 4;
    d.kernel = texel ? KernelId::DotPreciseTexel : KernelId::DotPrecise;
    d.buffers = {&lhs, &rhs, &dst};
    d.params = std::move(p);
    d.groups = flatGroups(count, kDotPreciseGroup);
    d.label = "dot_general";
    batch.add(std::move(d));
    return Status::success();
}

} // namespace ops
} // namespace shardx::exec::vk
