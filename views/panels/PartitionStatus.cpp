// PartitionStatus: the empty states of the collectives, devices and why-replicated panels.
#include "views/panels/PartitionStatus.h"

#include <QCoreApplication>

#include "views/session/SessionContext.h"

namespace shardx::views {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("PartitionStatus", text); }

} // namespace

QString partitionWaitingText(const SessionContext& context)
{
    if (context.partitionResult())
        return {};
    const Session* s = context.session();
    if (!s)
        return context.isBusy() ? tr("Opening the program…") : tr("No program open.");
    if (context.isBusy())
        return tr("Propagating… The partitioned program follows once propagation finishes.");
    if (!s->trace()) {
        if (context.propagationDiagnostics().hasErrors())
            return tr("Propagation failed (see the Problems panel): there is no propagated program to partition.");
        return tr("Not propagated yet: the partitioned program follows propagation (Propagation > Propagate "
                  "Again).");
    }
    return tr("Partitioning…");
}

} // namespace shardx::views
