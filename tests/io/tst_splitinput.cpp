// Tests of -split-input-file support in core/io: cutting a file on `// -----` lines, joining the parts' outputs as
// mlir-opt does, and positions of every part (parse errors, verifier errors, op locations) as lines of the whole file.
#include <QtTest>

#include "core/io/MlirPrinter.h"
#include "core/io/ModuleLoader.h"
#include "core/io/SplitInput.h"
#include "core/ir/Verifier.h"
#include "tests/TestSupport.h"
#include "tests/io/IoTestSupport.h"

using namespace shardx;

namespace {

/// The parts of `text` as "firstLine:text" strings, for comparing whole lists at once.
QStringList partList(std::string_view text)
{
    QStringList out;
    for (const io::InputPart& p : io::splitInputFile(text))
        out << QString::number(p.firstLine) + ":" + QString::fromUtf8(p.text.data(), static_cast<int>(p.text.size()));
    return out;
}

/// Reads part `index` of `text` as the file `f.mlir`; returns the diagnostics (parse, then verify).
std::string readPart(const std::string& text, size_t index, std::unique_ptr<ir::Module>* keep = nullptr)
{
    std::vector<io::InputPart> parts = io::splitInputFile(text);
    if (index >= parts.size())
        return "<no such part>";
    DiagnosticList diags;
    io::ReadOptions options;
    options.firstLine = parts[index].firstLine;
    std::unique_ptr<ir::Module> m = io::loadModuleText(parts[index].text, "f.mlir", diags, options);
    if (m && !diags.hasErrors())
        ir::verifyModule(*m, diags);
    if (keep)
        *keep = std::move(m);
    return diags.formatAll();
}

const std::string kFunc = "func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                          "  return %arg0 : tensor<8xf32>\n"
                          "}\n";

} // namespace

class TestSplitInput : public QObject {
    Q_OBJECT

private slots:
    void markerLines()
    {
        QVERIFY(io::isSplitMarkerLine("// -----"));
        QVERIFY(io::isSplitMarkerLine("  // -----\t "));
        QVERIFY(io::isSplitMarkerLine("// -----\r")); // a CRLF file
        QVERIFY(!io::isSplitMarkerLine("// ----"));
        QVERIFY(!io::isSplitMarkerLine("// ------"));
        QVERIFY(!io::isSplitMarkerLine("//-----"));
        QVERIFY(!io::isSplitMarkerLine("// ----- next case"));
        QVERIFY(!io::isSplitMarkerLine("return // -----"));
        QVERIFY(!io::isSplitMarkerLine(""));
        QVERIFY(io::hasSplitMarker("a\n  // -----\nb"));
        QVERIFY(!io::hasSplitMarker("a\n// ------\nb // -----\n"));
    }

