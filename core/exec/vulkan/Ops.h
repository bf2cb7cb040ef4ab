// Ops.h - StableHLO-level operations on device buffers, recorded as kernel dispatches into a CommandBatch.
#pragma once

#include <cstdint>
#include <vector>

#include "core/exec/vulkan/CommandBatch.h"
#include "core/exec/vulkan/kernels/common/codes.h"
#include "core/support/Expected.h"

namespace shardx::exec::vk {

/// Element types on the device. Arithmetic kernels take F32, I32 and U32 (i1 is U32 holding 0 or 1); the
/// data-movement ops (copies, transpose, broadcast, slice, pad, concatenate, select) take every type.
enum class DType { F32, I32, U32, I64, F64 };

/// Bytes per element.
uint32_t dtypeSize(DType dtype);
/// "f32", "i32", ...
const char* dtypeName(DType dtype);

/// A tensor's dimensions, row-major; a scalar has none.
using Shape = std::vector<int64_t>;
int64_t elementCount(const Shape& shape);
/// Row-major strides in elements.
std::vector<int64_t> rowMajorStrides(const Shape& shape);

enum class UnaryOp : uint32_t {
    Neg = SHARDX_VK_UN_NEG,
    Abs = SHARDX_VK_UN_ABS,
    Exp = SHARDX_VK_UN_EXP,
    Log = SHARDX_VK_UN_LOG,
    Tanh = SHARDX_VK_UN_TANH,
    Sqrt = SHARDX_VK_UN_SQRT,
    Rsqrt = SHARDX_VK_UN_RSQRT,
    Floor = SHARDX_VK_UN_FLOOR,
    Ceil = SHARDX_VK_UN_CEIL,
    Sign = SHARDX_VK_UN_SIGN,
    Not = SHARDX_VK_UN_NOT,
    RoundBf16 = SHARDX_VK_UN_ROUND_BF16, ///< f32 only: the value rounded to bf16, still as f32
    RoundF16 = SHARDX_VK_UN_ROUND_F16,   ///< f32 only: the value rounded to f16, still as f32
};

enum class BinaryOp : uint32_t {
    Add = SHARDX_VK_BIN_ADD,
    Sub = SHARDX_VK_BIN_SUB,
    Mul = SHARDX_VK_BIN_MUL,
    Div = SHARDX_VK_BIN_DIV,
    Max = SHARDX_VK_BIN_MAX,
    Min = SHARDX_VK_BIN_MIN,
    Rem = SHARDX_VK_BIN_REM, ///< integers only
    And = SHARDX_VK_BIN_AND, ///< integers only
    Or = SHARDX_VK_BIN_OR,   ///< integers only
    Xor = SHARDX_VK_BIN_XOR, ///< integers only
};

enum class CompareDirection : uint32_t {
    Eq = SHARDX_VK_CMP_EQ,
    Ne = SHARDX_VK_CMP_NE,
    Lt = SHARDX_VK_CMP_LT,
    Le = SHARDX_VK_CMP_LE,
    Gt = SHARDX_VK_CMP_GT,
    Ge = SHARDX_VK_CMP_GE,
};

enum class ReduceOp : uint32_t {
    Sum = SHARDX_VK_RED_SUM,
    Max = SHARDX_VK_RED_MAX,
    Min = SHARDX_VK_RED_MIN,
    Prod = SHARDX_VK_RED_PROD,
};

/// dot_general's dimension numbers.
struct DotDims {
    std::vector<int64_t> lhsBatch, rhsBatch, lhsContracting, rhsContracting;
};

/// How dot_general sums.
enum class DotMode {
    /// Each output summed from zero over the contracting indices in row-major order, no FMA: bit-exact with the
    /// reference interpreter.
    Precise,
    /// Operands transposed to [batch, M, K] x [batch, K, N] when needed, then the register-blocked tiled matmul
    /// (f32 only; other types use Precise, which is exact for integers anyway). Not bit-exact.
    Fast,
};

/// One dimension of a strided copy (strided_copy.comp explains the index arithmetic).
struct CopyDim {
    int64_t size = 1;      ///< extent of the region
    int64_t srcStride = 0; ///< elements; 0 broadcasts, negative reverses
    int64_t dstStride = 0; ///< elements
    int64_t lo = 0;        ///< leading padding (negative crops)
    int64_t interior = 0;  ///< padding between source elements
    int64_t srcSize = 1;   ///< source extent; region points past it are padding
};

/// A strided copy of a region from `src` to `dst`; bases are element offsets.
struct StridedCopyParams {
    std::vector<CopyDim> dims;
    int64_t srcBase = 0;
    int64_t dstBase = 0;
    uint64_t padBits = 0; ///< the pad value's bits (low `dtypeSize` bytes)
};

/// Every function checks its shapes and buffer sizes, then appends its dispatches to `batch` (nothing runs until
/// `Device::submit(batch)`). Buffers hold row-major tensors at offset 0. Errors name the op and the mismatch.
namespace ops {

Status unary(CommandBatch& batch, UnaryOp op, DType dtype, const Buffer& in, const Buffer& out, int64_t count);
/// convert between f32, i32 and u32 (f32 -> int truncates toward zero).
Status convert(CommandBatch& batch, DType from, DType to, const Buffer& in, const Buffer& out, int64_t count);
Status binary(CommandBatch& batch, BinaryOp op, DType dtype, const Buffer& a, const Buffer& b, const Buffer& out,
              int64_t count);
/// Results are U32 words holding 0 or 1.
Status compare(CommandBatch& batch, CompareDirection dir, DType dtype, const Buffer& a, const Buffer& b,
               const Buffer& out, int64_t count);
/// `pred` holds U32 words (nonzero = true).
Status select(CommandBatch& batch, DType dtype, const Buffer& pred, const Buffer& onTrue, const Buffer& onFalse,
              const Buffer& out, int64_t count);

Status stridedCopy(CommandBatch& batch, DType dtype, const Buffer& src, const Buffer& dst,
                   const StridedCopyParams& params);
/// dst = transpose(src, permutation): dst dimension i is src dimension permutation[i].
Status transpose(CommandBatch& batch, DType dtype, const Buffer& src, const Shape& srcShape,
                 const std::vector<int64_t>& permutation, const Buffer& dst);
Status broadcastInDim(CommandBatch& batch, DType dtype, const Buffer& src, const Shape& srcShape, const Shape& dstShape,
                      const std::vector<int64_t>& broadcastDims, const Buffer& dst);
Status slice(CommandBatch& batch, DType dtype, const Buffer& src, const Shape& srcShape,
             const std::vector<int64_t>& start, const std::vector<int64_t>& limit, const std::vector<int64_t>& strides,
             const Buffer& dst);
Status pad(CommandBatch& batch, DType dtype, const Buffer& src, const Shape& srcShape, const std::vector<int64_t>& lo,
           const std::vector<int64_t>& hi, const std::vector<int64_t>& interior, uint64_t padBits, const Buffer& dst);
Status concatenate(CommandBatch& batch, DType dtype, const std::vector<const Buffer*>& srcs,
                   const std::vector<Shape>& shapes, int64_t dimension, const Buffer& dst);
Status reverse(CommandBatch& batch, DType dtype, const Buffer& src, const Shape& shape,
               const std::vector<int64_t>& dims, const Buffer& dst);
/// Start indices are clamped into [0, srcShape - sizes] as StableHLO says.
Status dynamicSlice(CommandBatch& batch, DType dtype, const Buffer& src, const Shape& srcShape,
                    std::vector<int64_t> start, const Shape& sizes, const Buffer& dst);
/// dst = operand with `update` written at the (clamped) start indices. `dst` may not be `operand`.
Status dynamicUpdateSlice(CommandBatch& batch, DType dtype, const Buffer& operand, const Shape& shape,
                          const Buffer& update, const Shape& updateShape, std::vector<int64_t> start,
                          const Buffer& dst);

/// Reduces `dims` of `src` (F32/I32/U32), folding from `initBits` in row-major order; dst has the other dims.
Status reduce(CommandBatch& batch, ReduceOp op, DType dtype, const Buffer& src, const Shape& srcShape,
              const std::vector<int64_t>& dims, uint32_t initBits, const Buffer& dst);
/// dst[i] = index of element i along `dimension` (F32/I32/U32).
Status iota(CommandBatch& batch, DType dtype, const Shape& shape, int64_t dimension, const Buffer& dst);
/// For dotGeneral on F32 words that hold bf16 or f16 values: each product and partial sum rounded to the format (the
/// reference's f16 and bf16 dot), in Precise mode.
enum class DotRounding { None, Bf16, F16 };

/// StableHLO dot_general (F32/I32): result dims = batch, lhs free, rhs free. Fast mode may allocate scratch
/// buffers on `dst`'s device, kept by `batch`.
Status dotGeneral(CommandBatch& batch, DType dtype, const Buffer& lhs, const Shape& lhsShape, const Buffer& rhs,
                  const Shape& rhsShape, const DotDims& dims, DotMode mode, const Buffer& dst,
                  DotRounding rounding = DotRounding::None);
/// The tiled kernel alone: C[b] = A[b] * B[b] for `batches` row-major f32 matrices (MxK, KxN, MxN).
Status matmulTiled(CommandBatch& batch, const Buffer& a, const Buffer& b, const Buffer& c, int64_t batches, int64_t m,
                   int64_t n, int64_t k);
/// How matmulCoopF16 feeds the matrix units: fragments loaded from the buffers (matmul_coop_f16.comp) or from
/// slices staged in shared memory (matmul_coop_f16_smem.comp).
enum class CoopMatmul { Direct, Staged };
/// C[b] = A[b] * B[b] on the GPU's matrix units: A (MxK) and B (KxN) of IEEE half floats (two bytes each), C (MxN)
/// f32, row-major. Errors: the device was not created with cooperative matrices (Device::cooperativeMatrixF16);
/// M, N or K not a multiple of 16; a buffer too small.
Status matmulCoopF16(CommandBatch& batch, const Buffer& a, const Buffer& b, const Buffer& c, int64_t batches, int64_t m,
                     int64_t n, int64_t k, CoopMatmul how = CoopMatmul::Staged);

} // namespace ops
} // namespace shardx::exec::vk
