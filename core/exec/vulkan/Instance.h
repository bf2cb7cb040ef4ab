// Instance.h - the Vulkan instance: loader, validation layer, physical devices.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/exec/vulkan/VulkanFunctions.h"

namespace shardx::exec::vk {

/// How to create an Instance.
struct InstanceOptions {
    /// Enable VK_LAYER_KHRONOS_validation. Also enabled when the environment has `SHARDX_VK_VALIDATION=1`.
    bool validation = false;
    /// When validation is asked for but the layer is missing: fail (true) or go on without it (false).
    bool requireValidation = false;
    /// The loader library to open; empty: `libvulkan.so.1`.
    std::string loaderPath;
};

/// What shardx needs to know about one physical device.
struct PhysicalDeviceInfo {
    VkPhysicalDevice handle = VK_NULL_HANDLE;
    std::string name;
    VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
    uint32_t apiVersion = 0;
    uint32_t computeQueueFamily = 0;
    uint32_t timestampValidBits = 0; ///< of the compute queue family; 0: no timestamps
    float timestampPeriodNs = 0;     ///< nanoseconds per timestamp tick
    uint64_t largestDeviceHeap = 0;  ///< bytes of the largest device-local heap
    uint64_t maxStorageBufferRange = 0;
    uint64_t maxTexelBufferElements = 0; ///< 0 without RGBA32F and R32_UINT uniform texel buffers
    uint32_t maxComputeWorkGroupCount[3] = {0, 0, 0};
    uint64_t minStorageBufferOffsetAlignment = 0;
    uint64_t minUniformBufferOffsetAlignment = 0;
    uint8_t uuid[VK_UUID_SIZE] = {};
    /// VK_NV_cooperative_matrix offers 16 x 16 x 16 f16 x f16 + f32 on subgroups of 32, with the features its kernel
    /// needs (16-bit storage, f16 arithmetic, the Vulkan memory model): matmul_coop_f16.comp runs here.
    bool coopMatF16 = false;
    /// The cooperative-matrix shapes the driver lists, "16x16x16 f16*f16+f32" (empty without the extension).
    std::vector<std::string> coopMatShapes;

    /// "llvmpipe (LLVM 15.0.6, 256 bits) [cpu]".
    std::string describe() const;
};

/// A Vulkan instance and its physical devices, in a stable order (discrete, integrated, virtual, CPU, other; then
/// by name and UUID), because the loader's order may change between runs (Mesa's device_select layer reorders).
/// Thread-safe after creation; the validation messages are collected under a mutex.
class Instance {
public:
    /// Loads the loader, creates the instance (Vulkan 1.1), enumerates physical devices.
    /// Errors: no loader, no driver (VK_ERROR_INCOMPATIBLE_DRIVER), no physical device with a compute queue.
    static Expected<std::unique_ptr<Instance>> create(const InstanceOptions& options = {});
    ~Instance();
    Instance(const Instance&) = delete;
    Instance& operator=(const Instance&) = delete;

    const VulkanFunctions& fn() const { return m_fn; }
    VkInstance handle() const { return m_instance; }
    const std::vector<PhysicalDeviceInfo>& physicalDevices() const { return m_physical; }
    bool validationEnabled() const { return m_validation; }

    /// Validation errors and warnings reported so far (empty without validation).
    std::vector<std::string> validationMessages() const;
    /// Number of validation messages of error severity so far.
    int validationErrorCount() const;

    /// What a machine offers, without keeping anything open: tests skip when it is not `Available`.
    enum class Availability { Available, NoLoader, NoDriver };
    static Availability probe(const std::string& loaderPath = {});

    /// True when VK_LAYER_KHRONOS_validation can be loaded through `options.loaderPath`'s loader.
    static bool validationLayerAvailable(const std::string& loaderPath = {});

private:
    Instance() = default;
    static VKAPI_ATTR VkBool32 VKAPI_CALL onDebugMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                         VkDebugUtilsMessageTypeFlagsEXT types,
                                                         const VkDebugUtilsMessengerCallbackDataEXT* data, void* user);

    VulkanFunctions m_fn;
    VkInstance m_instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT m_messenger = VK_NULL_HANDLE;
    bool m_validation = false;
    std::vector<PhysicalDeviceInfo> m_physical;
    mutable std::mutex m_messagesMutex;
    std::vector<std::string> m_messages;
    int m_validationErrors = 0;
};

} // namespace shardx::exec::vk
