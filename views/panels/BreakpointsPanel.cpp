// BreakpointsPanel: placeholder.
#include "views/panels/BreakpointsPanel.h"

#include "views/session/SessionContext.h"

namespace shardx::views {

BreakpointsPanel::BreakpointsPanel(SessionContext& context, QWidget* parent) : QWidget(parent), m_context(context) {}

} // namespace shardx::views
