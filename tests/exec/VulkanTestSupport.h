// VulkanTestSupport.h - instance and device setup, buffer helpers and tolerances shared by the tst_vulkan* tests.
#pragma once

#include <QtTest>

#include <dlfcn.h>
#include <link.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/exec/vulkan/Device.h"
#include "core/exec/vulkan/Instance.h"
#include "core/support/Float16.h"

namespace shardx::testing {

/// The shared libraries loaded in this process.
inline std::set<std::string> loadedLibraries()
{
    std::set<std::string> names;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
            if (info->dlpi_name && *info->dlpi_name)
                static_cast<std::set<std::string>*>(data)->insert(info->dlpi_name);
            return 0;
        },
        &names);
    return names;
}

/// Drivers allocate a little at load time and never free it (lavapipe: 128 bytes per load). The loader unloads
/// them at vkDestroyInstance, after which LeakSanitizer cannot name the library in its report. Keeping what the
/// instance loaded resident lets .ci/lsan.supp suppress those reports by library, and only those.
inline void keepLibrariesLoadedSince(const std::set<std::string>& before)
{
    for (const std::string& name : loadedLibraries()) {
        if (!before.count(name))
            dlopen(name.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    }
}

/// Creates the tests' instance: validation on whenever the layer is installed. Returns nullptr with `skipReason`
/// set (the caller QSKIPs) only when there is no Vulkan loader or driver at all; any other failure returns nullptr
/// with an empty reason and fails the test.
inline std::unique_ptr<exec::vk::Instance> createTestInstance(QString* skipReason)
{
    using exec::vk::Instance;
    std::set<std::string> before = loadedLibraries();
    exec::vk::InstanceOptions options;
    options.validation = Instance::validationLayerAvailable();
    auto instance = Instance::create(options);
    if (!instance) {
        Instance::Availability a = Instance::probe();
        if (a != Instance::Availability::Available)
            *skipReason = a == Instance::Availability::NoLoader ? "no Vulkan loader" : "no Vulkan driver (ICD)";
        else
            qWarning("%s", instance.error().message.c_str());
        return nullptr;
    }
    keepLibrariesLoadedSince(before);
    return std::move(*instance);
}

/// Fails the current test with the error of `s` (a Status or Expected) when it failed.
#define SHARDX_VK_VERIFY(expr)                                                                                         \
    do {                                                                                                               \
        auto&& shardxCheck_ = (expr);                                                                                  \
        if (!shardxCheck_.ok())                                                                                        \
            QFAIL(shardxCheck_.error().message.c_str());                                                               \
    } while (0)

/// Prints every validation message and checks there was no validation error.
inline bool noValidationErrors(const exec::vk::Instance& instance)
{
    for (const std::string& m : instance.validationMessages())
        qWarning("validation: %s", m.c_str());
    return instance.validationErrorCount() == 0;
}

/// A device buffer holding `values`.
template <typename T>
std::unique_ptr<exec::vk::Buffer> deviceBuffer(exec::vk::Device& device, const std::vector<T>& values)
{
    auto b = device.createBuffer(values.size() * sizeof(T));
    if (!b)
        qFatal("createBuffer: %s", b.error().message.c_str());
    auto s = device.upload(**b, values.data(), values.size() * sizeof(T));
    if (!s)
        qFatal("upload: %s", s.error().message.c_str());
    return std::move(*b);
}

/// An uninitialised device buffer of `count` elements of T (filled with a marker pattern, so unwritten elements
/// show).
template <typename T> std::unique_ptr<exec::vk::Buffer> resultBuffer(exec::vk::Device& device, size_t count)
{
    std::vector<uint8_t> marker(std::max<size_t>(count * sizeof(T), 1), 0xA5);
    auto b = device.createBuffer(marker.size());
    if (!b)
        qFatal("createBuffer: %s", b.error().message.c_str());
    auto s = device.upload(**b, marker.data(), marker.size());
    if (!s)
        qFatal("upload: %s", s.error().message.c_str());
    return std::move(*b);
}

template <typename T> std::vector<T> readBack(exec::vk::Device& device, const exec::vk::Buffer& buffer, size_t count)
{
    std::vector<T> out(count);
    auto s = device.download(buffer, out.data(), count * sizeof(T));
    if (!s)
        qFatal("download: %s", s.error().message.c_str());
    return out;
}

inline std::vector<float> randomFloats(size_t n, float lo, float hi, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (float& x : v)
        x = dist(rng);
    return v;
}

inline std::vector<int32_t> randomInts(size_t n, int32_t lo, int32_t hi, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int32_t> dist(lo, hi);
    std::vector<int32_t> v(n);
    for (int32_t& x : v)
        x = dist(rng);
    return v;
}

/// Distance in units in the last place between two finite floats of the same sign region.
inline int64_t ulpDistance(float a, float b)
{
    auto ordered = [](float f) {
        int32_t i = std::bit_cast<int32_t>(f);
        return i < 0 ? int64_t(INT32_MIN) - i : int64_t(i);
    };
    return std::llabs(ordered(a) - ordered(b));
}

inline bool sameBits(float a, float b) { return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b); }

} // namespace shardx::testing
