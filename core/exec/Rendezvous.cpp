// Rendezvous: collective meeting points with abort and deadlock detection.
#include "core/exec/Rendezvous.h"

#include "core/exec/Interpreter.h"

namespace shardx::exec {

std::shared_ptr<const Contributions> Rendezvous::exchange(const std::string& key, int64_t me, size_t members,
                                                          std::vector<Tensor> data)
{
    std::unique_lock<std::mutex> lock(m_mutex);
    if (m_aborted)
        throw ExecError{m_abortReason, {}, m_abortSecondary};
    auto& open = m_open[key];
    if (!open) {
        open = std::make_shared<Slot>();
        open->expected = members;
    }
    std::shared_ptr<Slot> slot = open;
    if (slot->expected != members || slot->data.count(me)) {
        m_aborted = true;
        m_abortReason = "processes disagree on the members of a collective";
        m_cv.notify_all();
        throw ExecError{m_abortReason, {}};
    }
    slot->data.emplace(me, std::move(data));
    if (slot->data.size() == slot->expected) {
        slot->done = true;
        m_active += static_cast<int64_t>(slot->waiting); // the waiters go on
        m_open.erase(key);
        m_cv.notify_all();
        return std::shared_ptr<const Contributions>(slot, &slot->data);
    }
    ++slot->waiting;
    --m_active;
    checkDeadlockLocked();
    m_cv.wait(lock, [&] { return slot->done || m_aborted; });
    if (!slot->done)
        throw ExecError{m_abortReason, {}, m_abortSecondary};
    return std::shared_ptr<const Contributions>(slot, &slot->data);
}

void Rendezvous::processFinished(bool failed)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    --m_active;
    if (failed && !m_aborted) {
        m_aborted = true;
        m_abortReason = "a collective's peer process failed";
        m_abortSecondary = true;
        m_cv.notify_all();
        return;
    }
    checkDeadlockLocked();
}

void Rendezvous::checkDeadlockLocked()
{
    if (m_active > 0 || m_open.empty() || m_aborted)
        return;
    m_aborted = true;
    m_abortReason = "deadlock: processes wait at a collective that other processes never reach";
    m_cv.notify_all();
}

} // namespace shardx::exec
