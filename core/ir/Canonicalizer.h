// Canonicalizer: MLIR's greedy canonicalization (patterns, folding, dead code) for our ops.
#pragma once

#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/ir/Module.h"

namespace shardx::ir {

/// The rewriter handed to canonicalization patterns. Every change goes through it so that the
/// driver can requeue affected ops (users of replaced values, producers of erased operands).
class Rewriter {
public:
    /// Replaces every use of op's results by `values` (one per result) and erases `op`.
    void replaceOp(Op* op, const std::vector<Value*>& values);
    /// Erases `op` (its results must be unused).
    void eraseOp(Op* op);
    /// Inserts a new op before `before` and queues it.
    Op* insertBefore(Op* before, std::unique_ptr<Op> op);
    /// Inserts a new op after `after` and queues it.
    Op* insertAfter(Op* after, std::unique_ptr<Op> op);
    /// Records that `op` was changed in place (queues it and its users).
    void notifyModified(Op* op);
    /// Makes every use of `from` use `to` (queues the users).
    void replaceAllUsesWith(Value* from, Value* to);

    /// Queues `op` for a (re)visit.
    void enqueue(Op* op);
    /// Next op to visit, or nullptr when done.
    Op* pop();
    bool changed() const { return m_changed; }

    /// The module being rewritten (mesh lookups).
    const Module* module = nullptr;

private:
    void enqueueUsers(Value* v);
    void forget(Op* op);

    std::vector<Op*> m_worklist;
    std::unordered_map<Op*, size_t> m_index;
    bool m_changed = false;
};

/// A canonicalization pattern: returns true if it changed the IR (through the rewriter).
using CanonicalizationPattern = std::function<bool(Op&, Rewriter&)>;

/// Patterns for the sdy ops (SDY.md sections 2.3, 2.4, 2.13-2.17), keyed by op name.
const std::unordered_map<std::string, std::vector<CanonicalizationPattern>>& sdyCanonicalizationPatterns();

/// The only pattern labelled `sdy-reshard`: a reshard of a single-use reshard becomes one
/// reshard to the outer sharding.
bool foldReshardOfReshard(Op& op, Rewriter& rw);

/// MLIR's greedy pattern driver on every function of `module`, to a fixed point: `apply` (the
/// patterns, true when one changed the IR) on every op, plus the removal of unused Pure ops and the
/// de-duplication/hoisting of identical `stablehlo.constant` ops that the driver always does.
void applyPatternsGreedily(Module& module, const CanonicalizationPattern& apply);

/// Runs the canonicalizer to a fixed point on every function of `module`: sdy patterns, dead
/// code removal of unused Pure ops, and de-duplication/hoisting of identical
/// `stablehlo.constant` ops. Returns true (canonicalization cannot fail).
bool canonicalize(Module& module);

/// True if `op` has no used results and no side effects (Pure, or a region op whose nested
/// ops are all side-effect free), so it can be erased.
bool isTriviallyDead(const Op& op);

} // namespace shardx::ir
