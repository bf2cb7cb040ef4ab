// TraceRecorder: turns PropagationObserver events into a Trace.
#include "core/trace/TraceRecorder.h"

#include <algorithm>
#include <functional>

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

namespace {

/// The name scope of a location: its name, or the first name inside a call site / fused one.
const std::string* scopeOf(const ir::LocationAttr& loc)
{
    switch (loc.kind) {
    case ir::LocationAttr::Kind::Name: return loc.text.empty() ? nullptr : &loc.text;
    case ir::LocationAttr::Kind::CallSite:
    case ir::LocationAttr::Kind::Fused:
        for (const auto& c : loc.children)
            if (c)
                if (const std::string* s = scopeOf(*c))
                    return s;
        return nullptr;
    default: return nullptr;
    }
}

const std::string* scopeOf(const ir::AttrPtr& loc)
{
    const ir::LocationAttr* l = loc ? loc->as<ir::LocationAttr>() : nullptr;
    return l ? scopeOf(*l) : nullptr;
}

} // namespace

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

TraceRecorder::TraceRecorder(ir::Module& module) : m_module(module), m_pool(m_data)
{
    // Size the tables once: growing vectors of 100k entries step by step costs more than the
    // indexing itself.
    size_t numOps = 0, numValues = 0;
    for (Op* func : m_module.funcs())
        func->walk([&](Op* op) {
            ++numOps;
            numValues += op->numResults();
            for (const auto& region : op->regions())
                for (const auto& block : region->blocks())
                    numValues += block->numArgs();
        });
    numOps += m_module.body().ops().size();
    numValues += 64; // function results
    m_data.values.reserve(numValues);
    m_data.ops.reserve(numOps);
    m_liveValues.reserve(numValues);
    m_liveFuncResults.reserve(numValues);
    m_state.reserve(numValues);
    m_liveOps.reserve(numOps);
    m_valueIndex.reserve(numValues);
    m_opIndex.reserve(numOps);
    indexModule();
    m_data.initial = m_state;
    m_started = true;
}

// ---- indexing ---------------------------------------------------------------------------

int TraceRecorder::internValue(Value* v)
{
    if (const int* idx = m_valueIndex.find(v))
        return *idx;
    indexModule();
    if (const int* idx = m_valueIndex.find(v))
        return *idx;
    // A value outside the module's functions: anonymous id.
    const int idx = static_cast<int>(m_data.values.size());
    m_data.values.push_back(TraceValue{"?value" + std::to_string(idx), "", -1});
    m_valueIndex.insert(v, idx);
    m_liveValues.push_back(v);
    m_liveFuncResults.emplace_back(nullptr, -1);
    m_state.push_back(-1);
    return idx;
}

int TraceRecorder::internFuncResult(Op* func, int i)
{
    auto it = m_funcResultIndex.find({func, i});
    if (it != m_funcResultIndex.end())
        return it->second;
    indexModule();
    it = m_funcResultIndex.find({func, i});
    return it == m_funcResultIndex.end() ? -1 : it->second;
}

int TraceRecorder::internOp(Op* op)
{
    if (!op)
        return -1;
    if (const int* idx = m_opIndex.find(op))
        return *idx;
    indexModule();
    if (const int* idx = m_opIndex.find(op))
        return *idx;
    const int idx = static_cast<int>(m_data.ops.size());
    m_data.ops.push_back(TraceOp{"?op" + std::to_string(idx), op->name(), scopeId(op->loc)});
    m_opIndex.insert(op, idx);
    m_liveOps.push_back(op);
    return idx;
}

