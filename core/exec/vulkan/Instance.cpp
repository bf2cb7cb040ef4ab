// Instance.cpp - instance creation, validation messages, physical-device enumeration.
#include "core/exec/vulkan/Instance.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <tuple>

namespace shardx::exec::vk {

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

bool envFlag(const char* name)
{
    const char* v = std::getenv(name);
    return v && std::strcmp(v, "1") == 0;
}

bool hasLayer(const VulkanFunctions& fn, const char* layer)
{
    uint32_t count = 0;
    if (fn.vkEnumerateInstanceLayerProperties(&count, nullptr) != VK_SUCCESS)
        return false;
    std::vector<VkLayerProperties> layers(count);
    if (fn.vkEnumerateInstanceLayerProperties(&count, layers.data()) != VK_SUCCESS)
        return false;
    return std::any_of(layers.begin(), layers.end(),
                       [&](const VkLayerProperties& l) { return std::strcmp(l.layerName, layer) == 0; });
}

bool hasInstanceExtension(const VulkanFunctions& fn, const char* extension)
{
    uint32_t count = 0;
    if (fn.vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr) != VK_SUCCESS)
        return false;
    std::vector<VkExtensionProperties> exts(count);
    if (fn.vkEnumerateInstanceExtensionProperties(nullptr, &count, exts.data()) != VK_SUCCESS)
        return false;
    return std::any_of(exts.begin(), exts.end(),
                       [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, extension) == 0; });
}

int deviceTypeRank(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
    }
}

const char* deviceTypeName(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
    }
}

} // namespace

std::string PhysicalDeviceInfo::describe() const { return name + " [" + deviceTypeName(type) + "]"; }

bool Instance::validationLayerAvailable(const std::string& loaderPath)
{
    Expected<VulkanFunctions> fn = VulkanFunctions::loadGlobal(loaderPath);
    return fn.ok() && hasLayer(*fn, kValidationLayer);
}

Instance::Availability Instance::probe(const std::string& loaderPath)
{
    if (!VulkanFunctions::loadGlobal(loaderPath))
        return Availability::NoLoader;
    InstanceOptions options;
    options.loaderPath = loaderPath;
    // Without validation: probing must not depend on the layer being installed.
    Expected<std::unique_ptr<Instance>> instance = create(options);
    return instance ? Availability::Available : Availability::NoDriver;
}

