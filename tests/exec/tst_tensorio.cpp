// Tensor inputs: seeded tensors are reproducible, .npy files round-trip, float formats convert exactly.
#include <QtTest>

#include <QTemporaryDir>

#include "core/exec/TensorIo.h"
#include "tests/TestSupport.h"

using namespace shardx;
using namespace shardx::exec;

class TestTensorIo : public QObject {
    Q_OBJECT

private slots:
    void seededTensorsAreReproducible()
    {
        const auto f32 = *elementTypeFromName("f32");
        Tensor a = randomTensor(f32, {4, 5}, 7);
        Tensor b = randomTensor(f32, {4, 5}, 7);
        Tensor c = randomTensor(f32, {4, 5}, 8);
        QVERIFY(a.bytes() == b.bytes());
        QVERIFY(a.bytes() != c.bytes());
        for (int64_t i = 0; i < a.numElements(); ++i) {
            // Multiples of 1/16 in [-4, 4).
            const double v = a.getFloat(i);
            QVERIFY(v >= -4 && v < 4);
            QCOMPARE(v * 16, std::floor(v * 16));
        }
    }

    void npyRoundTrips()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("t.npy").toStdString();
        Tensor t(*elementTypeFromName("i32"), {2, 3});
        for (int64_t i = 0; i < 6; ++i)
            t.setInt(i, i * 10 - 20);
        QVERIFY(writeNpy(path, t).ok());
        auto back = readNpy(path);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().format().c_str());
        QCOMPARE(back->shape(), (std::vector<int64_t>{2, 3}));
        QCOMPARE(back->elementType().name, std::string("i32"));
        QVERIFY(back->bytes() == t.bytes());
        // A scalar and a vector keep their ranks (NumPy spells them () and (3,)).
        Tensor s(*elementTypeFromName("f64"), {});
        s.setFloat(0, 2.5);
        QVERIFY(writeNpy(path, s).ok());
        QCOMPARE(readNpy(path)->rank(), 0);
        QCOMPARE(readNpy(path)->getFloat(0), 2.5);
        // Not an .npy file: a clear error naming it.
        const std::string junk = dir.filePath("junk.npy").toStdString();
        QFile f(QString::fromStdString(junk));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("hello");
        f.close();
        auto bad = readNpy(junk);
        QVERIFY(!bad.ok());
        QVERIFY(shardx::testing::has(bad.error().format(), "junk.npy"));
    }

    void halfFormatsConvert()
    {
        // f16: 1.0 = 0x3C00, 65504 = 0x7BFF (largest), 2^-24 = 0x0001 (smallest subnormal);
        // 65520 rounds up to infinity (0x7C00). bf16: 1.0 = 0x3F80.
        QCOMPARE(floatToHalf(1.0f), uint16_t(0x3C00));
        QCOMPARE(floatToHalf(65504.0f), uint16_t(0x7BFF));
        QCOMPARE(floatToHalf(std::ldexp(1.0f, -24)), uint16_t(0x0001));
        QCOMPARE(floatToHalf(65520.0f), uint16_t(0x7C00));
        QCOMPARE(halfToFloat(0x3555), 0.333251953125f);
        QCOMPARE(halfToFloat(0x0001), std::ldexp(1.0f, -24));
        QCOMPARE(floatToBf16(1.0f), uint16_t(0x3F80));
        QCOMPARE(bf16ToFloat(0x3EAB), 0.333984375f);
    }
};

QTEST_APPLESS_MAIN(TestTensorIo)
#include "tst_tensorio.moc"
