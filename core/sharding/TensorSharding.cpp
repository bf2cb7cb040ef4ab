// DimSharding and TensorSharding: text form.
#include "core/sharding/TensorSharding.h"

#include <cstdio>

namespace shardx {

const char* reductionKindName(ReductionKind k)
{
    switch (k) {
    case ReductionKind::Sum: return "sum";
    case ReductionKind::Max: return "max";
    case ReductionKind::Min: return "min";
    }
    return "sum";
}

std::optional<ReductionKind> parseReductionKind(std::string_view name)
{
    for (ReductionKind k : {ReductionKind::Sum, ReductionKind::Max, ReductionKind::Min})
        if (name == reductionKindName(k))
            return k;
    return std::nullopt;
}

std::string axisListString(const std::vector<AxisRef>& axes)
{
    std::string s = "{";
    for (size_t i = 0; i < axes.size(); ++i) {
        if (i)
            s += ", ";
        s += axes[i].toString();
    }
    s += '}';
    return s;
}

std::string DimSharding::toString() const
{
    std::string s = "{";
    for (size_t i = 0; i < axes.size(); ++i) {
        if (i)
            s += ", ";
        s += axes[i].toString();
    }
    if (!closed)
        s += axes.empty() ? "?" : ", ?";
    s += '}';
    if (priority)
        s += 'p' + std::to_string(*priority);
    return s;
}

std::string MeshRef::toString() const
{
    if (inlineMesh)
        return "mesh" + inlineMesh->toString();
    return symbolRefString(symbol);
}

std::string TensorSharding::toString() const
{
    std::string s = "<" + mesh.toString() + ", [";
    for (size_t i = 0; i < dims.size(); ++i) {
        if (i)
            s += ", ";
        s += dims[i].toString();
    }
    s += ']';
    if (!replicated.empty())
        s += ", replicated=" + axisListString(replicated);
    if (!unreduced.empty()) {
        s += ", unreduced=";
        if (unreducedKind != ReductionKind::Sum)
            s += reductionKindName(unreducedKind);
        s += axisListString(unreduced);
    }
    s += '>';
    return s;
}

std::string TensorSharding::toAttrString() const { return "#sdy.sharding" + toString(); }

bool TensorSharding::hasDimAxes() const
{
    for (const DimSharding& d : dims)
        if (!d.axes.empty())
            return true;
    return false;
}

TensorSharding TensorSharding::open(MeshRef mesh, int rank)
{
    TensorSharding s;
    s.mesh = std::move(mesh);
    s.dims.resize(static_cast<size_t>(rank));
    for (DimSharding& d : s.dims)
        d.closed = false;
    return s;
}

TensorSharding TensorSharding::closedReplicated(MeshRef mesh, int rank)
{
    TensorSharding s;
    s.mesh = std::move(mesh);
    s.dims.resize(static_cast<size_t>(rank));
    return s;
}

std::string ShardingPerValue::toString() const
{
    std::string s = "<[";
    for (size_t i = 0; i < shardings.size(); ++i) {
        if (i)
            s += ", ";
        s += shardings[i].toString();
    }
    s += "]>";
    return s;
}

std::string ShardingPerValue::toAttrString() const { return "#sdy.sharding_per_value" + toString(); }

} // namespace shardx