namespace {

const char* coopComponentName(VkComponentTypeNV t)
{
    switch (t) {
    case VK_COMPONENT_TYPE_FLOAT16_NV: return "f16";
    case VK_COMPONENT_TYPE_FLOAT32_NV: return "f32";
    case VK_COMPONENT_TYPE_FLOAT64_NV: return "f64";
    case VK_COMPONENT_TYPE_SINT8_NV: return "i8";
    case VK_COMPONENT_TYPE_UINT8_NV: return "ui8";
    case VK_COMPONENT_TYPE_SINT32_NV: return "i32";
    case VK_COMPONENT_TYPE_UINT32_NV: return "ui32";
    default: return "?";
    }
}

/// Fills `d.coopMatF16` and `d.coopMatShapes`: the device must list VK_NV_cooperative_matrix and the extensions
/// its kernel needs, offer their features, and list 16 x 16 x 16 f16 x f16 + f32 at subgroup scope.
void detectCooperativeMatrix(const VulkanFunctions& fn, VkInstance instance, PhysicalDeviceInfo& d)
{
    uint32_t count = 0;
    if (fn.vkEnumerateDeviceExtensionProperties(d.handle, nullptr, &count, nullptr) != VK_SUCCESS)
        return;
    std::vector<VkExtensionProperties> exts(count);
    if (fn.vkEnumerateDeviceExtensionProperties(d.handle, nullptr, &count, exts.data()) != VK_SUCCESS)
        return;
    auto has = [&](const char* name) {
        for (uint32_t i = 0; i < count; ++i)
            if (std::strcmp(exts[i].extensionName, name) == 0)
                return true;
        return false;
    };
    if (!has(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME) || !has(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME) ||
        !has(VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME))
        return;
    auto properties = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
        fn.vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
    if (!properties)
        return;
    uint32_t n = 0;
    if (properties(d.handle, &n, nullptr) != VK_SUCCESS)
        return;
    std::vector<VkCooperativeMatrixPropertiesNV> shapes(n, {VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV});
    if (properties(d.handle, &n, shapes.data()) != VK_SUCCESS)
        return;
    bool shape = false;
    for (uint32_t i = 0; i < n; ++i) {
        const VkCooperativeMatrixPropertiesNV& s = shapes[i];
        d.coopMatShapes.push_back(std::to_string(s.MSize) + "x" + std::to_string(s.NSize) + "x" +
                                  std::to_string(s.KSize) + " " + coopComponentName(s.AType) + "*" +
                                  coopComponentName(s.BType) + "+" + coopComponentName(s.CType) +
                                  (s.scope == VK_SCOPE_SUBGROUP_NV ? "" : " (not subgroup)"));
        shape = shape || (s.MSize == 16 && s.NSize == 16 && s.KSize == 16 && s.AType == VK_COMPONENT_TYPE_FLOAT16_NV &&
                          s.BType == VK_COMPONENT_TYPE_FLOAT16_NV && s.CType == VK_COMPONENT_TYPE_FLOAT32_NV &&
                          s.DType == VK_COMPONENT_TYPE_FLOAT32_NV && s.scope == VK_SCOPE_SUBGROUP_NV);
    }
    VkPhysicalDeviceCooperativeMatrixFeaturesNV coop{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
    VkPhysicalDeviceShaderFloat16Int8Features f16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
    VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    VkPhysicalDeviceVulkanMemoryModelFeatures model{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    coop.pNext = &f16;
    f16.pNext = &storage16;
    storage16.pNext = &model;
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &coop;
    fn.vkGetPhysicalDeviceFeatures2(d.handle, &features);
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &subgroup;
    fn.vkGetPhysicalDeviceProperties2(d.handle, &props);
    d.coopMatF16 = shape && coop.cooperativeMatrix && f16.shaderFloat16 && storage16.storageBuffer16BitAccess &&
                   model.vulkanMemoryModel && subgroup.subgroupSize == 32 &&
                   (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                   (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT);
}

} // namespace

Expected<std::unique_ptr<Instance>> Instance::create(const InstanceOptions& options)
{
    Expected<VulkanFunctions> loaded = VulkanFunctions::loadGlobal(options.loaderPath);
    if (!loaded)
        return loaded.error();
    std::unique_ptr<Instance> self(new Instance());
    self->m_fn = *loaded;
    const VulkanFunctions& fn = self->m_fn;

    uint32_t loaderVersion = VK_API_VERSION_1_0;
    if (fn.vkEnumerateInstanceVersion(&loaderVersion) != VK_SUCCESS || loaderVersion < VK_API_VERSION_1_1)
        return Error{"the Vulkan loader only offers Vulkan 1.0; shardx needs 1.1", {}};

    bool wantValidation = options.validation || envFlag("SHARDX_VK_VALIDATION");
    std::vector<const char*> layers;
    std::vector<const char*> extensions;
    if (wantValidation) {
        if (hasLayer(fn, kValidationLayer)) {
            layers.push_back(kValidationLayer);
            self->m_validation = true;
        } else if (options.requireValidation) {
            return Error{std::string("validation was asked for but ") + kValidationLayer +
                             " is not installed (Debian: vulkan-validationlayers)",
                         {}};
        }
    }
    bool debugUtils = self->m_validation && hasInstanceExtension(fn, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (debugUtils)
        extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);

    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "shardx";
    app.pEngineName = "shardx";
    app.apiVersion = VK_API_VERSION_1_1;
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    info.enabledLayerCount = uint32_t(layers.size());
    info.ppEnabledLayerNames = layers.data();
    info.enabledExtensionCount = uint32_t(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    // Messages during vkCreateInstance itself go through the chained messenger.
    VkDebugUtilsMessengerCreateInfoEXT messengerInfo{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    messengerInfo.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messengerInfo.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messengerInfo.pfnUserCallback = &Instance::onDebugMessage;
    messengerInfo.pUserData = self.get();
    if (debugUtils)
        info.pNext = &messengerInfo;

    VkResult r = fn.vkCreateInstance(&info, nullptr, &self->m_instance);
    if (r != VK_SUCCESS) {
        self->m_instance = VK_NULL_HANDLE;
        return vkError("vkCreateInstance", r);
    }
    SHARDX_VK_TRY(self->m_fn.loadInstance(self->m_instance));

    if (debugUtils) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            fn.vkGetInstanceProcAddr(self->m_instance, "vkCreateDebugUtilsMessengerEXT"));
        if (create)
            SHARDX_VK_CHECK(create(self->m_instance, &messengerInfo, nullptr, &self->m_messenger),
                            "vkCreateDebugUtilsMessengerEXT");
    }

    uint32_t count = 0;
    SHARDX_VK_CHECK(fn.vkEnumeratePhysicalDevices(self->m_instance, &count, nullptr), "vkEnumeratePhysicalDevices");
    std::vector<VkPhysicalDevice> handles(count);
    SHARDX_VK_CHECK(fn.vkEnumeratePhysicalDevices(self->m_instance, &count, handles.data()),
                    "vkEnumeratePhysicalDevices");
    handles.resize(count);
    for (VkPhysicalDevice h : handles) {
        VkPhysicalDeviceIDProperties ids{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
        VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
        props2.pNext = &ids;
        fn.vkGetPhysicalDeviceProperties2(h, &props2);
        const VkPhysicalDeviceProperties& props = props2.properties;
        if (props.apiVersion < VK_API_VERSION_1_1)
            continue;
        uint32_t familyCount = 0;
        fn.vkGetPhysicalDeviceQueueFamilyProperties(h, &familyCount, nullptr);
        std::vector<VkQueueFamilyProperties> families(familyCount);
        fn.vkGetPhysicalDeviceQueueFamilyProperties(h, &familyCount, families.data());
        // Prefer a compute-only family (async compute on GPUs), else any family with compute.
        int chosen = -1;
        for (uint32_t i = 0; i < familyCount; ++i) {
            bool compute = families[i].queueFlags & VK_QUEUE_COMPUTE_BIT;
            bool graphics = families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT;
            if (compute && !graphics) {
                chosen = int(i);
                break;
            }
            if (compute && chosen < 0)
                chosen = int(i);
        }
        if (chosen < 0)
            continue;
        PhysicalDeviceInfo d;
        d.handle = h;
        d.name = props.deviceName;
        d.type = props.deviceType;
        d.apiVersion = props.apiVersion;
        d.computeQueueFamily = uint32_t(chosen);
        d.timestampValidBits = families[chosen].timestampValidBits;
        d.timestampPeriodNs = props.limits.timestampPeriod;
        d.maxStorageBufferRange = props.limits.maxStorageBufferRange;
        VkFormatProperties rgba32f;
        fn.vkGetPhysicalDeviceFormatProperties(h, VK_FORMAT_R32G32B32A32_SFLOAT, &rgba32f);
        VkFormatProperties r32ui;
        fn.vkGetPhysicalDeviceFormatProperties(h, VK_FORMAT_R32_UINT, &r32ui);
        if ((rgba32f.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT) &&
            (r32ui.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT))
            d.maxTexelBufferElements = props.limits.maxTexelBufferElements;
        d.minStorageBufferOffsetAlignment = props.limits.minStorageBufferOffsetAlignment;
        d.minUniformBufferOffsetAlignment = props.limits.minUniformBufferOffsetAlignment;
        for (int i = 0; i < 3; ++i)
            d.maxComputeWorkGroupCount[i] = props.limits.maxComputeWorkGroupCount[i];
        std::memcpy(d.uuid, ids.deviceUUID, VK_UUID_SIZE);
        detectCooperativeMatrix(fn, self->m_instance, d);
        VkPhysicalDeviceMemoryProperties mem;
        fn.vkGetPhysicalDeviceMemoryProperties(h, &mem);
        for (uint32_t i = 0; i < mem.memoryHeapCount; ++i) {
            if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
                d.largestDeviceHeap = std::max<uint64_t>(d.largestDeviceHeap, mem.memoryHeaps[i].size);
        }
        self->m_physical.push_back(std::move(d));
    }
    auto key = [](const PhysicalDeviceInfo& d) { return std::make_tuple(deviceTypeRank(d.type), d.name); };
    std::stable_sort(self->m_physical.begin(), self->m_physical.end(),
                     [&](const PhysicalDeviceInfo& a, const PhysicalDeviceInfo& b) {
                         if (key(a) != key(b))
                             return key(a) < key(b);
                         return std::memcmp(a.uuid, b.uuid, VK_UUID_SIZE) < 0;
                     });
    if (self->m_physical.empty())
        return Error{"no Vulkan device with a compute queue (and Vulkan 1.1) was found; install a driver, e.g. "
                     "mesa-vulkan-drivers for lavapipe, or check VK_DRIVER_FILES",
                     {}};
    return self;
}

Instance::~Instance()
{
    if (m_messenger != VK_NULL_HANDLE) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            m_fn.vkGetInstanceProcAddr(m_instance, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy)
            destroy(m_instance, m_messenger, nullptr);
    }
    if (m_instance != VK_NULL_HANDLE)
        m_fn.vkDestroyInstance(m_instance, nullptr);
}

VKAPI_ATTR VkBool32 VKAPI_CALL Instance::onDebugMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                        VkDebugUtilsMessageTypeFlagsEXT,
                                                        const VkDebugUtilsMessengerCallbackDataEXT* data, void* user)
{
    auto* self = static_cast<Instance*>(user);
    bool error = severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    std::lock_guard<std::mutex> lock(self->m_messagesMutex);
    self->m_messages.push_back(std::string(error ? "error: " : "warning: ") +
                               (data && data->pMessage ? data->pMessage : ""));
    if (error)
        ++self->m_validationErrors;
    return VK_FALSE;
}

std::vector<std::string> Instance::validationMessages() const
{
    std::lock_guard<std::mutex> lock(m_messagesMutex);
    return m_messages;
}

int Instance::validationErrorCount() const
{
    std::lock_guard<std::mutex> lock(m_messagesMutex);
    return m_validationErrors;
}

} // namespace shardx::exec::vk
