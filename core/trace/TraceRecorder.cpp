// TraceRecorder: turns PropagationObserver events into a Trace.
#include "core/trace/TraceRecorder.h"

#include <algorithm>
#include <functional>

#include "core/propagation/ValueSharding.h"

namespace shardx {

using ir::Op;
using ir::Value;

namespace {

std::string scopeOf(const ir::LocationAttr& loc)
{
    switch (loc.kind) {
    case ir::LocationAttr::Kind::Name: return loc.text;
    case ir::LocationAttr::Kind::CallSite:
    case ir::LocationAttr::Kind::Fused:
        for (const auto& c : loc.children)
            if (c) {
                std::string s = scopeOf(*c);
                if (!s.empty())
                    return s;
            }
        return {};
    default: return {};
    }
}

std::string scopeOf(const ir::AttrPtr& loc)
{
    const ir::LocationAttr* l = loc ? loc->as<ir::LocationAttr>() : nullptr;
    return l ? scopeOf(*l) : std::string();
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

int64_t tSize(const TraceStep& s, int t)
{
    int64_t size = 1;
    for (const DimFactors& dim : s.mappings[static_cast<size_t>(t)])
        for (int64_t f : dim)
            if (f >= 0 && static_cast<size_t>(f) < s.factorSizes.size())
                size *= s.factorSizes[static_cast<size_t>(f)];
    return size;
}

/// The factor changes of tensor `t` of `s`, with sources, targets and decisions.
std::vector<TraceFactorChange> factorChanges(const TraceStep& s, int t)
{
    std::vector<TraceFactorChange> out;
    if (t < 0 || static_cast<size_t>(t) >= s.mappings.size() || t >= s.before.numTensors() || t >= s.after.numTensors())
        return out;
    const TensorFactorMapping& mapping = s.mappings[static_cast<size_t>(t)];
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
                if (it != s.decisions.end() && !it->truncations.empty()) {
                    const AxisTruncation& tr = it->truncations.front();
                    c.decision.kind = decisionForTruncation(tr.reason);
                    c.decision.axis = tr.axis;
                    c.decision.replacedBy = tr.replacedBy;
                    c.decision.culpritTensor = tr.tensor;
                    c.decision.otherFactor = tr.otherFactor;
                } else if (it != s.decisions.end() && s.aggressive && it->sourceTensor >= 0) {
                    c.decision.kind = DecisionKind::AggressiveChoice;
                }
                if (it != s.decisions.end() && it->sourceTensor >= 0) {
                    c.decision.sourceTensor = it->sourceTensor;
                    c.decision.sourceSize = it->sourceSize;
                    for (int u = 0; u < s.before.numTensors(); ++u) {
                        const FactorSharding* ub = factorOf(s.before, u, f);
                        if (u != it->sourceTensor && ub && !ub->axes.empty() &&
                            static_cast<size_t>(u) < s.mappings.size())
                            c.decision.runnerUpSize = std::max(c.decision.runnerUpSize, tSize(s, u));
                    }
                }
            }
            out.push_back(std::move(c));
        }
    return out;
}

} // namespace

TraceRecorder::TraceRecorder(ir::Module& module) : m_module(module)
{
    indexModule();
    m_data.initial = m_state;
    m_started = true;
}

// ---- indexing ---------------------------------------------------------------------------

int TraceRecorder::internValue(Value* v)
{
    auto it = m_valueIndex.find(v);
    if (it != m_valueIndex.end())
        return it->second;
    indexModule();
    it = m_valueIndex.find(v);
    if (it != m_valueIndex.end())
        return it->second;
    // A value outside the module's functions: anonymous id.
    const int idx = static_cast<int>(m_data.values.size());
    m_data.values.push_back(TraceValue{"?value" + std::to_string(idx), "", ""});
    m_valueIndex[v] = idx;
    m_liveValues.push_back(v);
    m_liveFuncResults.emplace_back(nullptr, -1);
    m_state.push_back(std::nullopt);
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
    auto it = m_opIndex.find(op);
    if (it != m_opIndex.end())
        return it->second;
    indexModule();
    it = m_opIndex.find(op);
    if (it != m_opIndex.end())
        return it->second;
    const int idx = static_cast<int>(m_data.ops.size());
    m_data.ops.push_back(TraceOp{"?op" + std::to_string(idx), op->name(), scopeOf(op->loc)});
    m_opIndex[op] = idx;
    m_liveOps.push_back(op);
    return idx;
}

