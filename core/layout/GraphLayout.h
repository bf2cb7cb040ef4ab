// GraphLayout: (placeholder until the layout work lands) Qt-free geometry of a laid-out graph.
#pragma once

namespace shardx::layout {} // namespace shardx::layout
