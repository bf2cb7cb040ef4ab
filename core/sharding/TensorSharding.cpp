// DimSharding and TensorSharding: text form.
#include "core/sharding/TensorSharding.h"

#include <cstdio>
#include <functional>
#include <string_view>

namespace shardx {

namespace {

constexpr uint64_t kHashSeed = 0x9e3779b97f4a7c15ULL;

inline void hashMix(uint64_t& h, uint64_t v) { h ^= v + kHashSeed + (h << 6) + (h >> 2); }

void hashMixAxes(uint64_t& h, const std::vector<AxisRef>& axes)
{
    hashMix(h, axes.size());
    for (const AxisRef& a : axes)
        hashMix(h, hashAxisRef(a));
}

} // namespace

uint64_t hashAxisRef(const AxisRef& a)
{
    uint64_t h = std::hash<std::string_view>{}(a.name);
    if (a.sub) {
        hashMix(h, static_cast<uint64_t>(a.sub->preSize));
        hashMix(h, static_cast<uint64_t>(a.sub->size));
    }
    return h;
}

uint64_t hashSharding(const TensorSharding& s)
{
    uint64_t h = 1;
    hashMix(h, std::hash<std::string_view>{}(s.mesh.isInline() ? s.mesh.toString() : s.mesh.symbol));
    hashMix(h, s.dims.size());
    for (const DimSharding& d : s.dims) {
        hashMixAxes(h, d.axes);
        hashMix(h, (d.closed ? 1u : 0u) | (d.priority ? 2u : 0u));
        if (d.priority)
            hashMix(h, static_cast<uint64_t>(*d.priority));
    }
    hashMixAxes(h, s.replicated);
    hashMixAxes(h, s.unreduced);
    if (!s.unreduced.empty()) // as operator== compares
        hashMix(h, static_cast<uint64_t>(s.unreducedKind));
    return h;
}

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