void TraceRecorder::indexModule()
{
    auto unique = [this](std::string id) {
        if (m_usedIds.count(id)) {
            int n = 1;
            while (m_usedIds.count(id + "~" + std::to_string(n)))
                ++n;
            id += "~" + std::to_string(n);
        }
        m_usedIds.insert(id);
        return id;
    };
    auto addValue = [&](Value* v, const std::string& id, const std::string& name, const std::string& scope) {
        if (m_valueIndex.count(v))
            return;
        const int idx = static_cast<int>(m_data.values.size());
        m_data.values.push_back(TraceValue{unique(id), name, scope});
        m_valueIndex[v] = idx;
        m_liveValues.push_back(v);
        m_liveFuncResults.emplace_back(nullptr, -1);
        // Values that appear after the start begin unsharded so that their sharding is a change.
        m_state.push_back(m_started ? std::nullopt : getSharding(v));
    };
    int topPos = 0;
    for (const auto& top : m_module.body().ops()) {
        Op* op = top.get();
        const int pos = topPos++;
        if (op->name() == "func.func" || m_opIndex.count(op))
            continue;
        const std::string sym = ir::symbolName(*op);
        m_opIndex[op] = static_cast<int>(m_data.ops.size());
        m_data.ops.push_back(
            TraceOp{unique(sym.empty() ? "module:op" + std::to_string(pos) : "@" + sym), op->name(), scopeOf(op->loc)});
        m_liveOps.push_back(op);
    }
    for (Op* func : m_module.funcs()) {
        const std::string fname = "@" + ir::symbolName(*func);
        if (!m_opIndex.count(func)) {
            m_opIndex[func] = static_cast<int>(m_data.ops.size());
            m_data.ops.push_back(TraceOp{unique(fname), func->name(), scopeOf(func->loc)});
            m_liveOps.push_back(func);
        }
        const size_t numResults = ir::funcType(*func).results().size();
        for (size_t i = 0; i < numResults; ++i) {
            const std::pair<const Op*, int> key{func, static_cast<int>(i)};
            if (m_funcResultIndex.count(key))
                continue;
            const int idx = static_cast<int>(m_data.values.size());
            m_data.values.push_back(
                TraceValue{unique(fname + ":result" + std::to_string(i)), "result " + std::to_string(i), ""});
            m_funcResultIndex[key] = idx;
            m_liveValues.push_back(nullptr);
            m_liveFuncResults.emplace_back(func, static_cast<int>(i));
            m_state.push_back(m_started ? std::nullopt : currentSharding(idx));
        }
        if (!func->numRegions() || func->region(0).empty())
            continue;
        int counter = 0;
        int argCounter = 0;
        // Recursive walk with op paths.
        std::function<void(ir::Block&, const std::string&)> walkBlock = [&](ir::Block& block,
                                                                            const std::string& prefix) {
            for (unsigned a = 0; a < block.numArgs(); ++a) {
                Value* v = block.arg(a);
                addValue(v, fname + ":" + prefix + "%arg" + std::to_string(a), "%arg" + std::to_string(argCounter++),
                         scopeOf(v->loc));
            }
            int opPos = 0;
            for (const auto& child : block.ops()) {
                Op* op = child.get();
                const std::string path = prefix + "op" + std::to_string(opPos++);
                if (!m_opIndex.count(op)) {
                    m_opIndex[op] = static_cast<int>(m_data.ops.size());
                    m_data.ops.push_back(TraceOp{unique(fname + ":" + path), op->name(), scopeOf(op->loc)});
                    m_liveOps.push_back(op);
                }
                const std::string scope = scopeOf(op->loc);
                const int number = op->numResults() ? counter++ : -1;
                for (unsigned r = 0; r < op->numResults(); ++r) {
                    std::string name = "%" + std::to_string(number);
                    if (op->numResults() > 1)
                        name += "#" + std::to_string(r);
                    addValue(op->result(r), fname + ":" + path + "#" + std::to_string(r), name, scope);
                }
                // As MLIR's printer: a nested region continues the numbering, which is restored after it.
                for (unsigned ri = 0; ri < op->numRegions(); ++ri) {
                    ir::Region& region = op->region(ri);
                    const int savedCounter = counter, savedArgs = argCounter;
                    for (size_t bi = 0; bi < region.blocks().size(); ++bi)
                        walkBlock(*region.blocks()[bi], path + "/r" + std::to_string(ri) +
                                                            (bi ? "." + std::to_string(bi) : std::string()) + "/");
                    counter = savedCounter;
                    argCounter = savedArgs;
                }
            }
        };
        walkBlock(*func->region(0).blocks().front(), "");
    }
}

