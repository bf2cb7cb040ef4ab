// Benchmarks of Session::partition on generated transformer modules (issue 12: 100k ops under 2 s).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/generate/ModelGenerator.h"
#include "core/io/MlirPrinter.h"
#include "core/session/Session.h"
#include "tests/benchmarks/BenchMemory.h"

using namespace shardx;
using namespace shardx::bench;

namespace {

/// `fsdp+megatron` decoder stacks on a 2x4x4 mesh as `shardx-cli generate` writes them, the
/// modules of bench_core: about 98 ops per layer, so 102 / 1020 layers give about 10k / 100k ops.
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

/// Session::partition with the default options (per-device program, collectives with bytes and
/// causes, peak memory, the interface tensors' shards) of a module propagated once with the
/// pipeline, recording the trace when range(1) is 1 (as shardx-cli partition does; the trace
/// fills each collective's cause steps). Reports the module's ops, the collectives, the peak
/// resident memory the partitioning adds over what the session held before it, and (outside the
/// timed region) how long freeing the model takes.
void BM_SessionPartition(benchmark::State& state)
{
    Session session;
    if (!session.openText(moduleText(static_cast<int>(state.range(0))), "bench.mlir")) {
        state.SkipWithError("the module does not open");
        return;
    }
    int64_t ops = -1;
    const_cast<ir::Op&>(session.sourceModule()->op()).walk([&](ir::Op*) { ++ops; });
    PropagationRequest request;
    request.record = state.range(1) == 1;
    request.verifyAfterEachPass = false;
    if (!session.propagate(request).ok) {
        state.SkipWithError("propagation failed");
        return;
    }
    // Freed heap pages go back to the system first, so that the peak counts what partitioning
    // holds rather than what earlier stages left for malloc to reuse.
    releaseFreedMemory();
    const int64_t before = procStatusKiB("VmRSS");
    const bool resetOk = resetPeakRss();
    size_t collectives = 0;
    double teardownSeconds = 0;
    for (auto _ : state) {
        std::optional<Expected<PartitionModel>> model(session.partition());
        if (!*model) {
            state.SkipWithError((*model).error().message.c_str());
            return;
        }
        collectives = (**model).collectives.size();
        benchmark::DoNotOptimize((**model).local.get());
        // Freeing the model (the per-device program, every device's shards) is the caller's
        // business, timed apart.
        state.PauseTiming();
        const auto start = std::chrono::steady_clock::now();
        model.reset();
        teardownSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        state.ResumeTiming();
    }
    state.counters["ops"] = static_cast<double>(ops);
    state.counters["teardown_ms"] =
        1e3 * teardownSeconds / static_cast<double>(std::max<int64_t>(1, state.iterations()));
    state.counters["collectives"] = static_cast<double>(collectives);
    if (resetOk && before >= 0)
        state.counters["peak_rss_delta_MiB"] = static_cast<double>(procStatusKiB("VmHWM") - before) / 1024.0;
    state.counters["peak_rss_MiB"] = peakRssMiB();
}

/// Session::replicatedTensors ("why replicated?", which shardx-cli partition, lint and diff print
/// next to the collectives) on the same modules, propagated once with the trace recorded.
void BM_ReplicatedTensors(benchmark::State& state)
{
    Session session;
    if (!session.openText(moduleText(static_cast<int>(state.range(0))), "bench.mlir")) {
        state.SkipWithError("the module does not open");
        return;
    }
    PropagationRequest request;
    request.verifyAfterEachPass = false;
    if (!session.propagate(request).ok) {
        state.SkipWithError("propagation failed");
        return;
    }
    size_t listed = 0;
    for (auto _ : state) {
        Expected<std::vector<ReplicatedTensor>> list = session.replicatedTensors();
        if (!list) {
            state.SkipWithError(list.error().message.c_str());
            return;
        }
        listed = list->size();
    }
    state.counters["tensors"] = static_cast<double>(listed);
}

} // namespace

BENCHMARK(BM_ReplicatedTensors)->Arg(10)->Arg(102)->Arg(1020)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SessionPartition)
    ->Args({10, 1})
    ->Args({102, 0})
    ->Args({102, 1})
    ->Args({1020, 0})
    ->Args({1020, 1})
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
