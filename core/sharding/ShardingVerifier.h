// Tensor sharding verification: axis lists, sub-axes, priorities (SDY.md 1.2-1.5).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/mesh/AxisRef.h"
#include "core/mesh/Mesh.h"
#include "core/sharding/TensorSharding.h"
#include "core/sharding/TypeShape.h"

namespace shardx {

/// Resolves the mesh of a sharding (inline or by symbol); nullptr when unknown.
using MeshLookup = std::function<const Mesh*(const MeshRef&)>;

/// Rules 1-4 of SDY.md 1.2 for one sub-axis (full axes always pass).
std::optional<std::string> verifySubAxis(const AxisRef& axis, const Mesh& mesh);

/// Axis-list rules 1-3 of SDY.md 1.3: names exist, no duplicate (within the list or in
/// `seen`, which is extended), no two adjacent mergeable sub-axes.
std::optional<std::string> verifyAxisList(const std::vector<AxisRef>& axes, const Mesh& mesh,
                                          std::vector<AxisRef>& seen);

/// The mesh-order check of SDY.md 1.3: "<what> axes are not ordered w.r.t. mesh".
std::optional<std::string> verifyAxesOrdered(const std::vector<AxisRef>& axes, const Mesh& mesh,
                                             const std::string& what);

/// The per-axis-name sub-axis checks run after all lists of an attribute were collected
/// (SDY.md 1.3 last paragraph): no full+sub mix, valid sub-axes, no overlapping sub-axes.
std::optional<std::string> verifySubAxesOfAxisName(const std::vector<AxisRef>& used, const Mesh& mesh);

/// Priority rules of SDY.md 1.4 for dimension `dim`.
std::optional<std::string> verifyDimPriority(const DimSharding& d, int64_t dim);

/// SDY.md 1.5 steps 2-11 with the mesh already resolved (step 1 is the caller's, or use
/// the overload with a MeshLookup). `type` (the value's type shape) is null for a sharding of an op with no
/// results. `manualAxes` are the axes bound by enclosing manual computations.
/// Returns the first error message, or nullopt when valid.
std::optional<std::string> verifyTensorSharding(const TensorSharding& sharding, const TypeShape* type, const Mesh& mesh,
                                                const std::vector<std::string>& manualAxes = {});

/// SDY.md 1.5 steps 1-11: resolves the mesh with `lookup` ("unknown mesh: @m" when it fails).
std::optional<std::string> verifyTensorSharding(const TensorSharding& sharding, const TypeShape* type,
                                                const MeshLookup& lookup,
                                                const std::vector<std::string>& manualAxes = {});

/// Every axis ref used by a sharding (dims, then replicated, then unreduced).
std::vector<AxisRef> allAxesOf(const TensorSharding& sharding);

/// Equivalence of SDY.md 1.5 (`s1` or `s2` may be null = no sharding). Open/closed,
/// priorities and replicated axes are ignored; unreduced axes too when `ignoreUnreduced`.
bool isEquivalent(const TensorSharding* s1, const TensorSharding* s2, bool ignoreUnreduced = false);

} // namespace shardx
