// MainWindow: docks, menus, recent files, drag and drop, reload on change, palettes, status bar,
// and the command line's open / step / select / screenshot.
#include "views/app/MainWindow.h"

#include <cstdio>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QLabel>
#include <QLayout>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTabBar>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>

#include "views/app/DebuggerActions.h"
#include "views/app/Icons.h"
#include "views/graph/GraphMinimap.h"
#include "views/graph/GraphPanel.h"
#include "views/mesh/MeshPanel.h"
#include "views/panels/BreakpointsPanel.h"
#include "views/panels/CollectivesPanel.h"
#include "views/panels/DevicesPanel.h"
#include "views/panels/DiagnosticsPanel.h"
#include "views/panels/FactorTablePanel.h"
#include "views/panels/InspectorPanel.h"
#include "views/panels/ReplicatedPanel.h"
#include "views/panels/RulesPanel.h"
#include "views/panels/SourcePanel.h"
#include "views/panels/StepTreePanel.h"
#include "views/panels/TypesPanel.h"
#include "views/panels/ValidationPanel.h"
#include "views/panels/WhyPanel.h"
#include "views/session/SessionContext.h"

namespace shardx::views {

namespace {

constexpr int kMaxRecentFiles = 10;
constexpr int kLayoutVersion = 2; ///< 2: the partitioning docks

/// The system's palette is dark (Qt 6.4 has no colour-scheme hint: judge its window colour).
bool systemPrefersDark()
{
    static const bool dark = QApplication::palette().color(QPalette::Window).lightness() < 128;
    return dark;
}

QString fileFilter()
{
    return QObject::tr("Programs (*.mlir *.json);;MLIR text (*.mlir);;shardx JSON (*.json);;All files (*)");
}

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_context(new SessionContext(this)),
      m_debugger(new DebuggerActions(*m_context, this)),
      m_watcher(new QFileSystemWatcher(this))
{
    setObjectName(QStringLiteral("MainWindow"));
    setWindowIcon(appIcon());
    setAcceptDrops(true);
    setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);
    buildPanels();
    buildMenus();
    m_defaultState = saveState(kLayoutVersion);
    restoreLayout();

    connect(m_context, &SessionContext::opened, this, &MainWindow::onOpened);
    connect(m_context, &SessionContext::moduleChanged, this, [this] {
        updateTitle();
        updateStatus();
    });
    connect(m_context, &SessionContext::stepChanged, this, [this] { updateStatus(); });
    connect(m_context, &SessionContext::selectionChanged, this, [this] { updateStatus(); });
    connect(m_context, &SessionContext::busyChanged, this, [this](bool busy, const QString& what) {
        m_busyLabel->setText(what);
        m_progress->setVisible(busy);
        if (!busy)
            m_progress->reset();
    });
    connect(m_context, &SessionContext::progressed, this,
            [this](const QString& what, int done, int total, qulonglong steps) {
                m_progress->setRange(0, std::max(total, 1));
                m_progress->setValue(done);
                m_busyLabel->setText(tr("%1 (%2 steps)").arg(what).arg(steps));
            });
    connect(m_context, &SessionContext::propagated, this, [this](bool ok, bool cancelled) {
        if (cancelled)
            statusBar()->showMessage(tr("Propagation cancelled"), 5000);
        else if (!ok)
            statusBar()->showMessage(tr("Propagation failed: see the Problems panel"), 8000);
        updateStatus();
    });
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &MainWindow::onFileChangedOnDisk);
    updateTitle();
    updateStatus();
}

MainWindow::~MainWindow() = default;

QDockWidget* MainWindow::addPanel(const QString& name, const QString& title, QWidget* panel, Qt::DockWidgetArea area,
                                  const QKeySequence& shortcut)
{
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(name);
    panel->setObjectName(name + QStringLiteral("Panel"));
    dock->setWidget(panel);
    addDockWidget(area, dock);
    if (!shortcut.isEmpty())
        dock->toggleViewAction()->setShortcut(shortcut);
    m_docks.push_back(dock);
    return dock;
}

