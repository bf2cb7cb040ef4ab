// Timings: how long each op and collective of a run took on each device (`shardx-cli validate --timings`,
// `shardx-cli interpret --timings`). The interpreter times every op on the host; a device back end adds the
// time its kernels took on the device, from GPU timestamps where the device has them.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/ir/Module.h"
#include "core/support/Diagnostic.h"

namespace shardx::exec {

struct ProcessInfo;

/// How an op's `ms` was measured.
enum class TimeClock {
    Gpu,  ///< the sum of its kernels' GPU timestamps (end minus start of each dispatch)
    Host, ///< a host timer around the op (or around its kernels' submission, where the device has no timestamps)
};

/// One op (or collective) of one device's program, summed over every time it ran.
struct OpTiming {
    const ir::Op* op = nullptr;
    std::string opName; ///< `stablehlo.dot_general`
    SourcePos pos;
    /// Where it ran: `cpu` (the reference back end), `vulkan` (kernels), `cpu fallback` (an op the Vulkan layer
    /// does not cover), `host` (constants, control, checks), `host staging` (a collective of the Vulkan back end).
    std::string ranOn;
    bool collective = false;
    int64_t calls = 0;
    int64_t dispatches = 0; ///< kernels launched (Vulkan)
    TimeClock clock = TimeClock::Host;
    double ms = 0;     ///< the op's time under `clock`
    double hostMs = 0; ///< host wall time around the op, whatever ran it (a kernel's includes uploads and waiting)
    /// Kernel time per dispatch label (`dot_general`, `strided_copy`), Vulkan only.
    std::map<std::string, double> kernels;
};

/// One device's (process's) timings.
struct DeviceTimings {
    /// The process id in its grid (replica * partitions + partition); -1: ops run outside any grid (the
    /// interpreter conventions' @main around `interpreter.run_parallel`).
    int64_t device = 0;
    std::string backend;       ///< `reference`, `vulkan: llvmpipe (...)`
    std::string clock;         ///< how the kernel times were measured, as a sentence
    std::vector<OpTiming> ops; ///< in the order they first ran
    int64_t calls = 0;
    int64_t dispatches = 0;
    double kernelMs = 0;     ///< ops on the device (their `ms`)
    double hostOpMs = 0;     ///< ops run on the host (not collectives)
    double collectiveMs = 0; ///< collectives (host timers: they include waiting for the peers)
    double totalMs = 0;      ///< kernelMs + hostOpMs + collectiveMs
};

/// Collects timings from the processes of a run (thread-safe: each process records from its own thread).
class TimingRecorder {
public:
    /// `op` ran on `process` (timingProcess) and took `hostMs` of host wall time. Called by the interpreter for
    /// every op it evaluates outside the bodies of reductions, sorts and scatters; ops that only hold regions
    /// (while, if, case, func.call, interpreter.run_parallel) are not recorded, their regions' ops are.
    void hostTime(int64_t process, const ir::Op& op, const SourcePos& pos, double hostMs);
    /// A back end ran `op`'s kernels: their times (label, ms) under `clock`. Called before hostTime for the
    /// same run of the op.
    void deviceTime(int64_t process, const ir::Op& op, const std::vector<std::pair<std::string, double>>& kernels,
                    TimeClock clock);
    /// Where `op` ran on `process` when it is not `backend`'s default place (see OpTiming::ranOn).
    void ranOn(int64_t process, const ir::Op& op, const char* where);
    /// The back end of `process` and how its kernels are timed (kept once set).
    void describe(int64_t process, const std::string& backend, const std::string& clock);
    /// What the ops of processes without a describe() ran on (`reference`), and where (`cpu`).
    void setDefault(const std::string& backend, const std::string& ranOn);

    /// Every process's timings, by process id, with totals.
    std::vector<DeviceTimings> result() const;

private:
    struct Proc {
        std::string backend, clock;
        std::vector<OpTiming> ops;
        std::unordered_map<const ir::Op*, size_t> index;
    };
    OpTiming& entry(Proc& p, const ir::Op& op);

    mutable std::mutex m_mutex;
    std::map<int64_t, Proc> m_procs;
    std::string m_defaultBackend = "reference", m_defaultRanOn = "cpu";
};

/// The key a process's timings are recorded under: its id in a grid, -1 outside any grid.
int64_t timingProcess(const ProcessInfo& proc);
/// True for the StableHLO collectives between processes.
bool isTimedCollective(const std::string& opName);

/// `[{"device": 0, "backend": ..., "clock": ..., "total_ms": ..., "ops": [{"op", "location", "ran_on",
/// "collective", "calls", "dispatches", "clock", "ms", "host_ms", "kernels"}]}]`.
nlohmann::json timingsJson(const std::vector<DeviceTimings>& timings);
/// A table per device, the `rows` slowest ops each (0: all), with totals.
std::string timingsText(const std::vector<DeviceTimings>& timings, size_t rows = 20);

} // namespace shardx::exec
