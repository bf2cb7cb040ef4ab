// TraceRecorder: turns PropagationObserver events into a Trace.
#include "core/trace/TraceRecorder.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "core/ir/ShardingAccess.h"
#include "core/propagation/ValueSharding.h"

namespace shardx {

using ir::Op;
using ir::Value;

/// What factorChanges() reads of a step.
struct StepTables {
    TraceStepKind kind = TraceStepKind::Op;
    bool aggressive = false;
    const TraceRule& rule;
    const ShardingProjection& before;
    const ShardingProjection& after;
    const std::vector<FactorDecision>& decisions;
};

size_t FactorChangeKeyHash::operator()(const FactorChangeKey& k) const
{
    uint64_t h = 0;
    for (int v : {k.rule, k.before, k.after, k.decisions, k.kind, k.aggressive, k.tensor})
        h = (h ^ static_cast<uint64_t>(static_cast<uint32_t>(v))) * 0x100000001b3ULL;
    return static_cast<size_t>(h ^ (h >> 29));
}

DecisionKind decisionForTruncation(TruncationReason r)
{
    switch (r) {
    case TruncationReason::ConflictAcrossFactors: return DecisionKind::ConflictAcrossFactors;
    case TruncationReason::Replicated: return DecisionKind::ExplicitlyReplicated;
    case TruncationReason::Unreduced: return DecisionKind::ExplicitlyUnreduced;
    case TruncationReason::Closed: return DecisionKind::ClosedDimension;
    case TruncationReason::Overflow: return DecisionKind::Overflow;
    case TruncationReason::NonDivisible: return DecisionKind::NonDivisible;
    case TruncationReason::SubAxisConservative: return DecisionKind::SubAxisConservative;
    }
    return DecisionKind::CompatiblePrefix;
}

namespace {

/// `sdy.data_flow_edge`, compared as an interned name (asked for every value written).
const ir::OperationName& traceRecorderEdgeName()
{
    static const ir::OperationName kEdge("sdy.data_flow_edge");
    return kEdge;
}

TraceStepKind stepKindOf(StepKind k)
{
    switch (k) {
    case StepKind::Op: return TraceStepKind::Op;
    case StepKind::Barrier: return TraceStepKind::Barrier;
    case StepKind::DataFlowEdge: return TraceStepKind::DataFlowEdge;
    case StepKind::FuncDataFlowEdge: return TraceStepKind::FuncDataFlowEdge;
    case StepKind::FuncResult: return TraceStepKind::FuncResult;
    case StepKind::ApplyConstraint: return TraceStepKind::ApplyConstraint;
    }
    return TraceStepKind::Op;
}

/// `after` is an element-wise prefix of `list` (its last element may be a prefix sub-axis).
bool startsWith(const std::vector<AxisRef>& list, const std::vector<AxisRef>& after)
{
    if (after.empty() || after.size() > list.size())
        return false;
    for (size_t i = 0; i + 1 < after.size(); ++i)
        if (!(after[i] == list[i]))
            return false;
    const AxisRef& a = after.back();
    const AxisRef& b = list[after.size() - 1];
    if (a == b)
        return true;
    if (a.name != b.name || !a.sub)
        return false;
    if (!b.sub)
        return a.sub->preSize == 1;
    return a.sub->preSize == b.sub->preSize && b.sub->size % a.sub->size == 0;
}

const FactorSharding* factorOf(const ShardingProjection& p, int t, int64_t f)
{
    if (t < 0 || t >= p.numTensors())
        return nullptr;
    return p.tensor(t).find(f);
}

/// The factor changes of tensor `t` of `s`, with sources, targets and decisions.
std::vector<TraceFactorChange> factorChanges(const StepTables& s, int t)
{
    std::vector<TraceFactorChange> out;
    if (t < 0 || static_cast<size_t>(t) >= s.rule.mappings.size() || t >= s.before.numTensors() ||
        t >= s.after.numTensors())
        return out;
    const TensorFactorMapping& mapping = s.rule.mappings[static_cast<size_t>(t)];
    for (size_t d = 0; d < mapping.size(); ++d)
        for (int64_t f : mapping[d]) {
            const FactorSharding* b = factorOf(s.before, t, f);
            const FactorSharding* a = factorOf(s.after, t, f);
            if (!b || !a || b->axes == a->axes)
                continue;
            TraceFactorChange c;
            c.dim = static_cast<int>(d);
            c.factor = f;
            c.before = b->axes;
            c.after = a->axes;
            for (int u = 0; u < s.before.numTensors(); ++u) {
                const FactorSharding* ub = factorOf(s.before, u, f);
                const FactorSharding* ua = factorOf(s.after, u, f);
                if (!ub || !ua)
                    continue;
                if (u != t && startsWith(ub->axes, c.after))
                    c.sources.push_back(u);
                if (ub->axes != ua->axes)
                    c.targets.push_back(u);
            }
            if (s.kind == TraceStepKind::FuncResult)
                c.decision.kind = DecisionKind::FuncResultStep;
            else if (s.kind == TraceStepKind::ApplyConstraint)
                c.decision.kind = DecisionKind::ShardingConstraint;
            else {
                auto it = std::find_if(s.decisions.begin(), s.decisions.end(),
                                       [f](const FactorDecision& fd) { return fd.factor == f; });
                // Basic cuts the common candidate for every tensor (the culprit is any tensor);
                // aggressive cuts it per tensor, so only this tensor's cuts shaped its axes.
                const AxisTruncation* cut = nullptr;
                if (it != s.decisions.end())
                    for (const AxisTruncation& tr : it->truncations)
                        if (!cut && (!s.aggressive || tr.tensor == t))
                            cut = &tr;
                // Aggressive: a real choice only where another factor lost axes to this one
                // (4.5: factors take their candidates in order of their source's size).
                int64_t runnerUp = -1;
                if (s.aggressive)
                    for (const FactorDecision& other : s.decisions)
                        for (const AxisTruncation& tr : other.truncations)
                            if (other.factor != f && tr.reason == TruncationReason::ConflictAcrossFactors &&
                                tr.otherFactor == f)
                                runnerUp = std::max(runnerUp, other.sourceSize);
                if (cut) {
                    c.decision.kind = decisionForTruncation(cut->reason);
                    c.decision.axis = cut->axis;
                    c.decision.replacedBy = cut->replacedBy;
                    c.decision.culpritTensor = cut->tensor;
                    c.decision.otherFactor = cut->otherFactor;
                } else if (it != s.decisions.end() && it->sourceTensor >= 0 && runnerUp >= 0) {
                    c.decision.kind = DecisionKind::AggressiveChoice;
                }
                if (it != s.decisions.end() && it->sourceTensor >= 0) {
                    c.decision.sourceTensor = it->sourceTensor;
                    c.decision.sourceSize = it->sourceSize;
                    c.decision.runnerUpSize = runnerUp;
                }
            }
            out.push_back(std::move(c));
        }
    return out;
}

} // namespace

TraceRecorder::TraceRecorder(ir::Module& module) : m_module(module), m_ids(module.programIds()), m_pool(m_data)
{
    // A pass may have inserted ops since the module was named.
    m_ids.nameAll(m_module);
    m_state.assign(m_ids.values().size(), -1);
    m_liveOps.assign(m_ids.ops().size(), nullptr);
    std::optional<TensorSharding> storage;
    for (Op* func : m_module.funcs()) {
        const size_t numResults = ir::funcType(*func).results().size();
        for (size_t i = 0; i < numResults; ++i)
            if (const int idx = m_ids.funcResultOf(func, static_cast<int>(i)); idx >= 0)
                stateOf(idx) = shardingId(ir::funcResultSharding(*func, static_cast<unsigned>(i)));
        func->walk([&](Op* op) {
            for (const auto& r : op->results())
                stateOf(r->programId) = shardingId(getShardingRef(r.get(), storage));
            for (const auto& region : op->regions())
                for (const auto& block : region->blocks())
                    for (const auto& a : block->args())
                        stateOf(a->programId) = shardingId(getShardingRef(a.get(), storage));
        });
    }
    m_data.initial = m_state;
    const char* verify = std::getenv("SHARDX_TRACE_VERIFY");
    m_verify = verify && std::strcmp(verify, "1") == 0;
}

// ---- indexing ---------------------------------------------------------------------------

void TraceRecorder::pushStageChanges(std::vector<TraceChange> changes, const std::string& note)
{
    if (changes.empty())
        return;
    std::sort(changes.begin(), changes.end(),
              [](const TraceChange& a, const TraceChange& b) { return a.value < b.value; });
    TraceStep s = newStep(TraceStepKind::Stage);
    s.note = note;
    s.changes = std::move(changes);
    pushStep(std::move(s));
}

void TraceRecorder::noteIfChanged(int idx, const TensorSharding* now, DecisionKind kind,
                                  std::vector<TraceChange>& changes)
{
    if (idx < 0)
        return;
    int& state = stateOf(idx);
    const TensorSharding* was = m_data.sharding(state);
    if (now ? (was && *was == *now) : !was)
        return;
    TraceChange c;
    c.value = idx;
    c.before = state;
    c.after = shardingId(now);
    c.kind = kind;
    state = c.after;
    changes.push_back(std::move(c));
}

int& TraceRecorder::stateOf(int idx)
{
    if (static_cast<size_t>(idx) >= m_state.size())
        m_state.resize(std::max(m_ids.values().size(), static_cast<size_t>(idx) + 1), -1);
    return m_state[static_cast<size_t>(idx)];
}

int TraceRecorder::internValue(Value* v) const { return m_ids.valueOf(v); }

int TraceRecorder::internFuncResult(Op* func, int i) const { return m_ids.funcResultOf(func, i); }

int TraceRecorder::internOp(Op* op)
{
    const int idx = m_ids.opOf(op);
    if (idx < 0)
        return -1;
    if (static_cast<size_t>(idx) >= m_liveOps.size())
        m_liveOps.resize(static_cast<size_t>(idx) + 1, nullptr);
    m_liveOps[static_cast<size_t>(idx)] = op;
    return idx;
}

int TraceRecorder::valueIndex(const Value* v) const { return internValue(const_cast<Value*>(v)); }

int TraceRecorder::funcResultIndex(const Op* func, int i) const { return internFuncResult(const_cast<Op*>(func), i); }

int TraceRecorder::opIndex(const Op* op) const { return m_ids.opOf(const_cast<Op*>(op)); }

Op* TraceRecorder::liveOp(int op) const
{
    return op >= 0 && static_cast<size_t>(op) < m_liveOps.size() ? m_liveOps[static_cast<size_t>(op)] : nullptr;
}

int TraceRecorder::factorChangeSet(const TraceStep& s, const StepTables& tables, int tensor)
{
    // The factor changes are a function of the pooled rule, tables and decisions of the step
    // and of the tensor: layers that repeat a step share one set, computed once.
    const FactorChangeKey key{s.rule, s.before, s.after, s.decisions, static_cast<int>(s.kind), s.aggressive ? 1 : 0,
                              tensor};
    auto it = m_factorChangeIndex.find(key);
    if (it != m_factorChangeIndex.end())
        return it->second;
    std::vector<TraceFactorChange> changes = factorChanges(tables, tensor);
    int id = -1;
    if (!changes.empty()) {
        id = static_cast<int>(m_data.factorChangeSets.size());
        m_data.factorChangeSets.push_back(std::move(changes));
    }
    m_factorChangeIndex.emplace(key, id);
    return id;
}

int TraceRecorder::shardingId(const TensorSharding* s) { return s ? m_pool.sharding(*s) : -1; }

namespace {

/// The module's ProgramIds as a trace's name rows, scopes pooled in the order a trace document lists them
/// (values, then ops, in order of first use). The binary writer reads the names through it in place;
/// fillNames() copies them into a TraceData.
class ProgramIdsNameRows final : public TraceNameRows {
public:
    explicit ProgramIdsNameRows(const ir::ProgramIds& ids) : m_ids(ids), m_scopeMap(ids.numScopes(), -1)
    {
        for (const ir::ProgramValue& v : ids.values())
            pool(v.scope);
        for (const ir::ProgramOp& o : ids.ops())
            pool(o.scope);
    }
    size_t numValues() const override { return m_ids.values().size(); }
    Value value(size_t i) const override
    {
        const ir::ProgramValue& v = m_ids.values()[i];
        return {v.id, v.name, mapped(v.scope), v.op, v.derivedFrom};
    }
    size_t numOps() const override { return m_ids.ops().size(); }
    Op op(size_t i) const override
    {
        const ir::ProgramOp& o = m_ids.ops()[i];
        return {o.id, o.opName, o.name, mapped(o.scope)};
    }
    size_t numScopes() const override { return m_scopes.size(); }
    std::string_view scope(size_t i) const override { return m_ids.scopeName(m_scopes[i]); }

private:
    void pool(int id)
    {
        if (id >= 0 && m_scopeMap[static_cast<size_t>(id)] < 0) {
            m_scopeMap[static_cast<size_t>(id)] = static_cast<int>(m_scopes.size());
            m_scopes.push_back(id);
        }
    }
    int mapped(int id) const { return id < 0 ? -1 : m_scopeMap[static_cast<size_t>(id)]; }

