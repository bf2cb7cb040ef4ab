// WhyPanel: placeholder.
#include "views/panels/WhyPanel.h"

#include "views/session/SessionContext.h"

namespace shardx::views {

WhyPanel::WhyPanel(SessionContext& context, QWidget* parent) : QWidget(parent), m_context(context) {}

} // namespace shardx::views
