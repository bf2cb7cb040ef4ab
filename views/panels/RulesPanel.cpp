// RulesPanel: the rule file, its preview on the core thread, the table of matches and Apply.
#include "views/panels/RulesPanel.h"

#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "core/annotate/ModuleAnnotator.h"
#include "core/io/MlirPrinter.h"
#include "core/io/ModuleLoader.h"
#include "views/app/Icons.h"
#include "views/models/DiagnosticsModel.h"
#include "views/models/RulesModel.h"
#include "views/panels/TableViews.h"
#include "views/session/CoreRunner.h"
#include "views/session/SessionContext.h"

namespace shardx::views {

/// One preview: the rule file read and applied to a copy of the user's program (core thread).
struct RulesPreview {
    bool open = false;      ///< a program was open
    bool rulesRead = false; ///< the rule file read and parsed
    QString meshText;       ///< `@mesh = <["data"=2, "model"=4]> (the module's)`
    std::vector<RuleRow> rows;
    std::vector<Diagnostic> problems; ///< the rule file's error, or annotate's errors and warnings
    bool ok = false;                  ///< no errors: Apply may write `text`
    std::string text;                 ///< the annotated program
};

namespace {

QString rulesQ(const std::string& s) { return QString::fromStdString(s); }

/// The value index of `query` in `s` (`@main:%arg0`), -1 when it names none.
int rulesValueOf(const Session* s, const std::string& query)
{
    Expected<int> v = s->findValue(query);
    return v ? *v : -1;
}

void rulesCompute(const Session* s, const std::string& rulesPath, bool keepExisting, RulesPreview& out)
{
    std::string text;
    if (!io::readFileText(rulesPath, text)) {
        out.problems.push_back(
            Diagnostic{Severity::Error, SourcePos{rulesPath, 0, 0}, "cannot open rule file '" + rulesPath + "'", {}});
        return;
    }
    Expected<annotate::RuleSet> rules = annotate::parseRuleSet(text, rulesPath);
    if (!rules) {
        out.problems.push_back(Diagnostic{Severity::Error, rules.error().pos, rules.error().message, {}});
        return;
    }
    out.rulesRead = true;
    if (!s || !s->sourceModule())
        return;
    out.open = true;
    std::unique_ptr<ir::Module> module = s->sourceModule()->clone();
    annotate::AnnotateOptions options;
    options.keepExisting = keepExisting;
    const annotate::AnnotateResult result = annotate::annotateModule(*module, *rules, options);
    out.problems = result.diagnostics.all();
    out.ok = result.ok() && !result.mesh.axes().empty();
    if (!result.mesh.axes().empty())
        out.meshText = rulesQ("@" + result.meshName + " = " + result.mesh.toString()) +
                       (result.meshAdded ? QObject::tr(" (added to the program)") : QObject::tr(" (the program's)"));
    auto ruleOf = [&](const annotate::LeafSharding& l) {
        return l.rule >= 0 && static_cast<size_t>(l.rule) < rules->rules.size()
                   ? rulesQ(rules->rules[static_cast<size_t>(l.rule)].pointer)
                   : QString();
    };
    for (const annotate::ArgumentAnnotation& a : result.arguments) {
        RuleRow r;
        r.kind = a.isResult ? RuleRow::Kind::Result : RuleRow::Kind::Argument;
        r.func = rulesQ(a.func);
        r.name = rulesQ(a.value);
        r.path = rulesQ(a.path);
        r.type = rulesQ(a.type);
        r.kept = a.kept;
        r.sharding = rulesQ(a.sharding);
        r.error = rulesQ(a.result.error);
        if (!a.kept && a.result.error.empty() && !a.sharding.empty())
            r.spec = rulesQ(annotate::partitionSpecText(a.result.spec));
        r.pointer = a.kept ? QString() : ruleOf(a.result);
        r.rule = a.kept               ? QObject::tr("kept what it had")
                 : a.result.rule >= 0 ? rulesQ(a.result.matched)
                 : a.isResult         ? QObject::tr("no rule matched: left to propagation")
                                      : QObject::tr("no rule matched: replicated");
        if (!a.existing.empty())
            r.had =
                rulesQ((a.existing[0] == '{' ? "mhlo.sharding " : "sdy.sharding ") + a.existing +
                       (a.existingSpec.empty() ? std::string()
                                               : (a.existingSpec.rfind("P(", 0) == 0 ? " = " : ": ") + a.existingSpec));
        r.value = rulesValueOf(s, a.isResult ? a.func + ":result" + std::to_string(a.index) : a.func + ":" + a.value);
        out.rows.push_back(std::move(r));
    }
    for (const annotate::AnnotationSite& site : result.sites) {
        RuleRow r;
        r.kind = RuleRow::Kind::Annotation;
        r.func = rulesQ(site.func);
        r.name = rulesQ(site.value);
        r.path = rulesQ(site.annotation);
        r.type = rulesQ(site.type);
        r.sharding = rulesQ(site.sharding);
        r.error = rulesQ(site.result.error);
        if (!site.sharding.empty())
            r.spec = rulesQ(annotate::partitionSpecText(site.result.spec));
        r.pointer = ruleOf(site.result);
        r.rule =
            site.result.rule >= 0 ? rulesQ(site.result.matched) : QObject::tr("no named rule: the constraint stays");
        r.had = site.existing.empty() ? QString() : rulesQ("sharding_constraint " + site.existing);
        r.value = rulesValueOf(s, site.func + ":" + site.value);
        out.rows.push_back(std::move(r));
    }
    if (out.ok) {
        io::PrintOptions print;
        print.printDebugInfo = true;
        out.text = io::printModule(*module, print);
    }
}

} // namespace

RulesPanel::RulesPanel(SessionContext& context, QWidget* parent)
    : QWidget(parent),
      m_context(context),
      m_model(new RulesModel(this)),
      m_proxy(new QSortFilterProxyModel(this)),
      m_problems(new DiagnosticsModel(this)),
      m_file(new QLabel(this)),
      m_summary(new QLabel(this)),
      m_keepExisting(new QCheckBox(tr("Keep existing shardings"), this)),
      m_apply(new QPushButton(tr("Apply"), this)),
      m_view(new QTableView),
      m_problemsView(new QTableView)
{
    auto* load = new QPushButton(themedIcon(QStringLiteral("open")), tr("Load Rules..."), this);
    load->setObjectName(QStringLiteral("loadRules"));
    load->setToolTip(tr("Load a scalax-style rule file (JSON: mesh and fsdp, tree_path, policy and named rules)"));
    m_apply->setObjectName(QStringLiteral("applyRules"));
    m_apply->setToolTip(tr("Write the program with these shardings (next to the file opened, "
                           "*.annotated.mlir), open it and propagate it"));
    m_apply->setEnabled(false);
    m_keepExisting->setToolTip(tr("Arguments and results that already have a sharding (sdy.sharding, or an "
                                  "mhlo.sharding JAX exported) keep it; otherwise the rules win"));
    m_file->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(RulesModel::SortRole);
    m_view->setObjectName(QStringLiteral("rulesTable"));
    m_view->setModel(m_proxy);
    setUpListTable(m_view);
    m_problemsView->setObjectName(QStringLiteral("rulesProblems"));
    m_problemsView->setModel(m_problems);
    setUpListTable(m_problemsView);
    m_problemsView->setSortingEnabled(false);

    auto* bar = new QHBoxLayout;
    bar->addWidget(load);
    bar->addWidget(m_file, 1);
    bar->addWidget(m_keepExisting);
    bar->addWidget(m_apply);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_view);
    splitter->addWidget(m_problemsView);
    splitter->setStretchFactor(0, 4);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(m_summary);
    layout->addWidget(splitter, 1);

