// KernelRegistry.h - the compute kernels built into shardx_vulkan (SPIR-V compiled by glslc at build time).
#pragma once

#include <cstddef>
#include <cstdint>

namespace shardx::exec::vk {

/// One kernel of core/exec/vulkan/kernels/*.comp.
enum class KernelId : uint32_t {
    Unary,
    Binary,
    Compare,
    Select,
    StridedCopy,
    Reduce,
    Iota,
    DotPrecise,
    MatmulTiled,
    MatmulTexel,
    DotPreciseTexel,
    MatmulShared,
    MatmulShared16,
    MatmulShared128x256,
    MatmulShared256x128,
    MatmulShared64x64,
    MatmulShared128t128,
    MatmulCoopF16,
    MatmulCoopF16Smem,
};
inline constexpr size_t kKernelCount = size_t(KernelId::MatmulCoopF16Smem) + 1;

/// What the runtime needs to build a kernel's pipeline. Every kernel reads its parameter words from a uniform buffer
/// at binding 0 (a block of SHARDX_VK_PARAM_BLOCK_BYTES) and has `bufferCount` buffers at bindings 1..bufferCount:
/// storage buffers, except those in `texelBuffers`.
struct KernelInfo {
    const char* name;     ///< file name without `.comp`
    uint32_t bufferCount; ///< buffers besides the parameters
    /// Bit i set: buffer i (binding i + 1) is a uniform texel buffer, read with texelFetch.
    uint32_t texelBuffers;
    /// 32-bit words per texel of those buffers: 4 (RGBA32F) or 1 (R32_UINT).
    uint32_t texelWords;
    const uint32_t* spirv; ///< SPIR-V words, embedded at build time
    size_t spirvWords;
};

/// The kernel's info; `spirv` is never null (a kernel missing from the build fails the link of the table).
const KernelInfo& kernelInfo(KernelId id);

} // namespace shardx::exec::vk