void TraceRecorder::indexModule(std::vector<int>* live)
{
    // Ids made by one walk are unique by construction (paths within a function, symbol names at
    // the top); an id can only repeat when a later walk finds a new op where an erased one was.
    // The set of used ids is therefore built on the first walk after the start.
    auto unique = [this](std::string id) {
        if (!m_started)
            return id;
        if (m_usedIds.empty()) {
            m_usedIds.reserve(m_data.values.size() + m_data.ops.size());
            for (const TraceValue& v : m_data.values)
                m_usedIds.insert(v.id);
            for (const TraceOp& o : m_data.ops)
                m_usedIds.insert(o.id);
        }
        if (m_usedIds.count(id)) {
            int n = 1;
            while (m_usedIds.count(id + "~" + std::to_string(n)))
                ++n;
            id += "~" + std::to_string(n);
        }
        m_usedIds.insert(id);
        return id;
    };
    // Ids and names are built only for values and ops not seen before: a walk over a module
    // that is already indexed costs one hash lookup per value and op.
    auto addValue = [&](Value* v, auto&& id, auto&& name, const ir::AttrPtr& loc) {
        if (const int* known = m_valueIndex.find(v)) {
            if (live)
                live->push_back(*known);
            return;
        }
        const int idx = static_cast<int>(m_data.values.size());
        if (live)
            live->push_back(idx);
        m_data.values.push_back(TraceValue{unique(id()), name(), scopeId(loc)});
        m_valueIndex.insert(v, idx);
        m_liveValues.push_back(v);
        m_liveFuncResults.emplace_back(nullptr, -1);
        // Values that appear after the start begin unsharded so that their sharding is a change.
        std::optional<TensorSharding> storage;
        const TensorSharding* initial = m_started ? nullptr : getShardingRef(v, storage);
        m_state.push_back(initial ? m_pool.sharding(*initial) : -1);
    };
    auto addOp = [&](Op* op, auto&& id) {
        if (m_opIndex.contains(op))
            return;
        m_opIndex.insert(op, static_cast<int>(m_data.ops.size()));
        m_data.ops.push_back(TraceOp{unique(id()), op->name(), scopeId(op->loc)});
        m_liveOps.push_back(op);
    };
    int topPos = 0;
    for (const auto& top : m_module.body().ops()) {
        Op* op = top.get();
        const int pos = topPos++;
        if (op->name() == "func.func")
            continue;
        addOp(op, [&] {
            const std::string sym = ir::symbolName(*op);
            return sym.empty() ? "module:op" + std::to_string(pos) : "@" + sym;
        });
    }
    for (Op* func : m_module.funcs()) {
        const std::string fname = "@" + ir::symbolName(*func);
        addOp(func, [&] { return fname; });
        const size_t numResults = ir::funcType(*func).results().size();
        for (size_t i = 0; i < numResults; ++i) {
            const std::pair<const Op*, int> key{func, static_cast<int>(i)};
            if (auto it = m_funcResultIndex.find(key); it != m_funcResultIndex.end()) {
                if (live)
                    live->push_back(it->second);
                continue;
            }
            const int idx = static_cast<int>(m_data.values.size());
            if (live)
                live->push_back(idx);
            m_data.values.push_back(
                TraceValue{unique(fname + ":result" + std::to_string(i)), "result " + std::to_string(i), -1});
            m_funcResultIndex[key] = idx;
            m_liveValues.push_back(nullptr);
            m_liveFuncResults.emplace_back(func, static_cast<int>(i));
            m_state.push_back(m_started ? -1 : shardingId(currentSharding(idx)));
        }
        if (!func->numRegions() || func->region(0).empty())
            continue;
        int counter = 0;
        int argCounter = 0;
        // Recursive walk with op paths (`op3/r0.1/op2`): a path is built only when a new op or
        // value needs an id.
        std::function<void(ir::Block&, const std::function<std::string()>&)> walkBlock =
            [&](ir::Block& block, const std::function<std::string()>& prefix) {
                for (unsigned a = 0; a < block.numArgs(); ++a) {
                    Value* v = block.arg(a);
                    const int number = argCounter++;
                    addValue(
                        v, [&] { return fname + ":" + prefix() + "%arg" + std::to_string(a); },
                        [&] { return "%arg" + std::to_string(number); }, v->loc);
                }
                int opPos = 0;
                for (const auto& child : block.ops()) {
                    Op* op = child.get();
                    const int pos = opPos++;
                    auto path = [&] { return prefix() + "op" + std::to_string(pos); };
                    addOp(op, [&] { return fname + ":" + path(); });
                    const int number = op->numResults() ? counter++ : -1;
                    for (unsigned r = 0; r < op->numResults(); ++r)
                        addValue(
                            op->result(r), [&] { return fname + ":" + path() + "#" + std::to_string(r); },
                            [&] {
                                std::string name = "%" + std::to_string(number);
                                if (op->numResults() > 1)
                                    name += "#" + std::to_string(r);
                                return name;
                            },
                            op->loc);
                    // As MLIR's printer: a nested region continues the numbering, which is restored
                    // after it.
                    for (unsigned ri = 0; ri < op->numRegions(); ++ri) {
                        ir::Region& region = op->region(ri);
                        const int savedCounter = counter, savedArgs = argCounter;
                        for (size_t bi = 0; bi < region.blocks().size(); ++bi)
                            walkBlock(*region.blocks()[bi], [&] {
                                return path() + "/r" + std::to_string(ri) +
                                       (bi ? "." + std::to_string(bi) : std::string()) + "/";
                            });
                        counter = savedCounter;
                        argCounter = savedArgs;
                    }
                }
            };
        walkBlock(*func->region(0).blocks().front(), [] { return std::string(); });
    }
}

