// shardx: the desktop app's entry point (options, then views::MainWindow).
#include <QApplication>

#include "views/app/MainWindow.h"
#include "views/app/StartupOptions.h"

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("shardx"));
    QApplication::setOrganizationName(QStringLiteral("shardx"));
    QApplication::setApplicationVersion(QStringLiteral(SHARDX_VERSION));
    shardx::views::StartupOptions options;
    if (int exitCode = shardx::views::parseStartupOptions(app.arguments(), options); exitCode >= 0)
        return exitCode;
    shardx::views::MainWindow window;
    return window.start(options);
}
