// Round trip over Shardy's conformance units: parse, print, re-parse gives an equal module.
#include <QtTest>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/ir/Equivalence.h"
#include "core/ir/Verifier.h"
#include "tests/io/IoTestSupport.h"

using namespace shardx;

class TestRoundTrip : public QObject {
    Q_OBJECT

private slots:
    void printedFormsReadBack_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("complex") << "func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xcomplex<f32>> {\n"
                                    "  %0 = \"stablehlo.complex\"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> "
                                    "tensor<4xcomplex<f32>>\n  return %0 : tensor<4xcomplex<f32>>\n}\n";
        QTest::newRow("get_dimension_size")
            << "func.func @f(%d: tensor<4x?xf32>) -> tensor<i32> {\n"
               "  %0 = \"stablehlo.get_dimension_size\"(%d) {dimension = 1 : i64} : (tensor<4x?xf32>) -> tensor<i32>\n"
               "  return %0 : tensor<i32>\n}\n";
        QTest::newRow("f32 rounding") << "func.func @f() -> tensor<2xf32> {\n"
                                         "  %0 = stablehlo.constant dense<[0.9, 1.1]> : tensor<2xf32>\n"
                                         "  return %0 : tensor<2xf32>\n}\n";
        // In the generic form these attributes print in the sdy dialect's short form, #sdy<manual_axes{...}>.
        QTest::newRow("sdy short-form attributes")
            << "sdy.mesh @mesh = <[\"a\"=2, \"b\"=2, \"c\"=2]>\n"
               "func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\", \"b\"}, {}]>}) -> "
               "tensor<8x8xf32> {\n"
               "  %0 = sdy.all_gather [{\"b\"}, {}] %arg0 out_sharding=<@mesh, [{\"a\"}, {}]> : tensor<8x8xf32>\n"
               "  %1 = sdy.all_slice [{}, {\"b\"}] %0 out_sharding=<@mesh, [{\"a\"}, {\"b\"}]> : tensor<8x8xf32>\n"
               "  %2 = sdy.all_to_all [{\"b\"}: 1->0] %1 out_sharding=<@mesh, [{\"a\", \"b\"}, {}]> : tensor<8x8xf32>\n"
               "  %3 = sdy.all_reduce {\"c\"} %2 out_sharding=<@mesh, [{\"a\", \"b\"}, {}]> : tensor<8x8xf32>\n"
               "  %4 = sdy.manual_computation(%3) in_shardings=[<@mesh, [{\"a\"}, {\"b\"}]>] "
               "out_shardings=[<@mesh, [{\"a\"}, {\"b\"}]>] manual_axes={\"a\", \"b\"} (%arg1: tensor<4x4xf32>) {\n"
               "    sdy.return %arg1 : tensor<4x4xf32>\n"
               "  } : (tensor<8x8xf32>) -> tensor<8x8xf32>\n"
               "  return %4 : tensor<8x8xf32>\n}\n";
        QTest::newRow("generic module")
            << "\"builtin.module\"() ({\n  sdy.mesh @mesh = <[\"x\"=2]>\n}) {foo = 1 : i64} "
               ": () -> ()\n";
    }

    void printedFormsReadBack()
    {
        QFETCH(QString, text);
        for (bool generic : {false, true}) {
            DiagnosticList d1;
            auto m1 = io::parseMlir(text.toStdString(), "in.mlir", d1);
            QVERIFY2(m1 && !d1.hasErrors(), d1.formatAll().c_str());
            io::PrintOptions po;
            po.genericForm = generic;
            std::string printed = io::printModule(*m1, po);
            DiagnosticList d2;
            auto m2 = io::parseMlir(printed, "printed.mlir", d2);
            QVERIFY2(m2 && !d2.hasErrors(), (printed + d2.formatAll()).c_str());
            QVERIFY2(ir::verifyModule(*m2, d2), (printed + d2.formatAll()).c_str());
            std::string why;
            QVERIFY2(ir::modulesEquivalent(*m1, *m2, &why), (printed + why).c_str());
            QCOMPARE(io::printModule(*m2, po), printed);
        }
    }

    /// Every piece of every shared unit that parses prints, reads back to an equal module and prints the same
    /// again; every piece that expects no diagnostic parses, and each group keeps its floor of parsed units.
    void everyParsableUnitRoundTrips()
    {
        const std::vector<testing::ConformanceUnit> units = testing::conformanceUnits();
        if (units.empty())
            QSKIP("../shared/conformance is not present");
        int roundTrips = 0;
        QStringList failures;
        std::string summary;
        const QStringList parseProblems = testing::parseConformanceUnits(
            units,
            [&](const testing::UnitPiece& piece, ir::Module& m1) {
                ++roundTrips;
                std::string printed = io::printModule(m1);
                DiagnosticList d2;
                auto m2 = io::parseMlir(printed, "printed", d2, piece.options);
                if (!m2 || d2.hasErrors()) {
                    failures << QString::fromStdString(piece.name + ": printed text does not parse: " + d2.formatAll());
                    return;
                }
                std::string why;
                if (!ir::modulesEquivalent(m1, *m2, &why)) {
                    failures << QString::fromStdString(piece.name + ": " + why);
                    return;
                }
                if (io::printModule(*m2) != printed)
                    failures << QString::fromStdString(piece.name + ": printing is not stable");
            },
            &summary);
        qInfo("%s; %d pieces round-tripped, %lld of them failing", summary.c_str(), roundTrips,
              static_cast<long long>(failures.size()));
        for (const QString& p : parseProblems)
            qWarning("%s", qPrintable(p));
        for (int i = 0; i < std::min<qsizetype>(failures.size(), 20); ++i)
            qWarning("%s", qPrintable(failures[i]));
        QCOMPARE(parseProblems.size(), qsizetype(0));
        QCOMPARE(failures.size(), qsizetype(0));
    }
};

QTEST_APPLESS_MAIN(TestRoundTrip)
#include "tst_roundtrip.moc"
