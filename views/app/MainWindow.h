// MainWindow: the desktop app's window: dockable panels around the dataflow graph, menus, the
// debugger's actions, recent files, drag and drop, reload on change, and --screenshot.
#pragma once

#include <QMainWindow>
#include <QStringList>

#include "views/app/StartupOptions.h"

class QAction;
class QActionGroup;
class QDockWidget;
class QFileSystemWatcher;
class QLabel;
class QMenu;
class QProgressBar;

namespace shardx::views {

class DebuggerActions;
class SessionContext;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    SessionContext& context() { return *m_context; }
    /// Shows the window and acts on the command line (open, step, select, screenshot). Returns the
    /// exit code of the event loop (or of the screenshot).
    int start(const StartupOptions& options);

    /// Opens `path` (also used by drag and drop, recent files and the command line).
    void openFile(const QString& path);
    /// The dock holding `panel` (by object name: "graph", "steps", "factorTable", ...), or null.
    QDockWidget* dock(const QString& name) const;
    /// Every dock, in the order they were made.
    const QList<QDockWidget*>& docks() const { return m_docks; }
    DebuggerActions& debugger() { return *m_debugger; }
    /// Writes the window to `path` (PNG). Returns false when it cannot.
    bool saveScreenshot(const QString& path);
    /// The default dock layout (View > Reset Layout), whatever the last run saved.
    void resetLayout();

protected:
    void closeEvent(QCloseEvent* event) override;
    /// Tab bars of tabbed docks (made by QMainWindow as they are needed) elide and scroll, so that
    /// a group of many docks never widens the window past the size the user asked for.
    void childEvent(QChildEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildPanels();
    void buildMenus();
    void restoreLayout();
    void applyPalette(bool dark);
    void updateTitle();
    void updateStatus();
    void updateRecentMenu();
    void addRecentFile(const QString& path);
    void onOpened(bool ok);
    void onFileChangedOnDisk(const QString& path);
    void saveAs();
    void save();
    void exportTrace();
    void showAbout();
    /// The default sizes of the docks, for the window's current size.
    void applyDefaultDockSizes();
    QDockWidget* addPanel(const QString& name, const QString& title, QWidget* panel, Qt::DockWidgetArea area,
                          const QKeySequence& shortcut = {});

    SessionContext* m_context;
    DebuggerActions* m_debugger;
    QList<QDockWidget*> m_docks;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QAction* m_saveAction = nullptr;
    QAction* m_reloadAction = nullptr;
    QActionGroup* m_strategyGroup = nullptr;
    QLabel* m_stepLabel = nullptr;
    QLabel* m_selectionLabel = nullptr;
    QLabel* m_busyLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QFileSystemWatcher* m_watcher;
    QByteArray m_defaultState;
    bool m_reloadOffered = false;
    StartupOptions m_options;
};

} // namespace shardx::views
