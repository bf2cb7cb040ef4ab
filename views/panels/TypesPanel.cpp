// TypesPanel: explicit-mode typing on the core thread, the table, the errors and the axis types.
#include "views/panels/TypesPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/explicit/ExplicitComparison.h"
#include "core/explicit/ExplicitTyper.h"
#include "views/models/DiagnosticsModel.h"
#include "views/panels/TableViews.h"
#include "views/session/SessionContext.h"

namespace shardx::views {

/// What one typing run gives, copied out of the core's structures on the core thread.
struct TypesSnapshot {
    bool open = false;       ///< a program was open
    bool propagated = false; ///< compared with a propagated program
    std::vector<TypeRow> rows;
    std::vector<Diagnostic> errors;
    QString meshName;
    QString abstractMesh; ///< `AbstractMesh('X': 2, 'Y': 4, axis_types=(Explicit, Auto))`
    QStringList axes;
    std::vector<explicit_::AxisType> types;
    QStringList sources;
};

namespace {

QString typesQ(const std::string& s) { return QString::fromStdString(s); }

/// Types the user's program of `s` with `overrides` and compares it with the propagated one
/// (core thread).
void typesCompute(const Session* s, const explicit_::AxisTypeOverrides& overrides, TypesSnapshot& out)
{
    if (!s || !s->sourceModule())
        return;
    out.open = true;
    explicit_::ExplicitOptions options;
    options.axisTypes = overrides;
    options.ids = s->ids();
    const explicit_::ExplicitResult result = explicit_::typeModule(*s->sourceModule(), options);
    out.meshName = typesQ(result.meshName);
    if (!result.meshName.empty())
        out.abstractMesh = typesQ(result.axisTypes.toString(result.mesh));
    for (size_t i = 0; i < result.axisTypes.axes.size(); ++i) {
        out.axes << typesQ(result.axisTypes.axes[i]);
        out.types.push_back(result.axisTypes.types[i]);
        out.sources << typesQ(result.axisTypes.sources[i]);
    }
    out.errors = result.diagnostics.all();
    std::vector<explicit_::TypeDifference> differences;
    out.propagated = s->trace() != nullptr && s->module() != s->sourceModule();
    if (out.propagated)
        differences = explicit_::compareWithPropagated(result, *s->module());
    for (const explicit_::TypedValue& v : result.values) {
        TypeRow r;
        r.func = typesQ(v.func);
        r.name = typesQ(v.name);
        r.op = typesQ(v.opName);
        r.type = v.type ? typesQ(v.type->toString()) : QString();
        r.how = typesQ(v.how);
        r.value = v.programId;
        r.file = typesQ(v.pos.file);
        r.line = v.pos.line;
        r.col = v.pos.col;
        if (out.propagated && v.type)
            r.propagated = r.type;
        for (const explicit_::TypeDifference& d : differences)
            if (d.programId == v.programId && d.func == v.func && d.name == v.name) {
                r.differs = true;
                r.moreSpecific = d.moreSpecific;
                r.propagated = typesQ(d.concrete);
                r.sharding = typesQ(d.sharding);
                r.reason = typesQ(d.reason);
            }
        for (const Diagnostic& d : out.errors)
            if (d.severity == Severity::Error && !v.opName.empty() && d.pos.line == v.pos.line &&
                d.pos.col == v.pos.col)
                r.error = true;
        out.rows.push_back(std::move(r));
    }
}

} // namespace

TypesPanel::TypesPanel(SessionContext& context, QWidget* parent)
    : QWidget(parent),
      m_context(context),
      m_model(new TypesModel(this)),
      m_proxy(new QSortFilterProxyModel(this)),
      m_errors(new DiagnosticsModel(this)),
      m_summary(new QLabel(this)),
      m_axesBox(new QWidget(this)),
      m_axesLayout(new QHBoxLayout(m_axesBox)),
      m_onlyNotable(new QCheckBox(tr("Only differences and errors"), this)),
      m_splitter(new QSplitter(Qt::Vertical, this)),
      m_view(new QTableView),
      m_details(new QLabel),
      m_errorsBox(new QWidget),
      m_errorsLabel(new QLabel),
      m_errorsView(new QTableView)
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(TypesModel::SortRole);
    m_proxy->setFilterRole(TypesModel::NotableRole);
    m_proxy->setFilterKeyColumn(0);
    m_view->setObjectName(QStringLiteral("typesTable"));
    m_view->setModel(m_proxy);
    setUpListTable(m_view);
    m_errorsView->setObjectName(QStringLiteral("typeErrorsTable"));
    m_errorsView->setModel(m_errors);
    setUpListTable(m_errorsView);
    m_errorsView->setSortingEnabled(false);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setWordWrap(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_details->setContentsMargins(2, 2, 2, 2);
    m_axesLayout->setContentsMargins(0, 0, 0, 0);
    m_errorsLabel->setWordWrap(true);

    auto* errorsLayout = new QVBoxLayout(m_errorsBox);
    errorsLayout->setContentsMargins(0, 0, 0, 0);
    errorsLayout->addWidget(m_errorsLabel);
    errorsLayout->addWidget(m_errorsView, 1);
    m_splitter->addWidget(m_view);
    m_splitter->addWidget(m_errorsBox);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 1);
    // The why of the current row: a line or two under the table, never more room than it needs.
    m_details->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    m_splitter->setChildrenCollapsible(false);

