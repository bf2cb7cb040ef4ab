// Tests of dense i1 data: the raw forms MLIR's DenseElementsAttr takes for i1 (bit-packed, a splat byte) and one byte
// per element, read, printed as MLIR prints them (true/false, splats, bit-packed hex above 100 elements) and kept
// through JSON documents. Every expected value below is worked out by hand from the bits of the hex digits.
#include <QtTest>

#include "core/io/JsonDocument.h"
#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "tests/TestSupport.h"
#include "tests/io/IoTestSupport.h"

using namespace shardx;

namespace {

/// A module whose function returns `stablehlo.constant LITERAL : TYPE`.
std::string constantModule(const std::string& literal, const std::string& type)
{
    return "func.func @f() -> " + type + " {\n  %c = stablehlo.constant " + literal + " : " + type +
           "\n  return %c : " + type + "\n}\n";
}

/// The printed `dense<...>` of the constant, or the first diagnostic when the module does not read.
std::string printedLiteral(const std::string& literal, const std::string& type)
{
    DiagnosticList diags;
    auto m = io::parseMlir(constantModule(literal, type), "t.mlir", diags);
    if (!m)
        return diags.all().empty() ? std::string("<no module>") : diags.all().front().format();
    const std::string text = io::printModule(*m);
    const size_t begin = text.find("dense<");
    const size_t end = text.find(" : ", begin);
    return begin == std::string::npos ? text : text.substr(begin, end - begin);
}

/// `n` i1 literals, element i true when `pred(i)`.
template <typename Pred> std::string boolList(int n, Pred pred)
{
    std::string s = "[";
    for (int i = 0; i < n; ++i)
        s += std::string(i ? ", " : "") + (pred(i) ? "true" : "false");
    return s + "]";
}

} // namespace

class TestDenseI1 : public QObject {
    Q_OBJECT

private slots:
    void readsEveryRawForm_data()
    {
        QTest::addColumn<QString>("literal");
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("printed");
        auto row = [](const char* name, const char* literal, const char* type, const char* printed) {
            QTest::newRow(name) << literal << type << printed;
        };
        // Bit-packed, ceil(n/8) bytes, element i in bit i % 8 of byte i / 8 (least significant first).
        row("packed 0x01", "dense<\"0x01\">", "tensor<4xi1>", "dense<[true, false, false, false]>");
        row("packed 0x0A", "dense<\"0x0A\">", "tensor<4xi1>", "dense<[false, true, false, true]>");
        row("packed 0x02, one element", "dense<\"0x02\">", "tensor<i1>", "dense<false>"); // bit 0 only
        row("packed 0x0F is all four", "dense<\"0x0F\">", "tensor<4xi1>", "dense<true>");
        // 10 elements in two bytes: 0x03 sets elements 0 and 1, 0x01 sets element 8.
        row("packed 2x5", "dense<\"0x0301\">", "tensor<2x5xi1>",
            "dense<[[true, true, false, false, false], [false, false, false, true, false]]>");
        // One byte 0x00 or 0xFF is a splat, whatever the element count.
        row("splat 0xFF", "dense<\"0xFF\">", "tensor<4xi1>", "dense<true>");
        row("splat 0x00", "dense<\"0x00\">", "tensor<16xi1>", "dense<false>");
        row("splat 0xFF of 16", "dense<\"0xFF\">", "tensor<16xi1>", "dense<true>");
        // One byte per element, each 0x00 or 0x01.
        row("bytes 0x01000000", "dense<\"0x01000000\">", "tensor<4xi1>", "dense<[true, false, false, false]>");
        row("bytes 0x00010001", "dense<\"0x00010001\">", "tensor<4xi1>", "dense<[false, true, false, true]>");
        row("bytes, all equal", "dense<\"0x0101\">", "tensor<2xi1>", "dense<true>");
        row("bytes 2x2", "dense<\"0x01000001\">", "tensor<2x2xi1>", "dense<[[true, false], [false, true]]>");
        // Literal elements, for comparison.
        row("list", "dense<[true, false, true]>", "tensor<3xi1>", "dense<[true, false, true]>");
        row("list all true", "dense<[true, true]>", "tensor<2xi1>", "dense<true>");
        row("integers", "dense<[1, 0]>", "tensor<2xi1>", "dense<[true, false]>");
        // Errors.
        row("two bytes for four", "dense<\"0x0100\">", "tensor<4xi1>",
            "t.mlir:2:33: error: elements hex data size is invalid for provided type: 2 bytes for 4 elements of i1");
        row("one byte for nine", "dense<\"0x01\">", "tensor<9xi1>",
            "t.mlir:2:33: error: elements hex data size is invalid for provided type: 1 bytes for 9 elements of i1");
        row("byte neither 0 nor 1", "dense<\"0x01020000\">", "tensor<4xi1>",
            "t.mlir:2:33: error: i1 element 1 of hex data with one byte per element is neither 0x00 nor 0x01");
    }

    void readsEveryRawForm()
    {
        QFETCH(QString, literal);
        QFETCH(QString, type);
        QFETCH(QString, printed);
        const std::string got = printedLiteral(literal.toStdString(), type.toStdString());
        QVERIFY2(got.rfind(printed.toStdString(), 0) == 0, got.c_str());
    }