int TraceRecorder::valueIndex(const Value* v) const
{
    auto it = m_valueIndex.find(v);
    return it == m_valueIndex.end() ? -1 : it->second;
}

int TraceRecorder::funcResultIndex(const Op* func, int i) const
{
    auto it = m_funcResultIndex.find({func, i});
    return it == m_funcResultIndex.end() ? -1 : it->second;
}

int TraceRecorder::opIndex(const Op* op) const
{
    auto it = m_opIndex.find(op);
    return it == m_opIndex.end() ? -1 : it->second;
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

// ---- events -------------------------------------------------------------------------------

void TraceRecorder::rescan(DecisionKind kind)
{
    indexModule();
    TraceStep s = newStep(TraceStepKind::Untracked);
    // Only values still in the module (a walk never reaches erased ops).
    std::vector<int> live;
    for (Op* func : m_module.funcs()) {
        const size_t numResults = ir::funcType(*func).results().size();
        for (size_t i = 0; i < numResults; ++i)
            live.push_back(funcResultIndex(func, static_cast<int>(i)));
        func->walk([&](Op* op) {
            for (const auto& region : op->regions())
                for (const auto& block : region->blocks())
                    for (const auto& a : block->args())
                        live.push_back(valueIndex(a.get()));
            for (const auto& r : op->results())
                live.push_back(valueIndex(r.get()));
        });
    }
    std::sort(live.begin(), live.end());
    live.erase(std::unique(live.begin(), live.end()), live.end());
    for (int idx : live) {
        if (idx < 0)
            continue;
        std::optional<TensorSharding> now = currentSharding(idx);
        if (now == m_state[static_cast<size_t>(idx)])
            continue;
        TraceChange c;
        c.value = idx;
        c.before = m_state[static_cast<size_t>(idx)];
        c.after = now;
        c.kind = kind;
        s.changes.push_back(std::move(c));
        m_state[static_cast<size_t>(idx)] = now;
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
    c.after = currentSharding(idx);
    c.kind = DecisionKind::ShardingGroupCopy;
    m_state[static_cast<size_t>(idx)] = c.after;
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
        auto it = m_opIndex.find(o);
        if (it != m_opIndex.end()) {
            m_liveOps[static_cast<size_t>(it->second)] = nullptr;
            m_opIndex.erase(it);
        }
        for (const auto& r : o->results()) {
            auto vit = m_valueIndex.find(r.get());
            if (vit != m_valueIndex.end()) {
                m_liveValues[static_cast<size_t>(vit->second)] = nullptr;
                m_valueIndex.erase(vit);
            }
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
    if (ps.rule) {
        s.mappings = ps.rule->operands;
        s.mappings.insert(s.mappings.end(), ps.rule->results.begin(), ps.rule->results.end());
        s.factorSizes = ps.rule->factorSizes;
        s.before = ps.before;
        s.after = ps.after;
    } else if (ps.kind == StepKind::ApplyConstraint && !ps.changes.empty()) {
        // Identity tables: the constraint (result-0) gives its axes to the value (operand-0).
        const TensorSharding& to = ps.changes.front().after;
        TensorFactorMapping identity;
        TensorFactorShardings empty, full;
        for (int d = 0; d < to.rank(); ++d) {
            identity.push_back({d});
            empty.factors[d] = FactorSharding{};
            full.factors[d] = FactorSharding{to.dims[static_cast<size_t>(d)].axes, {}, false, false};
            s.factorSizes.push_back(1);
        }
        s.mappings = {identity, identity};
        s.before.operands = {empty};
        s.before.results = {full};
        s.after.operands = {full};
        s.after.results = {full};
    }
    s.decisions = ps.decisions.factors;
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
            c.after = currentSharding(idx);
            if (!c.after)
                c.after = ch.after;
            m_state[static_cast<size_t>(idx)] = c.after;
        } else {
            c.before = ch.before;
            c.after = ch.after;
        }
        c.kind = ps.kind == StepKind::FuncResult        ? DecisionKind::FuncResultStep
                 : ps.kind == StepKind::ApplyConstraint ? DecisionKind::ShardingConstraint
                                                        : DecisionKind::CompatiblePrefix;
        c.factors = factorChanges(s, ch.tensor);
        s.changes.push_back(std::move(c));
    }
    pushStep(std::move(s));
}

Trace TraceRecorder::trace(int keyframeInterval) const
{
    TraceData data = m_data;
    for (int n : m_open)
        data.nodes[static_cast<size_t>(n)].endStep = static_cast<int>(data.steps.size());
    data.initial.resize(data.values.size());
    return Trace(std::move(data), keyframeInterval);
}

} // namespace shardx
