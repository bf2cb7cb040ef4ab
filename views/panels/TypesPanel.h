// TypesPanel: JAX's explicit ("typed") sharding mode over the open program: every value's type
// (`f32[4@X,8@Y]`) beside Shardy's propagated sharding, why they differ, the trace-time errors at
// their ops, and the mesh axes' types, settable.
#pragma once

#include <map>
#include <memory>

#include <QWidget>

#include "core/explicit/AxisTypes.h"
#include "core/support/Diagnostic.h"
#include "views/models/TypesModel.h"

class QCheckBox;
class QHBoxLayout;
class QLabel;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace shardx::views {

class DiagnosticsModel;
class SessionContext;
struct TypesSnapshot;

/// The "Types" panel. Typing (explicit_::typeModule on the user's program, and
/// compareWithPropagated against the propagated one) runs on the core thread whenever the
/// program changes while the panel is shown, or when an axis type is changed here. A row selects
/// its value (the graph and the other panels follow); an error selects its op and shows its line.
class TypesPanel : public QWidget {
    Q_OBJECT

public:
    explicit TypesPanel(SessionContext& context, QWidget* parent = nullptr);
    ~TypesPanel() override;

    TypesModel* model() const { return m_model; }
    DiagnosticsModel* errorsModel() const { return m_errors; }
    QTableView* view() const { return m_view; }
    QTableView* errorsView() const { return m_errorsView; }
    /// The line above the table (plain text).
    QString summaryText() const;
    /// Why the current row's type and propagated sharding differ (plain text).
    QString detailsText() const;
    /// The axis types shown (mesh order), as `X=Explicit,Y=Auto`.
    QString axisTypesText() const;
    /// Sets `axis`'s type (the user's choice wins over the module's) and types again.
    void setAxisType(const QString& axis, explicit_::AxisType type);
    /// Forgets the user's axis types: the module's again.
    void resetAxisTypes();
    /// Shows only the rows that differ or have an error.
    void setOnlyNotable(bool only);
    /// Selects the op of error `row` of the errors table and shows its line (as a click does).
    void activateError(int row);
    /// Whether the panel's dock is the one shown among its tabs (QDockWidget::visibilityChanged: a
    /// dock behind another tab is still a visible widget); the program is typed when it comes to the front.
    void setDockShown(bool shown);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void refresh();
    void adopt(const std::shared_ptr<TypesSnapshot>& snapshot);
    void rebuildAxes();
    void showDetails(const QModelIndex& proxyIndex);
    void followSelection(int value);

    SessionContext& m_context;
    bool m_dockShown = true; ///< outside a dock, shown whenever visible
    TypesModel* m_model;
    QSortFilterProxyModel* m_proxy;
    DiagnosticsModel* m_errors;
    QLabel* m_summary;
    QWidget* m_axesBox;
    QHBoxLayout* m_axesLayout;
    QCheckBox* m_onlyNotable;
    QSplitter* m_splitter;
    QTableView* m_view;
    QLabel* m_details;
    QWidget* m_errorsBox;
    QLabel* m_errorsLabel;
    QTableView* m_errorsView;
    explicit_::AxisTypeOverrides m_overrides;
    std::shared_ptr<TypesSnapshot> m_shown;
    bool m_dirty = true;
    int m_generation = 0;
};

} // namespace shardx::views
