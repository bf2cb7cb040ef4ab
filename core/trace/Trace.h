// Trace: the immutable, replayable record of a propagation (TraceData with its keyframes),
// its JSON form and its validation.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "core/support/Expected.h"
#include "core/trace/TraceData.h"

namespace shardx {

/// An immutable trace. Built by TraceRecorder or read from JSON.
class Trace {
public:
    static constexpr int kFormatVersion = 3;
    /// Keyframes are taken every max(256, steps * values / kKeyframeBudget) steps, so that
    /// they hold at most about kKeyframeBudget sharding ids in all.
    static constexpr int64_t kKeyframeBudget = int64_t(1) << 22;

    /// The keyframe interval a trace of `numSteps` steps over `numValues` values takes when
    /// `requested` (0: 256) is asked for.
    static int keyframeIntervalFor(size_t numSteps, size_t numValues, int requested);

    Trace() = default;
    /// `keyframeInterval` 0 means 256; either way it is raised where needed to keep the keyframes
    /// within kKeyframeBudget sharding ids.
    explicit Trace(TraceData data, int keyframeInterval = 0);

    const TraceData& data() const { return m_data; }
    const std::vector<TraceValue>& values() const { return m_data.values; }
    const std::vector<TraceOp>& ops() const { return m_data.ops; }
    const std::vector<TraceNode>& nodes() const { return m_data.nodes; }
    const std::vector<TraceStep>& steps() const { return m_data.steps; }
    size_t numSteps() const { return m_data.steps.size(); }
    /// The pooled sharding `id`, nullptr for -1.
    const TensorSharding* sharding(int id) const { return m_data.sharding(id); }
    /// The name scope `id` of a value or op, empty for -1.
    const std::string& scopeName(int id) const { return m_data.scopeName(id); }
    /// The pooled rule, factor tables and decisions of a step (empty when it has none).
    const TraceRule& rule(const TraceStep& s) const { return m_data.rule(s); }
    const ShardingProjection& tablesBefore(const TraceStep& s) const { return m_data.tablesBefore(s); }
    const ShardingProjection& tablesAfter(const TraceStep& s) const { return m_data.tablesAfter(s); }
    const std::vector<FactorDecision>& decisions(const TraceStep& s) const { return m_data.decisions(s); }
    const std::vector<TraceFactorChange>& factorChanges(const TraceChange& c) const { return m_data.factorChanges(c); }
    int keyframeInterval() const { return m_interval; }
    /// State (sharding id per value) after `keyframe * keyframeInterval()` steps. The keyframes
    /// are an index for seeking, built by one replay on first use (thread-safe).
    const std::vector<int>& keyframe(size_t keyframe) const { return keyframes()[keyframe]; }
    size_t numKeyframes() const { return keyframes().size(); }

    /// Versioned JSON `{"format": "shardx-trace", "version": 3, ...}`: the pools, then one step per
    /// line, fields at their defaults left out.
    std::string toJson() const;
    /// The same written to `out` as it goes (a 100k-op trace never exists as one JSON tree).
    void writeJson(std::ostream& out) const;
    /// Reads and validates a document written by toJson(); errors name the JSON path.
    static Expected<Trace> fromJson(const std::string& text);
    /// Checks that every index is in range and that each change's `before` is the state it
    /// replaces (what backwards seeking relies on); the message names the step.
    static Status validate(const TraceData& data);

    bool operator==(const Trace& o) const { return m_data == o.m_data; }

private:
    TraceData m_data;
    const std::vector<std::vector<int>>& keyframes() const;

    int m_interval = 256;
    /// Built on first use; copies of a trace share it.
    mutable std::shared_ptr<const std::vector<std::vector<int>>> m_keyframes;
};

} // namespace shardx
