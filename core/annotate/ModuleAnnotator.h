// ModuleAnnotator: applies a rule file to a module's function arguments, named as JAX exports them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/annotate/ShardingRules.h"
#include "core/ir/Module.h"
#include "core/support/Diagnostic.h"

namespace shardx::annotate {

/// How to annotate.
struct AnnotateOptions {
    /// Devices for a -1 in the mesh's axis_dims; 0: the module's `mhlo.num_partitions`.
    int64_t devices = 0;
};

/// What the rules gave one function argument.
struct ArgumentAnnotation {
    std::string func;     ///< `@main`
    unsigned index = 0;   ///< argument number
    std::string value;    ///< the argument as the file names it: `%arg0`
    std::string path;     ///< the tree path the rules saw: `params/layer_0/w`
    std::string name;     ///< where the path comes from: the argument's `loc` name as written
    std::string type;     ///< `tensor<64x256xf32>`
    LeafSharding result;  ///< the rule that matched and its spec (or the error)
    std::string sharding; ///< the sharding written: `<@mesh, [{}, {"model"}]>` (empty after an error)
};

/// The annotated module's mesh and every argument's annotation.
struct AnnotateResult {
    std::string meshName; ///< the sdy.mesh the shardings refer to
    Mesh mesh;
    bool meshAdded = false; ///< no sdy.mesh of the module had the rules' axes: one was added
    std::vector<ArgumentAnnotation> arguments;
    DiagnosticList diagnostics;
    bool ok() const { return !diagnostics.hasErrors(); }
};

/// The tree path of a JAX key string as `loc` names hold it: `params['layer_0']['w']` ->
/// `params/layer_0/w`, `x[0].kernel` -> `x/0/kernel`; a plain name stays as it is.
std::string treePathOfKeyString(const std::string& keyString);

/// Applies `rules` to the arguments of every public `func.func` of `module`: each argument's tree
/// path is its `loc` name as JAX exports it (treePathOfKeyString), else `argN`; the spec the
/// rules give (replicated when none does) is written as a closed `sdy.sharding` on the mesh
/// built from the rules' mesh (an existing sdy.mesh with the same axes, else a new one). The
/// device count for -1 comes from `options` or `mhlo.num_partitions`. Problems (a strict rule
/// matching nothing, a spec unfit for a shape, a mesh that does not fit the devices) are errors
/// at the function, and leave that argument as it was.
AnnotateResult annotateModule(ir::Module& module, const RuleSet& rules, const AnnotateOptions& options = {});

/// One line per argument: `@main %arg1 params/layer_0/w tensor<64x256xf32>: P(None, 'model') (tree_path
/// rule /rules/0: pattern 1 'w$')`.
std::string printAnnotations(const AnnotateResult& result);

} // namespace shardx::annotate
