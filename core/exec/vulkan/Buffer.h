// Buffer.h - one VkBuffer and its range of device memory (MemoryPool.h), owned by a Device.
#pragma once

#include <cstdint>

#include "core/exec/vulkan/MemoryPool.h"
#include "core/exec/vulkan/VulkanFunctions.h"

namespace shardx::exec::vk {

class Device;

/// Where a buffer lives.
enum class MemoryKind {
    DeviceLocal, ///< fastest for kernels; host-visible too where the driver's only heap is (lavapipe, UMA)
    HostVisible, ///< mapped for the life of the buffer; the staging side of transfers and collectives
};

/// A storage buffer (usable by kernels and as a copy source and destination). Created by `Device::createBuffer`;
/// must not outlive its Device. Not thread-safe: one user at a time.
class Buffer {
public:
    ~Buffer();
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    VkBuffer handle() const { return m_buffer; }
    /// Bytes asked for at creation.
    uint64_t size() const { return m_size; }
    MemoryKind kind() const { return m_kind; }
    /// The persistent host mapping, or nullptr when the memory is not host-visible.
    void* mapped() const { return m_mapped; }
    bool hostVisible() const { return m_mapped != nullptr; }
    bool hostCoherent() const { return m_coherent; }
    Device& device() const { return *m_device; }

private:
    friend class Device;
    Buffer() = default;

    Device* m_device = nullptr;
    VkBuffer m_buffer = VK_NULL_HANDLE;
    VkDeviceMemory m_memory = VK_NULL_HANDLE; ///< m_range.memory: whole, or shared with other buffers
    MemoryRange m_range;
    uint64_t m_size = 0;
    MemoryKind m_kind = MemoryKind::DeviceLocal;
    void* m_mapped = nullptr;
    bool m_coherent = false;
};

} // namespace shardx::exec::vk
