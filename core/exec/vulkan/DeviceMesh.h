// DeviceMesh.h - logical mesh devices mapped onto physical Vulkan devices.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/exec/vulkan/Device.h"

namespace shardx::exec::vk {

/// How to build a DeviceMesh.
struct MeshOptions {
    /// Number of logical devices (the mesh's device ids 0..n-1).
    int logicalDevices = 1;
    /// Physical devices to use, as indices into `Instance::physicalDevices()`. Empty: the `SHARDX_VK_DEVICES`
    /// environment variable (comma list of indices), else every physical device.
    std::vector<uint32_t> physicalDevices;
    /// Explicit logical -> physical map (indices into `Instance::physicalDevices()`), one per logical device;
    /// overrides the round-robin spread over `physicalDevices` when not empty.
    std::vector<uint32_t> logicalToPhysical;
    /// Options of every logical device (the label is set per device).
    DeviceOptions device;
};

/// Parses "0,2,3" (physical device indices, each below `physicalCount`, no repeats).
Expected<std::vector<uint32_t>> parseDeviceList(const std::string& text, size_t physicalCount);

/// Logical device i runs on physical device `physicalOf(i)`; several logical devices may share one physical device.
/// Each logical device is its own `Device` (own VkDevice and queue), so logical devices sharing a GPU still run
/// concurrently with no shared queue to synchronise.
class DeviceMesh {
public:
    static Expected<std::unique_ptr<DeviceMesh>> create(const Instance& instance, const MeshOptions& options);

    int size() const { return int(m_devices.size()); }
    Device& device(int logical) { return *m_devices.at(size_t(logical)); }
    uint32_t physicalOf(int logical) const { return m_devices.at(size_t(logical))->physicalIndex(); }

    /// Runs `fn(logical)` for every logical device, one thread each, concurrently; waits for all. Returns the error
    /// of the lowest failing logical device, naming it.
    Status forEachDevice(const std::function<Status(int)>& fn);

private:
    DeviceMesh() = default;
    std::vector<std::unique_ptr<Device>> m_devices;
};

} // namespace shardx::exec::vk
