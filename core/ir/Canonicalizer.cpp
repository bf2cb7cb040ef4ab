// Canonicalizer: greedy worklist driver, dead-code removal and constant de-duplication.
#include "core/ir/Canonicalizer.h"

#include <algorithm>

#include "core/ir/OpRegistry.h"

namespace shardx::ir {

// ---- Rewriter ---------------------------------------------------------------------------

void Rewriter::enqueue(Op* op)
{
    if (!op || m_index.count(op))
        return;
    m_index[op] = m_worklist.size();
    m_worklist.push_back(op);
}

Op* Rewriter::pop()
{
    while (!m_worklist.empty()) {
        Op* op = m_worklist.back();
        m_worklist.pop_back();
        if (!op)
            continue;
        m_index.erase(op);
        return op;
    }
    return nullptr;
}

void Rewriter::forget(Op* op)
{
    op->walk([this](Op* nested) {
        auto it = m_index.find(nested);
        if (it != m_index.end()) {
            m_worklist[it->second] = nullptr;
            m_index.erase(it);
        }
    });
}

void Rewriter::enqueueUsers(Value* v)
{
    for (const Use& u : v->uses())
        enqueue(u.user);
}

void Rewriter::notifyModified(Op* op)
{
    m_changed = true;
    enqueue(op);
    for (const auto& r : op->results())
        enqueueUsers(r.get());
}

void Rewriter::replaceAllUsesWith(Value* from, Value* to)
{
    m_changed = true;
    enqueueUsers(from);
    from->replaceAllUsesWith(to);
}

void Rewriter::replaceOp(Op* op, const std::vector<Value*>& values)
{
    for (unsigned i = 0; i < op->numResults() && i < values.size(); ++i)
        replaceAllUsesWith(op->result(i), values[i]);
    eraseOp(op);
}

void Rewriter::eraseOp(Op* op)
{
    m_changed = true;
    // Producers of the operands may become dead.
    std::vector<Op*> producers;
    op->walk([&](Op* nested) {
        for (Value* v : nested->operands())
            if (v && v->definingOp() && !op->isProperAncestorOf(v->definingOp()))
                producers.push_back(v->definingOp());
    });
    forget(op);
    op->erase();
    for (Op* p : producers)
        enqueue(p);
}

Op* Rewriter::insertBefore(Op* before, std::unique_ptr<Op> op)
{
    m_changed = true;
    Op* raw = before->parentBlock()->insertBefore(before, std::move(op));
    enqueue(raw);
    return raw;
}

Op* Rewriter::insertAfter(Op* after, std::unique_ptr<Op> op)
{
    m_changed = true;
    Op* raw = after->parentBlock()->insertAfter(after, std::move(op));
    enqueue(raw);
    return raw;
}

// ---- dead code --------------------------------------------------------------------------

namespace {

/// Region ops whose side effects are those of their bodies (MLIR's RecursiveMemoryEffects).
bool hasRecursiveEffects(const std::string& name)
{
    static const char* const kNames[] = {"sdy.manual_computation",
                                         "sdy.named_computation",
                                         "stablehlo.while",
                                         "stablehlo.case",
                                         "stablehlo.if",
                                         "stablehlo.reduce",
                                         "stablehlo.sort",
                                         "stablehlo.map",
                                         "stablehlo.reduce_window",
                                         "stablehlo.scatter",
                                         "stablehlo.select_and_scatter"};
    return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

bool isSideEffectFree(const Op& op)
{
    const OpInfo* info = OpRegistry::instance().lookup(op.name());
    if (info && info->isTerminator && info->isPure)
        return true;
    if (hasRecursiveEffects(op.name())) {
        for (const auto& r : op.regions())
            for (const auto& b : r->blocks())
                for (const auto& nested : b->ops())
                    if (!isSideEffectFree(*nested))
                        return false;
        return true;
    }
    return info && info->isPure && op.numRegions() == 0;
}

bool isConstantLike(const Op& op) { return op.name() == "stablehlo.constant"; }

} // namespace

bool isTriviallyDead(const Op& op)
{
    // Uses first: the common case (a used result) needs no registry lookup.
    for (const auto& r : op.results())
        if (!r->useEmpty())
            return false;
    const OpInfo* info = OpRegistry::instance().lookup(op.name());
    if (info && info->isTerminator)
        return false;
    return isSideEffectFree(op);
}

// ---- driver -----------------------------------------------------------------------------

namespace {

/// Uniques `stablehlo.constant` ops per function, keeping them at the start of the entry block
/// (MLIR's OperationFolder).
class ConstantFolder {
public:
    explicit ConstantFolder(Op& func) : m_func(func) {}

