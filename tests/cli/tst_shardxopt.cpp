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
        // As mlir-opt: the module, then the newline its driver writes after it.
        QVERIFY(r.out.endsWith("  }\n}\n\n"));
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

    void splitInputFileProcessesEachPart()
    {
        // Three parts; the second uses an op of an unknown dialect (line 8 of the file). The
        // expected output is what mlir-opt-16 -split-input-file prints for this file, byte for
        // byte: each module with the newline the driver adds, `\n// -----\n` between parts and
        // nothing for the part that failed; exit status 1 because one part failed.
        QString in = writeFile("split.mlir", "func.func @a() {\n"
                                             "  return\n"
                                             "}\n"
                                             "\n"
                                             "// -----\n"
                                             "\n"
                                             "func.func @b(%x: i32) -> i32 {\n"
                                             "  \"foo.bar\"() : () -> ()\n"
                                             "  return %x : i32\n"
                                             "}\n"
                                             "\n"
                                             "  // -----  \n"
                                             "func.func @c() {\n"
                                             "  return\n"
                                             "}\n");
        const QString a = "module {\n  func.func @a() {\n    return\n  }\n}\n\n";
        const QString b = "module {\n  func.func @b(%arg0: i32) -> i32 {\n    \"foo.bar\"() : () -> ()\n    return "
                          "%arg0 : i32\n  }\n}\n\n";
        const QString c = "module {\n  func.func @c() {\n    return\n  }\n}\n\n";
        const QString marker = "\n// -----\n";
        Result r = run({"-split-input-file", in});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.out, a + marker + marker + c);
        // The error names the file and the line in the whole file, not in the part.
        QVERIFY2(r.err.startsWith(in + ":8:3: error: unregistered operation 'foo.bar'"), qPrintable(r.err));
        QCOMPARE(r.err.count("error:"), 1);

        Result ok = run({"-split-input-file", "-allow-unregistered-dialect", in});
        QCOMPARE(ok.exitCode, 0);
        QVERIFY2(ok.err.isEmpty(), qPrintable(ok.err));
        QCOMPARE(ok.out, a + marker + b + marker + c);
        // Without the flag the markers are comments: one module, which fails as a whole.
        Result whole = run({in});
        QCOMPARE(whole.exitCode, 1);
        QVERIFY(whole.out.isEmpty());
        QVERIFY2(whole.err.startsWith(in + ":8:3: error:"), qPrintable(whole.err));
        // -o writes the joined output.
        QString outPath = m_dir.filePath("split-out.mlir");
        QCOMPARE(run({"-split-input-file", "-allow-unregistered-dialect", in, "-o", outPath}).exitCode, 0);
        QFile f(outPath);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(f.readAll()), ok.out);
    }

    void splitPartsAreSeparateModulesRunThroughThePasses()
    {
        // Both parts define @mesh and @main: legal only as separate modules. Each part is verified
        // and propagated on its own; a verifier error is reported at its line in the whole file.
        const QByteArray part =
            "sdy.mesh @mesh = <[\"x\"=2]>\n"
            "func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}]>}) "
            "-> tensor<8xf32> {\n"
            "  %0 = stablehlo.abs %arg0 : tensor<8xf32>\n"
            "  return %0 : tensor<8xf32>\n"
            "}\n";
        QString in = writeFile("split2.mlir", part + "// -----\n" + part);
        Result r = run({in, "--split-input-file", "-sdy-basic-propagate"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
        QCOMPARE(r.out.count("// -----"), 1);
        QCOMPARE(
            r.out.count("%0 = stablehlo.abs %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\", ?}]>]>}"),
            2);
        QVERIFY(run({in}).exitCode != 0);

        QByteArray broken = part;
        broken.replace("[{\"x\"}]>}) ->", "[{\"q\"}]>}) ->");
        QString in2 = writeFile("split3.mlir", part + "// -----\n" + broken);
        Result e = run({in2, "-split-input-file"});
        QCOMPARE(e.exitCode, 1);
        QVERIFY2(e.err.startsWith(in2 + ":8:1: error:") && e.err.contains("unknown axis name"), qPrintable(e.err));
        QVERIFY(e.out.endsWith("}\n\n\n// -----\n"));
    }

    void trailingTextIsAnErrorAtItsLine()
    {
        // A module followed by text that is not MLIR: an error at the line of that text, alone and as
        // the second part of a split file (line 9 of the file); the other parts are still printed.
        const QByteArray module = "module {\n  func.func @f() {\n    return\n  }\n}\n";
        QString in = writeFile("trailing.mlir", module + "this is not mlir\n");
        Result r = run({in});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.startsWith(in + ":6:1: error: expected end of file after the top-level module, found 'this'"),
                 qPrintable(r.err));
        QString split =
            writeFile("trailing-split.mlir", "func.func @g() {\n  return\n}\n// -----\n" + module +
                                                 "this is not mlir\n// -----\nfunc.func @h() {\n  return\n}\n");
        Result s = run({"-split-input-file", split});
        QCOMPARE(s.exitCode, 1);
        QVERIFY2(s.err.startsWith(split + ":10:1: error: expected end of file after the top-level module"),
                 qPrintable(s.err));
        QVERIFY(s.out.contains("func.func @g()") && s.out.contains("func.func @h()"));
        QVERIFY(s.out.contains("\n// -----\n\n// -----\n"));
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
