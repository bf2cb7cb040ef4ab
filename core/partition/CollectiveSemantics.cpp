// Collective semantics: result sharding and per-device data movement.
#include "core/partition/CollectiveSemantics.h"

#include <algorithm>
#include <map>

#include "core/mesh/DeviceLayout.h"
#include "core/sharding/LocalShape.h"

namespace shardx {

const char* collectiveKindName(CollectiveKind k)
{
    switch (k) {
    case CollectiveKind::AllGather: return "all_gather";
    case CollectiveKind::AllSlice: return "all_slice";
    case CollectiveKind::AllReduce: return "all_reduce";
    case CollectiveKind::ReduceScatter: return "reduce_scatter";
    case CollectiveKind::AllToAll: return "all_to_all";
    case CollectiveKind::CollectivePermute: return "collective_permute";
    case CollectiveKind::ReplicatedToUnreduced: return "replicated_to_unreduced";
    case CollectiveKind::ShardedToUnreduced: return "sharded_to_unreduced";
    }
    return "collective";
}

namespace {

/// SDY.md 2.12 remove-suffix of `axes` from the dimension's axes, with the error of a failure.
Status removeDimSuffix(std::vector<AxisRef>& dimAxes, const std::vector<AxisRef>& axes, const Mesh& mesh, int64_t dim,
                       const char* what)
{
    if (const AxisRef* bad = removeSuffix(dimAxes, axes, mesh))
        return Error{std::string("can't apply ") + what + " axis " + bad->toString() + " to operand dimension " +
                         std::to_string(dim) + ": it is not a suffix of the dimension's sharding " +
                         axisListString(dimAxes),
                     {}};
    return Status::success();
}

Status checkRank(const TensorSharding& operand, size_t n, const char* what)
{
    if (static_cast<size_t>(operand.rank()) != n)
        return Error{std::string(what) + " has " + std::to_string(n) +
                         " dimension lists but the operand sharding has rank " + std::to_string(operand.rank()),
                     {}};
    return Status::success();
}

std::vector<AxisRef> concatAll(const std::vector<std::vector<AxisRef>>& lists)
{
    std::vector<AxisRef> all;
    for (const auto& l : lists)
        all.insert(all.end(), l.begin(), l.end());
    return all;
}

/// Axes whose coordinates distinguish the members of one communication group.
std::vector<AxisRef> involvedAxes(const CollectiveParams& p)
{
    switch (p.kind) {
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter: return concatAll(p.perDimAxes);
    case CollectiveKind::AllReduce: return p.axes;
    case CollectiveKind::AllToAll: {
        std::vector<AxisRef> all;
        for (const AllToAllSpec& s : p.allToAll)
            all.insert(all.end(), s.axes.begin(), s.axes.end());
        return all;
    }
    default: return {};
    }
}

struct Box {
    std::vector<int64_t> lo;
    std::vector<int64_t> size;

