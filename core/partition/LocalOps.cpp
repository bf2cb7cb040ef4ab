// LocalOps: building blocks of the partitioner passes that emit per-device code.
#include "core/partition/LocalOps.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include "core/io/MlirReader.h"
#include "core/ir/ShardingAccess.h"
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

const std::vector<std::vector<int64_t>>& ReplicaGroupCache::get(const Mesh& mesh, const std::vector<AxisRef>& axes)
{
    for (const Entry& e : m_entries)
        if (e.axes == axes && e.mesh == mesh)
            return e.groups;
    m_entries.push_back(Entry{mesh, axes, replicaGroups(mesh, axes)});
    return m_entries.back().groups;
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

ir::Type paddedType(const ir::Type& t, const TensorSharding* s, const Mesh* mesh)
{
    if (!s || !mesh || !t.isRankedTensor())
        return t;
    // Asked for every value by pad-for-divisibility: most divide, and keep their type as it is.
    const std::vector<int64_t>& in = t.shape();
    std::vector<int64_t> shape;
    for (size_t d = 0; d < in.size() && d < s->dims.size(); ++d) {
        if (s->dims[d].axes.empty() || in[d] == ir::Type::kDynamic)
            continue;
        const int64_t n = axesProduct(s->dims[d].axes, *mesh);
        if (n > 1 && in[d] % n != 0) {
            if (shape.empty())
                shape = in;
            shape[d] += n - in[d] % n;
        }
    }
    return shape.empty() ? t : t.withShape(shape);
}

ir::Value* padHigh(ir::Builder& b, ir::Value* v, ir::Value* value, const ir::Type& target, const TensorSharding* s)
{
    const int rank = v->type().rank();
    std::vector<int64_t> high;
    for (int d = 0; d < rank; ++d)
        high.push_back(target.dim(d) - v->type().dim(d));
    const std::vector<int64_t> zeros(static_cast<size_t>(rank), 0);
    ir::Op* pad = b.create("stablehlo.pad", {v, value}, {target});
    pad->setProp("edge_padding_high", ir::denseI64ArrayAttr(high));
    pad->setProp("edge_padding_low", ir::denseI64ArrayAttr(zeros));
    pad->setProp("interior_padding", ir::denseI64ArrayAttr(zeros));
    if (s)
        ir::setResultShardings(*pad, ShardingPerValue{{*s}});
    return pad->result(0);
}

ir::Value* trim(ir::Builder& b, ir::Value* v, const std::vector<int64_t>& limit, const TensorSharding* s)
{
    ir::Op* slice = b.create("stablehlo.slice", {v}, {v->type().withShape(limit)});
    slice->setProp("limit_indices", ir::denseI64ArrayAttr(limit));
    slice->setProp("start_indices", ir::denseI64ArrayAttr(std::vector<int64_t>(limit.size(), 0)));
    slice->setProp("strides", ir::denseI64ArrayAttr(std::vector<int64_t>(limit.size(), 1)));
    if (s)
        ir::setResultShardings(*slice, ShardingPerValue{{*s}});
    return slice->result(0);
}

int64_t channelHandleOf(const ir::Op& op)
{
    const ir::Attribute* a = op.attr("channel_handle");
    const ir::OpaqueAttr* o = a ? std::get_if<ir::OpaqueAttr>(&a->payload()) : nullptr;
    if (!o || o->mnemonic != "channel_handle")
        return 0;
    const size_t at = o->body.find("handle");
    if (at == std::string::npos)
        return 0;
    size_t i = o->body.find('=', at);
    if (i == std::string::npos)
        return 0;
    ++i;
    while (i < o->body.size() && o->body[i] == ' ')
        ++i;
    int64_t v = 0;
    while (i < o->body.size() && o->body[i] >= '0' && o->body[i] <= '9' && v < (int64_t(1) << 58))
        v = v * 10 + (o->body[i++] - '0');
    return v;
}

int64_t largestChannelHandle(ir::Op& root)
{
    int64_t largest = 0;
    root.walk([&](ir::Op* op) { largest = std::max(largest, channelHandleOf(*op)); });
    return largest;
}

TensorSharding withoutManualAxes(TensorSharding s, const std::vector<std::string>& manual)
{
    auto isManual = [&](const AxisRef& a) { return std::find(manual.begin(), manual.end(), a.name) != manual.end(); };
    for (DimSharding& d : s.dims)
        d.axes.erase(std::remove_if(d.axes.begin(), d.axes.end(), isManual), d.axes.end());
    s.replicated.erase(std::remove_if(s.replicated.begin(), s.replicated.end(), isManual), s.replicated.end());
    s.unreduced.erase(std::remove_if(s.unreduced.begin(), s.unreduced.end(), isManual), s.unreduced.end());
    return s;
}

ir::Value* runtimeShardIndex(ir::Builder& b, ir::Value* deviceId, const Mesh& mesh, const std::vector<AxisRef>& axes)
{
    if (axes.empty())
        return i64Scalar(b, 0);
    if (!mesh.deviceIds().empty()) {
        const int64_t n = mesh.totalSize();
        std::vector<int64_t> table(static_cast<size_t>(n));
        for (int64_t dev = 0; dev < n; ++dev)
            table[static_cast<size_t>(dev)] = shardIndex(dev, mesh, axes);
        ir::Value* t = i64Table(b, table);
        ir::Op* one = b.create("stablehlo.dynamic_slice", {t, deviceId}, {ir::Type::tensor({1}, "i64")});
        one->setProp("slice_sizes", ir::denseI64ArrayAttr({1}));
        return b.createValue("stablehlo.reshape", {one->result(0)}, scalarTensor("i64"));
    }
    const int64_t total = mesh.totalSize();
    ir::Value* index = nullptr;
    for (const AxisRef& a : axes) {
        const int at = mesh.axisIndex(a.name);
        int64_t after = 1;
        for (size_t k = static_cast<size_t>(at) + 1; at >= 0 && k < mesh.axes().size(); ++k)
            after *= mesh.axes()[k].size;
        const int64_t full = mesh.axisSize(a.name).value_or(1);
        const int64_t size = a.size(mesh);
        const int64_t div = after * (full / (a.preSize() * size));
        ir::Value* coord = deviceId;
        if (div > 1)
            coord = b.createValue("stablehlo.divide", {coord, i64Scalar(b, div)}, scalarTensor("i64"));
        if (size < total)
            coord = b.createValue("stablehlo.remainder", {coord, i64Scalar(b, size)}, scalarTensor("i64"));
        if (!index) {
            index = coord;
            continue;
        }
        ir::Value* scaled = b.createValue("stablehlo.multiply", {index, i64Scalar(b, size)}, scalarTensor("i64"));
        index = b.createValue("stablehlo.add", {scaled, coord}, scalarTensor("i64"));
    }
    return index;
}

std::vector<std::pair<int64_t, int64_t>> shiftPairs(const Mesh& mesh, const std::vector<AxisRef>& axes, int64_t shift)
{
    // A replica group lists its members by shard index along `axes` (PARTITION.md 2.4), so the
    // target of a member is the member `shift` places further in the same group.
    const std::vector<std::vector<int64_t>> groups = replicaGroups(mesh, axes);
    std::unordered_map<int64_t, std::pair<size_t, int64_t>> where;
    for (size_t g = 0; g < groups.size(); ++g)
        for (size_t k = 0; k < groups[g].size(); ++k)
            where[groups[g][k]] = {g, static_cast<int64_t>(k)};
    DeviceLayout layout(mesh);
    std::vector<std::pair<int64_t, int64_t>> pairs;
    for (int64_t pos = 0; pos < layout.numDevices(); ++pos) {
        const int64_t dev = layout.deviceAt(pos);
        auto it = where.find(dev);
        if (it == where.end())
            continue;
        const auto& [g, k] = it->second;
        const int64_t j = k + shift;
        if (j < 0 || j >= static_cast<int64_t>(groups[g].size()))
            continue;
        pairs.emplace_back(dev, groups[g][static_cast<size_t>(j)]);
    }
    return pairs;
}

} // namespace shardx::partition
