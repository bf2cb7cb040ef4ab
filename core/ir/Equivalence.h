// Structural equality of two modules (ops, types, attributes, value wiring).
#pragma once

#include <string>

#include "core/ir/Module.h"

namespace shardx::ir {

/// True if `a` and `b` hold the same program: the same ops in the same order with equal
/// names, attributes, types, regions and operand wiring (values matched by position, not by
/// name). Locations and source positions are ignored. On a difference, `why` (if given)
/// says where: "op #12 (stablehlo.add): attribute 'sdy.sharding' differs".
bool modulesEquivalent(const Module& a, const Module& b, std::string* why = nullptr);

} // namespace shardx::ir
