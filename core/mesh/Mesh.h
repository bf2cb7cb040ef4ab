// Mesh: named axes (major to minor) and an optional device order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardx {

/// One named axis `"name"=size` of a mesh.
struct MeshAxis {
    std::string name;
    int64_t size = 1;
    bool operator==(const MeshAxis& o) const = default;
};

/// A device mesh (SDY.md 1.1). Empty: no axes and no ids; maximal: no axes and one id.
/// Devices (iota 0..N-1, or `deviceIds`) are laid out row-major in the axis shape.
class Mesh {
public:
    Mesh() = default;
    /// Builds a mesh as Shardy does: identity device ids on a mesh with axes are dropped.
    Mesh(std::vector<MeshAxis> axes, std::vector<int64_t> deviceIds = {});

    const std::vector<MeshAxis>& axes() const { return m_axes; }
    const std::vector<int64_t>& deviceIds() const { return m_deviceIds; }

    bool isEmpty() const { return m_axes.empty() && m_deviceIds.empty(); }
    bool isMaximal() const { return m_axes.empty() && m_deviceIds.size() == 1; }
    /// Product of the axis sizes (1 for an axis-less mesh); INT64_MAX when it does not fit, which
    /// verifyMesh refuses.
    int64_t totalSize() const;
    /// Size of the axis named `name`, or nullopt.
    std::optional<int64_t> axisSize(const std::string& name) const;
    /// Position of the axis named `name`, or -1.
    int axisIndex(const std::string& name) const;
    bool hasAxis(const std::string& name) const { return axisIndex(name) >= 0; }

    /// Device id at linear position `i` of the mesh (row-major over the axes).
    int64_t deviceIdAt(int64_t i) const;
    /// The device ids in mesh order (iota when none were given).
    std::vector<int64_t> allDeviceIds() const;

    bool operator==(const Mesh& o) const = default;
    /// Compares only the axis lists (both or neither maximal).
    bool equalsIgnoringDeviceIds(const Mesh& o) const;

    /// Body text: `<["a"=2, "b"=4], device_ids=[1, 0]>`.
    std::string toString() const;

private:
    std::vector<MeshAxis> m_axes;
    std::vector<int64_t> m_deviceIds;
};

} // namespace shardx