    /// Returns true if `op` was merged into an existing constant (and erased).
    bool process(Op& op, Rewriter& rw)
    {
        const Attribute* value = op.attr("value");
        if (!value || op.numResults() != 1 || op.parentOp() != &m_func || !op.attrs().empty())
            return false;
        for (Op* known : m_known) {
            if (known == &op)
                return false;
            if (known->result(0)->type() == op.result(0)->type() && *known->attr("value") == *value) {
                rw.replaceOp(&op, {known->result(0)});
                return true;
            }
        }
        m_known.push_back(&op);
        Block& entry = m_func.region(0).front();
        Op* prev = op.prevInBlock();
        bool prevOwned = prev && std::find(m_known.begin(), m_known.end(), prev) != m_known.end();
        if (op.parentBlock() != &entry || (entry.ops().front().get() != &op && !prevOwned)) {
            std::unique_ptr<Op> owned = op.parentBlock()->remove(&op);
            Op* first = entry.ops().empty() ? nullptr : entry.ops().front().get();
            entry.insertBefore(first, std::move(owned));
        }
        return false;
    }

    void forget(Op* op) { m_known.erase(std::remove(m_known.begin(), m_known.end(), op), m_known.end()); }

private:
    Op& m_func;
    std::vector<Op*> m_known;
};

void canonicalizeFunc(const Module& module, Op& func, const CanonicalizationPattern& apply)
{
    Rewriter rw;
    rw.module = &module;
    // MLIR fills the worklist in post-order and pops from the back after reversing it, so ops
    // are first visited in post-order; requeued ops are visited next (LIFO).
    std::vector<Op*> order;
    for (const auto& r : func.regions())
        for (const auto& b : r->blocks())
            for (const auto& op : b->ops()) {
                std::vector<Op*> post;
                std::function<void(Op*)> visit = [&](Op* o) {
                    for (const auto& rr : o->regions())
                        for (const auto& bb : rr->blocks())
                            for (const auto& oo : bb->ops())
                                visit(oo.get());
                    post.push_back(o);
                };
                visit(op.get());
                order.insert(order.end(), post.begin(), post.end());
            }
    for (auto it = order.rbegin(); it != order.rend(); ++it)
        rw.enqueue(*it);

    ConstantFolder folder(func);
    int budget = 1000000; // guards against a pattern pair that never converges
    while (Op* op = rw.pop()) {
        if (--budget < 0)
            break;
        if (isTriviallyDead(*op)) {
            folder.forget(op);
            rw.eraseOp(op);
            continue;
        }
        if (isConstantLike(*op)) {
            folder.process(*op, rw);
            continue;
        }
        apply(*op, rw);
    }
}

} // namespace

void applyPatternsGreedily(Module& module, const CanonicalizationPattern& apply)
{
    for (Op* func : module.funcs())
        if (func->numRegions() && !func->region(0).empty())
            canonicalizeFunc(module, *func, apply);
}

bool canonicalize(Module& module)
{
    const auto& patterns = sdyCanonicalizationPatterns();
    applyPatternsGreedily(module, [&](Op& op, Rewriter& rw) {
        auto it = patterns.find(op.name());
        if (it == patterns.end())
            return false;
        for (const CanonicalizationPattern& p : it->second)
            if (p(op, rw))
                return true;
        return false;
    });
    return true;
}

} // namespace shardx::ir
