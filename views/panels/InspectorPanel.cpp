// InspectorPanel: notations, origins, editing and the changes an edit made.
#include "views/panels/InspectorPanel.h"

#include <QFrame>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QTableView>
#include <QUndoStack>
#include <QVBoxLayout>

#include "core/ir/FuncOps.h"
#include "core/sharding/DTensorPlacements.h"
#include "core/sharding/HloShardingText.h"
#include "core/sharding/JaxSharding.h"
#include "core/sharding/LocalShape.h"
#include "views/models/DeviceShardModel.h"
#include "views/panels/NotationField.h"
#include "views/panels/ShardingEditor.h"
#include "views/session/SessionContext.h"

namespace shardx::views {

namespace {

QLabel* sectionTitle(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    QFont f = label->font();
    f.setBold(true);
    label->setFont(f);
    label->setContentsMargins(0, 10, 0, 0);
    return label;
}

QFrame* rule(QWidget* parent)
{
    auto* line = new QFrame(parent);
    line->setFrameShape(QFrame::HLine);
    line->setFrameShadow(QFrame::Plain);
    line->setForegroundRole(QPalette::Mid);
    return line;
}

QStringList notesOf(const ConvertedSharding& c, const QString& meshPrefix)
{
    QStringList notes;
    for (const std::string& n : c.notes)
        notes << QString::fromStdString(n);
    if (!c.meshText.empty())
        notes << meshPrefix + QString::fromStdString(c.meshText);
    return notes;
}

void showNotation(NotationField* field, const ConvertedSharding& c, const QString& meshPrefix = QObject::tr("mesh: "))
{
    field->setContent(QString::fromStdString(c.text), notesOf(c, meshPrefix), QString::fromStdString(c.explanation));
}

} // namespace

InspectorPanel::InspectorPanel(SessionContext& context, QWidget* parent)
    : QWidget(parent),
      m_context(context),
      m_header(new QLabel),
      m_scope(new QLabel),
      m_body(new QWidget),
      m_empty(new QLabel),
      m_atStep(new NotationField(tr("At the current step"))),
      m_before(new NotationField(tr("Before propagation (the program's own annotation)"))),
      m_local(new QLabel),
      m_spec(new NotationField(tr("JAX PartitionSpec"))),
      m_jaxType(new NotationField(tr("JAX type (jax.typeof, Explicit axes)"))),
      m_hlo(new NotationField(tr("GSPMD HloSharding (XLA)"))),
      m_dtensor(new NotationField(tr("PyTorch DTensor placements"))),
      m_origins(new QLabel),
      m_editor(new ShardingEditor),
      m_changed(new ChangedValuesModel(this)),
      m_changedView(new QTableView),
      m_changedNote(new QLabel)
{
    m_atStep->setObjectName(QStringLiteral("shardingAtStep"));
    m_atStep->setEmptyText(tr("none"));
    m_before->setEmptyText(tr("none"));
    m_before->setObjectName(QStringLiteral("shardingBefore"));
    m_spec->setObjectName(QStringLiteral("partitionSpec"));
    m_jaxType->setObjectName(QStringLiteral("jaxType"));
    m_hlo->setObjectName(QStringLiteral("hloSharding"));
    m_dtensor->setObjectName(QStringLiteral("dtensorPlacements"));
    m_editor->setObjectName(QStringLiteral("shardingEditor"));
    m_changedView->setObjectName(QStringLiteral("changedValues"));

    m_header->setTextFormat(Qt::RichText);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setWordWrap(true);
    m_scope->setForegroundRole(QPalette::PlaceholderText);
    m_scope->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_scope->setWordWrap(true);
    m_empty->setWordWrap(true);
    m_empty->setForegroundRole(QPalette::PlaceholderText);
    m_empty->setAlignment(Qt::AlignCenter);
    m_local->setWordWrap(true);
    m_local->setForegroundRole(QPalette::PlaceholderText);
    m_origins->setObjectName(QStringLiteral("origins"));
    m_origins->setTextFormat(Qt::RichText);
    m_origins->setWordWrap(true);
    m_origins->setTextInteractionFlags(Qt::TextBrowserInteraction);
    m_changedNote->setWordWrap(true);
    m_changedNote->setForegroundRole(QPalette::PlaceholderText);

    m_changedView->setModel(m_changed);
    m_changedView->verticalHeader()->hide();
    m_changedView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_changedView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_changedView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_changedView->horizontalHeader()->setStretchLastSection(true);
    m_changedView->setWordWrap(false);
    m_changedView->setVisible(false);

    auto* body = new QVBoxLayout(m_body);
    body->setContentsMargins(0, 0, 0, 0);
    body->setSpacing(6);
    body->addWidget(sectionTitle(tr("Sharding"), m_body));
    body->addWidget(rule(m_body));
    body->addWidget(m_atStep);
    body->addWidget(m_before);
    body->addWidget(m_local);
    body->addWidget(sectionTitle(tr("In other notations"), m_body));
    body->addWidget(rule(m_body));
    body->addWidget(m_spec);
    body->addWidget(m_jaxType);
    body->addWidget(m_hlo);
    body->addWidget(m_dtensor);
    body->addWidget(sectionTitle(tr("Origins"), m_body));
    body->addWidget(rule(m_body));
    body->addWidget(m_origins);
    body->addWidget(sectionTitle(tr("Edit"), m_body));
    body->addWidget(rule(m_body));
    body->addWidget(m_editor);
    body->addWidget(sectionTitle(tr("Changed by the last edit"), m_body));
    body->addWidget(rule(m_body));
    body->addWidget(m_changedNote);
    body->addWidget(m_changedView);

    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(10, 8, 10, 10);
    layout->setSpacing(4);
    layout->addWidget(m_header);
    layout->addWidget(m_scope);
    layout->addWidget(m_empty);
    layout->addWidget(m_body);
    layout->addStretch(1);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);

