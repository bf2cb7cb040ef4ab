// DeviceLayout: device <-> mesh coordinates.
#include "core/mesh/DeviceLayout.h"

namespace shardx {

DeviceLayout::DeviceLayout(const Mesh& mesh) : m_mesh(mesh)
{
    if (mesh.isMaximal())
        m_ids = mesh.deviceIds();
    else
        m_ids = mesh.allDeviceIds();
    const auto& axes = mesh.axes();
    m_strides.assign(axes.size(), 1);
    for (int i = static_cast<int>(axes.size()) - 2; i >= 0; --i)
        m_strides[i] = m_strides[i + 1] * axes[i + 1].size;
    for (size_t p = 0; p < m_ids.size(); ++p)
        m_posOfId.emplace(m_ids[p], static_cast<int64_t>(p));
}

std::optional<int64_t> DeviceLayout::positionOf(int64_t deviceId) const
{
    auto it = m_posOfId.find(deviceId);
    if (it == m_posOfId.end())
        return std::nullopt;
    return it->second;
}

std::vector<int64_t> DeviceLayout::coordsOf(int64_t pos) const
{
    const auto& axes = m_mesh.axes();
    std::vector<int64_t> c(axes.size());
    for (size_t i = 0; i < axes.size(); ++i)
        c[i] = axes[i].size > 0 ? (pos / m_strides[i]) % axes[i].size : 0;
    return c;
}

int64_t DeviceLayout::positionOfCoords(const std::vector<int64_t>& coords) const
{
    int64_t p = 0;
    for (size_t i = 0; i < coords.size() && i < m_strides.size(); ++i)
        p += coords[i] * m_strides[i];
    return p;
}

std::optional<std::vector<int64_t>> DeviceLayout::coordsOfDevice(int64_t deviceId) const
{
    std::optional<int64_t> p = positionOf(deviceId);
    if (!p)
        return std::nullopt;
    return coordsOf(*p);
}

int64_t DeviceLayout::axisCoord(int64_t pos, const AxisRef& axis) const
{
    int i = m_mesh.axisIndex(axis.name);
    if (i < 0)
        return 0;
    const int64_t size = m_mesh.axes()[i].size;
    int64_t c = size > 0 ? (pos / m_strides[i]) % size : 0;
    // The pre-size counts the sub-axes to the left (major side): "x":(m)k of an axis of
    // size n has stride n / (m * k) inside the axis coordinate.
    if (axis.sub && axis.sub->preSize > 0 && axis.sub->size > 0 && axis.sub->nextPreSize() <= size)
        c = (c / (size / axis.sub->nextPreSize())) % axis.sub->size;
    return c;
}

int64_t DeviceLayout::indexAlong(int64_t pos, const std::vector<AxisRef>& axes) const
{
    int64_t idx = 0;
    for (const AxisRef& a : axes)
        idx = idx * a.size(m_mesh) + axisCoord(pos, a);
    return idx;
}

} // namespace shardx
