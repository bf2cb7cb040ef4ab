// TraceRecorder: what changed outside the steps, found from the "sharding written" notifications
// (ShardingWrites.h) or by comparing the whole module with the recorded state.
#include "core/trace/TraceRecorder.h"

#include <algorithm>
#include <iostream>

#include "core/ir/ShardingAccess.h"
#include "core/propagation/ValueSharding.h"

namespace shardx {

using ir::Op;
using ir::Value;

namespace {

/// `sdy.data_flow_edge`, compared as an interned name (asked for every value written).
const ir::OperationName& traceCompareEdgeName()
{
    static const ir::OperationName kEdge("sdy.data_flow_edge");
    return kEdge;
}

/// From this many notified ops on, when they are a quarter of the module's, a walk of the module
/// compares faster than the values of the ops one by one.
constexpr size_t kTraceRecorderManyWritten = 4096;

} // namespace

bool TraceRecorder::inModule(const Op* op) const
{
    while (op && op->parentOp())
        op = op->parentOp();
    return op == &m_module.op();
}

bool TraceRecorder::manyWritten() const
{
    return !m_verify && m_written.size() >= kTraceRecorderManyWritten && m_written.size() * 4 > m_ids.ops().size();
}

void TraceRecorder::shardingsWritten(Op& op)
{
    if (m_manyWritten)
        return;
    if (m_writtenSet.insert(&op).second)
        m_written.push_back(&op);
    if (m_written.size() >= kTraceRecorderManyWritten && manyWritten()) {
        // The next comparison walks the module (a stage closing every sharding): the notified
        // ops need not be kept.
        forgetWritten();
        m_manyWritten = true;
    }
}

void TraceRecorder::stageWritesReported() { m_stageReportsWrites = true; }

void TraceRecorder::opsInserted(Op& op)
{
    op.walk([this](Op* o) { shardingsWritten(*o); });
}

void TraceRecorder::opsErasing(Op& op)
{
    if (m_writtenSet.empty())
        return;
    op.walk([this](Op* o) { m_writtenSet.erase(o); });
}

void TraceRecorder::moduleRewritten() { m_stageRewritten = true; }

void TraceRecorder::forgetWritten()
{
    // clear() of a hash set touches every bucket, also when it is empty.
    if (!m_writtenSet.empty())
        m_writtenSet.clear();
    m_written.clear();
    m_settledUpTo = 0;
    m_manyWritten = false;
}

void TraceRecorder::collectWritten(Op* op, std::vector<Value*>& values,
                                   std::vector<std::pair<Op*, unsigned>>& funcResults) const
{
    // The values whose sharding a write to `op` can change: its results and region arguments, a
    // function's results, and every value reading its sharding through the same data-flow edge
    // as one of them.
    auto addFamily = [&](Value* v) {
        values.push_back(v);
        Value* owner = edgeOwnerOf(v);
        Op* edge = dataFlowEdgeOpOf(owner);
        if (Op* def = v->definingOp(); def && def->opName() == traceCompareEdgeName() && def->numOperands() == 1) {
            edge = def;
            owner = def->operand(0);
        }
        if (edge && owner) {
            for (Value* t : edgeNonOwnerTargets(owner))
                values.push_back(t);
            values.push_back(owner);
            values.push_back(edge->result(0));
        }
    };
    for (const auto& r : op->results())
        addFamily(r.get());
    for (const auto& region : op->regions())
        for (const auto& block : region->blocks())
            for (const auto& a : block->args())
                addFamily(a.get());
    static const ir::OperationName kFunc("func.func");
    if (op->opName() == kFunc && op->parentOp() == &m_module.op()) {
        const size_t numResults = ir::funcType(*op).results().size();
        for (size_t i = 0; i < numResults; ++i)
            funcResults.emplace_back(op, static_cast<unsigned>(i));
    }
}

void TraceRecorder::settleWritten()
{
    // The ops notified since the last event whose values all hold what was recorded (the step
    // just reported recorded their changes) need no comparison later: a later write notifies
    // them again. The others stay for the next comparison, which records what differs.
    if (m_settledUpTo == m_written.size())
        return;
    std::vector<Value*> values;
    std::vector<std::pair<Op*, unsigned>> funcResults;
    std::optional<TensorSharding> storage;
    auto holds = [&](int idx, const TensorSharding* now) {
        if (idx < 0 || static_cast<size_t>(idx) >= m_state.size())
            return false;
        const TensorSharding* was = m_data.sharding(m_state[static_cast<size_t>(idx)]);
        return now ? (was && *was == *now) : !was;
    };
    for (size_t i = m_settledUpTo; i < m_written.size(); ++i) {
        Op* op = m_written[i];
        if (!m_writtenSet.count(op) || !inModule(op))
            continue;
        values.clear();
        funcResults.clear();
        collectWritten(op, values, funcResults);
        bool settled = true;
        for (Value* v : values)
            settled = settled && holds(v->programId, getShardingRef(v, storage));
        for (const auto& [func, r] : funcResults)
            settled = settled && func->programId >= 0 &&
                      holds(m_ids.funcResultOf(func, static_cast<int>(r)), ir::funcResultSharding(*func, r));
        if (settled)
            m_writtenSet.erase(op);
    }
    m_written.erase(std::remove_if(m_written.begin() + static_cast<std::ptrdiff_t>(m_settledUpTo), m_written.end(),
                                   [this](const Op* op) { return !m_writtenSet.count(op); }),
                    m_written.end());
    m_settledUpTo = m_written.size();
}

void TraceRecorder::recheckWritten(DecisionKind kind, const std::string& note)
{
    // When a good part of the module was written (a stage closing every sharding), a walk of it
    // compares faster than the values of the ops one by one, and records the same (what
    // changed is what was notified; the verification compares both ways, so it does not walk).
    if (m_manyWritten || manyWritten()) {
        rescan(kind, note);
        return;
    }
    // Erased ops left the set (opErased).
    std::vector<Value*> values;
    std::vector<std::pair<Op*, unsigned>> funcResults;
    for (Op* op : m_written)
        if (m_writtenSet.count(op) && inModule(op))
            collectWritten(op, values, funcResults);
    // A value never named is named where a walk of the module meets it: name what is not named
    // in that order (a value that a walk does not meet stays unnamed, and is not compared).
    bool unnamed = false;
    for (Value* v : values)
        unnamed = unnamed || v->programId < 0;
    for (const auto& [func, i] : funcResults)
        unnamed = unnamed || func->programId < 0;
    if (unnamed) {
        nameAsRescanWould();
        values.erase(std::remove_if(values.begin(), values.end(), [](const Value* v) { return v->programId < 0; }),
                     values.end());
        funcResults.erase(std::remove_if(funcResults.begin(), funcResults.end(),
                                         [](const std::pair<Op*, unsigned>& f) { return f.first->programId < 0; }),
                          funcResults.end());
    }
    // In index order, each once (sorted by the index read once: not through the pointers).
    std::vector<std::pair<int, Value*>> byIndex;
    byIndex.reserve(values.size());
    for (Value* v : values)
        byIndex.emplace_back(v->programId, v);
    std::sort(byIndex.begin(), byIndex.end(),
              [](const std::pair<int, Value*>& a, const std::pair<int, Value*>& b) { return a.first < b.first; });
    byIndex.erase(std::unique(byIndex.begin(), byIndex.end(),
                              [](const std::pair<int, Value*>& a, const std::pair<int, Value*>& b) {
                                  return a.first == b.first;
                              }),
                  byIndex.end());
    std::vector<TraceChange> changes;
    std::optional<TensorSharding> storage;
    auto check = [&](int idx, const TensorSharding* now) { noteIfChanged(idx, now, kind, changes); };
    for (const auto& [func, i] : funcResults)
        check(m_ids.funcResultOf(func, static_cast<int>(i)), ir::funcResultSharding(*func, i));
    for (const auto& [idx, v] : byIndex)
        check(idx, getShardingRef(v, storage));
    forgetWritten();
    if (m_verify)
        verifyAgainstModule(note);
    pushStageChanges(std::move(changes), note);
}

void TraceRecorder::verifyAgainstModule(const std::string& note)
{
    // As rescan() without recording or naming: a difference, or a value never named, is a change
    // that no notification reported.
    std::optional<TensorSharding> storage;
    auto check = [&](int idx, const TensorSharding* now, const std::string& what) {
        const TensorSharding* was = idx >= 0 && static_cast<size_t>(idx) < m_state.size()
                                        ? m_data.sharding(m_state[static_cast<size_t>(idx)])
                                        : nullptr;
        if (idx >= 0 && (now ? (was && *was == *now) : !was))
            return;
        ++m_missed;
        std::cerr << "trace recorder: a change not notified at '" << note << "': " << what << " (value index " << idx
                  << ")\n";
    };
    for (Op* func : m_module.funcs()) {
        if (func->programId < 0) {
            check(-1, nullptr, "an unnamed function");
            continue;
        }
        const size_t numResults = ir::funcType(*func).results().size();
        for (size_t i = 0; i < numResults; ++i)
            check(m_ids.funcResultOf(func, static_cast<int>(i)),
                  ir::funcResultSharding(*func, static_cast<unsigned>(i)), "a function result");
        func->walk([&](Op* op) {
            for (const auto& r : op->results())
                check(r->programId, getShardingRef(r.get(), storage), "a result of " + op->name());
            for (const auto& region : op->regions())
                for (const auto& block : region->blocks())
                    for (const auto& a : block->args())
                        check(a->programId, getShardingRef(a.get(), storage), "an argument of " + op->name());
        });
    }
}

void TraceRecorder::nameAsRescanWould()
{
    // The walk of rescan(), with its lookups (which name what they meet) and nothing else.
    ++m_namingWalks;
    for (Op* func : m_module.funcs()) {
        const size_t numResults = ir::funcType(*func).results().size();
        for (size_t i = 0; i < numResults; ++i)
            m_ids.funcResultOf(func, static_cast<int>(i));
        func->walk([&](Op* op) {
            for (const auto& r : op->results())
                if (r->programId < 0)
                    m_ids.valueOf(r.get());
            for (const auto& region : op->regions())
                for (const auto& block : region->blocks())
                    for (const auto& a : block->args())
                        if (a->programId < 0)
                            m_ids.valueOf(a.get());
        });
    }
}

void TraceRecorder::rescan(DecisionKind kind, const std::string& note)
{
    ++m_fullScans;
    forgetWritten();
    // Only values still in the module (a walk never reaches erased ops); changes in index order.
    std::vector<TraceChange> changes;
    std::optional<TensorSharding> storage;
    auto check = [&](int idx, const TensorSharding* now) { noteIfChanged(idx, now, kind, changes); };
    for (Op* func : m_module.funcs()) {
        const size_t numResults = ir::funcType(*func).results().size();
        for (size_t i = 0; i < numResults; ++i)
            check(m_ids.funcResultOf(func, static_cast<int>(i)),
                  ir::funcResultSharding(*func, static_cast<unsigned>(i)));
        func->walk([&](Op* op) {
            for (const auto& r : op->results())
                check(m_ids.valueOf(r.get()), getShardingRef(r.get(), storage));
            for (const auto& region : op->regions())
                for (const auto& block : region->blocks())
                    for (const auto& a : block->args())
                        check(m_ids.valueOf(a.get()), getShardingRef(a.get(), storage));
        });
    }
    pushStageChanges(std::move(changes), note);
}

} // namespace shardx
