// ExplicitRules: JAX's per-op sharding rules of explicit mode (seed 001) on explicit types.
#pragma once

#include <string>
#include <vector>

#include "core/explicit/ExplicitType.h"
#include "core/ir/Operation.h"

namespace shardx::explicit_ {

/// The result types an op's rule gives, or the error JAX raises (with the types shardx carries on
/// with after it).
struct RuleResult {
    std::vector<ExplicitType> results; ///< one per result (an untyped result gets a rank-0 placeholder)
    std::string error;                 ///< empty when the rule applies
    bool noRule = false;               ///< the op has no rule (an out sharding would be needed)
};

/// Applies the rule of `op` to its operand types (nullptr for an operand that has no type). The
/// rule's own errors (mismatched zipped dimensions, ambiguous contractions, unsupported reshapes,
/// slicing a sharded dimension) come back in `error`; a result naming a mesh axis twice is
/// checked afterwards by checkIllegalResults.
RuleResult applyExplicitRule(const ir::Op& op, const std::vector<const ExplicitType*>& operands);

/// The error for results naming a mesh axis twice (`add operation with inputs: i32[4@X,4],
/// i32[4,4@X] produces an illegally sharded result: i32[4@X,4@X] ...`), empty when none does;
/// such results are recovered by dropping each repeated axis after its first use.
std::string checkIllegalResults(const ir::Op& op, const std::vector<const ExplicitType*>& operands,
                                std::vector<ExplicitType>& results);

/// JAX's name of the op's primitive: `add` for stablehlo.add, `dot_general`, `reshape`.
std::string primitiveName(const ir::Op& op);
/// The operand types as JAX lists them in errors: `i32[4@X,4], i32[4,4@X]`.
std::string operandTypesText(const std::vector<const ExplicitType*>& operands);

} // namespace shardx::explicit_