void MainWindow::buildPanels()
{
    // The graph is the centre of attention; everything else docks around it.
    auto* graph = addPanel(QStringLiteral("graph"), tr("Dataflow Graph"), new GraphPanel(*m_context),
                           Qt::RightDockWidgetArea, Qt::ALT | Qt::Key_1);
    setCentralWidget(nullptr);
    auto* steps = addPanel(QStringLiteral("steps"), tr("Propagation Steps"), new StepTreePanel(*m_context),
                           Qt::LeftDockWidgetArea, Qt::ALT | Qt::Key_2);
    auto* breakpoints = addPanel(QStringLiteral("breakpoints"), tr("Breakpoints"), new BreakpointsPanel(*m_context),
                                 Qt::LeftDockWidgetArea, Qt::ALT | Qt::Key_3);
    auto* inspector = addPanel(QStringLiteral("inspector"), tr("Sharding Inspector"), new InspectorPanel(*m_context),
                               Qt::RightDockWidgetArea, Qt::ALT | Qt::Key_4);
    auto* why = addPanel(QStringLiteral("why"), tr("Why / Why Not"), new WhyPanel(*m_context), Qt::RightDockWidgetArea,
                         Qt::ALT | Qt::Key_5);
    auto* factors = addPanel(QStringLiteral("factorTable"), tr("Factor Table"), new FactorTablePanel(*m_context),
                             Qt::BottomDockWidgetArea, Qt::ALT | Qt::Key_6);
    auto* mesh = addPanel(QStringLiteral("mesh"), tr("Mesh and Shards"), new MeshPanel(*m_context),
                          Qt::BottomDockWidgetArea, Qt::ALT | Qt::Key_7);
    // What partitioning the propagated program costs (computed when one of them is first shown).
    // A dock behind another tab is still a visible widget: each panel is told when its tab is in front.
    auto* collectivesPanel = new CollectivesPanel(*m_context);
    auto* collectives =
        addPanel(QStringLiteral("collectives"), tr("Collectives"), collectivesPanel, Qt::BottomDockWidgetArea);
    connect(collectives, &QDockWidget::visibilityChanged, collectivesPanel, &CollectivesPanel::setDockShown);
    auto* devicesPanel = new DevicesPanel(*m_context);
    auto* devices = addPanel(QStringLiteral("devices"), tr("Devices"), devicesPanel, Qt::BottomDockWidgetArea);
    connect(devices, &QDockWidget::visibilityChanged, devicesPanel, &DevicesPanel::setDockShown);
    auto* replicatedPanel = new ReplicatedPanel(*m_context);
    auto* replicated =
        addPanel(QStringLiteral("whyReplicated"), tr("Why Replicated?"), replicatedPanel, Qt::BottomDockWidgetArea);
    connect(replicated, &QDockWidget::visibilityChanged, replicatedPanel, &ReplicatedPanel::setDockShown);
    auto* problems = addPanel(QStringLiteral("problems"), tr("Problems"), new DiagnosticsPanel(*m_context),
                              Qt::BottomDockWidgetArea, Qt::ALT | Qt::Key_8);
    auto* sourcePanel = new SourcePanel(*m_context);
    auto* source =
        addPanel(QStringLiteral("source"), tr("Source"), sourcePanel, Qt::BottomDockWidgetArea, Qt::ALT | Qt::Key_9);
    connect(source, &QDockWidget::visibilityChanged, sourcePanel, &SourcePanel::setDockShown);
    // How users write shardings: JAX's explicit-mode types and scalax-style rules (typed when shown).
    auto* typesPanel = new TypesPanel(*m_context);
    auto* types = addPanel(QStringLiteral("types"), tr("Types"), typesPanel, Qt::BottomDockWidgetArea);
    connect(types, &QDockWidget::visibilityChanged, typesPanel, &TypesPanel::setDockShown);
    auto* rulesPanel = new RulesPanel(*m_context);
    auto* rules = addPanel(QStringLiteral("rules"), tr("Rules"), rulesPanel, Qt::BottomDockWidgetArea);
    connect(rules, &QDockWidget::visibilityChanged, rulesPanel, &RulesPanel::setDockShown);
    auto* validation = addPanel(QStringLiteral("validation"), tr("Validation"), new ValidationPanel(*m_context),
                                Qt::BottomDockWidgetArea);
    // Left: steps over breakpoints. Centre: the graph, the inspector and why beside it. Bottom:
    // factor table | mesh, collectives, devices, why replicated, problems and source tabbed.
    splitDockWidget(steps, graph, Qt::Horizontal);
    splitDockWidget(graph, inspector, Qt::Horizontal);
    splitDockWidget(steps, breakpoints, Qt::Vertical);
    tabifyDockWidget(inspector, why);
    inspector->raise();
    splitDockWidget(factors, mesh, Qt::Horizontal);
    tabifyDockWidget(mesh, collectives);
    tabifyDockWidget(collectives, devices);
    tabifyDockWidget(devices, replicated);
    tabifyDockWidget(replicated, problems);
    tabifyDockWidget(problems, source);
    tabifyDockWidget(source, types);
    tabifyDockWidget(types, rules);
    tabifyDockWidget(rules, validation);
    // The tab bars exist once the layout has been laid out; made now, they elide before the window
    // first takes its minimum size (nine tabs side by side would be wider than 1200 pixels).
    layout()->activate();
    for (QTabBar* bar : findChildren<QTabBar*>(QString(), Qt::FindDirectChildrenOnly)) {
        bar->setUsesScrollButtons(true);
        bar->setElideMode(Qt::ElideRight);
    }
    mesh->raise();
    applyDefaultDockSizes();
    // A file that does not open shows its problems first.
    connect(m_context, &SessionContext::opened, problems, [problems](bool ok) {
        if (!ok)
            problems->raise();
    });
}

