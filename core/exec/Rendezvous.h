// Rendezvous: where the processes of a run_parallel grid meet at each collective.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/exec/Tensor.h"

namespace shardx::exec {

/// The operands each member of a collective brought, by process id.
using Contributions = std::map<int64_t, std::vector<Tensor>>;

/// Meeting points of the processes of one grid. A collective is keyed by what it is and who takes
/// part; each member contributes its operands and waits until every member has, then all read
/// every contribution. A process that fails aborts every wait; when every live process waits and
/// none can go on (a member never comes), the waits fail as a deadlock instead of hanging.
class Rendezvous {
public:
    explicit Rendezvous(int64_t processes) : m_active(processes) {}

    /// Contributes `data` as process `me` to collective `key` of `members` processes; returns every
    /// member's contribution once all have come. Throws ExecError (without position) on abort or
    /// deadlock.
    std::shared_ptr<const Contributions> exchange(const std::string& key, int64_t me, size_t members,
                                                  std::vector<Tensor> data);
    /// A process ran to its end, or failed (then every waiting process is released with an error).
    void processFinished(bool failed);

private:
    struct Slot {
        Contributions data;
        size_t expected = 0;
        size_t waiting = 0;
        bool done = false;
    };
    void checkDeadlockLocked();

    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::map<std::string, std::shared_ptr<Slot>> m_open;
    int64_t m_active;
    bool m_aborted = false;
    std::string m_abortReason;
    bool m_abortSecondary = false; ///< the abort follows a process's own failure
};

} // namespace shardx::exec
