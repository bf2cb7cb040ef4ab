// StepTreePanel: placeholder.
#include "views/panels/StepTreePanel.h"

#include "views/session/SessionContext.h"

namespace shardx::views {

StepTreePanel::StepTreePanel(SessionContext& context, QWidget* parent) : QWidget(parent), m_context(context) {}

} // namespace shardx::views
