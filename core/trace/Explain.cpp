// Explain: answers "why is this axis here / why not" from a recorded trace.
#include "core/trace/Explain.h"

#include <algorithm>
#include <set>

#include "core/ir/ProgramIds.h"
#include "core/trace/TraceCursor.h"
#include "core/trace/TraceRecorder.h"

namespace shardx {

namespace {

bool hasAxisNamed(const std::vector<AxisRef>& axes, const AxisRef& a)
{
    return std::any_of(axes.begin(), axes.end(), [&](const AxisRef& b) { return b == a; });
}

bool hasName(const std::vector<AxisRef>& axes, const std::string& name)
{
    return std::any_of(axes.begin(), axes.end(), [&](const AxisRef& b) { return b.name == name; });
}

bool shardingUsesName(const TensorSharding* s, const std::string& name)
{
    if (!s)
        return false;
    for (const DimSharding& d : s->dims)
        if (hasName(d.axes, name))
            return true;
    return false;
}
bool shardingUsesName(const std::optional<TensorSharding>& s, const std::string& name)
{
    return shardingUsesName(s ? &*s : nullptr, name);
}

std::string quotedList(const std::vector<AxisRef>& axes)
{
    std::string out;
    for (size_t i = 0; i < axes.size(); ++i)
        out += (i ? ", " : "") + axes[i].toString();
    return out;
}

std::string valueLabel(const Trace& t, int v)
{
    if (v < 0 || v >= static_cast<int>(t.values().size()))
        return "an unnamed tensor";
    const TraceValue& tv = t.values()[static_cast<size_t>(v)];
    return tv.displayName.empty() ? tv.id : tv.displayName;
}

/// The function a func-result step belongs to, as `@main`.
std::string funcOfStep(const Trace& t, const TraceStep& s)
{
    return s.op >= 0 && s.op < static_cast<int>(t.ops().size()) ? t.ops()[static_cast<size_t>(s.op)].id
                                                                : "the function";
}

std::string tensorLabel(const Trace& t, const TraceStep& s, int tensor)
{
    if (tensor < 0 || tensor >= static_cast<int>(s.tensorValues.size()))
        return "a tensor of the op";
    const int v = s.tensorValues[static_cast<size_t>(tensor)];
    if (s.kind == TraceStepKind::FuncResult)
        return tensor < s.numOperands
                   ? "the returned value (" + valueLabel(t, v) + ")"
                   : "the result annotation of " + funcOfStep(t, s) + " (result " + std::to_string(s.funcResult) + ")";
    if (s.kind == TraceStepKind::GroupCopy)
        return valueLabel(t, v);
    std::string role = tensor < s.numOperands ? "operand " + std::to_string(tensor)
                                              : "result " + std::to_string(tensor - s.numOperands);
    return role + " (" + valueLabel(t, v) + ")";
}

std::string stepLabel(const Trace& t, size_t index)
{
    const TraceStep& s = t.steps()[index];
    std::string out = "step #" + std::to_string(index) + " (";
    if (s.kind == TraceStepKind::FuncResult) {
        out += "result " + std::to_string(s.funcResult) + " of " + funcOfStep(t, s);
    } else if (s.kind == TraceStepKind::Stage) {
        out += "stage \"" + s.note + "\"";
    } else {
        out += traceStepKindName(s.kind);
        if (s.op >= 0 && s.op < static_cast<int>(t.ops().size())) {
            const TraceOp& op = t.ops()[static_cast<size_t>(s.op)];
            out += " " + op.name;
            if (!t.scopeName(op.scope).empty())
                out += " at " + t.scopeName(op.scope);
        }
        if (s.group >= 0)
            out += " " + std::to_string(s.group);
    }
    if (s.round >= 0)
        out += ", op-priority round " + std::to_string(s.round);
    if (s.userPriority >= 0)
        out += ", user priority p" + std::to_string(s.userPriority);
    return out + ")";
}

std::string reasonSentence(const Trace& t, const TraceStep& s, TruncationReason reason, int tensor, int64_t otherFactor)
{
    std::string who = tensorLabel(t, s, tensor);
    switch (reason) {
    case TruncationReason::ConflictAcrossFactors:
        return "it is already used by factor " + factorName(otherFactor) + " of " + who;
    case TruncationReason::Replicated: return "it is explicitly replicated in " + who;
    case TruncationReason::Unreduced: return "it is unreduced in " + who;
    case TruncationReason::Closed: return "the dimension is closed in " + who;
    case TruncationReason::Overflow: return "the factor overflows in " + who;
    case TruncationReason::NonDivisible: return "its size does not divide the factor (in " + who + ")";
    case TruncationReason::SubAxisConservative: return "conservative propagation does not split it into sub-axes";
    }
    return "a rule cut it";
}

/// The truncation reason a decision kind names, if it names one (decisionForTruncation's inverse).
std::optional<TruncationReason> reasonOf(DecisionKind k)
{
    for (TruncationReason r : {TruncationReason::ConflictAcrossFactors, TruncationReason::Replicated,
                               TruncationReason::Unreduced, TruncationReason::Closed, TruncationReason::Overflow,
                               TruncationReason::NonDivisible, TruncationReason::SubAxisConservative})
        if (decisionForTruncation(r) == k)
            return r;
    return std::nullopt;
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
    case DecisionKind::FuncResultStep:
        return fc.sources.empty() ? std::string("it was exchanged between the returned value and the result annotation")
                                  : "it was copied" + from;
    case DecisionKind::ShardingConstraint: return "a sharding constraint was applied to its input" + from;
    case DecisionKind::ShardingGroupCopy: return "it was copied from another member of its sharding group";
    case DecisionKind::UserPriorityRestored: return "its user priority round restored it";
    default: break;
    }
    std::string out = "it is the compatible sharding of factor " + factorName(fc.factor) + from;
    if (std::optional<TruncationReason> r = reasonOf(d.kind); r && d.axis)
        out += ", " +
               (d.replacedBy ? "cut from " + d.axis->toString() + " to " + d.replacedBy->toString()
                             : "without " + d.axis->toString()) +
               " because " + reasonSentence(t, s, *r, d.culpritTensor, d.otherFactor);
    return out;
}

/// `b` is `a`, or a sub-axis of it (the same name, within its range).
bool withinAxis(const AxisRef& b, const AxisRef& a)
{
    if (b.name != a.name)
        return false;
    if (!a.sub)
        return true;
    return b.sub && b.sub->preSize >= a.sub->preSize && b.sub->nextPreSize() <= a.sub->nextPreSize();
}

/// `x` added along dimension `d` of the value in `c`: an axis within `a` that `after` has and
/// `before` lacks.
bool addsAxis(const TraceFactorChange& fc, int d, const AxisRef& a)
{
    if (fc.dim != d)
        return false;
    for (const AxisRef& b : fc.after)
        if (withinAxis(b, a) && !hasAxisNamed(fc.before, b))
            return true;
    return false;
}

/// The dimension of `tensor` in the step's rule that holds factor `f`, or -1.
int dimOfFactor(const Trace& t, const TraceStep& s, int tensor, int64_t f)
{
    const std::vector<TensorFactorMapping>& mappings = t.rule(s).mappings;
    if (tensor < 0 || tensor >= static_cast<int>(mappings.size()))
        return -1;
    const TensorFactorMapping& m = mappings[static_cast<size_t>(tensor)];
    for (size_t d = 0; d < m.size(); ++d)
        if (std::find(m[d].begin(), m[d].end(), f) != m[d].end())
            return static_cast<int>(d);
    return -1;
}

/// Either list is a prefix of the other (element-wise).
bool prefixCompatible(const std::vector<AxisRef>& a, const std::vector<AxisRef>& b)
{
    const size_t n = std::min(a.size(), b.size());
    return std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n), b.begin());
}

