// WhyPanel: the explanation of the selected value's final sharding, per axis, from the trace.
#include "views/panels/WhyPanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "views/session/SessionContext.h"

namespace shardx::views {

namespace {

/// `step #12` in a sentence becomes a link that runs to just after that step.
QString linkSteps(const QString& escaped)
{
    static const QRegularExpression step(QStringLiteral("step #(\\d+)"));
    QString out = escaped;
    out.replace(step, QStringLiteral("<a href='#\\1'>step #\\1</a>"));
    return out;
}

} // namespace

WhyPanel::WhyPanel(SessionContext& context, QWidget* parent)
    : QWidget(parent), m_context(context), m_axis(new QComboBox(this)), m_text(new QTextBrowser(this))
{
    m_axis->setToolTip(tr("Explain one mesh axis only (why it is here, or why not)"));
    m_text->setOpenLinks(false);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Axis:"), this));
    top->addWidget(m_axis, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_text, 1);
    connect(m_text, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        bool ok = false;
        const int step = url.fragment().toInt(&ok);
        if (ok) {
            m_context.selectStep(step);
            m_context.setStep(static_cast<size_t>(step) + 1);
        }
    });
    connect(m_axis, &QComboBox::currentIndexChanged, this, &WhyPanel::refresh);
    connect(&m_context, &SessionContext::moduleChanged, this, &WhyPanel::refresh);
    connect(&m_context, &SessionContext::selectionChanged, this, &WhyPanel::refresh);
    refresh();
}

QString WhyPanel::text() const { return m_text->toPlainText(); }

void WhyPanel::refresh()
{
    const Session* s = m_context.session();
    const int value = m_context.selectedValue();
    if (!s || value < 0) {
        m_text->setHtml(tr("<i>Select a value to see why each axis of its sharding is there, and why a "
                           "neighbour's axis is not.</i>"));
        return;
    }
    if (!s->trace()) {
        m_text->setHtml(tr("<i>Propagate to see the reasons (Propagation &gt; Propagate Again).</i>"));
        return;
    }
    // Offer every axis of the value's meshes (the names of its and its neighbours' shardings).
    const QString wanted = m_axis->currentIndex() > 0 ? m_axis->currentText() : QString();
    std::optional<std::string> axis;
    if (!wanted.isEmpty())
        axis = wanted.toStdString();
    Expected<ValueExplanation> e = s->explain(value, axis);
    if (!e) {
        m_text->setPlainText(QString::fromStdString(e.error().message));
        return;
    }
    if (!axis) {
        QStringList names;
        for (const auto& list : {e->present, e->missing})
            for (const AxisExplanation& x : list)
                names << QString::fromStdString(x.axis.name);
        names.removeDuplicates();
        QSignalBlocker block(m_axis);
        m_axis->clear();
        m_axis->addItem(tr("every axis"));
        m_axis->addItems(names);
    }
    auto esc = [](const std::string& t) { return QString::fromStdString(t).toHtmlEscaped(); };
    QString html =
        QStringLiteral("<p><b>%1</b> <span style='color:gray'>%2</span>").arg(esc(e->displayName), esc(e->id));
    if (!e->opName.empty())
        html += QStringLiteral(" = %1").arg(esc(e->opName));
    if (!e->scope.empty())
        html += QStringLiteral("<br><span style='color:gray'>at %1</span>").arg(esc(e->scope));
    html += QStringLiteral("</p><p>before propagation: <code>%1</code><br>after propagation: <code>%2</code></p>")
                .arg(e->initial ? esc(e->initial->toString()) : tr("no sharding"),
                     e->final ? esc(e->final->toString()) : tr("no sharding"));
    auto section = [&](const QString& title, const std::vector<AxisExplanation>& list) {
        if (list.empty())
            return;
        html += QStringLiteral("<p><b>%1</b></p><ul>").arg(title);
        for (const AxisExplanation& x : list)
            html +=
                QStringLiteral("<li><code>%1</code>: %2</li>").arg(esc(x.axis.toString()), linkSteps(esc(x.sentence)));
        html += QStringLiteral("</ul>");
    };
    section(tr("Why these axes are here"), e->present);
    section(tr("Why these axes are not"), e->missing);
    if (!e->blockedBy.empty()) {
        html += tr("<p><b>Ops propagation could not cross</b></p><ul>");
        for (const std::string& b : e->blockedBy)
            html += QStringLiteral("<li>%1</li>").arg(linkSteps(esc(b)));
        html += QStringLiteral("</ul>");
    }
    if (e->present.empty() && e->missing.empty() && e->blockedBy.empty())
        html += tr("<p>Nothing to explain: the value ends unsharded and no neighbour offers it an axis.</p>");
    m_text->setHtml(html);
}

} // namespace shardx::views