    connect(&m_context, &SessionContext::moduleChanged, this, [this] {
        m_editorValue = -1;
        m_detailsOf = -1;
        refresh();
    });
    connect(&m_context, &SessionContext::stepChanged, this, &InspectorPanel::refresh);
    connect(&m_context, &SessionContext::selectionChanged, this, &InspectorPanel::refresh);
    connect(&m_context, &SessionContext::propagated, this, [this](bool ok, bool) { onPropagated(ok); });
    connect(&m_context, &SessionContext::opened, this, [this] {
        m_lastFinal.reset();
        m_editPending = false;
        m_changed->clear();
        m_changedNote->setText(tr("Edit a sharding above: the values whose final sharding changes are listed here."));
        m_changedView->setVisible(false);
    });
    connect(m_context.undoStack(), &QUndoStack::indexChanged, this, [this] { m_editPending = true; });
    connect(m_origins, &QLabel::linkActivated, this, &InspectorPanel::openLink);
    connect(m_editor, &ShardingEditor::applyRequested, this, &InspectorPanel::applyEdit);
    connect(m_changedView, &QTableView::clicked, this, [this](const QModelIndex& index) {
        m_context.select(index.data(ChangedValuesModel::ValueIndexRole).toInt());
    });
    m_changedNote->setText(tr("Edit a sharding above: the values whose final sharding changes are listed here."));
    refresh();
}

InspectorPanel::~InspectorPanel() = default;

QString InspectorPanel::originsText() const { return m_origins->text(); }
QString InspectorPanel::headerText() const { return m_header->text(); }

void InspectorPanel::openLink(const QString& link)
{
    const int colon = link.indexOf(QLatin1Char(':'));
    bool ok = false;
    const int n = link.mid(colon + 1).toInt(&ok);
    if (colon < 0 || !ok)
        return;
    if (link.startsWith(QStringLiteral("value:"))) {
        m_context.select(n);
    } else if (link.startsWith(QStringLiteral("step:"))) {
        m_context.selectStep(n);
        m_context.setStep(static_cast<size_t>(n) + 1);
    }
}