void MainWindow::buildMenus()
{
    // ---- File
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(themedIcon(QStringLiteral("open")), tr("&Open..."), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open Program"), QString(), fileFilter());
        if (!path.isEmpty())
            openFile(path);
    });
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_reloadAction = file->addAction(themedIcon(QStringLiteral("reload")), tr("Re&load"), this, [this] {
        if (!m_context->filePath().isEmpty())
            openFile(m_context->filePath());
    });
    m_reloadAction->setShortcut(QKeySequence::Refresh);
    file->addSeparator();
    m_saveAction = file->addAction(themedIcon(QStringLiteral("save")), tr("&Save"), this, &MainWindow::save);
    m_saveAction->setShortcut(QKeySequence::Save);
    QAction* saveAs = file->addAction(tr("Save &As..."), this, &MainWindow::saveAs);
    saveAs->setShortcut(QKeySequence::SaveAs);
    file->addAction(tr("Export &Trace..."), this, &MainWindow::exportTrace);
    file->addAction(tr("Save Screens&hot..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save Screenshot"), QStringLiteral("shardx.png"),
                                                          tr("PNG images (*.png)"));
        if (!path.isEmpty() && !saveScreenshot(path))
            QMessageBox::warning(this, tr("Save Screenshot"), tr("Cannot write %1").arg(path));
    });
    file->addSeparator();
    file->addAction(tr("&Close"), this, [this] { m_context->close(); })->setShortcut(QKeySequence::Close);
    file->addAction(tr("&Quit"), this, &QWidget::close)->setShortcut(QKeySequence::Quit);
    updateRecentMenu();

    // ---- Edit
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_context->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    undo->setIcon(themedIcon(QStringLiteral("undo")));
    QAction* redo = m_context->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    redo->setIcon(themedIcon(QStringLiteral("redo")));
    edit->addActions({undo, redo});

    // ---- View
    m_viewMenu = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* d : m_docks)
        m_viewMenu->addAction(d->toggleViewAction());
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(tr("&Reset Layout"), this, &MainWindow::resetLayout);
    QMenu* theme = m_viewMenu->addMenu(tr("&Theme"));
    auto* themes = new QActionGroup(this);
    for (const auto& [label, key] :
         {std::pair{tr("Follow the &System"), QStringLiteral("system")},
          std::pair{tr("&Light"), QStringLiteral("light")}, std::pair{tr("&Dark"), QStringLiteral("dark")}}) {
        QAction* a = theme->addAction(label);
        a->setCheckable(true);
        a->setData(key);
        themes->addAction(a);
        if (QSettings().value(QStringLiteral("theme"), QStringLiteral("system")).toString() == key)
            a->setChecked(true);
    }
    connect(themes, &QActionGroup::triggered, this, [this](QAction* a) {
        QSettings().setValue(QStringLiteral("theme"), a->data());
        const QString key = a->data().toString();
        applyPalette(key == QStringLiteral("dark") || (key == QStringLiteral("system") && systemPrefersDark()));
    });

    // ---- Propagation
    QMenu* propagation = menuBar()->addMenu(tr("&Propagation"));
    m_strategyGroup = new QActionGroup(this);
    for (const auto& [label, key] :
         {std::pair{tr("Whole &Pipeline"), QStringLiteral("pipeline")},
          std::pair{tr("&Basic"), QStringLiteral("basic")}, std::pair{tr("&Aggressive"), QStringLiteral("aggressive")},
          std::pair{tr("&Op Priority"), QStringLiteral("op-priority")},
          std::pair{tr("&User Priority"), QStringLiteral("user-priority")}}) {
        QAction* a = propagation->addAction(label);
        a->setCheckable(true);
        a->setData(key);
        a->setChecked(key == QStringLiteral("pipeline"));
        m_strategyGroup->addAction(a);
    }
    propagation->addSeparator();
    QAction* run =
        propagation->addAction(themedIcon(QStringLiteral("propagate")), tr("&Propagate Again"), this, [this] {
            PropagationRequest r = m_context->propagationRequest();
            r.passes.clear();
            r.strategy = m_strategyGroup->checkedAction()->data().toString().toStdString();
            m_context->propagate(r);
        });
    run->setShortcut(Qt::CTRL | Qt::Key_R);
    QAction* cancel = propagation->addAction(themedIcon(QStringLiteral("cancel")), tr("&Cancel"), this,
                                             [this] { m_context->cancel(); });
    cancel->setShortcut(Qt::Key_Escape);
    cancel->setEnabled(false);
    connect(m_context, &SessionContext::busyChanged, cancel, [cancel](bool busy) { cancel->setEnabled(busy); });

    // ---- Debug
    QMenu* debug = menuBar()->addMenu(tr("&Debug"));
    m_debugger->addTo(debug);

    // ---- Help
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About shardx"), this, &MainWindow::showAbout);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);

    // ---- Tool bars
    QToolBar* fileBar = addToolBar(tr("File"));
    fileBar->setObjectName(QStringLiteral("fileToolBar"));
    fileBar->addActions({open, m_saveAction, m_reloadAction});
    fileBar->addSeparator();
    fileBar->addActions({undo, redo, run, cancel});
    QToolBar* debugBar = addToolBar(tr("Debugger"));
    debugBar->setObjectName(QStringLiteral("debugToolBar"));
    m_debugger->addTo(debugBar);

    // ---- Status bar
    m_stepLabel = new QLabel(this);
    m_selectionLabel = new QLabel(this);
    m_busyLabel = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(160);
    m_progress->setTextVisible(false);
    m_progress->setVisible(false);
    statusBar()->addWidget(m_stepLabel);
    statusBar()->addWidget(m_selectionLabel, 1);
    statusBar()->addPermanentWidget(m_busyLabel);
    statusBar()->addPermanentWidget(m_progress);
}

