// ShardingEditor: text editing with validation, axis chips, apply/remove/reset.
#include "views/panels/ShardingEditor.h"

#include <algorithm>

#include <QFontDatabase>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/io/MlirReader.h"
#include "core/ir/Module.h"
#include "core/sharding/LocalShape.h"
#include "core/sharding/ShardingVerifier.h"
#include "views/app/Icons.h"
#include "views/models/DeviceShardModel.h"

namespace shardx::views {

namespace {

constexpr char kPrefix[] = "#sdy.sharding";

} // namespace

ShardingEditor::ShardingEditor(QWidget* parent)
    : QWidget(parent),
      m_edit(new QLineEdit(this)),
      m_status(new QLabel(this)),
      m_chips(new QWidget(this)),
      m_chipLayout(new QGridLayout(m_chips)),
      m_apply(new QPushButton(themedIcon(QStringLiteral("propagate")), tr("Apply"), this)),
      m_remove(new QPushButton(tr("Remove"), this)),
      m_reset(new QPushButton(tr("Reset"), this))
{
    m_edit->setObjectName(QStringLiteral("shardingEdit"));
    m_edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_edit->setPlaceholderText(QStringLiteral("<@mesh, [{\"x\"}, {?}]>"));
    m_edit->setClearButtonEnabled(true);
    m_status->setObjectName(QStringLiteral("shardingStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_chipLayout->setContentsMargins(0, 0, 0, 0);
    m_chipLayout->setHorizontalSpacing(3);
    m_chipLayout->setVerticalSpacing(3);
    m_apply->setObjectName(QStringLiteral("applySharding"));
    m_apply->setToolTip(tr("Set this sharding on the value in your program and propagate again (undo: Ctrl+Z)"));
    m_remove->setObjectName(QStringLiteral("removeSharding"));
    m_remove->setToolTip(tr("Drop the value's own annotation and propagate again"));
    m_reset->setToolTip(tr("Back to the sharding the editor started from"));

    auto* buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    buttons->addWidget(m_apply);
    buttons->addWidget(m_remove);
    buttons->addWidget(m_reset);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(m_edit);
    layout->addWidget(m_status);
    layout->addWidget(m_chips);
    layout->addLayout(buttons);

    connect(m_edit, &QLineEdit::textChanged, this, &ShardingEditor::validate);
    connect(m_edit, &QLineEdit::returnPressed, this, [this] {
        if (m_valid)
            emit applyRequested(m_valid);
    });
    connect(m_apply, &QPushButton::clicked, this, [this] {
        if (m_valid)
            emit applyRequested(m_valid);
    });
    connect(m_remove, &QPushButton::clicked, this, [this] { emit applyRequested(std::nullopt); });
    connect(m_reset, &QPushButton::clicked, this,
            [this] { setText(m_initial ? QString::fromStdString(m_initial->toString()) : QString()); });
    clearTarget(tr("Select a value to edit its sharding."));
}

void ShardingEditor::setTarget(const ir::Module* module, const ir::Type& type,
                               const std::optional<TensorSharding>& initial, const MeshRef& fallbackMesh, bool hasOwn)
{
    m_module = module;
    m_type = type;
    m_hasOwn = hasOwn;
    m_initial = initial;
    if (!m_initial)
        m_initial = TensorSharding::closedReplicated(fallbackMesh, type.isRankedTensor() ? type.rank() : 0);
    const Mesh* mesh = module ? module->resolveMesh(m_initial->mesh) : nullptr;
    m_chipMesh = mesh ? *mesh : Mesh();
    setEnabled(true);
    rebuildChips();
    m_edit->setText(QString::fromStdString(m_initial->toString()));
    validate();
}

void ShardingEditor::clearTarget(const QString& why)
{
    m_module = nullptr;
    m_type = ir::Type();
    m_initial.reset();
    m_parsed.reset();
    m_valid.reset();
    m_edit->blockSignals(true);
    m_edit->clear();
    m_edit->blockSignals(false);
    m_chipMesh = Mesh();
    rebuildChips();
    setStatus(why, Tone::Neutral);
    setEnabled(false);
}

QString ShardingEditor::text() const { return m_edit->text(); }

void ShardingEditor::setText(const QString& text)
{
    if (text == m_edit->text())
        validate();
    else
        m_edit->setText(text);
}

QString ShardingEditor::status() const { return m_status->text(); }

void ShardingEditor::setStatus(const QString& text, Tone tone)
{
    m_status->setText(text);
    QPalette p = palette();
    const bool dark = p.color(QPalette::Window).lightness() < 128;
    if (tone == Tone::Bad)
        p.setColor(QPalette::WindowText, QColor::fromRgb(dark ? 0xff8a80 : 0xc62828));
    else if (tone == Tone::Good)
        p.setColor(QPalette::WindowText, QColor::fromRgb(dark ? 0x8fd19e : 0x2e7d32));
    m_status->setPalette(p);
}

void ShardingEditor::showResult(const QString& message, bool error)
{
    setStatus(message, error ? Tone::Bad : Tone::Neutral);
}

QWidget* ShardingEditor::chip(int dim, const QString& axis) const
{
    if (dim < 0 || dim >= static_cast<int>(m_dimChips.size()))
        return nullptr;
    if (axis == QStringLiteral("?"))
        return m_dimChips[static_cast<size_t>(dim)].open;
    for (const auto& [name, button] : m_dimChips[static_cast<size_t>(dim)].axes)
        if (QString::fromStdString(name) == axis)
            return button;
    return nullptr;
}

void ShardingEditor::validate()
{
    m_parsed.reset();
    m_valid.reset();
    const std::string text = m_edit->text().trimmed().toStdString();
    if (!m_module) {
        m_apply->setEnabled(false);
        return;
    }
    m_remove->setEnabled(m_hasOwn);
    m_reset->setEnabled(m_initial && m_edit->text() != QString::fromStdString(m_initial->toString()));
    auto finish = [this](const QString& message, bool error) {
        setStatus(message, error ? Tone::Bad : (m_valid ? Tone::Good : Tone::Neutral));
        m_apply->setEnabled(m_valid.has_value());
        updateChips();
    };
    if (text.empty())
        return finish(tr("Type a sharding: <@mesh, [{\"x\"}, {?}]>"), false);
    DiagnosticList diags;
    ir::AttrPtr attr = io::parseAttribute(kPrefix + text, diags);
    const ir::ShardingAttr* parsed = attr ? attr->as<ir::ShardingAttr>() : nullptr;
    if (!parsed || diags.hasErrors()) {
        QString message = tr("not a sharding");
        for (const Diagnostic& d : diags.all())
            if (d.severity == Severity::Error) {
                const int col = d.pos.col - static_cast<int>(sizeof(kPrefix) - 1);
                message = col > 0 ? tr("column %1: %2").arg(col).arg(QString::fromStdString(d.message))
                                  : QString::fromStdString(d.message);
                break;
            }
        return finish(QStringLiteral("✗ ") + message, true);
    }
    m_parsed = parsed->sharding;
    const Mesh* mesh = m_module->resolveMesh(m_parsed->mesh);
    if (!mesh)
        return finish(tr("✗ unknown mesh %1").arg(QString::fromStdString(m_parsed->mesh.toString())), true);
    if (!(*mesh == m_chipMesh)) {
        m_chipMesh = *mesh;
        rebuildChips();
    }
    const TypeShape shape = m_type.typeShape();
    if (std::optional<std::string> error = verifyTensorSharding(*m_parsed, &shape, *mesh))
        return finish(QStringLiteral("✗ ") + QString::fromStdString(*error), true);
    m_valid = m_parsed;
    QString ok = tr("✓ valid");
    if (m_type.isRankedTensor())
        ok += tr(" · local shape %1").arg(shapeText(localShapeOf(*m_valid, *mesh, m_type.shape())));
    finish(ok, false);
}

void ShardingEditor::rebuildChips()
{
    while (QLayoutItem* item = m_chipLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_dimChips.clear();
    const int rank = m_type.isRankedTensor() ? m_type.rank() : 0;
    m_chips->setVisible(rank > 0 && !m_chipMesh.axes().empty());
    for (int d = 0; d < rank; ++d) {
        DimChips chips;
        const int64_t size = m_type.dim(d);
        auto* label = new QLabel(QStringLiteral("d%1 · %2")
                                     .arg(d)
                                     .arg(size == ir::Type::kDynamic ? QStringLiteral("?") : QString::number(size)),
                                 m_chips);
        label->setForegroundRole(QPalette::PlaceholderText);
        m_chipLayout->addWidget(label, d, 0);
        int col = 1;
        for (const MeshAxis& a : m_chipMesh.axes()) {
            auto* b = new QToolButton(m_chips);
            b->setText(QString::fromStdString(a.name));
            b->setCheckable(true);
            b->setToolTip(tr("Shard d%1 on \"%2\" (size %3), minor to the axes it has; click again to remove")
                              .arg(d)
                              .arg(QString::fromStdString(a.name))
                              .arg(a.size));
            const std::string name = a.name;
            connect(b, &QToolButton::clicked, this, [this, d, name] { toggleAxis(d, name); });
            m_chipLayout->addWidget(b, d, col++);
            chips.axes.emplace_back(a.name, b);
        }
        chips.open = new QToolButton(m_chips);
        chips.open->setText(QStringLiteral("?"));
        chips.open->setCheckable(true);
        chips.open->setToolTip(tr("Open: propagation may shard d%1 further").arg(d));
        connect(chips.open, &QToolButton::clicked, this, [this, d] { toggleOpen(d); });
        m_chipLayout->addWidget(chips.open, d, col++);
        chips.text = new QLabel(m_chips);
        chips.text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
        chips.text->setForegroundRole(QPalette::PlaceholderText);
        m_chipLayout->addWidget(chips.text, d, col++);
        m_dimChips.push_back(chips);
    }
    m_chipLayout->setColumnStretch(m_chipLayout->columnCount(), 1);
}

void ShardingEditor::updateChips()
{
    const bool usable = m_parsed && m_parsed->rank() == static_cast<int>(m_dimChips.size());
    for (size_t d = 0; d < m_dimChips.size(); ++d) {
        DimChips& chips = m_dimChips[d];
        const DimSharding* dim = usable ? &m_parsed->dims[d] : nullptr;
        for (auto& [name, button] : chips.axes) {
            bool on = false;
            if (dim)
                for (const AxisRef& a : dim->axes)
                    on = on || (a.name == name && !a.sub);
            button->setEnabled(usable);
            button->setChecked(on);
        }
        chips.open->setEnabled(usable);
        chips.open->setChecked(dim && !dim->closed);
        chips.text->setText(dim ? QString::fromStdString(dim->toString()) : QString());
    }
}

void ShardingEditor::toggleAxis(int dim, const std::string& axis)
{
    if (!m_parsed || dim >= m_parsed->rank())
        return;
    TensorSharding s = *m_parsed;
    std::vector<AxisRef>& axes = s.dims[static_cast<size_t>(dim)].axes;
    const bool had = std::any_of(axes.begin(), axes.end(), [&](const AxisRef& a) { return a.name == axis && !a.sub; });
    // An axis is used once: take it (and its sub-axes) off everything first.
    auto drop = [&](std::vector<AxisRef>& list) {
        list.erase(std::remove_if(list.begin(), list.end(), [&](const AxisRef& a) { return a.name == axis; }),
                   list.end());
    };
    for (DimSharding& d : s.dims)
        drop(d.axes);
    drop(s.replicated);
    drop(s.unreduced);
    if (!had)
        axes.push_back(AxisRef(axis));
    setText(QString::fromStdString(s.toString()));
}

void ShardingEditor::toggleOpen(int dim)
{
    if (!m_parsed || dim >= m_parsed->rank())
        return;
    TensorSharding s = *m_parsed;
    s.dims[static_cast<size_t>(dim)].closed = !s.dims[static_cast<size_t>(dim)].closed;
    setText(QString::fromStdString(s.toString()));
}

} // namespace shardx::views
