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
    std::string displayName; ///< as the file prints it (`%5`)
    std::string opName;      ///< the defining op (`stablehlo.add`), empty for arguments and results
    std::string owner;       ///< the function (`@main`), or the op holding its region (`@main:%3`)
    std::string scope;       ///< the `loc` name scope
    std::string derivedFrom; ///< for a value a pass inserted: the user's value it stands for
    std::optional<TensorSharding> initial;
    std::optional<TensorSharding> final;
    std::vector<AxisExplanation> present;
    std::vector<AxisExplanation> missing;
    /// Ops next to the value that propagation did not cross (no sharding rule: an op shardx does
    /// not know, a custom call without a rule), one sentence each, with the step that skipped it.
    std::vector<std::string> blockedBy;
};

/// Finds a value by `query` as ir::findByUserName does: a trace id (`@main:%arg0`, `@main:%3`,
/// `@main:result0`), a name as the file prints it (`%3`, `@main:%3`, `@main:arg0`), or a `loc`
/// name scope (whole or its trailing `/` parts). Fails naming the candidates when the query is
/// unknown or ambiguous.
Expected<int> findTraceValue(const Trace& trace, const std::string& query);

/// Explains every axis of the value's final sharding and, for each axis a neighbour (a value
/// sharing a step with it) has and it lacks, the step and rule that kept it out. With `axis`,
/// only that axis name is explained.
ValueExplanation explainValue(const Trace& trace, int value, const std::optional<std::string>& axis = std::nullopt);

/// Where one axis of a value's final sharding came from.
struct AxisOrigin {
    AxisRef axis;
    int dim = -1;
    /// The value whose own sharding held the axis before propagation (the user's annotation it
    /// was propagated from, or the value itself), -1 when a stage set it (see `steps`).
    int from = -1;
    /// The steps that carried it, latest first.
    std::vector<int> steps;
};

/// Follows every axis of `value`'s final sharding back through the steps that brought it (the
/// first source of each factor change, group copies) to the value whose initial sharding held
/// it, as Shardy's `sdy.sharding_origins` does.
std::vector<AxisOrigin> traceOrigins(const Trace& trace, int value);

/// A trace indexed for questions about many of its values (the causes of Session::partition's
/// collectives, Session::replicatedTensors): the state after the last step, and per value the
/// steps that change it and the steps it takes part in, so that each question reads only those
/// steps instead of the whole trace. Built in one pass; the trace must outlive it.
class TraceValueIndex {
public:
    explicit TraceValueIndex(const Trace& trace);
    const Trace& trace() const { return m_trace; }
    /// The sharding of `value` after the last step, nullptr for none.
    const TensorSharding* finalSharding(int value) const;
    /// The steps with a change of `value`, ascending; empty for an unknown value.
    const std::vector<int>& stepsChanging(int value) const;
    /// Where a change of a value is: its step and its index in TraceStep::changes.
    struct ChangeRef {
        int step = -1;
        int change = -1;
    };
    /// The changes of `value`, ascending (by step, then by their order in the step); empty for
    /// an unknown value.
    const std::vector<ChangeRef>& changesOf(int value) const;
    /// The steps whose tensors include `value`, ascending; empty for an unknown value.
    const std::vector<int>& stepsInvolving(int value) const;
    /// The last step of op `op` (an index in Trace::ops()), -1 when none.
    int lastStepOfOp(int op) const;

private:
    const Trace& m_trace;
    std::vector<int> m_final;                      ///< sharding id per value after the last step
    std::vector<std::vector<int>> m_changing;      ///< per value
    std::vector<std::vector<ChangeRef>> m_changes; ///< per value
    std::vector<std::vector<int>> m_involving;     ///< per value
    std::vector<int> m_lastStepOfOp;
};

/// explainValue() and traceOrigins() on an index of the trace (the same answers).
ValueExplanation explainValue(const TraceValueIndex& index, int value,
                              const std::optional<std::string>& axis = std::nullopt);
std::vector<AxisOrigin> traceOrigins(const TraceValueIndex& index, int value);

/// `step #12 (op stablehlo.add at layer_0/add, op-priority round 1)`.
std::string describeStepHeader(const Trace& trace, size_t stepIndex);
/// What step `stepIndex` changed and why, one sentence per factor change (or per whole change):
/// `%5 (@main:%5) dimension 0 (factor i): {} -> {"x"}: it is the compatible sharding of factor i
/// from operand 0 (%arg0)`; for a step that changed nothing, why (a skipped op's reason).
std::vector<std::string> describeStep(const Trace& trace, size_t stepIndex);

/// Plain text, one sentence per line.
std::string explanationText(const ValueExplanation& e);
/// The same as JSON (`{"value", "final", "present": [...], "missing": [...]}`).
nlohmann::json explanationJson(const ValueExplanation& e);

} // namespace shardx
