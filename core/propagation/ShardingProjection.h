// ShardingProjection: dimension shardings <-> factor shardings of one op (SDY.md 4.3).
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

/// The sharding of one factor in one tensor: the axes sharding it (major to minor), the
/// overflow axes (axes of the dimension that did not fit the factor), and its flags.
struct FactorSharding {
    std::vector<AxisRef> axes;
    std::vector<AxisRef> overflowAxes;
    bool closed = false;
    bool minorMost = false;

    bool operator==(const FactorSharding& o) const = default;
};

/// The factor sharding table row of one tensor: every factor mapped in the tensor, plus the
/// tensor's replicated and unreduced axes (copied unchanged).
struct TensorFactorShardings {
    std::map<int64_t, FactorSharding> factors;
    std::vector<AxisRef> replicated;
    std::vector<AxisRef> unreduced;
    ReductionKind unreducedKind = ReductionKind::Sum;

    bool hasFactor(int64_t f) const { return factors.count(f) != 0; }
    const FactorSharding* find(int64_t f) const;
    FactorSharding* find(int64_t f);
    bool operator==(const TensorFactorShardings& o) const = default;
};

/// The factor sharding tables of every operand and result of one op.
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
    bool operator==(const ShardingProjection& o) const = default;
};

/// Projects one tensor's sharding onto the factors of `mapping` (dimension -> factors).
/// A missing sharding gives empty factors, open unless `closedIfMissing`.
TensorFactorShardings projectTensor(const TensorSharding* sharding, const TensorFactorMapping& mapping,
                                    const std::vector<int64_t>& factorSizes, const Mesh& mesh,
                                    bool closedIfMissing = false);

/// Projects every operand and result sharding (nullptr = missing) onto `rule`.
ShardingProjection buildProjection(const std::vector<const TensorSharding*>& operandShardings,
                                   const std::vector<const TensorSharding*>& resultShardings,
                                   const OpShardingRule& rule, const Mesh& mesh, bool closedIfMissing = false);

/// Back-projection: the dimension sharding of a tensor from its factor shardings, bound to
/// the mesh named `meshName`, without priorities, with the tensor's replicated/unreduced axes.
TensorSharding backProject(const TensorFactorShardings& table, const TensorFactorMapping& mapping,
                           const std::vector<int64_t>& factorSizes, const std::string& meshName, const Mesh& mesh);

/// The identity rule of a tensor of `shape`: one factor per dimension, for `numOperands`
/// operands and `numResults` results.
OpShardingRule identityRule(const std::vector<int64_t>& shape, int numOperands, int numResults);

/// True if `prefix` is a strict prefix of `full` (SDY.md 4.4 step 3): every element equal
/// except that the last element of `prefix` may be a prefix of the corresponding one, and the
/// lists differ. An empty list is a strict prefix of any non-empty list.
bool isStrictPrefix(const std::vector<AxisRef>& prefix, const std::vector<AxisRef>& full, const Mesh& mesh);

/// Text of a factor table row for debugging: `i: ["a"] j: [] (closed)`.
std::string factorTableString(const TensorFactorShardings& table);

} // namespace shardx
