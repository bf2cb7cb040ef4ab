// ShardingWrites: the "sharding written" notification of the code that writes shardings.
#pragma once

#include "core/ir/Operation.h"

namespace shardx {

/// Hears of every sharding that propagation code writes on this thread (ValueSharding's
/// setters, the driver's function results, user priorities, the pipeline's stages), and of the
/// ops that the pipeline's stages insert and erase. A trace recorder learns from it which values
/// may have changed outside the steps it saw, instead of comparing the whole module with what it
/// recorded.
class ShardingWriteListener {
public:
    /// A sharding stored on `op` was written: the own sharding of its results, a result's
    /// entry in its `sdy.sharding`, its in/out shardings, or a func.func's argument and result
    /// shardings. Called after the write.
    virtual void shardingsWritten(ir::Op& op) = 0;
    /// The stage that just began (PropagationObserver::stageBegin) reports what it changes
    /// through these notifications: every sharding it writes, every op it inserts or moves and
    /// every op it erases after notifying it (or it says that it rewrote the module,
    /// moduleRewritten()). What it changed is what it reported.
    virtual void stageWritesReported() {}
    /// `op` was inserted or moved into the module, with the ops its regions hold: their values
    /// hold shardings that were never compared (new values, or values that read their sharding
    /// elsewhere now). Called once it is in its place.
    virtual void opsInserted(ir::Op& op) { (void)op; }
    /// `op` and the ops its regions hold are about to be erased (no notification of a write to
    /// them may be kept: their memory is freed).
    virtual void opsErasing(ir::Op& op) { (void)op; }
    /// The stage that just began changed the module in a way it does not detail (a canonicalizer
    /// pattern fired): a recorder compares the whole module at the stage's end.
    virtual void moduleRewritten() {}

protected:
    ShardingWriteListener() = default;
    ~ShardingWriteListener() = default;
};

/// Registers `listener` for the writes on the calling thread for as long as the scope lives
/// (scopes nest: every registered listener hears every write).
class ShardingWriteScope {
public:
    explicit ShardingWriteScope(ShardingWriteListener* listener);
    ~ShardingWriteScope();
    ShardingWriteScope(const ShardingWriteScope&) = delete;
    ShardingWriteScope& operator=(const ShardingWriteScope&) = delete;

private:
    ShardingWriteListener* m_listener;
};

/// True while a listener is registered on this thread (writers may skip work otherwise).
bool shardingWritesObserved();
/// Tells the listeners of this thread that shardings stored on `op` were written.
void notifyShardingsWritten(ir::Op& op);
/// The same for the op that stores `v`'s sharding or reads it for `v` (its defining op, or the
/// op whose region holds the block argument `v`).
void notifyShardingWritten(ir::Value& v);
/// Tells the listeners of this thread that the stage that just began reports its writes.
void notifyStageWritesReported();
/// Tells the listeners of this thread that `op` (and what its regions hold) was inserted or moved
/// (ShardingWriteListener::opsInserted).
void notifyOpsInserted(ir::Op& op);
/// Tells the listeners of this thread that `op` (and what its regions hold) is about to be erased.
void notifyOpsErasing(ir::Op& op);
/// Erases `op` (its references dropped first), told to the listeners of this thread before.
void eraseNotified(ir::Op& op);
/// Tells the listeners of this thread that the stage that just began rewrote the module in a way
/// it does not detail.
void notifyModuleRewritten();

} // namespace shardx
