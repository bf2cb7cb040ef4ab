// Device.h - one logical Vulkan device (VkDevice + compute queue) and what runs on it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/exec/vulkan/Buffer.h"
#include "core/exec/vulkan/CommandBatch.h"
#include "core/exec/vulkan/Instance.h"
#include "core/exec/vulkan/KernelRegistry.h"

namespace shardx::exec::vk {

/// Which kernel runs a fast-mode f32 matmul (ops::dotGeneral with DotMode::Fast).
enum class MatmulKernel {
    Auto,          ///< Shared128t128 or Shared64x64 (small products) on GPUs, Texel on CPU drivers (lavapipe), Storage
                   ///< where neither applies
    Shared,        ///< matmul_shared.comp: shared-memory tiles (GPUs); K and N multiples of 4, else Storage
    Shared16,      ///< matmul_shared16.comp: the same with 16-deep slices
    Shared128x256, ///< matmul_shared_128x256.comp: 128 x 256 tiles, a 8 x 16 block of C per invocation
    Shared256x128, ///< matmul_shared_256x128.comp: 256 x 128 tiles, a 16 x 8 block per invocation
    Shared64x64,   ///< matmul_shared_64x64.comp: 64 x 64 tiles (small matrices)
    Shared128t128, ///< matmul_shared_128t128.comp: 128 x 128 tiles on 128 invocations
    Texel,         ///< matmul_texel.comp: texel-buffer reads (lavapipe); K and N multiples of 4, else Storage
    Storage,       ///< matmul_tiled.comp: storage-buffer reads, any shape
};

/// How to create a Device.
struct DeviceOptions {
    /// Longest wait for one submission. A submission that takes longer is an error, and the device is then
    /// unusable (treated as lost): a hung GPU gives an error, never a hang of shardx.
    uint64_t fenceTimeoutNs = 120ull * 1000 * 1000 * 1000;
    /// Record GPU timestamps around every dispatch (when the queue supports them).
    bool timestamps = true;
    /// Shown in errors: "device 2 (llvmpipe ...)".
    std::string label;
    /// The fast matmul kernel; SHARDX_VK_MATMUL=shared|shared16|shared128x256|shared256x128|
    /// shared64x64|shared128t128|texel|storage overrides Auto (for benchmarks and
    /// checks).
    MatmulKernel matmul = MatmulKernel::Auto;
};

/// How `upload` and `download` move bytes.
enum class TransferPath {
    Auto,   ///< memcpy through the mapping when the buffer is host-visible, else through a staging buffer
    Staged, ///< always through a host-visible staging buffer and vkCmdCopyBuffer (what a discrete GPU needs)
};

/// A VkDevice with one compute queue on a physical device. Several Devices may share one physical device; each
/// has its own queue, command pool, pipelines and memory, so different Devices can be driven from different
/// threads with no locking between them. The methods of one Device are serialised by its own mutex.
/// Submissions are synchronous: `submit` returns when the work is done, failed, or timed out.
class Device {
public:
    static Expected<std::unique_ptr<Device>> create(const Instance& instance, uint32_t physicalIndex,
                                                    const DeviceOptions& options = {});
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    const PhysicalDeviceInfo& physical() const { return *m_physical; }
    uint32_t physicalIndex() const { return m_physicalIndex; }
    const std::string& label() const { return m_options.label; }
    /// The fast matmul kernel this device was created with (Auto resolved by the caller, see ops::dotGeneral).
    MatmulKernel matmulKernel() const { return m_options.matmul; }
    /// True when this device was created with cooperative matrices (PhysicalDeviceInfo::coopMatF16 and the driver
    /// accepted the features): ops::matmulCoopF16 runs here.
    bool cooperativeMatrixF16() const { return m_coopMatF16; }
    /// Changes the longest wait for one submission (DeviceOptions::fenceTimeoutNs) from now on.
    void setFenceTimeout(uint64_t ns);
    /// True after a device loss or a timed-out submission; every later call fails.
    bool lost() const;
    /// Live device-memory allocations: small buffers share them (MemoryPool), so far fewer than buffers.
    size_t memoryAllocations() const;