    bool empty() const
    {
        for (int64_t s : size)
            if (s <= 0)
                return true;
        return false;
    }
    int64_t elements() const
    {
        int64_t n = 1;
        for (int64_t s : size)
            n *= s;
        return n;
    }
};

Box boxOf(const DeviceShard& s) { return Box{s.offset, s.validExtent}; }

Box intersect(const Box& a, const Box& b)
{
    Box r{a.lo, a.size};
    for (size_t i = 0; i < a.lo.size(); ++i) {
        int64_t lo = std::max(a.lo[i], b.lo[i]);
        int64_t hi = std::min(a.lo[i] + a.size[i], b.lo[i] + b.size[i]);
        r.lo[i] = lo;
        r.size[i] = std::max<int64_t>(0, hi - lo);
    }
    return r;
}

bool overlapsAny(const Box& b, const std::vector<Box>& boxes)
{
    for (const Box& c : boxes)
        if (!intersect(b, c).empty())
            return true;
    return false;
}

bool containsBox(const Box& outer, const Box& inner)
{
    for (size_t i = 0; i < outer.lo.size(); ++i)
        if (inner.lo[i] < outer.lo[i] || inner.lo[i] + inner.size[i] > outer.lo[i] + outer.size[i])
            return false;
    return true;
}

} // namespace

Expected<TensorSharding> collectiveResultSharding(const TensorSharding& operand, const CollectiveParams& p,
                                                  const Mesh& mesh)
{
    TensorSharding out = operand;
    switch (p.kind) {
    case CollectiveKind::AllGather:
    case CollectiveKind::ShardedToUnreduced: {
        const char* what = p.kind == CollectiveKind::AllGather ? "gathering" : "shard-to-unreduce";
        if (Status s = checkRank(operand, p.perDimAxes.size(), collectiveKindName(p.kind)); !s)
            return s.error();
        for (size_t d = 0; d < p.perDimAxes.size(); ++d)
            if (Status s = removeDimSuffix(out.dims[d].axes, p.perDimAxes[d], mesh, static_cast<int64_t>(d), what); !s)
                return s.error();
        if (p.kind == CollectiveKind::ShardedToUnreduced) {
            std::vector<AxisRef> u = operand.unreduced;
            for (const auto& l : p.perDimAxes)
                u.insert(u.end(), l.begin(), l.end());
            out.unreduced = sortAndMerge(u, mesh);
            out.unreducedKind = ReductionKind::Sum;
        }
        return out;
    }
    case CollectiveKind::AllSlice:
    case CollectiveKind::ReduceScatter: {
        if (Status s = checkRank(operand, p.perDimAxes.size(), collectiveKindName(p.kind)); !s)
            return s.error();
        for (size_t d = 0; d < p.perDimAxes.size(); ++d)
            addAxesOrMerge(out.dims[d].axes, p.perDimAxes[d], mesh);
        if (p.kind == CollectiveKind::ReduceScatter)
            out.unreduced = axisListDifference(operand.unreduced, concatAll(p.perDimAxes), mesh);
        return out;
    }
    case CollectiveKind::AllReduce: out.unreduced = axisListDifference(operand.unreduced, p.axes, mesh); return out;
    case CollectiveKind::AllToAll:
        for (const AllToAllSpec& s : p.allToAll) {
            if (s.srcDim < 0 || s.srcDim >= operand.rank() || s.tgtDim < 0 || s.tgtDim >= operand.rank())
                return Error{"all_to_all dimension out of range [0, " + std::to_string(operand.rank()) + ")", {}};
            if (Status st = removeDimSuffix(out.dims[s.srcDim].axes, s.axes, mesh, s.srcDim, "all-to-all"); !st)
                return st.error();
            addAxesOrMerge(out.dims[s.tgtDim].axes, s.axes, mesh);
        }
        return out;
    case CollectiveKind::CollectivePermute: {
        const TensorSharding& t = p.permuteTarget;
        if (t.rank() != operand.rank())
            return Error{"collective_permute target rank " + std::to_string(t.rank()) + " differs from operand rank " +
                             std::to_string(operand.rank()),
                         {}};
        for (int d = 0; d < t.rank(); ++d) {
            int64_t a = axesProduct(operand.dims[d].axes, mesh);
            int64_t b = axesProduct(t.dims[d].axes, mesh);
            if (a != b)
                return Error{"sharded size of result doesn't match operand on dimension " + std::to_string(d) + ": " +
                                 std::to_string(b) + " != " + std::to_string(a),
                             {}};
        }
        return t;
    }
    case CollectiveKind::ReplicatedToUnreduced: {
        std::vector<AxisRef> u = operand.unreduced;
        u.insert(u.end(), p.axes.begin(), p.axes.end());
        out.unreduced = sortAndMerge(u, mesh);
        out.unreducedKind = ReductionKind::Sum;
        return out;
    }
    }
    return out;
}

Expected<CollectiveMovement> collectiveMovement(const TensorSharding& operand, const CollectiveParams& p,
                                                const Mesh& mesh, const std::vector<int64_t>& globalShape,
                                                int64_t elementBytes)
{
    Expected<TensorSharding> result = collectiveResultSharding(operand, p, mesh);
    if (!result)
        return result.error();
    Expected<ShardedLayout> in = computeShardedLayout(operand, mesh, globalShape);
    if (!in)
        return in.error();
    Expected<ShardedLayout> out = computeShardedLayout(*result, mesh, globalShape);
    if (!out)
        return out.error();
    for (int64_t d : globalShape)
        if (d == kDynamicSize)
            return Error{"data movement needs a static shape", {}};

    const DeviceLayout layout(mesh);
    const int64_t n = layout.numDevices();
    CollectiveMovement mv;
    mv.result = *result;
    mv.bytesSent.assign(static_cast<size_t>(n), 0);
    mv.bytesReceived.assign(static_cast<size_t>(n), 0);

    // Group positions: a permute may move data anywhere; others within the involved axes.
    std::vector<std::vector<int64_t>> groups;
    if (p.kind == CollectiveKind::CollectivePermute) {
        groups.emplace_back();
        for (int64_t pos = 0; pos < n; ++pos)
            groups.back().push_back(pos);
    } else {
        std::vector<AxisRef> axes = involvedAxes(p);
        std::map<std::vector<int64_t>, size_t> byKey;
        for (int64_t pos = 0; pos < n; ++pos) {
            std::vector<int64_t> key = layout.coordsOf(pos);
            for (const AxisRef& a : axes) {
                int idx = mesh.axisIndex(a.name);
                if (idx < 0)
                    continue;
                // Clear this (sub-)axis's part of the axis coordinate; its stride inside the
                // axis is size / nextPreSize (sub-axes are counted from the major side).
                const int64_t stride = mesh.axes()[static_cast<size_t>(idx)].size / a.nextPreSize(mesh);
                key[static_cast<size_t>(idx)] -= layout.axisCoord(pos, a) * stride;
            }
            auto [it, fresh] = byKey.emplace(key, groups.size());
            if (fresh)
                groups.emplace_back();
            groups[it->second].push_back(pos);
        }
    }
    std::vector<size_t> groupOf(static_cast<size_t>(n));
    for (size_t g = 0; g < groups.size(); ++g)
        for (int64_t pos : groups[g])
            groupOf[static_cast<size_t>(pos)] = g;
    for (const auto& g : groups) {
        std::vector<int64_t> ids;
        for (int64_t pos : g)
            ids.push_back(layout.deviceAt(pos));
        mv.groups.push_back(std::move(ids));
    }

    auto record = [&](int64_t srcPos, int64_t dstPos, const Box& b, bool reduce) {
        Transfer t;
        t.srcDevice = layout.deviceAt(srcPos);
        t.dstDevice = layout.deviceAt(dstPos);
        t.offset = b.lo;
        t.extent = b.size;
        t.bytes = b.elements() * elementBytes;
        t.reduce = reduce;
        mv.bytesSent[static_cast<size_t>(srcPos)] += t.bytes;
        mv.bytesReceived[static_cast<size_t>(dstPos)] += t.bytes;
        mv.totalBytes += t.bytes;
        mv.transfers.push_back(std::move(t));
    };

    const bool reduces = p.kind == CollectiveKind::AllReduce || p.kind == CollectiveKind::ReduceScatter;
    const bool moves = p.kind == CollectiveKind::AllGather || p.kind == CollectiveKind::AllToAll ||
                       p.kind == CollectiveKind::CollectivePermute;
    for (int64_t dst = 0; dst < n; ++dst) {
        const Box needed = boxOf(out->devices[static_cast<size_t>(dst)]);
        if (needed.empty())
            continue;
        const auto& group = groups[groupOf[static_cast<size_t>(dst)]];
        if (reduces) {
            for (int64_t src : group)
                if (src != dst) {
                    Box part = intersect(needed, boxOf(in->devices[static_cast<size_t>(src)]));
                    if (!part.empty())
                        record(src, dst, part, true);
                }
            continue;
        }
        if (!moves)
            continue; // slices and unreduced conversions only drop or zero local data
        const Box own = boxOf(in->devices[static_cast<size_t>(dst)]);
        if (!own.empty() && containsBox(own, needed))
            continue;
        std::vector<Box> covered;
        Box mine = intersect(needed, own);
        if (!mine.empty())
            covered.push_back(mine);
        for (int64_t src : group) {
            if (src == dst)
                continue;
            Box piece = intersect(needed, boxOf(in->devices[static_cast<size_t>(src)]));
            if (piece.empty() || overlapsAny(piece, covered))
                continue;
            covered.push_back(piece);
            record(src, dst, piece, false);
        }
    }
    return mv;
}

} // namespace shardx