    const ir::ProgramIds& m_ids;
    std::vector<int> m_scopeMap;
    std::vector<int> m_scopes; ///< the ProgramIds scope of each
};

} // namespace

void TraceRecorder::fillNames(TraceData& data) const
{
    // Scopes are pooled in the order a trace document lists them (values, then ops), so that a
    // trace read back from JSON is equal to the one written.
    const ProgramIdsNameRows rows(m_ids);
    data.scopes.assign(rows.numScopes(), std::string());
    for (size_t i = 0; i < rows.numScopes(); ++i)
        data.scopes[i] = rows.scope(i);
    data.values.clear();
    data.values.reserve(rows.numValues());
    for (size_t i = 0; i < rows.numValues(); ++i) {
        const TraceNameRows::Value v = rows.value(i);
        data.values.push_back(TraceValue{std::string(v.id), std::string(v.displayName), v.scope, v.op, v.derivedFrom});
    }
    data.ops.clear();
    data.ops.reserve(rows.numOps());
    for (size_t i = 0; i < rows.numOps(); ++i) {
        const TraceNameRows::Op o = rows.op(i);
        data.ops.push_back(TraceOp{std::string(o.id), std::string(o.name), o.scope, std::string(o.displayName)});
    }
    data.initial.resize(data.values.size(), -1);
}

// ---- events -------------------------------------------------------------------------------

void TraceRecorder::beginNode(TraceNodeKind kind, const std::string& label, int64_t number)
{
    endNodesFrom(kind);
    TraceNode n;
    n.kind = kind;
    n.parent = m_open.empty() ? -1 : m_open.back();
    n.label = label;
    n.number = number;
    n.firstStep = n.endStep = static_cast<int>(m_numSteps);
    m_open.push_back(static_cast<int>(m_data.nodes.size()));
    m_data.nodes.push_back(std::move(n));
}

void TraceRecorder::endNodesFrom(TraceNodeKind kind)
{
    while (!m_open.empty() && m_data.nodes[static_cast<size_t>(m_open.back())].kind >= kind) {
        m_data.nodes[static_cast<size_t>(m_open.back())].endStep = static_cast<int>(m_numSteps);
        m_open.pop_back();
    }
}

TraceStep TraceRecorder::newStep(TraceStepKind kind)
{
    // A streamed step leaves its lists to the next one (their memory is reused).
    TraceStep s;
    s.tensorValues = std::move(m_spareStep.tensorValues);
    s.tensorValues.clear();
    s.changes = std::move(m_spareStep.changes);
    s.changes.clear();
    s.meshName = std::move(m_spareStep.meshName);
    s.meshName.clear();
    s.note = std::move(m_spareStep.note);
    s.note.clear();
    s.kind = kind;
    s.node = m_open.empty() ? -1 : m_open.back();
    s.round = m_round;
    s.userPriority = m_priority;
    return s;
}

void TraceRecorder::pushStep(TraceStep step)
{
    ++m_numSteps;
    if (m_writer)
        m_writer->step(step);
    if (m_keepSteps)
        m_data.steps.push_back(std::move(step));
    else
        m_spareStep = std::move(step);
}

void TraceRecorder::passBegin(const std::string& passName, const std::string& strategy)
{
    m_round = -1;
    m_priority = -1;
    recheckWritten(DecisionKind::External, "changed before " + passName + " began");
    m_pass = passName;
    beginNode(TraceNodeKind::Pass, passName + (strategy.empty() ? "" : " " + strategy), 0);
}

void TraceRecorder::passEnd(const std::string& passName)
{
    recheckWritten(DecisionKind::External, "changed by " + passName + " outside its steps");
    endNodesFrom(TraceNodeKind::Pass);
    m_round = -1;
    m_priority = -1;
    m_pass.clear();
}

void TraceRecorder::stageBegin(const std::string& name, StageKind kind)
{
    recheckWritten(DecisionKind::External, "changed before stage " + name + " began");
    m_stage = std::make_pair(name, kind);
    m_stageReportsWrites = false; // stageWritesReported() follows for a stage that does
    m_stageRewritten = false;
    beginNode(TraceNodeKind::Stage, name, 0);
}

void TraceRecorder::stageEnd()
{
    if (!m_stage)
        return;
    const DecisionKind kind = m_stage->second == StageKind::Import   ? DecisionKind::Import
                              : m_stage->second == StageKind::Export ? DecisionKind::Export
                                                                     : DecisionKind::PassStage;
    if (m_stageReportsWrites && !m_stageRewritten && !m_compareWholeStages)
        recheckWritten(kind, m_stage->first);
    else
        rescan(kind, m_stage->first);
    endNodesFrom(TraceNodeKind::Stage);
    m_stage.reset();
    m_stageReportsWrites = false;
    m_stageRewritten = false;
}

void TraceRecorder::userPriorityBegin(int64_t priority)
{
    m_round = -1;
    m_priority = priority;
    beginNode(TraceNodeKind::UserPriority, "", priority);
    if (priority == 0)
        recheckWritten(DecisionKind::UserPriorityHeldBack, "axes of user priorities above 0 held back");
    else
        recheckWritten(DecisionKind::UserPriorityRestored,
                       "axes of user priority " + std::to_string(priority) + " restored");
}

void TraceRecorder::opPriorityRoundBegin(int level)
{
    // Nothing to compare: inside a pass only its driver changes shardings, and it reports every
    // change as a step (or a group sync or copy); passEnd compares what was written besides.
    m_round = level;
    beginNode(TraceNodeKind::OpPriorityRound, "", level);
}

void TraceRecorder::runBegin(const std::string& strategy) { beginNode(TraceNodeKind::Run, strategy, 0); }

void TraceRecorder::shardingGroupSync(int64_t groupId, bool conflict, const std::vector<Value*>& members)
{
    TraceStep s = newStep(TraceStepKind::GroupSync);
    s.group = groupId;
    s.note = conflict ? "conflict" : "";
    std::optional<TensorSharding> storage;
    for (Value* m : members) {
        const int idx = internValue(m);
        if (idx < 0)
            continue;
        int& state = stateOf(idx);
        const int now = shardingId(getShardingRef(m, storage));
        if (now == state)
            continue;
        TraceChange c;
        c.value = idx;
        c.before = state;
        c.after = now;
        c.kind = DecisionKind::ShardingGroupSync;
        state = now;
        s.changes.push_back(c);
        recordEdgeFamily(s, m, c);
    }
    pushStep(std::move(s));
    settleWritten();
}

void TraceRecorder::shardingGroupCopy(int64_t groupId, Value* from, Value* to)
{
    TraceStep s = newStep(TraceStepKind::GroupCopy);
    s.group = groupId;
    s.numOperands = 1;
    s.tensorValues = {internValue(from), internValue(to)};
    const int idx = s.tensorValues[1];
    std::optional<TensorSharding> storage;
    TraceChange c;
    c.value = idx;
    c.tensor = 1;
    c.before = stateOf(idx);
    c.after = shardingId(getShardingRef(to, storage));
    c.kind = DecisionKind::ShardingGroupCopy;
    stateOf(idx) = c.after;
    // A copy reported after its step may find the member already holding it.
    if (c.before != c.after) {
        s.changes.push_back(c);
        recordEdgeFamily(s, to, c);
    }
    pushStep(std::move(s));
    settleWritten();
}

void TraceRecorder::opErased(Op* op)
{
    TraceStep s = newStep(TraceStepKind::Erased);
    s.op = internOp(op);
    pushStep(std::move(s));
    // Forget the pointers: the memory may be reused by new ops.
    op->walk([this](Op* o) {
        if (o->programId >= 0 && static_cast<size_t>(o->programId) < m_liveOps.size())
            m_liveOps[static_cast<size_t>(o->programId)] = nullptr;
        m_writtenSet.erase(o);
    });
}

void TraceRecorder::opSkipped(Op* op, const std::string& reason)
{
    TraceStep s = newStep(TraceStepKind::Skipped);
    s.op = internOp(op);
    s.note = reason;
    // An op that propagation cannot cross (its reason says why, after "no sharding rule: ") keeps
    // its tensors, so that explain can name it; ops without a rule by design (constants,
    // terminators, functions) and ops skipped for want of a mesh do not need them.
    if (reason.rfind("no sharding rule: ", 0) == 0) {
        s.numOperands = static_cast<int>(op->numOperands());
        for (Value* v : op->operands())
            s.tensorValues.push_back(v ? internValue(v) : -1);
        for (const auto& r : op->results())
            s.tensorValues.push_back(internValue(r.get()));
    }
    pushStep(std::move(s));
}

void TraceRecorder::step(const PropagationStep& ps)
{
    TraceStep s = newStep(stepKindOf(ps.kind));
    s.op = internOp(ps.op);
    s.funcResult = ps.funcResultIndex;
    s.meshName = ps.meshName;
    s.aggressive = ps.aggressive;
    s.numOperands = ps.numOperands;
    for (Value* v : ps.operandValues)
        s.tensorValues.push_back(v ? internValue(v) : -1);
    for (Value* v : ps.resultValues)
        s.tensorValues.push_back(v ? internValue(v) : -1);
    if (ps.kind == StepKind::FuncResult && !s.tensorValues.empty())
        s.tensorValues.back() = internFuncResult(ps.op, ps.funcResultIndex);
    ShardingProjection synthBefore, synthAfter;
    const ShardingProjection* before = &ps.before;
    const ShardingProjection* after = &ps.after;
    // Steps sharing a factor-propagation outcome have equal rules, tables and decisions (by
    // content), so they pool to the same ids: those of the first are kept by the outcome's id.
    const OutcomeIds* known = nullptr;
    if (ps.outcomeId != 0 && ps.rule)
        if (auto it = m_outcomeIds.find(ps.outcomeId); it != m_outcomeIds.end())
            known = &it->second;
    if (known) {
        s.rule = known->rule;
        s.before = known->before;
        s.after = known->after;
        s.decisions = known->decisions;
    } else if (ps.rule) {
        s.rule = m_pool.rule(*ps.rule);
    } else if (ps.kind == StepKind::ApplyConstraint && !ps.changes.empty()) {
        // Identity tables: the constraint (result-0) gives its axes to the value (operand-0).
        const TensorSharding& to = ps.changes.front().after;
        TraceRule rule;
        TensorFactorMapping identity;
        TensorFactorShardings empty, full;
        for (int d = 0; d < to.rank(); ++d) {
            identity.push_back({d});
            empty.factors[d] = FactorSharding{};
            full.factors[d] = FactorSharding{to.dims[static_cast<size_t>(d)].axes, {}, false, false};
            rule.factorSizes.push_back(1);
        }
        rule.mappings = {identity, identity};
        s.rule = m_pool.rule(rule);
        empty.hasSharding = false; // constraints apply only to values without a sharding
        synthBefore.operands = {empty};
        synthBefore.results = {full};
        synthAfter.operands = {full};
        synthAfter.results = {full};
        before = &synthBefore;
        after = &synthAfter;
    }
    if (!known) {
        if (s.rule >= 0) {
            s.before = m_pool.tables(*before);
            s.after = *after == *before ? s.before : m_pool.tables(*after);
        }
        s.decisions = m_pool.decisions(ps.decisions.factors);
        if (ps.outcomeId != 0 && ps.rule)
            m_outcomeIds.emplace(ps.outcomeId, OutcomeIds{s.rule, s.before, s.after, s.decisions});
    }
    const StepTables tables{s.kind, s.aggressive, m_data.rule(s), *before, *after, ps.decisions.factors};
    for (const ShardingChange& ch : ps.changes) {
        int idx = -1;
        if (ch.value)
            idx = internValue(ch.value);
        else if (ch.funcResult >= 0)
            idx = internFuncResult(ps.op, ch.funcResult);
        TraceChange c;
        c.value = idx;
        c.tensor = ch.tensor;
        if (idx >= 0) {
            c.before = stateOf(idx);
            std::optional<TensorSharding> storage;
            const TensorSharding* now = ch.value ? getShardingRef(ch.value, storage)
                                                 : ir::funcResultSharding(*ps.op, static_cast<unsigned>(ch.funcResult));
            c.after = m_pool.sharding(now ? *now : ch.after);
            stateOf(idx) = c.after;
        } else {
            c.before = ch.before ? m_pool.sharding(*ch.before) : -1;
            c.after = m_pool.sharding(ch.after);
        }
        c.kind = ps.kind == StepKind::FuncResult        ? DecisionKind::FuncResultStep
                 : ps.kind == StepKind::ApplyConstraint ? DecisionKind::ShardingConstraint
                                                        : DecisionKind::CompatiblePrefix;
        c.factors = factorChangeSet(s, tables, ch.tensor);
        s.changes.push_back(std::move(c));
    }
    const size_t reported = s.changes.size();
    for (size_t i = 0; i < reported; ++i)
        if (const ShardingChange& ch = ps.changes[i]; ch.value)
            recordEdgeFamily(s, ch.value, s.changes[i]); // copied: the list grows
    pushStep(std::move(s));
    settleWritten();
}

void TraceRecorder::recordEdgeFamily(TraceStep& s, Value* changed, TraceChange like)
{
    // A data-flow edge holds the sharding of its owner, and of a while's region arguments
    // (ValueSharding's getSharding reads through it): a change of one is a change of all. And
    // the results of one op share one `sdy.sharding` list: setting one result's sharding gives
    // the others open shardings where they had none.
    std::vector<Value*> family;
    Value* owner = edgeOwnerOf(changed);
    Op* edge = dataFlowEdgeOpOf(owner);
    if (Op* def = changed->definingOp(); def && def->opName() == traceRecorderEdgeName() && def->numOperands() == 1) {
        edge = def;
        owner = def->operand(0);
    }
    if (edge && owner) {
        family = edgeNonOwnerTargets(owner);
        family.push_back(owner);
        family.push_back(edge->result(0));
    }
    if (Op* def = changed->definingOp(); def && def->numResults() > 1)
        for (const auto& r : def->results())
            family.push_back(r.get());
    std::optional<TensorSharding> storage;
    for (Value* v : family) {
        if (v == changed)
            continue;
        const int idx = internValue(v);
        if (idx < 0)
            continue;
        int& state = stateOf(idx);
        const int now = shardingId(getShardingRef(v, storage));
        if (now == state)
            continue;
        TraceChange c = like;
        c.value = idx;
        c.tensor = -1;
        c.before = state;
        c.after = now;
        state = now;
        s.changes.push_back(std::move(c));
    }
}

void TraceRecorder::streamTo(TraceBinaryWriter* writer, bool keepSteps)
{
    m_writer = writer;
    m_keepSteps = keepSteps || !writer;
}

bool TraceRecorder::finishStream(int keyframeInterval)
{
    if (!m_writer)
        return false;
    // Everything but the steps (streamed already; the writer does not read the kept ones) and the
    // names (read in place), written from the recorder's data without a copy: the open nodes end
    // at the last step and the initial state covers every value, as trace() has them too.
    for (int n : m_open)
        m_data.nodes[static_cast<size_t>(n)].endStep = static_cast<int>(m_numSteps);
    const ProgramIdsNameRows names(m_ids);
    m_data.initial.resize(names.numValues(), -1);
    const int interval = Trace::keyframeIntervalFor(m_numSteps, names.numValues(), keyframeInterval);
    const bool ok = m_writer->finish(m_data, names, m_numSteps, interval);
    m_writer = nullptr;
    return ok;
}

Trace TraceRecorder::trace(int keyframeInterval) const
{
    TraceData data = m_data;
    for (int n : m_open)
        data.nodes[static_cast<size_t>(n)].endStep = static_cast<int>(m_numSteps);
    fillNames(data);
    return Trace(std::move(data), keyframeInterval);
}

Trace TraceRecorder::takeTrace(int keyframeInterval)
{
    for (int n : m_open)
        m_data.nodes[static_cast<size_t>(n)].endStep = static_cast<int>(m_numSteps);
    m_open.clear();
    fillNames(m_data);
    TraceData data = std::move(m_data);
    m_data = TraceData();
    m_pool = TraceInterner(m_data);
    m_factorChangeIndex.clear();
    m_outcomeIds.clear();
    return Trace(std::move(data), keyframeInterval);
}

} // namespace shardx
