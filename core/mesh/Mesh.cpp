// Mesh: named axes and device order.
#include "core/mesh/Mesh.h"

#include "core/support/Arithmetic.h"
#include "core/support/StringUtil.h"

namespace shardx {

Mesh::Mesh(std::vector<MeshAxis> axes, std::vector<int64_t> deviceIds)
    : m_axes(std::move(axes)), m_deviceIds(std::move(deviceIds))
{
    if (!m_axes.empty() && !m_deviceIds.empty()) {
        bool iota = true;
        for (size_t i = 0; i < m_deviceIds.size(); ++i)
            if (m_deviceIds[i] != static_cast<int64_t>(i)) {
                iota = false;
                break;
            }
        if (iota && static_cast<int64_t>(m_deviceIds.size()) == totalSize())
            m_deviceIds.clear();
    }
}

int64_t Mesh::totalSize() const
{
    int64_t n = 1;
    for (const MeshAxis& a : m_axes)
        n = saturatingMul(n, a.size);
    return n;
}

std::optional<int64_t> Mesh::axisSize(const std::string& name) const
{
    int i = axisIndex(name);
    if (i < 0)
        return std::nullopt;
    return m_axes[i].size;
}

int Mesh::axisIndex(const std::string& name) const
{
    for (size_t i = 0; i < m_axes.size(); ++i)
        if (m_axes[i].name == name)
            return static_cast<int>(i);
    return -1;
}

int64_t Mesh::deviceIdAt(int64_t i) const
{
    if (!m_deviceIds.empty() && i >= 0 && i < static_cast<int64_t>(m_deviceIds.size()))
        return m_deviceIds[i];
    return i;
}

std::vector<int64_t> Mesh::allDeviceIds() const
{
    if (!m_deviceIds.empty())
        return m_deviceIds;
    std::vector<int64_t> ids(static_cast<size_t>(totalSize()));
    for (size_t i = 0; i < ids.size(); ++i)
        ids[i] = static_cast<int64_t>(i);
    return ids;
}

bool Mesh::equalsIgnoringDeviceIds(const Mesh& o) const
{
    if (isMaximal() != o.isMaximal())
        return false;
    return m_axes == o.m_axes;
}

std::string Mesh::toString() const
{
    std::string s = "<[";
    for (size_t i = 0; i < m_axes.size(); ++i) {
        if (i)
            s += ", ";
        s += quoteString(m_axes[i].name) + "=" + std::to_string(m_axes[i].size);
    }
    s += ']';
    if (!m_deviceIds.empty()) {
        s += ", device_ids=[";
        for (size_t i = 0; i < m_deviceIds.size(); ++i) {
            if (i)
                s += ", ";
            s += std::to_string(m_deviceIds[i]);
        }
        s += ']';
    }
    s += '>';
    return s;
}

} // namespace shardx
