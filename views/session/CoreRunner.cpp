// CoreRunner: the worker thread, its tagged queue, and delivery of results to the UI thread.
#include "views/session/CoreRunner.h"

#include <QMetaObject>

namespace shardx::views {

CoreRunner::CoreRunner(QObject* parent) : QObject(parent), m_thread([this] { loop(); }) {}

CoreRunner::~CoreRunner()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
        m_queue.clear();
    }
    m_wake.notify_all();
    m_thread.join();
}

void CoreRunner::post(const QString& tag, std::function<void()> work, QObject* receiver, std::function<void()> done)
{
    int n = 0;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!tag.isEmpty())
            std::erase_if(m_queue, [&](const Job& j) { return j.tag == tag; });
        m_queue.push_back(Job{tag, std::move(work), receiver, std::move(done)});
        n = static_cast<int>(m_queue.size()) + (m_running ? 1 : 0);
    }
    m_wake.notify_one();
    emit pendingChanged(n);
}

int CoreRunner::pending() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return static_cast<int>(m_queue.size()) + (m_running ? 1 : 0) + m_undelivered;
}

void CoreRunner::waitForIdle()
{
    std::unique_lock<std::mutex> lock(m_mutex);
    m_idle.wait(lock, [this] { return m_queue.empty() && !m_running; });
}

void CoreRunner::loop()
{
    while (true) {
        Job job;
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stop || !m_queue.empty(); });
            if (m_stop)
                return;
            job = std::move(m_queue.front());
            m_queue.pop_front();
            m_running = true;
        }
        // Core code returns errors instead of throwing; a throw here would be a bug, and it must
        // not take the thread (and every later request) with it.
        try {
            job.work();
        } catch (...) {}
        const bool deliver = job.receiver && job.done;
        if (deliver) {
            // Counted as pending until it ran, so that waiting for idle also waits for results
            // that are finished but not yet delivered (a fast job's result would otherwise be
            // missed by a waiter that checks pending() before the event loop ran it). Queued on
            // this object, which lives on the UI thread and outlives the receiver's check.
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                ++m_undelivered;
            }
            QMetaObject::invokeMethod(
                this,
                [this, receiver = job.receiver, done = std::move(job.done)] {
                    if (receiver)
                        done();
                    std::lock_guard<std::mutex> lock(m_mutex);
                    --m_undelivered;
                },
                Qt::QueuedConnection);
        }
        int n = 0;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_running = false;
            n = static_cast<int>(m_queue.size());
            if (m_queue.empty())
                m_idle.notify_all();
        }
        QMetaObject::invokeMethod(
            this, [this, n] { emit pendingChanged(n); }, Qt::QueuedConnection);
    }
}

} // namespace shardx::views
