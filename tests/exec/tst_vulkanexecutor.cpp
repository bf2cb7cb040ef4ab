// tst_vulkanexecutor.cpp - the VulkanExecutor against the ReferenceExecutor: the same programs give bitwise the same
// results; ops the Vulkan layer lacks run on the counted CPU fallback; shardx-cli interpret --backend vulkan.
#include <QProcess>
#include <QRegularExpression>
#include <QtTest>
#include <limits>

#include "core/exec/TensorIo.h"
#include "core/exec/VulkanExecutor.h"
#include "core/exec/vulkan/Instance.h"
#include "tests/exec/ExecTestSupport.h"
#include "tests/exec/VulkanTestSupport.h"

using namespace shardx;
using shardx::testing::parseProgram;

namespace {

const char* kElementwise = R"(
func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<8xf32>) -> tensor<8x4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4x8xf32>
  %1 = stablehlo.multiply %0, %a : tensor<4x8xf32>
  %2 = stablehlo.subtract %1, %b : tensor<4x8xf32>
  %3 = stablehlo.maximum %2, %a : tensor<4x8xf32>
  %4 = stablehlo.negate %3 : tensor<4x8xf32>
  %5 = stablehlo.abs %4 : tensor<4x8xf32>
  %6 = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
  %7 = stablehlo.compare GT, %5, %6, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %8 = stablehlo.select %7, %5, %6 : tensor<4x8xi1>, tensor<4x8xf32>
  %9 = stablehlo.transpose %8, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %9 : tensor<8x4xf32>
})";

// f16 and bf16 on the device (as f32 words, rounded after each sum, difference and product): element-wise ops,
// conversions between the float formats, comparison, select and data movement.
const char* kNarrow = R"(
func.func @f(%a: tensor<4x8xbf16>, %b: tensor<4x8xbf16>, %c: tensor<8xf32>, %h: tensor<4x8xf16>) -> (tensor<8x4xbf16>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<6x8xbf16>) {
  %0 = stablehlo.add %a, %b : tensor<4x8xbf16>
  %1 = stablehlo.multiply %0, %a : tensor<4x8xbf16>
  %2 = stablehlo.subtract %1, %b : tensor<4x8xbf16>
  %3 = stablehlo.maximum %2, %a : tensor<4x8xbf16>
  %4 = stablehlo.negate %3 : tensor<4x8xbf16>
  %5 = stablehlo.abs %4 : tensor<4x8xbf16>
  %6 = stablehlo.convert %c : (tensor<8xf32>) -> tensor<8xbf16>
  %7 = stablehlo.broadcast_in_dim %6, dims = [1] : (tensor<8xbf16>) -> tensor<4x8xbf16>
  %8 = stablehlo.compare GT, %5, %7, FLOAT : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xi1>
  %9 = stablehlo.select %8, %5, %7 : tensor<4x8xi1>, tensor<4x8xbf16>
  %10 = stablehlo.transpose %9, dims = [1, 0] : (tensor<4x8xbf16>) -> tensor<8x4xbf16>
  %11 = stablehlo.convert %9 : (tensor<4x8xbf16>) -> tensor<4x8xf32>
  %12 = stablehlo.multiply %h, %h : tensor<4x8xf16>
  %13 = stablehlo.convert %11 : (tensor<4x8xf32>) -> tensor<4x8xf16>
  %14 = stablehlo.add %12, %13 : tensor<4x8xf16>
  %15 = stablehlo.convert %14 : (tensor<4x8xf16>) -> tensor<4x8xbf16>
  %z = stablehlo.constant dense<0.5> : tensor<bf16>
  %16 = stablehlo.pad %15, %z, low = [1, 0], high = [1, 0], interior = [0, 0] : (tensor<4x8xbf16>, tensor<bf16>) -> tensor<6x8xbf16>
  %17 = stablehlo.floor %14 : tensor<4x8xf16>
  return %10, %11, %17, %16 : tensor<8x4xbf16>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<6x8xbf16>
})";

