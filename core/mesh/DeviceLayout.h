// DeviceLayout: the device <-> mesh coordinate mapping of a mesh (row-major, device_ids honored).
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/mesh/AxisRef.h"
#include "core/mesh/Mesh.h"

namespace shardx {

/// Maps between linear mesh positions, per-axis coordinates and device ids.
///
/// A mesh with axes `a0..ak` (major to minor) lays out its devices row-major: the device at
/// linear position `p` has coordinates `(p / stride_i) % size_i`, with `stride_k = 1`. The
/// device id at position `p` is `device_ids[p]` (or `p` when the mesh has none). An axis-less
/// mesh has one position (maximal: its single device id; empty: device 0).
class DeviceLayout {
public:
    explicit DeviceLayout(const Mesh& mesh);

    const Mesh& mesh() const { return m_mesh; }
    /// Number of devices (positions) of the mesh.
    int64_t numDevices() const { return static_cast<int64_t>(m_ids.size()); }
    /// Device ids in mesh (position) order.
    const std::vector<int64_t>& deviceIds() const { return m_ids; }

    /// Device id at linear position `pos`.
    int64_t deviceAt(int64_t pos) const { return m_ids[static_cast<size_t>(pos)]; }
    /// Linear position of `deviceId`, or nullopt when it is not in the mesh.
    std::optional<int64_t> positionOf(int64_t deviceId) const;

    /// Coordinates (one per mesh axis, major to minor) of linear position `pos`.
    std::vector<int64_t> coordsOf(int64_t pos) const;
    /// Linear position of `coords` (one per mesh axis).
    int64_t positionOfCoords(const std::vector<int64_t>& coords) const;
    /// Coordinates of a device id, or nullopt when it is not in the mesh.
    std::optional<std::vector<int64_t>> coordsOfDevice(int64_t deviceId) const;

    /// Coordinate of position `pos` along `axis`: the axis coordinate `c` for a full axis; for
    /// a sub-axis `"x":(pre)size` of an axis of size `n`, `(c / (n / (pre * size))) % size`
    /// (the pre-size counts the sub-axes on the major side, so `"x":(1)2` followed by
    /// `"x":(2)(n/2)` indexes exactly like `"x"`). 0 for an unknown axis.
    int64_t axisCoord(int64_t pos, const AxisRef& axis) const;
    /// Mixed-radix index of position `pos` along `axes` (major to minor): the shard index
    /// of a dimension sharded by `axes`. 0 for an empty list.
    int64_t indexAlong(int64_t pos, const std::vector<AxisRef>& axes) const;

private:
    Mesh m_mesh;
    std::vector<int64_t> m_ids;
    std::vector<int64_t> m_strides;
    std::unordered_map<int64_t, int64_t> m_posOfId;
};

} // namespace shardx
