// Determinism (DESIGN.md section 3): the same input and options give byte-identical MLIR, JSON documents and traces,
// run after run in one process and across processes (shardx-cli), for every sample and every propagation strategy;
// and the order of attribute dictionary entries in the input, which MLIR sorts, and of location alias definitions
// changes nothing.
#include <QtTest>

#include <QProcess>
#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

#include "core/io/MlirPrinter.h"
#include "core/passes/PassRegistry.h"
#include "core/session/Session.h"
#include "tests/TestSupport.h"
#include "tests/session/AttributeOrder.h"

using namespace shardx;
namespace fs = std::filesystem;

namespace {

/// Everything a run writes.
struct Outputs {
    std::string failure; ///< why the run did not complete; empty when it did
    std::string sourceJson, mlir, mlirDebug, json, trace;
};

/// Opens `text` as the file `name`, propagates with `strategy` and collects what it writes.
Outputs propagate(const std::string& text, const std::string& name, const std::string& strategy)
{
    Outputs o;
    Session s;
    if (!s.openText(text, name)) {
        o.failure = "open: " + s.diagnostics().formatAll();
        return o;
    }
    o.sourceJson = s.text(Session::Format::Json, true);
    PropagationRequest request;
    request.strategy = strategy;
    PropagationResult r = s.propagate(request);
    if (!r.ok || !s.trace()) {
        o.failure = "propagate: " + r.diagnostics.formatAll();
        return o;
    }
    o.mlir = s.text(Session::Format::Mlir);
    io::PrintOptions debug;
    debug.printDebugInfo = true;
    o.mlirDebug = io::printModule(*s.module(), debug);
    o.json = s.text(Session::Format::Json);
    o.trace = s.trace()->toJson();
    return o;
}

/// Names the first output of `a` and `b` that differs, with the line where it does; empty when none does.
std::string firstDifference(const Outputs& a, const Outputs& b)
{
    if (!a.failure.empty() || !b.failure.empty())
        return "a run failed: " + a.failure + b.failure;
    const std::pair<const char*, const std::string Outputs::*> fields[] = {{"source JSON", &Outputs::sourceJson},
                                                                           {"MLIR", &Outputs::mlir},
                                                                           {"MLIR with locations", &Outputs::mlirDebug},
                                                                           {"JSON", &Outputs::json},
                                                                           {"trace", &Outputs::trace}};
    for (const auto& [what, field] : fields) {
        const std::string &x = a.*field, &y = b.*field;
        if (x == y)
            continue;
        size_t at = 0;
        while (at < x.size() && at < y.size() && x[at] == y[at])
            ++at;
        const size_t line = static_cast<size_t>(std::count(x.begin(), x.begin() + static_cast<long>(at), '\n')) + 1;
        return std::string(what) + " differs at line " + std::to_string(line) + ": '" + x.substr(at, 80) + "' vs '" +
               y.substr(at, 80) + "'";
    }
    return {};
}

/// Allocations of random sizes, kept while a run lasts, so that runs see different heap addresses (order taken
/// from pointers would then show).
std::vector<std::unique_ptr<char[]>> perturbHeap(unsigned seed)
{
    std::mt19937 rng(seed);
    std::vector<std::unique_ptr<char[]>> blocks;
    for (int i = 0; i < 200 + static_cast<int>(rng() % 300); ++i)
        blocks.push_back(std::make_unique<char[]>(1 + rng() % 512));
    return blocks;
}

std::vector<std::string> samplePaths()
{
    std::vector<std::string> paths;
    for (const auto& e : fs::directory_iterator(SHARDX_SOURCE_DIR "/samples"))
        if (e.path().extension() == ".mlir")
            paths.push_back(e.path().string());
    std::sort(paths.begin(), paths.end());
    return paths;
}

std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Dictionaries in every place MLIR has them, each written in a non-sorted order, two calls (the pipeline turns
/// them into named computations and back) and a manual computation.
const char* kOrders =
    R"(module @orders attributes {mhlo.num_replicas = 1 : i32, jax.uses_shape_polymorphism = false, mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=4]>
  func.func private @helper(%arg0: tensor<8x16xf32> {mhlo.layout_mode = "default", jax.arg_info = "h"}) -> (tensor<8x16xf32> {mhlo.layout_mode = "default", jax.result_info = "h"}) attributes {mhlo.frontend_attributes = {z = "1", a = "2"}, jax.private = true} {
    %0 = stablehlo.negate %arg0 {mhlo.frontend_attributes = {y = "1", b = "2"}, mhlo.sharding = "{replicated}"} : tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
  func.func private @helper2(%arg0: tensor<8x16xf32> {mhlo.layout_mode = "default", jax.arg_info = "h2"}) -> tensor<8x16xf32> {
    %0 = stablehlo.abs %arg0 {mhlo.sharding = "{replicated}", jax.abs = 2 : i64} : tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>, mhlo.layout_mode = "default", jax.arg_info = "x"}, %arg1: tensor<16x32xf32> {mhlo.layout_mode = "default", sdy.sharding = #sdy.sharding<@mesh, [{}, {"b"}]>}) -> (tensor<8x32xf32> {mhlo.layout_mode = "default", jax.result_info = "result"}) {
    %0 = stablehlo.add %arg0, %arg0 {mhlo.frontend_attributes = {b = "1", a = "2"}, mhlo.sharding = "{replicated}"} : tensor<8x16xf32>
    %5 = func.call @helper2(%0) {jax.call = 1 : i64, mhlo.frontend_attributes = {q = "1", p = "2"}} : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %1 = func.call @helper(%5) {mhlo.frontend_attributes = {q = "1", p = "2"}, jax.call = 3 : i64} : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %2 = "stablehlo.dot_general"(%1, %arg1) <{precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> {mhlo.frontend_attributes = {k = "1", c = "2"}, jax.dot = 1 : i64} : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %3 = sdy.manual_computation(%2) in_shardings=[<@mesh, [{"a"}, {"b"}]>] out_shardings=[<@mesh, [{"a"}, {"b"}]>] manual_axes={"a", "b"} (%arg2: tensor<4x8xf32>) {
      %4 = stablehlo.abs %arg2 {mhlo.sharding = "{manual}", jax.abs = 1 : i64} : tensor<4x8xf32>
      sdy.return %4 : tensor<4x8xf32>
    } : (tensor<8x32xf32>) -> tensor<8x32xf32>
    return %3 : tensor<8x32xf32>
  }
}
)";

} // namespace

class TestDeterminism : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    struct Run {
        int exitCode = -1;
        QByteArray out, err;
    };