// Rounding of f32 values to f16 and bf16 at the edges: ties to even, subnormal halves, overflow to infinity, NaN,
// negative zero.
const char* kNarrowEdges = R"(
func.func @f(%x: tensor<16xf32>) -> (tensor<16xf16>, tensor<16xbf16>) {
  %0 = stablehlo.convert %x : (tensor<16xf32>) -> tensor<16xf16>
  %1 = stablehlo.convert %x : (tensor<16xf32>) -> tensor<16xbf16>
  return %0, %1 : tensor<16xf16>, tensor<16xbf16>
})";

// dot_general in bf16 (each product and sum rounded, as the reference does) and bf16 x f16 into f32.
const char* kNarrowDot = R"(
func.func @f(%a: tensor<16x32xbf16>, %b: tensor<32x8xbf16>, %h: tensor<32x8xf16>) -> (tensor<16x8xbf16>, tensor<16x8xf32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<16x32xbf16>, tensor<32x8xbf16>) -> tensor<16x8xbf16>
  %1 = stablehlo.dot_general %a, %h, contracting_dims = [1] x [0] : (tensor<16x32xbf16>, tensor<32x8xf16>) -> tensor<16x8xf32>
  return %0, %1 : tensor<16x8xbf16>, tensor<16x8xf32>
})";

const char* kDot = R"(
func.func @f(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
})";

const char* kReduce = R"(
func.func @f(%a: tensor<6x40xf32>) -> (tensor<6xf32>, tensor<40xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<6x40xf32>, tensor<f32>) -> tensor<6xf32>
  %1 = stablehlo.reduce(%a init: %m) applies stablehlo.maximum across dimensions = [0] : (tensor<6x40xf32>, tensor<f32>) -> tensor<40xf32>
  return %0, %1 : tensor<6xf32>, tensor<40xf32>
})";

// Each of four processes multiplies its shard, sums the products with all_reduce and gathers its own rows.
const char* kGrid = R"(
func.func @f(%a: tensor<2x8xf32>, %b: tensor<8x4xf32>) -> (tensor<2x4xf32>, tensor<8x4xf32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %1 = "stablehlo.all_reduce"(%0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = "stablehlo.all_gather"(%0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<2x4xf32>) -> tensor<8x4xf32>
  return %1, %2 : tensor<2x4xf32>, tensor<8x4xf32>
})";

const char* kExp = R"(
func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.exponential %a : tensor<8xf32>
  %1 = stablehlo.add %0, %a : tensor<8xf32>
  return %1 : tensor<8xf32>
})";

// A per-device program as convert-global-to-local leaves it: the types are local (the last dimension was
// sharded 4 ways) but slice_sizes keeps the global sizes (PARTITION.md 7.5.6); the result type gives the sizes.
const char* kLocalDynamicSlice = R"(
func.func @f(%a: tensor<3x32x8xf32>, %i: tensor<i32>) -> tensor<32x8xf32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.dynamic_slice %a, %i, %c, %c, sizes = [1, 32, 32] : (tensor<3x32x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x8xf32>
  %1 = stablehlo.reshape %0 : (tensor<1x32x8xf32>) -> tensor<32x8xf32>
  return %1 : tensor<32x8xf32>
})";

exec::Tensor randomF32(std::vector<int64_t> shape, uint64_t seed)
{
    return exec::randomTensor(*exec::elementTypeFromName("f32"), std::move(shape), seed);
}

} // namespace

/// A shardx-cli run. Under LeakSanitizer (CI's sanitizer build) the child does not check leaks:
/// lavapipe leaks 128 bytes each time it is loaded and is unloaded before the report, so the report
/// cannot name (or suppress) it; shardx's own Vulkan code is leak-checked in this process, where the
/// drivers stay loaded.
void startCli(QProcess& p, const QStringList& args)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QString asan = env.value(QStringLiteral("ASAN_OPTIONS"));
    env.insert(QStringLiteral("ASAN_OPTIONS"),
               asan.isEmpty() ? QStringLiteral("detect_leaks=0") : asan + QStringLiteral(":detect_leaks=0"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(SHARDX_BINARY_DIR "/app/cli/shardx-cli"), args);
}

class TestVulkanExecutor : public QObject {
    Q_OBJECT

    std::unique_ptr<exec::VulkanExecutor> m_vk;