void MainWindow::restoreLayout()
{
    QSettings settings;
    if (settings.contains(QStringLiteral("window/geometry")))
        restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    else
        resize(1600, 1000);
    if (settings.contains(QStringLiteral("window/state")))
        restoreState(settings.value(QStringLiteral("window/state")).toByteArray(), kLayoutVersion);
    const QString theme = settings.value(QStringLiteral("theme"), QStringLiteral("system")).toString();
    applyPalette(theme == QStringLiteral("dark") || (theme == QStringLiteral("system") && systemPrefersDark()));
}

void MainWindow::resetLayout()
{
    for (QDockWidget* d : m_docks)
        d->setFloating(false);
    restoreState(m_defaultState, kLayoutVersion);
    applyDefaultDockSizes();
}

void MainWindow::applyDefaultDockSizes()
{
    // In proportion to the window as it is now (the default state was saved before it had a size).
    QDockWidget *steps = dock(QStringLiteral("steps")), *graph = dock(QStringLiteral("graph")),
                *inspector = dock(QStringLiteral("inspector")), *factors = dock(QStringLiteral("factorTable")),
                *breakpoints = dock(QStringLiteral("breakpoints")), *mesh = dock(QStringLiteral("mesh"));
    if (!steps || !graph || !inspector || !factors || !breakpoints || !mesh)
        return;
    resizeDocks({steps, graph, inspector}, {430, 800, 380}, Qt::Horizontal);
    resizeDocks({steps, breakpoints}, {420, 150}, Qt::Vertical);
    resizeDocks({graph, factors}, {580, 320}, Qt::Vertical);
    resizeDocks({factors}, {320}, Qt::Vertical);
    resizeDocks({factors, mesh}, {560, 1040}, Qt::Horizontal);
}