/// Why `name` is missing from tensor `tensor` of step `si`, from the cuts of factor propagation.
bool explainByTruncation(const Trace& t, size_t si, int tensor, const std::string& name, AxisExplanation& x)
{
    const TraceStep& s = t.steps()[si];
    for (const bool ownTensorOnly : {true, false})
        for (const FactorDecision& fd : t.decisions(s)) {
            const int d = dimOfFactor(t, s, tensor, fd.factor);
            if (d < 0)
                continue;
            for (const AxisTruncation& tr : fd.truncations) {
                if (tr.axis.name != name || (ownTensorOnly && tr.tensor != tensor))
                    continue;
                x.step = static_cast<int>(si);
                x.dim = d;
                x.sentence =
                    "\"" + name + "\" was offered along factor " + factorName(fd.factor) + " (dimension " +
                    std::to_string(d) + ") at " + stepLabel(t, si) +
                    (tr.replacedBy ? " but cut to " + tr.replacedBy->toString() : std::string(" but dropped")) + ": " +
                    reasonSentence(t, s, tr.reason, tr.tensor, tr.otherFactor) + ".";
                return true;
            }
        }
    return false;
}

/// Why `name` is missing from tensor `tensor` of step `si` when the tensors of the step
/// disagreed on a factor (4.4 step 1: the merge of their axes stops at the first difference).
bool explainByDisagreement(const Trace& t, size_t si, int tensor, const std::string& name, AxisExplanation& x)
{
    const TraceStep& s = t.steps()[si];
    const ShardingProjection& before = t.tablesBefore(s);
    for (const FactorDecision& fd : t.decisions(s)) {
        const int d = dimOfFactor(t, s, tensor, fd.factor);
        if (d < 0 || hasName(fd.compatible, name))
            continue;
        for (int u = 0; u < before.numTensors(); ++u) {
            const FactorSharding* uf = u == tensor ? nullptr : before.tensor(u).find(fd.factor);
            if (!uf || !hasName(uf->axes, name))
                continue;
            for (int w = 0; w < before.numTensors(); ++w) {
                const FactorSharding* wf = w == u ? nullptr : before.tensor(w).find(fd.factor);
                if (!wf || wf->axes.empty() || prefixCompatible(uf->axes, wf->axes))
                    continue;
                x.step = static_cast<int>(si);
                x.dim = d;
                x.sentence = "\"" + name + "\" was offered along factor " + factorName(fd.factor) + " (dimension " +
                             std::to_string(d) + ") by " + tensorLabel(t, s, u) + " at " + stepLabel(t, si) +
                             ", but the tensors disagree on that factor: " + tensorLabel(t, s, w) + " has " +
                             quotedList(wf->axes) + " there, so neither was propagated.";
                return true;
            }
        }
    }
    return false;
}

