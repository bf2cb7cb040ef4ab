// Breakpoints (Breakpoints.h): matching recorded steps, conflicts, and where continue / step over / step out stop.
#include "core/trace/Breakpoints.h"

#include <algorithm>

namespace shardx {

namespace {

bool hasAxisNamed(const std::vector<AxisRef>& axes, const std::string& name)
{
    return std::any_of(axes.begin(), axes.end(), [&](const AxisRef& a) { return a.name == name; });
}

bool shardingHasAxis(const TensorSharding* s, const std::string& name)
{
    if (!s)
        return false;
    for (const DimSharding& d : s->dims)
        if (hasAxisNamed(d.axes, name))
            return true;
    return hasAxisNamed(s->replicated, name) || hasAxisNamed(s->unreduced, name);
}

/// True when `prefix` is a prefix of `axes` (axis by axis).
bool isPrefix(const std::vector<AxisRef>& prefix, const std::vector<AxisRef>& axes)
{
    return prefix.size() <= axes.size() && std::equal(prefix.begin(), prefix.end(), axes.begin());
}

} // namespace

const char* breakpointKindName(BreakpointKind k)
{
    switch (k) {
    case BreakpointKind::Op: return "op";
    case BreakpointKind::Value: return "value";
    case BreakpointKind::Axis: return "axis";
    case BreakpointKind::Decision: return "decision";
    case BreakpointKind::AnyConflict: return "any conflict";
    }
    return "?";
}

std::string breakpointLabel(const Trace& trace, const Breakpoint& b)
{
    auto valueName = [&](int v) {
        return v >= 0 && static_cast<size_t>(v) < trace.values().size() ? trace.values()[static_cast<size_t>(v)].id
                                                                        : std::string("?");
    };
    switch (b.kind) {
    case BreakpointKind::Op: {
        if (b.op < 0 || static_cast<size_t>(b.op) >= trace.ops().size())
            return "op ?";
        const TraceOp& op = trace.ops()[static_cast<size_t>(b.op)];
        return "op " + op.id + " (" + op.name + ")";
    }
    case BreakpointKind::Value: return "value " + valueName(b.value);
    case BreakpointKind::Axis: return "axis \"" + b.axis + "\"" + (b.value >= 0 ? " on " + valueName(b.value) : "");
    case BreakpointKind::Decision: return std::string("decision ") + decisionKindName(b.decision);
    case BreakpointKind::AnyConflict: return "any conflict";
    }
    return "?";
}

bool stepHasConflict(const Trace& trace, size_t stepIndex)
{
    const TraceStep& s = trace.steps()[stepIndex];
    if (s.kind == TraceStepKind::GroupSync)
        return s.note == "conflict";
    for (const TraceChange& c : s.changes)
        for (const TraceFactorChange& fc : trace.factorChanges(c))
            if (fc.decision.kind != DecisionKind::CompatiblePrefix &&
                fc.decision.kind != DecisionKind::AggressiveChoice && fc.decision.axis)
                return true;
    if (s.decisions < 0)
        return false;
    const std::vector<FactorDecision>& decisions = trace.decisions(s);
    for (const FactorDecision& d : decisions)
        if (!d.truncations.empty())
            return true;
    // A tensor that held axes the step did not take for it: the tensors disagreed on the factor.
    if (s.before < 0)
        return false;
    const ShardingProjection& before = trace.tablesBefore(s);
    for (const FactorDecision& d : decisions)
        for (int t = 0; t < before.numTensors(); ++t)
            if (const FactorSharding* cell = before.tensor(t).find(d.factor))
                if (!cell->axes.empty() && !isPrefix(cell->axes, d.result) && !isPrefix(d.result, cell->axes))
                    return true;
    return false;
}

bool stepHits(const Trace& trace, size_t stepIndex, const Breakpoint& b)
{
    const TraceStep& s = trace.steps()[stepIndex];
    switch (b.kind) {
    case BreakpointKind::Op: return b.op >= 0 && s.op == b.op;
    case BreakpointKind::Value:
        return std::any_of(s.changes.begin(), s.changes.end(),
                           [&](const TraceChange& c) { return c.value == b.value; });
    case BreakpointKind::Axis:
        for (const TraceChange& c : s.changes) {
            if (b.value >= 0 && c.value != b.value)
                continue;
            if (shardingHasAxis(trace.sharding(c.before), b.axis) != shardingHasAxis(trace.sharding(c.after), b.axis))
                return true;
        }
        return false;
    case BreakpointKind::Decision:
        for (const TraceChange& c : s.changes) {
            if (c.factors < 0 && c.kind == b.decision)
                return true;
            for (const TraceFactorChange& fc : trace.factorChanges(c))
                if (fc.decision.kind == b.decision)
                    return true;
        }
        return false;
    case BreakpointKind::AnyConflict: return stepHasConflict(trace, stepIndex);
    }
    return false;
}

std::optional<size_t> nextBreakpointPosition(const Trace& trace, size_t position,
                                             const std::vector<Breakpoint>& breakpoints, bool forward)
{
    auto hits = [&](size_t i) {
        return std::any_of(breakpoints.begin(), breakpoints.end(),
                           [&](const Breakpoint& b) { return b.enabled && stepHits(trace, i, b); });
    };
    const size_t n = trace.numSteps();
    if (forward) {
        for (size_t i = std::min(position, n); i < n; ++i)
            if (hits(i))
                return i + 1;
        return std::nullopt;
    }
    for (size_t i = std::min(position, n); i-- > 1;)
        if (hits(i - 1))
            return i;
    return std::nullopt;
}

size_t positionAfterOp(const Trace& trace, size_t position)
{
    const size_t n = trace.numSteps();
    if (position >= n)
        return n;
    const int op = trace.steps()[position].op;
    size_t p = position + 1;
    while (op >= 0 && p < n && trace.steps()[p].op == op)
        ++p;
    return p;
}

size_t positionAfterNode(const Trace& trace, size_t position)
{
    const size_t n = trace.numSteps();
    if (position >= n)
        return n;
    const int node = trace.steps()[position].node;
    if (node < 0)
        return n;
    const TraceNode& tn = trace.nodes()[static_cast<size_t>(node)];
    return std::max(position + 1, static_cast<size_t>(tn.endStep));
}

} // namespace shardx
