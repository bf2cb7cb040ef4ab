// tst_validation.cpp - exec::validate on the reference back end: every sample with a mesh and a generated 4-layer
// transformer on a 2x2 and a 2x4 mesh match their global programs; injected faults (a corrupted collective,
// swapped input shards) are caught at the right op and device; tolerances and errors.
#include <QRegularExpression>
#include <QtTest>

#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "core/exec/ReferenceExecutor.h"
#include "core/exec/Validation.h"
#include "tests/exec/ExecTestSupport.h"
#include "tests/exec/ValidationTestSupport.h"

using namespace shardx;
using namespace shardx::testing;

class TestValidation : public QObject {
    Q_OBJECT

private:
    /// Validates `module` on the reference back end; fails the test when it could not run.
    static exec::ValidationReport run(const ir::Module& module, const exec::ValidationOptions& options)
    {
        exec::ReferenceExecutor backend;
        auto report = exec::validate(module, backend, options);
        if (!report)
            qFatal("validate: %s", report.error().format().c_str());
        return std::move(*report);
    }

private slots:
    void everySampleMatches_data()
    {
        QTest::addColumn<QString>("sample");
        QTest::addColumn<QString>("mesh");
        const QStringList samples = samplesWithMesh();
        QVERIFY(samples.size() >= 6);
        for (const QString& s : samples) {
            // Every sample's own mesh has 8 devices on two axes (2x4 or 4x2); 2x2 resizes both axes.
            QTest::newRow(qPrintable(s + " own 8-device mesh")) << s << QString();
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
        exec::ReferenceExecutor backend;
        auto report = exec::validate(*module, backend, options);
        if (sample == "reshape_subaxes.mlir" && mesh == "2x2") {
            // Its shardings name the sub-axes "x":(1)2 and "x":(2)2, which a 2-device axis cannot have.
            QVERIFY(!report);
            QVERIFY2(report.error().message.find("sub-axis") != std::string::npos, report.error().message.c_str());
            return;
        }
        QVERIFY2(report, report ? "" : report.error().format().c_str());
        QVERIFY2(report->matches(), reportText(*report).constData());
        QCOMPARE(report->devices, mesh.isEmpty() ? int64_t(8) : int64_t(4));
        QVERIFY(!report->results.empty());
        QVERIFY(!report->intermediates.empty());
        for (const auto& r : report->results)
            QVERIFY(r.elements > 0);
    }

    void loopsAndBranchesWithShardedValuesMatch_data()
    {
        QTest::addColumn<bool>("predicate");
        QTest::newRow("then") << true;
        QTest::newRow("else") << false;
    }
    void loopsAndBranchesWithShardedValuesMatch()
    {
        // A loop carrying a value sharded on both axes, read whole (reversed, summed) in its cond and body; an if
        // whose branches compute values sharded unlike its result; a case after it. Reversing moves rows between
        // devices, so a loop argument left global, or a branch result laid out unlike its op's, cannot match.
        QFETCH(bool, predicate);
        auto module = parseProgram(R"(
sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}, %p: tensor<i1>) -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %lim = stablehlo.constant dense<100.0> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %0:2 = stablehlo.while(%i = %c, %v = %arg0) : tensor<i32>, tensor<8x4xf32> attributes {sdy.sharding = #sdy.sharding_per_value<[<@mesh, []>, <@mesh, [{"x"}, {"y"}]>]>}
   cond {
    %s = stablehlo.reduce(%v init: %zero) applies stablehlo.add across dimensions = [0, 1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, []>]>} : (tensor<8x4xf32>, tensor<f32>) -> tensor<f32>
    %a = stablehlo.abs %s : tensor<f32>
    %q = stablehlo.compare LT, %a, %lim, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %k = stablehlo.constant dense<3> : tensor<i32>
    %n = stablehlo.compare LT, %i, %k, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %r = stablehlo.and %q, %n : tensor<i1>
    stablehlo.return %r : tensor<i1>
  } do {
    %rev = stablehlo.reverse %v, dims = [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<8x4xf32>
    %t = stablehlo.add %rev, %v {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<8x4xf32>
    %n = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %n, %t : tensor<i32>, tensor<8x4xf32>
  }
  %1 = "stablehlo.if"(%p) ({
    %a = stablehlo.abs %0#1 : tensor<8x4xf32>
    stablehlo.return %a : tensor<8x4xf32>
  }, {
    %r = stablehlo.reverse %0#1, dims = [1] : tensor<8x4xf32>
    stablehlo.return %r : tensor<8x4xf32>
  }) : (tensor<i1>) -> tensor<8x4xf32>
  %ci = stablehlo.convert %p : (tensor<i1>) -> tensor<i32>
  %2 = "stablehlo.case"(%ci) ({
    %a = stablehlo.negate %1 : tensor<8x4xf32>
    stablehlo.return %a : tensor<8x4xf32>
  }, {
    %b = stablehlo.exponential %1 : tensor<8x4xf32>
    stablehlo.return %b : tensor<8x4xf32>
  }) : (tensor<i32>) -> tensor<8x4xf32>
  return %2 : tensor<8x4xf32>
})");
        QVERIFY(module);
        exec::ValidationOptions options;
        options.intermediates = true;
        std::vector<float> x(32);
        for (size_t i = 0; i < x.size(); ++i)
            x[i] = static_cast<float>(i % 7) / 8.0f - 0.25f;
        options.inputs = {tensorOf("f32", {8, 4}, std::vector<double>(x.begin(), x.end())),
                          tensorOf("i1", {}, {predicate ? 1.0 : 0.0})};
        const exec::ValidationReport report = run(*module, options);
        QVERIFY2(report.matches(), reportText(report).constData());
        QCOMPARE(report.devices, int64_t(4));
        QCOMPARE(report.results.front().elements, int64_t(32));
    }

