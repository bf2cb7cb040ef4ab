// Helpers shared by the trace tests: record a propagation over MLIR text through the Session,
// replay a trace step by step.
#pragma once

#include <QtTest>

#include <string>
#include <utility>
#include <vector>

#include "core/session/Session.h"
#include "core/trace/Trace.h"
#include "core/trace/TraceCursor.h"

namespace shardx::testing {

/// Every sample of the repository (samples/*.mlir) as (file name, text), in name order.
inline std::vector<std::pair<std::string, std::string>> sampleTexts()
{
    std::vector<std::pair<std::string, std::string>> out;
    QDir dir(QStringLiteral(SHARDX_SOURCE_DIR "/samples"));
    for (const QString& name : dir.entryList({QStringLiteral("*.mlir")}, QDir::Files, QDir::Name)) {
        QFile f(dir.filePath(name));
        if (f.open(QIODevice::ReadOnly))
            out.emplace_back(name.toStdString(), f.readAll().toStdString());
    }
    return out;
}

/// Opens `text` in a Session and propagates with recording: `what` is a strategy name
/// (`basic`, `aggressive`, `op-priority`, `user-priority`, `pipeline`) or a pass flag (`-sdy-...`).
/// Returns the trace; an empty one, with a warning, when the text does not open or propagation
/// fails.
inline Trace recordTrace(const std::string& text, const std::string& what, int keyframeInterval = 0,
                         bool conservative = false)
{
    Session session;
    OpenOptions open;
    open.verify = false;
    if (!session.openText(text, "test.mlir", open)) {
        qWarning("%s", session.diagnostics().formatAll().c_str());
        return Trace();
    }
    PropagationRequest request;
    if (!what.empty() && what[0] == '-')
        request.passes = {what};
    else
        request.strategy = what;
    if (conservative)
        request.strategyOptions["conservative-propagation"] = "true";
    request.keyframeInterval = keyframeInterval;
    request.verifyAfterEachPass = false;
    const PropagationResult result = session.propagate(request);
    if (!result.ok || !session.trace()) {
        qWarning("%s", result.diagnostics.formatAll().c_str());
        return Trace();
    }
    return *session.trace();
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
