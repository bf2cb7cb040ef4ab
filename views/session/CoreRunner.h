// CoreRunner: the one worker thread that runs core work for the UI, with tagged requests that replace stale ones.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include <QObject>
#include <QPointer>
#include <QString>

namespace shardx::views {

/// Runs core work (opening, propagation, layout) on one thread of its own, in the order posted,
/// so that the UI thread never blocks on it (RenderDoc's ReplayManager). A job posted with a tag
/// replaces every queued job with the same tag that has not started yet: holding a key that asks
/// for new work never builds a backlog.
class CoreRunner : public QObject {
    Q_OBJECT

public:
    explicit CoreRunner(QObject* parent = nullptr);
    /// Finishes the running job, drops the queued ones and joins the thread.
    ~CoreRunner() override;

    /// Queues `work` for the core thread. `done` then runs on `receiver`'s thread (the UI),
    /// unless `receiver` was destroyed meanwhile. An empty `tag` never replaces anything.
    void post(const QString& tag, std::function<void()> work, QObject* receiver = nullptr,
              std::function<void()> done = {});
    /// True on the core thread (for asserts at call sites).
    bool isCoreThread() const { return std::this_thread::get_id() == m_thread.get_id(); }
    /// Jobs queued or running, and finished jobs whose `done` has not run yet.
    int pending() const;
    /// Blocks until every job posted so far has run (tests and shutdown; not from the core thread).
    void waitForIdle();

signals:
    /// The number of queued or running jobs changed (UI thread).
    void pendingChanged(int pending);

private:
    struct Job {
        QString tag;
        std::function<void()> work;
        QPointer<QObject> receiver;
        std::function<void()> done;
    };
    void loop();

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_idle;
    std::deque<Job> m_queue;
    bool m_running = false;
    int m_undelivered = 0; ///< results posted to the UI thread that have not run yet
    bool m_stop = false;
    std::thread m_thread;
};

} // namespace shardx::views