    void timingsCountEveryOpOfEveryDevice()
    {
        // samples/loop_argmax.mlir on 2x2: a 3-iteration while loop (dot_general, tanh and the all_gather the loop
        // needs in its body; a compare in its condition, run 4 times), then a dot_general and an argmax reduce.
        auto module = readSample("loop_argmax.mlir");
        QVERIFY(module);
        exec::ValidationOptions options;
        options.mesh = "2x2";
        options.timings = true;
        const exec::ValidationReport report = run(*module, options);
        QVERIFY2(report.matches(), reportText(report).constData());
        QVERIFY(report.timed);
        QCOMPARE(report.timings.size(), size_t(4));
        for (size_t d = 0; d < report.timings.size(); ++d) {
            const exec::DeviceTimings& t = report.timings[d];
            QCOMPARE(t.device, int64_t(d));
            QCOMPARE(QString::fromStdString(t.backend), QString("reference"));
            std::map<std::string, std::vector<int64_t>> calls;
            double sum = 0;
            for (const exec::OpTiming& o : t.ops) {
                calls[o.opName].push_back(o.calls);
                QCOMPARE(QString::fromStdString(o.ranOn), QString("cpu"));
                QVERIFY(o.clock == exec::TimeClock::Host && o.dispatches == 0 && o.ms >= 0);
                QVERIFY2(o.pos.file == "samples/loop_argmax.mlir" && o.pos.line > 0, o.opName.c_str());
                QCOMPARE(o.collective, o.opName == "stablehlo.all_gather");
                sum += o.ms;
            }
            // The loop body's dot_general ran 3 times, the one after it once; the condition's compare 4 times.
            QCOMPARE(calls["stablehlo.dot_general"], (std::vector<int64_t>{3, 1}));
            QCOMPARE(calls["stablehlo.all_gather"], (std::vector<int64_t>{3}));
            QVERIFY(!calls["stablehlo.compare"].empty() && calls["stablehlo.compare"].front() == 4);
            // The reduce's body (compare, or, and, select per element) is part of the reduce, the loop of its ops.
            QCOMPARE(calls["stablehlo.reduce"], (std::vector<int64_t>{1}));
            QCOMPARE(calls["stablehlo.compare"].size(), size_t(1));
            QVERIFY(!calls.count("stablehlo.or") && !calls.count("stablehlo.select") &&
                    !calls.count("stablehlo.while"));
            QVERIFY(t.collectiveMs > 0 && t.hostOpMs > 0 && t.kernelMs == 0);
            QVERIFY(std::abs(sum - t.totalMs) <= 1e-9 * std::max(1.0, sum));
        }
        const QString text = QString::fromStdString(exec::validationText(report));
        QVERIFY2(text.contains("timings of device 3 (reference; host timers around each op):"), qPrintable(text));
        QVERIFY2(text.contains(QRegularExpression(
                     "stablehlo\\.all_gather \\(collective\\) +samples/loop_argmax\\.mlir:\\d+:\\d+ +cpu +3 +0")),
                 qPrintable(text));
        const nlohmann::json j = exec::validationJson(report);
        QCOMPARE(j["timings"].size(), size_t(4));
        QCOMPARE(j["timings"][0]["device"].get<int>(), 0);
        for (const char* key :
             {"op", "location", "ran_on", "collective", "calls", "dispatches", "clock", "ms", "host_ms", "kernels"})
            QVERIFY2(j["timings"][0]["ops"][0].contains(key), key);
        // Not asked for: none taken, and the field is null.
        options.timings = false;
        const exec::ValidationReport plain = run(*module, options);
        QVERIFY(!plain.timed && plain.timings.empty());
        QVERIFY(exec::validationJson(plain)["timings"].is_null());
        QVERIFY(!QString::fromStdString(exec::validationText(plain)).contains("timings of"));
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
        // Every layer's values are compared, and the partial sums of its row-parallel matmuls are named.
        QVERIFY2(report.intermediates.size() > 200, qPrintable(QString::number(report.intermediates.size())));
        QVERIFY(!report.skipped.empty());
        for (const auto& r : report.intermediates)
            QVERIFY2(r.maxAbsError <= 1e-5 * std::max(1.0, r.scale), r.name.c_str());
    }

