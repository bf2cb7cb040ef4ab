// StartupOptions: what `shardx FILE [--step N] [--select VALUE] [--screenshot OUT.png]` asks for.
#pragma once

#include <optional>

#include <QString>
#include <QStringList>

namespace shardx::views {

struct StartupOptions {
    QString file;                   ///< a .mlir or .json file to open, empty for none
    std::optional<qulonglong> step; ///< the step to show once propagation ran (default: the last)
    QString select;                 ///< a value as the file names it (`%5`, `@main:%arg0`, a loc name)
    QString screenshot;             ///< write the main window to this PNG once ready, then exit
    QString strategy;               ///< propagation strategy (default: the whole pipeline)
    bool strict = false;            ///< refuse what MLIR refuses
    bool dark = false;              ///< force the dark palette (else the system's)
    bool light = false;             ///< force the light palette
    QStringList layout;             ///< panels to show for the screenshot (default: all)
    QStringList show;               ///< docks to show and bring to the front (object names: `devices`)
    QString rules;                  ///< a scalax-style rule file to load into the Rules panel
    bool validate = false;          ///< run the Validation panel once propagated (--screenshot waits for it)
    QString injectFault;            ///< the Validation panel's fault: `collective`, `swap-shards` (empty: none)
    int width = 1600;               ///< screenshot size
    int height = 1000;
};

/// Reads the command line. Returns -1 to go on, else the exit code (after --help, --version or an
/// error, with the text written to stdout / stderr).
int parseStartupOptions(const QStringList& arguments, StartupOptions& options);

} // namespace shardx::views
