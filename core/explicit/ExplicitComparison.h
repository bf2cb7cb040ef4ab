// ExplicitComparison: a value's explicit-mode type beside the sharding Shardy's propagation gave it.
#pragma once

#include <string>
#include <vector>

#include "core/explicit/ExplicitTyper.h"
#include "core/ir/Module.h"

namespace shardx::explicit_ {

/// One value whose explicit type and propagated (concrete) sharding differ.
struct TypeDifference {
    int programId = -1;
    std::string func;     ///< `@main`
    std::string name;     ///< `%0`
    ExplicitType type;    ///< the explicit-mode type (Explicit axes only)
    std::string concrete; ///< the propagated sharding in the same notation, every axis type: `f32[4@X,8@Y]`
    std::string sharding; ///< the propagated sharding as Shardy prints it (`<@mesh, [...]>`), or `(none)`
    /// Why they differ, one sentence: the concrete sharding is more specific (Auto axes the type
    /// leaves out), or propagation chose otherwise on an Explicit axis.
    std::string reason;
    /// True when the concrete sharding agrees with the type on every Explicit axis and only adds
    /// Auto (or Manual) axes: consistent, just more specific (seed 001).
    bool moreSpecific = false;
};

/// Compares `typed` (typeModule of a module) with `propagated`, the same program after Shardy's
/// propagation (a Session's module() after propagate(), or any propagation pass run on a clone),
/// value by value through their ProgramIds indices (Value::programId, which module clones and
/// propagation keep). Returns the values that differ, in `typed`'s order.
std::vector<TypeDifference> compareWithPropagated(const ExplicitResult& typed, const ir::Module& propagated);

} // namespace shardx::explicit_
