// DTensorPlacements: Shardy -> DTensor placements.
#include "core/sharding/DTensorPlacements.h"

#include <algorithm>

namespace shardx {

namespace {

std::string pythonDoubleQuoted(const std::string& s)
{
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + "\"";
}

std::string joined(const std::vector<std::string>& parts)
{
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i)
        out += (i ? ", " : "") + parts[i];
    return out;
}

} // namespace

ConvertedSharding dtensorPlacementsOf(const TensorSharding& s, const Mesh& mesh)
{
    ConvertedSharding out;
    out.meshText = dtensorMeshText(mesh);
    if (const AxisRef* sub = firstSubAxis(s)) {
        out.explanation = subAxisExplanation(s, *sub, mesh, "A DTensor placement");
        return out;
    }
    const auto& axes = mesh.axes();
    std::vector<std::string> placements(axes.size(), "Replicate()");
    for (int d = 0; d < s.rank(); ++d) {
        const std::vector<AxisRef>& dimAxes = s.dims[static_cast<size_t>(d)].axes;
        for (size_t k = 0; k < dimAxes.size(); ++k) {
            const int m = mesh.axisIndex(dimAxes[k].name);
            if (m < 0)
                continue;
            // Axes that shard this dim before (major to) this one but sit on later mesh dims:
            // DTensor splits by them after this one, so this one is strided over their product.
            int64_t splitFactor = 1;
            std::vector<std::string> later;
            for (size_t j = 0; j < k; ++j)
                if (mesh.axisIndex(dimAxes[j].name) > m) {
                    splitFactor *= dimAxes[j].size(mesh);
                    later.push_back("\"" + dimAxes[j].name + "\"");
                }
            if (splitFactor == 1) {
                placements[static_cast<size_t>(m)] = "Shard(" + std::to_string(d) + ")";
                continue;
            }
            placements[static_cast<size_t>(m)] =
                "_StridedShard(" + std::to_string(d) + ", split_factor=" + std::to_string(splitFactor) + ")";
            out.notes.push_back("dimension " + std::to_string(d) + " is sharded " + axisListString(dimAxes) +
                                " (major to minor), not in mesh order; DTensor shards one mesh dim after another, so "
                                "\"" +
                                dimAxes[k].name + "\" splits each of the " + std::to_string(splitFactor) +
                                " blocks that " + joined(later) +
                                " will take: _StridedShard (a private DTensor type, "
                                "as FSDP2 with tensor parallelism uses it)");
        }
    }
    for (const AxisRef& a : s.unreduced) {
        const int m = mesh.axisIndex(a.name);
        if (m < 0)
            continue;
        placements[static_cast<size_t>(m)] =
            s.unreducedKind == ReductionKind::Sum
                ? std::string("Partial()")
                : "Partial(" + pythonDoubleQuoted(reductionKindName(s.unreducedKind)) + ")";
    }
    out.text = "[" + joined(placements) + "]";
    for (int i = 0; i < s.rank(); ++i) {
        const DimSharding& d = s.dims[static_cast<size_t>(i)];
        if (!d.closed)
            out.notes.push_back("dimension " + std::to_string(i) + " is open (" + d.toString() +
                                "): placements are final, written as closed");
        if (d.priority)
            out.notes.push_back("dimension " + std::to_string(i) + " has priority p" + std::to_string(*d.priority) +
                                ", which placements do not carry");
    }
    if (!s.replicated.empty())
        out.notes.push_back("explicitly replicated " + axisListString(s.replicated) +
                            ": Replicate() there, but placements cannot forbid sharding on them later");
    if (axes.empty())
        out.notes.push_back("the mesh has no axes: a DeviceMesh needs at least one dim");
    return out;
}

std::string dtensorMeshText(const Mesh& mesh)
{
    if (mesh.axes().empty())
        return {};
    std::vector<std::string> sizes, names, ids;
    for (const MeshAxis& a : mesh.axes()) {
        sizes.push_back(std::to_string(a.size));
        names.push_back(pythonDoubleQuoted(a.name));
    }
    const std::string shape = sizes.size() == 1 ? "(" + sizes[0] + ",)" : "(" + joined(sizes) + ")";
    const std::string dimNames = names.size() == 1 ? "(" + names[0] + ",)" : "(" + joined(names) + ")";
    if (mesh.deviceIds().empty())
        return "init_device_mesh(\"cuda\", " + shape + ", mesh_dim_names=" + dimNames + ")";
    for (int64_t id : mesh.deviceIds())
        ids.push_back(std::to_string(id));
    return "DeviceMesh(\"cuda\", torch.tensor([" + joined(ids) + "]).reshape" + shape + ", mesh_dim_names=" + dimNames +
           ")";
}

} // namespace shardx