    /// Runs @f on both back ends; both must succeed and agree bit for bit.
    void compareBackends(const char* text, const std::vector<exec::Tensor>& args)
    {
        auto m = parseProgram(text);
        QVERIFY(m);
        exec::ReferenceExecutor ref;
        auto want = ref.runFunction(*m, "f", args);
        QVERIFY2(want, want ? "" : want.error().format().c_str());
        auto got = m_vk->runFunction(*m, "f", args);
        QVERIFY2(got, got ? "" : got.error().format().c_str());
        QCOMPARE(got->size(), want->size());
        for (size_t i = 0; i < want->size(); ++i) {
            QVERIFY((*got)[i].sameShapeAndType((*want)[i]));
            QVERIFY2((*got)[i].bytes() == (*want)[i].bytes(),
                     qPrintable(QString::fromStdString((*got)[i].toString() + " vs " + (*want)[i].toString())));
        }
    }

private slots:
    void initTestCase()
    {
        exec::VulkanExecutorOptions options;
        options.validation = true;
        // The drivers the executor loads stay resident (see keepLibrariesLoadedSince): lavapipe's load-time
        // allocation is then still reachable at exit instead of an unnamed leak. Probing first would load and
        // unload the driver once more, so the probe only explains a failure.
        const std::set<std::string> before = testing::loadedLibraries();
        auto vk = exec::VulkanExecutor::create(options);
        if (!vk && exec::vk::Instance::probe() != exec::vk::Instance::Availability::Available)
            QSKIP("no Vulkan loader or driver on this machine");
        QVERIFY2(vk, vk ? "" : vk.error().message.c_str());
        m_vk = std::move(*vk);
        testing::keepLibrariesLoadedSince(before);
    }

    void elementwiseMatchesReferenceBitForBit()
    {
        const int64_t before = m_vk->stats().deviceCount();
        compareBackends(kElementwise, {randomF32({4, 8}, 1), randomF32({4, 8}, 2), randomF32({8}, 3)});
        // add, multiply, subtract, maximum, negate, abs, broadcast_in_dim, compare, select, transpose.
        QCOMPARE(m_vk->stats().deviceCount() - before, int64_t(10));
    }

    void narrowFloatsMatchReferenceBitForBit()
    {
        const exec::BackendStats before = m_vk->stats();
        auto random = [](const char* type, std::vector<int64_t> shape, uint64_t seed) {
            return exec::randomTensor(*exec::elementTypeFromName(type), std::move(shape), seed);
        };
        compareBackends(kNarrow, {random("bf16", {4, 8}, 11), random("bf16", {4, 8}, 12), randomF32({8}, 13),
                                  random("f16", {4, 8}, 14)});
        // Every op of the program on the device: none fell back.
        const exec::BackendStats after = m_vk->stats();
        QCOMPARE(after.fallbackCount(), before.fallbackCount());
        QCOMPARE(after.deviceCount() - before.deviceCount(), int64_t(18));

        const float values[16] = {1.0f + 1.0f / 2048, // f16 tie, to even (down)
                                  1.0f + 3.0f / 2048, // f16 tie, to even (up)
                                  1.0f + 1.0f / 256,  // bf16 tie, to even (down)
                                  1.0f + 3.0f / 256,  // bf16 tie, to even (up)
                                  1e-7f,              // an f16 subnormal
                                  -2e-8f,             // under half the smallest f16 subnormal: -0
                                  65519.0f,           // largest finite f16 after rounding
                                  65520.0f,           // f16 overflow to infinity
                                  3.3961775e38f,      // bf16 overflow to infinity
                                  -0.0f,
                                  std::numeric_limits<float>::quiet_NaN(),
                                  -std::numeric_limits<float>::infinity(),
                                  6.1035156e-05f, // smallest normal f16
                                  6.0975552e-05f, // largest f16 subnormal
                                  1.0e-40f,       // an f32 subnormal
                                  123456.789f};
        exec::Tensor x(*exec::elementTypeFromName("f32"), {16});
        for (int64_t i = 0; i < 16; ++i)
            x.setFloat(i, values[i]);
        compareBackends(kNarrowEdges, {x});
    }

