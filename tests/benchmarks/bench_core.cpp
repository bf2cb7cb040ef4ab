// Benchmarks of the core on generated transformer modules: parse, print, propagate.
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <map>
#include <memory>
#include <string>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/io/ModelGenerator.h"
#include "core/ir/Pass.h"

using namespace shardx;

namespace {

/// `fsdp+megatron` decoder stacks on a 2x4x4 mesh; about 98 ops per layer, so 10 / 102 / 1020
/// layers give roughly 1k / 10k / 100k ops.
const std::string& moduleText(int layers)
{
    static std::map<int, std::string> cache;
    auto it = cache.find(layers);
    if (it != cache.end())
        return it->second;
    io::TransformerSpec spec;
    spec.layers = layers;
    spec.hidden = 256;
    spec.heads = 8;
    spec.seq = 128;
    spec.batch = 16;
    spec.mesh = {{"data", 2}, {"fsdp", 4}, {"tensor", 4}};
    spec.style = io::ShardingStyle::FsdpMegatron;
    return cache.emplace(layers, *io::generateTransformer(spec)).first->second;
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

double peakRssMiB()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

void BM_Parse(benchmark::State& state)
{
    const std::string& text = moduleText(static_cast<int>(state.range(0)));
    int64_t ops = 0;
    for (auto _ : state) {
        auto m = parse(text);
        ops = countOps(*m);
        benchmark::DoNotOptimize(m.get());
    }
    state.counters["ops"] = static_cast<double>(ops);
    state.counters["MB/s"] =
        benchmark::Counter(static_cast<double>(text.size()) / 1e6, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["peak_rss_MiB"] = peakRssMiB();
}

void BM_Print(benchmark::State& state)
{
    auto m = parse(moduleText(static_cast<int>(state.range(0))));
    for (auto _ : state) {
        std::string out = io::printModule(*m);
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["ops"] = static_cast<double>(countOps(*m));
}

/// Runs one registered pass on a fresh parse each iteration (parsing excluded from the time).
void runPass(benchmark::State& state, const char* passName)
{
    const std::string& text = moduleText(static_cast<int>(state.range(0)));
    const ir::PassInfo* pass = ir::findPass(passName);
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

} // namespace

BENCHMARK(BM_Parse)->Arg(10)->Arg(102)->Arg(1020)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Print)->Arg(10)->Arg(102)->Arg(1020)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AggressivePropagate)->Arg(10)->Arg(102)->Arg(1020)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PropagationPipeline)->Arg(10)->Arg(102)->Arg(1020)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