/// The sentence for an axis added by a change that has no factor tables (copies, restores).
std::string changeSentence(const Trace& t, size_t si, const TraceChange& c)
{
    const TraceStep& s = t.steps()[si];
    switch (c.kind) {
    case DecisionKind::ShardingGroupCopy:
        return "it was copied from " + tensorLabel(t, s, 0) + ", another member of sharding group " +
               std::to_string(s.group) + " (4.10: the members of a group share one sharding)";
    case DecisionKind::UserPriorityRestored:
        return "user-priority propagation restored the axes of priority p" + std::to_string(s.userPriority);
    case DecisionKind::UserPriorityHeldBack: return "user-priority propagation held back higher priorities";
    case DecisionKind::ShardingGroupSync:
        return "sharding group " + std::to_string(s.group) +
               " was synchronised before propagation (4.10: its members share one sharding)";
    case DecisionKind::Import: return "the pipeline's import stage \"" + s.note + "\" set it";
    case DecisionKind::Export: return "the pipeline's export stage \"" + s.note + "\" set it";
    case DecisionKind::PassStage: return "the pass " + s.note + " set it";
    case DecisionKind::External: return "it was " + s.note + " (no stage was reported around the change)";
    case DecisionKind::FuncResultStep: return "it was exchanged with the function result annotation";
    case DecisionKind::ShardingConstraint: return "a sharding constraint was applied to its input";
    default: return decisionKindName(c.kind);
    }
}

/// Why a change without factor tables took an axis away.
std::string removalSentence(const Trace& t, size_t si, const TraceChange& c)
{
    const TraceStep& s = t.steps()[si];
    if ((c.kind == DecisionKind::Export || c.kind == DecisionKind::PassStage) &&
        s.note.find("divisible") != std::string::npos)
        return "the dimension's size is not divisible by the axes' product, and the stage \"" + s.note +
               "\" keeps only the longest evenly dividing prefix of a function input or output";
    if ((c.kind == DecisionKind::Export || c.kind == DecisionKind::PassStage) &&
        s.note.find("sub-axes") != std::string::npos)
        return "the main function's open input and output dimensions may not hold sub-axes (a dimension that an axis "
               "does not divide evenly keeps only a sub-axis of it), so the stage \"" +
               s.note + "\" dropped it";
    return changeSentence(t, si, c);
}

} // namespace

std::string describeStepHeader(const Trace& trace, size_t stepIndex) { return stepLabel(trace, stepIndex); }