    void narrowDotMatchesReferenceBitForBit()
    {
        const auto before = m_vk->stats().onDevice["stablehlo.dot_general"];
        compareBackends(kNarrowDot, {exec::randomTensor(*exec::elementTypeFromName("bf16"), {16, 32}, 21),
                                     exec::randomTensor(*exec::elementTypeFromName("bf16"), {32, 8}, 22),
                                     exec::randomTensor(*exec::elementTypeFromName("f16"), {32, 8}, 23)});
        QCOMPARE(m_vk->stats().onDevice["stablehlo.dot_general"], before + 2);
    }

    void dotGeneralMatchesReferenceBitForBit()
    {
        const auto before = m_vk->stats().onDevice["stablehlo.dot_general"];
        compareBackends(kDot, {randomF32({16, 32}, 4), randomF32({32, 8}, 5)});
        QCOMPARE(m_vk->stats().onDevice["stablehlo.dot_general"], before + 1);
    }

    void reduceMatchesReferenceBitForBit()
    {
        const auto before = m_vk->stats().onDevice["stablehlo.reduce"];
        compareBackends(kReduce, {randomF32({6, 40}, 6)});
        QCOMPARE(m_vk->stats().onDevice["stablehlo.reduce"], before + 2);
    }

    void dynamicSliceTakesItsSizesFromTheResultType()
    {
        const exec::Tensor a = randomF32({3, 32, 8}, 7);
        exec::Tensor i(*exec::elementTypeFromName("i32"), {});
        i.setInt(0, 2);
        const auto before = m_vk->stats().onDevice["stablehlo.dynamic_slice"];
        compareBackends(kLocalDynamicSlice, {a, i});
        QCOMPARE(m_vk->stats().onDevice["stablehlo.dynamic_slice"], before + 1);
        // Hand-checked: the result is a[2] (rows of 8, starting at element 2*32*8).
        auto m = parseProgram(kLocalDynamicSlice);
        QVERIFY(m);
        auto got = m_vk->runFunction(*m, "f", {a, i});
        QVERIFY2(got, got ? "" : got.error().format().c_str());
        for (int64_t k : {int64_t(0), int64_t(9), int64_t(255)})
            QCOMPARE((*got)[0].getFloat(k), a.getFloat(2 * 32 * 8 + k));
    }

    void gridOfFourMatchesReference()
    {
        auto m = parseProgram(kGrid);
        QVERIFY(m);
        std::vector<exec::Tensor> args;
        for (uint64_t p = 0; p < 4; ++p) {
            args.push_back(randomF32({2, 8}, 10 + p));
            args.push_back(randomF32({8, 4}, 20 + p));
        }
        const std::vector<std::vector<std::string>> grid = {{"f", "f", "f", "f"}};
        exec::ReferenceExecutor ref;
        auto want = ref.runParallel(*m, grid, args);
        QVERIFY2(want, want ? "" : want.error().format().c_str());
        const auto dotsBefore = m_vk->stats().onDevice["stablehlo.dot_general"];
        auto got = m_vk->runParallel(*m, grid, args);
        QVERIFY2(got, got ? "" : got.error().format().c_str());
        QCOMPARE(got->size(), size_t(8));
        for (size_t i = 0; i < want->size(); ++i)
            QVERIFY((*got)[i].bytes() == (*want)[i].bytes());
        QCOMPARE(m_vk->stats().onDevice["stablehlo.dot_general"], dotsBefore + 4);
    }

