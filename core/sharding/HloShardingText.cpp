// HloShardingText: Shardy -> GSPMD tile assignments and XLA's text for them.
#include "core/sharding/HloShardingText.h"

#include <algorithm>
#include <functional>
#include <numeric>

#include "core/mesh/AxisRef.h"

namespace shardx {

namespace {

std::string joinedInts(const std::vector<int64_t>& v)
{
    std::string out;
    for (size_t i = 0; i < v.size(); ++i)
        out += (i ? "," : "") + std::to_string(v[i]);
    return out;
}

int64_t product(const std::vector<int64_t>& v)
{
    return std::accumulate(v.begin(), v.end(), int64_t{1}, std::multiplies<>());
}

/// Every mesh axis in mesh order, split into the sub-axes `used` names and the parts between
/// them: `"x"=8` with `"x":(2)2` used gives `"x":(1)2, "x":(2)2, "x":(4)2`. A part that is the
/// whole axis is the full axis.
std::vector<AxisRef> orderedAxisRefs(const Mesh& mesh, const std::vector<AxisRef>& used)
{
    std::vector<AxisRef> out;
    for (const MeshAxis& axis : mesh.axes()) {
        std::vector<SubAxisInfo> subs;
        bool whole = false;
        for (const AxisRef& a : used)
            if (a.name == axis.name) {
                if (a.sub)
                    subs.push_back(*a.sub);
                else
                    whole = true;
            }
        if (whole || subs.empty()) {
            out.emplace_back(axis.name);
            continue;
        }
        std::sort(subs.begin(), subs.end(), [](const auto& a, const auto& b) { return a.preSize < b.preSize; });
        int64_t at = 1;
        for (const SubAxisInfo& s : subs) {
            if (s.preSize > at)
                out.emplace_back(axis.name, at, s.preSize / at);
            out.emplace_back(axis.name, s.preSize, s.size);
            at = s.nextPreSize();
        }
        if (at < axis.size)
            out.emplace_back(axis.name, at, axis.size / at);
    }
    return out;
}

} // namespace

std::string IotaDevices::toString() const
{
    std::string out = "<=[" + joinedInts(reshapeDims) + "]";
    if (reshapeDims.size() > 1)
        out += "T(" + joinedInts(perm) + ")";
    return out;
}

std::optional<IotaDevices> iotaOf(const std::vector<int64_t>& devices)
{
    const int64_t n = static_cast<int64_t>(devices.size());
    if (n == 0 || devices[0] != 0)
        return std::nullopt;
    // An iota of shape R transposed by P lists, at flat index i with coordinates c_j in the
    // transposed shape S (S_j = R[P[j]]), the id sum_j c_j * stride(P[j]). Read the (size,
    // coefficient) pairs from the minor end: a dim's coefficient is the id one index-stride on,
    // its size the length of the run k * coefficient (maximal runs merge dims that stay adjacent,
    // which is XLA's canonical form).
    struct Dim {
        int64_t size, coeff;
    };
    std::vector<Dim> dims; // minor first
    int64_t stride = 1;
    while (stride < n) {
        const int64_t c = devices[static_cast<size_t>(stride)];
        if (c <= 0)
            return std::nullopt;
        int64_t s = 1;
        while (s * stride < n && devices[static_cast<size_t>(s * stride)] == s * c)
            ++s;
        if ((n / stride) % s != 0 || s < 2)
            return std::nullopt;
        dims.push_back({s, c});
        stride *= s;
    }
    std::reverse(dims.begin(), dims.end()); // major first
    // The reshape dims are the dims by decreasing coefficient; their coefficients must be the
    // row-major strides of that shape.
    std::vector<size_t> order(dims.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return dims[a].coeff > dims[b].coeff; });
    IotaDevices iota;
    int64_t expect = 1;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        if (dims[*it].coeff != expect)
            return std::nullopt;
        expect *= dims[*it].size;
    }
    iota.perm.assign(dims.size(), 0);
    for (size_t r = 0; r < order.size(); ++r) {
        iota.reshapeDims.push_back(dims[order[r]].size);
        iota.perm[order[r]] = static_cast<int64_t>(r);
    }
    // Check every id (the runs only looked along each dim from the origin).
    std::vector<int64_t> coord(dims.size(), 0);
    for (int64_t i = 0; i < n; ++i) {
        int64_t id = 0;
        for (size_t j = 0; j < dims.size(); ++j)
            id += coord[j] * dims[j].coeff;
        if (devices[static_cast<size_t>(i)] != id)
            return std::nullopt;
        for (size_t j = dims.size(); j-- > 0;) {
            if (++coord[j] < dims[j].size)
                break;
            coord[j] = 0;
        }
    }
    if (dims.size() <= 1) {
        iota.reshapeDims = {n};
        iota.perm.clear();
    }
    return iota;
}

