// Trace: keyframes, cursor, names and the text printer.
#include "core/trace/Trace.h"

#include <algorithm>
#include <mutex>
#include <sstream>

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

void applyTraceStep(const TraceStep& step, std::vector<int>& state)
{
    for (const TraceChange& c : step.changes) {
        if (c.value < 0)
            continue;
        if (static_cast<size_t>(c.value) >= state.size())
            state.resize(static_cast<size_t>(c.value) + 1, -1);
        state[static_cast<size_t>(c.value)] = c.after;
    }
}

void undoTraceStep(const TraceStep& step, std::vector<int>& state)
{
    for (auto it = step.changes.rbegin(); it != step.changes.rend(); ++it) {
        if (it->value < 0)
            continue;
        if (static_cast<size_t>(it->value) >= state.size())
            state.resize(static_cast<size_t>(it->value) + 1, -1);
        state[static_cast<size_t>(it->value)] = it->before;
    }
}

Status Trace::validate(const TraceData& d)
{
    auto fail = [](const std::string& where, const std::string& what) {
        return Status(Error{where + ": " + what, {}});
    };
    auto inRange = [](int id, size_t size) { return id >= -1 && (id < 0 || static_cast<size_t>(id) < size); };
    if (d.initial.size() != d.values.size())
        return fail("initial", "expected one sharding id per value");
    for (size_t v = 0; v < d.values.size(); ++v) {
        if (!inRange(d.values[v].scope, d.scopes.size()))
            return fail("values/" + std::to_string(v) + "/scope", "scope index out of range");
        if (!inRange(d.values[v].op, d.ops.size()))
            return fail("values/" + std::to_string(v) + "/op", "op index out of range");
        if (!inRange(d.values[v].derivedFrom, d.values.size()))
            return fail("values/" + std::to_string(v) + "/from", "value index out of range");
    }
    for (size_t o = 0; o < d.ops.size(); ++o)
        if (!inRange(d.ops[o].scope, d.scopes.size()))
            return fail("ops/" + std::to_string(o) + "/scope", "scope index out of range");
    std::vector<int> state = d.initial;
    for (size_t v = 0; v < state.size(); ++v)
        if (!inRange(state[v], d.shardings.size()))
            return fail("initial/" + std::to_string(v), "sharding id out of range");
    for (size_t i = 0; i < d.steps.size(); ++i) {
        const TraceStep& s = d.steps[i];
        const std::string at = "steps/" + std::to_string(i);
        if (!inRange(s.node, d.nodes.size()) || !inRange(s.op, d.ops.size()))
            return fail(at, "node or op index out of range");
        if (!inRange(s.rule, d.rules.size()) || !inRange(s.before, d.tables.size()) ||
            !inRange(s.after, d.tables.size()) || !inRange(s.decisions, d.decisionSets.size()))
            return fail(at, "rule, table or decision index out of range");
        for (int v : s.tensorValues)
            if (!inRange(v, d.values.size()))
                return fail(at + "/tensorValues", "value index out of range");
        for (size_t c = 0; c < s.changes.size(); ++c) {
            const TraceChange& ch = s.changes[c];
            const std::string cat = at + "/changes/" + std::to_string(c);
            if (!inRange(ch.value, d.values.size()))
                return fail(cat + "/value", "value index out of range");
            if (!inRange(ch.factors, d.factorChangeSets.size()))
                return fail(cat + "/factors", "factor change set index out of range");
            if (!inRange(ch.before, d.shardings.size()) || !inRange(ch.after, d.shardings.size()))
                return fail(cat, "sharding id out of range");
            if (ch.value < 0)
                continue;
            int& cur = state[static_cast<size_t>(ch.value)];
            if (cur != ch.before)
                return fail(cat + "/before", "does not match the value's sharding before the step");
            cur = ch.after;
        }
    }
    return Status::success();
}

Trace::Trace(TraceData data, int keyframeInterval) : m_data(std::move(data))
{
    // Never more keyframe cells than the budget, whatever interval was asked for.
    const int64_t cells = static_cast<int64_t>(m_data.steps.size()) * static_cast<int64_t>(m_data.values.size());
    const int64_t minimum = std::max<int64_t>(1, (cells + kKeyframeBudget - 1) / kKeyframeBudget);
    m_interval = static_cast<int>(std::max<int64_t>(keyframeInterval > 0 ? keyframeInterval : 256, minimum));
}

const std::vector<std::vector<int>>& Trace::keyframes() const
{
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    if (!m_keyframes) {
        auto frames = std::make_shared<std::vector<std::vector<int>>>();
        std::vector<int> state = m_data.initial;
        state.resize(m_data.values.size(), -1);
        frames->reserve(m_data.steps.size() / static_cast<size_t>(m_interval) + 1);
        frames->push_back(state);
        for (size_t i = 0; i < m_data.steps.size(); ++i) {
            applyTraceStep(m_data.steps[i], state);
            if ((i + 1) % static_cast<size_t>(m_interval) == 0)
                frames->push_back(state);
        }
        m_keyframes = std::move(frames);
    }
    return *m_keyframes;
}

