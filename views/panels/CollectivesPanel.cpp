// CollectivesPanel: the collectives table, its totals, the details of a row, and going to the op
// and cause step of a collective.
#include "views/panels/CollectivesPanel.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "views/models/CollectivesModel.h"
#include "views/models/DeviceShardModel.h"
#include "views/models/Units.h"
#include "views/panels/PartitionStatus.h"
#include "views/panels/TableViews.h"
#include "views/session/SessionContext.h"

namespace shardx::views {

namespace {

QString esc(const std::string& text) { return QString::fromStdString(text).toHtmlEscaped(); }

/// `#9, #13` as links to those steps; many steps are cut to the first and last few.
QString stepLinks(const std::vector<int>& steps)
{
    constexpr size_t kMax = 8;
    QStringList links;
    for (size_t i = 0; i < steps.size(); ++i) {
        if (steps.size() > kMax && i == kMax - 2) {
            links << QStringLiteral("…");
            i = steps.size() - 2; // then the last one
            continue;
        }
        links << QStringLiteral("<a href=\"step:%1\">#%1</a>").arg(steps[i]);
    }
    return links.join(QStringLiteral(", "));
}

} // namespace

CollectivesPanel::CollectivesPanel(SessionContext& context, QWidget* parent)
    : QWidget(parent),
      m_context(context),
      m_model(new CollectivesModel(this)),
      m_proxy(new QSortFilterProxyModel(this)),
      m_summary(new QLabel(this)),
      m_message(new QLabel(this)),
      m_splitter(new QSplitter(Qt::Vertical, this)),
      m_view(new QTableView),
      m_details(new QTextBrowser)
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(CollectivesModel::SortRole);
    m_view->setObjectName(QStringLiteral("collectivesTable"));
    m_view->setModel(m_proxy);
    setUpListTable(m_view); // program order until a header is clicked
    m_details->setObjectName(QStringLiteral("collectiveDetails"));
    m_details->setOpenLinks(false);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setWordWrap(true);
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setForegroundRole(QPalette::PlaceholderText);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_splitter->addWidget(m_view);
    m_splitter->addWidget(m_details);
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addWidget(m_message, 1);
    layout->addWidget(m_splitter, 1);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { onCurrentChanged(current); });
    // A click on the current row goes there again (after the cursor moved on).
    connect(m_view, &QTableView::clicked, this, [this](const QModelIndex&) {
        if (const CollectiveInfo* c = currentCollective())
            goTo(*c);
    });
    connect(m_details, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) { openLink(url.toString()); });
    connect(&m_context, &SessionContext::partitionChanged, this, &CollectivesPanel::refresh);
    connect(&m_context, &SessionContext::moduleChanged, this, &CollectivesPanel::refresh);
    connect(&m_context, &SessionContext::busyChanged, this, &CollectivesPanel::refresh);
    connect(&m_context, &SessionContext::selectionChanged, this, [this](int, int op) { followSelection(op); });
    refresh();
}

CollectivesPanel::~CollectivesPanel() = default;

QString CollectivesPanel::summaryText() const { return m_message->isVisible() ? m_message->text() : m_summary->text(); }

QString CollectivesPanel::detailsText() const { return m_details->toPlainText(); }

void CollectivesPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    refresh();
}

void CollectivesPanel::setDockShown(bool shown)
{
    m_dockShown = shown;
    if (shown)
        refresh();
}

