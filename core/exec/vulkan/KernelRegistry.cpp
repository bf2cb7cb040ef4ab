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
};

// Indexed by KernelId.
constexpr KernelShape kKernelShapes[kKernelCount] = {
    {"unary", 2},  {"binary", 3}, {"compare", 3},     {"select", 4},       {"strided_copy", 2},
    {"reduce", 2}, {"iota", 1},   {"dot_precise", 3}, {"matmul_tiled", 3},
};

KernelInfo* buildKernelTable()
{
    static KernelInfo table[kKernelCount];
    for (size_t i = 0; i < kKernelCount; ++i) {
        table[i] = KernelInfo{kKernelShapes[i].name, kKernelShapes[i].bufferCount, nullptr, 0};
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
