// Helpers shared by the trace tests: record a pass over MLIR text, replay a trace step by step.
#pragma once

#include <QtTest>

#include <string>
#include <vector>

#include "core/io/MlirReader.h"
#include "core/propagation/DataFlowEdgePasses.h"
#include "core/propagation/PropagationPasses.h"
#include "core/trace/Trace.h"
#include "core/trace/TraceRecorder.h"

namespace shardx::testing {

enum class Strategy { Basic, Aggressive, OpPriority, UserPriority, ApplyConstraints };

/// Parses `text`, runs one pass with a recorder as observer, returns the trace (empty, with a
/// warning, when the text does not parse).
inline Trace recordTrace(const std::string& text, Strategy strategy, int keyframeInterval = 0,
                         bool conservative = false)
{
    DiagnosticList diags;
    auto module = io::parseMlir(text, "test.mlir", diags);
    if (!module) {
        qWarning("%s", diags.formatAll().c_str());
        return Trace();
    }
    TraceRecorder rec(*module);
    PropagationPassOptions o;
    o.base.observer = &rec;
    o.base.conservative = conservative;
    switch (strategy) {
    case Strategy::Basic: runBasicPropagation(*module, o, diags); break;
    case Strategy::Aggressive: runAggressivePropagation(*module, o, diags); break;
    case Strategy::OpPriority: runOpPriorityPropagation(*module, o, diags); break;
    case Strategy::UserPriority: runUserPriorityPropagation(*module, o, diags); break;
    case Strategy::ApplyConstraints: applyShardingConstraints(*module, &rec); break;
    }
    return rec.trace(keyframeInterval);
}

/// Every state of `t` (sharding id per value) by a full replay from the initial one:
/// element k is the state after k steps.
inline std::vector<std::vector<int>> replayStates(const Trace& t)
{
    std::vector<std::vector<int>> states;
    std::vector<int> s = t.data().initial;
    s.resize(t.values().size(), -1);
    states.push_back(s);
    for (const TraceStep& step : t.steps()) {
        applyTraceStep(step, s);
        states.push_back(s);
    }
    return states;
}

} // namespace shardx::testing
