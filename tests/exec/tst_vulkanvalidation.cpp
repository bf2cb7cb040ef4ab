// tst_vulkanvalidation.cpp - exec::validate with the per-device programs on the Vulkan back end (lavapipe where
// there is no GPU): every sample with a mesh and a generated 4-layer transformer on a 2x2 and an 8-device mesh
// match the reference's global program, and a collective corrupted on a device is caught there. Skips only when
// there is no Vulkan loader or driver at all.
#include <QtTest>

#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "core/exec/Validation.h"
#include "core/exec/VulkanExecutor.h"
#include "core/exec/vulkan/Instance.h"
#include "tests/exec/ValidationTestSupport.h"
#include "tests/exec/VulkanTestSupport.h"

using namespace shardx;
using namespace shardx::testing;

class TestVulkanValidation : public QObject {
    Q_OBJECT

    std::unique_ptr<exec::VulkanExecutor> m_vk;

    exec::ValidationReport run(const ir::Module& module, const exec::ValidationOptions& options)
    {
        auto report = exec::validate(module, *m_vk, options);
        if (!report)
            qFatal("validate: %s", report.error().format().c_str());
        return std::move(*report);
    }

private slots:
    void initTestCase()
    {
        exec::VulkanExecutorOptions options;
        options.validation = true;
        const std::set<std::string> before = loadedLibraries();
        auto vk = exec::VulkanExecutor::create(options);
        if (!vk && exec::vk::Instance::probe() != exec::vk::Instance::Availability::Available)
            QSKIP("no Vulkan loader or driver on this machine");
        QVERIFY2(vk, vk ? "" : vk.error().message.c_str());
        m_vk = std::move(*vk);
        keepLibrariesLoadedSince(before);
    }

    void everySampleMatches_data()
    {
        QTest::addColumn<QString>("sample");
        QTest::addColumn<QString>("mesh");
        const QStringList samples = samplesWithMesh();
        QVERIFY(samples.size() >= 6);
        for (const QString& s : samples) {
            QTest::newRow(qPrintable(s + " own 8-device mesh")) << s << QString();
            // reshape_subaxes names sub-axes of a 4-device axis: it has no 2x2 form (tst_validation checks the error).
            if (s != "reshape_subaxes.mlir")
                QTest::newRow(qPrintable(s + " 2x2")) << s << QString("2x2");
        }
    }
    void everySampleMatches()
    {
        QFETCH(QString, sample);
        QFETCH(QString, mesh);
        auto module = readSample(sample);
        QVERIFY(module);
        exec::ValidationOptions options;
        options.mesh = mesh.toStdString();
        options.intermediates = true;
        const int64_t before = m_vk->stats().deviceCount();
        auto report = exec::validate(*module, *m_vk, options);
        QVERIFY2(report, report ? "" : report.error().format().c_str());
        QVERIFY2(report->matches(), reportText(*report).constData());
        QCOMPARE(report->backend, std::string("vulkan"));
        QVERIFY(!report->intermediates.empty());
        QVERIFY(m_vk->stats().deviceCount() > before); // ops ran on the device, not only on the fallback
    }

    void aTransformerMatches_data()
    {
        QTest::addColumn<int>("data");
        QTest::addColumn<int>("tensor");
        QTest::newRow("2x2") << 2 << 2;
        QTest::newRow("2x4") << 2 << 4;
    }
    void aTransformerMatches()
    {
        QFETCH(int, data);
        QFETCH(int, tensor);
        auto module = smallTransformer(data, tensor);
        QVERIFY(module);
        exec::ValidationOptions options;
        options.intermediates = true;
        const exec::ValidationReport report = run(*module, options);
        QVERIFY2(report.matches(), reportText(report).constData());
        QCOMPARE(report.devices, int64_t(data * tensor));
        QVERIFY(report.intermediates.size() > 200);
    }

    void aCorruptedCollectiveIsNamedWithItsDevice()
    {
        auto module = readSample("mlp_dp_tp.mlir");
        QVERIFY(module);
        exec::ValidationOptions options;
        options.intermediates = true;
        options.fault = exec::InjectedFaultKind::Collective;
        options.faultDevice = 5;
        const exec::ValidationReport report = run(*module, options);
        QVERIFY(!report.matches());
        const exec::Divergence& d = *report.firstDivergence;
        QVERIFY2(report.faultOp.rfind("stablehlo.", 0) == 0, report.faultOp.c_str());
        QCOMPARE(QString::fromStdString(d.opName), QString::fromStdString(report.faultOp));
        QCOMPARE(d.pos.line, report.faultPos.line);
        QCOMPARE(d.device, int64_t(5));
    }

