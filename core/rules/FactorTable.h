// FactorTable: the shardings of one op's tensors projected onto the factors of its rule (SDY.md 4.3).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/mesh/AxisRef.h"
#include "core/mesh/Mesh.h"
#include "core/sharding/OpShardingRule.h"
#include "core/sharding/TensorSharding.h"

namespace shardx {

/// The sharding of one tensor along one factor.
struct FactorCell {
    bool present = false;          ///< false: the factor does not map to this tensor ("N")
    std::vector<AxisRef> axes;     ///< axes sharding the tensor along the factor, major to minor
    std::vector<AxisRef> overflow; ///< axes left over when the factor size did not absorb them
    bool closed = false;           ///< the dimension holding the factor is closed
    bool minorMost = false;        ///< the factor is the last one of its dimension

    bool operator==(const FactorCell& o) const = default;
};

/// One row: an operand or a result of the op.
struct FactorTableRow {
    bool isResult = false;
    int64_t index = 0;             ///< operand or result number
    bool hasSharding = false;      ///< false when the tensor had no sharding (projected as open/closed empty)
    std::vector<FactorCell> cells; ///< one per factor of the rule
    std::vector<AxisRef> replicated;
    std::vector<AxisRef> unreduced;
    ReductionKind unreducedKind = ReductionKind::Sum;
};

/// Projects one tensor's sharding onto the factors of `mapping` (SDY.md 4.3 "Dimension ->
/// factors"). A null sharding is fully open (fully closed with `missingIsClosed`).
std::vector<FactorCell> projectToFactors(const TensorFactorMapping& mapping, const std::vector<int64_t>& factorSizes,
                                         const TensorSharding* sharding, const Mesh& mesh,
                                         bool missingIsClosed = false);

/// Back-projects factor cells to dimension shardings (SDY.md 4.3 "Factors -> dimension"): the
/// result refers to `mesh` by `meshRef`, carries no priorities, and keeps `replicated` /
/// `unreduced` as given.
TensorSharding projectToTensor(const TensorFactorMapping& mapping, const std::vector<int64_t>& factorSizes,
                               const std::vector<FactorCell>& cells, const MeshRef& meshRef, const Mesh& mesh,
                               std::vector<AxisRef> replicated = {}, std::vector<AxisRef> unreduced = {},
                               ReductionKind unreducedKind = ReductionKind::Sum);

/// Rows = operands then results, columns = factors, plus each row's explicitly replicated axes.
class FactorTable {
public:
    /// Builds the table. `operandShardings` / `resultShardings` hold one entry per tensor
    /// (nullopt = no sharding); shorter lists count as missing shardings.
    static FactorTable build(const OpShardingRule& rule,
                             const std::vector<std::optional<TensorSharding>>& operandShardings,
                             const std::vector<std::optional<TensorSharding>>& resultShardings, const Mesh& mesh,
                             bool missingIsClosed = false);

    const OpShardingRule& rule() const { return m_rule; }
    const std::vector<FactorTableRow>& rows() const { return m_rows; }
    size_t numOperands() const { return m_rule.operands.size(); }
    size_t numResults() const { return m_rule.results.size(); }
    const FactorTableRow& operandRow(size_t i) const { return m_rows[i]; }
    const FactorTableRow& resultRow(size_t i) const { return m_rows[numOperands() + i]; }
    /// The cell of `row` and factor `f`.
    const FactorCell& cell(size_t row, int64_t f) const { return m_rows[row].cells[static_cast<size_t>(f)]; }

    /// `N` (absent), `-` (present, no axes), else `"a", "b":(1)2` (overflow after ` | `).
    static std::string cellString(const FactorCell& cell);
    /// The whole table as text, one line per row:
    /// `operand 0: i="a" | j=N | k=- | replicated={"b"}`.
    std::string toString() const;

    /// Back-projection of one row with the mesh the table was built on.
    TensorSharding rowSharding(size_t row, const MeshRef& meshRef) const;

private:
    OpShardingRule m_rule;
    Mesh m_mesh;
    std::vector<FactorTableRow> m_rows;
};

} // namespace shardx
