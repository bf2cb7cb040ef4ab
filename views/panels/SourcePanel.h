// SourcePanel: (placeholder) an empty panel observing the SessionContext.
#pragma once

#include <QWidget>

namespace shardx::views {

class SessionContext;

class SourcePanel : public QWidget {
    Q_OBJECT

public:
    explicit SourcePanel(SessionContext& context, QWidget* parent = nullptr);

private:
    SessionContext& m_context;
};

} // namespace shardx::views
