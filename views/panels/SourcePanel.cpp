// SourcePanel: placeholder.
#include "views/panels/SourcePanel.h"

#include "views/session/SessionContext.h"

namespace shardx::views {

SourcePanel::SourcePanel(SessionContext& context, QWidget* parent) : QWidget(parent), m_context(context) {}

} // namespace shardx::views
