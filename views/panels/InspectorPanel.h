// InspectorPanel: the selected value's sharding (at the step, before propagation), in other notations,
// its origins, an editor, and what the last edit changed.
#pragma once

#include <optional>

#include <QWidget>

#include "core/ir/Type.h"

#include "views/models/ChangedValuesModel.h"

class QLabel;
class QTableView;

namespace shardx::views {

class NotationField;
class SessionContext;
class ShardingEditor;

/// The "Sharding Inspector" panel. For the selected value: its name, type and name scope; its
/// sharding in Shardy notation at the current step and as the program gives it (before
/// propagation); the same as a JAX PartitionSpec, a JAX type, GSPMD HloSharding text and PyTorch
/// DTensor placements (each selectable and copyable, with what the notation leaves out, or why it
/// cannot express it); the origin of each axis (links select the value it came from, or go to
/// the step that carried it); an editor that sets the value's sharding through
/// SessionContext::editSharding (undoable, re-propagates); and the values whose final sharding
/// the last edit (or its undo or redo) changed, which select on click.
class InspectorPanel : public QWidget {
    Q_OBJECT

public:
    explicit InspectorPanel(SessionContext& context, QWidget* parent = nullptr);
    ~InspectorPanel() override;

    NotationField* shardingAtStep() const { return m_atStep; }
    NotationField* shardingBefore() const { return m_before; }
    NotationField* partitionSpec() const { return m_spec; }
    NotationField* jaxType() const { return m_jaxType; }
    NotationField* hloSharding() const { return m_hlo; }
    NotationField* dtensor() const { return m_dtensor; }
    ShardingEditor* editor() const { return m_editor; }
    ChangedValuesModel* changedValues() const { return m_changed; }
    QTableView* changedView() const { return m_changedView; }
    /// The origins section as shown (rich text with `value:N` and `step:N` links).
    QString originsText() const;
    QString headerText() const;
    /// Follows a link of the origins section (`value:N` selects, `step:N` goes to that step).
    void openLink(const QString& link);

private:
    void refresh();
    void refreshOrigins(int value);
    void onPropagated(bool ok);
    void applyEdit(const std::optional<TensorSharding>& sharding);
    FinalShardings currentFinalShardings() const;

    SessionContext& m_context;
    QLabel* m_header;
    QLabel* m_scope;
    QWidget* m_body;
    QLabel* m_empty;
    NotationField* m_atStep;
    NotationField* m_before;
    QLabel* m_local;
    NotationField* m_spec;
    NotationField* m_jaxType;
    NotationField* m_hlo;
    NotationField* m_dtensor;
    QLabel* m_origins;
    ShardingEditor* m_editor;
    ChangedValuesModel* m_changed;
    QTableView* m_changedView;
    QLabel* m_changedNote;
    std::optional<FinalShardings> m_lastFinal; ///< after the last propagation
    bool m_editPending = false;                ///< an edit, undo or redo since then
    int m_editorValue = -1;                    ///< the value the editor was set up for
    int m_detailsOf = -1;                      ///< the value m_type and the origins are of
    std::optional<ir::Type> m_type;
};

} // namespace shardx::views