void MainWindow::applyPalette(bool dark)
{
    // Fusion draws the same on every platform and takes a palette whole.
    QApplication::setStyle(QStringLiteral("Fusion"));
    QPalette p;
    if (dark) {
        const QColor window(0x2b, 0x2d, 0x31), base(0x1e, 0x1f, 0x22), text(0xdf, 0xe1, 0xe5);
        p.setColor(QPalette::Window, window);
        p.setColor(QPalette::WindowText, text);
        p.setColor(QPalette::Base, base);
        p.setColor(QPalette::AlternateBase, window);
        p.setColor(QPalette::ToolTipBase, base);
        p.setColor(QPalette::ToolTipText, text);
        p.setColor(QPalette::Text, text);
        p.setColor(QPalette::Button, window);
        p.setColor(QPalette::ButtonText, text);
        p.setColor(QPalette::BrightText, Qt::white);
        p.setColor(QPalette::Highlight, QColor(0x35, 0x74, 0xf0));
        p.setColor(QPalette::HighlightedText, Qt::white);
        p.setColor(QPalette::Link, QColor(0x6c, 0xa8, 0xff));
        p.setColor(QPalette::PlaceholderText, QColor(0x8a, 0x8d, 0x93));
        p.setColor(QPalette::Mid, QColor(0x45, 0x48, 0x4e));
        p.setColor(QPalette::Dark, QColor(0x16, 0x17, 0x19));
        p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x6e, 0x71, 0x76));
        p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x6e, 0x71, 0x76));
        p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x6e, 0x71, 0x76));
    } else {
        p = QApplication::style()->standardPalette();
    }
    QApplication::setPalette(p);
    refreshIcons(this);
}

void MainWindow::updateTitle()
{
    const QString file = m_context->filePath();
    setWindowTitle(file.isEmpty() ? QStringLiteral("shardx")
                                  : QStringLiteral("%1 — shardx").arg(QFileInfo(file).fileName()));
    const bool open = m_context->session() != nullptr;
    m_saveAction->setEnabled(open);
    m_reloadAction->setEnabled(!file.isEmpty());
}

void MainWindow::updateStatus()
{
    const Session* s = m_context->session();
    if (!s) {
        m_stepLabel->setText(tr("No program open: File > Open, or drop a .mlir / .json file here"));
        m_selectionLabel->clear();
        return;
    }
    if (s->trace())
        m_stepLabel->setText(tr("Step %1 of %2").arg(m_context->step()).arg(m_context->numSteps()));
    else
        m_stepLabel->setText(m_context->isBusy() ? tr("Propagating...") : tr("Not propagated"));
    const ir::ProgramIds* ids = s->ids();
    const int v = m_context->selectedValue();
    if (ids && v >= 0 && static_cast<size_t>(v) < ids->values().size()) {
        const ir::ProgramValue& pv = ids->values()[static_cast<size_t>(v)];
        const TensorSharding* sh = s->shardingAt(v);
        QString text = QString::fromStdString(pv.id);
        if (pv.scope >= 0)
            text += QStringLiteral("  ·  ") + QString::fromStdString(ids->scopeName(pv.scope));
        text += QStringLiteral("  ·  ") + (sh ? QString::fromStdString(sh->toString()) : tr("no sharding"));
        m_selectionLabel->setText(text);
    } else {
        m_selectionLabel->clear();
    }
}

// ---- files -------------------------------------------------------------------------------------------

void MainWindow::openFile(const QString& path)
{
    if (!m_watcher->files().isEmpty())
        m_watcher->removePaths(m_watcher->files());
    m_reloadOffered = false;
    OpenOptions options;
    options.strict = m_options.strict;
    PropagationRequest request = m_context->propagationRequest();
    if (!m_options.strategy.isEmpty())
        request.strategy = m_options.strategy.toStdString();
    m_context->open(QFileInfo(path).absoluteFilePath(), options, false);
    // Propagate once it opened, with the strategy of the menu.
    QMetaObject::Connection* once = new QMetaObject::Connection;
    *once = connect(m_context, &SessionContext::opened, this, [this, once, request](bool ok) {
        disconnect(*once);
        delete once;
        if (ok)
            m_context->propagate(request);
    });
}

void MainWindow::onOpened(bool ok)
{
    const QString path = m_context->filePath();
    if (QFileInfo::exists(path)) {
        m_watcher->addPath(path);
        addRecentFile(path);
    }
    if (!ok)
        statusBar()->showMessage(tr("%1 did not open: see the Problems panel").arg(QFileInfo(path).fileName()), 10000);
    updateTitle();
}

