// Explain: answers "why is this axis here / why not" from a recorded trace.
#include "core/trace/Explain.h"

#include <algorithm>
#include <set>

namespace shardx {

namespace {

bool hasAxisNamed(const std::vector<AxisRef>& axes, const AxisRef& a)
{
    return std::any_of(axes.begin(), axes.end(), [&](const AxisRef& b) { return b == a; });
}

bool shardingUsesName(const std::optional<TensorSharding>& s, const std::string& name)
{
    if (!s)
        return false;
    for (const DimSharding& d : s->dims)
        for (const AxisRef& a : d.axes)
            if (a.name == name)
                return true;
    return false;
}

std::string valueLabel(const Trace& t, int v)
{
    if (v < 0 || v >= static_cast<int>(t.values().size()))
        return "an unnamed tensor";
    const TraceValue& tv = t.values()[static_cast<size_t>(v)];
    return tv.displayName.empty() ? tv.id : tv.displayName;
}

std::string tensorLabel(const Trace& t, const TraceStep& s, int tensor)
{
    if (tensor < 0 || tensor >= static_cast<int>(s.tensorValues.size()))
        return "a tensor of the op";
    std::string role = tensor < s.numOperands ? "operand " + std::to_string(tensor)
                                              : "result " + std::to_string(tensor - s.numOperands);
    return role + " (" + valueLabel(t, s.tensorValues[static_cast<size_t>(tensor)]) + ")";
}

std::string stepLabel(const Trace& t, size_t index)
{
    const TraceStep& s = t.steps()[index];
    std::string out = "step #" + std::to_string(index) + " (" + traceStepKindName(s.kind);
    if (s.op >= 0 && s.op < static_cast<int>(t.ops().size())) {
        const TraceOp& op = t.ops()[static_cast<size_t>(s.op)];
        out += " " + op.name;
        if (!t.scopeName(op.scope).empty())
            out += " at " + t.scopeName(op.scope);
    }
    if (s.round >= 0)
        out += ", op-priority round " + std::to_string(s.round);
    if (s.userPriority >= 0)
        out += ", user priority p" + std::to_string(s.userPriority);
    return out + ")";
}

std::string truncationSentence(const Trace& t, const TraceStep& s, const AxisTruncation& tr)
{
    std::string who = tensorLabel(t, s, tr.tensor);
    switch (tr.reason) {
    case TruncationReason::ConflictAcrossFactors:
        return "it is already used by factor " + factorName(tr.otherFactor) + " of " + who;
    case TruncationReason::Replicated: return "it is explicitly replicated in " + who;
    case TruncationReason::Unreduced: return "it is unreduced in " + who;
    case TruncationReason::Closed: return "the dimension is closed in " + who;
    case TruncationReason::Overflow: return "the factor overflows in " + who;
    case TruncationReason::NonDivisible: return "its size does not divide the factor (in " + who + ")";
    case TruncationReason::SubAxisConservative: return "conservative propagation does not split it into sub-axes";
    }
    return "a rule cut it";
}

std::string decisionSentence(const Trace& t, const TraceStep& s, const TraceFactorChange& fc)
{
    const TraceDecision& d = fc.decision;
    std::string from;
    if (!fc.sources.empty()) {
        from = " from ";
        for (size_t i = 0; i < fc.sources.size(); ++i)
            from += (i ? ", " : "") + tensorLabel(t, s, fc.sources[i]);
    }
    switch (d.kind) {
    case DecisionKind::AggressiveChoice: {
        std::string sizes = "size " + std::to_string(d.sourceSize);
        if (d.runnerUpSize >= 0)
            sizes += " vs " + std::to_string(d.runnerUpSize);
        return "aggressive propagation preferred the sharding of " + tensorLabel(t, s, d.sourceTensor) + " (" + sizes +
               ", the larger tensor wins)";
    }
    case DecisionKind::FuncResultStep: return "it was exchanged with the function result annotation" + from;
    case DecisionKind::ShardingConstraint: return "a sharding constraint was applied to its input" + from;
    case DecisionKind::ShardingGroupCopy: return "it was copied from another member of its sharding group";
    case DecisionKind::UserPriorityRestored: return "its user priority round restored it";
    default: return "it is the compatible sharding of factor " + factorName(fc.factor) + from;
    }
}

} // namespace

Expected<int> findTraceValue(const Trace& trace, const std::string& query)
{
    std::vector<int> hits;
    std::string func, local;
    size_t colon = query.find(':');
    if (!query.empty() && query[0] == '@' && colon != std::string::npos) {
        func = query.substr(0, colon);
        local = query.substr(colon + 1);
    }
    for (size_t i = 0; i < trace.values().size(); ++i) {
        const TraceValue& v = trace.values()[i];
        bool match = v.id == query;
        if (!func.empty() && v.id.rfind(func + ":", 0) == 0) {
            if (local.rfind("arg", 0) == 0 && v.id == func + ":%" + local)
                match = true;
            if (!local.empty() && local[0] == '%' && v.displayName == local)
                match = true;
        }
        const std::string& scope = trace.scopeName(v.scope);
        if (!match && !scope.empty() && query.size() <= scope.size() &&
            scope.compare(scope.size() - query.size(), query.size(), query) == 0)
            match = true;
        if (match)
            hits.push_back(static_cast<int>(i));
    }
    if (hits.size() == 1)
        return hits.front();
    if (hits.empty())
        return Error{"no value '" + query +
                         "' in the trace (use an id such as @main:%arg0, @main:result0, @main:%3, "
                         "or a loc name scope)",
                     {}};
    std::string list;
    for (size_t i = 0; i < hits.size() && i < 8; ++i)
        list += (i ? ", " : "") + trace.values()[static_cast<size_t>(hits[i])].id;
    return Error{"'" + query + "' matches " + std::to_string(hits.size()) + " values: " + list, {}};
}

ValueExplanation explainValue(const Trace& trace, int value, const std::optional<std::string>& axisFilter)
{
    ValueExplanation e;
    e.value = value;
    const TraceValue& tv = trace.values()[static_cast<size_t>(value)];
    e.id = tv.id;
    e.displayName = tv.displayName;
    e.scope = trace.scopeName(tv.scope);
    if (static_cast<size_t>(value) < trace.data().initial.size())
        if (const TensorSharding* init = trace.sharding(trace.data().initial[static_cast<size_t>(value)]))
            e.initial = *init;
    TraceCursor cursor(trace);
    cursor.seek(trace.numSteps());
    if (const TensorSharding* fin = cursor.sharding(value))
        e.final = *fin;
    auto wanted = [&](const AxisRef& a) { return !axisFilter || a.name == *axisFilter; };

    // Present axes: the last step whose change added the axis to that dimension.
    if (e.final) {
        for (int d = 0; d < e.final->rank(); ++d) {
            for (const AxisRef& a : e.final->dims[static_cast<size_t>(d)].axes) {
                if (!wanted(a))
                    continue;
                AxisExplanation x{a, d, true, -1, {}};
                for (size_t si = trace.numSteps(); si-- > 0 && x.step < 0;) {
                    const TraceStep& s = trace.steps()[si];
                    for (const TraceChange& c : s.changes) {
                        if (c.value != value)
                            continue;
                        for (const TraceFactorChange& fc : c.factors)
                            if (fc.dim == d && hasAxisNamed(fc.after, a) && !hasAxisNamed(fc.before, a)) {
                                x.step = static_cast<int>(si);
                                x.sentence = a.toString() + " shards dimension " + std::to_string(d) + " since " +
                                             stepLabel(trace, si) + ": " + decisionSentence(trace, s, fc) + ".";
                            }
                        const TensorSharding* cb = trace.sharding(c.before);
                        const TensorSharding* ca = trace.sharding(c.after);
                        bool before = cb && d < cb->rank() && hasAxisNamed(cb->dims[static_cast<size_t>(d)].axes, a);
                        bool after = ca && d < ca->rank() && hasAxisNamed(ca->dims[static_cast<size_t>(d)].axes, a);
                        if (x.step < 0 && after && !before) {
                            x.step = static_cast<int>(si);
                            x.sentence = a.toString() + " shards dimension " + std::to_string(d) + " since " +
                                         stepLabel(trace, si) + " (" + decisionKindName(c.kind) + ").";
                        }
                    }
                }
                if (x.step < 0)
                    x.sentence = a.toString() + " shards dimension " + std::to_string(d) +
                                 " because the program's own annotation says so (it was there before propagation).";
                e.present.push_back(std::move(x));
            }
        }
    }

    // Missing axes: those a neighbour ends with (or the filter names) that this value lacks.
    std::set<std::string> candidates;
    std::vector<size_t> involving;
    for (size_t si = 0; si < trace.numSteps(); ++si) {
        const TraceStep& s = trace.steps()[si];
        if (std::find(s.tensorValues.begin(), s.tensorValues.end(), value) == s.tensorValues.end())
            continue;
        involving.push_back(si);
        for (int other : s.tensorValues)
            if (other >= 0 && other != value)
                if (const TensorSharding* os = cursor.sharding(other))
                    for (const DimSharding& d : os->dims)
                        for (const AxisRef& a : d.axes)
                            candidates.insert(a.name);
    }
    if (axisFilter)
        candidates = {*axisFilter};
    for (const std::string& name : candidates) {
        if (shardingUsesName(e.final, name))
            continue;
        AxisExplanation x{AxisRef(name), -1, false, -1, {}};
        for (auto it = involving.rbegin(); it != involving.rend() && x.step < 0; ++it) {
            const TraceStep& s = trace.steps()[*it];
            int tensor = static_cast<int>(std::find(s.tensorValues.begin(), s.tensorValues.end(), value) -
                                          s.tensorValues.begin());
            const std::vector<TensorFactorMapping>& mappings = trace.rule(s).mappings;
            for (const FactorDecision& fd : trace.decisions(s)) {
                bool mapped = false;
                if (tensor < static_cast<int>(mappings.size()))
                    for (size_t d = 0; d < mappings[static_cast<size_t>(tensor)].size() && !mapped; ++d) {
                        const DimFactors& fs = mappings[static_cast<size_t>(tensor)][d];
                        if (std::find(fs.begin(), fs.end(), fd.factor) != fs.end()) {
                            mapped = true;
                            x.dim = static_cast<int>(d);
                        }
                    }
                if (!mapped)
                    continue;
                for (const AxisTruncation& tr : fd.truncations)
                    if (tr.axis.name == name && x.step < 0) {
                        x.step = static_cast<int>(*it);
                        x.sentence = "\"" + name + "\" was offered along factor " + factorName(fd.factor) +
                                     " (dimension " + std::to_string(x.dim) + ") at " + stepLabel(trace, *it) +
                                     " but dropped: " + truncationSentence(trace, s, tr) + ".";
                    }
            }
        }
        if (x.step < 0)
            x.sentence = "\"" + name + "\" is used by a neighbour, but no step ever offered it to this value " +
                         "along a factor they share (different factors, or the op has no sharding rule).";
        e.missing.push_back(std::move(x));
    }
    return e;
}

std::string explanationText(const ValueExplanation& e)
{
    std::string out = e.id + " (" + e.displayName + ")";
    if (!e.scope.empty())
        out += " at " + e.scope;
    out += "\n  before propagation: " + (e.initial ? e.initial->toString() : std::string("no sharding"));
    out += "\n  after propagation:  " + (e.final ? e.final->toString() : std::string("no sharding")) + "\n";
    if (e.present.empty() && e.missing.empty())
        out += "  nothing to explain: the value ends unsharded and no neighbour offers it an axis\n";
    for (const AxisExplanation& x : e.present)
        out += "  why " + x.axis.toString() + ": " + x.sentence + "\n";
    for (const AxisExplanation& x : e.missing)
        out += "  why not " + x.axis.toString() + ": " + x.sentence + "\n";
    return out;
}

nlohmann::json explanationJson(const ValueExplanation& e)
{
    auto axes = [](const std::vector<AxisExplanation>& list) {
        nlohmann::json arr = nlohmann::json::array();
        for (const AxisExplanation& x : list)
            arr.push_back({{"axis", x.axis.toString()}, {"dim", x.dim}, {"step", x.step}, {"why", x.sentence}});
        return arr;
    };
    return {{"value", e.id},
            {"name", e.displayName},
            {"scope", e.scope},
            {"initial", e.initial ? e.initial->toString() : std::string()},
            {"final", e.final ? e.final->toString() : std::string()},
            {"present", axes(e.present)},
            {"missing", axes(e.missing)}};
}

} // namespace shardx
