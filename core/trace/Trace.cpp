// Trace: validation and keyframes (the JSON form is in TraceJson.cpp).
#include "core/trace/Trace.h"

#include <algorithm>
#include <mutex>

#include "core/trace/TraceCursor.h"

namespace shardx {

Status Trace::validate(const TraceData& d)
{
    auto fail = [](const std::string& where, const std::string& what) {
        return Status(Error{where + ": " + what, {}});
    };
    auto inRange = [](int id, size_t size) { return id >= -1 && (id < 0 || static_cast<size_t>(id) < size); };
    if (d.initial.size() != d.values.size())
        return fail("initial", "expected one sharding id per value");
    for (size_t v = 0; v < d.values.size(); ++v) {
        if (!inRange(d.values[v].scope, d.scopes.size()))
            return fail("values/" + std::to_string(v) + "/scope", "scope index out of range");
        if (!inRange(d.values[v].op, d.ops.size()))
            return fail("values/" + std::to_string(v) + "/op", "op index out of range");
        if (!inRange(d.values[v].derivedFrom, d.values.size()))
            return fail("values/" + std::to_string(v) + "/from", "value index out of range");
    }
    for (size_t o = 0; o < d.ops.size(); ++o)
        if (!inRange(d.ops[o].scope, d.scopes.size()))
            return fail("ops/" + std::to_string(o) + "/scope", "scope index out of range");
    std::vector<int> state = d.initial;
    for (size_t v = 0; v < state.size(); ++v)
        if (!inRange(state[v], d.shardings.size()))
            return fail("initial/" + std::to_string(v), "sharding id out of range");
    for (size_t i = 0; i < d.steps.size(); ++i) {
        const TraceStep& s = d.steps[i];
        const std::string at = "steps/" + std::to_string(i);
        if (!inRange(s.node, d.nodes.size()) || !inRange(s.op, d.ops.size()))
            return fail(at, "node or op index out of range");
        if (!inRange(s.rule, d.rules.size()) || !inRange(s.before, d.tables.size()) ||
            !inRange(s.after, d.tables.size()) || !inRange(s.decisions, d.decisionSets.size()))
            return fail(at, "rule, table or decision index out of range");
        for (int v : s.tensorValues)
            if (!inRange(v, d.values.size()))
                return fail(at + "/tensorValues", "value index out of range");
        for (size_t c = 0; c < s.changes.size(); ++c) {
            const TraceChange& ch = s.changes[c];
            const std::string cat = at + "/changes/" + std::to_string(c);
            if (!inRange(ch.value, d.values.size()))
                return fail(cat + "/value", "value index out of range");
            if (!inRange(ch.factors, d.factorChangeSets.size()))
                return fail(cat + "/factors", "factor change set index out of range");
            if (!inRange(ch.before, d.shardings.size()) || !inRange(ch.after, d.shardings.size()))
                return fail(cat, "sharding id out of range");
            if (ch.value < 0)
                continue;
            int& cur = state[static_cast<size_t>(ch.value)];
            if (cur != ch.before)
                return fail(cat + "/before", "does not match the value's sharding before the step");
            cur = ch.after;
        }
    }
    return Status::success();
}

int Trace::keyframeIntervalFor(size_t numSteps, size_t numValues, int requested)
{
    // Never more keyframe cells than the budget, whatever interval was asked for.
    const int64_t cells = static_cast<int64_t>(numSteps) * static_cast<int64_t>(numValues);
    const int64_t minimum = std::max<int64_t>(1, (cells + kKeyframeBudget - 1) / kKeyframeBudget);
    return static_cast<int>(std::max<int64_t>(requested > 0 ? requested : 256, minimum));
}

Trace::Trace(TraceData data, int keyframeInterval)
    : m_data(std::move(data)),
      m_interval(keyframeIntervalFor(m_data.steps.size(), m_data.values.size(), keyframeInterval))
{}

const std::vector<std::vector<int>>& Trace::keyframes() const
{
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    if (!m_keyframes) {
        auto frames = std::make_shared<std::vector<std::vector<int>>>();
        std::vector<int> state = m_data.initial;
        state.resize(m_data.values.size(), -1);
        frames->reserve(m_data.steps.size() / static_cast<size_t>(m_interval) + 1);
        frames->push_back(state);
        for (size_t i = 0; i < m_data.steps.size(); ++i) {
            applyTraceStep(m_data.steps[i], state);
            if ((i + 1) % static_cast<size_t>(m_interval) == 0)
                frames->push_back(state);
        }
        m_keyframes = std::move(frames);
    }
    return *m_keyframes;
}

} // namespace shardx