void MainWindow::onFileChangedOnDisk(const QString& path)
{
    if (path != m_context->filePath() || m_reloadOffered)
        return;
    m_reloadOffered = true;
    // Editors often replace the file (remove + create): watch the new one once it is there.
    QTimer::singleShot(200, this, [this, path] {
        if (QFileInfo::exists(path) && !m_watcher->files().contains(path))
            m_watcher->addPath(path);
        const auto answer = QMessageBox::question(
            this, tr("File Changed"),
            tr("%1 changed on disk. Reload it? (Edits and the recorded trace are replaced.)").arg(path),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
        m_reloadOffered = false;
        if (answer == QMessageBox::Yes)
            openFile(path);
    });
}

void MainWindow::save()
{
    const QString path = m_context->filePath();
    if (path.isEmpty() || !QFileInfo(path).isWritable()) {
        saveAs();
        return;
    }
    // The user's program with their edits (not the propagated result: that is Save As).
    Status s = m_context->session()->save(path.toStdString(), Session::Format::Auto, true);
    if (!s)
        QMessageBox::warning(this, tr("Save"), QString::fromStdString(s.error().message));
    else
        statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
}

void MainWindow::saveAs()
{
    if (!m_context->session())
        return;
    QString selected;
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Program As"), m_context->filePath(),
                                                      tr("Propagated program, MLIR (*.mlir);;Propagated program, JSON "
                                                         "(*.json);;Program as edited, MLIR (*.mlir)"),
                                                      &selected);
    if (path.isEmpty())
        return;
    const bool source = selected.startsWith(tr("Program as edited"));
    const Session::Format format =
        path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive) ? Session::Format::Json : Session::Format::Mlir;
    Status s = m_context->session()->save(path.toStdString(), format, source);
    if (!s)
        QMessageBox::warning(this, tr("Save As"), QString::fromStdString(s.error().message));
    else
        statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
}

void MainWindow::exportTrace()
{
    if (!m_context->session() || !m_context->session()->trace())
        return;
    // Session::saveTrace writes JSON for a .json name and the compact binary trace otherwise.
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export Trace"), QStringLiteral("trace.json"),
                                     tr("shardx JSON traces (*.json);;shardx binary traces (*.shxtrace)"));
    if (path.isEmpty())
        return;
    Status s = m_context->session()->saveTrace(path.toStdString());
    if (!s)
        QMessageBox::warning(this, tr("Export Trace"), QString::fromStdString(s.error().message));
}

void MainWindow::addRecentFile(const QString& path)
{
    QSettings settings;
    QStringList files = settings.value(QStringLiteral("recentFiles")).toStringList();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    settings.setValue(QStringLiteral("recentFiles"), files);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    for (int i = 0; i < files.size(); ++i) {
        const QString path = files[i];
        QAction* a = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()), this,
                                             [this, path] { openFile(path); });
        a->setToolTip(path);
        a->setStatusTip(path);
    }
    m_recentMenu->setEnabled(!files.isEmpty());
    if (!files.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear List"), this, [this] {
            QSettings().remove(QStringLiteral("recentFiles"));
            updateRecentMenu();
        });
    }
}

// ---- window events -------------------------------------------------------------------------------------

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (m_context->undoStack()->canUndo() && !m_context->undoStack()->isClean()) {
        const auto answer =
            QMessageBox::question(this, tr("Unsaved Edits"), tr("The program has sharding edits. Save them first?"),
                                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
        if (answer == QMessageBox::Cancel) {
            event->ignore();
            return;
        }
        if (answer == QMessageBox::Save)
            save();
    }
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState(kLayoutVersion));
    m_context->cancel();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.front().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.front().isLocalFile()) {
        openFile(urls.front().toLocalFile());
        event->acceptProposedAction();
    }
}

QDockWidget* MainWindow::dock(const QString& name) const
{
    // `collectives`, `Collectives`, `why-replicated` and `"Why Replicated?"` all name one panel:
    // the object name or the title, case, spaces, dashes and punctuation aside.
    auto key = [](const QString& s) {
        QString k;
        for (QChar c : s)
            if (c.isLetterOrNumber())
                k += c.toLower();
        return k;
    };
    const QString wanted = key(name);
    for (QDockWidget* d : m_docks)
        if (key(d->objectName()) == wanted || key(d->windowTitle()) == wanted)
            return d;
    return nullptr;
}

