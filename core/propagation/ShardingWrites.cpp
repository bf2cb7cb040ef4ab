// The thread's sharding-write listeners (ShardingWrites.h).
#include "core/propagation/ShardingWrites.h"

#include <algorithm>
#include <vector>

namespace shardx {

namespace {

/// The listeners of this thread, innermost last. Propagation runs on one thread at a time per
/// module (the GUI's core thread, the CLI's main thread), and so does its recording.
std::vector<ShardingWriteListener*>& threadShardingListeners()
{
    thread_local std::vector<ShardingWriteListener*> listeners;
    return listeners;
}

} // namespace

ShardingWriteScope::ShardingWriteScope(ShardingWriteListener* listener) : m_listener(listener)
{
    if (m_listener)
        threadShardingListeners().push_back(m_listener);
}

ShardingWriteScope::~ShardingWriteScope()
{
    if (!m_listener)
        return;
    std::vector<ShardingWriteListener*>& listeners = threadShardingListeners();
    auto it = std::find(listeners.rbegin(), listeners.rend(), m_listener);
    if (it != listeners.rend())
        listeners.erase(std::next(it).base());
}

bool shardingWritesObserved() { return !threadShardingListeners().empty(); }

void notifyShardingsWritten(ir::Op& op)
{
    for (ShardingWriteListener* l : threadShardingListeners())
        l->shardingsWritten(op);
}

void notifyShardingWritten(ir::Value& v)
{
    if (threadShardingListeners().empty())
        return;
    ir::Op* op = v.definingOp();
    if (!op && v.ownerBlock())
        op = v.ownerBlock()->parentOp();
    if (op)
        notifyShardingsWritten(*op);
}

void notifyOpsInserted(ir::Op& op)
{
    for (ShardingWriteListener* l : threadShardingListeners())
        l->opsInserted(op);
}

void notifyOpsErasing(ir::Op& op)
{
    for (ShardingWriteListener* l : threadShardingListeners())
        l->opsErasing(op);
}

void eraseNotified(ir::Op& op)
{
    notifyOpsErasing(op);
    op.dropAllReferences();
    op.erase();
}

void notifyModuleRewritten()
{
    for (ShardingWriteListener* l : threadShardingListeners())
        l->moduleRewritten();
}

void notifyStageWritesReported()
{
    for (ShardingWriteListener* l : threadShardingListeners())
        l->stageWritesReported();
}

} // namespace shardx
