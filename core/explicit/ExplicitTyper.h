// ExplicitTyper: JAX's explicit ("typed") sharding mode over a module: every value's type in
// program order by JAX's per-op sharding rules, and the errors JAX raises at trace time (seed 001).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/explicit/AxisTypes.h"
#include "core/explicit/ExplicitType.h"
#include "core/ir/Module.h"
#include "core/support/Diagnostic.h"

namespace shardx::explicit_ {

/// What to type and how.
struct ExplicitOptions {
    /// The user's axis types (`--axes X=explicit,Y=auto`); they win over what the module says.
    AxisTypeOverrides axisTypes;
    /// The mesh whose axes the types name; empty: the mesh the module's first sharding refers to,
    /// else its first `sdy.mesh`.
    std::string meshName;
    /// Names of values as users know them (Session::ids()); without them a value is named by its
    /// source name (`%0`, `%arg0`).
    const ir::ProgramIds* ids = nullptr;
};

/// One typed value, in program order.
struct TypedValue {
    const ir::Value* value = nullptr; ///< null for a function result
    int programId = -1;               ///< ProgramIds index of the value, -1 when not named
    std::string func;                 ///< enclosing function: `@main`
    std::string name;                 ///< `%0`, `%arg0`, `result 0`
    std::string opName;               ///< defining op (`stablehlo.add`); empty for block arguments
    SourcePos pos;
    /// The type; nullopt for a value that is no ranked tensor (a token, a tuple).
    std::optional<ExplicitType> type;
    /// How the type was decided when not by the op's rule alone: `out sharding`, `reshard`,
    /// `annotation`, `recovered after an error` (the type shardx carries on with).
    std::string how;
    /// The axes that are Explicit where the value is defined (regions such as auto_axes or a
    /// manual computation change them), mesh order.
    std::vector<std::string> explicitAxes;
};

/// The typed program.
struct ExplicitResult {
    std::string meshName;
    Mesh mesh;
    MeshAxisTypes axisTypes; ///< at the top level (regions may change them locally)
    std::vector<TypedValue> values;
    DiagnosticList diagnostics; ///< JAX's trace-time errors, at their ops (file:line:col)

    bool ok() const { return !diagnostics.hasErrors(); }
    /// The entry of `v`, or nullptr.
    const TypedValue* find(const ir::Value* v) const;
    /// The type of `v`, or nullptr (untyped or unknown).
    const ExplicitType* typeOf(const ir::Value* v) const;
};

/// Types every value of `module` (every function, in module order; a private function at its
/// first call, from the caller's types) with JAX's rules (seed 001):
/// - nullary ops (constant, iota) are unsharded unless given an out sharding;
/// - element-wise ops zip their operands' dimensions: each result dimension takes the one sharding
///   its operands agree on (None where all are None), and differing shardings are an error;
/// - broadcast_in_dim keeps the operand's dimensions and leaves new (or size-1) ones unsharded;
///   transpose permutes; reduce drops the reduced dimensions; dot_general keeps batch and free
///   dimensions, and contracting dimensions sharded on both sides are ambiguous (an error asking
///   for an out sharding);
/// - reshape drops size-1 dimensions and then allows a single split or merge of unsharded
///   dimensions (the other dimensions keep their shardings); anything else is an error;
/// - a result that would name a mesh axis twice is an error naming the op, its operand types and
///   the illegal result type;
/// - an op's own `sdy.sharding` is its out sharding (the rule is not asked); so is a sharding
///   constraint that is the only use of every result (how JAX lowers `out_sharding=`);
///   `sdy.sharding_constraint` and `sdy.reshard` are reshards;
/// - `stablehlo.if` / `case` branches must return matching types, and a `stablehlo.while` carry
///   must leave the body as it entered;
/// - `sdy.manual_computation` makes its manual axes Manual in its body; an
///   `sdy.named_computation<"auto_axes">` (`<"explicit_axes">`) makes the axes of its discardable
///   `axes` attribute (a list of names; all mesh axes when absent) Auto (Explicit) in its body,
///   and its `out_shardings` give the results' types (required for auto_axes).
/// Errors are reported and typing goes on with a recovered type (`how` says so), so every error
/// of the module is found in one run. Deterministic.
ExplicitResult typeModule(const ir::Module& module, const ExplicitOptions& options = {});

/// The result as text: the mesh and its axis types, then one line per value
/// (`@main %0 = stablehlo.add : f32[4@X,8@Y]`).
std::string printTypes(const ExplicitResult& result);

} // namespace shardx::explicit_
