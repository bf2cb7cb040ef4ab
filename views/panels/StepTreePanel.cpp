// StepTreePanel: the step tree, its filters, selection and the debugger's "cursor".
#include "views/panels/StepTreePanel.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

#include "core/trace/Explain.h"
#include "views/app/Icons.h"
#include "views/models/StepTreeModel.h"
#include "views/session/SessionContext.h"

namespace shardx::views {

StepTreePanel::StepTreePanel(SessionContext& context, QWidget* parent)
    : QWidget(parent),
      m_context(context),
      m_model(new StepTreeModel(this)),
      m_view(new QTreeView(this)),
      m_search(new QLineEdit(this)),
      m_changesOnly(new QCheckBox(tr("Changes"), this)),
      m_conflictsOnly(new QCheckBox(tr("Conflicts"), this)),
      m_skipped(new QCheckBox(tr("Skipped"), this)),
      m_count(new QLabel(this))
{
    m_search->setPlaceholderText(tr("Filter by op, value or loc name…"));
    m_search->setClearButtonEnabled(true);
    m_search->addAction(themedIcon(QStringLiteral("filter")), QLineEdit::LeadingPosition);
    m_changesOnly->setToolTip(tr("Only steps that changed a sharding"));
    m_conflictsOnly->setToolTip(tr("Only steps where tensors disagreed and an axis was cut or not taken"));
    m_skipped->setToolTip(tr("Also show ops visited without a step (constants, terminators, ops without a mesh)"));
    m_view->setModel(m_model);
    m_view->setUniformRowHeights(true);
    m_view->setIndentation(12);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->header()->setStretchLastSection(true);
    m_view->header()->resizeSection(StepTreeModel::StepColumn, 110);
    m_view->header()->resizeSection(StepTreeModel::WhatColumn, 190);
    m_view->header()->resizeSection(StepTreeModel::ChangeColumn, 260);

    auto* filters = new QHBoxLayout;
    filters->setContentsMargins(0, 0, 0, 0);
    filters->addWidget(m_search, 1);
    filters->addWidget(m_changesOnly);
    filters->addWidget(m_conflictsOnly);
    filters->addWidget(m_skipped);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    layout->addLayout(filters);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_count);

    // Typing filters after a short pause, so that a 600k-step trace is not refiltered per key.
    auto* typing = new QTimer(this);
    typing->setSingleShot(true);
    typing->setInterval(200);
    connect(m_search, &QLineEdit::textChanged, typing, qOverload<>(&QTimer::start));
    connect(typing, &QTimer::timeout, this, &StepTreePanel::applyFilter);
    connect(m_changesOnly, &QCheckBox::toggled, this, &StepTreePanel::applyFilter);
    connect(m_conflictsOnly, &QCheckBox::toggled, this, &StepTreePanel::applyFilter);
    connect(m_skipped, &QCheckBox::toggled, this, &StepTreePanel::applyFilter);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                const int step = current.data(StepTreeModel::StepIndexRole).toInt();
                m_context.selectStep(step);
                const int value = current.data(StepTreeModel::ValueRole).toInt();
                const int op = current.data(StepTreeModel::OpRole).toInt();
                if (step >= 0 && (value >= 0 || op >= 0))
                    m_context.select(value, op);
            });
    connect(m_view, &QTreeView::doubleClicked, this, [this](const QModelIndex& index) {
        const int step = index.data(StepTreeModel::StepIndexRole).toInt();
        if (step >= 0)
            m_context.setStep(static_cast<size_t>(step) + 1);
    });
    connect(m_view, &QWidget::customContextMenuRequested, this, &StepTreePanel::showContextMenu);

    connect(&m_context, &SessionContext::moduleChanged, this, &StepTreePanel::reload);
    connect(&m_context, &SessionContext::stepChanged, this, [this](size_t step) {
        m_model->setPosition(step);
        showCurrent();
    });
    connect(&m_context, &SessionContext::breakpointsChanged, this,
            [this] { m_model->setBreakpoints(m_context.breakpoints()); });
    reload();
}

void StepTreePanel::reload()
{
    const Session* s = m_context.session();
    // The trace the model shows may be gone (the program closed or propagated again): let go of it
    // before moving the position, which reads it.
    m_model->setTrace(nullptr);
    m_model->setPosition(m_context.step());
    m_model->setTrace(s ? s->trace() : nullptr);
    m_model->setBreakpoints(m_context.breakpoints());
    // Open the outer levels (passes, rounds) but not the runs with thousands of steps.
    for (int r = 0; r < m_model->rowCount(); ++r) {
        const QModelIndex top = m_model->index(r, 0);
        if (top.data(StepTreeModel::NodeIndexRole).toInt() >= 0 && m_model->rowCount(top) < 50)
            m_view->expand(top);
    }
    applyFilter();
    showCurrent();
}

