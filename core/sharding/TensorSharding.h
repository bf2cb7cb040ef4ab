// DimSharding and TensorSharding: Shardy's #sdy.sharding, data and text form.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/mesh/AxisRef.h"
#include "core/mesh/Mesh.h"
#include "core/support/StringUtil.h"

namespace shardx {

/// The sharding of one tensor dimension: axes major to minor, open or closed, priority.
struct DimSharding {
    std::vector<AxisRef> axes;
    bool closed = true;
    std::optional<int64_t> priority; ///< absent = default; an explicit p0 is kept

    bool operator==(const DimSharding& o) const = default;
    /// `{"a", ?}p1`
    std::string toString() const;
};

/// Reduction kind of unreduced axes.
enum class ReductionKind { Sum, Max, Min };
const char* reductionKindName(ReductionKind k); ///< "sum", "max", "min"
/// The kind spelled `name` ("sum", "max", "min"), or nullopt.
std::optional<ReductionKind> parseReductionKind(std::string_view name);

/// Either a mesh symbol `@name` or an inline mesh `mesh<[...]>`.
struct MeshRef {
    std::string symbol;             ///< symbol name without '@' (empty when inline)
    std::optional<Mesh> inlineMesh; ///< set for `mesh<[...]>`

    bool isInline() const { return inlineMesh.has_value(); }
    bool operator==(const MeshRef& o) const = default;
    /// `@name` (symbol printed as MLIR does, quoted if needed) or `mesh<[...]>`.
    std::string toString() const;
};

/// A tensor sharding `<@mesh, [dims...], replicated={...}, unreduced=kind{...}>`.
struct TensorSharding {
    MeshRef mesh;
    std::vector<DimSharding> dims;
    std::vector<AxisRef> replicated;
    std::vector<AxisRef> unreduced;
    ReductionKind unreducedKind = ReductionKind::Sum;

    int rank() const { return static_cast<int>(dims.size()); }
    /// Equal when they print the same: the reduction kind only counts with unreduced axes.
    bool operator==(const TensorSharding& o) const
    {
        return mesh == o.mesh && dims == o.dims && replicated == o.replicated && unreduced == o.unreduced &&
               (unreduced.empty() || unreducedKind == o.unreducedKind);
    }

    /// Stripped body: `<@m, [{"a"}, {}], replicated={"b"}>` (no `#sdy.sharding` prefix).
    std::string toString() const;
    /// Free-standing: `#sdy.sharding<...>`.
    std::string toAttrString() const;

    /// True if any dimension has at least one axis.
    bool hasDimAxes() const;
    /// A fully open, replicated sharding of `rank` dims on `mesh`.
    static TensorSharding open(MeshRef mesh, int rank);
    /// A fully closed, replicated sharding of `rank` dims on `mesh`.
    static TensorSharding closedReplicated(MeshRef mesh, int rank);
};

/// Content hashes consistent with operator== (equal values hash alike). Stable within a process only:
/// never written out. Used to pool equal shardings (trace pools, shared sharding attributes).
uint64_t hashAxisRef(const AxisRef& a);
uint64_t hashSharding(const TensorSharding& s);

/// Several tensor shardings: `#sdy.sharding_per_value<[<...>, <...>]>`.
struct ShardingPerValue {
    std::vector<TensorSharding> shardings;
    bool operator==(const ShardingPerValue& o) const = default;
    /// Stripped: `<[<@m, [...]>, ...]>`.
    std::string toString() const;
    /// `#sdy.sharding_per_value<[...]>`.
    std::string toAttrString() const;
};

/// A list of axis refs joined by ", " inside braces: `{"a", "b":(1)2}`.
std::string axisListString(const std::vector<AxisRef>& axes);

} // namespace shardx
