// TraceData: names of the enums, equality of decisions, pooled lookups, axis keys.
#include "core/trace/TraceData.h"

namespace shardx {

namespace {

const char* const kDecisionNames[] = {
    "compatible-prefix",
    "conflict-across-factors",
    "explicitly-replicated",
    "explicitly-unreduced",
    "closed-dimension",
    "overflow",
    "non-divisible",
    "sub-axis-conservative",
    "aggressive-choice",
    "func-result-step",
    "sharding-constraint",
    "sharding-group-copy",
    "user-priority-held-back",
    "user-priority-restored",
    "sharding-group-sync",
    "import",
    "export",
    "pass",
    "external",
};

} // namespace

bool operator==(const AxisTruncation& a, const AxisTruncation& b)
{
    return a.axis == b.axis && a.replacedBy == b.replacedBy && a.reason == b.reason && a.tensor == b.tensor &&
           a.otherFactor == b.otherFactor;
}

bool operator==(const FactorDecision& a, const FactorDecision& b)
{
    return a.factor == b.factor && a.direction == b.direction && a.compatible == b.compatible && a.result == b.result &&
           a.truncations == b.truncations && a.expandedTensors == b.expandedTensors &&
           a.sourceTensor == b.sourceTensor && a.sourceSize == b.sourceSize && a.order == b.order;
}

const char* traceNodeKindName(TraceNodeKind k)
{
    switch (k) {
    case TraceNodeKind::Pass: return "pass";
    case TraceNodeKind::Stage: return "stage";
    case TraceNodeKind::UserPriority: return "user-priority";
    case TraceNodeKind::OpPriorityRound: return "op-priority-round";
    case TraceNodeKind::Run: return "run";
    }
    return "?";
}

const char* traceStepKindName(TraceStepKind k)
{
    switch (k) {
    case TraceStepKind::Op: return "op";
    case TraceStepKind::Barrier: return "barrier";
    case TraceStepKind::DataFlowEdge: return "data-flow-edge";
    case TraceStepKind::FuncDataFlowEdge: return "func-data-flow-edge";
    case TraceStepKind::FuncResult: return "func-result";
    case TraceStepKind::ApplyConstraint: return "apply-constraint";
    case TraceStepKind::GroupCopy: return "group-copy";
    case TraceStepKind::GroupSync: return "group-sync";
    case TraceStepKind::Skipped: return "skipped";
    case TraceStepKind::Erased: return "erased";
    case TraceStepKind::Stage: return "stage";
    }
    return "?";
}

const char* decisionKindName(DecisionKind k) { return kDecisionNames[static_cast<int>(k)]; }

std::optional<DecisionKind> decisionKindFromName(const std::string& name)
{
    for (int i = 0; i <= static_cast<int>(DecisionKind::External); ++i)
        if (name == kDecisionNames[i])
            return static_cast<DecisionKind>(i);
    return std::nullopt;
}

std::string axisKeyText(const AxisRef& a)
{
    if (!a.sub)
        return a.name;
    return a.name + ":(" + std::to_string(a.sub->preSize) + ")" + std::to_string(a.sub->size);
}

std::optional<AxisRef> parseAxisKeyText(const std::string& text)
{
    const size_t colon = text.rfind(":(");
    if (colon == std::string::npos)
        return text.empty() ? std::nullopt : std::optional<AxisRef>(AxisRef(text));
    const size_t close = text.find(')', colon);
    if (close == std::string::npos || colon == 0)
        return std::nullopt;
    try {
        size_t used = 0;
        const int64_t pre = std::stoll(text.substr(colon + 2, close - colon - 2), &used);
        const std::string rest = text.substr(close + 1);
        size_t used2 = 0;
        const int64_t size = std::stoll(rest, &used2);
        if (used2 != rest.size() || pre < 1 || size < 1)
            return std::nullopt;
        return AxisRef(text.substr(0, colon), pre, size);
    } catch (...) {
        return std::nullopt;
    }
}

const TensorSharding* TraceData::sharding(int id) const
{
    return id >= 0 && static_cast<size_t>(id) < shardings.size() ? &shardings[static_cast<size_t>(id)] : nullptr;
}

const std::string& TraceData::scopeName(int id) const
{
    static const std::string none;
    return id >= 0 && static_cast<size_t>(id) < scopes.size() ? scopes[static_cast<size_t>(id)] : none;
}

const TraceRule& TraceData::rule(const TraceStep& s) const
{
    static const TraceRule none;
    return s.rule >= 0 && static_cast<size_t>(s.rule) < rules.size() ? rules[static_cast<size_t>(s.rule)] : none;
}

const ShardingProjection& TraceData::tablesBefore(const TraceStep& s) const
{
    static const ShardingProjection none;
    return s.before >= 0 && static_cast<size_t>(s.before) < tables.size() ? tables[static_cast<size_t>(s.before)]
                                                                          : none;
}

const ShardingProjection& TraceData::tablesAfter(const TraceStep& s) const
{
    static const ShardingProjection none;
    return s.after >= 0 && static_cast<size_t>(s.after) < tables.size() ? tables[static_cast<size_t>(s.after)] : none;
}

const std::vector<FactorDecision>& TraceData::decisions(const TraceStep& s) const
{
    static const std::vector<FactorDecision> none;
    return s.decisions >= 0 && static_cast<size_t>(s.decisions) < decisionSets.size()
               ? decisionSets[static_cast<size_t>(s.decisions)]
               : none;
}

const std::vector<TraceFactorChange>& TraceData::factorChanges(const TraceChange& c) const
{
    static const std::vector<TraceFactorChange> none;
    return c.factors >= 0 && static_cast<size_t>(c.factors) < factorChangeSets.size()
               ? factorChangeSets[static_cast<size_t>(c.factors)]
               : none;
}

} // namespace shardx
