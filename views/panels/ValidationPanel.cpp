// ValidationPanel: the settings, the run on the core thread (a copy of the module, then exec::validate), its
// progress and cancel, the verdict and the table of compared values.
#include "views/panels/ValidationPanel.h"

#include <atomic>
#include <mutex>
#include <optional>
#include <string>

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QTextDocumentFragment>
#include <QTimer>
#include <QVBoxLayout>

#include "core/exec/ReferenceExecutor.h"
#include "core/exec/Validation.h"
#ifdef SHARDX_HAVE_VULKAN
#include "core/exec/VulkanExecutor.h"
#endif
#include "views/models/ValidationModel.h"
#include "views/panels/TableViews.h"
#include "views/session/CoreRunner.h"
#include "views/session/SessionContext.h"

namespace shardx::views {

/// One validation: what the core thread reads and writes, shared with the panel (which may go first).
struct ValidationRun {
    exec::ValidationOptions options; ///< without progress and cancel (set on the core thread)
    std::string backend;             ///< `reference`, `vulkan`
    std::atomic<bool> cancel{false};
    // Written on the core thread, read by the panel's timer.
    std::mutex mutex;
    std::string stage;
    int done = 0;
    int total = 0;
    // Written on the core thread before the panel reads them in finish() (the runner orders the two).
    std::unique_ptr<ir::Module> module; ///< the copy validated
    std::shared_ptr<const exec::ValidationReport> report;
    std::string error; ///< why it could not run
    std::string note;  ///< the Vulkan back end was unavailable: the verdict is the reference's
};

namespace {

QString valEsc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

/// Runs `run` (on the core thread).
void valRunOnCore(ValidationRun& run)
{
    exec::ValidationOptions options = run.options;
    options.cancel = &run.cancel;
    options.progress = [&run](const std::string& stage, int done, int total) {
        std::lock_guard<std::mutex> lock(run.mutex);
        run.stage = stage;
        run.done = done;
        run.total = total;
    };
    auto adopt = [&run](Expected<exec::ValidationReport>& r, const std::string& summary) {
        if (!r) {
            run.error = r.error().format();
            return;
        }
        r->backendSummary = summary;
        run.report = std::make_shared<const exec::ValidationReport>(std::move(*r));
    };
    exec::ReferenceExecutor reference;
    if (run.backend == "vulkan") {
#ifdef SHARDX_HAVE_VULKAN
        auto vulkan = exec::VulkanExecutor::create({});
        if (vulkan) {
            Expected<exec::ValidationReport> r = exec::validate(*run.module, **vulkan, options);
            if (r || run.cancel) {
                adopt(r, "vulkan: " + (*vulkan)->stats().summary());
                return;
            }
            run.note = "The Vulkan back end failed (" + r.error().message + "): the verdict is the reference's.";
        } else {
            run.note = "Vulkan is unavailable (" + vulkan.error().message + "): the verdict is the reference's.";
        }
#else
        run.note = "This build has no Vulkan back end: the verdict is the reference's.";
#endif
    }
    Expected<exec::ValidationReport> r = exec::validate(*run.module, reference, options);
    adopt(r, {});
}

} // namespace

ValidationPanel::ValidationPanel(SessionContext& context, QWidget* parent)
    : QWidget(parent),
      m_context(context),
      m_model(new ValidationModel(this)),
      m_proxy(new QSortFilterProxyModel(this)),
      m_backend(new QComboBox),
      m_mesh(new QLineEdit),
      m_seed(new QSpinBox),
      m_intermediates(new QCheckBox(tr("Every value"))),
      m_fault(new QComboBox),
      m_runButton(new QPushButton(tr("Run"))),
      m_cancelButton(new QPushButton(tr("Cancel"))),
      m_progress(new QProgressBar),
      m_stage(new QLabel),
      m_verdict(new QLabel),
      m_details(new QLabel),
      m_message(new QLabel),
      m_view(new QTableView),
      m_timer(new QTimer(this))
{
    m_backend->setObjectName(QStringLiteral("validationBackend"));
    m_backend->addItem(tr("Reference"), QStringLiteral("reference"));
    m_backend->addItem(tr("Vulkan"), QStringLiteral("vulkan"));
    m_backend->setToolTip(tr("Where the per-device programs run: the reference interpreter (CPU) or Vulkan; the global "
                             "program always runs on the reference"));
#ifndef SHARDX_HAVE_VULKAN
    m_backend->setItemData(1, tr("This build has no Vulkan back end"), Qt::ToolTipRole);
    m_backend->setItemData(1, 0, Qt::UserRole - 1); // disabled
#endif
    m_mesh->setObjectName(QStringLiteral("validationMesh"));
    m_mesh->setPlaceholderText(tr("as declared"));
    m_mesh->setToolTip(tr("Mesh sizes replacing the module's: 2x2 (every mesh's axes in order) or data=2,model=2"));
    m_mesh->setMaximumWidth(110);
    m_mesh->setMinimumWidth(60);
    m_seed->setObjectName(QStringLiteral("validationSeed"));
    m_seed->setRange(0, 1 << 30);
    m_seed->setMaximumWidth(90);
    m_seed->setToolTip(tr("Inputs are random from this seed (argument i from seed + i)"));
    m_intermediates->setObjectName(QStringLiteral("validationIntermediates"));
    m_intermediates->setChecked(true);
    m_intermediates->setToolTip(tr("Compare every value of the program, not only its results, to find the first "
                                   "one that diverges"));
    m_fault->setObjectName(QStringLiteral("validationFault"));
    m_fault->addItem(tr("None"), QStringLiteral("none"));
    m_fault->addItem(tr("Corrupt a collective"), QStringLiteral("collective"));
    m_fault->addItem(tr("Swap shards"), QStringLiteral("swap-shards"));
    m_fault->setToolTip(tr("Inject a fault to see validation catch it: the first collective's results corrupted on "
                           "device 1, or two devices given each other's shard of an input"));
    m_runButton->setObjectName(QStringLiteral("validationRun"));
    m_cancelButton->setObjectName(QStringLiteral("validationCancel"));
    m_progress->setTextVisible(false);
    m_progress->setMaximumWidth(160);
    m_progress->setMinimumWidth(60);
    m_verdict->setObjectName(QStringLiteral("validationVerdict"));
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setWordWrap(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setForegroundRole(QPalette::PlaceholderText);
    m_message->setWordWrap(true);
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setForegroundRole(QPalette::PlaceholderText);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ValidationModel::SortRole);
    m_view->setObjectName(QStringLiteral("validationTable"));
    m_view->setModel(m_proxy);
    setUpListTable(m_view);

    // Settings on two short rows, so that the panel fits beside the factor table (a 1600-pixel window); the
    // progress and Cancel at the end of the second while a validation runs; the verdict under them.
    auto labelled = [](QHBoxLayout* row, const QString& label, QWidget* w) {
        auto* l = new QLabel(label);
        l->setBuddy(w);
        row->addWidget(l);
        row->addWidget(w);
        row->addSpacing(6);
    };
    auto* settings = new QHBoxLayout;
    settings->addWidget(m_runButton);
    settings->addSpacing(6);
    labelled(settings, tr("&Back end"), m_backend);
    labelled(settings, tr("&Mesh"), m_mesh);
    labelled(settings, tr("S&eed"), m_seed);
    settings->addStretch(1);
    auto* more = new QHBoxLayout;
    more->addWidget(m_intermediates);
    more->addSpacing(6);
    labelled(more, tr("Inject &fault"), m_fault);
    more->addStretch(1);
    more->addWidget(m_stage);
    more->addWidget(m_progress);
    more->addWidget(m_cancelButton);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(settings);
    layout->addLayout(more);
    layout->addWidget(m_verdict);
    layout->addWidget(m_details);
    layout->addWidget(m_message, 1);
    layout->addWidget(m_view, 1);

    // The settings rows need about 500 pixels; the dock gets more in any window of 1200 pixels and up, but its
    // minimum must not widen the window (the bottom dock area holds the factor table beside it): below that
    // the rows are cut at their right end instead.
    setMinimumWidth(240);

    m_timer->setInterval(100);
    connect(m_timer, &QTimer::timeout, this, &ValidationPanel::pollProgress);
    connect(m_runButton, &QPushButton::clicked, this, [this] { run(); });
    connect(m_cancelButton, &QPushButton::clicked, this, &ValidationPanel::cancel);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { onCurrentChanged(current); });
    // A click on the current row selects its value again (after the graph's selection moved on).
    connect(m_view, &QTableView::clicked, this,
            [this](const QModelIndex& index) { selectRow(m_proxy->mapToSource(index).row()); });
    // Results name values of the program they ran on: a change makes them stale.
    connect(&m_context, &SessionContext::moduleChanged, this, [this] {
        if (m_run)
            m_run->cancel = true;
        clearResults({});
    });
    connect(&m_context, &SessionContext::closed, this, [this] { clearResults({}); });
    connect(&m_context, &SessionContext::busyChanged, this, &ValidationPanel::updateControls);
    clearResults({});
}

