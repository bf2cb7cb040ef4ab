// StartupOptions: the command line of the desktop app.
#include "views/app/StartupOptions.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>

namespace shardx::views {

int parseStartupOptions(const QStringList& arguments, StartupOptions& options)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("shardx: explore and step through the sharding of StableHLO programs with Shardy shardings.\n"
                       "Opens FILE (.mlir text as JAX prints it, or a shardx .json document), propagates its\n"
                       "shardings with a recorded trace, and shows the dataflow graph, meshes, shard maps,\n"
                       "factor tables and a step-through debugger."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("A .mlir or .json file to open."));
    QCommandLineOption step(QStringLiteral("step"), QStringLiteral("Show the state after step N."),
                            QStringLiteral("N"));
    QCommandLineOption select(QStringLiteral("select"),
                              QStringLiteral("Select VALUE as the file names it (%5, @main:%arg0, a loc name)."),
                              QStringLiteral("VALUE"));
    QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                  QStringLiteral("Write the main window to OUT.png once ready, then exit "
                                                 "(works with QT_QPA_PLATFORM=offscreen)."),
                                  QStringLiteral("OUT.png"));
    QCommandLineOption strategy(QStringLiteral("strategy"),
                                QStringLiteral("Propagation: basic, aggressive, op-priority, user-priority or "
                                               "pipeline (the default)."),
                                QStringLiteral("S"));
    QCommandLineOption strict(QStringLiteral("strict"),
                              QStringLiteral("Refuse ops and attributes of unknown dialects, as MLIR does."));
    QCommandLineOption dark(QStringLiteral("dark"), QStringLiteral("Use the dark palette."));
    QCommandLineOption light(QStringLiteral("light"), QStringLiteral("Use the light palette."));
    QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size for --screenshot (default 1600x1000)."),
                            QStringLiteral("WxH"));
    QCommandLineOption show(
        QStringLiteral("show"),
        QStringLiteral(
            "Show the panel DOCK in front of its tab group (repeatable): graph, steps, "
            "breakpoints, inspector, why, factorTable, mesh, collectives, devices, "
            "whyReplicated, problems, source, types, rules, validation, or its title (\"Why Replicated?\")."),
        QStringLiteral("DOCK"));
    QCommandLineOption rules(QStringLiteral("rules"),
                             QStringLiteral("Load RULES.json (scalax-style sharding rules) into the Rules panel."),
                             QStringLiteral("RULES.json"));

    QCommandLineOption validate(
        QStringLiteral("validate"),
        QStringLiteral("Validate the partitioned program once propagated (the Validation panel's "
                       "Run); --screenshot waits for the verdict."));
    QCommandLineOption injectFault(QStringLiteral("inject-fault"),
                                   QStringLiteral("The Validation panel's fault to inject: collective or swap-shards."),
                                   QStringLiteral("KIND"));
    parser.addOptions(
        {step, select, screenshot, strategy, strict, dark, light, size, show, rules, validate, injectFault});
    if (!parser.parse(arguments)) {
        std::fprintf(stderr, "shardx: error: %s\n", qPrintable(parser.errorText()));
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        return 0;
    }
    if (parser.isSet(QStringLiteral("version"))) {
        std::printf("shardx %s\n", qPrintable(QCoreApplication::applicationVersion()));
        return 0;
    }
    const QStringList files = parser.positionalArguments();
    if (files.size() > 1) {
        std::fprintf(stderr, "shardx: error: one FILE at a time\n");
        return 2;
    }
    if (!files.isEmpty())
        options.file = files.front();
    if (parser.isSet(step)) {
        bool ok = false;
        options.step = parser.value(step).toULongLong(&ok);
        if (!ok) {
            std::fprintf(stderr, "shardx: error: --step expects a number, got '%s'\n", qPrintable(parser.value(step)));
            return 2;
        }
    }
    options.select = parser.value(select);
    options.show = parser.values(show);
    options.rules = parser.value(rules);
    options.validate = parser.isSet(validate);
    options.injectFault = parser.value(injectFault);
    if (!options.injectFault.isEmpty() && options.injectFault != QStringLiteral("collective") &&
        options.injectFault != QStringLiteral("swap-shards")) {
        std::fprintf(stderr, "shardx: error: --inject-fault expects collective or swap-shards, got '%s'\n",
                     qPrintable(options.injectFault));
        return 2;
    }
    options.screenshot = parser.value(screenshot);
    options.strategy = parser.value(strategy);
    options.strict = parser.isSet(strict);
    options.dark = parser.isSet(dark);
    options.light = parser.isSet(light);
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        bool okW = false, okH = false;
        if (wh.size() == 2) {
            options.width = wh[0].toInt(&okW);
            options.height = wh[1].toInt(&okH);
        }
        if (!okW || !okH || options.width < 200 || options.height < 200) {
            std::fprintf(stderr, "shardx: error: --size expects WxH, e.g. 1600x1000\n");
            return 2;
        }
    }
    return -1;
}

} // namespace shardx::views