    auto* top = new QHBoxLayout;
    top->addWidget(m_axesBox);
    top->addStretch(1);
    top->addWidget(m_onlyNotable);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addLayout(top);
    layout->addWidget(m_splitter, 1);
    layout->addWidget(m_details);

    // Tabbed with the other bottom docks, the panel must not make the window wider than they do: its
    // bar may be cut in a narrow dock rather than the window grow.
    setMinimumWidth(80);

    connect(m_onlyNotable, &QCheckBox::toggled, this, &TypesPanel::setOnlyNotable);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showDetails(current); });
    auto select = [this](const QModelIndex& index) {
        const int value = index.data(TypesModel::ValueRole).toInt();
        if (value >= 0)
            m_context.select(value);
    };
    connect(m_view, &QTableView::clicked, this, select);
    connect(m_view, &QTableView::activated, this, select);
    connect(m_errorsView, &QTableView::clicked, this, [this](const QModelIndex& i) { activateError(i.row()); });
    connect(m_errorsView, &QTableView::activated, this, [this](const QModelIndex& i) { activateError(i.row()); });
    connect(&m_context, &SessionContext::moduleChanged, this, [this] {
        m_dirty = true;
        refresh();
    });
    connect(&m_context, &SessionContext::opened, this, [this] {
        // Another program: its own axis types.
        m_overrides.clear();
    });
    connect(&m_context, &SessionContext::selectionChanged, this, [this](int value) { followSelection(value); });
    showDetails({});
    refresh();
}

TypesPanel::~TypesPanel() = default;

QString TypesPanel::summaryText() const
{
    return m_summary->text().remove(QRegularExpression(QStringLiteral("<[^>]*>")));
}

QString TypesPanel::detailsText() const
{
    return m_details->text().remove(QRegularExpression(QStringLiteral("<[^>]*>")));
}

QString TypesPanel::axisTypesText() const
{
    QStringList parts;
    if (m_shown)
        for (int i = 0; i < m_shown->axes.size(); ++i)
            parts << m_shown->axes[i] + QLatin1Char('=') +
                         QString::fromLatin1(explicit_::axisTypeName(m_shown->types[static_cast<size_t>(i)]));
    return parts.join(QLatin1Char(','));
}

void TypesPanel::setAxisType(const QString& axis, explicit_::AxisType type)
{
    m_overrides[axis.toStdString()] = type;
    m_dirty = true;
    refresh();
}

void TypesPanel::resetAxisTypes()
{
    m_overrides.clear();
    m_dirty = true;
    refresh();
}

void TypesPanel::setOnlyNotable(bool only)
{
    if (m_onlyNotable->isChecked() != only)
        m_onlyNotable->setChecked(only); // comes back here through toggled
    m_proxy->setFilterFixedString(only ? QStringLiteral("true") : QString());
}

void TypesPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    refresh();
}

void TypesPanel::setDockShown(bool shown)
{
    m_dockShown = shown;
    refresh();
}

void TypesPanel::refresh()
{
    // Typed when shown: a program nobody looks at is never typed.
    if (!m_dirty || !m_dockShown || !isVisible())
        return;
    m_dirty = false;
    const int generation = ++m_generation;
    auto snapshot = std::make_shared<TypesSnapshot>();
    const explicit_::AxisTypeOverrides overrides = m_overrides;
    m_context.postRead(
        QStringLiteral("types"), [snapshot, overrides](const Session* s) { typesCompute(s, overrides, *snapshot); },
        this,
        [this, snapshot, generation] {
            if (generation == m_generation)
                adopt(snapshot);
        });
}

void TypesPanel::adopt(const std::shared_ptr<TypesSnapshot>& snapshot)
{
    const int selected = m_context.selectedValue();
    m_shown = snapshot;
    m_model->setRows(snapshot->rows);
    m_errors->setDiagnostics(snapshot->errors);
    rebuildAxes();
    QString summary;
    if (!snapshot->open) {
        summary = tr("No program open.");
    } else if (snapshot->meshName.isEmpty()) {
        summary = tr("The program has no mesh: explicit-mode types name mesh axes.");
    } else {
        const int errors = m_errors->errorCount();
        const int differ = m_model->differenceCount();
        summary = tr("<b>%1</b> values typed on <code>@%2</code>").arg(m_model->rowCount()).arg(snapshot->meshName);
        summary += errors ? tr(", <b style='color:#c0392b'>%1 error(s)</b>").arg(errors) : tr(", no errors");
        if (!snapshot->propagated)
            summary += tr("; not compared: propagation has not run.");
        else if (differ == 0)
            summary += tr("; Shardy's propagation agrees with every type.");
        else
            summary += tr("; <b>%1</b> differ from Shardy's propagation (select one to see why).").arg(differ);
    }
    m_summary->setText(summary);
    m_errorsLabel->setText(
        tr("<b>Explicit-mode errors</b> (JAX raises them at trace time; click one to go to its op):"));
    m_errorsBox->setVisible(!snapshot->errors.empty());
    m_view->resizeColumnsToContents();
    for (int col = 0; col < TypesModel::DifferenceColumn; ++col)
        m_view->setColumnWidth(col, std::min(m_view->columnWidth(col) + 12, 320));
    m_errorsView->resizeColumnsToContents();
    m_errorsView->setColumnWidth(DiagnosticsModel::SeverityColumn,
                                 std::min(m_errorsView->columnWidth(DiagnosticsModel::SeverityColumn) + 8, 120));
    showDetails({});
    followSelection(selected);
}

