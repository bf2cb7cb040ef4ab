// DiagnosticsPanel: the problems list; a row shows its line in the source panel.
#include "views/panels/DiagnosticsPanel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "views/models/DiagnosticsModel.h"
#include "views/session/SessionContext.h"

namespace shardx::views {

DiagnosticsPanel::DiagnosticsPanel(SessionContext& context, QWidget* parent)
    : QWidget(parent),
      m_context(context),
      m_model(new DiagnosticsModel(this)),
      m_view(new QTableView(this)),
      m_summary(new QLabel(this))
{
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->resizeSection(DiagnosticsModel::SeverityColumn, 90);
    m_view->horizontalHeader()->resizeSection(DiagnosticsModel::LocationColumn, 200);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_summary);
    layout->addWidget(m_view, 1);
    auto show = [this](const QModelIndex& index) {
        const int line = index.data(DiagnosticsModel::LineRole).toInt();
        if (line > 0)
            m_context.showSource(index.data(DiagnosticsModel::FileRole).toString(), line,
                                 index.data(DiagnosticsModel::ColumnRole).toInt());
    };
    connect(m_view, &QTableView::clicked, this, show);
    connect(m_view, &QTableView::activated, this, show);
    connect(&m_context, &SessionContext::opened, this, &DiagnosticsPanel::refresh);
    connect(&m_context, &SessionContext::propagated, this, &DiagnosticsPanel::refresh);
    connect(&m_context, &SessionContext::closed, this, &DiagnosticsPanel::refresh);
    refresh();
}

void DiagnosticsPanel::refresh()
{
    std::vector<Diagnostic> all = m_context.openDiagnostics().all();
    for (const Diagnostic& d : m_context.propagationDiagnostics().all())
        all.push_back(d);
    m_model->setDiagnostics(std::move(all));
    if (m_model->rowCount() == 0)
        m_summary->setText(m_context.filePath().isEmpty() ? tr("No program open") : tr("No problems"));
    else
        m_summary->setText(tr("%1 error(s), %2 warning(s): click one to see its line")
                               .arg(m_model->errorCount())
                               .arg(m_model->warningCount()));
}

} // namespace shardx::views
