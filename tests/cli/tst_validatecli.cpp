// shardx-cli validate as a user runs it: the verdict line and table, --json, exit 0 / 1 / 2, the injected faults
// named at their op and device, and --backend vulkan without a driver (a message and the reference-only verdict).
#include <QRegularExpression>
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>

class TestValidateCli : public QObject {
    Q_OBJECT

private:
    struct Result {
        int exitCode = -1;
        QString out;
        QString err;
    };

    static Result validate(const QStringList& args,
                           const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
    {
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(SHARDX_BINARY_DIR "/app/cli/shardx-cli"), QStringList{"validate"} + args);
        p.closeWriteChannel();
        if (!p.waitForFinished(60000))
            return {};
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }

    static QString sample(const char* name) { return QStringLiteral(SHARDX_SOURCE_DIR "/samples/") + name; }

private slots:
    void aSampleMatches()
    {
        Result r = validate({sample("mlp_dp_tp.mlir"), "--mesh", "2x2"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains("mesh <[\"data\"=2, \"model\"=2]> (4 devices), backend reference"), qPrintable(r.out));
        QVERIFY2(r.out.contains("result 0"), qPrintable(r.out));
        QVERIFY2(r.out.contains("verdict: match"), qPrintable(r.out));
    }

    void jsonHasEveryRow()
    {
        Result r = validate({sample("attention.mlir"), "--intermediates", "--json", "--seed", "3"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(j["format"].toString(), QString("shardx-validation"));
        QCOMPARE(j["verdict"].toString(), QString("match"));
        QCOMPARE(j["devices"].toInt(), 8);
        QCOMPARE(j["seed"].toInt(), 3);
        QVERIFY(j["first_divergence"].isNull());
        QVERIFY(j["intermediates"].toArray().size() > 10);
        const QJsonObject row = j["results"].toArray().first().toObject();
        for (const char* key : {"max_abs_error", "max_rel_error", "nmse", "tolerance", "sharding", "elements"})
            QVERIFY2(row.contains(key), key);
    }

    void timingsAreATablePerDeviceAndAJsonField()
    {
        Result text = validate({sample("mlp_dp_tp.mlir"), "--mesh", "2x2", "--timings"});
        QVERIFY2(text.exitCode == 0, qPrintable(text.out + text.err));
        for (int d = 0; d < 4; ++d)
            QVERIFY2(text.out.contains(
                         QStringLiteral("timings of device %1 (reference; host timers around each op):").arg(d)),
                     qPrintable(text.out));
        QVERIFY2(text.out.contains(QRegularExpression(
                     "stablehlo\\.all_reduce \\(collective\\) +\\S+mlp_dp_tp\\.mlir:11:\\d+ +cpu +1")),
                 qPrintable(text.out));
        QVERIFY2(
            text.out.contains(QRegularExpression("total [0-9.]+ ms: kernels 0\\.000 ms \\(0 dispatches\\), host ops")),
            qPrintable(text.out));
        QVERIFY(text.out.trimmed().endsWith(QStringLiteral("compared on 4 devices)")));

        Result json = validate({sample("mlp_dp_tp.mlir"), "--mesh", "2x2", "--timings", "--json"});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject j = QJsonDocument::fromJson(json.out.toUtf8()).object();
        const QJsonArray timings = j["timings"].toArray();
        QCOMPARE(timings.size(), 4);
        const QJsonObject d0 = timings.first().toObject();
        QCOMPARE(d0["device"].toInt(), 0);
        QCOMPARE(d0["backend"].toString(), QString("reference"));
        QVERIFY(d0["total_ms"].toDouble() > 0);
        bool collective = false;
        for (const QJsonValue& v : d0["ops"].toArray()) {
            const QJsonObject op = v.toObject();
            QVERIFY(op["location"].toString().contains("mlp_dp_tp.mlir:"));
            QCOMPARE(op["clock"].toString(), QString("host"));
            collective = collective || (op["collective"].toBool() && op["op"].toString() == "stablehlo.all_reduce");
        }
        QVERIFY(collective);
        Result plain = validate({sample("mlp_dp_tp.mlir"), "--mesh", "2x2", "--json"});
        QVERIFY(QJsonDocument::fromJson(plain.out.toUtf8()).object()["timings"].isNull());
        QVERIFY(!validate({sample("mlp_dp_tp.mlir"), "--mesh", "2x2"}).out.contains("timings of"));
    }

    void aCorruptedCollectiveFailsAtItsOpAndDevice()
    {
        const QString file = sample("mlp_dp_tp.mlir");
        Result r = validate({file, "--intermediates", "--inject-fault", "collective", "--fault-device", "2"});
        QCOMPARE(r.exitCode, 1);
        // The all_reduce of the row-parallel matmul at line 11 (the dot_general it reduces), on device 2.
        QVERIFY2(r.out.contains("verdict: MISMATCH: first divergence %6.all_reduce (stablehlo.all_reduce) at " + file +
                                ":11:5 on device 2"),
                 qPrintable(r.out));
        Result j = validate({file, "--intermediates", "--inject-fault", "collective", "--json"});
        QCOMPARE(j.exitCode, 1);
        const QJsonObject d = QJsonDocument::fromJson(j.out.toUtf8()).object()["first_divergence"].toObject();
        QCOMPARE(d["op"].toString(), QString("stablehlo.all_reduce"));
        QCOMPARE(d["device"].toInt(), 1);
        QCOMPARE(d["location"].toString(), file + ":11:5");
    }

    void swappedShardsFailAtTheArgument()
    {
        Result r = validate({sample("mlp_dp_tp.mlir"), "--intermediates", "--inject-fault", "swap-shards"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains("injected fault: swap-shards: devices 0 and 4"), qPrintable(r.out));
        QVERIFY2(r.out.contains("verdict: MISMATCH: first divergence %arg0 at "), qPrintable(r.out));
        QVERIFY2(r.out.contains("on device 0"), qPrintable(r.out));
    }

    void couldNotRunIsExitTwo()
    {
        Result missing = validate({QStringLiteral(SHARDX_SOURCE_DIR "/samples/no-such-file.mlir")});
        QCOMPARE(missing.exitCode, 2);
        QTemporaryDir dir;
        const QString path = dir.filePath("nomesh.mlir");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a : tensor<4xf32>\n}\n");
        f.close();
        Result noMesh = validate({path});
        QCOMPARE(noMesh.exitCode, 2);
        QVERIFY2(noMesh.err.contains("no mesh"), qPrintable(noMesh.err));
        Result badFault = validate({sample("mlp_dp_tp.mlir"), "--inject-fault", "bits"});
        QCOMPARE(badFault.exitCode, 2);
        QVERIFY(badFault.err.contains("usage:"));
    }

    void vulkanWithoutADriverGivesTheReferenceVerdict()
    {
        // The loader finds no driver through a driver list naming nothing that exists.
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("VK_DRIVER_FILES", "/nonexistent/shardx_no_icd.json");
        env.insert("VK_ICD_FILENAMES", "/nonexistent/shardx_no_icd.json");
        Result r = validate({sample("mlp_dp_tp.mlir"), "--backend", "vulkan"}, env);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--backend vulkan") && r.err.contains("reference back end's only"), qPrintable(r.err));
        QVERIFY2(r.out.contains("backend reference") && r.out.contains("verdict: match"), qPrintable(r.out));
    }
};

QTEST_GUILESS_MAIN(TestValidateCli)
#include "tst_validatecli.moc"
