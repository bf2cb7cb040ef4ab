// Explain: why each axis of a value's final sharding is there, and why a neighbour's axis is not.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/support/Expected.h"
#include "core/trace/Trace.h"

namespace shardx {

/// One axis of the explained value: where it came from, or why it is missing.
struct AxisExplanation {
    AxisRef axis;
    int dim = -1; ///< dimension holding it (present axes), or the one it was cut from
    bool present = false;
    int step = -1;        ///< the deciding step, -1 when none (user annotation / never offered)
    std::string sentence; ///< plain English
};

/// The explanation of one value.
struct ValueExplanation {
    int value = -1;
    std::string id;
    std::string displayName;
    std::string scope;
    std::optional<TensorSharding> initial;
    std::optional<TensorSharding> final;
    std::vector<AxisExplanation> present;
    std::vector<AxisExplanation> missing;
};

/// Finds a value by `query`: a trace id (`@main:%arg0`, `@main:op3#0`, `@main:result0`),
/// `@func:argN` / `@func:resultN`, `@func:%N` (printed name), or a `loc` name scope (exact or
/// suffix). Fails naming the candidates when the query is unknown or ambiguous.
Expected<int> findTraceValue(const Trace& trace, const std::string& query);

/// Explains every axis of the value's final sharding and, for each axis a neighbour (a value
/// sharing a step with it) has and it lacks, the step and rule that kept it out. With `axis`,
/// only that axis name is explained.
ValueExplanation explainValue(const Trace& trace, int value, const std::optional<std::string>& axis = std::nullopt);

/// Plain text, one sentence per line.
std::string explanationText(const ValueExplanation& e);
/// The same as JSON (`{"value", "final", "present": [...], "missing": [...]}`).
nlohmann::json explanationJson(const ValueExplanation& e);

} // namespace shardx