    void swappedShardsAreCaught()
    {
        auto module = smallTransformer(2, 2);
        QVERIFY(module);
        exec::ValidationOptions options;
        options.intermediates = true;
        options.fault = exec::InjectedFaultKind::SwapShards;
        const exec::ValidationReport report = run(*module, options);
        QVERIFY(!report.matches());
        QCOMPARE(QString::fromStdString(report.firstDivergence->value), QString("%arg0"));
        QCOMPARE(report.firstDivergence->device, report.faultDevice);
    }

    /// Every device of the run has a table; kernels are timed on the device (GPU timestamps where the device has
    /// them, else host timers, and the table says which), collectives through host staging, and the totals add up.
    static void checkTimings(const exec::ValidationReport& report, bool expectGpuClock)
    {
        QVERIFY(report.timed);
        QCOMPARE(int64_t(report.timings.size()), report.devices);
        for (const exec::DeviceTimings& d : report.timings) {
            QVERIFY2(d.backend.rfind("vulkan: ", 0) == 0, d.backend.c_str());
            QVERIFY2(d.clock.find(expectGpuClock ? "GPU timestamps" : "host timers") != std::string::npos,
                     d.clock.c_str());
            int64_t kernelOps = 0, collectives = 0;
            double sum = 0;
            for (const exec::OpTiming& t : d.ops) {
                QVERIFY(t.calls > 0);
                QVERIFY(t.ms >= 0 && t.hostMs >= 0);
                sum += t.ms;
                if (t.dispatches > 0) {
                    ++kernelOps;
                    QCOMPARE(QString::fromStdString(t.ranOn), QString("vulkan"));
                    QVERIFY(!t.kernels.empty());
                    QCOMPARE(int(t.clock), int(expectGpuClock ? exec::TimeClock::Gpu : exec::TimeClock::Host));
                }
                if (t.collective) {
                    ++collectives;
                    QCOMPARE(QString::fromStdString(t.ranOn), QString("host staging"));
                }
            }
            QVERIFY(kernelOps > 10);
            QVERIFY(collectives > 0);
            QVERIFY(std::abs(sum - d.totalMs) <= 1e-9 * std::max(1.0, sum));
        }
        const QString text = QString::fromStdString(exec::validationText(report));
        QVERIFY2(text.contains("timings of device 0 (vulkan: "), qPrintable(text));
        const nlohmann::json j = exec::validationJson(report);
        QCOMPARE(j["timings"].size(), size_t(report.devices));
        QVERIFY(j["timings"][0]["ops"].size() > 10);
    }

    void timingsPerDispatchAndCollective()
    {
        auto module = smallTransformer(2, 2);
        QVERIFY(module);
        exec::ValidationOptions options;
        options.timings = true;
        const exec::ValidationReport report = run(*module, options);
        QVERIFY2(report.matches(), reportText(report).constData());
        auto instance = exec::vk::Instance::create();
        QVERIFY(instance);
        checkTimings(report, (*instance)->physicalDevices().front().timestampValidBits > 0);
    }

    void timingsFallBackToHostTimers()
    {
        // Without GPU timestamps (turned off here; a device without them takes the same path) kernels are timed
        // by host timers around their submission, and the table says so.
        exec::VulkanExecutorOptions vkOptions;
        vkOptions.timestamps = false;
        auto vk = exec::VulkanExecutor::create(vkOptions);
        QVERIFY2(vk, vk ? "" : vk.error().message.c_str());
        auto module = readSample("mlp_dp_tp.mlir");
        QVERIFY(module);
        exec::ValidationOptions options;
        options.timings = true;
        options.mesh = "2x2";
        auto report = exec::validate(*module, **vk, options);
        QVERIFY2(report, report ? "" : report.error().format().c_str());
        QVERIFY(report->matches());
        QVERIFY(report->timed);
        for (const exec::DeviceTimings& d : report->timings) {
            QVERIFY2(d.clock.find("GPU timestamps turned off") != std::string::npos, d.clock.c_str());
            for (const exec::OpTiming& t : d.ops)
                QVERIFY(t.clock == exec::TimeClock::Host);
        }
    }

    void cleanupTestCase()
    {
        if (m_vk)
            qInfo("%s", m_vk->stats().summary().c_str());
    }
};

QTEST_GUILESS_MAIN(TestVulkanValidation)
#include "tst_vulkanvalidation.moc"