ValidationPanel::~ValidationPanel()
{
    // The run (shared with the core thread) goes on alone; it stops at its next op.
    if (m_run)
        m_run->cancel = true;
}

QString ValidationPanel::verdictText() const
{
    if (m_message->isVisible())
        return m_message->text();
    return m_verdictPlain;
}

bool ValidationPanel::run()
{
    const Session* session = m_context.session();
    if (m_run || !session || !session->module())
        return false;
    auto run = std::make_shared<ValidationRun>();
    run->backend = m_backend->currentData().toString().toStdString();
    run->options.mesh = m_mesh->text().trimmed().toStdString();
    run->options.seed = static_cast<uint64_t>(m_seed->value());
    run->options.intermediates = m_intermediates->isChecked();
    run->options.fault = exec::parseInjectedFault(m_fault->currentData().toString().toStdString())
                             .value_or(exec::InjectedFaultKind::None);
    m_run = run;
    {
        std::lock_guard<std::mutex> lock(run->mutex);
        run->stage = "copying the program";
    }
    m_model->setReport(nullptr);
    m_verdict->setText(tr("Validating…"));
    m_verdict->show();
    m_verdictPlain = m_verdict->text();
    m_details->clear();
    m_details->hide();
    m_message->hide();
    m_view->show();
    m_timer->start();
    pollProgress();
    updateControls();
    // The copy is taken with the session held still (postRead); the validation then runs on the copy, so that
    // opening or editing meanwhile does not wait for it.
    m_context.postRead(
        QString(),
        [run](const Session* s) {
            if (!s || !s->module())
                return;
            run->module = s->module()->clone();
            // The module the graph shows is propagated already; an unpropagated one gets the whole pipeline.
            run->options.strategy = s->module() != s->sourceModule() ? std::string() : std::string("pipeline");
        },
        this,
        [this, run] {
            if (run != m_run)
                return;
            if (!run->module || run->cancel) {
                finish(run);
                return;
            }
            m_context.runner().post(
                QString(), [run] { valRunOnCore(*run); }, this, [this, run] { finish(run); });
        });
    return true;
}

