// Timings: per-device op and collective times of a run, as a table and as JSON.
#include "core/exec/Timings.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/exec/Interpreter.h"

namespace shardx::exec {

int64_t timingProcess(const ProcessInfo& proc)
{
    return proc.rendezvous ? proc.replica * proc.numPartitions + proc.partition : -1;
}

bool isTimedCollective(const std::string& n)
{
    return n == "stablehlo.all_gather" || n == "stablehlo.all_reduce" || n == "stablehlo.reduce_scatter" ||
           n == "stablehlo.all_to_all" || n == "stablehlo.collective_permute" || n == "stablehlo.collective_broadcast";
}

OpTiming& TimingRecorder::entry(Proc& p, const ir::Op& op)
{
    auto it = p.index.find(&op);
    if (it != p.index.end())
        return p.ops[it->second];
    p.index.emplace(&op, p.ops.size());
    OpTiming t;
    t.op = &op;
    t.opName = op.name();
    t.collective = isTimedCollective(op.name());
    p.ops.push_back(std::move(t));
    return p.ops.back();
}

void TimingRecorder::hostTime(int64_t process, const ir::Op& op, const SourcePos& pos, double hostMs)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    OpTiming& t = entry(m_procs[process], op);
    t.pos = pos;
    ++t.calls;
    t.hostMs += hostMs;
    if (t.clock == TimeClock::Host && t.dispatches == 0)
        t.ms += hostMs;
}

void TimingRecorder::deviceTime(int64_t process, const ir::Op& op,
                                const std::vector<std::pair<std::string, double>>& kernels, TimeClock clock)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    OpTiming& t = entry(m_procs[process], op);
    t.ranOn = "vulkan";
    if (kernels.empty())
        return; // on the device without a kernel (a reshape shares its operand's buffer): the host time stands
    if (t.dispatches == 0) {
        // The first kernels of this op: its time is theirs from now on, not the host's.
        t.ms = 0;
        t.clock = clock;
    }
    for (const auto& [label, ms] : kernels) {
        ++t.dispatches;
        t.ms += ms;
        t.kernels[label] += ms;
    }
}

void TimingRecorder::ranOn(int64_t process, const ir::Op& op, const char* where)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    OpTiming& t = entry(m_procs[process], op);
    if (t.dispatches == 0)
        t.ranOn = where;
}

void TimingRecorder::describe(int64_t process, const std::string& backend, const std::string& clock)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    Proc& p = m_procs[process];
    if (p.backend.empty()) {
        p.backend = backend;
        p.clock = clock;
    }
}

void TimingRecorder::setDefault(const std::string& backend, const std::string& ranOn)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_defaultBackend = backend;
    m_defaultRanOn = ranOn;
}

std::vector<DeviceTimings> TimingRecorder::result() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<DeviceTimings> out;
    for (const auto& [process, p] : m_procs) {
        DeviceTimings d;
        d.device = process;
        d.backend = p.backend.empty() ? m_defaultBackend : p.backend;
        d.clock = p.clock.empty() ? "host timers around each op" : p.clock;
        d.ops = p.ops;
        for (OpTiming& t : d.ops) {
            if (t.ranOn.empty())
                t.ranOn = m_defaultRanOn;
            d.calls += t.calls;
            d.dispatches += t.dispatches;
            if (t.dispatches > 0)
                d.kernelMs += t.ms;
            else if (t.collective)
                d.collectiveMs += t.ms;
            else
                d.hostOpMs += t.ms;
        }
        d.totalMs = d.kernelMs + d.hostOpMs + d.collectiveMs;
        out.push_back(std::move(d));
    }
    return out;
}

namespace {

std::string timPosText(const SourcePos& p)
{
    return p.isKnown() ? p.file + ":" + std::to_string(p.line) + ":" + std::to_string(p.col) : std::string("-");
}

std::string timMs(double ms)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", ms);
    return buf;
}

const char* timClockName(TimeClock c) { return c == TimeClock::Gpu ? "gpu" : "host"; }

std::string timDeviceName(int64_t device)
{
    return device < 0 ? std::string("outside run_parallel") : "device " + std::to_string(device);
}

} // namespace

