// Tests of the shardx-opt driver as a user runs it: flags, errors, exit codes, output.
#include <QtTest>

#include <QProcess>
#include <QTemporaryDir>

class TestShardxOpt : public QObject {
    Q_OBJECT

private:
    struct Result {
        int exitCode = -1;
        QString out;
        QString err;
    };

    QString tool() const { return QStringLiteral(SHARDX_BINARY_DIR "/app/cli/shardx-opt"); }

    Result run(const QStringList& args, const QByteArray& stdinData = {})
    {
        QProcess p;
        p.start(tool(), args);
        if (!stdinData.isEmpty())
            p.write(stdinData);
        p.closeWriteChannel();
        if (!p.waitForFinished(30000))
            return {};
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }

    QString writeFile(const QString& name, const QByteArray& text)
    {
        QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(text);
        return path;
    }

    QTemporaryDir m_dir;

    static constexpr const char* kValid =
        "sdy.mesh @mesh = <[\"x\"=2, \"y\"=4]>\n"
        "func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>}) -> "
        "tensor<8x8xf32> {\n"
        "  %0 = stablehlo.add %arg0, %arg0 : tensor<8x8xf32>\n"
        "  return %0 : tensor<8x8xf32>\n"
        "}\n";

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFile::exists(tool()), "build shardx-opt first");
    }

    void printsAValidModuleWithTheModuleWrapper()
    {
        QString in = writeFile("valid.mlir", kValid);
        Result r = run({in});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
        QVERIFY(r.out.startsWith("module {\n"));
        QVERIFY(r.out.contains("  sdy.mesh @mesh = <[\"x\"=2, \"y\"=4]>\n"));
        QVERIFY(r.out.contains("%0 = stablehlo.add %arg0, %arg0 : tensor<8x8xf32>"));
        QVERIFY(r.out.contains("return %0 : tensor<8x8xf32>"));
    }

    void readsStandardInputAndWritesAFile()
    {
        QString outPath = m_dir.filePath("out.mlir");
        Result r = run({"-", "-o", outPath}, kValid);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.isEmpty());
        QFile f(outPath);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().startsWith("module {"));
    }

    void unknownPassListsTheKnownOnes()
    {
        QString in = writeFile("valid2.mlir", kValid);
        Result r = run({in, "-no-such-pass"});
        QVERIFY(r.exitCode != 0);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains("unknown pass or option '-no-such-pass'"), qPrintable(r.err));
        QVERIFY(r.err.contains("known passes"));
    }

    void syntaxErrorHasFileLineColumn()
    {
        QString in = writeFile("bad.mlir", "sdy.mesh @mesh = <[\"x\"=2]>\n"
                                           "func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                                           "  %0 = stablehlo.add %arg0, %arg0 : tensor<8xf32\n"
                                           "  return %0 : tensor<8xf32>\n"
                                           "}\n");
        Result r = run({in});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.isEmpty());
        // The error is reported on line 3 or 4 (where the missing '>' is detected).
        QRegularExpression re(QRegularExpression::escape(in) + ":(3|4):[0-9]+: error: ");
        QVERIFY2(re.match(r.err).hasMatch(), qPrintable(r.err));
    }

    void verifierErrorIsReportedAtTheFunction()
    {
        QString in = writeFile("unknown_axis.mlir",
                               "sdy.mesh @mesh = <[\"x\"=2]>\n"
                               "func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"q\"}]>}) "
                               "-> tensor<8xf32> {\n"
                               "  return %arg0 : tensor<8xf32>\n"
                               "}\n");
        Result r = run({in});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(in + ":2:"), qPrintable(r.err));
        QVERIFY(r.err.contains("error:"));
    }

    void missingFileIsAClearError()
    {
        Result r = run({m_dir.filePath("does-not-exist.mlir")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("cannot open input file"));
    }

    void unregisteredDialectNeedsTheFlag()
    {
        QString in = writeFile("foreign.mlir", "func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
                                               "  %0 = \"foo.bar\"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>\n"
                                               "  return %0 : tensor<8xf32>\n"
                                               "}\n");
        Result bad = run({in});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(in + ":2:"), qPrintable(bad.err));
        Result good = run({in, "-allow-unregistered-dialect"});
        QCOMPARE(good.exitCode, 0);
        QVERIFY2(good.out.contains("%0 = \"foo.bar\"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>"), qPrintable(good.out));
    }

    void userRuleFileDrivesPropagation()
    {
        // A custom call the registry knows nothing about gets its rule from a user file: a matmul
        // (i,k),(k,j)->(i,j). Propagation then moves "x" from the lhs rows to the result rows.
        QString rules = writeFile("rules.json", "{\"rules\": [{\"custom_call\": \"my_matmul\", "
                                                "\"rule\": \"(i,k),(k,j)->(i,j) {reduction: k}\"}]}");
        QString in =
            writeFile("custom.mlir",
                      "sdy.mesh @mesh = <[\"x\"=2]>\n"
                      "func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>}, "
                      "%arg1: tensor<4x16xf32>) -> tensor<8x16xf32> {\n"
                      "  %0 = stablehlo.custom_call @my_matmul(%arg0, %arg1) : (tensor<8x4xf32>, "
                      "tensor<4x16xf32>) -> tensor<8x16xf32>\n"
                      "  return %0 : tensor<8x16xf32>\n"
                      "}\n");
        Result r = run({in, "-sdy-populate-op-sharding-rules=custom-rules=" + rules});
        QCOMPARE(r.exitCode, 0);
        // Factors are numbered by first appearance (i, k, j), so k prints as "j" and j as "k".
        QVERIFY2(r.out.contains("sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [j, k])->([i, k]) {i=8, j=4, k=16} "
                                "reduction={j}, custom>"),
                 qPrintable(r.out + r.err));
        Result p = run({in, "-sdy-populate-op-sharding-rules=custom-rules=" + rules, "-sdy-basic-propagate"});
        QCOMPARE(p.exitCode, 0);
        QVERIFY2(p.out.contains("sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\", ?}, {?}]>]>"),
                 qPrintable(p.out + p.err));
        // A malformed rule file is an error naming the file.
        QString bad =
            writeFile("bad.json", "{\"rules\": [{\"custom_call\": \"my_matmul\", \"rule\": \"(i,k),(k,j)->\"}]}");
        Result e = run({in, "-sdy-populate-op-sharding-rules=custom-rules=" + bad});
        QVERIFY(e.exitCode != 0);
        QVERIFY2(e.err.contains("bad.json"), qPrintable(e.err));
    }

    void helpListsDriverFlags()
    {
        Result r = run({"--help"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("-allow-unregistered-dialect"));
    }
};

QTEST_GUILESS_MAIN(TestShardxOpt)
#include "tst_shardxopt.moc"
