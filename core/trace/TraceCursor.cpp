// TraceCursor: seeking forwards (applying steps) and backwards (undoing them) from keyframes.
#include "core/trace/TraceCursor.h"

namespace shardx {

void applyTraceStep(const TraceStep& step, std::vector<int>& state)
{
    for (const TraceChange& c : step.changes) {
        if (c.value < 0)
            continue;
        if (static_cast<size_t>(c.value) >= state.size())
            state.resize(static_cast<size_t>(c.value) + 1, -1);
        state[static_cast<size_t>(c.value)] = c.after;
    }
}

void undoTraceStep(const TraceStep& step, std::vector<int>& state)
{
    for (auto it = step.changes.rbegin(); it != step.changes.rend(); ++it) {
        if (it->value < 0)
            continue;
        if (static_cast<size_t>(it->value) >= state.size())
            state.resize(static_cast<size_t>(it->value) + 1, -1);
        state[static_cast<size_t>(it->value)] = it->before;
    }
}

TraceCursor::TraceCursor(const Trace& trace) : m_trace(&trace), m_state(trace.keyframe(0)) {}

void TraceCursor::seek(size_t step)
{
    step = std::min(step, m_trace->numSteps());
    const auto& steps = m_trace->steps();
    const size_t interval = static_cast<size_t>(m_trace->keyframeInterval());
    // Cost in step applications of each way there; restoring a keyframe costs about one step
    // per 64 values (a copy of the state).
    const size_t restore = m_state.size() / 64 + 1;
    const size_t fromHere = step >= m_position ? step - m_position : m_position - step;
    const size_t below = std::min(step / interval, m_trace->numKeyframes() - 1);
    const size_t fromBelow = restore + (step - below * interval);
    const size_t above = step / interval + 1;
    const bool haveAbove = above < m_trace->numKeyframes();
    const size_t fromAbove = haveAbove ? restore + (above * interval - step) : SIZE_MAX;
    if (fromBelow < fromHere && fromBelow <= fromAbove) {
        m_state = m_trace->keyframe(below);
        m_position = below * interval;
    } else if (fromAbove < fromHere) {
        m_state = m_trace->keyframe(above);
        m_position = above * interval;
    }
    for (; m_position < step; ++m_position)
        applyTraceStep(steps[m_position], m_state);
    for (; m_position > step; --m_position)
        undoTraceStep(steps[m_position - 1], m_state);
}

const TensorSharding* TraceCursor::sharding(int value) const
{
    if (value < 0 || static_cast<size_t>(value) >= m_state.size())
        return nullptr;
    return m_trace->sharding(m_state[static_cast<size_t>(value)]);
}

} // namespace shardx