std::vector<std::string> describeStep(const Trace& trace, size_t stepIndex)
{
    std::vector<std::string> out;
    const TraceStep& s = trace.steps()[stepIndex];
    auto shardingText = [&](int id) {
        const TensorSharding* sh = trace.sharding(id);
        return sh ? sh->toString() : std::string("no sharding");
    };
    for (const TraceChange& c : s.changes) {
        const std::string who = valueLabel(trace, c.value);
        const std::vector<TraceFactorChange>& fcs = trace.factorChanges(c);
        if (fcs.empty()) {
            out.push_back(who + ": " + shardingText(c.before) + " -> " + shardingText(c.after) + ": " +
                          changeSentence(trace, stepIndex, c));
            continue;
        }
        for (const TraceFactorChange& fc : fcs)
            out.push_back(who + " dimension " + std::to_string(fc.dim) + " (factor " + factorName(fc.factor) +
                          "): " + axisListString(fc.before) + " -> " + axisListString(fc.after) + ": " +
                          decisionSentence(trace, s, fc));
    }
    if (out.empty() && s.kind == TraceStepKind::Skipped)
        out.push_back("nothing changed: " + s.note);
    else if (out.empty())
        out.push_back("nothing changed");
    return out;
}

Expected<int> findTraceValue(const Trace& trace, const std::string& query)
{
    std::string q = query;
    // `@main:arg0`: the form earlier traces printed for `%arg0`.
    const size_t colon = q.find(':');
    if (!q.empty() && q[0] == '@' && colon != std::string::npos && q.compare(colon + 1, 3, "arg") == 0)
        q = q.substr(0, colon + 1) + "%" + q.substr(colon + 1);
    Expected<int> found = ir::findByUserName(
        q, trace.values().size(),
        [&](size_t i) {
            const TraceValue& v = trace.values()[i];
            return ir::NamedEntity{v.id, v.displayName, trace.scopeName(v.scope)};
        },
        "value");
    if (!found)
        return Error{found.error().message + " in the trace", {}};
    return found;
}

ValueExplanation explainValue(const Trace& trace, int value, const std::optional<std::string>& axisFilter)
{
    return explainValue(TraceValueIndex(trace), value, axisFilter);
}

namespace {

/// Calls `fn(stepIndex, change)` for each change of `value` in the steps before `limit`: the
/// latest step first and, within a step, in the step's order (what a backward scan of every step
/// and its changes meets), until `fn` returns true.
template <typename Fn> void forChangesLatestFirst(const TraceValueIndex& index, int value, size_t limit, Fn fn)
{
    const std::vector<TraceValueIndex::ChangeRef>& refs = index.changesOf(value);
    auto end = std::lower_bound(refs.begin(), refs.end(), limit, [](const TraceValueIndex::ChangeRef& r, size_t step) {
        return static_cast<size_t>(r.step) < step;
    });
    while (end != refs.begin()) {
        auto begin = end - 1;
        while (begin != refs.begin() && (begin - 1)->step == begin->step)
            --begin;
        const size_t si = static_cast<size_t>(begin->step);
        for (auto it = begin; it != end; ++it)
            if (fn(si, index.trace().steps()[si].changes[static_cast<size_t>(it->change)]))
                return;
        end = begin;
    }
}

} // namespace