void MainWindow::showAbout()
{
    QMessageBox::about(
        this, tr("About shardx"),
        tr("<h3>shardx %1</h3>"
           "<p>A desktop explorer and step-through debugger for tensor sharding: StableHLO programs with "
           "OpenXLA Shardy shardings, propagated exactly as Shardy does, every step and decision recorded.</p>"
           "<p>Built with Qt %2, Graphviz and nlohmann/json.</p>")
            .arg(QApplication::applicationVersion(), QString::fromLatin1(qVersion())));
}

// ---- start and screenshots -------------------------------------------------------------------------------

void MainWindow::childEvent(QChildEvent* event)
{
    if (event->polished())
        if (auto* bar = qobject_cast<QTabBar*>(event->child())) {
            bar->setUsesScrollButtons(true);
            bar->setElideMode(Qt::ElideRight);
        }
    QMainWindow::childEvent(event);
}

bool MainWindow::saveScreenshot(const QString& path)
{
    // Miniatures redraw new colours on a timer: a screenshot shows the current ones.
    for (GraphMinimap* minimap : findChildren<GraphMinimap*>())
        minimap->flush();
    return grab().save(path, "PNG");
}

int MainWindow::start(const StartupOptions& options)
{
    m_options = options;
    if (options.dark || options.light)
        applyPalette(options.dark);
    if (!options.screenshot.isEmpty()) {
        // A fixed size and the default layout, so that screenshots do not depend on the last run.
        resize(options.width, options.height);
    }
    show();
    if (!options.screenshot.isEmpty()) {
        QApplication::processEvents();
        resetLayout();
    }
    for (const QString& name : options.show) {
        QDockWidget* d = dock(name);
        if (!d) {
            QStringList names;
            for (const QDockWidget* each : m_docks)
                names << each->objectName();
            std::fprintf(stderr, "shardx: warning: --show: no panel '%s' (one of: %s)\n", qPrintable(name),
                         qPrintable(names.join(QStringLiteral(", "))));
            continue;
        }
        d->show();
        d->raise();
    }
    if (!options.rules.isEmpty())
        if (auto* rules = qobject_cast<RulesPanel*>(dock(QStringLiteral("rules"))->widget()))
            rules->loadRules(QFileInfo(options.rules).absoluteFilePath());
    if (!options.injectFault.isEmpty())
        if (auto* v = findChild<ValidationPanel*>())
            v->faultBox()->setCurrentIndex(std::max(0, v->faultBox()->findData(options.injectFault)));
    if (!options.strategy.isEmpty())
        for (QAction* a : m_strategyGroup->actions())
            a->setChecked(a->data().toString() == options.strategy);
    if (!options.file.isEmpty()) {
        openFile(options.file);
        // Apply --step / --select once the propagated result is there (or the open failed).
        auto apply = [this, options] {
            if (options.step)
                m_context->setStep(static_cast<size_t>(*options.step));
            // Queued: the propagation's moduleChanged, which clears the panel's results, comes after this.
            if (options.validate)
                if (auto* v = findChild<ValidationPanel*>())
                    QMetaObject::invokeMethod(
                        v, [v] { v->run(); }, Qt::QueuedConnection);
            if (!options.select.isEmpty() && m_context->session()) {
                Expected<int> v = m_context->session()->findValue(options.select.toStdString());
                if (v)
                    m_context->select(*v);
                else
                    statusBar()->showMessage(QString::fromStdString(v.error().message), 10000);
            }
        };
        QMetaObject::Connection* once = new QMetaObject::Connection;
        *once = connect(m_context, &SessionContext::propagated, this, [this, once, apply] {
            disconnect(*once);
            delete once;
            apply();
        });
        connect(m_context, &SessionContext::opened, this, [apply](bool ok) {
            if (!ok)
                apply();
        });
    }
    if (!options.screenshot.isEmpty()) {
        if (!options.file.isEmpty()) {
            m_context->waitForIdle();
            // The graph lays out groups on the core thread too: let them land and paint.
            m_context->waitForIdle();
        }
        QApplication::processEvents();
        QApplication::processEvents();
        const bool ok = saveScreenshot(options.screenshot);
        if (!ok)
            std::fprintf(stderr, "shardx: error: cannot write %s\n", qPrintable(options.screenshot));
        return ok ? 0 : 1;
    }
    return QApplication::exec();
}

} // namespace shardx::views
