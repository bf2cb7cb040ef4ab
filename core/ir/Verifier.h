// Module verifier: every invariant of meshes, shardings, rules and debug attributes.
#pragma once

#include "core/ir/Module.h"
#include "core/support/Diagnostic.h"

namespace shardx::ir {

/// Verifies `module`; reports problems to `diags` at the op's (or func's) position.
/// Like MLIR, stops at the first op that fails. Returns true when the module is valid.
bool verifyModule(const Module& module, DiagnosticList& diags);

} // namespace shardx::ir