    void parts_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("no marker") << "a\nb\n" << QStringList{"1:a\nb\n"};
        QTest::newRow("empty file") << "" << QStringList{};
        QTest::newRow("two parts") << "a\n\n// -----\n\nb\n" << QStringList{"1:a\n\n", "4:\nb\n"};
        QTest::newRow("three parts, blanks around the marker")
            << "a\n  // -----  \nb\n\t// -----\r\nc" << QStringList{"1:a\n", "3:b\n", "5:c"};
        QTest::newRow("marker first and last") << "// -----\na\n// -----\n" << QStringList{"1:", "2:a\n", "4:"};
        QTest::newRow("marker at the end without a line break") << "a\n// -----" << QStringList{"1:a\n", "3:"};
        QTest::newRow("two markers in a row") << "a\n// -----\n// -----\nb\n" << QStringList{"1:a\n", "3:", "4:b\n"};
        QTest::newRow("near misses stay in their part") << "a // -----\n// ------\n// ----- x\nb\n"
                                                        << QStringList{"1:a // -----\n// ------\n// ----- x\nb\n"};
    }

    void parts()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, expected);
        const std::string t = text.toStdString();
        QCOMPARE(partList(t), expected);
    }

    void joinsAsMlirOpt()
    {
        // mlir-opt-16 -split-input-file on "A // ----- B(fails) // ----- C" prints A's module and the
        // newline its driver adds, "\n// -----\n", nothing for B, "\n// -----\n", then C's module.
        QCOMPARE(io::joinSplitOutputs({"module {\n}\n", "", "module {\n}\n"}),
                 std::string("module {\n}\n\n\n// -----\n\n// -----\nmodule {\n}\n\n"));
        QCOMPARE(io::joinSplitOutputs({"module {\n}\n"}), std::string("module {\n}\n\n"));
        QCOMPARE(io::joinSplitOutputs({""}), std::string());
        QCOMPARE(io::joinSplitOutputs({}), std::string());
    }

    void errorsCarryTheLineOfTheWholeFile()
    {
        // Line 11 of the file is line 3 of the third part, which starts on line 9.
        const std::string text = kFunc + "// -----\n" + kFunc + "// -----\n" +
                                 "func.func @g(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                                 "  %0 = stablehlo.abs %arg0 : tensor<8xf32>\n"
                                 "  return %0 : tensor<4xf32>\n"
                                 "}\n";
        QCOMPARE(io::splitInputFile(text)[2].firstLine, 9);
        QVERIFY(readPart(text, 0).empty());
        QVERIFY(readPart(text, 1).empty());
        const std::string err = readPart(text, 2);
        QVERIFY2(err.rfind("f.mlir:11:10: error: use of value '%0' expects different type", 0) == 0, err.c_str());
    }

    void verifierErrorsAndLocationsUseTheLineOfTheWholeFile()
    {
        // The verifier reports the op where the parser saw it: the function on line 7 of the file.
        const std::string text = kFunc + "\n// -----\n" + "sdy.mesh @m = <[\"x\"=2]>\n" +
                                 "func.func @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{\"y\"}]>}) -> "
                                 "tensor<8xf32> {\n  return %arg0 : tensor<8xf32>\n}\n";
        const std::string err = readPart(text, 1);
        QVERIFY2(err.rfind("f.mlir:7:1: error:", 0) == 0 && err.find("unknown axis name: \"y\"") != std::string::npos,
                 err.c_str());

        // Printed with -mlir-print-debuginfo, an op without a loc(...) shows its place in the file.
        std::unique_ptr<ir::Module> m;
        QVERIFY(readPart(kFunc + "// -----\n" + kFunc, 1, &m).empty());
        io::PrintOptions debug;
        debug.printDebugInfo = true;
        QVERIFY(testing::has(io::printModule(*m, debug), "return %arg0 : tensor<8xf32> loc(\"f.mlir\":6:3)"));
        QVERIFY(testing::has(io::printModule(*m, debug), "} loc(\"f.mlir\":5:1)"));
    }

    void trailingTextIsAnErrorAtItsLine()
    {
        // A module followed by text that is not MLIR: the error names the line of that text, in a
        // single file and in a part of a split file.
        const std::string module = "module {\n  func.func @f() {\n    return\n  }\n}\n";
        for (const char* trailing : {"this is not mlir\n", "}\n", "%0 = 1\n", "\"quoted\" 12\n"}) {
            Diagnostic d = testing::parseFail(module + trailing);
            QVERIFY2(d.severity == Severity::Error && d.pos.line == 6 && d.pos.col == 1, d.format().c_str());
            QVERIFY2(d.message.find("expected end of file after the top-level module") != std::string::npos,
                     d.format().c_str());
            const std::string err = readPart(kFunc + "// -----\n" + module + trailing + "// -----\n" + kFunc, 1);
            QVERIFY2(err.rfind("f.mlir:10:1: error: expected end of file after the top-level module", 0) == 0,
                     err.c_str());
        }
        // Without a module op, trailing words are ops that do not exist, reported at their line.
        const std::string err = readPart(kFunc + "// -----\n" + kFunc + "garbage here\n", 1);
        QVERIFY2(err.rfind("f.mlir:8:1: error: custom op 'garbage' is unknown", 0) == 0, err.c_str());
    }

    void jsonErrorsUseTheLineOfTheWholeFile()
    {
        DiagnosticList diags;
        io::ReadOptions options;
        options.firstLine = 11;
        QVERIFY(!io::loadModuleText("{\n  \"format\": \"shardx\",,\n}", "d.json", diags, options));
        QVERIFY2(diags.formatAll().rfind("d.json:12:", 0) == 0, diags.formatAll().c_str());
    }
};

QTEST_APPLESS_MAIN(TestSplitInput)
#include "tst_splitinput.moc"
