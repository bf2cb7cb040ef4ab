// OpShardingRuleBuilder: builds an OpShardingRule factor by factor (SDY.md 4.12 conventions).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/ir/Type.h"
#include "core/sharding/OpShardingRule.h"

namespace shardx {

/// The kind of a factor (SDY.md 1.8). Blocked propagation is a separate flag.
enum class FactorKind { PassThrough, Reduction, NeedReplication, Permutation };

/// "This tensor does not get the factor" in the per-tensor dimension lists.
inline constexpr int64_t kNullDim = -1;

/// Builds a rule for tensors of the given shapes. Factors are numbered in creation order;
/// `build()` gives every dimension left without a factor its own size-1 factor (operands
/// first, then results, in dimension order).
class OpShardingRuleBuilder {
public:
    using Shape = std::vector<int64_t>;

    OpShardingRuleBuilder(std::vector<Shape> operandShapes, std::vector<Shape> resultShapes);
    /// Shapes from ranked tensor types (anything else counts as a scalar `[]`).
    static OpShardingRuleBuilder fromTypes(const std::vector<ir::Type>& operandTypes,
                                           const std::vector<ir::Type>& resultTypes);

    size_t numOperands() const { return m_operandShapes.size(); }
    size_t numResults() const { return m_resultShapes.size(); }
    const Shape& operandShape(size_t i) const { return m_operandShapes[i]; }
    const Shape& resultShape(size_t i) const { return m_resultShapes[i]; }

    /// Creates the next factor and appends it to dimension `operandDims[i]` of operand i and
    /// `resultDims[j]` of result j (kNullDim skips the tensor; missing trailing entries count
    /// as kNullDim). A size-1 factor is not appended to a dimension that already has one.
    /// Returns the factor index.
    int64_t addFactor(const std::vector<int64_t>& operandDims, const std::vector<int64_t>& resultDims, int64_t size,
                      FactorKind kind = FactorKind::PassThrough, bool blocked = false);

    /// Creates the next factor on dimension `dim` of every operand and result of rank > 0.
    int64_t addFactorAllTensors(int64_t dim, int64_t size, FactorKind kind = FactorKind::PassThrough,
                                bool blocked = false);

    /// One factor per dimension of `shape` (same dim everywhere). `kindOf(dim)` may choose
    /// the kind of each; `skipDims` are left out.
    void addPointwise(const Shape& shape, const std::function<FactorKind(int64_t)>& kindOf = {},
                      const std::function<bool(int64_t)>& blockedOf = {});

    /// Per dimension of `inShape`/`outShape` (same rank): equal sizes -> one pass-through
    /// factor everywhere; else one factor of the operand size on every tensor, of kind
    /// `mismatchKind`, blocked when `blockMismatch`.
    void addPointwiseWithMismatch(const Shape& inShape, const Shape& outShape, FactorKind mismatchKind,
                                  bool blockMismatch);

    /// Marks the rule custom (user-written).
    void setCustom(bool custom) { m_rule.isCustom = custom; }

    /// Finishes the rule: size-1 factors for empty dimensions, sorted special-factor lists. The rule
    /// is moved out: call it once.
    OpShardingRule build();

    /// A "all operands/results get this dim" helper: a vector of `n` copies of `dim`.
    static std::vector<int64_t> repeat(int64_t dim, size_t n) { return std::vector<int64_t>(n, dim); }

private:
    void appendTo(TensorFactorMapping& map, int64_t dim, int64_t factor, int64_t size);
    int64_t newFactor(int64_t size, FactorKind kind, bool blocked);

    std::vector<Shape> m_operandShapes;
    std::vector<Shape> m_resultShapes;
    OpShardingRule m_rule;
};

} // namespace shardx
