// MemoryPool.h - device memory for a Device's buffers: small buffers share large allocations.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "core/exec/vulkan/VulkanFunctions.h"

namespace shardx::exec::vk {

/// Where a buffer's bytes are: `offset` bytes into `memory`, mapped at `mapped` (nullptr when not host-visible).
struct MemoryRange {
    VkDeviceMemory memory = VK_NULL_HANDLE;
    uint64_t offset = 0;
    uint64_t size = 0;
    void* mapped = nullptr;
    int block = -1; ///< the pool's block, or -1 for a dedicated allocation
};

/// The device memory of one VkDevice. A vkAllocateMemory is a system call on a GPU (and drivers limit how many
/// allocations may live), so ranges of up to kPooledBytes are carved out of blocks of kBlockBytes, first fit, and
/// return to their block when released; larger ones get an allocation of their own. A block is freed when its last
/// range goes, except the last block of its memory type, which stays for the next buffers. Not thread-safe: the
/// Device serialises its calls.
class MemoryPool {
public:
    static constexpr uint64_t kBlockBytes = 16ull << 20;
    static constexpr uint64_t kPooledBytes = 4ull << 20;

    MemoryPool(const VulkanFunctions& fn, VkDevice device) : m_fn(&fn), m_device(device) {}
    /// Frees every block; the buffers bound to them must be gone.
    ~MemoryPool();
    MemoryPool(const MemoryPool&) = delete;
    MemoryPool& operator=(const MemoryPool&) = delete;

    /// `size` bytes aligned to `alignment` in memory type `type`, mapped when `map`. Errors: the driver's
    /// (VK_ERROR_OUT_OF_DEVICE_MEMORY, ...), with `what` in front.
    Expected<MemoryRange> allocate(uint32_t type, uint64_t size, uint64_t alignment, bool map, const std::string& what);
    void release(const MemoryRange& range);

    /// Live vkAllocateMemory allocations (blocks and dedicated ones).
    size_t allocations() const;

private:
    struct Block {
        VkDeviceMemory memory = VK_NULL_HANDLE;
        uint32_t type = 0;
        uint64_t size = 0;
        void* mapped = nullptr;
        std::map<uint64_t, uint64_t> free; ///< offset -> bytes of each free range, none adjacent
        size_t ranges = 0;                 ///< ranges handed out and not released
    };

    Expected<VkDeviceMemory> allocateMemory(uint32_t type, uint64_t size, bool map, void** mapped,
                                            const std::string& what);
    /// Carves `size` bytes aligned to `alignment` out of `block`; false when no free range holds them.
    bool carve(Block& block, uint64_t size, uint64_t alignment, uint64_t* offset);

    const VulkanFunctions* m_fn;
    VkDevice m_device;
    std::vector<std::unique_ptr<Block>> m_blocks; ///< null where a block was freed (indices stay valid)
    size_t m_dedicated = 0;
};

} // namespace shardx::exec::vk
