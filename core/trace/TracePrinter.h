// The text form of a trace: one line per node and per step (`shardx-cli trace print`).
#pragma once

#include <string>

#include "core/trace/Trace.h"

namespace shardx {

/// Deterministic text: a header, the initial shardings, then one line per node and per step with
/// its changes and decisions.
std::string printTrace(const Trace& trace);

} // namespace shardx
