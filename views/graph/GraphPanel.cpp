// GraphPanel: placeholder.
#include "views/graph/GraphPanel.h"

#include "views/session/SessionContext.h"

namespace shardx::views {

GraphPanel::GraphPanel(SessionContext& context, QWidget* parent) : QWidget(parent), m_context(context) {}

} // namespace shardx::views
