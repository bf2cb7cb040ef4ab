// shardx-cli interpret as a user runs it: exit status, check failures and errors at FILE:LINE:COL.
#include <QRegularExpression>
#include <QtTest>

#include <QProcess>
#include <QTemporaryDir>

#include "core/exec/TensorIo.h"

class TestInterpretCli : public QObject {
    Q_OBJECT

private:
    struct Result {
        int exitCode = -1;
        QString out;
        QString err;
    };

    Result interpret(const QStringList& args)
    {
        QProcess p;
        p.start(QStringLiteral(SHARDX_BINARY_DIR "/app/cli/shardx-cli"), QStringList{"interpret"} + args);
        p.closeWriteChannel();
        if (!p.waitForFinished(60000))
            return {};
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }

    QString write(const QString& name, const QString& text)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (f.open(QIODevice::WriteOnly))
            f.write(text.toUtf8());
        return path;
    }

    QTemporaryDir m_dir;

private slots:
    void aGridThatMatchesPasses()
    {
        const QString file = QStringLiteral(SHARDX_SOURCE_DIR "/tests/exec/data/grid_checks.mlir");
        Result r = interpret({file});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains("5 checks passed"), qPrintable(r.out));
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    }

    void timingsHaveATablePerProcess()
    {
        const QString file = QStringLiteral(SHARDX_SOURCE_DIR "/tests/exec/data/grid_checks.mlir");
        Result r = interpret({file, "--timings"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.startsWith("5 checks passed\n"), qPrintable(r.out));
        // @main (its iota, slices, call and checks) outside the grid, then each of the 1x4 grid's processes: a
        // reduce and an all_reduce each, once.
        QVERIFY2(r.out.contains("timings of outside run_parallel (reference; host timers around each op):"),
                 qPrintable(r.out));
        for (int d = 0; d < 4; ++d)
            QVERIFY2(r.out.contains(QStringLiteral("timings of device %1 (reference;").arg(d)), qPrintable(r.out));
        QCOMPARE(r.out.count(QRegularExpression(
                     "stablehlo\\.all_reduce \\(collective\\) +\\S+grid_checks\\.mlir:\\d+:\\d+ +cpu +1 ")),
                 4);
        // The callee's reduce runs in @main's process; check ops are timed too.
        QVERIFY2(r.out.contains(QRegularExpression("check\\.expect")), qPrintable(r.out));
        QVERIFY(!r.out.contains("func.call") && !r.out.contains("interpreter.run_parallel "));
    }

    void anEmptyMainPasses()
    {
        Result r = interpret({write("empty.mlir", "func.func @main() {\n  return\n}\n")});
        QCOMPARE(r.exitCode, 0);
    }

    void aFailedCheckNamesItsLocation()
    {
        // 2 + 2 = 4: the first check holds, the second (line 5, column 3) compares 4 with 2.
        const QString path = write(
            "fail.mlir", "func.func @main() {\n"
                         "  %a = stablehlo.constant dense<2> : tensor<i32>\n"
                         "  %b = stablehlo.add %a, %a : tensor<i32>\n"
                         "  \"check.expect_eq_const\"(%b) {value = dense<4> : tensor<i32>} : (tensor<i32>) -> ()\n"
                         "  \"check.expect_eq\"(%b, %a) : (tensor<i32>, tensor<i32>) -> ()\n"
                         "  return\n"
                         "}\n");
        Result r = interpret({path});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(path + ":5:3: error:"), qPrintable(r.err));
        QVERIFY2(r.err.contains("4 vs 2"), qPrintable(r.err));
    }

    void anUnsupportedOpIsAnError()
    {
        const QString path = write("unsupported.mlir", "func.func @main() {\n"
                                                       "  %a = stablehlo.constant dense<2.0> : tensor<2x2xf32>\n"
                                                       "  %b = \"stablehlo.cholesky\"(%a) : (tensor<2x2xf32>) -> "
                                                       "tensor<2x2xf32>\n"
                                                       "  return\n"
                                                       "}\n");
        Result r = interpret({path});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(path + ":3:"), qPrintable(r.err));
        QVERIFY2(r.err.contains("error:") && r.err.contains("stablehlo.cholesky"), qPrintable(r.err));
    }

    void anEntryWithParametersRunsOnNpyOrSeededInputs()
    {
        const QString path = write("double.mlir", "func.func @twice(%a: tensor<3xi32>) -> tensor<3xi32> {\n"
                                                  "  %0 = stablehlo.add %a, %a : tensor<3xi32>\n"
                                                  "  return %0 : tensor<3xi32>\n"
                                                  "}\n");
        // [1, -2, 7] doubled is [2, -4, 14], printed and written as result0.npy.
        shardx::exec::Tensor in(*shardx::exec::elementTypeFromName("i32"), {3});
        in.setInt(0, 1);
        in.setInt(1, -2);
        in.setInt(2, 7);
        const QString npy = m_dir.filePath("in.npy");
        QVERIFY(shardx::exec::writeNpy(npy.toStdString(), in).ok());
        Result r = interpret({path, "--entry", "twice", "--inputs", npy, "--save-results", m_dir.path()});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("result 0: tensor<3xi32> [2, -4, 14]"), qPrintable(r.out));
        auto back = shardx::exec::readNpy(m_dir.filePath("result0.npy").toStdString());
        QVERIFY(back.ok());
        QCOMPARE(back->getInt(2), int64_t(14));
        // Seeded inputs: the same seed gives the same output, twice.
        Result a = interpret({path, "--entry", "twice", "--seed", "5"});
        Result b = interpret({path, "--entry", "twice", "--seed", "5"});
        QCOMPARE(a.exitCode, 0);
        QCOMPARE(a.out, b.out);
        // An input of the wrong shape is refused.
        shardx::exec::Tensor wrong(*shardx::exec::elementTypeFromName("i32"), {4});
        QVERIFY(shardx::exec::writeNpy(npy.toStdString(), wrong).ok());
        Result bad = interpret({path, "--entry", "twice", "--inputs", npy});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains("tensor<4xi32>"), qPrintable(bad.err));
    }

    void aMalformedFileIsAnError()
    {
        Result r = interpret({write("bad.mlir", "func.func @main() {\n  %a = stablehlo.constant dense<2> : \n")});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("bad.mlir:"), qPrintable(r.err));
        QCOMPARE(interpret({m_dir.filePath("missing.mlir")}).exitCode, 2);
    }
};

QTEST_APPLESS_MAIN(TestInterpretCli)
#include "tst_interpretcli.moc"
