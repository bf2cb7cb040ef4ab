// ReplicatedPanel: the why-replicated table, its summary and the reasons of a row.
#include "views/panels/ReplicatedPanel.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "views/models/ReplicatedModel.h"
#include "views/models/Units.h"
#include "views/panels/PartitionStatus.h"
#include "views/panels/TableViews.h"
#include "views/session/SessionContext.h"

namespace shardx::views {

namespace {

/// `step #12` in a reason becomes a link to the state after that step.
QString linkStepsToStates(const QString& escaped)
{
    static const QRegularExpression step(QStringLiteral("step #(\\d+)"));
    QString out = escaped;
    out.replace(step, QStringLiteral("<a href='step:\\1'>step #\\1</a>"));
    return out;
}

} // namespace

ReplicatedPanel::ReplicatedPanel(SessionContext& context, QWidget* parent)
    : QWidget(parent),
      m_context(context),
      m_model(new ReplicatedModel(this)),
      m_proxy(new QSortFilterProxyModel(this)),
      m_summary(new QLabel(this)),
      m_message(new QLabel(this)),
      m_splitter(new QSplitter(Qt::Vertical, this)),
      m_view(new QTableView),
      m_details(new QTextBrowser)
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ReplicatedModel::SortRole);
    m_view->setObjectName(QStringLiteral("replicatedTable"));
    m_view->setModel(m_proxy);
    setUpListTable(m_view);
    // Largest cost first, as the list comes (a click on a header sorts by another column).
    m_view->sortByColumn(ReplicatedModel::ExtraColumn, Qt::DescendingOrder);
    m_details->setObjectName(QStringLiteral("replicatedDetails"));
    m_details->setOpenLinks(false);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setWordWrap(true);
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setForegroundRole(QPalette::PlaceholderText);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_splitter->addWidget(m_view);
    m_splitter->addWidget(m_details);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addWidget(m_message, 1);
    layout->addWidget(m_splitter, 1);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                showDetails(current.isValid() ? m_model->entry(m_proxy->mapToSource(current).row()) : nullptr);
            });
    auto select = [this](const QModelIndex& index) {
        const int value = index.data(ReplicatedModel::ValueRole).toInt();
        if (value >= 0)
            m_context.select(value);
    };
    connect(m_view, &QTableView::clicked, this, select);
    connect(m_view, &QTableView::activated, this, select);
    connect(m_details, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        const QString link = url.toString();
        bool ok = false;
        const int step = link.mid(link.indexOf(QLatin1Char(':')) + 1).toInt(&ok);
        if (link.startsWith(QStringLiteral("step:")) && ok) {
            m_context.selectStep(step);
            m_context.setStep(static_cast<size_t>(step) + 1);
        }
    });
    connect(&m_context, &SessionContext::partitionChanged, this, &ReplicatedPanel::refresh);
    connect(&m_context, &SessionContext::moduleChanged, this, &ReplicatedPanel::refresh);
    connect(&m_context, &SessionContext::busyChanged, this, &ReplicatedPanel::refresh);
    connect(&m_context, &SessionContext::selectionChanged, this, [this](int value) { followSelection(value); });
    refresh();
}

ReplicatedPanel::~ReplicatedPanel() = default;

QString ReplicatedPanel::summaryText() const { return m_message->isVisible() ? m_message->text() : m_summary->text(); }

QString ReplicatedPanel::detailsText() const { return m_details->toPlainText(); }

void ReplicatedPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    refresh();
}

void ReplicatedPanel::setDockShown(bool shown)
{
    m_dockShown = shown;
    if (shown)
        refresh();
}

void ReplicatedPanel::refresh()
{
    if (m_dockShown && isVisible())
        m_context.requestPartition();
    const std::shared_ptr<const PartitionResult>& result = m_context.partitionResult();
    if (result && result == m_shown)
        return;
    m_shown = result;
    m_model->setResult(result);
    showDetails(nullptr);
    QString message;
    if (!result)
        message = partitionWaitingText(m_context);
    else if (!result->replicatedError.isEmpty())
        message = result->replicatedError;
    else if (result->replicated.empty())
        message = tr("No tensor ends less sharded than its neighbours offered: every tensor is as sharded as its "
                     "mesh and ops allow.");
    m_message->setText(message);
    m_message->setVisible(!message.isEmpty());
    m_splitter->setVisible(message.isEmpty());
    m_summary->setVisible(message.isEmpty());
    if (!message.isEmpty())
        return;
    const ReplicatedTensor& top = result->replicated.front();
    const size_t n = result->replicated.size();
    const QString count = n == 1 ? tr("<b>1 tensor</b> ends less sharded than its neighbours offered")
                                 : tr("<b>%1 tensors</b> end less sharded than their neighbours offered").arg(n);
    m_summary->setText(
        tr("%1; the costliest, <b>%2</b>, holds %3 per device more than an even split.")
            .arg(count, QString::fromStdString(top.displayName).toHtmlEscaped(), bytesText(top.extraBytesPerDevice)));
    m_view->resizeColumnsToContents();
    for (int col = 0; col < ReplicatedModel::ReasonColumn; ++col)
        m_view->setColumnWidth(col, std::min(m_view->columnWidth(col) + 8, 300));
    followSelection(m_context.selectedValue());
    // The costliest one's reasons at once (it is not selected in the graph until clicked).
    if (!m_view->selectionModel()->currentIndex().isValid())
        m_view->selectionModel()->setCurrentIndex(m_proxy->index(0, 0),
                                                  QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void ReplicatedPanel::showDetails(const ReplicatedTensor* r)
{
    if (!r) {
        m_details->setHtml(tr("<p style='color:gray'>Choose a tensor to see every reason it is not sharded "
                              "further.</p>"));
        return;
    }
    auto esc = [](const std::string& t) { return QString::fromStdString(t).toHtmlEscaped(); };
    QString html = QStringLiteral("<p><b>%1</b>").arg(esc(r->displayName));
    if (!r->opName.empty())
        html += QStringLiteral(" = %1").arg(esc(r->opName));
    if (r->position.line > 0)
        html += tr(" at line %1").arg(r->position.line);
    html += tr(": <code>%1</code>, %2 of %3 pieces; %4 per device, %5 more than an even split</p><ul>")
                .arg(esc(r->sharding))
                .arg(r->shards)
                .arg(r->devices)
                .arg(bytesText(r->bytesPerDevice), bytesText(r->extraBytesPerDevice));
    for (const std::string& reason : r->reasons)
        html += QStringLiteral("<li>%1</li>").arg(linkStepsToStates(esc(reason)));
    html += QStringLiteral("</ul>");
    m_details->setHtml(html);
}

void ReplicatedPanel::followSelection(int value)
{
    const int row = m_model->rowOfValue(value);
    if (row < 0) {
        m_view->clearSelection();
        return;
    }
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
    m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(index);
}

} // namespace shardx::views
