// Module verifier: every invariant of meshes, shardings, rules and debug attributes.
#pragma once

#include "core/ir/Module.h"
#include "core/support/Diagnostic.h"

namespace shardx::ir {

/// How much the verifier reports.
enum class VerifyScope {
    FirstFailure, ///< stop at the first op that fails, as MLIR does (shardx-opt)
    EveryOp,      ///< report the first problem of every op that fails (the Session, the GUI)
};

struct VerifyOptions {
    VerifyScope scope = VerifyScope::FirstFailure;
    /// Viewer tolerance: an op its dialect does not define is kept (it was read with
    /// io::ReadOptions::keepUnknownOps), not reported.
    bool allowUnknownOps = false;
};

/// Verifies `module`; reports problems to `diags` at the op's (or func's) position. Returns true
/// when the module is valid.
bool verifyModule(const Module& module, DiagnosticList& diags, const VerifyOptions& options);
bool verifyModule(const Module& module, DiagnosticList& diags, VerifyScope scope = VerifyScope::FirstFailure);

} // namespace shardx::ir
