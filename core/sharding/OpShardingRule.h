// OpShardingRule: the factor mapping of an op (#sdy.op_sharding_rule), data and text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace shardx {

/// Factors of one tensor dimension, major to minor (several = compound factor).
using DimFactors = std::vector<int64_t>;
/// One tensor's mapping: a DimFactors per dimension (empty for a scalar).
using TensorFactorMapping = std::vector<DimFactors>;

/// `#sdy.op_sharding_rule<([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}>`.
struct OpShardingRule {
    std::vector<int64_t> factorSizes;
    std::vector<TensorFactorMapping> operands;
    std::vector<TensorFactorMapping> results;
    std::vector<int64_t> reductionFactors;
    std::vector<int64_t> needReplicationFactors;
    std::vector<int64_t> permutationFactors;
    std::vector<int64_t> blockedPropagationFactors;
    bool isCustom = false;

    int64_t numFactors() const { return static_cast<int64_t>(factorSizes.size()); }
    bool operator==(const OpShardingRule& o) const = default;

    /// Stripped body: `<([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}>`.
    std::string toString() const;
    /// `#sdy.op_sharding_rule<...>`.
    std::string toAttrString() const;
};

/// Content hash consistent with operator== (stable within a process only; never written out).
uint64_t hashRule(const OpShardingRule& r);

/// Name of factor index `f`: `i`..`z` for 0..17, then `z_1`, `z_2`, ...
std::string factorName(int64_t f);

} // namespace shardx
