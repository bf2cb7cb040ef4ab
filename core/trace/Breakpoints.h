// Breakpoints: which recorded steps a debugger stops at (an op, a value, an axis, a decision kind, any conflict).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/trace/Trace.h"

namespace shardx {

enum class BreakpointKind {
    Op,          ///< a step on op `op`
    Value,       ///< a step that changes the sharding of value `value`
    Axis,        ///< a step that adds or removes axis `axis` in some value (in `value` only, if set)
    Decision,    ///< a step with a change decided by `decision`
    AnyConflict, ///< a step where tensors disagreed and an axis was cut or not taken
};
const char* breakpointKindName(BreakpointKind k);

/// Where a debugger stops. Ids are trace indices (Trace::ops(), Trace::values()).
struct Breakpoint {
    BreakpointKind kind = BreakpointKind::AnyConflict;
    int op = -1;
    int value = -1;
    std::string axis; ///< an axis name (`"x"`); sub-axes of it count
    DecisionKind decision = DecisionKind::ConflictAcrossFactors;
    bool enabled = true;
    bool operator==(const Breakpoint& o) const = default;
};

/// A line for lists: `op %3 = stablehlo.add`, `value %arg0`, `axis "x" on %2`, `decision conflict-across-factors`, `any
/// conflict`.
std::string breakpointLabel(const Trace& trace, const Breakpoint& b);

/// True when the step at `stepIndex` hits `b` (ignores `enabled`).
bool stepHits(const Trace& trace, size_t stepIndex, const Breakpoint& b);

/// True when tensors of the step disagreed on a factor: an axis was cut (a truncation), a tensor
/// kept axes the result did not take, or a sharding group synchronised with a conflict.
bool stepHasConflict(const Trace& trace, size_t stepIndex);

/// The cursor position (steps applied) after the next step that hits an enabled breakpoint,
/// searching forwards from `position` (steps position, position+1, ...) or backwards (steps
/// position-2, position-3, ...: the step the cursor is after does not count); nullopt when none.
std::optional<size_t> nextBreakpointPosition(const Trace& trace, size_t position,
                                             const std::vector<Breakpoint>& breakpoints, bool forward);

/// "Step over op": the position after the run of consecutive steps on the op of the next step
/// (step `position`), or after that one step when it has no op. numSteps() at the end.
size_t positionAfterOp(const Trace& trace, size_t position);
/// "Step out": the position after the last step of the innermost tree node (run, op-priority
/// round, user priority, stage or pass) holding the next step.
size_t positionAfterNode(const Trace& trace, size_t position);

} // namespace shardx
