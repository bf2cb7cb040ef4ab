// The text form of a trace.
#include "core/trace/TracePrinter.h"

#include <algorithm>
#include <sstream>

namespace shardx {

namespace {

std::string shardingText(const TensorSharding* s) { return s ? s->toString() : "none"; }

std::string tensorName(const TraceStep& s, int t)
{
    if (t < 0)
        return "?";
    return t < s.numOperands ? "operand-" + std::to_string(t) : "result-" + std::to_string(t - s.numOperands);
}

std::string decisionText(const TraceStep& s, const TraceDecision& d)
{
    std::string out = decisionKindName(d.kind);
    if (d.axis)
        out += " axis=" + d.axis->toString();
    if (d.replacedBy)
        out += " kept=" + d.replacedBy->toString();
    if (d.culpritTensor >= 0)
        out += " by=" + tensorName(s, d.culpritTensor);
    if (d.otherFactor >= 0)
        out += " factor=" + std::to_string(d.otherFactor);
    if (d.sourceTensor >= 0)
        out += " source=" + tensorName(s, d.sourceTensor) + " size=" + std::to_string(d.sourceSize);
    if (d.runnerUpSize >= 0)
        out += " runner-up=" + std::to_string(d.runnerUpSize);
    return out;
}

std::string tensorList(const TraceStep& s, const std::vector<int>& ts)
{
    std::string out = "[";
    for (size_t i = 0; i < ts.size(); ++i)
        out += (i ? "," : "") + tensorName(s, ts[i]);
    return out + "]";
}

} // namespace

std::string printTrace(const Trace& trace)
{
    const TraceData& data = trace.data();
    std::ostringstream out;
    out << "shardx-trace v" << Trace::kFormatVersion << ": " << data.values.size() << " values, " << data.ops.size()
        << " ops, " << data.steps.size() << " steps\n";
    for (size_t v = 0; v < data.values.size(); ++v)
        if (const TensorSharding* init = v < data.initial.size() ? trace.sharding(data.initial[v]) : nullptr)
            out << "initial " << data.values[v].id << " = " << init->toString() << "\n";
    // Nodes open before the first step inside them; a node index line is printed at its place.
    std::vector<std::vector<int>> nodesAt(data.steps.size() + 1);
    for (size_t n = 0; n < data.nodes.size(); ++n)
        nodesAt[static_cast<size_t>(std::clamp<int>(data.nodes[n].firstStep, 0, static_cast<int>(data.steps.size())))]
            .push_back(static_cast<int>(n));
    auto depthOf = [&](int n) {
        int d = 0;
        while (n >= 0 && data.nodes[static_cast<size_t>(n)].parent >= 0) {
            n = data.nodes[static_cast<size_t>(n)].parent;
            ++d;
        }
        return d;
    };
    for (size_t i = 0; i <= data.steps.size(); ++i) {
        for (int n : nodesAt[i]) {
            const TraceNode& node = data.nodes[static_cast<size_t>(n)];
            out << std::string(static_cast<size_t>(depthOf(n)) * 2, ' ') << traceNodeKindName(node.kind);
            if (node.kind == TraceNodeKind::UserPriority || node.kind == TraceNodeKind::OpPriorityRound)
                out << " " << node.number;
            if (!node.label.empty())
                out << " " << node.label;
            out << " [steps " << node.firstStep << ".." << node.endStep << ")\n";
        }
        if (i == data.steps.size())
            break;
        const TraceStep& s = data.steps[i];
        out << "#" << i << " " << traceStepKindName(s.kind);
        if (s.op >= 0)
            out << " " << data.ops[static_cast<size_t>(s.op)].name << " " << data.ops[static_cast<size_t>(s.op)].id;
        if (s.funcResult >= 0)
            out << " result " << s.funcResult;
        if (s.group >= 0)
            out << " group " << s.group;
        if (!s.note.empty())
            out << " (" << s.note << ")";
        if (s.kind != TraceStepKind::Skipped && s.kind != TraceStepKind::Erased && s.kind != TraceStepKind::GroupSync &&
            s.kind != TraceStepKind::Stage && s.kind != TraceStepKind::GroupCopy)
            out << (s.aggressive ? " aggressive" : " basic");
        if (s.round >= 0)
            out << " round=" << s.round;
        if (s.userPriority >= 0)
            out << " priority=" << s.userPriority;
        for (const FactorDecision& d : trace.decisions(s))
            if (d.direction != PropagationDirection::Both)
                out << " f" << d.factor << ":" << directionName(d.direction);
        if (s.changes.empty())
            out << " no change";
        for (const TraceChange& c : s.changes) {
            out << " | " << (c.value >= 0 ? data.values[static_cast<size_t>(c.value)].id : std::string("?")) << " "
                << shardingText(trace.sharding(c.before)) << " -> " << shardingText(trace.sharding(c.after));
            const std::vector<TraceFactorChange>& factors = trace.factorChanges(c);
            if (factors.empty())
                out << " (" << decisionKindName(c.kind) << ")";
            for (const TraceFactorChange& f : factors)
                out << "; d" << f.dim << " f" << f.factor << " " << axisListString(f.before) << "->"
                    << axisListString(f.after) << " from " << tensorList(s, f.sources) << " to "
                    << tensorList(s, f.targets) << " (" << decisionText(s, f.decision) << ")";
        }
        out << "\n";
    }
    return out.str();
}

} // namespace shardx
