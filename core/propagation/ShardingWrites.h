// ShardingWrites: the "sharding written" notification of the code that writes shardings.
#pragma once

#include "core/ir/Operation.h"

namespace shardx {

/// Hears of every sharding that propagation code writes on this thread (ValueSharding's
/// setters, the driver's function results, user priorities, the pipeline's stages that report
/// their writes). A trace recorder learns from it which values may have changed outside the
/// steps it saw, instead of comparing the whole module with what it recorded.
class ShardingWriteListener {
public:
    /// A sharding stored on `op` was written: the own sharding of its results, a result's
    /// entry in its `sdy.sharding`, its in/out shardings, or a func.func's argument and result
    /// shardings. Called after the write.
    virtual void shardingsWritten(ir::Op& op) = 0;
    /// The stage that just began (PropagationObserver::stageBegin) reports every sharding it
    /// writes through this notification, creates no value and erases no op whose sharding it
    /// wrote: what it changed is what it reported.
    virtual void stageWritesReported() {}

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

} // namespace shardx
