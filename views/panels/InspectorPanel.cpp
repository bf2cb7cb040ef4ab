// InspectorPanel: placeholder.
#include "views/panels/InspectorPanel.h"

#include "views/session/SessionContext.h"

namespace shardx::views {

InspectorPanel::InspectorPanel(SessionContext& context, QWidget* parent) : QWidget(parent), m_context(context) {}

} // namespace shardx::views
