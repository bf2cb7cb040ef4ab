// DiagnosticsPanel: placeholder.
#include "views/panels/DiagnosticsPanel.h"

#include "views/session/SessionContext.h"

namespace shardx::views {

DiagnosticsPanel::DiagnosticsPanel(SessionContext& context, QWidget* parent) : QWidget(parent), m_context(context) {}

} // namespace shardx::views