    void aCorruptedCollectiveIsNamedWithItsDevice_data()
    {
        QTest::addColumn<QString>("sample");
        QTest::addColumn<int>("device");
        QTest::newRow("mlp_dp_tp device 1") << "mlp_dp_tp.mlir" << 1;
        QTest::newRow("mlp_dp_tp device 6") << "mlp_dp_tp.mlir" << 6;
        QTest::newRow("attention device 3") << "attention.mlir" << 3;
    }
    void aCorruptedCollectiveIsNamedWithItsDevice()
    {
        QFETCH(QString, sample);
        QFETCH(int, device);
        auto module = readSample(sample);
        QVERIFY(module);
        exec::ValidationOptions options;
        options.intermediates = true;
        options.fault = exec::InjectedFaultKind::Collective;
        options.faultDevice = device;
        const exec::ValidationReport report = run(*module, options);
        QVERIFY(!report.matches());
        QVERIFY(report.firstDivergence);
        const exec::Divergence& d = *report.firstDivergence;
        // The collective that was corrupted, at its position, on its device: not a later op it fed.
        QVERIFY2(report.faultOp.rfind("stablehlo.", 0) == 0, report.faultOp.c_str());
        QCOMPARE(QString::fromStdString(d.opName), QString::fromStdString(report.faultOp));
        QCOMPARE(d.pos.line, report.faultPos.line);
        QCOMPARE(d.pos.col, report.faultPos.col);
        QVERIFY(d.pos.line > 0);
        QCOMPARE(d.device, int64_t(device));
        QCOMPARE(report.faultDevice, int64_t(device));
        // The devices outside the fault's reach agree with the global program.
        for (const auto& r : report.intermediates)
            if (!r.matches())
                QVERIFY2(std::find(r.devices.begin(), r.devices.end(), int64_t(device)) != r.devices.end(),
                         r.name.c_str());
        // Without intermediates the results still catch it.
        options.intermediates = false;
        const exec::ValidationReport plain = run(*module, options);
        QVERIFY(!plain.matches());
        QCOMPARE(plain.firstDivergence->device, int64_t(device));
    }

    void swappedShardsAreNamedAtTheArgument()
    {
        auto module = readSample("mlp_dp_tp.mlir");
        QVERIFY(module);
        exec::ValidationOptions options;
        options.intermediates = true;
        options.fault = exec::InjectedFaultKind::SwapShards;
        const exec::ValidationReport report = run(*module, options);
        QVERIFY(!report.matches());
        // %arg0 is sharded on "data": devices 0 and 4 hold different rows and now hold each other's.
        QCOMPARE(QString::fromStdString(report.firstDivergence->value), QString("%arg0"));
        QVERIFY(report.firstDivergence->opName.empty());
        QCOMPARE(report.firstDivergence->device, int64_t(0));
        QCOMPARE(report.faultDevice, int64_t(0));
        QCOMPARE(report.arguments.front().devices, (std::vector<int64_t>{0, 4}));
        QVERIFY(report.fault.find("devices 0 and 4") != std::string::npos);
        QVERIFY(!report.results.front().matches());
    }

