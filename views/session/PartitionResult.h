// PartitionResult: what the views show of a partitioned program, as SessionContext computes it.
#pragma once

#include <optional>
#include <vector>

#include <QString>

#include "core/partition/PartitionModel.h"
#include "core/session/Session.h"

namespace shardx::views {

/// What partitioning the propagated program gives (SessionContext::partitionResult()), computed on
/// the core thread: the partition model or why partitioning failed, the per-device program as
/// text, and the "why replicated?" list or why there is none.
struct PartitionResult {
    std::optional<PartitionModel> model; ///< empty when partitioning failed
    QString error;                       ///< why it failed
    QString programText;                 ///< model->local, printed
    /// Each device's shards list every tensor (else, for a large program, only the functions'
    /// arguments and results).
    bool everyTensor = false;
    std::vector<ReplicatedTensor> replicated; ///< largest cost first
    QString replicatedError;                  ///< why there is no list
};

} // namespace shardx::views
