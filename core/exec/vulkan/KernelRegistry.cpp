// KernelRegistry.cpp - kernel table over the SPIR-V arrays generated into the build tree (KernelSpirv.cpp).
#include "core/exec/vulkan/KernelRegistry.h"

#include <cstring>

namespace shardx::exec::vk {

/// Defined in the generated KernelSpirv.cpp: one entry per kernels/*.comp, by file name.
struct KernelSpirvEntry {
    const char* name;
    const uint32_t* words;
    size_t count;
};
extern const KernelSpirvEntry kKernelSpirvTable[];
extern const size_t kKernelSpirvTableSize;

namespace {

struct KernelShape {
    const char* name;
    uint32_t bufferCount;
    uint32_t texelBuffers;
    uint32_t texelWords;
};

// Indexed by KernelId.
constexpr KernelShape kKernelShapes[kKernelCount] = {
    {"unary", 2, 0, 0},
    {"binary", 3, 0, 0},
    {"compare", 3, 0, 0},
    {"select", 4, 0, 0},
    {"strided_copy", 2, 0, 0},
    {"reduce", 2, 0, 0},
    {"iota", 1, 0, 0},
    {"dot_precise", 3, 0, 0},
    {"matmul_tiled", 3, 0, 0},
    {"matmul_texel", 3, 0b011, 4},
    {"dot_precise_texel", 3, 0b011, 1},
    {"matmul_shared", 3, 0, 0},
    {"matmul_shared16", 3, 0, 0},
    {"matmul_shared_128x256", 3, 0, 0},
    {"matmul_shared_256x128", 3, 0, 0},
    {"matmul_shared_64x64", 3, 0, 0},
    {"matmul_shared_128t128", 3, 0, 0},
    {"matmul_coop_f16", 3, 0, 0},
    {"matmul_coop_f16_smem", 3, 0, 0},
};
// Every KernelId has an entry (a missing one would be zero-initialised).
static_assert(kKernelShapes[kKernelCount - 1].name != nullptr);

KernelInfo* buildKernelTable()
{
    static KernelInfo table[kKernelCount];
    for (size_t i = 0; i < kKernelCount; ++i) {
        table[i] = KernelInfo{kKernelShapes[i].name,
                              kKernelShapes[i].bufferCount,
                              kKernelShapes[i].texelBuffers,
                              kKernelShapes[i].texelWords,
                              nullptr,
                              0};
        for (size_t j = 0; j < kKernelSpirvTableSize; ++j) {
            if (std::strcmp(kKernelSpirvTable[j].name, kKernelShapes[i].name) == 0) {
                table[i].spirv = kKernelSpirvTable[j].words;
                table[i].spirvWords = kKernelSpirvTable[j].count;
            }
        }
    }
    return table;
}

} // namespace

const KernelInfo& kernelInfo(KernelId id)
{
    static const KernelInfo* table = buildKernelTable();
    return table[size_t(id)];
}

} // namespace shardx::exec::vk
