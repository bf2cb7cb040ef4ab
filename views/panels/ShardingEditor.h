// ShardingEditor: edits one value's sharding as Shardy text, validated as you type, with a per-dimension
// editor of axis chips.
#pragma once

#include <optional>
#include <vector>

#include <QWidget>

#include "core/ir/Type.h"
#include "core/mesh/Mesh.h"
#include "core/sharding/TensorSharding.h"

class QGridLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QToolButton;

namespace shardx::ir {
class Module;
}

namespace shardx::views {

/// The editor of the inspector: a line of Shardy syntax (`<@mesh, [{"x"}, {?}]>`), parsed and
/// verified against the value's type and the program's meshes on every keystroke (the parse error
/// with its column, or the verifier's message, else the local shape the sharding gives), and under
/// it one row per dimension with a chip per mesh axis: clicking a chip adds the axis to the
/// dimension (as its minor-most axis, taking it off any other dimension) or removes it; `?`
/// opens or closes the dimension. Apply (or Return) asks for the edit, Remove for dropping the
/// value's own annotation, Reset goes back to the sharding the editor started from.
class ShardingEditor : public QWidget {
    Q_OBJECT

public:
    explicit ShardingEditor(QWidget* parent = nullptr);

    /// Edits a sharding for a value of `type` in `module` (whose meshes the text may name),
    /// starting from `initial` (or, without one, a closed replicated sharding on `fallbackMesh`).
    /// `hasOwn`: the value has an annotation of its own (Remove is enabled).
    void setTarget(const ir::Module* module, const ir::Type& type, const std::optional<TensorSharding>& initial,
                   const MeshRef& fallbackMesh, bool hasOwn);
    /// Nothing to edit (`why` is shown).
    void clearTarget(const QString& why);

    QString text() const;
    void setText(const QString& text);
    /// The sharding the text stands for, when it parses and verifies.
    const std::optional<TensorSharding>& sharding() const { return m_valid; }
    /// The validation message (or the result of the last apply).
    QString status() const;
    /// Shows the result of an apply (`error`: in the error colour).
    void showResult(const QString& message, bool error);

    QLineEdit* lineEdit() const { return m_edit; }
    QPushButton* applyButton() const { return m_apply; }
    QPushButton* removeButton() const { return m_remove; }
    /// The chip of mesh axis `axis` on dimension `dim` (nullptr when there is none).
    QWidget* chip(int dim, const QString& axis) const;

signals:
    /// Apply (a sharding) or Remove (nullopt).
    void applyRequested(const std::optional<TensorSharding>& sharding);

private:
    void validate();
    void rebuildChips();
    void updateChips();
    void toggleAxis(int dim, const std::string& axis);
    void toggleOpen(int dim);
    enum class Tone { Neutral, Good, Bad };
    void setStatus(const QString& text, Tone tone);

    const ir::Module* m_module = nullptr;
    ir::Type m_type;
    std::optional<TensorSharding> m_initial;
    std::optional<TensorSharding> m_parsed; ///< parses (may not verify)
    std::optional<TensorSharding> m_valid;  ///< parses and verifies
    Mesh m_chipMesh;
    bool m_hasOwn = false;
    QLineEdit* m_edit;
    QLabel* m_status;
    QWidget* m_chips;
    QGridLayout* m_chipLayout;
    struct DimChips {
        std::vector<std::pair<std::string, QToolButton*>> axes;
        QToolButton* open = nullptr;
        QLabel* text = nullptr;
    };
    std::vector<DimChips> m_dimChips;
    QPushButton* m_apply;
    QPushButton* m_remove;
    QPushButton* m_reset;
};

} // namespace shardx::views
