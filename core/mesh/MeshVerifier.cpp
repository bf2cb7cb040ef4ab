// Mesh verification (SDY.md 1.1).
#include "core/mesh/MeshVerifier.h"

#include <algorithm>
#include <set>

#include "core/support/Arithmetic.h"
#include "core/support/StringUtil.h"

namespace shardx {

std::optional<std::string> verifyMesh(const std::vector<MeshAxis>& axes, const std::vector<int64_t>& deviceIds)
{
    std::set<std::string> names;
    int64_t total = 1;
    for (const MeshAxis& a : axes) {
        if (a.size < 1)
            return "axis size must be at least 1, got: " + std::to_string(a.size) + " for axis " + quoteString(a.name);
        if (!names.insert(a.name).second)
            return "duplicate axis name: " + quoteString(a.name);
        const std::optional<int64_t> product = checkedMul(total, a.size);
        if (!product)
            return "total product of axis sizes does not fit in 64 bits (at axis " + quoteString(a.name) + ")";
        total = *product;
    }
    for (int64_t id : deviceIds)
        if (id < 0)
            return "device id must be non-negative, got: " + std::to_string(id);
    if (axes.empty()) {
        if (deviceIds.size() > 1)
            return "a mesh without axes can have at most one device id, got: " + std::to_string(deviceIds.size());
        return std::nullopt;
    }
    if (deviceIds.empty())
        return std::nullopt;
    if (static_cast<int64_t>(deviceIds.size()) != total)
        return "total product of axis sizes must match the number of device ids: " + std::to_string(total) +
               " != " + std::to_string(deviceIds.size());
    std::vector<int64_t> sorted = deviceIds;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i)
        if (sorted[i] != static_cast<int64_t>(i))
            return "sorted device ids must be iota(product of axis sizes), i.e. every id in [0, " +
                   std::to_string(total) + ") exactly once";
    return std::nullopt;
}

} // namespace shardx
