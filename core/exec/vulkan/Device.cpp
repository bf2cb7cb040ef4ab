// Device.cpp - VkDevice creation, memory, transfers, lazily built pipelines and batch submission.
#include "core/exec/vulkan/Device.h"
#include "core/exec/vulkan/kernels/common/codes.h"

#include <algorithm>
#include <bitset>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <utility>

namespace shardx::exec::vk {

namespace {

std::string byteCount(uint64_t bytes)
{
    if (bytes >= (1ull << 30))
        return std::to_string(bytes >> 20) + " MiB";
    if (bytes >= (1ull << 20))
        return std::to_string(bytes >> 10) + " KiB";
    return std::to_string(bytes) + " bytes";
}

VkMemoryBarrier memoryBarrier(VkAccessFlags src, VkAccessFlags dst)
{
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    b.srcAccessMask = src;
    b.dstAccessMask = dst;
    return b;
}

} // namespace

Buffer::~Buffer()
{
    if (m_device)
        m_device->releaseBuffer(*this);
}

Expected<std::unique_ptr<Device>> Device::create(const Instance& instance, uint32_t physicalIndex,
                                                 const DeviceOptions& options)
{
    if (physicalIndex >= instance.physicalDevices().size())
        return Error{"no Vulkan physical device " + std::to_string(physicalIndex) + " (there are " +
                         std::to_string(instance.physicalDevices().size()) + ")",
                     {}};
    const VulkanFunctions& fn = instance.fn();
    std::unique_ptr<Device> self(new Device());
    self->m_instance = &instance;
    self->m_physical = &instance.physicalDevices()[physicalIndex];
    self->m_physicalIndex = physicalIndex;
    self->m_options = options;
    if (self->m_options.matmul == MatmulKernel::Auto) {
        if (const char* env = std::getenv("SHARDX_VK_MATMUL")) {
            std::string v = env;
            self->m_options.matmul = v == "shared"          ? MatmulKernel::Shared
                                     : v == "shared16"      ? MatmulKernel::Shared16
                                     : v == "shared128x256" ? MatmulKernel::Shared128x256
                                     : v == "shared256x128" ? MatmulKernel::Shared256x128
                                     : v == "shared64x64"   ? MatmulKernel::Shared64x64
                                     : v == "shared128t128" ? MatmulKernel::Shared128t128
                                     : v == "texel"         ? MatmulKernel::Texel
                                     : v == "storage"       ? MatmulKernel::Storage
                                                            : MatmulKernel::Auto;
        }
    }
    if (self->m_options.label.empty())
        self->m_options.label = "physical device " + std::to_string(physicalIndex);

    float priority = 1.0f;
    VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queueInfo.queueFamilyIndex = self->m_physical->computeQueueFamily;
    queueInfo.queueCount = 1;
    queueInfo.pQueuePriorities = &priority;
    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queueInfo;
    // Cooperative matrices where the device offers them (matmul_coop_f16.comp), with the features that kernel uses.
    const char* coopExtensions[] = {VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME,
                                    VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME};
    VkPhysicalDeviceCooperativeMatrixFeaturesNV coop{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
    VkPhysicalDeviceShaderFloat16Int8Features f16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
    VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    VkPhysicalDeviceVulkanMemoryModelFeatures model{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
    if (self->m_physical->coopMatF16) {
        coop.cooperativeMatrix = VK_TRUE;
        f16.shaderFloat16 = VK_TRUE;
        storage16.storageBuffer16BitAccess = VK_TRUE;
        model.vulkanMemoryModel = VK_TRUE;
        coop.pNext = &f16;
        f16.pNext = &storage16;
        storage16.pNext = &model;
        info.pNext = &coop;
        info.enabledExtensionCount = uint32_t(std::size(coopExtensions));
        info.ppEnabledExtensionNames = coopExtensions;
    }
    VkResult created = fn.vkCreateDevice(self->m_physical->handle, &info, nullptr, &self->m_device);
    self->m_coopMatF16 = self->m_physical->coopMatF16 && created == VK_SUCCESS;
    if (created != VK_SUCCESS && self->m_physical->coopMatF16) {
        // A driver that lists the features but refuses them together: the device without cooperative matrices.
        info.pNext = nullptr;
        info.enabledExtensionCount = 0;
        info.ppEnabledExtensionNames = nullptr;
        created = fn.vkCreateDevice(self->m_physical->handle, &info, nullptr, &self->m_device);
    }
    SHARDX_VK_CHECK(created, "vkCreateDevice on " + self->who());
    self->m_pool = std::make_unique<MemoryPool>(fn, self->m_device);
    fn.vkGetDeviceQueue(self->m_device, self->m_physical->computeQueueFamily, 0, &self->m_queue);
    fn.vkGetPhysicalDeviceMemoryProperties(self->m_physical->handle, &self->m_memory);

    VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT | VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    poolInfo.queueFamilyIndex = self->m_physical->computeQueueFamily;
    SHARDX_VK_CHECK(fn.vkCreateCommandPool(self->m_device, &poolInfo, nullptr, &self->m_commandPool),
                    "vkCreateCommandPool on " + self->who());
    return self;
}

Device::~Device()
{
    const VulkanFunctions& fn = m_instance->fn();
    if (m_device == VK_NULL_HANDLE)
        return;
    if (m_abandonedFence != VK_NULL_HANDLE) {
        // Work that timed out may still be running; destroying what it uses would crash. Wait a bounded time (at
        // least 10 s), and leak the device rather than hang or crash if it never finishes.
        uint64_t waitNs = std::max<uint64_t>(m_options.fenceTimeoutNs, 10ull * 1000 * 1000 * 1000);
        VkResult r = fn.vkWaitForFences(m_device, 1, &m_abandonedFence, VK_TRUE, waitNs);
        if (r != VK_SUCCESS) {
            (void)m_staging.release();
            (void)m_params.release();
            (void)m_pool.release();
            return;
        }
        for (const std::function<void()>& destroy : m_deferred)
            destroy();
        m_deferred.clear();
        fn.vkDestroyFence(m_device, m_abandonedFence, nullptr);
        m_abandonedFence = VK_NULL_HANDLE;
    } else if (!m_lost) {
        fn.vkDeviceWaitIdle(m_device);
    }
    m_staging.reset();
    m_params.reset();
    if (m_descriptorPool)
        fn.vkDestroyDescriptorPool(m_device, m_descriptorPool, nullptr);
    if (m_queryPool)
        fn.vkDestroyQueryPool(m_device, m_queryPool, nullptr);
    if (m_spareFence)
        fn.vkDestroyFence(m_device, m_spareFence, nullptr);
    for (Pipeline& p : m_pipelines) {
        if (p.pipeline)
            fn.vkDestroyPipeline(m_device, p.pipeline, nullptr);
        if (p.layout)
            fn.vkDestroyPipelineLayout(m_device, p.layout, nullptr);
        if (p.setLayout)
            fn.vkDestroyDescriptorSetLayout(m_device, p.setLayout, nullptr);
        if (p.module)
            fn.vkDestroyShaderModule(m_device, p.module, nullptr);
    }
    if (m_commandPool)
        fn.vkDestroyCommandPool(m_device, m_commandPool, nullptr);
    m_pool.reset();
    fn.vkDestroyDevice(m_device, nullptr);
}

size_t Device::memoryAllocations() const
{
    std::lock_guard<std::recursive_mutex> lock(m_mutex);
    return m_pool ? m_pool->allocations() : 0;
}

void Device::setFenceTimeout(uint64_t ns)
{
    std::lock_guard<std::recursive_mutex> lock(m_mutex);
    m_options.fenceTimeoutNs = ns;
}

std::string Device::who() const { return m_options.label + " (" + m_physical->describe() + ")"; }

bool Device::lost() const
{
    std::lock_guard<std::recursive_mutex> lock(m_mutex);
    return m_lost;
}

Status Device::checkUsable() const
{
    if (m_lost)
        return Error{"Vulkan " + who() + " is lost (an earlier submission failed or timed out); recreate it", {}};
    return Status::success();
}

Expected<int> Device::memoryTypeFor(uint32_t typeBits, MemoryKind kind) const
{
    auto find = [&](VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid) {
        for (uint32_t i = 0; i < m_memory.memoryTypeCount; ++i) {
            VkMemoryPropertyFlags f = m_memory.memoryTypes[i].propertyFlags;
            if ((typeBits & (1u << i)) && (f & want) == want && (f & avoid) == 0)
                return int(i);
        }
        return -1;
    };
    int t = -1;
    if (kind == MemoryKind::DeviceLocal) {
        t = find(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
        if (t < 0)
            t = find(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
        if (t < 0)
            t = find(0, 0);
    } else {
        t = find(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                     VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                 0);
        if (t < 0)
            t = find(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0);
        if (t < 0)
            t = find(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0);
    }
    if (t < 0)
        return Error{"no suitable Vulkan memory type on " + who(), {}};
    return t;
}

Expected<std::unique_ptr<Buffer>> Device::createBuffer(uint64_t bytes, MemoryKind kind)
{
    std::lock_guard<std::recursive_mutex> lock(m_mutex);
    return createBufferLocked(bytes, kind);
}

Expected<std::unique_ptr<Buffer>> Device::createBufferLocked(uint64_t bytes, MemoryKind kind)
{
    SHARDX_VK_TRY(checkUsable());
    const VulkanFunctions& fn = m_instance->fn();
    uint64_t allocBytes = std::max<uint64_t>(4, (bytes + 3) & ~uint64_t(3));
    // Asking the driver for more than any heap holds is refused up front: some drivers (and the validation
    // layer) treat it as invalid use rather than returning VK_ERROR_OUT_OF_DEVICE_MEMORY.
    uint64_t largestHeap = 0;
    for (uint32_t i = 0; i < m_memory.memoryHeapCount; ++i)
        largestHeap = std::max<uint64_t>(largestHeap, m_memory.memoryHeaps[i].size);
    if (allocBytes > largestHeap)
        return Error{"out of device memory: a buffer of " + byteCount(bytes) + " does not fit in " + who() +
                         " (largest heap " + byteCount(largestHeap) + ")",
                     {}};

    std::unique_ptr<Buffer> buffer(new Buffer());
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = allocBytes;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                 VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer handle = VK_NULL_HANDLE;
    SHARDX_VK_CHECK(fn.vkCreateBuffer(m_device, &info, nullptr, &handle),
                    "vkCreateBuffer (" + byteCount(bytes) + ") on " + who());
    VkMemoryRequirements req;
    fn.vkGetBufferMemoryRequirements(m_device, handle, &req);
    Expected<int> type = memoryTypeFor(req.memoryTypeBits, kind);
    if (!type) {
        fn.vkDestroyBuffer(m_device, handle, nullptr);
        return type.error();
    }
    const VkMemoryType& memType = m_memory.memoryTypes[*type];
    uint64_t heapSize = m_memory.memoryHeaps[memType.heapIndex].size;
    if (req.size > heapSize) {
        fn.vkDestroyBuffer(m_device, handle, nullptr);
        return Error{"out of device memory: a buffer of " + byteCount(bytes) + " does not fit in the heap of " +
                         byteCount(heapSize) + " on " + who(),
                     {}};
    }
    const bool hostVisible = memType.propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
    // Non-coherent memory is flushed and invalidated whole (Device::upload/download), so pooled ranges need no
    // alignment to nonCoherentAtomSize.
    auto range =
        m_pool->allocate(uint32_t(*type), req.size, req.alignment, hostVisible, byteCount(bytes) + " on " + who());
    if (!range) {
        fn.vkDestroyBuffer(m_device, handle, nullptr);
        return range.error();
    }
    VkResult r = fn.vkBindBufferMemory(m_device, handle, range->memory, range->offset);
    if (r != VK_SUCCESS) {
        fn.vkDestroyBuffer(m_device, handle, nullptr);
        m_pool->release(*range);
        return vkError("vkBindBufferMemory on " + who(), r);
    }
    buffer->m_device = this;
    buffer->m_buffer = handle;
    buffer->m_memory = range->memory;
    buffer->m_range = *range;
    buffer->m_size = bytes;
    buffer->m_kind = kind;
    buffer->m_mapped = range->mapped;
    buffer->m_coherent = hostVisible && (memType.propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    return buffer;
}

void Device::releaseBuffer(Buffer& buffer)
{
    std::lock_guard<std::recursive_mutex> lock(m_mutex);
    const VulkanFunctions& fn = m_instance->fn();
    auto destroy = [&fn, device = m_device, handle = buffer.m_buffer, range = buffer.m_range, pool = m_pool.get()]() {
        fn.vkDestroyBuffer(device, handle, nullptr);
        pool->release(range);
    };
    buffer.m_device = nullptr;
    // A timed-out submission may still use the buffer: destroy it with the device, once that work is done.
    if (m_abandonedFence != VK_NULL_HANDLE) {
        m_deferred.push_back(destroy);
        return;
    }
    destroy();
}

Expected<Device::Submission> Device::beginCommands()
{
    const VulkanFunctions& fn = m_instance->fn();
    Submission s;
    if (m_spareCommands != VK_NULL_HANDLE && m_spareFence != VK_NULL_HANDLE &&
        fn.vkResetCommandBuffer(m_spareCommands, 0) == VK_SUCCESS &&
        fn.vkResetFences(m_device, 1, &m_spareFence) == VK_SUCCESS) {
        s.cmd = std::exchange(m_spareCommands, VK_NULL_HANDLE);
        s.fence = std::exchange(m_spareFence, VK_NULL_HANDLE);
    } else {
        VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        alloc.commandPool = m_commandPool;
        alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        alloc.commandBufferCount = 1;
        SHARDX_VK_CHECK(fn.vkAllocateCommandBuffers(m_device, &alloc, &s.cmd), "vkAllocateCommandBuffers on " + who());
        VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VkResult r = fn.vkCreateFence(m_device, &fenceInfo, nullptr, &s.fence);
        if (r != VK_SUCCESS) {
            fn.vkFreeCommandBuffers(m_device, m_commandPool, 1, &s.cmd);
            return vkError("vkCreateFence on " + who(), r);
        }
    }
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    fn.vkBeginCommandBuffer(s.cmd, &begin);
    return s;
}

Status Device::submitAndWait(Submission s, const char* what)
{
    const VulkanFunctions& fn = m_instance->fn();
    auto release = [&]() {
        fn.vkFreeCommandBuffers(m_device, m_commandPool, 1, &s.cmd);
        fn.vkDestroyFence(m_device, s.fence, nullptr);
    };
    VkResult r = fn.vkEndCommandBuffer(s.cmd);
    if (r != VK_SUCCESS) {
        release();
        return vkError(std::string("vkEndCommandBuffer (") + what + ") on " + who(), r);
    }
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &s.cmd;
    r = fn.vkQueueSubmit(m_queue, 1, &submit, s.fence);
    if (r != VK_SUCCESS) {
        if (r == VK_ERROR_DEVICE_LOST)
            m_lost = true;
        release();
        return vkError(std::string("vkQueueSubmit (") + what + ") on " + who(), r);
    }
    r = fn.vkWaitForFences(m_device, 1, &s.fence, VK_TRUE, m_options.fenceTimeoutNs);
    if (r == VK_TIMEOUT) {
        // The work may still run: keep everything it uses alive, and refuse further work on this device.
        m_lost = true;
        m_abandonedFence = s.fence;
        m_deferred.push_back([&fn, device = m_device, pool = m_commandPool, cmd = s.cmd]() mutable {
            fn.vkFreeCommandBuffers(device, pool, 1, &cmd);
        });
        return Error{std::string("Vulkan ") + what + " on " + who() + " did not finish within " +
                         std::to_string(double(m_options.fenceTimeoutNs) / 1e9) +
                         " s (hung or too slow); the device is now unusable",
                     {}};
    }
    if (r != VK_SUCCESS) {
        if (r == VK_ERROR_DEVICE_LOST)
            m_lost = true;
        release();
        return vkError(std::string("vkWaitForFences (") + what + ") on " + who(), r);
    }
    // Done: keep the command buffer and fence for the next submission (one of each is enough, they are serial).
    if (m_spareCommands == VK_NULL_HANDLE && m_spareFence == VK_NULL_HANDLE) {
        m_spareCommands = s.cmd;
        m_spareFence = s.fence;
    } else {
        release();
    }
    return Status::success();
}

Expected<Buffer*> Device::stagingLocked(uint64_t bytes)
{
    if (!m_staging || m_staging->size() < bytes) {
        m_staging.reset();
        Expected<std::unique_ptr<Buffer>> b = createBufferLocked(bytes, MemoryKind::HostVisible);
        if (!b)
            return b.error();
        m_staging = std::move(*b);
    }
    return m_staging.get();
}

Status Device::upload(Buffer& dst, const void* src, uint64_t bytes, uint64_t offset, TransferPath path)
{
    std::lock_guard<std::recursive_mutex> lock(m_mutex);
    SHARDX_VK_TRY(checkUsable());
    if (&dst.device() != this)
        return Error{"upload: the buffer belongs to another device than " + who(), {}};
    if (offset + bytes > dst.size())
        return Error{"upload of " + byteCount(bytes) + " at offset " + std::to_string(offset) +
                         " overruns a buffer of " + byteCount(dst.size()),
                     {}};
    if (bytes == 0)
        return Status::success();
    const VulkanFunctions& fn = m_instance->fn();
    if (path == TransferPath::Auto && dst.hostVisible()) {
        std::memcpy(static_cast<char*>(dst.mapped()) + offset, src, bytes);
        if (!dst.hostCoherent()) {
            VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, dst.m_memory, 0, VK_WHOLE_SIZE};
            SHARDX_VK_CHECK(fn.vkFlushMappedMemoryRanges(m_device, 1, &range), "vkFlushMappedMemoryRanges");
        }
        return Status::success();
    }
    Expected<Buffer*> staging = stagingLocked(bytes);
    if (!staging)
        return staging.error();
    std::memcpy((*staging)->mapped(), src, bytes);
    if (!(*staging)->hostCoherent()) {
        VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, (*staging)->m_memory, 0,
                                  VK_WHOLE_SIZE};
        SHARDX_VK_CHECK(fn.vkFlushMappedMemoryRanges(m_device, 1, &range), "vkFlushMappedMemoryRanges");
    }
    Expected<Submission> s = beginCommands();
    if (!s)
        return s.error();
    VkBufferCopy region{0, offset, bytes};
    fn.vkCmdCopyBuffer(s->cmd, (*staging)->handle(), dst.handle(), 1, &region);
    VkMemoryBarrier barrier =
        memoryBarrier(VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    fn.vkCmdPipelineBarrier(s->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                            &barrier, 0, nullptr, 0, nullptr);
    return submitAndWait(*s, "upload");
}

Status Device::download(const Buffer& src, void* dst, uint64_t bytes, uint64_t offset, TransferPath path)
{
    std::lock_guard<std::recursive_mutex> lock(m_mutex);
    SHARDX_VK_TRY(checkUsable());
    if (&src.device() != this)
        return Error{"download: the buffer belongs to another device than " + who(), {}};
    if (offset + bytes > src.size())
        return Error{"download of " + byteCount(bytes) + " at offset " + std::to_string(offset) +
                         " overruns a buffer of " + byteCount(src.size()),
                     {}};
    if (bytes == 0)
        return Status::success();
    const VulkanFunctions& fn = m_instance->fn();
    if (path == TransferPath::Auto && src.hostVisible()) {
        if (!src.hostCoherent()) {
            VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, src.m_memory, 0, VK_WHOLE_SIZE};
            SHARDX_VK_CHECK(fn.vkInvalidateMappedMemoryRanges(m_device, 1, &range), "vkInvalidateMappedMemoryRanges");
        }
        std::memcpy(dst, static_cast<const char*>(src.mapped()) + offset, bytes);
        return Status::success();
    }
    Expected<Buffer*> staging = stagingLocked(bytes);
    if (!staging)
        return staging.error();
    Expected<Submission> s = beginCommands();
    if (!s)
        return s.error();
    VkBufferCopy region{offset, 0, bytes};
    fn.vkCmdCopyBuffer(s->cmd, src.handle(), (*staging)->handle(), 1, &region);
    VkMemoryBarrier barrier = memoryBarrier(VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT);
    fn.vkCmdPipelineBarrier(s->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                            nullptr, 0, nullptr);
    SHARDX_VK_TRY(submitAndWait(*s, "download"));
    if (!(*staging)->hostCoherent()) {
        VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, (*staging)->m_memory, 0,
                                  VK_WHOLE_SIZE};
        SHARDX_VK_CHECK(fn.vkInvalidateMappedMemoryRanges(m_device, 1, &range), "vkInvalidateMappedMemoryRanges");
    }
    std::memcpy(dst, (*staging)->mapped(), bytes);
    return Status::success();
}

Status Device::copy(const Buffer& src, Buffer& dst, uint64_t bytes, uint64_t srcOffset, uint64_t dstOffset)
{
    std::lock_guard<std::recursive_mutex> lock(m_mutex);
    SHARDX_VK_TRY(checkUsable());
    if (&src.device() != this || &dst.device() != this)
        return Error{"copy: both buffers must belong to " + who(), {}};
    if (srcOffset + bytes > src.size() || dstOffset + bytes > dst.size())
        return Error{"copy of " + byteCount(bytes) + " overruns a buffer", {}};
    if (bytes == 0)
        return Status::success();
    const VulkanFunctions& fn = m_instance->fn();
    Expected<Submission> s = beginCommands();
    if (!s)
        return s.error();
    VkBufferCopy region{srcOffset, dstOffset, bytes};
    fn.vkCmdCopyBuffer(s->cmd, src.handle(), dst.handle(), 1, &region);
    VkMemoryBarrier barrier = memoryBarrier(
        VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);
    fn.vkCmdPipelineBarrier(s->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                            nullptr, 0, nullptr);
    return submitAndWait(*s, "copy");
}

size_t Device::pipelinesBuilt() const
{
    std::lock_guard<std::recursive_mutex> lock(m_mutex);
    return size_t(std::count_if(m_pipelines.begin(), m_pipelines.end(),
                                [](const Pipeline& p) { return p.pipeline != VK_NULL_HANDLE; }));
}

Expected<const Device::Pipeline*> Device::pipelineLocked(KernelId id)
{
    Pipeline& p = m_pipelines[size_t(id)];
    if (p.pipeline != VK_NULL_HANDLE)
        return &p;
    const VulkanFunctions& fn = m_instance->fn();
    const KernelInfo& k = kernelInfo(id);
    std::string what = std::string(" for kernel ") + k.name + " on " + who();
    if (!p.module) {
        VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
        info.codeSize = k.spirvWords * sizeof(uint32_t);
        info.pCode = k.spirv;
        SHARDX_VK_CHECK(fn.vkCreateShaderModule(m_device, &info, nullptr, &p.module), "vkCreateShaderModule" + what);
    }
    if (!p.setLayout) {
        std::vector<VkDescriptorSetLayoutBinding> bindings(k.bufferCount + 1);
        for (uint32_t i = 0; i < bindings.size(); ++i) {
            bindings[i].binding = i;
            bool texel = i > 0 && (k.texelBuffers & (1u << (i - 1)));
            bindings[i].descriptorType = i == 0  ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                         : texel ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
                                                 : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            bindings[i].descriptorCount = 1;
            bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
        }
        VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
        info.bindingCount = uint32_t(bindings.size());
        info.pBindings = bindings.data();
        SHARDX_VK_CHECK(fn.vkCreateDescriptorSetLayout(m_device, &info, nullptr, &p.setLayout),
                        "vkCreateDescriptorSetLayout" + what);
    }
    if (!p.layout) {
        VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
        info.setLayoutCount = 1;
        info.pSetLayouts = &p.setLayout;
        SHARDX_VK_CHECK(fn.vkCreatePipelineLayout(m_device, &info, nullptr, &p.layout),
                        "vkCreatePipelineLayout" + what);
    }
    VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = p.module;
    info.stage.pName = "main";
    info.layout = p.layout;
    SHARDX_VK_CHECK(fn.vkCreateComputePipelines(m_device, VK_NULL_HANDLE, 1, &info, nullptr, &p.pipeline),
                    "vkCreateComputePipelines" + what);
    return &p;
}

Expected<BatchResult> Device::submit(const CommandBatch& batch)
{
    std::lock_guard<std::recursive_mutex> lock(m_mutex);
    SHARDX_VK_TRY(checkUsable());
    BatchResult result;
    const std::vector<Dispatch>& dispatches = batch.dispatches();
    if (dispatches.empty())
        return result;
    const VulkanFunctions& fn = m_instance->fn();

    // Check every dispatch before recording anything.
    std::vector<const Pipeline*> pipelines;
    uint32_t bindingCount = 0;
    uint32_t texelCount = 0;
    for (const Dispatch& d : dispatches) {
        const KernelInfo& k = kernelInfo(d.kernel);
        if (d.buffers.size() != k.bufferCount)
            return Error{std::string("kernel ") + k.name + " takes " + std::to_string(k.bufferCount) +
                             " buffers, the dispatch '" + d.label + "' gives " + std::to_string(d.buffers.size()),
                         {}};
        for (size_t i = 0; i < d.buffers.size(); ++i) {
            const Buffer* b = d.buffers[i];
            if (!b || &b->device() != this)
                return Error{"dispatch '" + d.label + "': a buffer is missing or belongs to another device", {}};
            if (k.texelBuffers & (1u << i)) {
                ++texelCount;
                uint64_t texelBytes = 4ull * k.texelWords;
                if (b->size() / texelBytes > m_physical->maxTexelBufferElements || b->size() < texelBytes)
                    return Error{"dispatch '" + d.label + "': a texel buffer of " + byteCount(b->size()) +
                                     " is outside the device's texel-buffer limits on " + who(),
                                 {}};
            } else if (b->size() > m_physical->maxStorageBufferRange)
                return Error{"dispatch '" + d.label + "': a buffer of " + byteCount(b->size()) + " exceeds the " +
                                 byteCount(m_physical->maxStorageBufferRange) + " a storage binding may hold on " +
                                 who(),
                             {}};
        }
        for (int i = 0; i < 3; ++i) {
            if (d.groups[i] == 0 || d.groups[i] > m_physical->maxComputeWorkGroupCount[i])
                return Error{"dispatch '" + d.label + "': workgroup count " + std::to_string(d.groups[i]) +
                                 " out of range on " + who(),
                             {}};
        }
        Expected<const Pipeline*> p = pipelineLocked(d.kernel);
        if (!p)
            return p.error();
        pipelines.push_back(*p);
        bindingCount += k.bufferCount + 1 - uint32_t(std::bitset<32>(k.texelBuffers).count());
    }

    // All parameter words in one host-visible buffer, each dispatch's block at an aligned offset; every block is
    // bound as SHARDX_VK_PARAM_BLOCK_BYTES (what the kernels declare).
    uint64_t align = std::max<uint64_t>(16, m_physical->minUniformBufferOffsetAlignment);
    std::vector<uint64_t> offsets;
    uint64_t total = 0;
    for (const Dispatch& d : dispatches) {
        if (d.params.size() * 4 > SHARDX_VK_PARAM_BLOCK_BYTES)
            return Error{"dispatch '" + d.label + "': " + std::to_string(d.params.size()) +
                             " parameter words, more than the kernels' block of " +
                             std::to_string(SHARDX_VK_PARAM_BLOCK_BYTES / 4),
                         {}};
        offsets.push_back(total);
        total += (std::max<uint64_t>(4, d.params.size() * 4) + align - 1) / align * align;
    }
    total = offsets.back() + SHARDX_VK_PARAM_BLOCK_BYTES;
    // One parameter buffer per device, grown when needed: submissions are serialised and synchronous, so the
    // previous batch is done with it (a timed-out one makes the device unusable instead).
    if (!m_params || m_params->size() < total) {
        m_params.reset();
        Expected<std::unique_ptr<Buffer>> grown =
            createBufferLocked(std::max<uint64_t>(total, 4096), MemoryKind::HostVisible);
        if (!grown)
            return grown.error();
        m_params = std::move(*grown);
    }
    Buffer* params = m_params.get();
    for (size_t i = 0; i < dispatches.size(); ++i) {
        if (!dispatches[i].params.empty())
            std::memcpy(static_cast<char*>(params->mapped()) + offsets[i], dispatches[i].params.data(),
                        dispatches[i].params.size() * 4);
    }
    if (!params->hostCoherent()) {
        VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, params->m_memory, 0, VK_WHOLE_SIZE};
        SHARDX_VK_CHECK(fn.vkFlushMappedMemoryRanges(m_device, 1, &range), "vkFlushMappedMemoryRanges");
    }

    // Descriptor sets from the device's pool, reset for this batch, or made larger when the batch needs more.
    // bindingCount counts the parameter blocks, which are uniform buffers.
    const uint32_t setCount = uint32_t(dispatches.size());
    const uint32_t storageCount = std::max(1u, bindingCount - setCount);
    if (m_descriptorPool == VK_NULL_HANDLE || setCount > m_descriptorSets || setCount > m_uniformDescriptors ||
        storageCount > m_storageDescriptors || texelCount > m_texelDescriptors) {
        if (m_descriptorPool != VK_NULL_HANDLE)
            fn.vkDestroyDescriptorPool(m_device, m_descriptorPool, nullptr);
        m_descriptorPool = VK_NULL_HANDLE;
        m_descriptorSets = m_uniformDescriptors = std::max({setCount, 2 * m_descriptorSets, 64u});
        m_storageDescriptors = std::max({storageCount, 2 * m_storageDescriptors, 256u});
        m_texelDescriptors = std::max({texelCount, 2 * m_texelDescriptors, 16u});
        VkDescriptorPoolSize poolSizes[3] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, m_uniformDescriptors},
                                             {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, m_storageDescriptors},
                                             {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, m_texelDescriptors}};
        VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        poolInfo.maxSets = m_descriptorSets;
        poolInfo.poolSizeCount = 3;
        poolInfo.pPoolSizes = poolSizes;
        VkResult created = fn.vkCreateDescriptorPool(m_device, &poolInfo, nullptr, &m_descriptorPool);
        if (created != VK_SUCCESS) {
            m_descriptorPool = VK_NULL_HANDLE;
            m_descriptorSets = m_uniformDescriptors = m_storageDescriptors = m_texelDescriptors = 0;
            return vkError("vkCreateDescriptorPool", created);
        }
    } else {
        SHARDX_VK_CHECK(fn.vkResetDescriptorPool(m_device, m_descriptorPool, 0), "vkResetDescriptorPool");
    }
    VkDescriptorPool pool = m_descriptorPool;
    VkQueryPool queries = VK_NULL_HANDLE;
    std::vector<VkBufferView> views;
    bool abandoned = false;
    // The pools stay with the device (a timed-out submission leaves the device unusable, and ~Device destroys
    // them once its fence has signalled); only the buffer views are this batch's.
    auto cleanup = [&]() {
        auto destroy = [&fn, device = m_device, views]() {
            for (VkBufferView v : views)
                fn.vkDestroyBufferView(device, v, nullptr);
        };
        if (abandoned)
            m_deferred.push_back(destroy);
        else
            destroy();
    };
    std::vector<VkDescriptorSetLayout> layouts;
    for (const Pipeline* p : pipelines)
        layouts.push_back(p->setLayout);
    std::vector<VkDescriptorSet> sets(dispatches.size());
    VkDescriptorSetAllocateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    setInfo.descriptorPool = pool;
    setInfo.descriptorSetCount = uint32_t(sets.size());
    setInfo.pSetLayouts = layouts.data();
    VkResult r = fn.vkAllocateDescriptorSets(m_device, &setInfo, sets.data());
    if (r != VK_SUCCESS) {
        cleanup();
        return vkError("vkAllocateDescriptorSets", r);
    }
    std::vector<VkDescriptorBufferInfo> infos;
    infos.reserve(bindingCount + texelCount);
    views.reserve(texelCount);
    std::vector<VkWriteDescriptorSet> writes;
    for (size_t i = 0; i < dispatches.size(); ++i) {
        const KernelInfo& k = kernelInfo(dispatches[i].kernel);
        infos.push_back({params->handle(), offsets[i], SHARDX_VK_PARAM_BLOCK_BYTES});
        for (const Buffer* b : dispatches[i].buffers)
            infos.push_back({b->handle(), 0, VK_WHOLE_SIZE});
        size_t first = infos.size() - dispatches[i].buffers.size() - 1;
        for (uint32_t j = 0; j <= dispatches[i].buffers.size(); ++j) {
            VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            w.dstSet = sets[i];
            w.dstBinding = j;
            w.descriptorCount = 1;
            w.descriptorType = j == 0 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            w.pBufferInfo = &infos[first + j];
            if (j > 0 && (k.texelBuffers & (1u << (j - 1)))) {
                const Buffer* b = dispatches[i].buffers[j - 1];
                VkBufferViewCreateInfo viewInfo{VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
                viewInfo.buffer = b->handle();
                viewInfo.format = k.texelWords == 4 ? VK_FORMAT_R32G32B32A32_SFLOAT : VK_FORMAT_R32_UINT;
                viewInfo.range = b->size() / (4ull * k.texelWords) * (4ull * k.texelWords);
                VkBufferView view = VK_NULL_HANDLE;
                r = fn.vkCreateBufferView(m_device, &viewInfo, nullptr, &view);
                if (r != VK_SUCCESS) {
                    cleanup();
                    return vkError("vkCreateBufferView", r);
                }
                views.push_back(view);
                w.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
                w.pBufferInfo = nullptr;
                w.pTexelBufferView = &views.back();
            }
            writes.push_back(w);
        }
    }
    fn.vkUpdateDescriptorSets(m_device, uint32_t(writes.size()), writes.data(), 0, nullptr);

    bool timestamps = m_options.timestamps && m_physical->timestampValidBits > 0;
    if (timestamps && m_queryCount < 2 * dispatches.size()) {
        if (m_queryPool != VK_NULL_HANDLE)
            fn.vkDestroyQueryPool(m_device, m_queryPool, nullptr);
        m_queryPool = VK_NULL_HANDLE;
        m_queryCount = 0;
        VkQueryPoolCreateInfo qInfo{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qInfo.queryCount = std::max<uint32_t>(uint32_t(2 * dispatches.size()), 128);
        if (fn.vkCreateQueryPool(m_device, &qInfo, nullptr, &m_queryPool) == VK_SUCCESS)
            m_queryCount = qInfo.queryCount;
        else
            m_queryPool = VK_NULL_HANDLE;
    }
    if (timestamps) {
        queries = m_queryPool;
        timestamps = queries != VK_NULL_HANDLE;
    }

    Expected<Submission> s = beginCommands();
    if (!s) {
        cleanup();
        return s.error();
    }
    VkCommandBuffer cmd = s->cmd;
    if (timestamps)
        fn.vkCmdResetQueryPool(cmd, queries, 0, uint32_t(2 * dispatches.size()));
    // Host writes (uploads through the mapping, parameters) before the first dispatch.
    VkMemoryBarrier hostToShader = memoryBarrier(VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                                                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    fn.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &hostToShader, 0, nullptr, 0, nullptr);
    for (size_t i = 0; i < dispatches.size(); ++i) {
        if (i > 0) {
            VkMemoryBarrier b =
                memoryBarrier(VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
            fn.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                                    1, &b, 0, nullptr, 0, nullptr);
        }
        fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines[i]->pipeline);
        fn.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines[i]->layout, 0, 1, &sets[i], 0,
                                   nullptr);
        if (timestamps)
            fn.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries, uint32_t(2 * i));
        fn.vkCmdDispatch(cmd, dispatches[i].groups[0], dispatches[i].groups[1], dispatches[i].groups[2]);
        if (timestamps)
            fn.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, uint32_t(2 * i + 1));
    }
    VkMemoryBarrier toHost =
        memoryBarrier(VK_ACCESS_SHADER_WRITE_BIT,
                      VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    fn.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                            VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &toHost, 0, nullptr, 0,
                            nullptr);

    auto start = std::chrono::steady_clock::now();
    Status done = submitAndWait(*s, "dispatch");
    result.wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!done) {
        // The timed-out work may still read the pools and parameters: their destruction waits (see ~Device).
        abandoned = m_abandonedFence != VK_NULL_HANDLE;
        cleanup();
        return done.error();
    }
    if (timestamps) {
        std::vector<uint64_t> ticks(2 * dispatches.size());
        r = fn.vkGetQueryPoolResults(m_device, queries, 0, uint32_t(ticks.size()), ticks.size() * sizeof(uint64_t),
                                     ticks.data(), sizeof(uint64_t), VK_QUERY_RESULT_64_BIT);
        if (r == VK_SUCCESS) {
            uint64_t mask =
                m_physical->timestampValidBits >= 64 ? ~0ull : ((1ull << m_physical->timestampValidBits) - 1);
            result.hasTimestamps = true;
            for (size_t i = 0; i < dispatches.size(); ++i) {
                uint64_t t0 = ticks[2 * i] & mask;
                uint64_t t1 = ticks[2 * i + 1] & mask;
                double ms = double((t1 - t0) & mask) * m_physical->timestampPeriodNs / 1e6;
                result.timings.push_back({dispatches[i].label, ms});
            }
        }
    }
    cleanup();
    return result;
}

} // namespace shardx::exec::vk