void InspectorPanel::refresh()
{
    const Session* s = m_context.session();
    const ir::ProgramIds* ids = s ? s->ids() : nullptr;
    const int v = m_context.selectedValue();
    if (!ids || v < 0 || static_cast<size_t>(v) >= ids->values().size()) {
        m_header->clear();
        m_scope->clear();
        m_body->setVisible(false);
        m_empty->setVisible(true);
        m_empty->setText(s ? tr("Select a value to inspect its sharding.") : tr("No program is open."));
        m_editor->clearTarget(tr("Select a value to edit its sharding."));
        m_editorValue = -1;
        m_detailsOf = -1;
        return;
    }
    m_empty->setVisible(false);
    m_body->setVisible(true);
    const ir::ProgramValue& pv = ids->values()[static_cast<size_t>(v)];
    // What does not change with the step is looked up once per selection.
    const bool newValue = v != m_detailsOf;
    if (newValue)
        m_type = s->valueType(v);
    const std::optional<ir::Type>& type = m_type;
    m_header->setText(QStringLiteral("<span style='font-size:large'><b>%1</b></span>&nbsp;&nbsp;<code>%2</code>")
                          .arg(QString::fromStdString(pv.name).toHtmlEscaped(),
                               type ? QString::fromStdString(type->toString()).toHtmlEscaped() : QString()));
    QString scope = QString::fromStdString(pv.id);
    if (pv.scope >= 0)
        scope = QString::fromStdString(ids->scopeName(pv.scope)) + QStringLiteral("  ·  ") + scope;
    m_scope->setText(scope);

    const std::optional<TensorSharding> own = s->sourceSharding(v);
    const TensorSharding* at = s->shardingAt(v);
    if (!at && !s->trace() && own)
        at = &*own;
    m_atStep->setCaption(s->trace() ? tr("At step %1 of %2").arg(m_context.step()).arg(m_context.numSteps())
                                    : tr("Now (not propagated yet)"));
    m_atStep->setContent(at ? QString::fromStdString(at->toString()) : QString(), {},
                         tr("No sharding at this step: propagation has not given it one (yet)."));
    m_before->setContent(
        own ? QString::fromStdString(own->toString()) : QString(), {},
        tr("None: the program does not annotate %1 itself; propagation decides.").arg(QString::fromStdString(pv.name)));

    const Mesh* mesh = at ? s->module()->resolveMesh(at->mesh) : nullptr;
    if (at && mesh && type && type->isRankedTensor()) {
        if (Expected<ShardedLayout> layout = computeShardedLayout(*at, *mesh, type->shape())) {
            m_local->setText(tr("Per device %1 · %2 devices hold %3 slices%4")
                                 .arg(shapeText(layout->localShape))
                                 .arg(layout->devices.size())
                                 .arg(layout->regionGroups.size())
                                 .arg(layout->isEven ? QString() : tr(" · uneven: the last shards are padded")));
        } else {
            m_local->setText(QString::fromStdString(layout.error().message));
        }
        showNotation(m_spec, partitionSpecOf(*at, *mesh), tr("mesh: "));
        showNotation(m_jaxType, jaxTypeOf(*at, *mesh, type->shape(), type->elementType()));
        showNotation(m_hlo, hloShardingOf(*at, *mesh));
        showNotation(m_dtensor, dtensorPlacementsOf(*at, *mesh), tr("mesh: "));
    } else {
        m_local->setText(at && !mesh
                             ? tr("Its mesh %1 is not in the program.").arg(QString::fromStdString(at->mesh.toString()))
                             : QString());
        const QString why = !type || !type->isRankedTensor() ? tr("Not a ranked tensor.") : tr("No sharding.");
        for (NotationField* f : {m_spec, m_jaxType, m_hlo, m_dtensor})
            f->setContent({}, {}, why);
    }
    m_local->setVisible(!m_local->text().isEmpty());
    if (newValue)
        refreshOrigins(v);
    m_detailsOf = v;

    if (v != m_editorValue) {
        m_editorValue = v;
        MeshRef fallback;
        if (at)
            fallback = at->mesh;
        else if (!s->sourceModule()->meshes().empty())
            fallback.symbol = ir::symbolName(*s->sourceModule()->meshes().front());
        if (!type || !type->isRankedTensor())
            m_editor->clearTarget(tr("Only ranked tensors have a sharding to edit."));
        else if (!at && !own && s->sourceModule()->meshes().empty())
            m_editor->clearTarget(tr("The program has no mesh to shard on."));
        else
            m_editor->setTarget(s->sourceModule(), *type,
                                own ? own : (at ? std::optional<TensorSharding>(*at) : std::nullopt), fallback,
                                own.has_value());
    }
}