TraceCursor::TraceCursor(const Trace& trace) : m_trace(&trace), m_state(trace.keyframe(0)) {}

void TraceCursor::seek(size_t step)
{
    step = std::min(step, m_trace->numSteps());
    const auto& steps = m_trace->steps();
    const size_t interval = static_cast<size_t>(m_trace->keyframeInterval());
    // Cost in step applications of each way there; restoring a keyframe costs about one step
    // per 64 values (a copy of the state).
    const size_t restore = m_state.size() / 64 + 1;
    const size_t fromHere = step >= m_position ? step - m_position : m_position - step;
    const size_t below = std::min(step / interval, m_trace->numKeyframes() - 1);
    const size_t fromBelow = restore + (step - below * interval);
    const size_t above = step / interval + 1;
    const bool haveAbove = above < m_trace->numKeyframes();
    const size_t fromAbove = haveAbove ? restore + (above * interval - step) : SIZE_MAX;
    if (fromBelow < fromHere && fromBelow <= fromAbove) {
        m_state = m_trace->keyframe(below);
        m_position = below * interval;
    } else if (fromAbove < fromHere) {
        m_state = m_trace->keyframe(above);
        m_position = above * interval;
    }
    for (; m_position < step; ++m_position)
        applyTraceStep(steps[m_position], m_state);
    for (; m_position > step; --m_position)
        undoTraceStep(steps[m_position - 1], m_state);
}

const TensorSharding* TraceCursor::sharding(int value) const
{
    if (value < 0 || static_cast<size_t>(value) >= m_state.size())
        return nullptr;
    return m_trace->sharding(m_state[static_cast<size_t>(value)]);
}

std::string Trace::toText() const
{
    std::ostringstream out;
    out << "shardx-trace v" << kFormatVersion << ": " << m_data.values.size() << " values, " << m_data.ops.size()
        << " ops, " << m_data.steps.size() << " steps\n";
    for (size_t v = 0; v < m_data.values.size(); ++v)
        if (const TensorSharding* init = v < m_data.initial.size() ? sharding(m_data.initial[v]) : nullptr)
            out << "initial " << m_data.values[v].id << " = " << init->toString() << "\n";
    // Nodes open before the first step inside them; a node index line is printed at its place.
    std::vector<std::vector<int>> nodesAt(m_data.steps.size() + 1);
    for (size_t n = 0; n < m_data.nodes.size(); ++n)
        nodesAt[static_cast<size_t>(
                    std::clamp<int>(m_data.nodes[n].firstStep, 0, static_cast<int>(m_data.steps.size())))]
            .push_back(static_cast<int>(n));
    auto depthOf = [&](int n) {
        int d = 0;
        while (n >= 0 && m_data.nodes[static_cast<size_t>(n)].parent >= 0) {
            n = m_data.nodes[static_cast<size_t>(n)].parent;
            ++d;
        }
        return d;
    };
    for (size_t i = 0; i <= m_data.steps.size(); ++i) {
        for (int n : nodesAt[i]) {
            const TraceNode& node = m_data.nodes[static_cast<size_t>(n)];
            out << std::string(static_cast<size_t>(depthOf(n)) * 2, ' ') << traceNodeKindName(node.kind);
            if (node.kind == TraceNodeKind::UserPriority || node.kind == TraceNodeKind::OpPriorityRound)
                out << " " << node.number;
            if (!node.label.empty())
                out << " " << node.label;
            out << " [steps " << node.firstStep << ".." << node.endStep << ")\n";
        }
        if (i == m_data.steps.size())
            break;
        const TraceStep& s = m_data.steps[i];
        out << "#" << i << " " << traceStepKindName(s.kind);
        if (s.op >= 0)
            out << " " << m_data.ops[static_cast<size_t>(s.op)].name << " " << m_data.ops[static_cast<size_t>(s.op)].id;
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
        for (const FactorDecision& d : decisions(s))
            if (d.direction != PropagationDirection::Both)
                out << " f" << d.factor << ":" << directionName(d.direction);
        if (s.changes.empty())
            out << " no change";
        for (const TraceChange& c : s.changes) {
            out << " | " << (c.value >= 0 ? m_data.values[static_cast<size_t>(c.value)].id : std::string("?")) << " "
                << shardingText(sharding(c.before)) << " -> " << shardingText(sharding(c.after));
            const std::vector<TraceFactorChange>& factors = factorChanges(c);
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
