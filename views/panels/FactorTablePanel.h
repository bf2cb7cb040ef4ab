// FactorTablePanel: the factor table of the selected op at the current step, with the cells the
// step changed highlighted and the decision that changed them explained below.
#pragma once

#include <QWidget>

class QLabel;
class QTableView;
class QTextBrowser;

namespace shardx::views {

class FactorTableModel;
class SessionContext;

class FactorTablePanel : public QWidget {
    Q_OBJECT

public:
    explicit FactorTablePanel(SessionContext& context, QWidget* parent = nullptr);

    FactorTableModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    /// The explanation under the table (plain text).
    QString explanation() const;

private:
    void refresh();

    SessionContext& m_context;
    FactorTableModel* m_model;
    QLabel* m_title;
    QTableView* m_view;
    QTextBrowser* m_explanation;
};

} // namespace shardx::views