    void valuesStayOnTheDeviceBetweenOps()
    {
        // The ten ops of kElementwise all run on the device: only the three arguments go up and only the result
        // comes down; every other operand is read in the buffer the op before left it in (or, for an argument
        // used again, the buffer it was uploaded to the first time).
        const exec::BackendStats before = m_vk->stats();
        compareBackends(kElementwise, {randomF32({4, 8}, 1), randomF32({4, 8}, 2), randomF32({8}, 3)});
        const exec::BackendStats after = m_vk->stats();
        QCOMPARE(after.uploads - before.uploads, int64_t(3));
        QCOMPARE(after.downloads - before.downloads, int64_t(1));
        // multiply 2, subtract 2, maximum 2, negate 1, abs 1, compare 2, select 3, transpose 1.
        QCOMPARE(after.operandsOnDevice - before.operandsOnDevice, int64_t(14));
        QVERIFY2(after.summary().find("operands read where the op before left them") != std::string::npos,
                 after.summary().c_str());
        // An op on the CPU fallback reads its operand on the host: it is downloaded there, once.
        const exec::BackendStats beforeExp = m_vk->stats();
        compareBackends(R"(
func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.add %a, %a : tensor<8xf32>
  %1 = stablehlo.exponential %0 : tensor<8xf32>
  %2 = stablehlo.add %1, %0 : tensor<8xf32>
  return %2 : tensor<8xf32>
})",
                        {randomF32({8}, 9)});
        const exec::BackendStats afterExp = m_vk->stats();
        QCOMPARE(afterExp.uploads - beforeExp.uploads, int64_t(2));     // %a, and %1 from the fallback
        QCOMPARE(afterExp.downloads - beforeExp.downloads, int64_t(2)); // %0 for the fallback, and the result
    }

    void fallbackIsCountedAndReported()
    {
        const exec::BackendStats before = m_vk->stats();
        const int64_t expBefore =
            before.fallback.count("stablehlo.exponential") ? before.fallback.at("stablehlo.exponential") : 0;
        compareBackends(kExp, {randomF32({8}, 7)});
        const exec::BackendStats after = m_vk->stats();
        QCOMPARE(after.fallback.at("stablehlo.exponential"), expBefore + 1);
        QCOMPARE(after.deviceCount(), before.deviceCount() + 1); // the add
        QVERIFY2(after.summary().find("exponential (") != std::string::npos, after.summary().c_str());
    }

    void cliRunsChecksOnVulkan()
    {
        QProcess p;
        startCli(p, {"interpret", QStringLiteral(SHARDX_SOURCE_DIR "/tests/exec/data/grid_checks.mlir"), "--backend",
                     "vulkan"});
        QVERIFY(p.waitForFinished(120000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitCode() == 0, qPrintable(out + err));
        QVERIFY2(out.contains("5 checks passed"), qPrintable(out));
        QVERIFY2(err.contains("ops on vulkan"), qPrintable(err));
    }

    void cliTimesEveryDispatchAndCollective()
    {
        QProcess p;
        startCli(p, {"interpret", QStringLiteral(SHARDX_SOURCE_DIR "/tests/exec/data/grid_checks.mlir"), "--backend",
                     "vulkan", "--timings"});
        QVERIFY(p.waitForFinished(120000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitCode() == 0, qPrintable(out + err));
        QVERIFY2(out.contains("5 checks passed"), qPrintable(out));
        // One table per process of the grid, and one for @main around it.
        for (int d = 0; d < 4; ++d)
            QVERIFY2(out.contains(QStringLiteral("timings of device %1 (vulkan: ").arg(d)), qPrintable(out));
        QVERIFY2(out.contains("timings of outside run_parallel"), qPrintable(out));
        // The reduce runs as a kernel, the all_reduce through host staging, the checks on the host.
        QVERIFY2(
            out.contains(QRegularExpression("stablehlo\\.reduce +\\S+grid_checks\\.mlir:\\d+:\\d+ +vulkan +1 +[1-9]")),
            qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression("stablehlo\\.all_reduce \\(collective\\) +\\S+ +host staging")),
                 qPrintable(out));
        // Kernel times come from GPU timestamps where the device has them, else from host timers, and say so.
        const bool timestamps = out.contains("GPU timestamps");
        QVERIFY2(timestamps || out.contains("host timers around each submission"), qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression(QStringLiteral("stablehlo\\.reduce .* vulkan .* ") +
                                                 (timestamps ? "gpu" : "host"))),
                 qPrintable(out));
    }

    void cliRejectsAnUnknownDeviceList()
    {
        QProcess p;
        startCli(p, {"interpret", QStringLiteral(SHARDX_SOURCE_DIR "/tests/exec/data/grid_checks.mlir"), "--backend",
                     "vulkan", "--devices", "99"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
    }
};

QTEST_GUILESS_MAIN(TestVulkanExecutor)
#include "tst_vulkanexecutor.moc"