int TraceRecorder::valueIndex(const Value* v) const
{
    const int* idx = m_valueIndex.find(v);
    return idx ? *idx : -1;
}

int TraceRecorder::funcResultIndex(const Op* func, int i) const
{
    auto it = m_funcResultIndex.find({func, i});
    return it == m_funcResultIndex.end() ? -1 : it->second;
}

int TraceRecorder::opIndex(const Op* op) const
{
    const int* idx = m_opIndex.find(op);
    return idx ? *idx : -1;
}

Op* TraceRecorder::liveOp(int op) const
{
    return op >= 0 && static_cast<size_t>(op) < m_liveOps.size() ? m_liveOps[static_cast<size_t>(op)] : nullptr;
}

Value* TraceRecorder::liveValue(int value) const
{
    return value >= 0 && static_cast<size_t>(value) < m_liveValues.size() ? m_liveValues[static_cast<size_t>(value)]
                                                                          : nullptr;
}

std::pair<Op*, int> TraceRecorder::liveFuncResult(int value) const
{
    if (value < 0 || static_cast<size_t>(value) >= m_liveFuncResults.size())
        return {nullptr, -1};
    return m_liveFuncResults[static_cast<size_t>(value)];
}

std::optional<TensorSharding> TraceRecorder::currentSharding(int value) const
{
    if (Value* v = liveValue(value))
        return getSharding(v);
    auto [func, i] = liveFuncResult(value);
    if (!func)
        return std::nullopt;
    const ir::NamedAttrList attrs = ir::funcResultAttrs(*func, static_cast<unsigned>(i));
    if (const ir::Attribute* a = ir::findAttr(attrs, "sdy.sharding"))
        if (const ir::ShardingAttr* s = a->as<ir::ShardingAttr>())
            return s->sharding;
    return std::nullopt;
}

