// MeshPanel: placeholder.
#include "views/mesh/MeshPanel.h"

#include "views/session/SessionContext.h"

namespace shardx::views {

MeshPanel::MeshPanel(SessionContext& context, QWidget* parent) : QWidget(parent), m_context(context) {}

} // namespace shardx::views
