// AxisTypes: the type of each mesh axis in JAX's sharding modes (Auto, Explicit, Manual), seed 001.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/Module.h"
#include "core/support/Expected.h"

namespace shardx::explicit_ {

/// How a mesh axis is used (JAX's `AxisType`): Auto axes are the compiler's (Shardy propagates
/// them), Explicit axes are part of every value's type, Manual axes are shard_map's.
enum class AxisType { Auto, Explicit, Manual };

/// `Auto`, `Explicit`, `Manual` (as JAX prints them in an AbstractMesh).
const char* axisTypeName(AxisType t);
/// `auto`, `explicit` or `manual` (any case), or nullopt.
std::optional<AxisType> parseAxisType(std::string_view text);

/// The user's choice of axis types: `X=explicit,Y=auto` (axis names of any mesh of the module).
using AxisTypeOverrides = std::map<std::string, AxisType>;
/// Parses `X=explicit,Y=auto,Z=manual`; the error names the piece that is wrong.
Expected<AxisTypeOverrides> parseAxisTypeOverrides(std::string_view text);

/// The axis types of one mesh and where they come from.
struct MeshAxisTypes {
    std::string meshName;             ///< symbol of the sdy.mesh
    std::vector<std::string> axes;    ///< mesh order
    std::vector<AxisType> types;      ///< one per axis
    std::vector<std::string> sources; ///< one per axis: why it has its type

    /// Type of `axis`, nullopt when the mesh has no such axis.
    std::optional<AxisType> typeOf(const std::string& axis) const;
    /// `AbstractMesh('X': 2, 'Y': 4, axis_types=(Explicit, Explicit))`, as JAX prints the mesh.
    std::string toString(const Mesh& mesh) const;
};

/// The axis types of the mesh `meshName` of `module`, read from the module as JAX writes it
/// (jax/_src/sharding_impls.py, modify_sdy_sharding_wrt_axis_types): on a mesh with an Auto axis,
/// JAX writes the dimensions it leaves to the compiler open (`{?}`) and lists the Explicit axes
/// that do not shard a value in `replicated={...}`; on a mesh of Explicit axes only, every
/// dimension is closed. So: when some sharding on the mesh has an open dimension, the axes named
/// in a `replicated` list are Explicit and the others Auto; otherwise every axis is Explicit.
/// Overrides (the user's) win, axis by axis. Manual axes are those of a `sdy.manual_computation`
/// inside its body (the typer sets them there), never at the top level.
MeshAxisTypes readAxisTypes(const ir::Module& module, const std::string& meshName,
                            const AxisTypeOverrides& overrides = {});

} // namespace shardx::explicit_
