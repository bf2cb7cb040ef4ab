// Mesh verification: the rules of SDY.md 1.1 (axis sizes, names, device ids).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/mesh/Mesh.h"

namespace shardx {

/// Checks a mesh as written (before identity device ids are dropped) against SDY.md 1.1.
/// Identity device ids are accepted (Mesh drops them at construction, so text with
/// `device_ids=[0, 1, ...]` parses). Returns the first error message, or nullopt when valid.
std::optional<std::string> verifyMesh(const std::vector<MeshAxis>& axes, const std::vector<int64_t>& deviceIds);

/// Same checks on a constructed mesh.
inline std::optional<std::string> verifyMesh(const Mesh& mesh) { return verifyMesh(mesh.axes(), mesh.deviceIds()); }

} // namespace shardx
