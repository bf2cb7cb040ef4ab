// LocalOps: building blocks of the partitioner passes that emit per-device code.
#include "core/partition/LocalOps.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "core/io/MlirReader.h"
#include "core/mesh/DeviceLayout.h"

namespace shardx::partition {

ir::AttrPtr attr(const std::string& text)
{
    DiagnosticList diags;
    ir::AttrPtr a = io::parseAttribute(text, diags);
    if (!a) {
        std::fprintf(stderr, "shardx: internal error: cannot read the attribute '%s' a pass made: %s\n", text.c_str(),
                     diags.formatAll().c_str());
        std::abort();
    }
    return a;
}

ir::Type scalarTensor(const std::string& elementType) { return ir::Type::tensor({}, elementType); }

ir::Value* currentDeviceId(ir::Builder& b, bool useReplicaId)
{
    ir::Value* id =
        b.createValue(useReplicaId ? "stablehlo.replica_id" : "stablehlo.partition_id", {}, scalarTensor("ui32"));
    return b.createValue("stablehlo.convert", {id}, scalarTensor("i64"));
}

namespace {

void appendNested(std::string& text, const std::vector<int64_t>& values, const std::vector<int64_t>& shape, size_t dim,
                  size_t& next)
{
    if (dim == shape.size()) {
        text += std::to_string(values[next++]);
        return;
    }
    text += "[";
    for (int64_t i = 0; i < shape[dim]; ++i) {
        if (i)
            text += ", ";
        appendNested(text, values, shape, dim + 1, next);
    }
    text += "]";
}

} // namespace

std::string i64DenseText(const std::vector<int64_t>& values, const std::vector<int64_t>& shape)
{
    std::string type = "tensor<";
    for (int64_t d : shape)
        type += std::to_string(d) + "x";
    type += "i64>";
    const bool splat =
        !values.empty() && std::all_of(values.begin(), values.end(), [&](int64_t v) { return v == values.front(); });
    if (splat || shape.empty())
        return "dense<" + std::to_string(values.empty() ? 0 : values.front()) + "> : " + type;
    std::string text;
    size_t next = 0;
    appendNested(text, values, shape, 0, next);
    return "dense<" + text + "> : " + type;
}

ir::Value* i64Scalar(ir::Builder& b, int64_t value)
{
    return b.createConstant(attr("dense<" + std::to_string(value) + "> : tensor<i64>"));
}

ir::Value* i64Table(ir::Builder& b, const std::vector<int64_t>& values)
{
    return b.createConstant(attr(i64DenseText(values, {static_cast<int64_t>(values.size())})));
}

ir::Value* zeros(ir::Builder& b, const ir::Type& type)
{
    const std::string& e = type.elementType();
    std::string value = "0";
    if (e == "i1")
        value = "false";
    else if (ir::isFloatElementType(e))
        value = "0.000000e+00";
    return b.createConstant(attr("dense<" + value + "> : " + type.toString()));
}

int64_t shardIndex(int64_t deviceId, const Mesh& mesh, const std::vector<AxisRef>& axes)
{
    DeviceLayout layout(mesh);
    std::optional<int64_t> pos = layout.positionOf(deviceId);
    return pos ? layout.indexAlong(*pos, axes) : 0;
}

std::vector<std::vector<int64_t>> replicaGroups(const Mesh& mesh, const std::vector<AxisRef>& axes)
{
    DeviceLayout layout(mesh);
    // The atoms that are not in `axes`, in mesh order: each axis cut at the sub-axes of `axes`.
    std::vector<AxisRef> others;
    for (const MeshAxis& axis : mesh.axes()) {
        std::vector<int64_t> cuts = {1, axis.size};
        for (const AxisRef& a : axes)
            if (a.name == axis.name && a.sub) {
                cuts.push_back(a.sub->preSize);
                cuts.push_back(a.sub->nextPreSize());
            }
        std::sort(cuts.begin(), cuts.end());
        cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
        for (size_t j = 0; j + 1 < cuts.size(); ++j) {
            const AxisRef atom =
                cuts.size() == 2 ? AxisRef(axis.name) : AxisRef(axis.name, cuts[j], cuts[j + 1] / cuts[j]);
            const bool inA = std::any_of(axes.begin(), axes.end(), [&](const AxisRef& a) {
                return a.name == atom.name &&
                       (!a.sub || (a.sub->preSize == atom.preSize() && a.sub->nextPreSize() == atom.nextPreSize(mesh)));
            });
            if (!inA)
                others.push_back(atom);
        }
    }
    int64_t groupSize = 1;
    for (const AxisRef& a : axes)
        groupSize *= a.size(mesh);
    const int64_t n = layout.numDevices();
    std::vector<std::vector<int64_t>> groups(static_cast<size_t>(n / std::max<int64_t>(groupSize, 1)),
                                             std::vector<int64_t>(static_cast<size_t>(groupSize)));
    for (int64_t p = 0; p < n; ++p) {
        const int64_t g = layout.indexAlong(p, others);
        const int64_t j = layout.indexAlong(p, axes);
        groups[static_cast<size_t>(g)][static_cast<size_t>(j)] = layout.deviceAt(p);
    }
    return groups;
}

namespace {

using AxisList = std::vector<AxisRef>;

/// Every atom of `mesh` cut at the sub-axes of `refs` (PARTITION.md 2.4 step 1), in mesh order.
AxisList atomsOf(const Mesh& mesh, const AxisList& refs)
{
    AxisList atoms;
    for (const MeshAxis& axis : mesh.axes()) {
        std::vector<int64_t> cuts = {1, axis.size};
        for (const AxisRef& a : refs)
            if (a.name == axis.name && a.sub) {
                cuts.push_back(a.sub->preSize);
                cuts.push_back(a.sub->nextPreSize());
            }
        std::sort(cuts.begin(), cuts.end());
        cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
        for (size_t j = 0; j + 1 < cuts.size(); ++j)
            atoms.push_back(cuts.size() == 2 ? AxisRef(axis.name) : AxisRef(axis.name, cuts[j], cuts[j + 1] / cuts[j]));
    }
    return atoms;
}

bool containsAtom(const AxisRef& a, const AxisRef& atom, const Mesh& mesh)
{
    if (a.name != atom.name)
        return false;
    if (!a.sub)
        return true;
    return a.preSize() <= atom.preSize() && atom.nextPreSize(mesh) <= a.nextPreSize(mesh);
}

/// The atoms in the order `s` shards them, then the rest (PARTITION.md 7.6.6).
AxisList atomOrder(const TensorSharding& s, const AxisList& atoms, const Mesh& mesh)
{
    AxisList order;
    auto add = [&](const AxisRef& t) {
        if (std::find(order.begin(), order.end(), t) == order.end())
            order.push_back(t);
    };
    for (const DimSharding& d : s.dims)
        for (const AxisRef& a : d.axes)
            for (const AxisRef& t : atoms)
                if (containsAtom(a, t, mesh))
                    add(t);
    for (const AxisRef& t : atoms)
        add(t);
    return order;
}

} // namespace

Expected<std::vector<std::pair<int64_t, int64_t>>> permutePairs(const TensorSharding& in, const Mesh& inMesh,
                                                                const TensorSharding& out, const Mesh& outMesh)
{
    if (inMesh.totalSize() != outMesh.totalSize())
        return Error{"a collective_permute moves data between meshes of different sizes", {}};
    AxisList refs;
    for (const TensorSharding* s : {&in, &out}) {
        for (const DimSharding& d : s->dims)
            refs.insert(refs.end(), d.axes.begin(), d.axes.end());
        refs.insert(refs.end(), s->replicated.begin(), s->replicated.end());
        refs.insert(refs.end(), s->unreduced.begin(), s->unreduced.end());
    }
    const AxisList atoms = atomsOf(outMesh, refs);
    const AxisList inOrder = atomOrder(in, atoms, inMesh);
    const AxisList outOrder = atomOrder(out, atoms, outMesh);
    const int64_t n = outMesh.totalSize();
    DeviceLayout inLayout(inMesh), outLayout(outMesh);
    std::vector<int64_t> owner(static_cast<size_t>(n));
    for (int64_t pos = 0; pos < n; ++pos)
        owner[static_cast<size_t>(outLayout.indexAlong(pos, outOrder))] = outLayout.deviceAt(pos);
    std::vector<std::pair<int64_t, int64_t>> pairs;
    for (int64_t dev = 0; dev < n; ++dev) {
        std::optional<int64_t> pos = inLayout.positionOf(dev);
        if (!pos)
            return Error{"device " + std::to_string(dev) + " is not in the mesh of this collective_permute's operand",
                         {}};
        pairs.emplace_back(dev, owner[static_cast<size_t>(inLayout.indexAlong(*pos, inOrder))]);
    }
    return pairs;
}

} // namespace shardx::partition
