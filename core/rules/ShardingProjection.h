// ShardingProjection: one op's factor table, its tensor shardings projected onto the factors of
// its rule and back (SDY.md 4.3), and the table's text.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/mesh/AxisRef.h"
#include "core/mesh/Mesh.h"
#include "core/sharding/OpShardingRule.h"
#include "core/sharding/TensorSharding.h"

namespace shardx {

/// The sharding of one factor in one tensor (a cell of the factor table): the axes sharding it
/// (major to minor), the overflow axes (axes of the dimension that did not fit the factor), and
/// its flags.
struct FactorSharding {
    std::vector<AxisRef> axes;
    std::vector<AxisRef> overflowAxes;
    bool closed = false;    ///< the dimension holding the factor is closed (or an earlier factor overflowed)
    bool minorMost = false; ///< the factor is the last one of its dimension

    bool operator==(const FactorSharding& o) const = default;
};

/// The factor table row of one tensor: every factor mapped in the tensor, plus the tensor's
/// replicated and unreduced axes (copied unchanged).
struct TensorFactorShardings {
    std::map<int64_t, FactorSharding> factors;
    std::vector<AxisRef> replicated;
    std::vector<AxisRef> unreduced;
    ReductionKind unreducedKind = ReductionKind::Sum;
    /// False when the tensor had no sharding and was projected as empty factors (open, or closed
    /// in explicit-reshard mode).
    bool hasSharding = true;

    bool hasFactor(int64_t f) const { return factors.count(f) != 0; }
    /// The cell of factor `f`, or null when `f` does not map to this tensor.
    const FactorSharding* find(int64_t f) const;
    FactorSharding* find(int64_t f);
    bool operator==(const TensorFactorShardings& o) const = default;
};

/// The factor table of one op: a row per operand, then per result.
struct ShardingProjection {
    std::vector<TensorFactorShardings> operands;
    std::vector<TensorFactorShardings> results;

    int numOperands() const { return static_cast<int>(operands.size()); }
    int numResults() const { return static_cast<int>(results.size()); }
    int numTensors() const { return numOperands() + numResults(); }
    /// Tensor `t` counting operands first, then results.
    TensorFactorShardings& tensor(int t) { return t < numOperands() ? operands[t] : results[t - numOperands()]; }
    const TensorFactorShardings& tensor(int t) const
    {
        return t < numOperands() ? operands[t] : results[t - numOperands()];
    }
    /// True if row `t` is a result.
    bool isResult(int t) const { return t >= numOperands(); }
    /// The operand or result number of row `t`.
    int indexOf(int t) const { return isResult(t) ? t - numOperands() : t; }
    /// `operand 0` or `result 1`.
    std::string rowName(int t) const;
    bool operator==(const ShardingProjection& o) const = default;
};

/// Projects one tensor's sharding onto the factors of `mapping` (dimension -> factors). Split
/// axes: a factor that is not the minor-most of its dimension takes whole pieces as they are
/// (the original axis ref, or the remaining sub-axis of a split one) and splits off
/// `"a":(pre)gcd` sub-axes; only the minor-most factor and the overflow merge consecutive
/// sub-axes. A missing sharding gives empty factors, open unless `closedIfMissing`. Axes
/// unknown to `mesh` count as size 1.
TensorFactorShardings projectTensor(const TensorSharding* sharding, const TensorFactorMapping& mapping,
                                    const std::vector<int64_t>& factorSizes, const Mesh& mesh,
                                    bool closedIfMissing = false);

/// Projects every operand and result sharding (nullptr = missing; shorter lists count as
/// missing) onto `rule`.
ShardingProjection buildProjection(const std::vector<const TensorSharding*>& operandShardings,
                                   const std::vector<const TensorSharding*>& resultShardings,
                                   const OpShardingRule& rule, const Mesh& mesh, bool closedIfMissing = false);

/// Back-projection (factors -> dimension): the dimension sharding of a tensor from its factor
/// shardings, bound to the mesh named `meshName`, without priorities, with the tensor's
/// replicated/unreduced axes.
TensorSharding backProject(const TensorFactorShardings& table, const TensorFactorMapping& mapping,
                           const std::vector<int64_t>& factorSizes, const std::string& meshName, const Mesh& mesh);

/// The identity rule of a tensor of `shape`: one factor per dimension, for `numOperands`
/// operands and `numResults` results.
OpShardingRule identityRule(const std::vector<int64_t>& shape, int numOperands, int numResults);

/// True if `prefix` is a strict prefix of `full` (SDY.md 4.4 step 3): every element equal
/// except that the last element of `prefix` may be a prefix of the corresponding one, and the
/// lists differ. An empty list is a strict prefix of any non-empty list.
bool isStrictPrefix(const std::vector<AxisRef>& prefix, const std::vector<AxisRef>& full, const Mesh& mesh);

/// The text of one cell: `N` when `fs` is null (the factor does not map to the tensor), `-`
/// when it has neither axes nor overflow, else `"a", "b":(1)2` with the overflow axes after
/// ` | `.
std::string factorCellString(const FactorSharding* fs);

/// One row of the table with `numFactors` columns:
/// `operand 0: i="a" | j=N | k=- | replicated={"b"}`, then ` | unreduced={...}` (`max{...}`,
/// `min{...}` for other kinds) when the tensor has unreduced axes.
std::string factorRowString(const ShardingProjection& p, int t, int64_t numFactors);

/// The whole table, one row per line (each ending in a newline), operands first.
std::string factorTableString(const ShardingProjection& p, int64_t numFactors);

} // namespace shardx