nlohmann::json timingsJson(const std::vector<DeviceTimings>& timings)
{
    nlohmann::json out = nlohmann::json::array();
    for (const DeviceTimings& d : timings) {
        nlohmann::json ops = nlohmann::json::array();
        for (const OpTiming& t : d.ops) {
            nlohmann::json kernels = nlohmann::json::object();
            for (const auto& [label, ms] : t.kernels)
                kernels[label] = ms;
            ops.push_back({{"op", t.opName},
                           {"location", t.pos.isKnown() ? timPosText(t.pos) : std::string()},
                           {"ran_on", t.ranOn},
                           {"collective", t.collective},
                           {"calls", t.calls},
                           {"dispatches", t.dispatches},
                           {"clock", timClockName(t.clock)},
                           {"ms", t.ms},
                           {"host_ms", t.hostMs},
                           {"kernels", kernels}});
        }
        out.push_back({{"device", d.device},
                       {"backend", d.backend},
                       {"clock", d.clock},
                       {"calls", d.calls},
                       {"dispatches", d.dispatches},
                       {"kernel_ms", d.kernelMs},
                       {"host_op_ms", d.hostOpMs},
                       {"collective_ms", d.collectiveMs},
                       {"total_ms", d.totalMs},
                       {"ops", ops}});
    }
    return out;
}

std::string timingsText(const std::vector<DeviceTimings>& timings, size_t rows)
{
    std::string out;
    auto pad = [](std::string s, size_t w, bool right = false) {
        if (s.size() < w)
            s.insert(right ? 0 : s.size(), w - s.size(), ' ');
        return s;
    };
    for (const DeviceTimings& d : timings) {
        out += "timings of " + timDeviceName(d.device) + " (" + d.backend + "; " + d.clock + "):\n";
        std::vector<const OpTiming*> order;
        for (const OpTiming& t : d.ops)
            order.push_back(&t);
        // The slowest first; ties in program order.
        std::stable_sort(order.begin(), order.end(),
                         [](const OpTiming* a, const OpTiming* b) { return a->ms > b->ms; });
        const size_t shown = rows == 0 ? order.size() : std::min(rows, order.size());
        size_t opWidth = 2, posWidth = 8, ranWidth = 6;
        for (size_t i = 0; i < shown; ++i) {
            opWidth = std::max(opWidth, order[i]->opName.size() + (order[i]->collective ? 13 : 0));
            posWidth = std::max(posWidth, timPosText(order[i]->pos).size());
            ranWidth = std::max(ranWidth, order[i]->ranOn.size());
        }
        out += "  " + pad("op", opWidth) + "  " + pad("location", posWidth) + "  " + pad("ran on", ranWidth) +
               "  calls  kernels   time (ms)  clock\n";
        for (size_t i = 0; i < shown; ++i) {
            const OpTiming& t = *order[i];
            out += "  " + pad(t.opName + (t.collective ? " (collective)" : ""), opWidth) + "  " +
                   pad(timPosText(t.pos), posWidth) + "  " + pad(t.ranOn, ranWidth) + "  " +
                   pad(std::to_string(t.calls), 5, true) + "  " + pad(std::to_string(t.dispatches), 7, true) + "  " +
                   pad(timMs(t.ms), 10, true) + "  " + timClockName(t.clock) + "\n";
        }
        if (shown < order.size()) {
            double rest = 0;
            for (size_t i = shown; i < order.size(); ++i)
                rest += order[i]->ms;
            out += "  (" + std::to_string(order.size() - shown) + " more ops, " + timMs(rest) +
                   " ms together; --json lists every op)\n";
        }
        out += "  total " + timMs(d.totalMs) + " ms: kernels " + timMs(d.kernelMs) + " ms (" +
               std::to_string(d.dispatches) + " dispatches), host ops " + timMs(d.hostOpMs) + " ms, collectives " +
               timMs(d.collectiveMs) + " ms; " + std::to_string(d.calls) + " op runs\n";
    }
    return out;
}

} // namespace shardx::exec
