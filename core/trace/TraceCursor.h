// TraceCursor: the state of every value after any number of steps of a Trace.
#pragma once

#include <cstddef>
#include <vector>

#include "core/trace/Trace.h"

namespace shardx {

/// Positions on a trace: the sharding of every value after any number of steps.
class TraceCursor {
public:
    explicit TraceCursor(const Trace& trace);
    /// Moves to the state after the first `step` steps (0 = initial, numSteps() = final):
    /// from the current position (forwards, or backwards by undoing steps) or from the nearest
    /// keyframe, whichever applies fewer steps; at most keyframeInterval() / 2 or so.
    void seek(size_t step);
    size_t position() const { return m_position; }
    /// Sharding of `value` at the current position, nullptr for none.
    const TensorSharding* sharding(int value) const;
    /// Sharding id per value (ids index TraceData::shardings, -1 for none).
    const std::vector<int>& state() const { return m_state; }

private:
    const Trace* m_trace;
    size_t m_position = 0;
    std::vector<int> m_state;
};

/// Applies the changes of `step` to `state` (sharding ids, grown to fit).
void applyTraceStep(const TraceStep& step, std::vector<int>& state);
/// Undoes the changes of `step` on `state` (the state after it becomes the state before it).
void undoTraceStep(const TraceStep& step, std::vector<int>& state);

} // namespace shardx
