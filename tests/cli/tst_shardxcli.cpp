// Tests of shardx-cli as a user runs it: generate, check, convert, partition, lint, diff.
#include <QtTest>

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

class TestShardxCli : public QObject {
    Q_OBJECT

private:
    struct Result {
        int exitCode = -1;
        QString out;
        QString err;
    };

    Result run(const QString& tool, const QStringList& args)
    {
        QProcess p;
        p.start(QStringLiteral(SHARDX_BINARY_DIR "/app/cli/") + tool, args);
        p.closeWriteChannel();
        if (!p.waitForFinished(60000))
            return {};
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }

    QString readFile(const QString& path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    }

    QTemporaryDir m_dir;

private slots:
    void partitionAndLintTheMlpSample()
    {
        const QString sample = QStringLiteral(SHARDX_SOURCE_DIR "/samples/mlp_dp_tp.mlir");
        // The per-device program and its one all-reduce (hand-derived in tst_partitionmodel).
        Result text = run("shardx-cli", {"partition", sample});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("all-reduce over {\"model\"} (groups of 4): 2048 B payload, 3072 B sent per device"),
                 qPrintable(text.out + text.err));
        QVERIFY(text.out.contains("\"stablehlo.all_reduce\""));
        QVERIFY(text.out.contains("tensor<8x64xf32>"));
        Result json = run("shardx-cli", {"partition", sample, "--json"});
        QCOMPARE(json.exitCode, 0);
        QVERIFY(json.out.contains("\"format\": \"shardx-partition\""));
        QVERIFY(json.out.contains("\"bytes_sent_per_device\": 3072"));
        // Budgets: exit 1 naming what is over, 0 otherwise, 2 for a bad option.
        Result over = run("shardx-cli", {"lint", sample, "--max-collective-bytes", "1000"});
        QCOMPARE(over.exitCode, 1);
        QVERIFY2(over.out.contains("sends 3072 B per device, over the budget of 1000 B"), qPrintable(over.out));
        QCOMPARE(run("shardx-cli", {"lint", sample, "--max-collective-bytes", "4096"}).exitCode, 0);
        QCOMPARE(run("shardx-cli", {"lint", sample, "--forbid", "all-reduce"}).exitCode, 1);
        QCOMPARE(run("shardx-cli", {"lint", sample, "--forbid", "all-gather"}).exitCode, 0);
        QCOMPARE(run("shardx-cli", {"lint", sample, "--forbid", "all-gathers"}).exitCode, 2);
        QCOMPARE(run("shardx-cli", {"partition", sample, "--cost", "x=1"}).exitCode, 2);
    }

    void partitionListsTheGathersALoopNeeds()
    {
        // A loop carrying a value sharded on both axes of a 2x2 mesh, read whole by its condition (a reduce over all
        // of it) and its body (a reverse): convert-global-to-local gathers it at the start of each, one all-gather
        // of a new leading dimension over x and y (groups of all 4 devices) each: each device's 4x2 f32 block is
        // 32 B, (4-1)*32 = 96 B sent. They are listed with the loop as the op that needs them.
        const QString file = QStringLiteral(SHARDX_SOURCE_DIR "/tests/partition/data/loop_gathers.mlir");
        Result table = run("shardx-cli", {"partition", file, "--no-program"});
        QVERIFY2(table.exitCode == 0, qPrintable(table.out + table.err));
        for (const char* region : {"condition", "body"}) {
            const QString row =
                QStringLiteral("all-gather over {\"x\", \"y\"} (groups of 4): 32 B payload, 96 B sent per "
                               "device, 15 us\n   for %0:2 (stablehlo.while) at line 7\n   why: the while "
                               "loop %0:2 (stablehlo.while) carries %v as <@mesh, [{\"x\"}, {\"y\"}]>, but "
                               "the ops of its ") +
                QLatin1String(region) +
                QStringLiteral(" read it whole: the loop needs it gathered over {\"x\", \"y\"} at the "
                               "start of every iteration");
            QVERIFY2(table.out.contains(row), qPrintable(table.out));
        }
        QVERIFY2(table.out.contains("total: 192 B sent per device"), qPrintable(table.out));
        Result json = run("shardx-cli", {"partition", file, "--json", "--no-program"});
        QCOMPARE(json.exitCode, 0);
        QCOMPARE(json.out.count(QStringLiteral("at the start of every iteration")), 2);
        QVERIFY(json.out.contains("\"bytes_sent_per_device\": 192"));
    }

    void diffComparesTwoPartitions()
    {
        // samples/mlp_dp_tp.mlir against the same program with W2 (%arg3) replicated: W2's shard
        // grows from 64x64 to 256x64 f32 and an all-slice of it appears at %6; the all-reduce is
        // on both sides (hand-derived in tst_partitiondiff).
        const QString sample = QStringLiteral(SHARDX_SOURCE_DIR "/samples/mlp_dp_tp.mlir");
        QString text = readFile(sample);
        const QString annotated = R"(%arg3: tensor<256x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})";
        QCOMPARE(text.count(annotated), 1);
        text.replace(annotated, R"(%arg3: tensor<256x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>})");
        const QString w2 = m_dir.filePath("mlp_w2_replicated.mlir");
        {
            QFile f(w2);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text.toUtf8());
        }
        Result diff = run("shardx-cli", {"diff", sample, w2});
        QCOMPARE(diff.exitCode, 0); // it ran; that the two differ is not an error
        QVERIFY2(
            diff.out.contains(
                R"(%arg3 tensor<256x64xf32>: <@mesh, [{"model"}, {}]> -> <@mesh, [{}, {}]>, 16384 -> 65536 B per device)"),
            qPrintable(diff.out + diff.err));
        QVERIFY(diff.out.contains(R"(+ all-slice over {"model"} (groups of 4) for %6 (stablehlo.dot_general))"));
        QVERIFY(diff.out.contains("bytes sent:       3072 -> 3072 B (0 B)"));
        QVERIFY(diff.out.contains("peak live memory: 37376 -> 86528 B (+49152 B)"));
        const QString out = m_dir.filePath("diff.json");
        QCOMPARE(run("shardx-cli", {"diff", sample, w2, "--json", "-o", out}).exitCode, 0);
        const QString json = readFile(out);
        QVERIFY(json.contains("\"format\": \"shardx-partition-diff\""));
        QVERIFY(json.contains("\"version\": 1"));
        QVERIFY(json.contains("\"identical\": false"));
        // The same file twice: no differences.
        Result same = run("shardx-cli", {"diff", sample, sample});
        QCOMPARE(same.exitCode, 0);
        QVERIFY2(same.out.contains("no differences"), qPrintable(same.out));
        // One file, two strategies.
        Result strategies =
            run("shardx-cli", {"diff", sample, sample, "--strategy-a", "basic", "--strategy-b", "aggressive"});
        QCOMPARE(strategies.exitCode, 0);
        QVERIFY(strategies.out.contains("A: " + sample + " (basic)"));
        QVERIFY(strategies.out.contains("B: " + sample + " (aggressive)"));
        // Errors: a file that does not open is 1; usage errors are 2.
        Result missing = run("shardx-cli", {"diff", sample, m_dir.filePath("nope.mlir")});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY(missing.err.contains("cannot open input file"));
        QCOMPARE(run("shardx-cli", {"diff", sample}).exitCode, 2);
        QCOMPARE(run("shardx-cli", {"diff", sample, sample, "--strategy-b", "fastest"}).exitCode, 2);
        QCOMPARE(run("shardx-cli", {"diff", sample, sample, "--cost", "x=1"}).exitCode, 2);
        QVERIFY(run("shardx-cli", {"--help"}).out.contains("diff A B"));
    }

    void generatedTransformerIsValidAndDeterministic()
    {
        QString a = m_dir.filePath("a.mlir"), b = m_dir.filePath("b.mlir");
        QStringList args = {
            "generate", "transformer",  "--layers", "3",       "--hidden", "32",     "--heads",
            "4",        "--seq",        "8",        "--batch", "4",        "--mesh", "data=2,fsdp=2,tensor=2",
            "--style",  "fsdp+megatron"};
        QCOMPARE(run("shardx-cli", args + QStringList{"-o", a}).exitCode, 0);
        QCOMPARE(run("shardx-cli", args + QStringList{"-o", b}).exitCode, 0);
        QString text = readFile(a);
        QCOMPARE(text, readFile(b));
        // JAX-style structure: named parameters, per-layer name scopes, annotations per style.
        QVERIFY(text.contains("sdy.mesh @mesh = <[\"data\"=2, \"fsdp\"=2, \"tensor\"=2]>"));
        QVERIFY(text.contains("loc(\"params/layer_2/mlp/wi\")"));
        QVERIFY(text.contains("jit(transformer)/jit(main)/layer_1/attn/softmax/reduce_max"));
        QVERIFY(text.contains("#sdy.sharding<@mesh, [{\"fsdp\"}, {\"tensor\"}]>"));
        QVERIFY(text.contains("#sdy.sharding<@mesh, [{\"tensor\"}, {\"fsdp\"}]>"));
        QVERIFY(text.contains("sdy.sharding_constraint"));

        Result check = run("shardx-cli", {"check", a});
        QCOMPARE(check.exitCode, 0);
        QVERIFY2(check.out.contains(": ok (1 meshes, 1 functions,"), qPrintable(check.out + check.err));
        // shardx-opt accepts it too.
        Result opt = run("shardx-opt", {a});
        QCOMPARE(opt.exitCode, 0);
        QVERIFY(opt.err.isEmpty());
    }

    void stylesChangeTheAnnotations()
    {
        QString dp = m_dir.filePath("dp.mlir"), meg = m_dir.filePath("meg.mlir");
        QCOMPARE(run("shardx-cli", {"generate", "transformer", "--layers", "1", "--style", "dp", "-o", dp}).exitCode,
                 0);
        QCOMPARE(
            run("shardx-cli", {"generate", "transformer", "--layers", "1", "--style", "megatron", "-o", meg}).exitCode,
            0);
        QString d = readFile(dp), m = readFile(meg);
        QVERIFY(d.contains("[{\"data\", \"fsdp\"}, {}, {}]")); // batch over every data-like axis
        QVERIFY(!d.contains("{\"tensor\"}"));
        QVERIFY(m.contains("[{}, {\"tensor\"}]")); // column-parallel projections
        QVERIFY(m.contains("[{\"tensor\"}, {}]")); // row-parallel projections
    }

    void badGeneratorOptionsAreClearErrors()
    {
        Result r = run("shardx-cli", {"generate", "transformer", "--hidden", "30", "--heads", "4"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("divisible"));
        r = run("shardx-cli", {"generate", "transformer", "--mesh", "data=0"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("at least 1"));
        r = run("shardx-cli", {"generate", "transformer", "--style", "zero3"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("unknown sharding style"));
    }

    void convertRoundTripsThroughJson()
    {
        QString src = m_dir.filePath("src.mlir"), json = m_dir.filePath("doc.json"), back = m_dir.filePath("back.mlir");
        QCOMPARE(run("shardx-cli", {"generate", "transformer", "--layers", "1", "-o", src}).exitCode, 0);
        QCOMPARE(run("shardx-cli", {"convert", src, "--to", "json", "-o", json}).exitCode, 0);
        QVERIFY(readFile(json).contains("\"format\": \"shardx\""));
        QCOMPARE(run("shardx-cli", {"convert", json, "--to", "mlir", "-o", back}).exitCode, 0);
        Result direct = run("shardx-opt", {src});
        // shardx-opt adds the newline mlir-opt's driver writes after the module.
        QCOMPARE(readFile(back) + "\n", direct.out);
        // shardx-opt reads the JSON document directly as well.
        QCOMPARE(run("shardx-opt", {json}).out, direct.out);
    }

    void propagateShardsTheMlpSample()
    {
        // samples/mlp_dp_tp.mlir: x [{"data"}, {}] times w1 [{}, {"model"}]: the hidden activation is
        // sharded on both axes (batch on "data", the non-contracting dim of w1 on "model").
        QString sample = QStringLiteral(SHARDX_SOURCE_DIR "/samples/mlp_dp_tp.mlir");
        for (const char* strategy : {"basic", "aggressive", "op-priority", "user-priority", "pipeline"}) {
            Result r = run("shardx-cli", {"propagate", sample, "--strategy", strategy});
            QVERIFY2(r.exitCode == 0, qPrintable(QString(strategy) + ": " + r.err));
            QVERIFY2(r.out.contains("stablehlo.dot_general %arg0, %arg1") &&
                         r.out.contains("<@mesh, [{\"data\"}, {\"model\"}]>"),
                     qPrintable(QString(strategy) + "\n" + r.out));
        }
        Result bad = run("shardx-cli", {"propagate", sample, "--strategy", "magic"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("unknown strategy"));
    }

    void propagationTraceIsRecordedPrintedAndSeekable()
    {
        QString sample = QStringLiteral(SHARDX_SOURCE_DIR "/samples/mlp_dp_tp.mlir");
        QString trace = m_dir.filePath("trace.json"), trace2 = m_dir.filePath("trace2.json");
        Result r = run("shardx-cli", {"propagate", sample, "--strategy", "aggressive", "--trace", trace});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        // Recording does not change the result, and the trace is deterministic.
        Result plain = run("shardx-cli", {"propagate", sample, "--strategy", "aggressive"});
        QCOMPARE(r.out, plain.out);
        QCOMPARE(run("shardx-cli", {"propagate", sample, "--strategy", "aggressive", "--trace", trace2}).exitCode, 0);
        QCOMPARE(readFile(trace), readFile(trace2));
        QVERIFY(readFile(trace).contains("\"format\": \"shardx-trace\""));

        Result printed = run("shardx-cli", {"trace", "print", trace});
        QCOMPARE(printed.exitCode, 0);
        QVERIFY(printed.out.startsWith("shardx-trace v3: "));
        QVERIFY(printed.out.contains("pass sdy-aggressive-propagate"));

        // Before any step %0 (the first dot) has no sharding; after the last it has the final one.
        Result first = run("shardx-cli", {"trace", "seek", trace, "0", "--value", "%0"});
        QCOMPARE(first.exitCode, 0);
        QVERIFY2(first.out.contains("(%0): <no sharding>"), qPrintable(first.out));
        QRegularExpression header("of (\\d+)\n");
        int total = header.match(first.out).captured(1).toInt();
        QVERIFY(total > 0);
        Result last = run("shardx-cli", {"trace", "seek", trace, QString::number(total), "--value", "%0"});
        QVERIFY2(last.out.contains("(%0): <@mesh, [{\"data\", ?}, {\"model\", ?}]>"), qPrintable(last.out));
        QCOMPARE(run("shardx-cli", {"trace", "seek", trace, QString::number(total + 1)}).exitCode, 2);
    }

    void binaryTraceIsStreamedSeekableAndExported()
    {
        // --trace without .json writes the binary trace; seek, print and export read it and give
        // what the JSON trace gives.
        QString sample = QStringLiteral(SHARDX_SOURCE_DIR "/samples/attention.mlir");
        QString json = m_dir.filePath("bt.json"), bin = m_dir.filePath("bt.shxtrace"),
                exported = m_dir.filePath("bt.exported.json"), back = m_dir.filePath("bt.back");
        Result r = run("shardx-cli", {"propagate", sample, "--strategy", "pipeline", "--trace", json});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        Result rb = run("shardx-cli", {"propagate", sample, "--strategy", "pipeline", "--trace", bin});
        QVERIFY2(rb.exitCode == 0, qPrintable(rb.err));
        QCOMPARE(rb.out, r.out);
        auto bytes = [](const QString& path) {
            QFile file(path);
            return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        };
        QVERIFY(bytes(bin).startsWith("SHXTRACE"));
        QVERIFY(bytes(bin).size() < bytes(json).size());

        QCOMPARE(run("shardx-cli", {"trace", "export", "--json", bin, exported}).exitCode, 0);
        QCOMPARE(readFile(exported), readFile(json));
        QCOMPARE(run("shardx-cli", {"trace", "export", "--binary", json, back}).exitCode, 0);
        QVERIFY(bytes(back).startsWith("SHXTRACE"));
        QCOMPARE(run("shardx-cli", {"trace", "export", "--json", back, exported}).exitCode, 0);
        QCOMPARE(readFile(exported), readFile(json));
        QCOMPARE(run("shardx-cli", {"trace", "print", bin}).out, run("shardx-cli", {"trace", "print", json}).out);

        Result first = run("shardx-cli", {"trace", "seek", json, "0"});
        const int total = QRegularExpression("of (\\d+)\n").match(first.out).captured(1).toInt();
        QVERIFY(total > 2);
        for (int step : {0, 1, total / 2, total - 1, total}) {
            Result a = run("shardx-cli", {"trace", "seek", json, QString::number(step)});
            Result b = run("shardx-cli", {"trace", "seek", bin, QString::number(step)});
            QCOMPARE(a.exitCode, 0);
            QCOMPARE(b.out, a.out);
            Result av = run("shardx-cli", {"trace", "seek", json, QString::number(step), "--value", "%arg0"});
            Result bv = run("shardx-cli", {"trace", "seek", bin, QString::number(step), "--value", "%arg0"});
            QCOMPARE(bv.out, av.out);
        }
        QCOMPARE(run("shardx-cli", {"trace", "seek", bin, QString::number(total + 1)}).exitCode, 2);

        // A truncated binary trace is an error that names the file and the offset.
        QFile f(bin);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.resize(f.size() - 5));
        f.close();
        for (const char* verb : {"print", "seek"}) {
            QStringList a = {"trace", verb, bin};
            if (QByteArray(verb) == "seek")
                a << "1";
            Result t = run("shardx-cli", a);
            QCOMPARE(t.exitCode, 1);
            QVERIFY2(t.err.contains(bin + ": error: offset ") && t.err.contains("truncated"), qPrintable(t.err));
        }
    }

    void explainSaysWhyAndWhyNot()
    {
        // dot(lhs [{"a"}, {}], rhs [{}, {"a"}]): factors i (lhs rows) and j (rhs columns) both want
        // "a". Basic propagation drops it for the result (conflict across factors); aggressive
        // propagation prefers the larger tensor, rhs (16x32 = 512 > 8x16 = 128), so the result
        // columns get "a".
        QString in = m_dir.filePath("dot.mlir");
        QFile f(in);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("sdy.mesh @mesh = <[\"a\"=2, \"b\"=2]>\n"
                "func.func @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"a\"}, {}]>}, "
                "%arg1: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"a\"}]>}) -> tensor<8x32xf32> {\n"
                "  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, "
                "tensor<16x32xf32>) -> tensor<8x32xf32>\n"
                "  return %0 : tensor<8x32xf32>\n}\n");
        f.close();
        Result basic = run("shardx-cli", {"explain", in, "@main:%0", "--strategy", "basic"});
        QVERIFY2(basic.exitCode == 0, qPrintable(basic.err));
        QVERIFY2(basic.out.contains("why not \"a\"") &&
                     basic.out.contains("already used by factor j of operand 1 (%arg1)"),
                 qPrintable(basic.out));
        Result aggressive = run("shardx-cli", {"explain", in, "@main:%0", "--strategy", "aggressive", "--json"});
        QVERIFY2(aggressive.exitCode == 0, qPrintable(aggressive.err));
        QVERIFY2(aggressive.out.contains("\"dim\": 1") && aggressive.out.contains("operand 1 (%arg1) (size 512"),
                 qPrintable(aggressive.out));
        Result unknown = run("shardx-cli", {"explain", in, "@main:%7"});
        QCOMPARE(unknown.exitCode, 1);
        QVERIFY(unknown.err.contains("no value '@main:%7'"));
    }

    void checkReportsEveryBrokenFile()
    {
        QString bad = m_dir.filePath("bad.mlir");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("sdy.mesh @m = <[\"x\"=2]>\nfunc.func @f(%arg0: tensor<8xf32> {sdy.sharding = "
                "#sdy.sharding<@m, [{\"y\"}]>}) -> tensor<8xf32> {\n  return %arg0 : tensor<8xf32>\n}\n");
        f.close();
        Result r = run("shardx-cli", {"check", bad, m_dir.filePath("missing.mlir")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(bad + ":2:"), qPrintable(r.err));
        QVERIFY(r.err.contains("cannot open input file"));
    }

    void splitFilesGiveOneResultPerPart()
    {
        // Three parts in the way mlir-opt -split-input-file reads them; the second names an axis
        // its mesh does not have (the function on line 8 of the file).
        const QByteArray part =
            "sdy.mesh @mesh = <[\"x\"=2]>\n"
            "func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}]>}) "
            "-> tensor<8xf32> {\n"
            "  %0 = stablehlo.abs %arg0 : tensor<8xf32>\n"
            "  return %0 : tensor<8xf32>\n"
            "}\n";
        QByteArray broken = part;
        broken.replace("[{\"x\"}]>}) ->", "[{\"q\"}]>}) ->");
        QString in = m_dir.filePath("split.mlir");
        QFile f(in);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(part + "// -----\n" + broken + "  // -----\n" + part);
        f.close();

        Result check = run("shardx-cli", {"check", in});
        QCOMPARE(check.exitCode, 1);
        QCOMPARE(check.out, in + " (part 1, line 1): ok (1 meshes, 1 functions, 4 ops)\n" + in +
                                " (part 3, line 13): ok (1 meshes, 1 functions, 4 ops)\n");
        QVERIFY2(check.err.startsWith(in + ":8:1: error:") && check.err.contains("unknown axis name: \"q\""),
                 qPrintable(check.err));
        // Read whole, the markers are comments and the two @main collide.
        Result whole = run("shardx-cli", {"check", in, "--no-split-input-file"});
        QCOMPARE(whole.exitCode, 1);
        QVERIFY(whole.out.isEmpty());

        // propagate: the parts' outputs joined as shardx-opt -split-input-file joins them, one trace
        // per part that propagated (TRACE.partN.json), none for the part that failed.
        QString trace = m_dir.filePath("split-trace.json");
        Result prop = run("shardx-cli", {"propagate", in, "--strategy", "basic", "--trace", trace});
        QCOMPARE(prop.exitCode, 1);
        Result opt = run("shardx-opt", {in, "-split-input-file", "-sdy-basic-propagate"});
        QCOMPARE(opt.exitCode, 1);
        QCOMPARE(prop.out, opt.out);
        QCOMPARE(prop.out.count("\n// -----\n"), 2);
        QCOMPARE(
            prop.out.count("stablehlo.abs %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\", ?}]>]>}"), 2);
        QVERIFY(!QFile::exists(trace));
        QVERIFY(!QFile::exists(m_dir.filePath("split-trace.part2.json")));
        for (const char* name : {"split-trace.part1.json", "split-trace.part3.json"}) {
            Result printed = run("shardx-cli", {"trace", "print", m_dir.filePath(name)});
            QVERIFY2(printed.exitCode == 0 && printed.out.startsWith("shardx-trace v3: "), name);
        }

        // explain and convert work on one module: --part picks it.
        Result ambiguous = run("shardx-cli", {"explain", in, "%0"});
        QCOMPARE(ambiguous.exitCode, 1);
        QVERIFY2(ambiguous.err.contains("holds 3 parts") && ambiguous.err.contains("--part N"),
                 qPrintable(ambiguous.err));
        Result explained = run("shardx-cli", {"explain", in, "%0", "--part", "3", "--strategy", "basic"});
        QVERIFY2(explained.exitCode == 0 && explained.out.contains("after propagation:  <@mesh, [{\"x\", ?}]>"),
                 qPrintable(explained.out + explained.err));
        QCOMPARE(run("shardx-cli", {"explain", in, "%0", "--part", "4"}).exitCode, 1);
        Result converted = run("shardx-cli", {"convert", in, "--to", "mlir", "--part", "2"});
        QCOMPARE(converted.exitCode, 1);
        QVERIFY2(converted.err.startsWith(in + ":8:1: error:"), qPrintable(converted.err));
    }
};

QTEST_GUILESS_MAIN(TestShardxCli)
#include "tst_shardxcli.moc"
