// VulkanFunctions.cpp - dlopen of the Vulkan loader and the entry-point table.
#include "core/exec/vulkan/VulkanFunctions.h"

#include <dlfcn.h>

namespace shardx::exec::vk {

Expected<VulkanFunctions> VulkanFunctions::loadGlobal(const std::string& path)
{
    const std::string lib = path.empty() ? "libvulkan.so.1" : path;
    // RTLD_NODELETE-like behaviour by never calling dlclose: see the header.
    void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        return Error{"no Vulkan loader: cannot open " + lib + " (" + (why ? why : "unknown reason") +
                         "); install libvulkan1 (Debian) and a Vulkan driver, e.g. mesa-vulkan-drivers",
                     {}};
    }
    VulkanFunctions f;
    f.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(handle, "vkGetInstanceProcAddr"));
    if (!f.vkGetInstanceProcAddr)
        return Error{"the Vulkan loader " + lib + " has no vkGetInstanceProcAddr", {}};
#define SHARDX_VK_LOAD_GLOBAL(name)                                                                                    \
    f.name = reinterpret_cast<PFN_##name>(f.vkGetInstanceProcAddr(VK_NULL_HANDLE, #name));                             \
    if (!f.name)                                                                                                       \
        return Error{"the Vulkan loader " + lib + " has no " #name " (Vulkan 1.1 or newer is needed)", {}};
    SHARDX_VK_GLOBAL_FUNCTIONS(SHARDX_VK_LOAD_GLOBAL)
#undef SHARDX_VK_LOAD_GLOBAL
    return f;
}

Status VulkanFunctions::loadInstance(VkInstance instance)
{
#define SHARDX_VK_LOAD_INSTANCE(name)                                                                                  \
    name = reinterpret_cast<PFN_##name>(vkGetInstanceProcAddr(instance, #name));                                       \
    if (!name)                                                                                                         \
        return Error{"the Vulkan instance has no entry point " #name, {}};
    SHARDX_VK_INSTANCE_FUNCTIONS(SHARDX_VK_LOAD_INSTANCE)
#undef SHARDX_VK_LOAD_INSTANCE
    return Status::success();
}

const char* vkResultName(VkResult result)
{
    switch (result) {
#define SHARDX_VK_CASE(r)                                                                                              \
    case r: return #r;
        SHARDX_VK_CASE(VK_SUCCESS)
        SHARDX_VK_CASE(VK_NOT_READY)
        SHARDX_VK_CASE(VK_TIMEOUT)
        SHARDX_VK_CASE(VK_INCOMPLETE)
        SHARDX_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
        SHARDX_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        SHARDX_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
        SHARDX_VK_CASE(VK_ERROR_DEVICE_LOST)
        SHARDX_VK_CASE(VK_ERROR_MEMORY_MAP_FAILED)
        SHARDX_VK_CASE(VK_ERROR_LAYER_NOT_PRESENT)
        SHARDX_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
        SHARDX_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
        SHARDX_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
        SHARDX_VK_CASE(VK_ERROR_TOO_MANY_OBJECTS)
        SHARDX_VK_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
        SHARDX_VK_CASE(VK_ERROR_FRAGMENTED_POOL)
        SHARDX_VK_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
        SHARDX_VK_CASE(VK_ERROR_INVALID_SHADER_NV)
        SHARDX_VK_CASE(VK_ERROR_UNKNOWN)
#undef SHARDX_VK_CASE
    default: return "VK_ERROR (unnamed)";
    }
}

Error vkError(const std::string& what, VkResult result)
{
    std::string message = what + ": " + vkResultName(result);
    switch (result) {
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: message += " (out of device memory)"; break;
    case VK_ERROR_OUT_OF_HOST_MEMORY: message += " (out of host memory)"; break;
    case VK_ERROR_DEVICE_LOST: message += " (the device was lost; its results are gone, recreate the device)"; break;
    case VK_ERROR_INCOMPATIBLE_DRIVER:
        message += " (no usable Vulkan driver (ICD); install mesa-vulkan-drivers for lavapipe, or check "
                   "VK_DRIVER_FILES / VK_ICD_FILENAMES)";
        break;
    case VK_ERROR_LAYER_NOT_PRESENT: message += " (install vulkan-validationlayers)"; break;
    case VK_TIMEOUT: message += " (the device did not finish in time)"; break;
    default: break;
    }
    return Error{message, {}};
}

} // namespace shardx::exec::vk