HloTileAssignment hloTileAssignmentOf(const TensorSharding& s, const Mesh& mesh)
{
    HloTileAssignment out;
    if (mesh.axes().empty()) {
        if (mesh.isMaximal()) {
            out.kind = HloTileAssignment::Kind::Maximal;
            out.maximalDevice = mesh.deviceIds()[0];
        }
        return out;
    }
    if (mesh.totalSize() <= 1)
        return out;

    std::vector<AxisRef> used;
    for (const DimSharding& d : s.dims)
        used.insert(used.end(), d.axes.begin(), d.axes.end());
    used.insert(used.end(), s.unreduced.begin(), s.unreduced.end());
    used.insert(used.end(), s.replicated.begin(), s.replicated.end());
    const std::vector<AxisRef> refs = orderedAxisRefs(mesh, used);

    // The position of each ref in the transposed device array: dims' axes, unreduced, the rest.
    std::vector<int64_t> perm;
    std::vector<bool> placed(refs.size(), false);
    auto place = [&](const AxisRef& a) {
        for (size_t i = 0; i < refs.size(); ++i)
            if (!placed[i] && refs[i] == a) {
                placed[i] = true;
                perm.push_back(static_cast<int64_t>(i));
                return;
            }
    };
    for (const DimSharding& d : s.dims) {
        out.dims.push_back(1);
        for (const AxisRef& a : d.axes) {
            out.dims.back() *= a.size(mesh);
            place(a);
        }
    }
    int64_t unreduced = 1, replicated = 1;
    for (const AxisRef& a : s.unreduced) {
        unreduced *= a.size(mesh);
        place(a);
    }
    for (size_t i = 0; i < refs.size(); ++i)
        if (!placed[i]) {
            replicated *= refs[i].size(mesh);
            perm.push_back(static_cast<int64_t>(i));
        }
    if (product(out.dims) == 1 && unreduced == 1)
        return out; // nothing sharded: {replicated}
    if (unreduced > 1) {
        out.dims.push_back(unreduced);
        out.subgroups.push_back(HloTileAssignment::Subgroup::Unreduced);
    }
    if (replicated > 1) {
        out.dims.push_back(replicated);
        out.subgroups.push_back(HloTileAssignment::Subgroup::Replicated);
    }
    out.kind = HloTileAssignment::Kind::Tiled;

    // Transpose the device array (shape: the refs' sizes, row-major in mesh order).
    std::vector<int64_t> shape;
    for (const AxisRef& a : refs)
        shape.push_back(a.size(mesh));
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;)
        strides[i - 1] = strides[i] * shape[i];
    const int64_t n = product(shape);
    const std::vector<int64_t> ids = mesh.allDeviceIds();
    std::vector<int64_t> coord(perm.size(), 0);
    out.devices.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        int64_t pos = 0;
        for (size_t j = 0; j < perm.size(); ++j)
            pos += coord[j] * strides[static_cast<size_t>(perm[j])];
        out.devices.push_back(ids[static_cast<size_t>(pos)]);
        for (size_t j = perm.size(); j-- > 0;) {
            if (++coord[j] < shape[static_cast<size_t>(perm[j])])
                break;
            coord[j] = 0;
        }
    }
    // XLA keeps the devices of each replication group sorted.
    if (!out.subgroups.empty() && out.subgroups.back() == HloTileAssignment::Subgroup::Replicated)
        for (size_t g = 0; g < out.devices.size(); g += static_cast<size_t>(replicated))
            std::sort(out.devices.begin() + static_cast<std::ptrdiff_t>(g),
                      out.devices.begin() + static_cast<std::ptrdiff_t>(g + static_cast<size_t>(replicated)));
    out.iota = iotaOf(out.devices);
    return out;
}