ValueExplanation explainValue(const TraceValueIndex& index, int value, const std::optional<std::string>& axisFilter)
{
    const Trace& trace = index.trace();
    ValueExplanation e;
    e.value = value;
    const TraceValue& tv = trace.values()[static_cast<size_t>(value)];
    e.id = tv.id;
    e.displayName = tv.displayName;
    e.scope = trace.scopeName(tv.scope);
    if (tv.op >= 0)
        e.opName = trace.ops()[static_cast<size_t>(tv.op)].name;
    // The function, or for a value in a region the op holding the region (`@main:%3`).
    if (const size_t slash = tv.id.rfind('/'); slash != std::string::npos)
        e.owner = tv.id.substr(0, slash);
    else if (const size_t colon = tv.id.find(':'); colon != std::string::npos)
        e.owner = tv.id.substr(0, colon);
    if (tv.derivedFrom >= 0)
        e.derivedFrom = valueLabel(trace, tv.derivedFrom);
    if (static_cast<size_t>(value) < trace.data().initial.size())
        if (const TensorSharding* init = trace.sharding(trace.data().initial[static_cast<size_t>(value)]))
            e.initial = *init;
    if (const TensorSharding* fin = index.finalSharding(value))
        e.final = *fin;
    auto wanted = [&](const AxisRef& a) { return !axisFilter || a.name == *axisFilter; };
    auto inInitial = [&](int d, const AxisRef& a) {
        return e.initial && d < e.initial->rank() && hasAxisNamed(e.initial->dims[static_cast<size_t>(d)].axes, a);
    };

    // Present axes: the last step whose change brought the axis (or the parts it merged from)
    // to that dimension.
    if (e.final) {
        for (int d = 0; d < e.final->rank(); ++d) {
            for (const AxisRef& a : e.final->dims[static_cast<size_t>(d)].axes) {
                if (!wanted(a))
                    continue;
                AxisExplanation x{a, d, true, -1, {}};
                // Latest first, among the changes of the value (no other change is of it).
                forChangesLatestFirst(index, value, trace.numSteps(), [&](size_t si, const TraceChange& c) {
                    const TraceStep& s = trace.steps()[si];
                    for (const TraceFactorChange& fc : trace.factorChanges(c))
                        if (x.step < 0 && addsAxis(fc, d, a)) {
                            x.step = static_cast<int>(si);
                            x.sentence = a.toString() + " shards dimension " + std::to_string(d) + " since " +
                                         stepLabel(trace, si) + ": " + decisionSentence(trace, s, fc) + ".";
                        }
                    if (x.step >= 0)
                        return true;
                    const TensorSharding* cb = trace.sharding(c.before);
                    const TensorSharding* ca = trace.sharding(c.after);
                    const bool before = cb && d < cb->rank() && hasAxisNamed(cb->dims[static_cast<size_t>(d)].axes, a);
                    const bool after = ca && d < ca->rank() && hasAxisNamed(ca->dims[static_cast<size_t>(d)].axes, a);
                    if (!after || before)
                        return false;
                    x.step = static_cast<int>(si);
                    if (c.kind == DecisionKind::UserPriorityRestored && inInitial(d, a))
                        x.sentence = a.toString() + " shards dimension " + std::to_string(d) +
                                     " because the program's own annotation says so (priority p" +
                                     std::to_string(s.userPriority) +
                                     "): user-priority propagation held it back and restored it at " +
                                     stepLabel(trace, si) + ".";
                    else
                        x.sentence = a.toString() + " shards dimension " + std::to_string(d) + " since " +
                                     stepLabel(trace, si) + ": " + changeSentence(trace, si, c) + ".";
                    return true;
                });
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
    for (int step : index.stepsInvolving(value)) {
        const size_t si = static_cast<size_t>(step);
        const TraceStep& s = trace.steps()[si];
        involving.push_back(si);
        for (int other : s.tensorValues)
            if (other >= 0 && other != value)
                if (const TensorSharding* os = index.finalSharding(other))
                    for (const DimSharding& d : os->dims)
                        for (const AxisRef& a : d.axes)
                            candidates.insert(a.name);
    }
    // Ops next to it without a sharding rule: nothing crosses them (once per op).
    std::set<int> blockedOps;
    for (size_t si : involving) {
        const TraceStep& s = trace.steps()[si];
        if (s.kind != TraceStepKind::Skipped || s.note.rfind("no sharding rule: ", 0) != 0 || s.op < 0 ||
            !blockedOps.insert(s.op).second)
            continue;
        const TraceOp& op = trace.ops()[static_cast<size_t>(s.op)];
        const auto at = std::find(s.tensorValues.begin(), s.tensorValues.end(), value) - s.tensorValues.begin();
        const std::string role = at < s.numOperands ? "uses it as operand " + std::to_string(at)
                                                    : "defines it (result " + std::to_string(at - s.numOperands) + ")";
        const std::string reason = " (" + s.note.substr(std::string("no sharding rule: ").size()) + ")";
        e.blockedBy.push_back(op.displayName + " = " + op.name + " " + role + " but has no sharding rule" + reason +
                              ", so propagation passes nothing through it (skipped at step #" + std::to_string(si) +
                              ").");
    }
    // The value's own annotation asked for its axes too: one it lost is missing as well.
    if (e.initial)
        for (const DimSharding& d : e.initial->dims)
            for (const AxisRef& a : d.axes)
                candidates.insert(a.name);
    if (axisFilter)
        candidates = {*axisFilter};
    for (const std::string& name : candidates) {
        if (shardingUsesName(e.final, name))
            continue;
        AxisExplanation x{AxisRef(name), -1, false, -1, {}};
        // An explicit cut anywhere (latest first) explains best; else a disagreement of the
        // tensors on a factor.
        auto tensorOf = [&](size_t si) {
            const TraceStep& s = trace.steps()[si];
            return static_cast<int>(std::find(s.tensorValues.begin(), s.tensorValues.end(), value) -
                                    s.tensorValues.begin());
        };
        // A step that took the axis away from the value itself (an export stage making a function's
        // input or output divisible, a restore), latest first: its own loss explains best.
        forChangesLatestFirst(index, value, trace.numSteps(), [&](size_t si, const TraceChange& c) {
            if (!shardingUsesName(trace.sharding(c.before), name) || shardingUsesName(trace.sharding(c.after), name))
                return false;
            x.step = static_cast<int>(si);
            x.sentence =
                "\"" + name + "\" was removed at " + stepLabel(trace, si) + ": " + removalSentence(trace, si, c) + ".";
            return true;
        });
        for (auto it = involving.rbegin(); it != involving.rend() && x.step < 0; ++it)
            explainByTruncation(trace, *it, tensorOf(*it), name, x);
        for (auto it = involving.rbegin(); it != involving.rend() && x.step < 0; ++it)
            explainByDisagreement(trace, *it, tensorOf(*it), name, x);
        if (x.step < 0)
            x.sentence = "\"" + name + "\" is used by a neighbour, but no step ever offered it to this value " +
                         "along a factor they share (different factors, or the op has no sharding rule).";
        e.missing.push_back(std::move(x));
    }
    return e;
}

std::vector<AxisOrigin> traceOrigins(const Trace& trace, int value)
{
    return traceOrigins(TraceValueIndex(trace), value);
}

TraceValueIndex::TraceValueIndex(const Trace& trace)
    : m_trace(trace),
      m_changing(trace.values().size()),
      m_changes(trace.values().size()),
      m_involving(trace.values().size())
{
    TraceCursor cursor(trace);
    cursor.seek(trace.numSteps());
    m_final = cursor.state();
    m_lastStepOfOp.assign(trace.ops().size(), -1);
    auto note = [](std::vector<std::vector<int>>& lists, int value, int step) {
        if (value < 0 || static_cast<size_t>(value) >= lists.size())
            return;
        std::vector<int>& steps = lists[static_cast<size_t>(value)];
        if (steps.empty() || steps.back() != step)
            steps.push_back(step);
    };
    for (size_t si = 0; si < trace.numSteps(); ++si) {
        const TraceStep& s = trace.steps()[si];
        const int step = static_cast<int>(si);
        if (s.op >= 0 && static_cast<size_t>(s.op) < m_lastStepOfOp.size())
            m_lastStepOfOp[static_cast<size_t>(s.op)] = step;
        for (size_t ci = 0; ci < s.changes.size(); ++ci) {
            const int value = s.changes[ci].value;
            note(m_changing, value, step);
            if (value >= 0 && static_cast<size_t>(value) < m_changes.size())
                m_changes[static_cast<size_t>(value)].push_back({step, static_cast<int>(ci)});
        }
        for (int v : s.tensorValues)
            note(m_involving, v, step);
    }
}

const TensorSharding* TraceValueIndex::finalSharding(int value) const
{
    if (value < 0 || static_cast<size_t>(value) >= m_final.size())
        return nullptr;
    return m_trace.sharding(m_final[static_cast<size_t>(value)]);
}

const std::vector<int>& TraceValueIndex::stepsChanging(int value) const
{
    static const std::vector<int> kNone;
    return value >= 0 && static_cast<size_t>(value) < m_changing.size() ? m_changing[static_cast<size_t>(value)]
                                                                        : kNone;
}

const std::vector<TraceValueIndex::ChangeRef>& TraceValueIndex::changesOf(int value) const
{
    static const std::vector<ChangeRef> kNone;
    return value >= 0 && static_cast<size_t>(value) < m_changes.size() ? m_changes[static_cast<size_t>(value)] : kNone;
}

const std::vector<int>& TraceValueIndex::stepsInvolving(int value) const
{
    static const std::vector<int> kNone;
    return value >= 0 && static_cast<size_t>(value) < m_involving.size() ? m_involving[static_cast<size_t>(value)]
                                                                         : kNone;
}

int TraceValueIndex::lastStepOfOp(int op) const
{
    return op >= 0 && static_cast<size_t>(op) < m_lastStepOfOp.size() ? m_lastStepOfOp[static_cast<size_t>(op)] : -1;
}

std::vector<AxisOrigin> traceOrigins(const TraceValueIndex& index, int value)
{
    std::vector<AxisOrigin> out;
    const Trace& trace = index.trace();
    const TensorSharding* fin = index.finalSharding(value);
    if (!fin)
        return out;
    // The latest step before `limit` that added `axis` (or a part of it) to dimension `dim` of
    // `cur`; sets the next hop (the source tensor's value and dimension) when it has one.
    struct Hop {
        int step = -1;
        int value = -1;
        int dim = -1;
    };
    auto latestAdding = [&](int cur, int dim, const AxisRef& axis, size_t limit) {
        // Only the changes of `cur`, latest first: no other change is of it.
        Hop found;
        forChangesLatestFirst(index, cur, limit, [&](size_t si, const TraceChange& c) {
            const TraceStep& s = trace.steps()[si];
            for (const TraceFactorChange& fc : trace.factorChanges(c)) {
                if (!addsAxis(fc, dim, axis))
                    continue;
                found = Hop{static_cast<int>(si)};
                for (int u : fc.sources) {
                    const int v =
                        u < static_cast<int>(s.tensorValues.size()) ? s.tensorValues[static_cast<size_t>(u)] : -1;
                    const int d = dimOfFactor(trace, s, u, fc.factor);
                    if (v >= 0 && d >= 0 && v != cur) {
                        found.value = v;
                        found.dim = d;
                        break;
                    }
                }
                return true;
            }
            const TensorSharding* cb = trace.sharding(c.before);
            const TensorSharding* ca = trace.sharding(c.after);
            const bool before = cb && dim < cb->rank() && hasAxisNamed(cb->dims[static_cast<size_t>(dim)].axes, axis);
            const bool after = ca && dim < ca->rank() && hasAxisNamed(ca->dims[static_cast<size_t>(dim)].axes, axis);
            if (!after || before)
                return false;
            found = Hop{static_cast<int>(si)};
            if (s.kind == TraceStepKind::GroupCopy && !s.tensorValues.empty()) {
                found.value = s.tensorValues[0];
                found.dim = dim;
            }
            return true;
        });
        return found;
    };
    for (int d = 0; d < fin->rank(); ++d)
        for (const AxisRef& a : fin->dims[static_cast<size_t>(d)].axes) {
            AxisOrigin o{a, d, -1, {}};
            int cur = value, dim = d;
            size_t limit = trace.numSteps();
            // A value can only give an axis it got earlier, so each hop moves back in the trace.
            while (true) {
                const Hop h = latestAdding(cur, dim, a, limit);
                if (h.step < 0) {
                    o.from = cur; // the axis was in its sharding before the first step
                    break;
                }
                o.steps.push_back(h.step);
                if (h.value < 0)
                    break; // set by a stage or a step without a source
                cur = h.value;
                dim = h.dim;
                limit = static_cast<size_t>(h.step);
            }
            out.push_back(std::move(o));
        }
    return out;
}

std::string explanationText(const ValueExplanation& e)
{
    std::string out = e.displayName.empty() ? e.id : e.displayName + " (" + e.id + ")";
    if (!e.opName.empty())
        out += " = " + e.opName;
    else if (!e.owner.empty())
        out += " of " + e.owner;
    if (!e.scope.empty())
        out += " at " + e.scope;
    if (!e.derivedFrom.empty())
        out += ", inserted by a pass for " + e.derivedFrom;
    out += "\n  before propagation: " + (e.initial ? e.initial->toString() : std::string("no sharding"));
    out += "\n  after propagation:  " + (e.final ? e.final->toString() : std::string("no sharding")) + "\n";
    if (e.present.empty() && e.missing.empty() && e.blockedBy.empty())
        out += "  nothing to explain: the value ends unsharded and no neighbour offers it an axis\n";
    for (const std::string& b : e.blockedBy)
        out += "  blocked: " + b + "\n";
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
            {"op", e.opName},
            {"function", e.owner},
            {"scope", e.scope},
            {"insertedFor", e.derivedFrom},
            {"initial", e.initial ? e.initial->toString() : std::string()},
            {"final", e.final ? e.final->toString() : std::string()},
            {"present", axes(e.present)},
            {"missing", axes(e.missing)},
            {"blockedBy", e.blockedBy}};
}

} // namespace shardx
