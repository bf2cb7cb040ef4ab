// PartitionStatus: what the partitioning panels say while there is no partition to show.
#pragma once

#include <QString>

namespace shardx::views {

class SessionContext;

/// Why `context` has no partitionResult() (no program, opening or propagating, not propagated or
/// propagation failed, partitioning), or an empty string when it has one.
QString partitionWaitingText(const SessionContext& context);

} // namespace shardx::views