    /// A buffer of `bytes` bytes (at least 4 are allocated). Errors: more than the heap holds, out of device
    /// memory, lost device.
    Expected<std::unique_ptr<Buffer>> createBuffer(uint64_t bytes, MemoryKind kind = MemoryKind::DeviceLocal);

    /// Copies `bytes` bytes from host memory into `dst` at byte `offset`.
    Status upload(Buffer& dst, const void* src, uint64_t bytes, uint64_t offset = 0,
                  TransferPath path = TransferPath::Auto);
    /// Copies `bytes` bytes of `src` from byte `offset` into host memory.
    Status download(const Buffer& src, void* dst, uint64_t bytes, uint64_t offset = 0,
                    TransferPath path = TransferPath::Auto);
    /// Device-side copy of `bytes` bytes between two buffers of this device.
    Status copy(const Buffer& src, Buffer& dst, uint64_t bytes, uint64_t srcOffset = 0, uint64_t dstOffset = 0);

    /// Runs the batch's dispatches in order and waits for them (up to the fence timeout).
    Expected<BatchResult> submit(const CommandBatch& batch);

    /// Number of kernel pipelines built so far (they are built on first use and cached).
    size_t pipelinesBuilt() const;

private:
    struct Pipeline {
        VkShaderModule module = VK_NULL_HANDLE;
        VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
        VkPipelineLayout layout = VK_NULL_HANDLE;
        VkPipeline pipeline = VK_NULL_HANDLE;
    };
    /// A command buffer and fence in flight.
    struct Submission {
        VkCommandBuffer cmd = VK_NULL_HANDLE;
        VkFence fence = VK_NULL_HANDLE;
    };

    Device() = default;
    friend class Buffer;
    void releaseBuffer(Buffer& buffer);
    Expected<const Pipeline*> pipelineLocked(KernelId id);
    Expected<int> memoryTypeFor(uint32_t typeBits, MemoryKind kind) const;
    Expected<std::unique_ptr<Buffer>> createBufferLocked(uint64_t bytes, MemoryKind kind);
    Status checkUsable() const;
    Expected<Submission> beginCommands();
    /// Ends, submits and waits for `s`; frees it unless the wait timed out.
    Status submitAndWait(Submission s, const char* what);
    Expected<Buffer*> stagingLocked(uint64_t bytes);
    std::string who() const;

    const Instance* m_instance = nullptr;
    const PhysicalDeviceInfo* m_physical = nullptr;
    uint32_t m_physicalIndex = 0;
    DeviceOptions m_options;
    VkDevice m_device = VK_NULL_HANDLE;
    VkQueue m_queue = VK_NULL_HANDLE;
    VkCommandPool m_commandPool = VK_NULL_HANDLE;
    VkPhysicalDeviceMemoryProperties m_memory{};
    std::array<Pipeline, kKernelCount> m_pipelines{};
    std::unique_ptr<MemoryPool> m_pool;
    bool m_coopMatF16 = false;
    std::unique_ptr<Buffer> m_staging;
    std::unique_ptr<Buffer> m_params; ///< parameter words of the batch being submitted
    mutable std::recursive_mutex m_mutex;
    bool m_lost = false;
    /// The fence of a submission that timed out: waited for (bounded) before the device is destroyed.
    VkFence m_abandonedFence = VK_NULL_HANDLE;
    /// Destruction of what the timed-out submission may still use, run once its fence has signalled.
    std::vector<std::function<void()>> m_deferred;
    // Kept between submissions, which are synchronous (creating them for each one cost about half a millisecond
    // per submission on an NVIDIA driver): a command buffer and a fence to reuse, and the descriptor and timestamp
    // pools of `submit`, grown when a batch needs more.
    VkCommandBuffer m_spareCommands = VK_NULL_HANDLE;
    VkFence m_spareFence = VK_NULL_HANDLE;
    VkDescriptorPool m_descriptorPool = VK_NULL_HANDLE;
    uint32_t m_descriptorSets = 0, m_uniformDescriptors = 0, m_storageDescriptors = 0, m_texelDescriptors = 0;
    VkQueryPool m_queryPool = VK_NULL_HANDLE;
    uint32_t m_queryCount = 0;
};

} // namespace shardx::exec::vk