    void stagesAreReportedAndACancelStops()
    {
        auto module = readSample("mlp_dp_tp.mlir");
        QVERIFY(module);
        exec::ValidationOptions options;
        QStringList stages;
        options.progress = [&](const std::string& stage, int done, int total) {
            QCOMPARE(total, 5);
            QCOMPARE(done, int(stages.size()));
            stages << QString::fromStdString(stage);
        };
        QVERIFY(run(*module, options).matches());
        QCOMPARE(stages, QStringList({"propagating", "partitioning", "running the global program",
                                      "running the per-device programs", "comparing"}));
        // A cancel asked while a stage runs stops the validation before the next one.
        std::atomic<bool> cancel{false};
        options.cancel = &cancel;
        stages.clear();
        options.progress = [&](const std::string& stage, int, int) {
            stages << QString::fromStdString(stage);
            if (stage == "partitioning")
                cancel = true;
        };
        exec::ReferenceExecutor backend;
        auto stopped = exec::validate(*module, backend, options);
        QVERIFY(!stopped);
        QCOMPARE(QString::fromStdString(stopped.error().message), QString(exec::kValidationCancelled));
        QCOMPARE(stages.size(), 2);
        // Within a run, every process stops before its next op.
        cancel = false;
        exec::RunHooks hooks;
        hooks.cancel = &cancel;
        backend.setHooks(hooks);
        auto small = parseProgram("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                                  "  %0 = stablehlo.add %a, %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n");
        QVERIFY(small);
        QVERIFY(backend.runFunction(*small, "main", {tensorOf("f32", {4}, {1, 2, 3, 4})}));
        cancel = true;
        auto interrupted = backend.runFunction(*small, "main", {tensorOf("f32", {4}, {1, 2, 3, 4})});
        QVERIFY(!interrupted);
        QVERIFY2(interrupted.error().message.find("cancelled") != std::string::npos,
                 interrupted.error().message.c_str());
    }

    void theFirstDivergenceNamesItsValueInTheModule()
    {
        // The GUI selects the value the divergence stands for by its ProgramIds index in the module validated.
        auto module = readSample("mlp_dp_tp.mlir");
        QVERIFY(module);
        const ir::ProgramIds& ids = module->programIds();
        exec::ValidationOptions options;
        options.intermediates = true;
        options.fault = exec::InjectedFaultKind::Collective;
        const exec::ValidationReport report = run(*module, options);
        QVERIFY(report.firstDivergence);
        const int gv = report.firstDivergence->globalValue;
        QVERIFY(gv >= 0 && static_cast<size_t>(gv) < ids.values().size());
        // %6.all_reduce moves (reduces) the partial sums of %6, the second dot_general.
        QCOMPARE(QString::fromStdString(ids.values()[static_cast<size_t>(gv)].name), QString("%6"));
        for (const auto& r : report.results)
            QCOMPARE(QString::fromStdString(ids.values()[static_cast<size_t>(r.globalValue)].name), QString("%8"));
        options.fault = exec::InjectedFaultKind::SwapShards;
        const exec::ValidationReport swapped = run(*module, options);
        QCOMPARE(QString::fromStdString(ids.values()[static_cast<size_t>(swapped.firstDivergence->globalValue)].name),
                 QString("%arg0"));
    }

    void aFaultWithNothingToCorruptIsAnError()
    {
        // Every value replicated: no collective runs, and no two devices hold different shards.
        auto module = parseProgram(R"(
sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
})");
        QVERIFY(module);
        exec::ReferenceExecutor backend;
        exec::ValidationOptions options;
        QVERIFY(exec::validate(*module, backend, options));
        options.fault = exec::InjectedFaultKind::Collective;
        auto collective = exec::validate(*module, backend, options);
        QVERIFY(!collective);
        QVERIFY(collective.error().message.find("collective") != std::string::npos);
        options.fault = exec::InjectedFaultKind::SwapShards;
        QVERIFY(!exec::validate(*module, backend, options));
    }

