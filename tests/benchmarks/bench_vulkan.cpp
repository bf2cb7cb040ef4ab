// Benchmarks of the Vulkan layer: fp32 matmul next to OpenBLAS sgemm on the same CPU, staging bandwidth next to
// memcpy, and an all_reduce through host staging. Run on a Release build; on lavapipe set
// VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json (or SHARDX_VK_DEVICES to pick a GPU).
#include <benchmark/benchmark.h>

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "core/exec/vulkan/Collectives.h"
#include "core/exec/vulkan/Device.h"
#include "core/exec/vulkan/DeviceMesh.h"
#include "core/exec/vulkan/Instance.h"
#include "core/exec/vulkan/Ops.h"
#include "core/support/Float16.h"

using namespace shardx;
using namespace shardx::exec::vk;

namespace {

/// True when `result` (a Status or an Expected) holds; else the row is skipped with its message.
template <typename Result> bool ok(benchmark::State& state, const Result& result)
{
    if (result)
        return true;
    state.SkipWithError(result.error().message.c_str());
    return false;
}

/// The process's instance; nullptr when Vulkan is unusable (the benchmarks then skip with the reason).
Instance* instance(std::string* why)
{
    static std::string error;
    static std::unique_ptr<Instance> inst = [] {
        auto created = Instance::create();
        if (!created) {
            error = created.error().message;
            return std::unique_ptr<Instance>();
        }
        return std::move(*created);
    }();
    *why = error;
    return inst.get();
}

/// Physical device 0 (in shardx's order; SHARDX_VK_DEVICES=i picks device i), one Device per fast-matmul kernel
/// choice (Auto for everything but the matmul rows).
Device* device(benchmark::State& state, MatmulKernel matmul = MatmulKernel::Auto)
{
    // The instance first: statics are destroyed in reverse order, and a Device must go before its Instance.
    std::string why;
    Instance* inst = instance(&why);
    static std::unique_ptr<Device> devs[int(MatmulKernel::Storage) + 1];
    std::unique_ptr<Device>& dev = devs[int(matmul)];
    if (!inst) {
        state.SkipWithError(why.c_str());
        return nullptr;
    }
    if (!dev) {
        uint32_t index = 0;
        if (const char* env = std::getenv("SHARDX_VK_DEVICES")) {
            auto list = parseDeviceList(env, inst->physicalDevices().size());
            if (list && !list->empty())
                index = (*list)[0];
        }
        DeviceOptions options;
        options.matmul = matmul;
        auto created = Device::create(*inst, index, options);
        if (!ok(state, created))
            return nullptr;
        dev = std::move(*created);
    }
    return dev.get();
}

std::vector<float> randomMatrix(size_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<float> v(n);
    for (float& x : v)
        x = dist(rng);
    return v;
}

std::unique_ptr<Buffer> upload(Device& d, const std::vector<float>& v)
{
    auto b = d.createBuffer(v.size() * 4);
    if (!b || !d.upload(**b, v.data(), v.size() * 4))
        return nullptr;
    return std::move(*b);
}

/// Times `batch` (an n x n x n product, warmed up) over the benchmark's iterations. Counters: GFLOP/s from wall time
/// (submit to fence), kernel_ms from GPU timestamps and kernel_GFLOP/s from those. False after an error.
bool timeMatmul(benchmark::State& state, Device& d, const CommandBatch& batch, int64_t n)
{
    double kernelMs = 0;
    for (auto _ : state) {
        auto r = d.submit(batch);
        if (!ok(state, r))
            return false;
        if (r->hasTimestamps)
            kernelMs += r->timings.back().ms;
    }
    state.counters["GFLOP/s"] =
        benchmark::Counter(2.0 * double(n) * n * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["kernel_ms"] = kernelMs / double(state.iterations());
    if (kernelMs > 0)
        state.counters["kernel_GFLOP/s"] = 2.0 * double(n) * n * n * 1e-6 / (kernelMs / double(state.iterations()));
    return true;
}

/// C = A * B for n x n f32 matrices on the Vulkan device. Counters: GFLOP/s from wall time (submit to fence),
/// kernel_ms from GPU timestamps and kernel_GFLOP/s from those. Sizes over 1024 are skipped on CPU drivers.
void runVulkanMatmul(benchmark::State& state, DotMode mode, MatmulKernel kernel = MatmulKernel::Auto)
{
    Device* d = device(state, kernel);
    if (!d)
        return;
    const int64_t n = state.range(0);
    if (n > 1024 && d->physical().type == VK_PHYSICAL_DEVICE_TYPE_CPU) {
        state.SkipWithError("size over 1024 on a CPU driver");
        return;
    }
    auto a = upload(*d, randomMatrix(n * n, 1));
    auto b = upload(*d, randomMatrix(n * n, 2));
    auto c = d->createBuffer(n * n * 4);
    if (!a || !b || !c) {
        state.SkipWithError("allocation failed");
        return;
    }
    CommandBatch batch;
    Status recorded = ops::dotGeneral(batch, DType::F32, *a, {n, n}, *b, {n, n}, {{}, {}, {1}, {0}}, mode, **c);
    if (!ok(state, recorded))
        return;
    // Warm-up: the pipeline is built on first use, not timed.
    if (!ok(state, d->submit(batch)))
        return;
    if (!timeMatmul(state, *d, batch, n))
        return;
    state.SetLabel(batch.dispatches().back().label + " on " + d->physical().describe());
}

/// Square matmul rows of sizes `smallest`, twice that, ... up to `largest`, timed in wall-clock milliseconds.
void matmulSizes(benchmark::internal::Benchmark* b, int64_t smallest, int64_t largest)
{
    for (int64_t n = smallest; n <= largest; n *= 2)
        b->Arg(n);
    b->Unit(benchmark::kMillisecond)->UseRealTime();
}

// The fast kernel the device picks (Auto), then each kernel forced.
void BM_VulkanMatmulTiled(benchmark::State& state) { runVulkanMatmul(state, DotMode::Fast); }
BENCHMARK(BM_VulkanMatmulTiled)
    ->Arg(512)
    ->Arg(1024)
    ->Arg(2048)
    ->Arg(4096)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(1.0);
void BM_VulkanMatmulShared(benchmark::State& state) { runVulkanMatmul(state, DotMode::Fast, MatmulKernel::Shared); }
BENCHMARK(BM_VulkanMatmulShared)->Apply([](auto* b) { matmulSizes(b, 512, 8192); });
void BM_VulkanMatmulShared16(benchmark::State& state) { runVulkanMatmul(state, DotMode::Fast, MatmulKernel::Shared16); }
BENCHMARK(BM_VulkanMatmulShared16)->Apply([](auto* b) { matmulSizes(b, 512, 8192); });
// The other shared-memory tile shapes (see Device.h's MatmulKernel), to choose Auto's kernel on a GPU.
void BM_VulkanMatmulShape(benchmark::State& state, MatmulKernel kernel)
{
    runVulkanMatmul(state, DotMode::Fast, kernel);
}
BENCHMARK_CAPTURE(BM_VulkanMatmulShape, 128x256, MatmulKernel::Shared128x256)->Apply([](auto* b) {
    matmulSizes(b, 1024, 8192);
});
BENCHMARK_CAPTURE(BM_VulkanMatmulShape, 256x128, MatmulKernel::Shared256x128)->Apply([](auto* b) {
    matmulSizes(b, 1024, 8192);
});
BENCHMARK_CAPTURE(BM_VulkanMatmulShape, 128t128, MatmulKernel::Shared128t128)->Apply([](auto* b) {
    matmulSizes(b, 1024, 8192);
});
BENCHMARK_CAPTURE(BM_VulkanMatmulShape, 64x64, MatmulKernel::Shared64x64)->Apply([](auto* b) {
    matmulSizes(b, 512, 4096);
});

/// Empty when `how` computes a batched product with partial tiles (2 x 144x48 * 48x208) right, else what is wrong:
/// the test of the same (tst_vulkankernels::matmulCoopF16) needs Qt, this runs wherever the benchmark does.
std::string coopPartialTilesError(Device& d, ops::CoopMatmul how)
{
    const int64_t B = 2, M = 144, N = 208, K = 48;
    std::vector<float> af = randomMatrix(size_t(B * M * K), 3), bf = randomMatrix(size_t(B * K * N), 4);
    std::vector<uint16_t> ah(af.size()), bh(bf.size());
    for (size_t i = 0; i < af.size(); ++i)
        ah[i] = floatToHalf(af[i]);
    for (size_t i = 0; i < bf.size(); ++i)
        bh[i] = floatToHalf(bf[i]);
    auto a = d.createBuffer(ah.size() * 2), b = d.createBuffer(bh.size() * 2), c = d.createBuffer(B * M * N * 4);
    if (!a || !b || !c || !d.upload(**a, ah.data(), ah.size() * 2) || !d.upload(**b, bh.data(), bh.size() * 2))
        return "allocation or upload failed";
    std::vector<float> sentinel(size_t(B * M * N), -1000.0f);
    if (!d.upload(**c, sentinel.data(), sentinel.size() * 4))
        return "upload failed";
    CommandBatch batch;
    if (Status s = ops::matmulCoopF16(batch, **a, **b, **c, B, M, N, K, how); !s)
        return s.error().message;
    if (auto r = d.submit(batch); !r)
        return r.error().message;
    std::vector<float> got(sentinel.size());
    if (!d.download(**c, got.data(), got.size() * 4))
        return "download failed";
    for (int64_t z = 0; z < B; ++z)
        for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j) {
                double want = 0;
                for (int64_t k = 0; k < K; ++k)
                    want += double(halfToFloat(ah[size_t((z * M + i) * K + k)])) *
                            halfToFloat(bh[size_t((z * K + k) * N + j)]);
                const float g = got[size_t((z * M + i) * N + j)];
                if (std::fabs(g - want) > 1e-5 * double(K))
                    return "partial tiles: C[" + std::to_string(z) + "][" + std::to_string(i) + "][" +
                           std::to_string(j) + "] = " + std::to_string(g) + ", expected " + std::to_string(want);
            }
    return {};
}

void runCoopMatmul(benchmark::State& state, ops::CoopMatmul how)
{
    Device* d = device(state);
    if (!d)
        return;
    const int64_t n = state.range(0);
    std::string shapes;
    for (const std::string& s : d->physical().coopMatShapes)
        shapes += (shapes.empty() ? "" : ", ") + s;
    if (!d->cooperativeMatrixF16()) {
        state.SkipWithError(("no f16 cooperative matrices on " + d->physical().describe() +
                             (shapes.empty() ? std::string(" (no VK_NV_cooperative_matrix)") : "; it lists " + shapes))
                                .c_str());
        return;
    }
    if (std::string wrong = coopPartialTilesError(*d, how); !wrong.empty()) {
        state.SkipWithError(wrong.c_str());
        return;
    }
    std::vector<float> af = randomMatrix(n * n, 1), bf = randomMatrix(n * n, 2);
    std::vector<uint16_t> ah(af.size()), bh(bf.size());
    for (size_t i = 0; i < af.size(); ++i) {
        ah[i] = floatToHalf(af[i]);
        bh[i] = floatToHalf(bf[i]);
    }
    auto a = d->createBuffer(ah.size() * 2), b = d->createBuffer(bh.size() * 2), c = d->createBuffer(n * n * 4);
    if (!a || !b || !c || !d->upload(**a, ah.data(), ah.size() * 2) || !d->upload(**b, bh.data(), bh.size() * 2)) {
        state.SkipWithError("allocation or upload failed");
        return;
    }
    CommandBatch batch;
    Status recorded = ops::matmulCoopF16(batch, **a, **b, **c, 1, n, n, n, how);
    if (!ok(state, recorded))
        return;
    if (!ok(state, d->submit(batch)))
        return;
    std::vector<float> got(size_t(n * n));
    if (!d->download(**c, got.data(), got.size() * 4)) {
        state.SkipWithError("download failed");
        return;
    }
    double maxErr = 0;
    std::mt19937 pick(7);
    for (int s = 0; s < 64; ++s) {
        const int64_t i = int64_t(pick() % uint32_t(n)), j = int64_t(pick() % uint32_t(n));
        double want = 0;
        for (int64_t k = 0; k < n; ++k)
            want += double(halfToFloat(ah[size_t(i * n + k)])) * halfToFloat(bh[size_t(k * n + j)]);
        maxErr = std::max(maxErr, std::fabs(want - got[size_t(i * n + j)]));
    }
    // f32 accumulation of exact f16 products: a few ulps of the running sums (|sum| <= sqrt(n) or so).
    if (maxErr > 1e-5 * double(n)) {
        state.SkipWithError(("wrong result: max abs error " + std::to_string(maxErr)).c_str());
        return;
    }
    if (!timeMatmul(state, *d, batch, n))
        return;
    state.counters["max_abs_err"] = maxErr;
    state.SetLabel(batch.dispatches().back().label + " on " + d->physical().describe() + "; shapes: " + shapes);
}
void BM_VulkanMatmulCoopF16(benchmark::State& state) { runCoopMatmul(state, ops::CoopMatmul::Direct); }
BENCHMARK(BM_VulkanMatmulCoopF16)->Apply([](auto* b) { matmulSizes(b, 1024, 8192); });
void BM_VulkanMatmulCoopF16Staged(benchmark::State& state) { runCoopMatmul(state, ops::CoopMatmul::Staged); }
BENCHMARK(BM_VulkanMatmulCoopF16Staged)->Apply([](auto* b) { matmulSizes(b, 1024, 8192); });

void BM_VulkanMatmulTexel(benchmark::State& state) { runVulkanMatmul(state, DotMode::Fast, MatmulKernel::Texel); }
BENCHMARK(BM_VulkanMatmulTexel)->Arg(512)->Arg(1024)->Arg(4096)->Unit(benchmark::kMillisecond)->UseRealTime();
void BM_VulkanMatmulStorage(benchmark::State& state) { runVulkanMatmul(state, DotMode::Fast, MatmulKernel::Storage); }
BENCHMARK(BM_VulkanMatmulStorage)->Arg(512)->Arg(1024)->Arg(4096)->Unit(benchmark::kMillisecond)->UseRealTime();

// The bit-exact mode, for scale (it sums each output serially).
void BM_VulkanMatmulPrecise(benchmark::State& state) { runVulkanMatmul(state, DotMode::Precise); }
BENCHMARK(BM_VulkanMatmulPrecise)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

/// Data movement and element-wise work of a local program: an n x n f32 transpose (strided copy), an add, and a
/// row reduce. Bytes processed: the bytes read and written.
void BM_VulkanElementwise(benchmark::State& state)
{
    Device* d = device(state);
    if (!d)
        return;
    const int64_t n = state.range(0);
    const int which = int(state.range(1));
    auto a = upload(*d, randomMatrix(size_t(n * n), 1));
    auto b = upload(*d, randomMatrix(size_t(n * n), 2));
    auto c = d->createBuffer(uint64_t(n * n) * 4);
    if (!a || !b || !c) {
        state.SkipWithError("allocation failed");
        return;
    }
    CommandBatch batch;
    Status recorded = which == 0   ? ops::transpose(batch, DType::F32, *a, {n, n}, {1, 0}, **c)
                      : which == 1 ? ops::binary(batch, BinaryOp::Add, DType::F32, *a, *b, **c, n * n)
                                   : ops::reduce(batch, ReduceOp::Sum, DType::F32, *a, {n, n}, {1}, 0, **c);
    if (!ok(state, recorded))
        return;
    if (!ok(state, d->submit(batch)))
        return;
    for (auto _ : state) {
        if (!ok(state, d->submit(batch)))
            return;
    }
    int64_t bytes = which == 0 ? 2 * n * n * 4 : (which == 1 ? 3 * n * n * 4 : n * n * 4 + n * 4);
    state.SetBytesProcessed(state.iterations() * bytes);
    state.SetLabel(which == 0 ? "transpose" : (which == 1 ? "add" : "reduce rows"));
}
BENCHMARK(BM_VulkanElementwise)
    ->Args({1024, 0})
    ->Args({1024, 1})
    ->Args({1024, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

/// The fixed cost of one submission: a batch of one dispatch over 256 elements, submitted and waited for.
void BM_VulkanSubmit(benchmark::State& state)
{
    Device* d = device(state);
    if (!d)
        return;
    auto a = upload(*d, randomMatrix(256, 1));
    auto c = d->createBuffer(256 * 4);
    if (!a || !c) {
        state.SkipWithError("allocation failed");
        return;
    }
    CommandBatch batch;
    if (!ok(state, ops::unary(batch, UnaryOp::Neg, DType::F32, *a, **c, 256)))
        return;
    for (auto _ : state) {
        if (!ok(state, d->submit(batch)))
            return;
    }
    state.SetLabel(d->physical().describe());
}
BENCHMARK(BM_VulkanSubmit)->Unit(benchmark::kMicrosecond)->UseRealTime();

// OpenBLAS on the same CPU (all its threads).
void BM_OpenBlasSgemm(benchmark::State& state)
{
    const int n = int(state.range(0));
    std::vector<float> a = randomMatrix(size_t(n) * n, 1), b = randomMatrix(size_t(n) * n, 2), c(size_t(n) * n);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
    for (auto _ : state) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(),
                    n);
        benchmark::DoNotOptimize(c.data());
    }
    state.counters["GFLOP/s"] =
        benchmark::Counter(2.0 * double(n) * n * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_OpenBlasSgemm)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

/// Host -> device (arg 1 = 0) or device -> host (1) through a staging buffer and vkCmdCopyBuffer.
void BM_StagedTransfer(benchmark::State& state)
{
    Device* d = device(state);
    if (!d)
        return;
    const int64_t bytes = state.range(0);
    const bool download = state.range(1) != 0;
    std::vector<char> host(size_t(bytes), 1);
    auto buf = d->createBuffer(uint64_t(bytes), MemoryKind::DeviceLocal);
    if (!ok(state, buf))
        return;
    for (auto _ : state) {
        Status s = download ? d->download(**buf, host.data(), uint64_t(bytes), 0, TransferPath::Staged)
                            : d->upload(**buf, host.data(), uint64_t(bytes), 0, TransferPath::Staged);
        if (!ok(state, s))
            return;
    }
    state.SetBytesProcessed(state.iterations() * bytes);
    state.SetLabel(download ? "device->host" : "host->device");
}
BENCHMARK(BM_StagedTransfer)
    ->Args({16 << 20, 0})
    ->Args({16 << 20, 1})
    ->Args({64 << 20, 0})
    ->Args({64 << 20, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

/// Host -> device through the mapping, where device memory is host-visible (lavapipe, UMA, ReBAR).
void BM_MappedUpload(benchmark::State& state)
{
    Device* d = device(state);
    if (!d)
        return;
    const int64_t bytes = state.range(0);
    std::vector<char> host(size_t(bytes), 1);
    auto buf = d->createBuffer(uint64_t(bytes), MemoryKind::DeviceLocal);
    if (!buf || !(*buf)->hostVisible()) {
        state.SkipWithError("device memory is not host-visible here");
        return;
    }
    for (auto _ : state) {
        if (!ok(state, d->upload(**buf, host.data(), uint64_t(bytes))))
            return;
    }
    state.SetBytesProcessed(state.iterations() * bytes);
}
BENCHMARK(BM_MappedUpload)->Arg(16 << 20)->Arg(64 << 20)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Memcpy(benchmark::State& state)
{
    const size_t bytes = size_t(state.range(0));
    std::vector<char> src(bytes, 1), dst(bytes, 0);
    for (auto _ : state) {
        std::memcpy(dst.data(), src.data(), bytes);
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}
BENCHMARK(BM_Memcpy)->Arg(16 << 20)->Arg(64 << 20)->Unit(benchmark::kMillisecond)->UseRealTime();

/// all_reduce(sum) of an f32 buffer of arg 1 bytes per device between arg 0 logical devices: download all, fold
/// on the host, upload all. Bytes processed: the operand bytes of every device.
void BM_StagedAllReduce(benchmark::State& state)
{
    std::string why;
    Instance* inst = instance(&why);
    if (!inst) {
        state.SkipWithError(why.c_str());
        return;
    }
    const int devices = int(state.range(0));
    const int64_t elements = state.range(1) / 4;
    MeshOptions options;
    options.logicalDevices = devices;
    auto mesh = DeviceMesh::create(*inst, options);
    if (!ok(state, mesh))
        return;
    std::vector<std::unique_ptr<Buffer>> in, out;
    std::vector<const Buffer*> inPtrs;
    std::vector<Buffer*> outPtrs;
    for (int i = 0; i < devices; ++i) {
        in.push_back(upload((*mesh)->device(i), randomMatrix(size_t(elements), uint32_t(i))));
        auto o = (*mesh)->device(i).createBuffer(uint64_t(elements) * 4);
        if (!in.back() || !o) {
            state.SkipWithError("allocation failed");
            return;
        }
        out.push_back(std::move(*o));
        inPtrs.push_back(in.back().get());
        outPtrs.push_back(out.back().get());
    }
    DeviceGroups groups(1);
    for (int i = 0; i < devices; ++i)
        groups[0].push_back(i);
    double download = 0, combine = 0, uploadMs = 0;
    for (auto _ : state) {
        auto t = runStagedCollective(
            **mesh, inPtrs, DType::F32, std::vector<Shape>(size_t(devices), Shape{elements}),
            [&](const std::vector<HostTensor>& x) { return collectives::allReduce(x, groups); }, outPtrs);
        if (!ok(state, t))
            return;
        download += t->downloadMs;
        combine += t->combineMs;
        uploadMs += t->uploadMs;
    }
    state.SetBytesProcessed(state.iterations() * devices * elements * 4);
    state.counters["download_ms"] = download / double(state.iterations());
    state.counters["combine_ms"] = combine / double(state.iterations());
    state.counters["upload_ms"] = uploadMs / double(state.iterations());
}
BENCHMARK(BM_StagedAllReduce)->Args({2, 16 << 20})->Args({4, 16 << 20})->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