void ValidationPanel::cancel()
{
    if (!m_run)
        return;
    m_run->cancel = true;
    m_stage->setText(tr("Cancelling…"));
}

void ValidationPanel::pollProgress()
{
    if (!m_run)
        return;
    std::lock_guard<std::mutex> lock(m_run->mutex);
    if (!m_run->cancel)
        m_stage->setText(QString::fromStdString(m_run->stage) + QStringLiteral("…"));
    m_progress->setRange(0, std::max(1, m_run->total));
    m_progress->setValue(m_run->done);
}

void ValidationPanel::updateControls()
{
    const bool running = static_cast<bool>(m_run);
    const Session* s = m_context.session();
    m_runButton->setEnabled(!running && s && s->module() && !m_context.isBusy());
    m_cancelButton->setEnabled(running);
    m_cancelButton->setVisible(running);
    m_progress->setVisible(running);
    m_stage->setVisible(running);
    for (QWidget* w : std::initializer_list<QWidget*>{m_backend, m_mesh, m_seed, m_intermediates, m_fault})
        w->setEnabled(!running);
}

void ValidationPanel::clearResults(const QString& message)
{
    m_model->setReport(nullptr);
    const Session* s = m_context.session();
    QString text = message;
    if (text.isEmpty())
        text = s && s->module()
                   ? tr("Run compares what every device computes with what the unsharded program computes, value by "
                        "value: the program is partitioned, both run on random inputs, and each value's shards are "
                        "gathered and checked under its type's tolerance.")
                   : tr("Open a program to validate its partitioning.");
    if (!m_run) {
        m_verdict->clear();
        m_verdict->hide();
        m_details->hide();
    }
    m_message->setText(text);
    m_message->setVisible(!m_run);
    m_view->setVisible(static_cast<bool>(m_run));
    m_verdictPlain.clear();
    updateControls();
}

