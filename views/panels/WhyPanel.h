// WhyPanel: "why is this axis here / why not" for the selected value, with links to the steps named.
#pragma once

#include <QWidget>

class QComboBox;
class QTextBrowser;

namespace shardx::views {

class SessionContext;

class WhyPanel : public QWidget {
    Q_OBJECT

public:
    explicit WhyPanel(SessionContext& context, QWidget* parent = nullptr);

    /// The text shown (plain), for tests.
    QString text() const;
    QComboBox* axisBox() const { return m_axis; }

private:
    void refresh();

    SessionContext& m_context;
    QComboBox* m_axis;
    QTextBrowser* m_text;
};

} // namespace shardx::views
