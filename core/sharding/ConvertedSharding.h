// ConvertedSharding: a sharding written in another framework's notation, or why it cannot be.
#pragma once

#include <string>
#include <vector>

#include "core/mesh/AxisRef.h"
#include "core/mesh/Mesh.h"
#include "core/sharding/TensorSharding.h"

namespace shardx {

/// A TensorSharding written in another notation (a JAX PartitionSpec or type, GSPMD's HloSharding
/// text, PyTorch DTensor placements).
///
/// When the notation cannot say what the sharding says (a sub-axis in a PartitionSpec), `text` is
/// empty and `explanation` says why and what to do instead: never a spec that means something
/// else. When it can say the data layout but not everything Shardy records (an open dimension,
/// a priority, explicitly replicated axes), `text` holds it and `notes` list what was left out.
struct ConvertedSharding {
    std::string text;               ///< the sharding in the notation; empty when not expressible
    std::string explanation;        ///< why it is not expressible (set exactly when `text` is empty)
    std::vector<std::string> notes; ///< what the text leaves out or how to read it
    /// The mesh in the framework's terms (`jax.sharding.Mesh(...)`, `DeviceMesh(...)`), for
    /// notations whose text names mesh axes; empty otherwise.
    std::string meshText;

    bool isExpressible() const { return !text.empty(); }
};

/// The first sub-axis a sharding uses (in its dimensions, replicated or unreduced axes), or
/// nullptr: the notations of JAX and PyTorch name whole mesh axes only.
const AxisRef* firstSubAxis(const TensorSharding& sharding);

/// The explanation for a sharding that uses the sub-axis `sub` of `mesh` in a notation (`what`,
/// "A PartitionSpec") that names whole mesh axes only: where the sub-axis is and how to rewrite
/// the mesh so that it becomes a whole axis.
std::string subAxisExplanation(const TensorSharding& sharding, const AxisRef& sub, const Mesh& mesh,
                               const std::string& what);

} // namespace shardx