void TypesPanel::rebuildAxes()
{
    while (QLayoutItem* item = m_axesLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    if (!m_shown || m_shown->axes.isEmpty())
        return;
    auto* label = new QLabel(tr("Axis types:"), m_axesBox);
    label->setToolTip(m_shown->abstractMesh);
    m_axesLayout->addWidget(label);
    for (int i = 0; i < m_shown->axes.size(); ++i) {
        const QString axis = m_shown->axes[i];
        auto* name = new QLabel(QStringLiteral("<b>%1</b>").arg(axis.toHtmlEscaped()), m_axesBox);
        auto* box = new QComboBox(m_axesBox);
        box->setObjectName(QStringLiteral("axisType_") + axis);
        for (explicit_::AxisType t : {explicit_::AxisType::Explicit, explicit_::AxisType::Auto})
            box->addItem(QString::fromLatin1(explicit_::axisTypeName(t)), static_cast<int>(t));
        const explicit_::AxisType current = m_shown->types[static_cast<size_t>(i)];
        box->setCurrentIndex(current == explicit_::AxisType::Auto ? 1 : 0);
        const QString tip = tr("%1: %2").arg(axis, m_shown->sources[i]);
        box->setToolTip(tip);
        name->setToolTip(tip);
        connect(box, &QComboBox::activated, this,
                [this, axis, box] { setAxisType(axis, static_cast<explicit_::AxisType>(box->currentData().toInt())); });
        m_axesLayout->addWidget(name);
        m_axesLayout->addWidget(box);
    }
    if (!m_overrides.empty()) {
        auto* reset = new QToolButton(m_axesBox);
        reset->setText(tr("From the Module"));
        reset->setToolTip(tr("Forget the axis types set here and read them from the module again"));
        connect(reset, &QToolButton::clicked, this, &TypesPanel::resetAxisTypes);
        m_axesLayout->addWidget(reset);
    }
}

void TypesPanel::showDetails(const QModelIndex& proxyIndex)
{
    const int row = proxyIndex.isValid() ? m_proxy->mapToSource(proxyIndex).row() : -1;
    if (row < 0 || row >= m_model->rowCount()) {
        m_details->setText(tr("<span style='color:gray'>Select a value to see its type and why it differs from "
                              "the propagated sharding.</span>"));
        return;
    }
    const TypeRow& r = m_model->rows()[static_cast<size_t>(row)];
    QString html = QStringLiteral("<b>%1</b>").arg(r.name.toHtmlEscaped());
    if (!r.op.isEmpty())
        html += QStringLiteral(" = %1").arg(r.op.toHtmlEscaped());
    html += tr(": type <code>%1</code>").arg(r.type.toHtmlEscaped());
    if (!r.how.isEmpty())
        html += QStringLiteral(" (%1)").arg(r.how.toHtmlEscaped());
    if (r.propagated.isEmpty())
        html += tr("; not propagated yet.");
    else if (!r.differs)
        html += tr("; Shardy's propagation gives the same.");
    else
        html += tr("; propagated <code>%1</code> <code>%2</code>: %3")
                    .arg(r.propagated.toHtmlEscaped(), r.sharding.toHtmlEscaped(), r.reason.toHtmlEscaped());
    m_details->setText(html);
}

void TypesPanel::followSelection(int value)
{
    const int row = m_model->rowOfValue(value);
    const QModelIndex index = row < 0 ? QModelIndex() : m_proxy->mapFromSource(m_model->index(row, 0));
    if (!index.isValid()) {
        m_view->clearSelection();
        return;
    }
    m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(index);
}

void TypesPanel::activateError(int row)
{
    const std::vector<Diagnostic>& all = m_errors->diagnostics();
    if (row < 0 || static_cast<size_t>(row) >= all.size())
        return;
    const Diagnostic& d = all[static_cast<size_t>(row)];
    // The op the error is at: the value it defines (the graph and the inspector follow).
    for (const TypeRow& r : m_model->rows())
        if (!r.op.isEmpty() && r.line == d.pos.line && r.col == d.pos.col && r.value >= 0) {
            m_context.select(r.value);
            break;
        }
    if (d.pos.line > 0)
        m_context.showSource(QString::fromStdString(d.pos.file), d.pos.line, d.pos.col);
}

} // namespace shardx::views
