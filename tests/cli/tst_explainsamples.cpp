// `shardx-cli explain` on every value of every sample, asked for by the name the file gives it.
#include <QtTest>

#include <QDir>
#include <QProcess>

#include "core/session/Session.h"

using namespace shardx;

namespace {

struct Run {
    int exitCode = -1;
    QString out, err;
};

Run cli(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(SHARDX_BINARY_DIR "/app/cli/shardx-cli"), args);
    if (!p.waitForFinished(60000))
        return {};
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

QStringList samples()
{
    QDir dir(QStringLiteral(SHARDX_SOURCE_DIR "/samples"));
    QStringList out;
    for (const QString& f : dir.entryList({"*.mlir"}, QDir::Files, QDir::Name))
        out << dir.filePath(f);
    return out;
}

/// The query a user types for value `v`: its name when that names it alone, else its id.
std::string queryOf(const ir::ProgramIds& ids, size_t v)
{
    const ir::ProgramValue& pv = ids.values()[v];
    Expected<int> byName = ids.findValue(pv.name);
    return byName && *byName == static_cast<int>(v) ? pv.name : pv.id;
}

} // namespace

class TestExplainSamples : public QObject {
    Q_OBJECT

private slots:
    void everyValueOfEverySample_data()
    {
        QTest::addColumn<QString>("sample");
        for (const QString& s : samples())
            QTest::newRow(qPrintable(QFileInfo(s).fileName())) << s;
        QVERIFY(samples().size() >= 4);
    }

    void everyValueOfEverySample()
    {
        QFETCH(QString, sample);
        Session session;
        QVERIFY2(session.open(sample.toStdString()), session.diagnostics().formatAll().c_str());
        const ir::ProgramIds& ids = *session.ids();
        int constants = 0, multiResult = 0, nested = 0, asked = 0;
        for (size_t v = 0; v < ids.values().size(); ++v) {
            const ir::ProgramValue& pv = ids.values()[v];
            const std::string query = queryOf(ids, v);
            Run r = cli({"explain", sample, QString::fromStdString(query)});
            QVERIFY2(r.exitCode == 0, qPrintable(QString::fromStdString(query) + ": " + r.err));
            const QString first = r.out.section('\n', 0, 0);
            // The first line names the value as the file does, its id, and its op's loc name.
            QVERIFY2(first.startsWith(QString::fromStdString(pv.name + " (" + pv.id + ")")),
                     qPrintable(QString::fromStdString(query) + ": " + first));
            const std::string& scope = ids.scopeName(pv.scope);
            if (!scope.empty())
                QVERIFY2(first.contains(QString::fromStdString(" at " + scope)), qPrintable(first));
            if (pv.op >= 0)
                QVERIFY2(
                    first.contains(QString::fromStdString(" = " + ids.ops()[static_cast<size_t>(pv.op)].opName.str())),
                    qPrintable(first));
            // Every axis is accounted for by a step or the program's own annotation.
            QVERIFY2(!r.out.contains("untracked") && !r.out.contains("outside the propagation steps") &&
                         !r.out.contains("no stage was reported"),
                     qPrintable(r.out));
            constants +=
                ids.ops()[static_cast<size_t>(std::max(pv.op, 0))].opName == "stablehlo.constant" && pv.op >= 0;
            multiResult += pv.name.find('#') != std::string::npos;
            nested += pv.id.find('/') != std::string::npos;
            ++asked;
        }
        qInfo("%s: %d values explained (%d constants, %d results of multi-result ops, %d in regions)",
              qPrintable(QFileInfo(sample).fileName()), asked, constants, multiResult, nested);
        QVERIFY(asked > 5);
    }

    void samplesCoverConstantsAndMultiResultOps()
    {
        // The samples as a whole hold the cases the explanations must name as the file does.
        int constants = 0, multiResult = 0, nested = 0;
        for (const QString& s : samples()) {
            Session session;
            QVERIFY(session.open(s.toStdString()));
            for (const ir::ProgramValue& pv : session.ids()->values()) {
                constants += pv.name.rfind("%c", 0) == 0;
                multiResult += pv.name.find('#') != std::string::npos;
                nested += pv.id.find('/') != std::string::npos;
            }
        }
        QVERIFY(constants >= 3);
        QVERIFY(multiResult >= 4);
        QVERIFY(nested >= 4);
    }

    void tracesOfEverySampleHaveNoUnattributedChange()
    {
        QTemporaryDir dir;
        const QString trace = dir.filePath("t.json");
        for (const QString& s : samples())
            for (const char* strategy : {"basic", "aggressive", "op-priority", "user-priority", "pipeline"}) {
                Run r = cli({"propagate", s, "--strategy", strategy, "--trace", trace, "-o", dir.filePath("o.mlir")});
                QVERIFY2(r.exitCode == 0, qPrintable(r.err));
                Run printed = cli({"trace", "print", trace});
                QCOMPARE(printed.exitCode, 0);
                QVERIFY2(!printed.out.contains("(external)") && !printed.out.contains("untracked"),
                         qPrintable(s + " " + strategy + "\n" + printed.out));
            }
    }
};

QTEST_GUILESS_MAIN(TestExplainSamples)
#include "tst_explainsamples.moc"
