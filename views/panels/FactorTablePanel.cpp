// FactorTablePanel: placeholder.
#include "views/panels/FactorTablePanel.h"

#include "views/session/SessionContext.h"

namespace shardx::views {

FactorTablePanel::FactorTablePanel(SessionContext& context, QWidget* parent) : QWidget(parent), m_context(context) {}

} // namespace shardx::views
