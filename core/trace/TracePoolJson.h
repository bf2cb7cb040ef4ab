// TracePoolJson: the pooled entries of a trace (shardings, rules, tables, decisions, factor
// changes) one at a time in their JSON form, as the binary trace stores them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/support/Expected.h"
#include "core/trace/TraceData.h"

namespace shardx {

/// The pools of TraceData, in the order the binary trace lists them.
enum class TracePool { Shardings, Rules, Tables, DecisionSets, FactorChangeSets };
inline constexpr int kNumTracePools = 5;

/// Number of entries of pool `p` of `d`.
size_t tracePoolSize(const TraceData& d, TracePool p);
/// Entry `i` of pool `p` as compact JSON text: the element the JSON trace lists for it.
std::string tracePoolEntryJson(const TraceData& d, TracePool p, size_t i);
/// Reads one entry written by tracePoolEntryJson() and appends it to pool `p` of `d`; the error
/// names the JSON path inside the entry.
Status appendTracePoolEntry(TraceData& d, TracePool p, std::string_view text);

} // namespace shardx
