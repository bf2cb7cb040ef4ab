// Tests of `shardx-cli annotate` on the MLP sample and its rule file, samples/mlp_rules.json.
#include <QtTest>

#include <QProcess>
#include <QTemporaryDir>

class TestAnnotateCli : public QObject {
    Q_OBJECT

private:
    struct Result {
        int exitCode = -1;
        QString out;
        QString err;
    };

    Result cli(const QStringList& args)
    {
        QProcess p;
        p.start(QStringLiteral(SHARDX_BINARY_DIR "/app/cli/shardx-cli"), args);
        p.closeWriteChannel();
        if (!p.waitForFinished(60000))
            return {};
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }

    const QString m_mlp = QStringLiteral(SHARDX_SOURCE_DIR "/samples/mlp_dp_tp.mlir");
    const QString m_rules = QStringLiteral(SHARDX_SOURCE_DIR "/samples/mlp_rules.json");
    QTemporaryDir m_dir;

private slots:
    void annotatePropagateAndExplain()
    {
        // The rules give the sample's own shardings (8 partitions: [2, -1] = data=2, model=4, the
        // module's mesh): x -> P('data') (pattern 0), layer_0/w -> P(None, 'model'), layer_0/b ->
        // P('model'), layer_1/w -> P('model', None) (patterns 1-3), layer_1/b -> the policy's
        // rank-1 '/b$' entry, P(None).
        const QString out = m_dir.filePath("annotated.mlir");
        Result r = cli({"annotate", m_mlp, "--rules", m_rules, "--propagate", "-o", out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        for (const char* line :
             {"mesh @mesh = <[\"data\"=2, \"model\"=4]> (the module's)",
              "@main %arg0 x tensor<16x64xf32>: P('data') <@mesh, [{\"data\"}, {}]> (tree_path rule /rules/0: "
              "pattern 0 '^x$')",
              "@main %arg1 params/layer_0/w tensor<64x256xf32>: P(None, 'model')",
              "@main %arg2 params/layer_0/b tensor<256xf32>: P('model')",
              "@main %arg3 params/layer_1/w tensor<256x64xf32>: P('model', None)",
              "@main %arg4 params/layer_1/b tensor<64xf32>: P(None) <@mesh, [{}]> (policy rule /rules/1: entry 0)"})
            QVERIFY2(r.err.contains(QString::fromUtf8(line)), qPrintable(QString::fromUtf8(line) + "\n" + r.err));
        // Propagated: the first layer's output is sharded on data and model, and explain says why.
        Result e = cli({"explain", out, "%2"});
        QVERIFY2(e.exitCode == 0, qPrintable(e.err));
        QVERIFY2(e.out.contains("\"data\"") && e.out.contains("\"model\""), qPrintable(e.out));
    }

    void existingMhloShardingsAreReportedAndKeptOnRequest()
    {
        // %arg0 has {devices=[2,1,4]<=[8] last_tile_dim_replicate} = P('data') on data=2, model=4;
        // the rule says P('model'): the rules win with a warning naming both, or --keep-existing
        // keeps P('data') as an sdy.sharding.
        const QString module = m_dir.filePath("mhlo.mlir");
        QFile f(module);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"(module attributes {mhlo.num_partitions = 8 : i32} {
  func.func public @main(%arg0: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"} loc("w")) -> tensor<8x8xf32> {
    return %arg0 : tensor<8x8xf32>
  }
})");
        f.close();
        const QString rules = m_dir.filePath("model.json");
        QFile g(rules);
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write(R"({"mesh": {"axis_dims": [2, -1], "axis_names": ["data", "model"]},
                    "rules": [{"kind": "tree_path", "patterns": [["^w$", ["model"]]]}]})");
        g.close();
        Result r = cli({"annotate", module, "--rules", rules});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("warning: argument 0 of @main ('w'): the rules replace its mhlo.sharding "
                                "{devices=[2,1,4]<=[8] last_tile_dim_replicate} (P('data')) with P('model')"),
                 qPrintable(r.err));
        QVERIFY(r.out.contains("sdy.sharding = #sdy.sharding<@mesh, [{\"model\"}, {}]>"));
        QVERIFY(!r.out.contains("mhlo.sharding"));
        r = cli({"annotate", module, "--rules", rules, "--keep-existing"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("@main %arg0 w tensor<8x8xf32>: kept as <@mesh, [{\"data\"}, {}]> (mhlo.sharding "
                                "{devices=[2,1,4]<=[8] last_tile_dim_replicate} = P('data'))"),
                 qPrintable(r.err));
        QVERIFY(r.out.contains("sdy.sharding = #sdy.sharding<@mesh, [{\"data\"}, {}]>"));
    }

    void errors()
    {
        // A strict rule that matches nothing: exit 1, the argument named.
        const QString strict = m_dir.filePath("strict.json");
        QFile f(strict);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"mesh": {"axis_dims": [2, 4], "axis_names": ["data", "model"]},
                    "rules": [{"kind": "tree_path", "patterns": [["^x$", ["data"]]]}]})");
        f.close();
        Result r = cli({"annotate", m_mlp, "--rules", strict});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("argument 1 of @main ('params/layer_0/w'): 'params/layer_0/w' matches no pattern of "
                                "the strict tree_path rule /rules/0"),
                 qPrintable(r.err));
        // A malformed rule file: its JSON pointer.
        const QString bad = m_dir.filePath("bad.json");
        QFile g(bad);
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write(R"({"mesh": {"axis_dims": [2, 4], "axis_names": ["data", "model"]}, "rules": [{"kind": "fsdp"}]})");
        g.close();
        r = cli({"annotate", m_mlp, "--rules", bad});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("bad.json: error: /rules/0: missing \"fsdp_axis_name\""), qPrintable(r.err));
        // Usage.
        QCOMPARE(cli({"annotate", m_mlp}).exitCode, 2);
        QCOMPARE(cli({"annotate", m_mlp, "--rules", m_rules, "--devices", "x"}).exitCode, 2);
        QVERIFY(cli({"--help"}).out.contains("annotate FILE --rules RULES.json"));
    }
};

QTEST_GUILESS_MAIN(TestAnnotateCli)
#include "tst_annotatecli.moc"
