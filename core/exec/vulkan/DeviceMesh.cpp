// DeviceMesh.cpp - device selection and the logical -> physical map.
#include "core/exec/vulkan/DeviceMesh.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace shardx::exec::vk {

Expected<std::vector<uint32_t>> parseDeviceList(const std::string& text, size_t physicalCount)
{
    std::vector<uint32_t> result;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t comma = text.find(',', pos);
        std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 6)
            return Error{"device list '" + text + "': '" + item + "' is not a device index", {}};
        uint32_t index = uint32_t(std::stoul(item));
        if (index >= physicalCount)
            return Error{"device list '" + text + "': there is no Vulkan device " + item + " (" +
                             std::to_string(physicalCount) + " found)",
                         {}};
        if (std::find(result.begin(), result.end(), index) != result.end())
            return Error{"device list '" + text + "': device " + item + " is listed twice", {}};
        result.push_back(index);
        if (comma == std::string::npos)
            break;
        pos = comma + 1;
    }
    return result;
}

Expected<std::unique_ptr<DeviceMesh>> DeviceMesh::create(const Instance& instance, const MeshOptions& options)
{
    const size_t physicalCount = instance.physicalDevices().size();
    if (options.logicalDevices < 1)
        return Error{"a device mesh needs at least one logical device", {}};
    std::vector<uint32_t> map = options.logicalToPhysical;
    if (map.empty()) {
        std::vector<uint32_t> chosen = options.physicalDevices;
        if (chosen.empty()) {
            if (const char* env = std::getenv("SHARDX_VK_DEVICES"); env && *env) {
                Expected<std::vector<uint32_t>> parsed = parseDeviceList(env, physicalCount);
                if (!parsed)
                    return Error{"SHARDX_VK_DEVICES: " + parsed.error().message, {}};
                chosen = *parsed;
            }
        }
        if (chosen.empty()) {
            for (uint32_t i = 0; i < physicalCount; ++i)
                chosen.push_back(i);
        }
        for (int i = 0; i < options.logicalDevices; ++i)
            map.push_back(chosen[size_t(i) % chosen.size()]);
    }
    if (map.size() != size_t(options.logicalDevices))
        return Error{"the logical -> physical map has " + std::to_string(map.size()) + " entries for " +
                         std::to_string(options.logicalDevices) + " logical devices",
                     {}};
    std::unique_ptr<DeviceMesh> mesh(new DeviceMesh());
    for (int i = 0; i < options.logicalDevices; ++i) {
        if (map[i] >= physicalCount)
            return Error{"logical device " + std::to_string(i) + " maps to Vulkan device " + std::to_string(map[i]) +
                             ", but only " + std::to_string(physicalCount) + " exist",
                         {}};
        DeviceOptions deviceOptions = options.device;
        deviceOptions.label = "logical device " + std::to_string(i);
        Expected<std::unique_ptr<Device>> device = Device::create(instance, map[i], deviceOptions);
        if (!device)
            return device.error();
        mesh->m_devices.push_back(std::move(*device));
    }
    return mesh;
}

Status DeviceMesh::forEachDevice(const std::function<Status(int)>& fn)
{
    std::vector<Status> results(m_devices.size());
    std::vector<std::thread> threads;
    threads.reserve(m_devices.size());
    for (size_t i = 0; i < m_devices.size(); ++i)
        threads.emplace_back([&, i]() { results[i] = fn(int(i)); });
    for (std::thread& t : threads)
        t.join();
    for (size_t i = 0; i < results.size(); ++i) {
        if (!results[i])
            return Error{"logical device " + std::to_string(i) + ": " + results[i].error().message, {}};
    }
    return Status::success();
}

} // namespace shardx::exec::vk
