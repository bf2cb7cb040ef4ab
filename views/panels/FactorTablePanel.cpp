// FactorTablePanel: the selected op's factor table at the cursor and what the current step decided.
#include "views/panels/FactorTablePanel.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "core/trace/Explain.h"
#include "views/models/FactorTableModel.h"
#include "views/session/SessionContext.h"

namespace shardx::views {

FactorTablePanel::FactorTablePanel(SessionContext& context, QWidget* parent)
    : QWidget(parent),
      m_context(context),
      m_model(new FactorTableModel(this)),
      m_title(new QLabel(this)),
      m_view(new QTableView(this)),
      m_explanation(new QTextBrowser(this))
{
    m_title->setTextFormat(Qt::RichText);
    m_title->setWordWrap(true);
    m_view->setModel(m_model);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setDefaultAlignment(Qt::AlignCenter);
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setWordWrap(false);
    m_explanation->setOpenLinks(false);
    m_explanation->setFrameShape(QFrame::NoFrame);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_view);
    split->addWidget(m_explanation);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_title);
    layout->addWidget(split, 1);

    // A row selects its value; a link in the explanation selects the step's op.
    connect(m_view, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const int value = index.data(FactorTableModel::ValueRole).toInt();
        if (value >= 0)
            m_context.select(value, m_context.selectedOp());
    });
    connect(m_explanation, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        bool ok = false;
        const int step = url.fragment().toInt(&ok);
        if (ok)
            m_context.setStep(static_cast<size_t>(step) + 1);
    });
    connect(&m_context, &SessionContext::moduleChanged, this, &FactorTablePanel::refresh);
    connect(&m_context, &SessionContext::stepChanged, this, &FactorTablePanel::refresh);
    connect(&m_context, &SessionContext::selectionChanged, this, &FactorTablePanel::refresh);
    refresh();
}

QString FactorTablePanel::explanation() const { return m_explanation->toPlainText(); }

void FactorTablePanel::refresh()
{
    const Session* s = m_context.session();
    const int op = m_context.selectedOp();
    const size_t step = m_context.step();
    if (!s || op < 0 || !s->ids() || static_cast<size_t>(op) >= s->ids()->ops().size()) {
        m_title->setText(
            tr("<i>Select an op (in the graph, the step tree or by a value) to see its factor table.</i>"));
        m_model->setTable(std::nullopt, std::nullopt, {});
        m_explanation->clear();
        return;
    }
    const ir::ProgramOp& pop = s->ids()->ops()[static_cast<size_t>(op)];
    const QString opText = QString::fromStdString(pop.name).toHtmlEscaped() + QStringLiteral(" = <b>") +
                           QString::fromStdString(pop.opName.str()).toHtmlEscaped() + QStringLiteral("</b>");
    const QString scope = pop.scope >= 0
                              ? QStringLiteral(" <span style='color:gray'>at %1</span>")
                                    .arg(QString::fromStdString(s->ids()->scopeName(pop.scope)).toHtmlEscaped())
                              : QString();
    Expected<OpFactorTable> table = s->factorTable(op, step);
    if (!table) {
        m_title->setText(opText + scope);
        m_model->setTable(std::nullopt, std::nullopt, {});
        m_explanation->setPlainText(tr("No factor table: %1").arg(QString::fromStdString(table.error().message)));
        return;
    }
    std::optional<OpFactorTable> previous;
    if (step > 0)
        if (Expected<OpFactorTable> p = s->factorTable(op, step - 1))
            previous = std::move(*p);
    std::vector<QString> names;
    for (int v : table->values)
        names.push_back(v >= 0 && static_cast<size_t>(v) < s->ids()->values().size()
                            ? QString::fromStdString(s->ids()->values()[static_cast<size_t>(v)].name)
                            : QString());
    m_title->setText(opText + scope +
                     tr(" — after step %1 of %2, mesh @%3")
                         .arg(step)
                         .arg(s->numSteps())
                         .arg(QString::fromStdString(table->meshName).toHtmlEscaped()));
    m_model->setTable(std::move(*table), std::move(previous), std::move(names));

    // The decision of the current step, when it is on this op; else where this op's steps are.
    const Trace* trace = s->trace();
    if (!trace) {
        m_explanation->setPlainText(tr("Not propagated yet: this is the table of the program as written."));
        return;
    }
    QString html;
    if (step > 0 && trace->steps()[step - 1].op == op) {
        html += QStringLiteral("<p><b>%1</b></p><ul>")
                    .arg(QString::fromStdString(describeStepHeader(*trace, step - 1)).toHtmlEscaped());
        for (const std::string& line : describeStep(*trace, step - 1))
            html += QStringLiteral("<li>%1</li>").arg(QString::fromStdString(line).toHtmlEscaped());
        html += QStringLiteral("</ul>");
    } else {
        html += tr("<p>The current step does not visit this op.</p>");
    }
    QStringList links;
    for (size_t i = 0; i < trace->numSteps() && links.size() < 40; ++i)
        if (trace->steps()[i].op == op && !trace->steps()[i].changes.empty())
            links << QStringLiteral("<a href='#%1'>#%1</a>").arg(i);
    html += links.isEmpty()
                ? tr("<p>No step changed a sharding at this op.</p>")
                : tr("<p>Steps that changed shardings at this op: %1</p>").arg(links.join(QStringLiteral(" ")));
    m_explanation->setHtml(html);
}

} // namespace shardx::views