    // Tabbed with the other bottom docks, the panel must not make the window wider than they do: its
    // bar may be cut in a narrow dock rather than the window grow.
    setMinimumWidth(80);

    connect(load, &QPushButton::clicked, this, &RulesPanel::browse);
    connect(m_apply, &QPushButton::clicked, this, [this] { apply(); });
    connect(m_keepExisting, &QCheckBox::toggled, this, [this] {
        m_dirty = true;
        refresh();
    });
    auto select = [this](const QModelIndex& index) {
        const int value = index.data(RulesModel::ValueRole).toInt();
        if (value >= 0)
            m_context.select(value);
    };
    connect(m_view, &QTableView::clicked, this, select);
    connect(m_view, &QTableView::activated, this, select);
    auto showProblem = [this](const QModelIndex& index) {
        const int line = index.data(DiagnosticsModel::LineRole).toInt();
        if (line > 0)
            m_context.showSource(index.data(DiagnosticsModel::FileRole).toString(), line,
                                 index.data(DiagnosticsModel::ColumnRole).toInt());
    };
    connect(m_problemsView, &QTableView::clicked, this, showProblem);
    connect(m_problemsView, &QTableView::activated, this, showProblem);
    connect(&m_context, &SessionContext::moduleChanged, this, [this] {
        m_dirty = true;
        refresh();
    });
    connect(&m_context, &SessionContext::selectionChanged, this, [this](int value) {
        const int row = m_model->rowOfValue(value);
        if (row < 0) {
            m_view->clearSelection();
            return;
        }
        const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
        m_view->selectionModel()->setCurrentIndex(index,
                                                  QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_view->scrollTo(index);
    });
    adopt(std::make_shared<RulesPreview>());
}

RulesPanel::~RulesPanel() = default;

QString RulesPanel::summaryText() const
{
    return m_summary->text().remove(QRegularExpression(QStringLiteral("<[^>]*>")));
}

void RulesPanel::browse()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Load Sharding Rules"), QFileInfo(m_rulesPath).path(),
                                                      tr("Rule files (*.json);;All files (*)"));
    if (!path.isEmpty())
        loadRules(path);
}

