// Tests of `shardx-cli explicit` as a user runs it, on the explicit-mode samples.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

class TestExplicitCli : public QObject {
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

    const QString m_clean = QStringLiteral(SHARDX_SOURCE_DIR "/samples/explicit_mlp.mlir");
    const QString m_illegal = QStringLiteral(SHARDX_SOURCE_DIR "/samples/explicit_illegal_add.mlir");

private slots:
    void cleanProgramTypesEveryValue()
    {
        // Worked out by hand (both axes Explicit: every sharding of the sample is closed):
        // %0 = x[16@X,64] . w1[64,256@Y] -> f32[16@X,256@Y]; %1 = broadcast of b1[256@Y] on dim 1
        // -> f32[16,256@Y]; %2 = add zips {X,None}, {Y,Y} -> f32[16@X,256@Y]; %4 = max with the
        // unsharded broadcast zero keeps it; %5 contracts 256 sharded on Y on both sides (an
        // error by itself) but its only use is the constraint P("X", None): f32[16@X,64]; %7
        // splits the unsharded 64 into 8x8: f32[16@X,8,8]; %8 sums dim 2: f32[16@X,8].
        Result r = cli({"explicit", m_clean});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.err.isEmpty());
        for (const char* line :
             {"mesh @mesh: AbstractMesh('X': 2, 'Y': 4, axis_types=(Explicit, Explicit))",
              "@main %arg0 : f32[16@X,64]  [annotation]", "@main %0 = stablehlo.dot_general : f32[16@X,256@Y]",
              "@main %1 = stablehlo.broadcast_in_dim : f32[16,256@Y]", "@main %2 = stablehlo.add : f32[16@X,256@Y]",
              "@main %4 = stablehlo.maximum : f32[16@X,256@Y]",
              "@main %5 = stablehlo.dot_general : f32[16@X,64]  [out sharding (the sharding constraint on its result)]",
              "@main %7 = stablehlo.reshape : f32[16@X,8,8]", "@main %8 = stablehlo.reduce : f32[16@X,8]",
              "@main result 0 : f32[16@X,8]"})
            QVERIFY2(r.out.contains(QString::fromUtf8(line)), qPrintable(QString::fromUtf8(line) + "\n" + r.out));
    }

    void illegalResultIsReportedAtTheOp()
    {
        Result r = cli({"explicit", m_illegal});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("samples/explicit_illegal_add.mlir:4:5: error: add operation with inputs: i32[4@X,4], "
                                "i32[4,4@X] produces an illegally sharded result: i32[4@X,4@X]"),
                 qPrintable(r.err));
        QCOMPARE(r.err.count(": error: "), 1);
        // The same add with out_sharding=P("X", None) (its own sdy.sharding): no rule, no error.
        QVERIFY2(r.out.contains("@main %0 = stablehlo.add : i32[4@X,4]  [recovered after an error]"),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains("@main %1 = stablehlo.add : i32[4@X,4]  [out sharding]"), qPrintable(r.out));
    }

    void axesSetByTheUser()
    {
        // With both axes Auto no type names an axis and nothing is ambiguous.
        Result r = cli({"explicit", m_clean, "--axes", "X=auto,Y=auto"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("axis_types=(Auto, Auto)"));
        QVERIFY(r.out.contains("  X: Auto (set by the user)"));
        QVERIFY2(r.out.contains("@main %2 = stablehlo.add : f32[16,256]"), qPrintable(r.out));
        // X Explicit and Y Auto: the add still names X twice.
        r = cli({"explicit", m_illegal, "--axes=X=explicit,Y=auto"});
        QCOMPARE(r.exitCode, 1);
    }

    void compareWithShardysPropagation()
    {
        // X Auto: no type names X, while Shardy's propagation shards the batch on X from %arg0's
        // annotation; %2 = f32[16,256@Y] is propagated f32[16@X,256@Y]: more specific, not a
        // contradiction (seed 001: a concrete sharding may mention Auto axes).
        Result r = cli({"explicit", m_clean, "--axes", "X=auto", "--compare"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("@main %2: type f32[16,256@Y], propagated f32[16@X,256@Y] (<@mesh, [{\"X\"}, "
                                "{\"Y\"}]>): the concrete sharding is more specific: X is not an Explicit axis here"),
                 qPrintable(r.out));
        r = cli({"explicit", m_illegal, "--compare"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains("Shardy's propagation (pipeline) agrees with every type"), qPrintable(r.out));
    }

    void json()
    {
        Result r = cli({"explicit", m_illegal, "--json"});
        QCOMPARE(r.exitCode, 1);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o["mesh"].toString(), QString("mesh"));
        const QJsonArray errors = o["errors"].toArray();
        QCOMPARE(errors.size(), 1);
        QCOMPARE(errors[0].toObject()["line"].toInt(), 4);
        QCOMPARE(errors[0].toObject()["col"].toInt(), 5);
        bool found = false;
        for (const QJsonValue& v : o["values"].toArray())
            found =
                found || (v.toObject()["name"].toString() == "%1" && v.toObject()["type"].toString() == "i32[4@X,4]");
        QVERIFY(found);
        QCOMPARE(o["axis_types"].toArray()[0].toObject()["type"].toString(), QString("Explicit"));
    }

    void usageErrors()
    {
        QCOMPARE(cli({"explicit"}).exitCode, 2);
        QCOMPARE(cli({"explicit", m_clean, "--axes", "X=typed"}).exitCode, 2);
        QCOMPARE(cli({"explicit", m_clean, "--axes", "X"}).exitCode, 2);
        QCOMPARE(cli({"explicit", m_clean, "--mesh", "nope"}).exitCode, 2);
        QCOMPARE(cli({"explicit", m_clean, "--compare", "--strategy", "fastest"}).exitCode, 2);
        QCOMPARE(cli({"explicit", QStringLiteral(SHARDX_SOURCE_DIR "/samples/no_such_file.mlir")}).exitCode, 1);
        QVERIFY(cli({"--help"}).out.contains("explicit FILE [--axes X=explicit,Y=auto]"));
    }
};

QTEST_GUILESS_MAIN(TestExplicitCli)
#include "tst_explicitcli.moc"
