// MeshPanel: (placeholder until its issue-11 work lands) an empty panel observing the SessionContext.
#pragma once

#include <QWidget>

namespace shardx::views {

class SessionContext;

class MeshPanel : public QWidget {
    Q_OBJECT

public:
    explicit MeshPanel(SessionContext& context, QWidget* parent = nullptr);

private:
    SessionContext& m_context;
};

} // namespace shardx::views
