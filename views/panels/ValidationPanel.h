// ValidationPanel: runs the per-device programs of the open program and compares them with the global
// program value by value (exec::validate), on the core thread, with progress, cancel, a verdict and the
// first divergence selected in the graph.
#pragma once

#include <memory>

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
class QTimer;

namespace shardx::views {

class SessionContext;
class ValidationModel;
struct ValidationRun;

/// The "Validation" panel. Run validates the program as it is now (the propagated module the graph shows):
/// it is partitioned, the global program runs on the reference executor, the per-device programs on the back
/// end chosen (reference, or Vulkan where the build has it), every value is gathered shard by shard and
/// compared under its element type's tolerance. The settings are the CLI's (`shardx-cli validate`): mesh sizes
/// replacing the module's, the seed of the inputs, intermediates (every value, not only the results), and a
/// fault to inject (a corrupted collective, two devices' swapped shards) to watch validation catch it. The
/// work runs on the core thread (a copy of the module is taken there, so the session stays free); a bar
/// shows the stage and Cancel stops it before its next op. The verdict line says match, or names the first
/// value that diverges, its op, line and device; the table lists every value compared. When it finishes with
/// a mismatch the first divergence is selected in the graph (SessionContext::select); a click on a row
/// selects that row's value. A change of the program clears the results (they would name stale values).
class ValidationPanel : public QWidget {
    Q_OBJECT

public:
    explicit ValidationPanel(SessionContext& context, QWidget* parent = nullptr);
    ~ValidationPanel() override;

    ValidationModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    QComboBox* backendBox() const { return m_backend; }
    QComboBox* faultBox() const { return m_fault; }
    QLineEdit* meshField() const { return m_mesh; }
    QSpinBox* seedBox() const { return m_seed; }
    QCheckBox* intermediatesBox() const { return m_intermediates; }

    /// Starts a validation with the panel's settings; false (nothing started) without a program or while one
    /// runs.
    bool run();
    /// Asks the running validation to stop (it ends at its next op).
    void cancel();
    bool isRunning() const { return static_cast<bool>(m_run); }
    /// The verdict line (and the lines under it) as plain text, or the message shown instead.
    QString verdictText() const;

signals:
    /// A validation ended: with a report (`ran`), or cancelled or unable to run.
    void finished(bool ran);

private:
    void finish(const std::shared_ptr<ValidationRun>& run);
    void clearResults(const QString& message);
    void updateControls();
    void pollProgress();
    void onCurrentChanged(const QModelIndex& current);
    /// Selects `row`'s value in the graph.
    void selectRow(int row);

    SessionContext& m_context;
    ValidationModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QComboBox* m_backend;
    QLineEdit* m_mesh;
    QSpinBox* m_seed;
    QCheckBox* m_intermediates;
    QComboBox* m_fault;
    QPushButton* m_runButton;
    QPushButton* m_cancelButton;
    QProgressBar* m_progress;
    QLabel* m_stage;
    QLabel* m_verdict;
    QLabel* m_details;
    QLabel* m_message;
    QTableView* m_view;
    QTimer* m_timer;
    std::shared_ptr<ValidationRun> m_run; ///< the validation running, else null
    QString m_verdictPlain;
    bool m_selecting = false; ///< the current row is being set by the panel, not by the user
};

} // namespace shardx::views
