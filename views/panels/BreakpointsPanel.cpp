// BreakpointsPanel: the list and its add / remove / go-to-next-hit commands.
#include "views/panels/BreakpointsPanel.h"

#include <QHBoxLayout>
#include <QInputDialog>
#include <QListView>
#include <QMenu>
#include <QToolButton>
#include <QVBoxLayout>

#include "views/app/Icons.h"
#include "views/models/BreakpointModel.h"
#include "views/session/SessionContext.h"

namespace shardx::views {

BreakpointsPanel::BreakpointsPanel(SessionContext& context, QWidget* parent)
    : QWidget(parent), m_context(context), m_model(new BreakpointModel(context, this)), m_view(new QListView(this))
{
    m_view->setModel(m_model);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setToolTip(tr("Checked breakpoints stop Continue (F5) and Reverse Continue (Shift+F5).\n"
                          "Double-click one to go to its next hit."));

    auto* add = new QToolButton(this);
    add->setText(tr("Add"));
    add->setIcon(themedIcon(QStringLiteral("breakpoint")));
    add->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    add->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(add);
    menu->addAction(tr("On the Selected Op"), this, [this] {
        Breakpoint b;
        b.kind = BreakpointKind::Op;
        b.op = m_context.selectedOp();
        if (b.op >= 0)
            m_context.addBreakpoint(b);
    });
    menu->addAction(tr("When the Selected Value Changes"), this, [this] {
        Breakpoint b;
        b.kind = BreakpointKind::Value;
        b.value = m_context.selectedValue();
        if (b.value >= 0)
            m_context.addBreakpoint(b);
    });
    menu->addAction(tr("When an Axis Is Added or Removed..."), this, &BreakpointsPanel::addAxisBreakpoint);
    QMenu* decisions = menu->addMenu(tr("On a Decision Kind"));
    for (int k = 0; k <= static_cast<int>(DecisionKind::External); ++k) {
        const auto kind = static_cast<DecisionKind>(k);
        decisions->addAction(QString::fromLatin1(decisionKindName(kind)), this, [this, kind] {
            Breakpoint b;
            b.kind = BreakpointKind::Decision;
            b.decision = kind;
            m_context.addBreakpoint(b);
        });
    }
    menu->addAction(themedIcon(QStringLiteral("conflict")), tr("On Any Conflict"), this,
                    [this] { m_context.addBreakpoint(Breakpoint{}); });
    add->setMenu(menu);
    auto* remove = new QToolButton(this);
    remove->setText(tr("Remove"));
    remove->setToolButtonStyle(Qt::ToolButtonTextOnly);
    connect(remove, &QToolButton::clicked, this, &BreakpointsPanel::removeSelected);
    auto* clear = new QToolButton(this);
    clear->setText(tr("Remove All"));
    connect(clear, &QToolButton::clicked, this, [this] { m_context.setBreakpoints({}); });

    auto* buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addWidget(clear);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(buttons);
    layout->addWidget(m_view, 1);

    connect(m_view, &QListView::doubleClicked, this, [this](const QModelIndex& index) {
        const Session* s = m_context.session();
        if (!s || !s->trace() || index.row() >= static_cast<int>(m_context.breakpoints().size()))
            return;
        Breakpoint b = m_context.breakpoints()[static_cast<size_t>(index.row())];
        b.enabled = true;
        std::optional<size_t> next = nextBreakpointPosition(*s->trace(), m_context.step(), {b}, true);
        if (!next) // wrap around to the first hit
            next = nextBreakpointPosition(*s->trace(), 0, {b}, true);
        if (next)
            m_context.setStep(*next);
    });
}

void BreakpointsPanel::addAxisBreakpoint()
{
    bool ok = false;
    const QString axis = QInputDialog::getText(this, tr("Axis Breakpoint"),
                                               tr("Break when this mesh axis is added to or removed from a sharding\n"
                                                  "(of the selected value only, if one is selected):"),
                                               QLineEdit::Normal, QString(), &ok)
                             .trimmed()
                             .remove(QLatin1Char('"'));
    if (!ok || axis.isEmpty())
        return;
    Breakpoint b;
    b.kind = BreakpointKind::Axis;
    b.axis = axis.toStdString();
    b.value = m_context.selectedValue();
    m_context.addBreakpoint(b);
}

void BreakpointsPanel::removeSelected()
{
    const QModelIndex index = m_view->currentIndex();
    std::vector<Breakpoint> bps = m_context.breakpoints();
    if (!index.isValid() || index.row() >= static_cast<int>(bps.size()))
        return;
    bps.erase(bps.begin() + index.row());
    m_context.setBreakpoints(std::move(bps));
}

} // namespace shardx::views