void InspectorPanel::refreshOrigins(int value)
{
    const Session* s = m_context.session();
    const ir::ProgramIds* ids = s->ids();
    Expected<std::vector<AxisOrigin>> origins = s->origins(value);
    if (!origins) {
        m_origins->setText(
            QStringLiteral("<span>%1</span>").arg(QString::fromStdString(origins.error().message).toHtmlEscaped()));
        return;
    }
    if (origins->empty()) {
        m_origins->setText(tr("No axes in its final sharding: nothing to trace."));
        return;
    }
    auto valueLink = [&](int v) {
        const QString name = v >= 0 && static_cast<size_t>(v) < ids->values().size()
                                 ? QString::fromStdString(ids->values()[static_cast<size_t>(v)].name)
                                 : QString::number(v);
        return QStringLiteral("<a href=\"value:%1\">%2</a>").arg(v).arg(name.toHtmlEscaped());
    };
    QStringList lines;
    for (const AxisOrigin& o : *origins) {
        QString where = o.dim >= 0 ? tr("d%1").arg(o.dim) : tr("replicated");
        QString from;
        if (o.from == value)
            from = tr("its own annotation");
        else if (o.from >= 0)
            from = tr("from %1").arg(valueLink(o.from));
        else
            from = tr("set by a pipeline stage");
        QStringList steps;
        for (size_t i = 0; i < o.steps.size() && i < 4; ++i)
            steps << QStringLiteral("<a href=\"step:%1\">%1</a>").arg(o.steps[i]);
        if (o.steps.size() > 4)
            steps << tr("… %1 steps").arg(o.steps.size());
        QString line = QStringLiteral("%1 <code>%2</code> ← %3")
                           .arg(where, QString::fromStdString(o.axis.toString()).toHtmlEscaped(), from);
        if (!steps.isEmpty())
            line += tr(" · via step %1").arg(steps.join(QStringLiteral(", ")));
        lines << line;
    }
    m_origins->setText(lines.join(QStringLiteral("<br>")));
}

FinalShardings InspectorPanel::currentFinalShardings() const
{
    FinalShardings out;
    const Session* s = m_context.session();
    const ir::ProgramIds* ids = s ? s->ids() : nullptr;
    if (!ids)
        return out;
    const size_t n = ids->values().size();
    out.byValue.resize(n);
    out.names.resize(n);
    for (size_t v = 0; v < n; ++v) {
        const ir::ProgramValue& pv = ids->values()[v];
        if (pv.derivedFrom >= 0)
            continue;
        out.names[v] = QString::fromStdString(pv.name);
        if (const TensorSharding* sh = s->shardingAt(static_cast<int>(v)))
            out.byValue[v] = *sh;
    }
    return out;
}

void InspectorPanel::onPropagated(bool ok)
{
    if (!ok)
        return;
    FinalShardings now = currentFinalShardings();
    if (m_editPending && m_lastFinal) {
        m_changed->setChanges(*m_lastFinal, now);
        const int n = m_changed->rowCount();
        m_changedNote->setText(n == 0   ? tr("The last edit changed no final sharding.")
                               : n == 1 ? tr("1 value changed its final sharding: click it to select it.")
                                        : tr("%1 values changed their final sharding: click one to select it.").arg(n));
        m_changedView->setVisible(n > 0);
        m_changedView->resizeColumnsToContents();
        // As high as its rows (up to ten; it scrolls beyond).
        const int rows = std::min(n, 10);
        m_changedView->setFixedHeight(m_changedView->horizontalHeader()->height() +
                                      rows * m_changedView->verticalHeader()->defaultSectionSize() +
                                      2 * m_changedView->frameWidth() + 2);
    }
    m_lastFinal = std::move(now);
    m_editPending = false;
}

void InspectorPanel::applyEdit(const std::optional<TensorSharding>& sharding)
{
    const int v = m_context.selectedValue();
    Status st = m_context.editSharding(v, sharding);
    if (!st)
        m_editor->showResult(QStringLiteral("✗ ") + QString::fromStdString(st.error().message), true);
    else
        m_editor->showResult(tr("Applied: propagating again (Edit > Undo takes it back)"), false);
}

} // namespace shardx::views