void StepTreePanel::applyFilter()
{
    StepFilter f;
    f.text = m_search->text().trimmed();
    f.changesOnly = m_changesOnly->isChecked();
    f.conflictsOnly = m_conflictsOnly->isChecked();
    f.hideSkipped = !m_skipped->isChecked();
    m_model->setFilter(f);
    spanNodeRows({});
    const Session* s = m_context.session();
    const size_t total = s && s->trace() ? s->trace()->numSteps() : 0;
    m_count->setText(total == 0 ? tr("No trace yet")
                                : tr("%1 of %2 steps shown").arg(m_model->visibleSteps()).arg(total));
    if (!f.text.isEmpty() || f.changesOnly || f.conflictsOnly)
        m_view->expandAll();
    showCurrent();
}

void StepTreePanel::spanNodeRows(const QModelIndex& parent)
{
    // Node rows (passes, rounds, runs) read across the columns.
    for (int r = 0; r < m_model->rowCount(parent); ++r) {
        const QModelIndex idx = m_model->index(r, 0, parent);
        if (idx.data(StepTreeModel::NodeIndexRole).toInt() < 0)
            continue;
        m_view->setFirstColumnSpanned(r, parent, true);
        spanNodeRows(idx);
    }
}

void StepTreePanel::showCurrent()
{
    const size_t step = m_context.step();
    if (step == 0)
        return;
    const QModelIndex idx = m_model->indexOfStep(step - 1);
    if (idx.isValid())
        m_view->scrollTo(idx, QAbstractItemView::EnsureVisible);
}

void StepTreePanel::showContextMenu(const QPoint& pos)
{
    const QModelIndex index = m_view->indexAt(pos);
    const int step = index.data(StepTreeModel::StepIndexRole).toInt();
    const Session* s = m_context.session();
    if (step < 0 || !s || !s->trace())
        return;
    const Trace& trace = *s->trace();
    const TraceStep& ts = trace.steps()[static_cast<size_t>(step)];
    QMenu menu(this);
    menu.addAction(themedIcon(QStringLiteral("run-to-cursor")), tr("Run to Here"), this,
                   [this, step] { m_context.setStep(static_cast<size_t>(step) + 1); });
    menu.addAction(themedIcon(QStringLiteral("step-back")), tr("Go to Just Before"), this,
                   [this, step] { m_context.setStep(static_cast<size_t>(step)); });
    menu.addSeparator();
    if (ts.op >= 0)
        menu.addAction(themedIcon(QStringLiteral("breakpoint")), tr("Break on This Op"), this, [this, ts] {
            Breakpoint b;
            b.kind = BreakpointKind::Op;
            b.op = ts.op;
            m_context.addBreakpoint(b);
        });
    const int value = index.data(StepTreeModel::ValueRole).toInt();
    if (value >= 0)
        menu.addAction(themedIcon(QStringLiteral("breakpoint")), tr("Break When This Value Changes"), this,
                       [this, value] {
                           Breakpoint b;
                           b.kind = BreakpointKind::Value;
                           b.value = value;
                           m_context.addBreakpoint(b);
                       });
    // The first decision of the step that is not a plain compatible prefix, if any.
    std::optional<DecisionKind> decision;
    for (const TraceChange& c : ts.changes)
        for (const TraceFactorChange& fc : trace.factorChanges(c))
            if (!decision && fc.decision.kind != DecisionKind::CompatiblePrefix)
                decision = fc.decision.kind;
    if (decision)
        menu.addAction(themedIcon(QStringLiteral("breakpoint")),
                       tr("Break on Decision \"%1\"").arg(QString::fromLatin1(decisionKindName(*decision))), this,
                       [this, k = *decision] {
                           Breakpoint b;
                           b.kind = BreakpointKind::Decision;
                           b.decision = k;
                           m_context.addBreakpoint(b);
                       });
    menu.addSeparator();
    menu.addAction(tr("Copy Description"), this, [&trace, step] {
        QString text = QString::fromStdString(describeStepHeader(trace, static_cast<size_t>(step)));
        for (const std::string& line : describeStep(trace, static_cast<size_t>(step)))
            text += QStringLiteral("\n") + QString::fromStdString(line);
        QApplication::clipboard()->setText(text);
    });
    menu.exec(m_view->viewport()->mapToGlobal(pos));
}

} // namespace shardx::views