void RulesPanel::loadRules(const QString& path)
{
    m_rulesPath = path;
    m_dirty = true;
    refresh();
}

void RulesPanel::setKeepExisting(bool keep) { m_keepExisting->setChecked(keep); }

void RulesPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    refresh();
}

void RulesPanel::setDockShown(bool shown)
{
    m_dockShown = shown;
    if (shown)
        refresh();
}

void RulesPanel::refresh()
{
    if (!m_dirty || m_rulesPath.isEmpty() || !m_dockShown || !isVisible())
        return;
    m_dirty = false;
    const int generation = ++m_generation;
    auto preview = std::make_shared<RulesPreview>();
    m_context.postRead(
        QStringLiteral("rules"),
        [preview, path = m_rulesPath.toStdString(), keep = m_keepExisting->isChecked()](const Session* s) {
            rulesCompute(s, path, keep, *preview);
        },
        this,
        [this, preview, generation] {
            if (generation == m_generation)
                adopt(preview);
        });
}

void RulesPanel::adopt(const std::shared_ptr<RulesPreview>& preview)
{
    m_shown = preview;
    m_model->setRows(preview->rows);
    m_problems->setDiagnostics(preview->problems);
    m_problemsView->setVisible(!preview->problems.empty());
    m_file->setText(m_rulesPath.isEmpty() ? tr("<i>No rule file loaded</i>")
                                          : QStringLiteral("<b>%1</b>").arg(QFileInfo(m_rulesPath).fileName()));
    m_file->setToolTip(m_rulesPath);
    m_apply->setEnabled(preview->ok && !preview->text.empty());
    QString summary;
    if (m_rulesPath.isEmpty())
        summary = tr("Load a rule file (scalax's mesh helper and fsdp, tree_path, policy and named rules) to see "
                     "which rule shards each argument; Apply annotates the program and propagates it.");
    else if (!preview->rulesRead)
        summary = tr("<b style='color:#c0392b'>The rule file has an error</b> (at the JSON pointer below).");
    else if (!preview->open)
        summary = tr("No program open.");
    else {
        int matched = 0;
        for (const RuleRow& r : preview->rows)
            matched += r.pointer.isEmpty() ? 0 : 1;
        summary = tr("Mesh %1; <b>%2</b> of %3 values matched a rule")
                      .arg(preview->meshText.toHtmlEscaped())
                      .arg(matched)
                      .arg(preview->rows.size());
        const int errors = m_problems->errorCount(), warnings = m_problems->warningCount();
        if (errors)
            summary += tr("; <b style='color:#c0392b'>%1 error(s)</b>: fix them to apply").arg(errors);
        if (warnings)
            summary += tr("; %1 warning(s)").arg(warnings);
        summary += QLatin1Char('.');
    }
    m_summary->setText(summary);
    m_view->resizeColumnsToContents();
    for (int col = 0; col < RulesModel::NumColumns - 1; ++col)
        m_view->setColumnWidth(col, std::min(m_view->columnWidth(col) + 12, 340));
    m_problemsView->resizeColumnsToContents();
    emit previewed();
}

QString RulesPanel::defaultOutputPath() const
{
    const QFileInfo file(m_context.filePath());
    QString base = file.completeBaseName();
    if (base.endsWith(QStringLiteral(".annotated")))
        base.chop(10);
    const QString name = base + QStringLiteral(".annotated.mlir");
    const QFileInfo dir(file.absolutePath());
    if (!m_context.filePath().isEmpty() && dir.isDir() && dir.isWritable())
        return dir.absoluteFilePath() + QLatin1Char('/') + name;
    return QDir::temp().filePath(name);
}

bool RulesPanel::apply(const QString& outputPath)
{
    if (!m_shown || !m_shown->ok || m_shown->text.empty() || m_context.isBusy())
        return false;
    const QString path = outputPath.isEmpty() ? defaultOutputPath() : outputPath;
    auto status = std::make_shared<Status>();
    // Written on the core thread, in order with the other core work; opened (and propagated) here.
    m_context.runner().post(
        QStringLiteral("rules-apply"),
        [status, text = m_shown->text, file = path.toStdString()] { *status = writeFileAtomically(file, text); }, this,
        [this, status, path] {
            if (!*status) {
                emit applied(false, path, QString::fromStdString(status->error().message));
                return;
            }
            m_context.open(path);
            emit applied(true, path, tr("Annotated program written to %1 and opened").arg(path));
        });
    return true;
}

} // namespace shardx::views