const TensorSharding* TraceRecorder::currentShardingRef(int value, std::optional<TensorSharding>& storage) const
{
    if (Value* v = liveValue(value))
        return getShardingRef(v, storage);
    storage = currentSharding(value);
    return storage ? &*storage : nullptr;
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

int TraceRecorder::scopeId(const ir::AttrPtr& loc)
{
    // Ops of one name scope usually share one location attribute (`loc(#loc18)`): look the
    // attribute up first.
    if (const int* known = m_scopeByLoc.find(loc.get()))
        return *known;
    int id = -1;
    if (const std::string* name = scopeOf(loc)) {
        auto it = m_scopeIndex.find(*name);
        if (it != m_scopeIndex.end()) {
            id = it->second;
        } else {
            id = static_cast<int>(m_data.scopes.size());
            m_data.scopes.push_back(*name);
            m_scopeIndex.emplace(*name, id);
        }
    }
    m_scopeByLoc.insert(loc.get(), id);
    return id;
}

int TraceRecorder::shardingId(const std::optional<TensorSharding>& s) { return s ? m_pool.sharding(*s) : -1; }

// ---- events -------------------------------------------------------------------------------

void TraceRecorder::rescan(DecisionKind kind)
{
    // Only values still in the module (a walk never reaches erased ops), in index order.
    std::vector<int> live;
    live.reserve(m_data.values.size());
    indexModule(&live);
    std::sort(live.begin(), live.end());
    TraceStep s = newStep(TraceStepKind::Untracked);
    std::optional<TensorSharding> storage;
    for (int idx : live) {
        const TensorSharding* now = currentShardingRef(idx, storage);
        const TensorSharding* was = m_data.sharding(m_state[static_cast<size_t>(idx)]);
        if (now ? (was && *was == *now) : !was)
            continue;
        TraceChange c;
        c.value = idx;
        c.before = m_state[static_cast<size_t>(idx)];
        c.after = now ? m_pool.sharding(*now) : -1;
        c.kind = kind;
        m_state[static_cast<size_t>(idx)] = c.after;
        s.changes.push_back(std::move(c));
    }
    if (!s.changes.empty())
        pushStep(std::move(s));
}

void TraceRecorder::beginNode(TraceNodeKind kind, const std::string& label, int64_t number)
{
    while (!m_open.empty() && m_data.nodes[static_cast<size_t>(m_open.back())].kind >= kind) {
        m_data.nodes[static_cast<size_t>(m_open.back())].endStep = static_cast<int>(m_data.steps.size());
        m_open.pop_back();
    }
    TraceNode n;
    n.kind = kind;
    n.parent = m_open.empty() ? -1 : m_open.back();
    n.label = label;
    n.number = number;
    n.firstStep = n.endStep = static_cast<int>(m_data.steps.size());
    m_open.push_back(static_cast<int>(m_data.nodes.size()));
    m_data.nodes.push_back(std::move(n));
}

TraceStep TraceRecorder::newStep(TraceStepKind kind)
{
    TraceStep s;
    s.kind = kind;
    s.node = m_open.empty() ? -1 : m_open.back();
    s.round = m_round;
    s.userPriority = m_priority;
    return s;
}

void TraceRecorder::pushStep(TraceStep step) { m_data.steps.push_back(std::move(step)); }

void TraceRecorder::passBegin(const std::string& passName, const std::string& strategy)
{
    m_round = -1;
    m_priority = -1;
    rescan(DecisionKind::External);
    beginNode(TraceNodeKind::Pass, passName + (strategy.empty() ? "" : " " + strategy), 0);
}

void TraceRecorder::passEnd(const std::string& passName)
{
    (void)passName;
    rescan(DecisionKind::External);
    while (!m_open.empty()) {
        m_data.nodes[static_cast<size_t>(m_open.back())].endStep = static_cast<int>(m_data.steps.size());
        m_open.pop_back();
    }
    m_round = -1;
    m_priority = -1;
}

void TraceRecorder::userPriorityBegin(int64_t priority)
{
    m_round = -1;
    m_priority = priority;
    beginNode(TraceNodeKind::UserPriority, "", priority);
    rescan(priority == 0 ? DecisionKind::UserPriorityHeldBack : DecisionKind::UserPriorityRestored);
}

void TraceRecorder::opPriorityRoundBegin(int level)
{
    m_round = level;
    rescan(DecisionKind::External);
    beginNode(TraceNodeKind::OpPriorityRound, "", level);
}

void TraceRecorder::runBegin(const std::string& strategy)
{
    rescan(DecisionKind::External);
    beginNode(TraceNodeKind::Run, strategy, 0);
}

void TraceRecorder::shardingGroupSync(int64_t groupId, bool conflict)
{
    TraceStep s = newStep(TraceStepKind::GroupSync);
    s.group = groupId;
    s.note = conflict ? "conflict" : "";
    pushStep(std::move(s));
}

void TraceRecorder::shardingGroupCopy(int64_t groupId, Value* from, Value* to)
{
    TraceStep s = newStep(TraceStepKind::GroupCopy);
    s.group = groupId;
    s.numOperands = 1;
    s.tensorValues = {internValue(from), internValue(to)};
    const int idx = s.tensorValues[1];
    TraceChange c;
    c.value = idx;
    c.tensor = 1;
    c.before = m_state[static_cast<size_t>(idx)];
    c.after = shardingId(currentSharding(idx));
    c.kind = DecisionKind::ShardingGroupCopy;
    m_state[static_cast<size_t>(idx)] = c.after;
    // A copy reported after its step may find the member already holding it.
    if (c.before != c.after)
        s.changes.push_back(std::move(c));
    pushStep(std::move(s));
}

void TraceRecorder::opErased(Op* op)
{
    TraceStep s = newStep(TraceStepKind::Erased);
    s.op = internOp(op);
    pushStep(std::move(s));
    // Forget the pointers: the memory may be reused by new ops.
    op->walk([this](Op* o) {
        if (std::optional<int> idx = m_opIndex.erase(o))
            m_liveOps[static_cast<size_t>(*idx)] = nullptr;
        for (const auto& r : o->results()) {
            if (std::optional<int> idx = m_valueIndex.erase(r.get()))
                m_liveValues[static_cast<size_t>(*idx)] = nullptr;
        }
    });
}

void TraceRecorder::opSkipped(Op* op, const std::string& reason)
{
    TraceStep s = newStep(TraceStepKind::Skipped);
    s.op = internOp(op);
    s.note = reason;
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
    if (ps.rule) {
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
        synthBefore.operands = {empty};
        synthBefore.results = {full};
        synthAfter.operands = {full};
        synthAfter.results = {full};
        before = &synthBefore;
        after = &synthAfter;
    }
    if (s.rule >= 0) {
        s.before = m_pool.tables(*before);
        s.after = *after == *before ? s.before : m_pool.tables(*after);
    }
    s.decisions = m_pool.decisions(ps.decisions.factors);
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
            c.before = m_state[static_cast<size_t>(idx)];
            std::optional<TensorSharding> storage;
            const TensorSharding* now = currentShardingRef(idx, storage);
            c.after = m_pool.sharding(now ? *now : ch.after);
            m_state[static_cast<size_t>(idx)] = c.after;
        } else {
            c.before = shardingId(ch.before);
            c.after = m_pool.sharding(ch.after);
        }
        c.kind = ps.kind == StepKind::FuncResult        ? DecisionKind::FuncResultStep
                 : ps.kind == StepKind::ApplyConstraint ? DecisionKind::ShardingConstraint
                                                        : DecisionKind::CompatiblePrefix;
        c.factors = factorChangeSet(s, tables, ch.tensor);
        s.changes.push_back(std::move(c));
    }
    pushStep(std::move(s));
}

Trace TraceRecorder::trace(int keyframeInterval) const
{
    TraceData data = m_data;
    for (int n : m_open)
        data.nodes[static_cast<size_t>(n)].endStep = static_cast<int>(data.steps.size());
    data.initial.resize(data.values.size(), -1);
    return Trace(std::move(data), keyframeInterval);
}

Trace TraceRecorder::takeTrace(int keyframeInterval)
{
    for (int n : m_open)
        m_data.nodes[static_cast<size_t>(n)].endStep = static_cast<int>(m_data.steps.size());
    m_open.clear();
    m_data.initial.resize(m_data.values.size(), -1);
    TraceData data = std::move(m_data);
    m_data = TraceData();
    m_pool = TraceInterner(m_data);
    m_scopeIndex.clear();
    m_scopeByLoc.clear();
    m_factorChangeIndex.clear();
    return Trace(std::move(data), keyframeInterval);
}

} // namespace shardx