    void integersAreComparedExactlyAndSeedsChangeInputs()
    {
        auto module = parseProgram(R"(
sdy.mesh @mesh = <["x"=2]>
func.func @main(%a: tensor<4x2xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<2xi32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.reduce(%a init: %c) applies stablehlo.add across dimensions = [0] : (tensor<4x2xi32>, tensor<i32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
})");
        QVERIFY(module);
        exec::ValidationOptions options;
        options.intermediates = true;
        const exec::ValidationReport report = run(*module, options);
        QVERIFY2(report.matches(), reportText(report).constData());
        QVERIFY(report.results.front().tolerance.exact());
        QCOMPARE(report.results.front().elements, int64_t(4)); // two replicas of two elements
        // The input given is used as given.
        options.inputs = {tensorOf("i32", {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8})};
        const exec::ValidationReport given = run(*module, options);
        QVERIFY(given.matches());
        QCOMPARE(given.arguments.front().scale, 0.0); // integers have no scale
    }

    void tolerancesPerType()
    {
        QVERIFY(exec::toleranceFor(*exec::elementTypeFromName("i32")).exact());
        QVERIFY(exec::toleranceFor(*exec::elementTypeFromName("i1")).exact());
        QCOMPARE(exec::toleranceFor(*exec::elementTypeFromName("f32")).rel, exec::kToleranceF32.rel);
        QCOMPARE(exec::toleranceFor(*exec::elementTypeFromName("bf16")).rel, exec::kToleranceBf16.rel);
        QCOMPARE(exec::toleranceFor(*exec::elementTypeFromName("f16")).rel, exec::kToleranceF16.rel);
        QCOMPARE(exec::toleranceFor(*exec::elementTypeFromName("f64")).rel, exec::kToleranceF64.rel);
        QVERIFY(exec::kToleranceF64.rel < exec::kToleranceF32.rel);
        QVERIFY(exec::kToleranceF32.rel < exec::kToleranceF16.rel);
    }

    void aModuleWithoutMeshCannotBeValidated()
    {
        auto module = parseProgram("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                                   "  return %a : tensor<4xf32>\n}\n");
        QVERIFY(module);
        exec::ReferenceExecutor backend;
        auto report = exec::validate(*module, backend, exec::ValidationOptions{});
        QVERIFY(!report);
        QVERIFY(report.error().message.find("no mesh") != std::string::npos);
        exec::ValidationOptions badMesh;
        badMesh.mesh = "2xq";
        QVERIFY(!exec::validate(*module, backend, badMesh));
    }

    void unevenRowsResliceOnASubAxisMatch()
    {
        // 10 rows: 2 shards of 5 under "x":(1)2, 4 shards of 3 (padded to 12) under "x". The reshards between
        // them cannot pad or trim the rows in place (two blocks of 3 are 6 rows): pad-for-divisibility gathers
        // the dimension whole around them. The iota tells every row apart, so rows moved between shards
        // would not match.
        auto module = parseProgram(R"(
sdy.mesh @mesh = <["x"=4]>
func.func @main(%arg0: tensor<10x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(1)2}, {}]>}) -> (tensor<10x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(1)2}, {}]>}) {
  %0 = sdy.reshard %arg0 <@mesh, [{"x"}, {}]> : tensor<10x3xf32>
  %1 = stablehlo.iota dim = 0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<10x3xf32>
  %2 = stablehlo.add %0, %1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<10x3xf32>
  %3 = sdy.reshard %2 <@mesh, [{"x":(1)2}, {}]> : tensor<10x3xf32>
  return %3 : tensor<10x3xf32>
})");
        QVERIFY(module);
        exec::ValidationOptions options;
        options.strategy.clear();
        std::vector<double> x(30);
        for (size_t i = 0; i < x.size(); ++i)
            x[i] = static_cast<double>(i) / 4.0;
        options.inputs = {tensorOf("f32", {10, 3}, x)};
        const exec::ValidationReport report = run(*module, options);
        QVERIFY2(report.matches(), reportText(report).constData());
        QCOMPARE(report.devices, int64_t(4));
    }

    void aPartitionerErrorReadsAsOneDiagnostic()
    {
        // The pass's first error gives the position; its message follows the stages on one line.
        auto module = parseProgram(R"(sdy.mesh @m = <["x"=4]>
func.func @main(%arg0: tensor<6xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> tensor<6xf32> {
  %0 = stablehlo.negate %arg0 : tensor<6xf32>
  return %0 : tensor<6xf32>
})");
        QVERIFY(module);
        exec::ValidationOptions options;
        options.strategy.clear();
        exec::ReferenceExecutor backend;
        auto report = exec::validate(*module, backend, options);
        QVERIFY(!report);
        const Error& e = report.error();
        QCOMPARE(e.pos.line, 2);
        QVERIFY2(e.message.rfind("partitioning failed: padding for divisibility failed: argument 0 of type "
                                 "tensor<6xf32> has a sharding that does not divide it",
                                 0) == 0,
                 e.message.c_str());
        QVERIFY2(e.message.find('\n') == std::string::npos && e.message.find("error:") == std::string::npos,
                 e.message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestValidation)
#include "tst_validation.moc"
