// VulkanFunctions.h - the Vulkan entry points shardx uses, loaded at run time from the loader library.
#pragma once

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include <string>

#include "core/support/Expected.h"

namespace shardx::exec::vk {

// Entry points resolved before an instance exists.
#define SHARDX_VK_GLOBAL_FUNCTIONS(X)                                                                                  \
    X(vkCreateInstance)                                                                                                \
    X(vkEnumerateInstanceLayerProperties)                                                                              \
    X(vkEnumerateInstanceExtensionProperties)                                                                          \
    X(vkEnumerateInstanceVersion)

// Entry points resolved through vkGetInstanceProcAddr (device functions go through the loader's trampolines,
// which dispatch on the VkDevice, so one table serves every device of the instance).
#define SHARDX_VK_INSTANCE_FUNCTIONS(X)                                                                                \
    X(vkDestroyInstance)                                                                                               \
    X(vkEnumeratePhysicalDevices)                                                                                      \
    X(vkGetPhysicalDeviceProperties)                                                                                   \
    X(vkGetPhysicalDeviceProperties2)                                                                                  \
    X(vkGetPhysicalDeviceFeatures2)                                                                                    \
    X(vkEnumerateDeviceExtensionProperties)                                                                            \
    X(vkGetPhysicalDeviceMemoryProperties)                                                                             \
    X(vkGetPhysicalDeviceFormatProperties)                                                                             \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                                                        \
    X(vkCreateDevice)                                                                                                  \
    X(vkDestroyDevice)                                                                                                 \
    X(vkGetDeviceQueue)                                                                                                \
    X(vkDeviceWaitIdle)                                                                                                \
    X(vkCreateBuffer)                                                                                                  \
    X(vkDestroyBuffer)                                                                                                 \
    X(vkCreateBufferView)                                                                                              \
    X(vkDestroyBufferView)                                                                                             \
    X(vkGetBufferMemoryRequirements)                                                                                   \
    X(vkAllocateMemory)                                                                                                \
    X(vkFreeMemory)                                                                                                    \
    X(vkBindBufferMemory)                                                                                              \
    X(vkMapMemory)                                                                                                     \
    X(vkUnmapMemory)                                                                                                   \
    X(vkFlushMappedMemoryRanges)                                                                                       \
    X(vkInvalidateMappedMemoryRanges)                                                                                  \
    X(vkCreateShaderModule)                                                                                            \
    X(vkDestroyShaderModule)                                                                                           \
    X(vkCreateDescriptorSetLayout)                                                                                     \
    X(vkDestroyDescriptorSetLayout)                                                                                    \
    X(vkCreatePipelineLayout)                                                                                          \
    X(vkDestroyPipelineLayout)                                                                                         \
    X(vkCreateComputePipelines)                                                                                        \
    X(vkDestroyPipeline)                                                                                               \
    X(vkCreateDescriptorPool)                                                                                          \
    X(vkDestroyDescriptorPool)                                                                                         \
    X(vkResetDescriptorPool)                                                                                           \
    X(vkAllocateDescriptorSets)                                                                                        \
    X(vkUpdateDescriptorSets)                                                                                          \
    X(vkCreateCommandPool)                                                                                             \
    X(vkDestroyCommandPool)                                                                                            \
    X(vkAllocateCommandBuffers)                                                                                        \
    X(vkFreeCommandBuffers)                                                                                            \
    X(vkResetCommandBuffer)                                                                                            \
    X(vkBeginCommandBuffer)                                                                                            \
    X(vkEndCommandBuffer)                                                                                              \
    X(vkCmdBindPipeline)                                                                                               \
    X(vkCmdBindDescriptorSets)                                                                                         \
    X(vkCmdDispatch)                                                                                                   \
    X(vkCmdPipelineBarrier)                                                                                            \
    X(vkCmdCopyBuffer)                                                                                                 \
    X(vkCmdFillBuffer)                                                                                                 \
    X(vkCmdResetQueryPool)                                                                                             \
    X(vkCmdWriteTimestamp)                                                                                             \
    X(vkCreateQueryPool)                                                                                               \
    X(vkDestroyQueryPool)                                                                                              \
    X(vkGetQueryPoolResults)                                                                                           \
    X(vkCreateFence)                                                                                                   \
    X(vkDestroyFence)                                                                                                  \
    X(vkResetFences)                                                                                                   \
    X(vkWaitForFences)                                                                                                 \
    X(vkGetFenceStatus)                                                                                                \
    X(vkQueueSubmit)

/// The table of entry points of one loaded Vulkan loader. Device functions are called through the instance-level
/// pointers (loader trampolines); that costs one indirection per call, negligible next to a dispatch.
struct VulkanFunctions {
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
#define SHARDX_VK_DECLARE(name) PFN_##name name = nullptr;
    SHARDX_VK_GLOBAL_FUNCTIONS(SHARDX_VK_DECLARE)
    SHARDX_VK_INSTANCE_FUNCTIONS(SHARDX_VK_DECLARE)
#undef SHARDX_VK_DECLARE

    /// Opens the loader library (`path`, or `libvulkan.so.1` when empty) and resolves the global entry points.
    /// The library stays loaded for the life of the process (unloading a loader with live ICD threads is unsafe).
    /// Errors: no loader library, or one without `vkGetInstanceProcAddr`.
    static Expected<VulkanFunctions> loadGlobal(const std::string& path);

    /// Resolves the instance-level entry points for `instance`. Errors name the first missing entry point.
    Status loadInstance(VkInstance instance);
};

/// `VK_ERROR_OUT_OF_DEVICE_MEMORY` and friends as text (the enumerator's name).
const char* vkResultName(VkResult result);

/// An Error "`what`: VK_ERROR_... (explanation)" for a failed Vulkan call.
Error vkError(const std::string& what, VkResult result);

} // namespace shardx::exec::vk

/// Returns the Error of a failed Vulkan call from the enclosing function (which returns Status or Expected<T>).
#define SHARDX_VK_CHECK(call, what)                                                                                    \
    do {                                                                                                               \
        VkResult shardxVkResult_ = (call);                                                                             \
        if (shardxVkResult_ != VK_SUCCESS)                                                                             \
            return ::shardx::exec::vk::vkError((what), shardxVkResult_);                                               \
    } while (0)

/// Returns the Error of a failed Status from the enclosing function.
#define SHARDX_VK_TRY(expr)                                                                                            \
    do {                                                                                                               \
        ::shardx::Status shardxVkStatus_ = (expr);                                                                     \
        if (!shardxVkStatus_.ok())                                                                                     \
            return shardxVkStatus_.error();                                                                            \
    } while (0)
