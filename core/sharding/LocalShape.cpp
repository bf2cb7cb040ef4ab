// LocalShape: per-device shards of a sharded tensor.
#include "core/sharding/LocalShape.h"

#include <algorithm>
#include <map>

#include "core/mesh/DeviceLayout.h"

namespace shardx {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return b > 0 ? (a + b - 1) / b : a; }

} // namespace

const DeviceShard* ShardedLayout::shardOfDevice(int64_t deviceId) const
{
    for (const DeviceShard& d : devices)
        if (d.deviceId == deviceId)
            return &d;
    return nullptr;
}

int64_t ShardedLayout::paddingOf(const DeviceShard& shard, size_t dim) const
{
    if (dim >= localShape.size() || localShape[dim] == kDynamicSize)
        return 0;
    return localShape[dim] - shard.validExtent[dim];
}

bool ShardedLayout::holdsPadding(const DeviceShard& shard) const
{
    for (size_t i = 0; i < localShape.size(); ++i)
        if (paddingOf(shard, i) > 0)
            return true;
    return false;
}

std::vector<int64_t> ShardedLayout::replicasOf(int64_t deviceId) const
{
    const DeviceShard* s = shardOfDevice(deviceId);
    if (!s)
        return {};
    return replicationGroups[static_cast<size_t>(s->replicaGroup)];
}

std::string ShardedLayout::sliceText(const DeviceShard& shard) const
{
    std::string out = "[";
    for (size_t i = 0; i < globalShape.size(); ++i) {
        if (i)
            out += ", ";
        if (globalShape[i] == kDynamicSize) {
            out += "?";
            continue;
        }
        out += std::to_string(shard.begin(i)) + ":" + std::to_string(shard.end(i));
        if (const int64_t pad = paddingOf(shard, i); pad > 0)
            out += " (+" + std::to_string(pad) + " padding)";
    }
    return out + "]";
}

std::vector<int64_t> shardsPerDimension(const TensorSharding& sharding, const Mesh& mesh)
{
    std::vector<int64_t> out;
    out.reserve(sharding.dims.size());
    for (const DimSharding& d : sharding.dims)
        out.push_back(axesProduct(d.axes, mesh));
    return out;
}

std::vector<int64_t> localShapeOf(const TensorSharding& sharding, const Mesh& mesh,
                                  const std::vector<int64_t>& globalShape)
{
    std::vector<int64_t> shards = shardsPerDimension(sharding, mesh);
    std::vector<int64_t> out(globalShape.size());
    for (size_t i = 0; i < globalShape.size(); ++i) {
        const int64_t k = i < shards.size() ? shards[i] : 1;
        out[i] = globalShape[i] == kDynamicSize ? kDynamicSize : ceilDiv(globalShape[i], k);
    }
    return out;
}

Expected<ShardedLayout> computeShardedLayout(const TensorSharding& sharding, const Mesh& mesh,
                                             const std::vector<int64_t>& globalShape)
{
    if (static_cast<size_t>(sharding.rank()) != globalShape.size())
        return Error{"sharding rank " + std::to_string(sharding.rank()) + " doesn't match tensor rank " +
                         std::to_string(globalShape.size()),
                     {}};
    for (const AxisRef& a : [&] {
             std::vector<AxisRef> all;
             for (const DimSharding& d : sharding.dims)
                 all.insert(all.end(), d.axes.begin(), d.axes.end());
             all.insert(all.end(), sharding.unreduced.begin(), sharding.unreduced.end());
             return all;
         }())
        if (!mesh.hasAxis(a.name))
            return Error{"unknown axis name: " + quoteString(a.name), {}};

    ShardedLayout out;
    out.globalShape = globalShape;
    for (const DimSharding& d : sharding.dims)
        out.dimAxes.push_back(d.axes);
    out.unreducedAxes = sharding.unreduced;
    out.unreducedKind = sharding.unreducedKind;
    out.shardsPerDim = shardsPerDimension(sharding, mesh);
    out.localShape = localShapeOf(sharding, mesh, globalShape);
    for (size_t i = 0; i < globalShape.size(); ++i)
        if (globalShape[i] != kDynamicSize && out.shardsPerDim[i] > 0 && globalShape[i] % out.shardsPerDim[i] != 0)
            out.isEven = false;

    const DeviceLayout layout(mesh);
    std::map<std::pair<std::vector<int64_t>, std::vector<int64_t>>, int64_t> replicaKey;
    std::map<std::vector<int64_t>, int64_t> regionKey;
    for (int64_t p = 0; p < layout.numDevices(); ++p) {
        DeviceShard s;
        s.deviceId = layout.deviceAt(p);
        s.position = p;
        s.meshCoords = layout.coordsOf(p);
        for (size_t i = 0; i < globalShape.size(); ++i) {
            const int64_t idx = layout.indexAlong(p, sharding.dims[i].axes);
            s.shardIndex.push_back(idx);
            if (globalShape[i] == kDynamicSize) {
                s.offset.push_back(kDynamicSize);
                s.validExtent.push_back(kDynamicSize);
            } else {
                const int64_t off = idx * out.localShape[i];
                s.offset.push_back(off);
                s.validExtent.push_back(std::clamp<int64_t>(globalShape[i] - off, 0, out.localShape[i]));
            }
        }
        for (const AxisRef& a : sharding.unreduced)
            s.unreducedIndex.push_back(layout.axisCoord(p, a));
        auto key = std::make_pair(s.shardIndex, s.unreducedIndex);
        auto it = replicaKey.find(key);
        if (it == replicaKey.end()) {
            it = replicaKey.emplace(key, static_cast<int64_t>(out.replicationGroups.size())).first;
            out.replicationGroups.emplace_back();
        }
        s.replicaGroup = it->second;
        out.replicationGroups[static_cast<size_t>(it->second)].push_back(s.deviceId);
        auto rit = regionKey.find(s.shardIndex);
        if (rit == regionKey.end()) {
            rit = regionKey.emplace(s.shardIndex, static_cast<int64_t>(out.regionGroups.size())).first;
            out.regionGroups.emplace_back();
        }
        s.regionGroup = rit->second;
        out.regionGroups[static_cast<size_t>(rit->second)].push_back(s.deviceId);
        out.devices.push_back(std::move(s));
    }
    return out;
}

std::vector<int64_t> manualLocalShape(std::vector<int64_t> shape, const TensorSharding& sharding, const Mesh& mesh,
                                      const std::vector<std::string>& manualAxes)
{
    if (static_cast<int>(shape.size()) != sharding.rank())
        return shape;
    for (int i = 0; i < sharding.rank(); ++i) {
        if (shape[i] == kDynamicSize)
            continue;
        int64_t k = 1;
        for (const AxisRef& a : sharding.dims[i].axes)
            if (std::find(manualAxes.begin(), manualAxes.end(), a.name) != manualAxes.end())
                k *= a.size(mesh);
        shape[i] = ceilDiv(shape[i], k);
    }
    return shape;
}

} // namespace shardx
