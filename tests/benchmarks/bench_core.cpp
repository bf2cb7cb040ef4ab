// Benchmarks of the core on generated transformer modules: parse, print, propagate.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "core/generate/ModelGenerator.h"
#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/ir/Verifier.h"
#include "core/passes/PassRegistry.h"
#include "core/propagation/PropagationPasses.h"
#include "core/session/Session.h"
#include "core/trace/Trace.h"
#include "core/trace/TraceBinary.h"
#include "core/trace/TraceRecorder.h"
#include "tests/benchmarks/BenchMemory.h"
#include "tests/io/LargeModuleText.h"

using namespace shardx;
using namespace shardx::bench;

namespace {

/// `fsdp+megatron` decoder stacks on a 2x4x4 mesh, as `shardx-cli generate` writes them (with
/// locations); about 98 ops per layer, so 10 / 102 / 1020 layers give roughly 1k / 10k / 100k ops.
const std::string& moduleText(int layers)
{
    static std::map<int, std::string> cache;
    auto it = cache.find(layers);
    if (it != cache.end())
        return it->second;
    generate::TransformerSpec spec;
    spec.layers = layers;
    spec.hidden = 256;
    spec.heads = 8;
    spec.seq = 128;
    spec.batch = 16;
    spec.mesh = {{"data", 2}, {"fsdp", 4}, {"tensor", 4}};
    spec.style = generate::ShardingStyle::FsdpMegatron;
    io::PrintOptions print;
    print.printDebugInfo = true;
    return cache.emplace(layers, io::printModule(**generate::generateTransformer(spec), print)).first->second;
}

std::unique_ptr<ir::Module> parse(const std::string& text)
{
    DiagnosticList diags;
    return io::parseMlir(text, "bench.mlir", diags);
}

int64_t countOps(ir::Module& m)
{
    int64_t n = -1; // the module op itself
    m.op().walk([&](ir::Op*) { ++n; });
    return n;
}

/// The peak memory of one benchmark row: what the process held at its start (freed heap pages given
/// back first) and, at report(), how far above that the resident set went (VmHWM, reset at the start
/// through /proc/self/clear_refs). ru_maxrss alone is the peak of every row run before this one.
class PeakMemory {
public:
    PeakMemory()
    {
        releaseFreedMemory();
        m_before = procStatusKiB("VmRSS");
        m_resetOk = resetPeakRss();
    }
    void report(benchmark::State& state) const
    {
        if (m_resetOk && m_before >= 0)
            state.counters["peak_delta_MiB"] = static_cast<double>(procStatusKiB("VmHWM") - m_before) / 1024.0;
        state.counters["peak_rss_MiB"] = peakRssMiB();
    }

private:
    int64_t m_before = -1;
    bool m_resetOk = false;
};

void BM_Parse(benchmark::State& state)
{
    const std::string& text = moduleText(static_cast<int>(state.range(0)));
    int64_t ops = 0;
    PeakMemory peak;
    for (auto _ : state) {
        auto m = parse(text);
        state.PauseTiming();
        ops = countOps(*m);
        benchmark::DoNotOptimize(m.get());
        m.reset(); // freeing the module is timed apart (BM_Teardown)
        state.ResumeTiming();
    }
    state.counters["ops"] = static_cast<double>(ops);
    state.counters["MB/s"] =
        benchmark::Counter(static_cast<double>(text.size()) / 1e6, benchmark::Counter::kIsIterationInvariantRate);
    peak.report(state);
}

/// Destroying a parsed module (what a front end pays when it closes a program).
void BM_Teardown(benchmark::State& state)
{
    const std::string& text = moduleText(static_cast<int>(state.range(0)));
    for (auto _ : state) {
        state.PauseTiming();
        auto m = parse(text);
        state.ResumeTiming();
        m.reset();
    }
}

/// Verifying a parsed module as shardx-opt does (first failure) and as the Session does (every op).
void BM_Verify(benchmark::State& state)
{
    auto m = parse(moduleText(static_cast<int>(state.range(0))));
    if (!m) {
        state.SkipWithError("the generated module does not parse");
        return;
    }
    const ir::VerifyScope scope = state.range(1) == 0 ? ir::VerifyScope::FirstFailure : ir::VerifyScope::EveryOp;
    PeakMemory peak;
    for (auto _ : state) {
        DiagnosticList diags;
        bool ok = ir::verifyModule(*m, diags, scope);
        if (!ok) {
            state.SkipWithError("the generated module does not verify");
            return;
        }
        benchmark::DoNotOptimize(ok);
    }
    state.counters["ops"] = static_cast<double>(countOps(*m));
    peak.report(state);
}

/// Parsing the chained-add module of tst_mlirreader's largeModule, range(0) MiB of text (about 7.6k sharded adds
/// with locations per MiB, in one block); reports bytes/s.
void BM_ParseTextMB(benchmark::State& state)
{
    static std::map<int64_t, std::string> cache;
    auto it = cache.find(state.range(0));
    if (it == cache.end())
        it = cache.emplace(state.range(0), testing::chainedAddModule(static_cast<size_t>(state.range(0)) << 20)).first;
    const std::string& text = it->second;
    for (auto _ : state) {
        auto m = parse(text);
        if (!m) {
            state.SkipWithError("the generated module does not parse");
            return;
        }
        benchmark::DoNotOptimize(m.get());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}

void BM_Print(benchmark::State& state)
{
    auto m = parse(moduleText(static_cast<int>(state.range(0))));
    PeakMemory peak;
    size_t bytes = 0;
    for (auto _ : state) {
        std::string out = io::printModule(*m);
        bytes = out.size();
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["ops"] = static_cast<double>(countOps(*m));
    state.counters["MB/s"] =
        benchmark::Counter(static_cast<double>(bytes) / 1e6, benchmark::Counter::kIsIterationInvariantRate);
    peak.report(state);
}

/// Runs one registered pass on a fresh parse each iteration (parsing excluded from the time).
void runPass(benchmark::State& state, const char* passName)
{
    const std::string& text = moduleText(static_cast<int>(state.range(0)));
    const PassInfo* pass = findPass(passName);
    if (!pass) {
        state.SkipWithError("pass not registered");
        return;
    }
    int64_t ops = 0;
    for (auto _ : state) {
        state.PauseTiming();
        auto m = parse(text);
        ops = countOps(*m);
        DiagnosticList diags;
        state.ResumeTiming();
        bool ok = pass->run(*m, {}, diags);
        benchmark::DoNotOptimize(ok);
        state.PauseTiming();
        m.reset();
        state.ResumeTiming();
    }
    state.counters["ops"] = static_cast<double>(ops);
    state.counters["peak_rss_MiB"] = peakRssMiB();
}

void BM_AggressivePropagate(benchmark::State& state) { runPass(state, "sdy-aggressive-propagate"); }
void BM_PropagationPipeline(benchmark::State& state) { runPass(state, "sdy-propagation-pipeline"); }

/// Aggressive propagation called directly, with or without a TraceRecorder (range(1) = 1).
/// Receives every event and keeps nothing: the cost of the hook alone.
class NullObserver : public PropagationObserver {};

/// Aggressive propagation with (arg 1) no observer (0), the trace recorder (1), or an observer
/// that ignores every event (2).
void BM_AggressiveRecording(benchmark::State& state)
{
    const std::string& text = moduleText(static_cast<int>(state.range(0)));
    const bool record = state.range(1) == 1;
    NullObserver null;
    size_t steps = 0;
    for (auto _ : state) {
        state.PauseTiming();
        auto m = parse(text);
        DiagnosticList diags;
        PropagationPassOptions o;
        std::unique_ptr<TraceRecorder> recorder;
        state.ResumeTiming();
        if (record) {
            recorder = std::make_unique<TraceRecorder>(*m);
            o.base.observer = recorder.get();
        } else if (state.range(1) == 2) {
            o.base.observer = &null;
        }
        bool ok = runAggressivePropagation(*m, o, diags);
        benchmark::DoNotOptimize(ok);
        if (recorder) {
            Trace t = recorder->takeTrace();
            steps = t.numSteps();
            benchmark::DoNotOptimize(steps);
        }
        state.PauseTiming();
        recorder.reset();
        m.reset();
        state.ResumeTiming();
    }
    state.counters["steps"] = static_cast<double>(steps);
    state.counters["peak_rss_MiB"] = peakRssMiB();
}

/// Constructing a TraceRecorder: indexing every value and op and taking the initial state.
void BM_RecorderConstruct(benchmark::State& state)
{
    auto m = parse(moduleText(static_cast<int>(state.range(0))));
    for (auto _ : state) {
        TraceRecorder recorder(*m);
        benchmark::DoNotOptimize(recorder.data().values.size());
    }
}

/// A Session with the generated module open (parsed, verified, named).
std::unique_ptr<Session> openSession(int layers)
{
    auto session = std::make_unique<Session>();
    if (!session->openText(moduleText(layers), "bench.mlir"))
        return nullptr;
    return session;
}

/// Session::openText: parse, verify every op, name every value and op.
void BM_Open(benchmark::State& state)
{
    const std::string& text = moduleText(static_cast<int>(state.range(0)));
    for (auto _ : state) {
        Session session;
        bool ok = session.openText(text, "bench.mlir");
        benchmark::DoNotOptimize(ok);
    }
    state.counters["peak_rss_MiB"] = peakRssMiB();
}

/// Naming every value and op of a parsed module (ir::ProgramIds).
void BM_ProgramIds(benchmark::State& state)
{
    auto m = parse(moduleText(static_cast<int>(state.range(0))));
    for (auto _ : state) {
        ir::ProgramIds ids(*m);
        benchmark::DoNotOptimize(ids.values().size());
    }
}

/// Module::clone: what Session::propagate copies so that the user's program stays as opened.
void BM_Clone(benchmark::State& state)
{
    auto session = openSession(static_cast<int>(state.range(0)));
    for (auto _ : state) {
        auto copy = session->sourceModule()->clone();
        benchmark::DoNotOptimize(copy.get());
    }
}

/// The strategies of `shardx-cli propagate --strategy`, by the index BM_SessionPropagate takes.
const char* const kStrategies[] = {"aggressive", "pipeline", "basic", "op-priority", "user-priority"};

/// Session::propagate as the front ends run it: strategy range(1) (an index into kStrategies),
/// recording the trace when range(2) is 1; verification after the pass is off (timed apart).
void BM_SessionPropagate(benchmark::State& state)
{
    auto session = openSession(static_cast<int>(state.range(0)));
    if (!session) {
        state.SkipWithError("the module does not open");
        return;
    }
    PropagationRequest request;
    request.strategy = kStrategies[state.range(1)];
    request.record = state.range(2) == 1;
    request.verifyAfterEachPass = false;
    size_t steps = 0;
    PeakMemory peak;
    for (auto _ : state) {
        PropagationResult r = session->propagate(request);
        if (!r.ok) {
            state.SkipWithError("propagation failed");
            return;
        }
        steps = r.steps;
    }
    state.counters["steps"] = static_cast<double>(steps);
    peak.report(state);
}

/// A session of the module of `state.range(0)` layers after the aggressive propagation, recorded; null
/// (the row skipped) when that fails.
std::unique_ptr<Session> aggressivelyPropagated(benchmark::State& state)
{
    auto session = openSession(static_cast<int>(state.range(0)));
    PropagationRequest request;
    request.strategy = "aggressive";
    if (!session || !session->propagate(request).ok) {
        state.SkipWithError("propagation failed");
        return nullptr;
    }
    return session;
}

/// The next of a fixed sequence of pseudo-random steps from 0 to `steps` (`x`: the generator's state).
size_t nextRandomStep(uint64_t& x, size_t steps)
{
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<size_t>((x >> 33) % (steps + 1));
}

/// Session::seek to pseudo-random steps of a recorded aggressive propagation.
void BM_TraceSeek(benchmark::State& state)
{
    auto session = aggressivelyPropagated(state);
    if (!session)
        return;
    const size_t steps = session->numSteps();
    uint64_t x = 12345;
    for (auto _ : state) {
        session->seek(nextRandomStep(x, steps));
        benchmark::DoNotOptimize(session->position());
    }
    state.counters["steps"] = static_cast<double>(steps);
}

/// `shardx-cli trace seek` without its report: a binary trace file of the aggressive propagation opened
/// (memory-mapped), its names and shardings read, and the state after a random step rebuilt from the
/// nearest keyframe; each iteration opens the file anew. Reports the file's size and the peak memory.
void BM_TraceSeekFromDisk(benchmark::State& state)
{
    auto session = aggressivelyPropagated(state);
    if (!session)
        return;
    const std::string path =
        std::filesystem::temp_directory_path() / ("shardx-bench-seek-" + std::to_string(::getpid()) + ".trace");
    if (!session->saveTrace(path)) {
        state.SkipWithError("the trace was not written");
        return;
    }
    const size_t steps = session->numSteps();
    session.reset();
    PeakMemory peak;
    uint64_t x = 12345;
    for (auto _ : state) {
        const size_t step = nextRandomStep(x, steps);
        Expected<TraceFile> file = TraceFile::open(path);
        Expected<TraceData> names = file ? file->loadNames() : Expected<TraceData>(file.error());
        Expected<std::vector<int>> seen = names ? file->stateAfter(step) : Expected<std::vector<int>>(names.error());
        if (!seen) {
            state.SkipWithError(seen.error().message.c_str());
            break;
        }
        benchmark::DoNotOptimize(seen->data());
    }
    peak.report(state);
    state.counters["steps"] = static_cast<double>(steps);
    state.counters["file_MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
    std::filesystem::remove(path);
}

} // namespace

BENCHMARK(BM_AggressiveRecording)
    ->Args({10, 0})
    ->Args({10, 1})
    ->Args({102, 0})
    ->Args({102, 1})
    ->Args({1020, 0})
    ->Args({1020, 1})
    ->Args({1020, 2})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RecorderConstruct)->Arg(102)->Arg(1020)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TraceSeek)->Arg(10)->Arg(102)->Arg(1020)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TraceSeekFromDisk)->Arg(10)->Arg(102)->Arg(1020)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Open)->Arg(10)->Arg(102)->Arg(1020)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProgramIds)->Arg(102)->Arg(1020)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Clone)->Arg(102)->Arg(1020)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SessionPropagate)
    ->ArgsProduct({{10, 102, 1020}, {0, 1, 2, 3, 4}, {0}})
    ->Args({10, 0, 1})
    ->Args({10, 1, 1})
    ->Args({102, 0, 1})
    ->Args({102, 1, 1})
    ->Args({1020, 0, 1})
    ->Args({1020, 1, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Parse)->Arg(10)->Arg(102)->Arg(1020)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Teardown)->Arg(10)->Arg(102)->Arg(1020)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Verify)->ArgsProduct({{10, 102, 1020}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseTextMB)->Arg(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Print)->Arg(10)->Arg(102)->Arg(1020)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AggressivePropagate)->Arg(10)->Arg(102)->Arg(1020)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PropagationPipeline)->Arg(10)->Arg(102)->Arg(1020)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