std::string hloShardingText(const HloTileAssignment& t)
{
    using K = HloTileAssignment::Kind;
    using G = HloTileAssignment::Subgroup;
    if (t.kind == K::Replicated)
        return "{replicated}";
    if (t.kind == K::Maximal)
        return "{maximal device=" + std::to_string(t.maximalDevice) + "}";
    const size_t dataDims = t.dims.size() - t.subgroups.size();
    int64_t data = 1;
    for (size_t i = 0; i < dataDims; ++i)
        data *= t.dims[i];
    // Only unreduced axes, nothing tiled: XLA's HloSharding::Unreduced().
    if (data == 1 && t.subgroups.size() == 1 && t.subgroups[0] == G::Unreduced)
        return "{unreduced}";
    std::string out = "{devices=[" + joinedInts(t.dims) + "]";
    out += t.iota ? t.iota->toString() : joinedInts(t.devices);
    if (t.subgroups.size() == 1 && t.subgroups[0] == G::Replicated) {
        out += " last_tile_dim_replicate";
    } else if (!t.subgroups.empty()) {
        out += " last_tile_dims={";
        for (size_t i = 0; i < t.subgroups.size(); ++i)
            out += std::string(i ? ", " : "") + (t.subgroups[i] == G::Unreduced ? "unreduced" : "replicated");
        out += "}";
    }
    return out + "}";
}

ConvertedSharding hloShardingOf(const TensorSharding& s, const Mesh& mesh)
{
    ConvertedSharding out;
    if (s.unreducedKind != ReductionKind::Sum && !s.unreduced.empty()) {
        out.explanation = std::string("An HloSharding's unreduced subgroup holds partial sums, and this sharding's "
                                      "unreduced axes are reduced by ") +
                          reductionKindName(s.unreducedKind) + ".";
        return out;
    }
    const HloTileAssignment tiles = hloTileAssignmentOf(s, mesh);
    out.text = hloShardingText(tiles);
    if (tiles.kind == HloTileAssignment::Kind::Tiled && tiles.iota && !mesh.deviceIds().empty()) {
        HloTileAssignment listed = tiles;
        listed.iota.reset();
        out.notes.push_back("the mesh's device_ids make this an iota; XLA prints the same sharding built from the "
                            "device list as " +
                            hloShardingText(listed));
    }
    for (int i = 0; i < s.rank(); ++i) {
        const DimSharding& d = s.dims[static_cast<size_t>(i)];
        if (!d.closed)
            out.notes.push_back("dimension " + std::to_string(i) + " is open (" + d.toString() +
                                "): GSPMD keeps that outside the HloSharding (unspecified_dims)");
        if (d.priority)
            out.notes.push_back("dimension " + std::to_string(i) + " has priority p" + std::to_string(*d.priority) +
                                ", which an HloSharding does not carry");
    }
    if (!s.replicated.empty())
        out.notes.push_back("explicitly replicated " + axisListString(s.replicated) +
                            ": an HloSharding replicates every axis it does not tile, but cannot forbid sharding "
                            "on them");
    return out;
}

} // namespace shardx