void CollectivesPanel::refresh()
{
    // Partitioning is asked for only while the panel is on screen (a hidden tab costs nothing).
    if (m_dockShown && isVisible())
        m_context.requestPartition();
    const std::shared_ptr<const PartitionResult>& result = m_context.partitionResult();
    if (result && result == m_shown)
        return; // shown already: keep the current row
    m_shown = result;
    m_model->setResult(result && result->model ? result : nullptr);
    showDetails(nullptr);
    QString message;
    if (!result)
        message = partitionWaitingText(m_context);
    else if (!result->model)
        message = tr("Partitioning failed:\n%1").arg(result->error);
    else if (result->model->collectives.empty())
        message = tr("No collectives: every device computes its shard alone, without communicating.");
    m_message->setText(message);
    m_message->setAlignment(result && !result->model ? Qt::AlignLeft | Qt::AlignTop : Qt::AlignCenter);
    m_message->setVisible(!message.isEmpty());
    m_splitter->setVisible(message.isEmpty());
    m_summary->setVisible(message.isEmpty());
    if (!message.isEmpty())
        return;

    const PartitionModel& model = *result->model;
    std::map<std::string, int> kinds;
    for (const CollectiveInfo& c : model.collectives)
        ++kinds[c.kind];
    QStringList perKind;
    for (const auto& [kind, n] : kinds)
        perKind << QStringLiteral("%1 ×%2").arg(QString::fromStdString(kind)).arg(n);
    const size_t n = model.collectives.size();
    m_summary->setText(tr("<b>%1</b> (%2) · <b>%3</b> sent per device · <b>%4 µs</b> one after another (cost model)")
                           .arg(n == 1 ? tr("1 collective") : tr("%1 collectives").arg(n),
                                perKind.join(QStringLiteral(", ")), bytesText(model.bytesSentPerDevice),
                                microsecondsText(model.seconds)));
    m_view->resizeColumnsToContents();
    // The cause stretches; the other columns keep to their content, within reason.
    for (int col = 0; col < CollectivesModel::CauseColumn; ++col)
        m_view->setColumnWidth(col, std::min(m_view->columnWidth(col) + 8, 260));
    followSelection(m_context.selectedOp());
    // Something to read at once: the first row's details (without going anywhere until chosen).
    if (!m_view->selectionModel()->currentIndex().isValid()) {
        m_following = true;
        m_view->selectionModel()->setCurrentIndex(m_proxy->index(0, 0),
                                                  QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_following = false;
    }
}

const CollectiveInfo* CollectivesPanel::currentCollective() const
{
    const QModelIndex current = m_view->selectionModel()->currentIndex();
    if (!current.isValid())
        return nullptr;
    return m_model->collective(m_proxy->mapToSource(current).row());
}

void CollectivesPanel::onCurrentChanged(const QModelIndex& current)
{
    const CollectiveInfo* c = current.isValid() ? m_model->collective(m_proxy->mapToSource(current).row()) : nullptr;
    showDetails(c);
    if (c && !m_following)
        goTo(*c);
}

int CollectivesPanel::firstResultOf(int op) const
{
    const Session* s = m_context.session();
    if (const ir::ProgramIds* ids = s ? s->ids() : nullptr; ids && op >= 0)
        for (size_t v = 0; v < ids->values().size(); ++v)
            if (ids->values()[v].op == op)
                return static_cast<int>(v);
    return -1;
}

void CollectivesPanel::goTo(const CollectiveInfo& c)
{
    // The op's first result stands for it (the graph and the inspector show values).
    int value = firstResultOf(c.opIndex);
    if (value < 0 && c.opIndex < 0)
        value = c.toSide.value;
    m_following = true; // the selection comes back through followSelection
    m_context.select(value, c.opIndex);
    m_following = false;
    if (c.causeStep >= 0) {
        m_context.selectStep(c.causeStep);
        m_context.setStep(static_cast<size_t>(c.causeStep) + 1);
    }
}

void CollectivesPanel::followSelection(int op)
{
    if (m_following || op < 0)
        return;
    if (const CollectiveInfo* c = currentCollective(); c && c->opIndex == op)
        return;
    for (int row = 0; row < m_proxy->rowCount(); ++row) {
        const QModelIndex index = m_proxy->index(row, 0);
        const CollectiveInfo* c = m_model->collective(m_proxy->mapToSource(index).row());
        if (c && c->opIndex == op) {
            m_following = true;
            m_view->selectionModel()->setCurrentIndex(index,
                                                      QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            m_view->scrollTo(index);
            m_following = false;
            return;
        }
    }
}

void CollectivesPanel::openLink(const QString& link)
{
    const int colon = link.indexOf(QLatin1Char(':'));
    bool ok = false;
    const int n = link.mid(colon + 1).toInt(&ok);
    if (colon < 0 || !ok)
        return;
    if (link.startsWith(QStringLiteral("value:"))) {
        m_context.select(n);
    } else if (link.startsWith(QStringLiteral("op:"))) {
        m_context.select(firstResultOf(n), n);
    } else if (link.startsWith(QStringLiteral("step:"))) {
        m_context.selectStep(n);
        m_context.setStep(static_cast<size_t>(n) + 1);
    }
}

void CollectivesPanel::showDetails(const CollectiveInfo* c)
{
    if (!c) {
        m_details->setHtml(tr("<p style='color:gray'>Choose a collective to see its cause: the op that needs it, "
                              "the two shardings that disagree there, and the steps that made them.</p>"));
        return;
    }
    QString html = tr("<p><b>%1</b> over <code>%2</code>").arg(esc(c->kind), axesText(c->axes).toHtmlEscaped());
    if (!c->op.empty()) {
        const QString op =
            c->opIndex >= 0 ? QStringLiteral("<a href=\"op:%1\">%2</a>").arg(c->opIndex).arg(esc(c->op)) : esc(c->op);
        html += tr(" for <b>%1</b> %2").arg(op, esc(c->opName));
    }
    if (c->position.line > 0)
        html += tr(" at line %1").arg(c->position.line);
    html += QStringLiteral("</p><p>%1</p>").arg(esc(c->cause));
    auto side = [&](const QString& title, const CauseSide& s) {
        if (s.sharding.empty() && s.name.empty())
            return;
        QString name = esc(s.name.empty() ? std::string("?") : s.name);
        if (s.value >= 0)
            name = QStringLiteral("<a href=\"value:%1\">%2</a>").arg(s.value).arg(name);
        html += QStringLiteral("<tr><td style='padding-right:8px'><b>%1</b></td><td>%2 <code>%3</code>")
                    .arg(title, name, esc(s.sharding));
        QStringList notes;
        if (!s.origins.empty()) {
            QStringList origins;
            for (const std::string& o : s.origins)
                origins << esc(o);
            notes << tr("axes from %1").arg(origins.join(QStringLiteral(", ")));
        }
        if (!s.steps.empty())
            notes << tr("steps %1").arg(stepLinks(s.steps));
        if (!notes.isEmpty())
            html += QStringLiteral("<br><span style='color:gray'>%1</span>").arg(notes.join(QStringLiteral(" · ")));
        html += QStringLiteral("</td></tr>");
    };
    html += QStringLiteral("<table cellspacing='0' cellpadding='1'>");
    side(tr("From"), c->fromSide);
    side(tr("To"), c->toSide);
    html += QStringLiteral("</table>");
    if (c->causeStep >= 0)
        html +=
            tr("<p>Cause step: <a href=\"step:%1\">#%1</a> (the latest step behind either side)</p>").arg(c->causeStep);
    html += tr("<p>Per device: payload %1 · sent %2 · received %3 · %4 µs · local %5 %6 → %7</p>")
                .arg(bytesText(c->payloadBytesPerDevice), bytesText(c->bytesSentPerDevice),
                     bytesText(c->bytesReceivedPerDevice), microsecondsText(c->seconds),
                     QString::fromStdString(c->elementType), shapeText(c->shapeBefore), shapeText(c->shapeAfter));
    const bool permute = c->kind == "collective-permute";
    html += QStringLiteral("<p>%1 <code>%2</code></p>")
                .arg(permute ? tr("Source → target pairs (%1):").arg(c->replicaGroups.size())
                             : tr("Replica groups (%1 groups of %2 devices):")
                                   .arg(c->replicaGroups.size())
                                   .arg(c->replicaGroups.empty() ? 0 : c->replicaGroups.front().size()),
                     fullReplicaGroupsText(c->replicaGroups));
    m_details->setHtml(html);
}

} // namespace shardx::views