    static Run shardxCli(const QStringList& args)
    {
        QProcess p;
        p.start(QStringLiteral(SHARDX_BINARY_DIR "/app/cli/shardx-cli"), args);
        p.closeWriteChannel();
        if (!p.waitForFinished(120000))
            return {};
        return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
    }

    /// The samples and kOrders (written to a file), each with every strategy.
    void inputsAndStrategies()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("strategy");
        std::vector<std::string> paths = samplePaths();
        paths.push_back(m_dir.filePath("orders.mlir").toStdString());
        for (const std::string& path : paths)
            for (const PropagationStrategy& s : propagationStrategies())
                QTest::newRow((fs::path(path).stem().string() + " " + s.name).c_str())
                    << QString::fromStdString(path) << QString(s.name);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(samplePaths().size() >= 4, "samples/ holds the sample programs");
        QVERIFY(propagationStrategies().size() >= 5);
        std::ofstream(m_dir.filePath("orders.mlir").toStdString(), std::ios::binary) << kOrders;
    }

    void repeatedRunsInOneProcess_data() { inputsAndStrategies(); }
    void repeatedRunsInOneProcess()
    {
        QFETCH(QString, path);
        QFETCH(QString, strategy);
        const std::string text = readAll(path.toStdString());
        const Outputs first = propagate(text, path.toStdString(), strategy.toStdString());
        QVERIFY2(first.failure.empty(), first.failure.c_str());
        QVERIFY(first.trace.size() > 100 && first.mlir.find("sdy.sharding") != std::string::npos);
        for (unsigned run = 1; run < 4; ++run) {
            auto heap = perturbHeap(run);
            const std::string why = firstDifference(first, propagate(text, path.toStdString(), strategy.toStdString()));
            QVERIFY2(why.empty(), ("run " + std::to_string(run) + ": " + why).c_str());
        }
    }

    void runsInSeparateProcesses_data() { inputsAndStrategies(); }
    void runsInSeparateProcesses()
    {
        QFETCH(QString, path);
        QFETCH(QString, strategy);
        const Outputs inProcess = propagate(readAll(path.toStdString()), path.toStdString(), strategy.toStdString());
        QVERIFY2(inProcess.failure.empty(), inProcess.failure.c_str());
        QByteArray mlir[2], trace[2], json[2];
        for (int run = 0; run < 2; ++run) {
            const QString tracePath = m_dir.filePath(QString("trace%1.json").arg(run));
            Run p = shardxCli({"propagate", path, "--strategy", strategy, "--trace", tracePath});
            QVERIFY2(p.exitCode == 0, p.err.constData());
            mlir[run] = p.out;
            QFile f(tracePath);
            QVERIFY(f.open(QIODevice::ReadOnly));
            trace[run] = f.readAll();
            Run c = shardxCli({"convert", path, "--to", "json"});
            QVERIFY2(c.exitCode == 0, c.err.constData());
            json[run] = c.out;
        }
        QCOMPARE(mlir[1], mlir[0]);
        QCOMPARE(trace[1], trace[0]);
        QCOMPARE(json[1], json[0]);
        // And the same bytes as the run in this process.
        QCOMPARE(mlir[0].toStdString(), inProcess.mlir);
        QCOMPARE(trace[0].toStdString(), inProcess.trace);
        QCOMPARE(json[0].toStdString(), inProcess.sourceJson);
    }

    void reorderingHelpers()
    {
        // The helper itself, on each kind of brace: dictionaries (nested ones too) are reversed; regions, the
        // dimension shardings inside <...>, sharding rule factor sizes and manual axes stay.
        const std::string in = "module attributes {b = 1, a = 2} {\n"
                               "  %0 = \"x.op\"(%1) <{q = [1, 2], p = \"s,t\"}> {z = {d = 1, c = 2}, y} : (t) -> t\n"
                               "  %2 = x.op %0 {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=8, "
                               "j=4}>, m = #sdy.sharding<@m, [{\"x\", \"y\"}, {}]>} : t\n"
                               "  sdy.manual_computation() manual_axes={\"a\", \"b\"} () {\n";
        const std::string out = "module attributes {a = 2, b = 1} {\n"
                                "  %0 = \"x.op\"(%1) <{p = \"s,t\", q = [1, 2]}> {y, z = {c = 2, d = 1}} : (t) -> t\n"
                                "  %2 = x.op %0 {m = #sdy.sharding<@m, [{\"x\", \"y\"}, {}]>, sdy.sharding_rule = "
                                "#sdy.op_sharding_rule<([i, j])->([i, j]) {i=8, j=4}>} : t\n"
                                "  sdy.manual_computation() manual_axes={\"a\", \"b\"} () {\n";
        QCOMPARE(testing::reverseAttributeDictionaries(in), out);
        QCOMPARE(testing::reverseAttributeDictionaries(out), in);
        QCOMPARE(testing::reverseLocationAliases(
                     "a\n#loc = loc(unknown)\nb\n#loc1 = loc(\"f\":1:2)\n#loc2 = loc(\"n\"(#loc1))\n"),
                 std::string("a\n#loc2 = loc(\"n\"(#loc1))\nb\n#loc1 = loc(\"f\":1:2)\n#loc = loc(unknown)\n"));
    }

    void attributeOrderDoesNotMatter_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<bool>("generic");
        for (const std::string& path : samplePaths())
            for (const PropagationStrategy& s : propagationStrategies())
                for (bool generic : {false, true})
                    QTest::newRow((fs::path(path).stem().string() + " " + s.name + (generic ? " generic" : "")).c_str())
                        << QString::fromStdString(path) << QString(s.name) << generic;
        for (const PropagationStrategy& s : propagationStrategies())
            for (bool generic : {false, true})
                QTest::newRow((std::string("orders ") + s.name + (generic ? " generic" : "")).c_str())
                    << QString() << QString(s.name) << generic;
    }
    void attributeOrderDoesNotMatter()
    {
        QFETCH(QString, path);
        QFETCH(QString, strategy);
        QFETCH(bool, generic);
        std::string text = path.isEmpty() ? std::string(kOrders) : readAll(path.toStdString());
        const std::string name = path.isEmpty() ? std::string("orders.mlir") : path.toStdString();
        if (generic) {
            // The generic form puts inherent attributes in properties dictionaries, <{...}>.
            Session s;
            QVERIFY2(s.openText(text, name), s.diagnostics().formatAll().c_str());
            io::PrintOptions options;
            options.genericForm = true;
            options.printDebugInfo = true;
            text = io::printModule(*s.sourceModule(), options);
            QVERIFY(text.find("<{") != std::string::npos);
        }
        const std::string reversed = testing::reverseAttributeDictionaries(text);
        QVERIFY2(reversed != text, "the input has a dictionary of two entries or more");
        const std::string permuted = testing::reverseLocationAliases(reversed);
        if (reversed.find("\n#loc1 = ") != std::string::npos)
            QVERIFY(permuted != reversed);
        QCOMPARE(permuted.size(), text.size()); // positions of ops and values unchanged
        const Outputs expected = propagate(text, name, strategy.toStdString());
        QVERIFY2(expected.failure.empty(), expected.failure.c_str());
        const std::string why = firstDifference(expected, propagate(permuted, name, strategy.toStdString()));
        QVERIFY2(why.empty(), why.c_str());
    }
};

QTEST_GUILESS_MAIN(TestDeterminism)
#include "tst_determinism.moc"
