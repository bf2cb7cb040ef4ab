// RulesPanel: scalax-style sharding rules (a rules JSON file) against the open program: which rule
// matched each argument, result and named sharding constraint, the file's errors at their JSON
// pointers, and Apply, which annotates the program and propagates it again.
#pragma once

#include <memory>

#include <QWidget>

class QCheckBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace shardx::views {

class DiagnosticsModel;
class RulesModel;
class SessionContext;
struct RulesPreview;

/// The "Rules" panel. Loading a rule file reads and applies it to a copy of the user's program on
/// the core thread (a preview: the program is not changed) whenever the file is loaded, the
/// program changes while the panel is shown, or "Keep existing shardings" is toggled. Apply writes
/// the annotated program next to the file opened (`model.annotated.mlir`, or in the temporary
/// folder when that one is not writable) and opens it, which propagates it; Save As then saves it
/// where the user wants.
class RulesPanel : public QWidget {
    Q_OBJECT

public:
    explicit RulesPanel(SessionContext& context, QWidget* parent = nullptr);
    ~RulesPanel() override;

    RulesModel* model() const { return m_model; }
    DiagnosticsModel* problemsModel() const { return m_problems; }
    QTableView* view() const { return m_view; }
    /// The rule file loaded, empty for none.
    const QString& rulesPath() const { return m_rulesPath; }
    /// Loads (and previews) `path`; the result lands once the core thread ran it.
    void loadRules(const QString& path);
    void setKeepExisting(bool keep);
    /// Annotates the program with the rules previewed, writes it to `outputPath` (empty: next to
    /// the open file, see the class comment) and opens it. Returns false when there is nothing to
    /// apply (no rules, no program, or the preview has errors).
    bool apply(const QString& outputPath = {});
    /// The line above the table (plain text).
    QString summaryText() const;
    /// Where apply() writes by default for the open file.
    QString defaultOutputPath() const;
    /// Whether the panel's dock is the one shown among its tabs (QDockWidget::visibilityChanged: a dock
    /// behind another tab is still a visible widget). The preview is computed only while it is.
    void setDockShown(bool shown);

signals:
    /// A preview was adopted (the model shows it).
    void previewed();
    /// apply() wrote `path` (ok) or could not (the message says why).
    void applied(bool ok, const QString& path, const QString& message);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void browse();
    void refresh();
    void adopt(const std::shared_ptr<RulesPreview>& preview);

    SessionContext& m_context;
    RulesModel* m_model;
    QSortFilterProxyModel* m_proxy;
    DiagnosticsModel* m_problems;
    QLabel* m_file;
    QLabel* m_summary;
    QCheckBox* m_keepExisting;
    QPushButton* m_apply;
    QTableView* m_view;
    QTableView* m_problemsView;
    QString m_rulesPath;
    std::shared_ptr<RulesPreview> m_shown;
    bool m_dirty = false;
    bool m_dockShown = true; ///< outside a dock, shown whenever visible
    int m_generation = 0;
};

} // namespace shardx::views
