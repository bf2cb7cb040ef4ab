// Tests of samples/: each one parses, verifies, prints stably and keeps its JAX name-scope locations.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/ir/Verifier.h"

using namespace shardx;
using namespace shardx::ir;
namespace fs = std::filesystem;

namespace {

std::string readSample(const std::string& name)
{
    std::ifstream in(fs::path(SHARDX_SOURCE_DIR) / "samples" / name, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// The first op named `opName` in the module (pre-order), or nullptr.
Op* findOp(Module& m, const std::string& opName)
{
    Op* found = nullptr;
    m.op().walk([&](Op* op) {
        if (!found && op->name() == opName)
            found = op;
    });
    return found;
}

/// Every op's name-scope (`loc("scope/op"(...))`) text, in order.
QStringList nameScopes(Module& m)
{
    QStringList out;
    m.op().walk([&](Op* op) {
        if (!op->loc)
            return;
        if (const auto* loc = op->loc->as<LocationAttr>(); loc && loc->kind == LocationAttr::Kind::Name)
            out << QString::fromStdString(loc->text);
    });
    return out;
}

} // namespace

class TestSamples : public QObject {
    Q_OBJECT

private slots:
    void eachSampleParsesVerifiesAndPrintsStably_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("meshBody");
        QTest::addColumn<QString>("scopedOp"); // an op whose location we check
        QTest::addColumn<QString>("scope");    // its name scope
        QTest::addColumn<QString>("argName");  // loc of %arg0

        QTest::newRow("mlp") << "mlp_dp_tp.mlir"
                             << "<[\"data\"=2, \"model\"=4]>"
                             << "stablehlo.dot_general"
                             << "jit(mlp)/jit(main)/layer_0/dot_general"
                             << "x";
        QTest::newRow("attention") << "attention.mlir"
                                   << "<[\"data\"=2, \"tensor\"=4]>"
                                   << "stablehlo.reduce"
                                   << "jit(attention)/jit(main)/attn/softmax/reduce_max"
                                   << "x";
        QTest::newRow("loop") << "loop_argmax.mlir"
                              << "<[\"data\"=2, \"model\"=4]>"
                              << "stablehlo.tanh"
                              << "jit(classify)/jit(main)/while/body/tanh"
                              << "x";
        QTest::newRow("reshape") << "reshape_subaxes.mlir"
                                 << "<[\"x\"=4, \"y\"=2]>"
                                 << "stablehlo.reshape"
                                 << "jit(split_merge)/jit(main)/split/reshape"
                                 << "tokens";
    }

    void eachSampleParsesVerifiesAndPrintsStably()
    {
        QFETCH(QString, file);
        QFETCH(QString, meshBody);
        QFETCH(QString, scopedOp);
        QFETCH(QString, scope);
        QFETCH(QString, argName);

        std::string text = readSample(file.toStdString());
        QVERIFY2(!text.empty(), qPrintable("missing sample " + file));
        DiagnosticList diags;
        auto m = io::parseMlir(text, file.toStdString(), diags);
        QVERIFY2(m && !diags.hasErrors(), qPrintable(QString::fromStdString(diags.formatAll())));
        QVERIFY2(verifyModule(*m, diags), qPrintable(QString::fromStdString(diags.formatAll())));

        // Module shape as JAX writes it.
        QVERIFY(m->symName().rfind("jit_", 0) == 0);
        const Attribute* parts = m->op().attr("mhlo.num_partitions");
        QVERIFY(parts && parts->as<IntegerAttr>());
        QCOMPARE(parts->as<IntegerAttr>()->value, int64_t(8));
        QCOMPARE(m->meshes().size(), size_t(1));
        const Mesh* mesh = m->findMesh("mesh");
        QVERIFY(mesh);
        QCOMPARE(QString::fromStdString(mesh->toString()), meshBody);
        QCOMPARE(mesh->totalSize(), int64_t(8));
        Op* main = m->findFunc("main");
        QVERIFY(main);
        QVERIFY(findOp(*m, "sdy.sharding_constraint"));
        QVERIFY(funcArgAttrs(*main, 0).size() > 0);
        QVERIFY(findAttr(funcResultAttrs(*main, 0), "jax.result_info"));

        // Name-scope locations survive parsing.
        Op* op = findOp(*m, scopedOp.toStdString());
        QVERIFY(op && op->loc);
        const auto* loc = op->loc->as<LocationAttr>();
        QVERIFY(loc);
        QCOMPARE(int(loc->kind), int(LocationAttr::Kind::Name));
        QCOMPARE(QString::fromStdString(loc->text), scope);
        QCOMPARE(loc->children.size(), size_t(1));
        QVERIFY(loc->children[0]->kind == LocationAttr::Kind::FileLineCol ||
                loc->children[0]->kind == LocationAttr::Kind::CallSite);
        Value* arg0 = main->region(0).front().arg(0);
        QVERIFY(arg0->loc() && arg0->loc()->as<LocationAttr>());
        QCOMPARE(QString::fromStdString(arg0->loc()->as<LocationAttr>()->text), argName);
        QStringList scopes = nameScopes(*m);
        QVERIFY(scopes.size() >= 5);
        for (const QString& s : scopes)
            QVERIFY2(s.startsWith("jit("), qPrintable(s));

        // Print, re-parse, print again: identical, with and without locations.
        for (bool debugInfo : {false, true}) {
            io::PrintOptions opts;
            opts.printDebugInfo = debugInfo;
            std::string printed = io::printModule(*m, opts);
            DiagnosticList d2;
            auto m2 = io::parseMlir(printed, "printed.mlir", d2);
            QVERIFY2(m2 && !d2.hasErrors(), qPrintable(QString::fromStdString(d2.formatAll() + printed)));
            QCOMPARE(io::printModule(*m2, opts), printed);
            QVERIFY(verifyModule(*m2, d2));
            if (debugInfo)
                QCOMPARE(nameScopes(*m2), scopes);
        }
    }

    void mlpPrintsLikeTheSource()
    {
        // The sample is written in the printer's canonical form: without locations, printing
        // it gives back the source minus its loc(...) annotations.
        std::string text = readSample("mlp_dp_tp.mlir");
        DiagnosticList diags;
        auto m = io::parseMlir(text, "mlp_dp_tp.mlir", diags);
        QVERIFY(m);
        QString printed = QString::fromStdString(io::printModule(*m));
        QVERIFY2(printed.contains("sdy.mesh @mesh = <[\"data\"=2, \"model\"=4]>"), qPrintable(printed));
        QVERIFY2(
            printed.contains("%5 = sdy.sharding_constraint %4 <@mesh, [{\"data\"}, {\"model\"}]> : tensor<16x256xf32>"),
            qPrintable(printed));
        QVERIFY2(printed.contains("%0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0]"),
                 qPrintable(printed));
        QVERIFY2(printed.contains("%cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>"), qPrintable(printed));
        QVERIFY(!printed.contains("loc("));
    }
};

QTEST_APPLESS_MAIN(TestSamples)
#include "tst_samples.moc"