    void printsHexAboveOneHundredElementsAsMlir()
    {
        // Elements 0, 3, 6, ... true. At 100 elements MLIR (mlir-opt-16) still prints the list; at
        // 101 the bit-packed bytes: 0x49 = 0b01001001 (elements 0, 3, 6), 0x92 = 0b10010010
        // (9, 12, 15), 0x24 = 0b00100100 (18, 21), repeating every three bytes; the last byte holds
        // elements 96..100: 96 and 99 -> 0x09.
        auto every3 = [](int i) { return i % 3 == 0; };
        QCOMPARE(printedLiteral("dense<" + boolList(100, every3) + ">", "tensor<100xi1>"),
                 "dense<" + boolList(100, every3) + ">");
        const std::string hex = "dense<\"0x49922449922449922449922409\">";
        QCOMPARE(printedLiteral("dense<" + boolList(101, every3) + ">", "tensor<101xi1>"), hex);
        // The hex MLIR prints reads back to the same elements, and so does one byte per element.
        QCOMPARE(printedLiteral(hex, "tensor<101xi1>"), hex);
        std::string bytes = "dense<\"0x";
        for (int i = 0; i < 101; ++i)
            bytes += every3(i) ? "01" : "00";
        QCOMPARE(printedLiteral(bytes + "\">", "tensor<101xi1>"), hex);
        // A splat stays a splat at any size.
        QCOMPARE(printedLiteral("dense<\"0xFF\">", "tensor<200xi1>"), std::string("dense<true>"));
        // A 101-element tensor whose only true element is the last: bit 4 of byte 12.
        QCOMPARE(printedLiteral("dense<" + boolList(101, [](int i) { return i == 100; }) + ">", "tensor<101xi1>"),
                 std::string("dense<\"0x00000000000000000000000010\">"));
    }

    void printedTextReadsBackUnchanged()
    {
        for (const char* literal : {"dense<\"0x0A\">", "dense<\"0x00010001\">", "dense<\"0xFF\">"}) {
            auto m = testing::parseOk(constantModule(literal, "tensor<4xi1>"));
            QVERIFY(m);
            const std::string once = io::printModule(*m);
            auto again = testing::parseOk(once);
            QVERIFY(again);
            QCOMPARE(io::printModule(*again), once);
        }
    }

    void integersWiderThan64Bits()
    {
        // Fuzz finding (fuzz_mlir, UBSan): the bytes of an i72 element past the eighth were made by
        // shifting a 64-bit value by 64 or more. They extend the sign now: -1 is nine 0xFF bytes, 5
        // is 05 and eight zeros.
        DiagnosticList diags;
        auto m = io::parseMlir(constantModule("dense<[-1, 5]>", "tensor<2xi72>"), "t.mlir", diags);
        QVERIFY2(m, diags.formatAll().c_str());
        const ir::DenseElementsAttr* dense = nullptr;
        m->op().walk([&](ir::Op* op) {
            if (const ir::Attribute* a = op->attr("value"))
                dense = a->as<ir::DenseElementsAttr>();
        });
        QVERIFY(dense);
        std::vector<uint8_t> expected(9, 0xFF);
        expected.push_back(5);
        expected.insert(expected.end(), 8, 0);
        QCOMPARE(dense->data, expected);
    }

    void jsonDocumentsKeepTheElements()
    {
        // Bit-packed, byte-per-element and splat forms: the JSON document holds one byte per element
        // and reads back to the same module.
        const std::string text = "func.func @f() -> (tensor<4xi1>, tensor<4xi1>, tensor<101xi1>, tensor<8xi1>) {\n"
                                 "  %0 = stablehlo.constant dense<\"0x01\"> : tensor<4xi1>\n"
                                 "  %1 = stablehlo.constant dense<\"0x00010001\"> : tensor<4xi1>\n"
                                 "  %2 = stablehlo.constant dense<\"0x49922449922449922449922409\"> : tensor<101xi1>\n"
                                 "  %3 = stablehlo.constant dense<\"0xFF\"> : tensor<8xi1>\n"
                                 "  return %0, %1, %2, %3 : tensor<4xi1>, tensor<4xi1>, tensor<101xi1>, tensor<8xi1>\n"
                                 "}\n";
        auto m = testing::parseOk(text);
        QVERIFY(m);
        const std::string json = io::writeJsonDocument(*m);
        QVERIFY(testing::has(json, "\"data\": \"01000000\""));
        QVERIFY(testing::has(json, "\"data\": \"00010001\""));
        QVERIFY(testing::has(json, "\"data\": \"01\",\n"));
        DiagnosticList diags;
        auto back = io::parseJsonDocument(json, "doc.json", diags);
        QVERIFY2(back && !diags.hasErrors(), diags.formatAll().c_str());
        const std::string printed = io::printModule(*back);
        QCOMPARE(printed, io::printModule(*m));
        QVERIFY(testing::has(printed, "dense<[true, false, false, false]> : tensor<4xi1>"));
        QVERIFY(testing::has(printed, "dense<[false, true, false, true]> : tensor<4xi1>"));
        QVERIFY(testing::has(printed, "dense<\"0x49922449922449922449922409\"> : tensor<101xi1>"));
        QVERIFY(testing::has(printed, "dense<true> : tensor<8xi1>"));
        QCOMPARE(io::writeJsonDocument(*back), json);

        // Stored data that is not one byte 0 or 1 per element is an error naming the attribute.
        std::string bad = json;
        bad.replace(bad.find("\"01000000\""), 10, "\"02000000\"");
        diags.clear();
        QVERIFY(!io::parseJsonDocument(bad, "bad.json", diags));
        QVERIFY(testing::has(diags.formatAll(), "/value: data: i1 element 0 is stored as 2"));
        bad = json;
        bad.replace(bad.find("\"01000000\""), 10, "\"0100\"");
        diags.clear();
        QVERIFY(!io::parseJsonDocument(bad, "bad.json", diags));
        QVERIFY(testing::has(diags.formatAll(), "data: 2 bytes of i1 data for 4 elements"));
    }
};

QTEST_APPLESS_MAIN(TestDenseI1)
#include "tst_densei1.moc"
