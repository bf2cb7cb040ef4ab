// DebuggerActions: the debugger's commands, their shortcuts and when they are enabled.
#include "views/app/DebuggerActions.h"

#include <QAction>
#include <QMenu>
#include <QToolBar>

#include "views/app/Icons.h"
#include "views/session/SessionContext.h"

namespace shardx::views {

namespace {

QAction* makeAction(QObject* parent, const QString& icon, const QString& text, const QKeySequence& key,
                    const QString& tip)
{
    auto* a = new QAction(themedIcon(icon), text, parent);
    a->setShortcut(key);
    a->setShortcutContext(Qt::ApplicationShortcut);
    a->setToolTip(QStringLiteral("%1 (%2)\n%3")
                      .arg(QString(text).remove(QLatin1Char('&')), key.toString(QKeySequence::NativeText), tip));
    a->setStatusTip(tip);
    return a;
}

} // namespace

DebuggerActions::DebuggerActions(SessionContext& context, QObject* parent) : QObject(parent), m_context(context)
{
    m_step = makeAction(this, QStringLiteral("step-forward"), tr("&Step"), Qt::Key_F10,
                        tr("Apply the next recorded propagation step"));
    m_back = makeAction(this, QStringLiteral("step-back"), tr("Step &Back"), Qt::SHIFT | Qt::Key_F10,
                        tr("Undo the last applied step"));
    m_over = makeAction(this, QStringLiteral("step-over"), tr("Step &Over Op"), Qt::Key_F11,
                        tr("Apply every step of the next op in a row"));
    m_out = makeAction(this, QStringLiteral("step-out"), tr("Step O&ut"), Qt::SHIFT | Qt::Key_F11,
                       tr("Run to the end of the current run, round or pass"));
    m_continue = makeAction(this, QStringLiteral("continue"), tr("&Continue"), Qt::Key_F5,
                            tr("Run forwards to the next breakpoint (or the end)"));
    m_reverse = makeAction(this, QStringLiteral("reverse-continue"), tr("&Reverse Continue"), Qt::SHIFT | Qt::Key_F5,
                           tr("Run backwards to the previous breakpoint (or the start)"));
    m_restart = makeAction(this, QStringLiteral("restart"), tr("R&estart"), Qt::CTRL | Qt::Key_F5,
                           tr("Go back to the state before propagation"));
    m_end = makeAction(this, QStringLiteral("run-to-end"), tr("Run to &End"), Qt::CTRL | Qt::SHIFT | Qt::Key_F5,
                       tr("Show the propagated result"));
    m_toCursor = makeAction(this, QStringLiteral("run-to-cursor"), tr("Run to C&ursor"), Qt::CTRL | Qt::Key_F10,
                            tr("Run (forwards or backwards) to just after the step selected in the step tree"));
    m_toggle = makeAction(this, QStringLiteral("breakpoint"), tr("Toggle &Breakpoint"), Qt::Key_F9,
                          tr("Break on steps of the selected op (or value)"));
    m_conflicts = makeAction(this, QStringLiteral("conflict"), tr("Break on Any &Conflict"), {},
                             tr("Stop at every step where tensors disagreed and an axis was cut or not taken"));
    m_conflicts->setCheckable(true);

    connect(m_step, &QAction::triggered, this, [this] { m_context.setStep(m_context.step() + 1); });
    connect(m_back, &QAction::triggered, this, [this] {
        if (m_context.step() > 0)
            m_context.setStep(m_context.step() - 1);
    });
    connect(m_over, &QAction::triggered, this, [this] {
        if (const Session* s = m_context.session(); s && s->trace())
            m_context.setStep(positionAfterOp(*s->trace(), m_context.step()));
    });
    connect(m_out, &QAction::triggered, this, [this] {
        if (const Session* s = m_context.session(); s && s->trace())
            m_context.setStep(positionAfterNode(*s->trace(), m_context.step()));
    });
    connect(m_continue, &QAction::triggered, this, [this] { m_context.runToBreakpoint(true); });
    connect(m_reverse, &QAction::triggered, this, [this] { m_context.runToBreakpoint(false); });
    connect(m_restart, &QAction::triggered, this, [this] { m_context.setStep(0); });
    connect(m_end, &QAction::triggered, this, [this] { m_context.setStep(m_context.numSteps()); });
    connect(m_toCursor, &QAction::triggered, this, [this] {
        if (m_context.selectedStep() >= 0)
            m_context.setStep(static_cast<size_t>(m_context.selectedStep()) + 1);
    });
    connect(m_toggle, &QAction::triggered, this, [this] { toggleBreakpointAtSelection(); });
    connect(m_conflicts, &QAction::toggled, this, [this](bool on) { setBreakOnConflicts(on); });

    connect(&m_context, &SessionContext::stepChanged, this, [this] { updateEnabled(); });
    connect(&m_context, &SessionContext::moduleChanged, this, [this] { updateEnabled(); });
    connect(&m_context, &SessionContext::selectionChanged, this, [this] { updateEnabled(); });
    connect(&m_context, &SessionContext::selectedStepChanged, this, [this] { updateEnabled(); });
    connect(&m_context, &SessionContext::breakpointsChanged, this, [this] {
        const auto& bps = m_context.breakpoints();
        const bool on = std::any_of(bps.begin(), bps.end(), [](const Breakpoint& b) {
            return b.kind == BreakpointKind::AnyConflict && b.enabled;
        });
        QSignalBlocker block(m_conflicts);
        m_conflicts->setChecked(on);
    });
    updateEnabled();
}

void DebuggerActions::updateEnabled()
{
    const bool traced = m_context.session() && m_context.session()->trace();
    const size_t step = m_context.step();
    const size_t n = m_context.numSteps();
    m_step->setEnabled(traced && step < n);
    m_over->setEnabled(traced && step < n);
    m_out->setEnabled(traced && step < n);
    m_continue->setEnabled(traced && step < n);
    m_end->setEnabled(traced && step < n);
    m_back->setEnabled(traced && step > 0);
    m_reverse->setEnabled(traced && step > 0);
    m_restart->setEnabled(traced && step > 0);
    m_toCursor->setEnabled(traced && m_context.selectedStep() >= 0);
    m_toggle->setEnabled(traced && (m_context.selectedOp() >= 0 || m_context.selectedValue() >= 0));
    m_conflicts->setEnabled(traced);
}

void DebuggerActions::toggleBreakpointAtSelection()
{
    Breakpoint b;
    if (m_context.selectedOp() >= 0) {
        b.kind = BreakpointKind::Op;
        b.op = m_context.selectedOp();
    } else if (m_context.selectedValue() >= 0) {
        b.kind = BreakpointKind::Value;
        b.value = m_context.selectedValue();
    } else {
        return;
    }
    std::vector<Breakpoint> bps = m_context.breakpoints();
    auto same = [&](const Breakpoint& o) { return o.kind == b.kind && o.op == b.op && o.value == b.value; };
    if (auto it = std::find_if(bps.begin(), bps.end(), same); it != bps.end())
        bps.erase(it);
    else
        bps.push_back(b);
    m_context.setBreakpoints(std::move(bps));
}

void DebuggerActions::setBreakOnConflicts(bool on)
{
    std::vector<Breakpoint> bps = m_context.breakpoints();
    std::erase_if(bps, [](const Breakpoint& b) { return b.kind == BreakpointKind::AnyConflict; });
    if (on)
        bps.push_back(Breakpoint{});
    m_context.setBreakpoints(std::move(bps));
}

void DebuggerActions::addTo(QMenu* menu) const
{
    menu->addActions({m_continue, m_reverse, m_step, m_back, m_over, m_out});
    menu->addSeparator();
    menu->addActions({m_toCursor, m_restart, m_end});
    menu->addSeparator();
    menu->addActions({m_toggle, m_conflicts});
}

void DebuggerActions::addTo(QToolBar* toolBar) const
{
    toolBar->addActions({m_restart, m_reverse, m_back, m_step, m_over, m_out, m_continue, m_end});
    toolBar->addSeparator();
    toolBar->addActions({m_toggle, m_conflicts});
}

} // namespace shardx::views