void ValidationPanel::finish(const std::shared_ptr<ValidationRun>& run)
{
    if (run != m_run)
        return;
    m_run.reset();
    m_timer->stop();
    updateControls();
    m_message->hide();
    m_view->show();
    m_verdict->show();
    const QString green = QStringLiteral("#2e9e44"), red = QStringLiteral("#d03030");
    QStringList details;
    if (!run->note.empty())
        details << valEsc(run->note);
    if (run->cancel || run->error == exec::kValidationCancelled) {
        m_verdict->setText(tr("Cancelled: nothing was compared."));
        m_verdictPlain = m_verdict->text();
        m_details->hide();
        emit finished(false);
        return;
    }
    if (!run->report) {
        const QString why = run->module ? QString::fromStdString(run->error) : tr("no program is open");
        m_verdict->setText(tr("<b style='color:%1'>Validation could not run</b>: %2").arg(red, why.toHtmlEscaped()));
        m_verdictPlain = tr("Validation could not run: %1").arg(why);
        m_details->setText(details.join(QStringLiteral("<br>")));
        m_details->setVisible(!details.isEmpty());
        m_view->hide();
        emit finished(false);
        return;
    }
    const exec::ValidationReport& r = *run->report;
    m_model->setReport(run->report);
    m_view->resizeColumnsToContents();
    for (int col = 0; col < ValidationModel::StatusColumn; ++col)
        m_view->setColumnWidth(col, std::min(m_view->columnWidth(col) + 12, 240));
    const size_t compared = r.arguments.size() + r.intermediates.size() + r.results.size();
    const QString setup = tr("mesh %1 (%2 devices) · %3 back end · seed %4")
                              .arg(QString::fromStdString(r.mesh))
                              .arg(r.devices)
                              .arg(QString::fromStdString(r.backend))
                              .arg(r.seed);
    QString html, plain;
    if (r.matches()) {
        html = tr("<b style='color:%1'>✔ Match</b>: %2 agree with the unsharded program within tolerance")
                   .arg(green, compared == 1 ? tr("1 value") : tr("%1 values").arg(compared));
        plain = tr("Match: %1 agree with the unsharded program within tolerance")
                    .arg(compared == 1 ? tr("1 value") : tr("%1 values").arg(compared));
    } else {
        const exec::Divergence& d = *r.firstDivergence;
        QString where = QString::fromStdString(d.opName);
        if (d.pos.line > 0)
            where += (where.isEmpty() ? QString() : QStringLiteral(", ")) +
                     tr("%1 line %2").arg(QFileInfo(QString::fromStdString(d.pos.file)).fileName()).arg(d.pos.line);
        const QString head =
            tr("first divergence %1%2 on device %3")
                .arg(QString::fromStdString(d.value), where.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(where))
                .arg(d.device);
        html = tr("<b style='color:%1'>✘ MISMATCH</b>: %2: %3").arg(red, head.toHtmlEscaped(), valEsc(d.what));
        plain = tr("MISMATCH: %1: %2").arg(head, QString::fromStdString(d.what));
    }
    // Under it, in grey: how it ran, the fault injected, what was not compared, where the back end ran ops.
    details.prepend(setup.toHtmlEscaped());
    if (!r.fault.empty()) {
        QString fault = QString::fromStdString(r.fault);
        if (!r.faultOp.empty())
            fault = tr("the results of %1 (%2 line %3) corrupted on device %4")
                        .arg(QString::fromStdString(r.faultOp),
                             QFileInfo(QString::fromStdString(r.faultPos.file)).fileName())
                        .arg(r.faultPos.line)
                        .arg(r.faultDevice);
        details << tr("Injected fault: %1").arg(fault.toHtmlEscaped());
    }
    if (!r.skipped.empty())
        details << tr("%1 not compared (partial sums, reduced by the collective after them)")
                       .arg(r.skipped.size() == 1 ? tr("1 value") : tr("%1 values").arg(r.skipped.size()));
    if (!r.backendSummary.empty())
        details << valEsc(r.backendSummary);
    m_verdict->setText(html);
    m_details->setText(details.join(QStringLiteral("<br>")));
    m_details->setVisible(!details.isEmpty());
    for (const QString& line : details)
        plain += QLatin1Char('\n') + QTextDocumentFragment::fromHtml(line).toPlainText();
    m_verdictPlain = plain;
    // The first divergence: its row current and its value selected in the graph.
    if (const int row = m_model->firstDivergenceRow(); row >= 0) {
        const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
        m_selecting = true;
        m_view->selectionModel()->setCurrentIndex(index,
                                                  QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_view->scrollTo(index, QAbstractItemView::PositionAtCenter);
        m_selecting = false;
        selectRow(row);
    }
    emit finished(true);
}

void ValidationPanel::onCurrentChanged(const QModelIndex& current)
{
    if (m_selecting || !current.isValid())
        return;
    selectRow(m_proxy->mapToSource(current).row());
}

void ValidationPanel::selectRow(int row)
{
    const exec::ValueComparison* c = m_model->comparison(row);
    if (!c || c->globalValue < 0)
        return;
    const Session* s = m_context.session();
    const ir::ProgramIds* ids = s ? s->ids() : nullptr;
    if (!ids || static_cast<size_t>(c->globalValue) >= ids->values().size())
        return;
    m_context.select(c->globalValue);
}

} // namespace shardx::views
