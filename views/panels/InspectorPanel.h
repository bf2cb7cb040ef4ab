// InspectorPanel: (placeholder until its issue-11 work lands) an empty panel observing the SessionContext.
#pragma once

#include <QWidget>

namespace shardx::views {

class SessionContext;

class InspectorPanel : public QWidget {
    Q_OBJECT

public:
    explicit InspectorPanel(SessionContext& context, QWidget* parent = nullptr);

private:
    SessionContext& m_context;
};

} // namespace shardx::views
