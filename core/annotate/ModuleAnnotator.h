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
    /// An argument (result) that already has a sharding keeps it: an `sdy.sharding` as it is, an
    /// `mhlo.sharding` rewritten as the `sdy.sharding` of the same spec on the rules' mesh (left
    /// as it is, with a warning, where no spec gives it). Without it the rules win, and a sharding
    /// they replace by a different one is reported as a warning.
    bool keepExisting = false;
};

/// What the rules gave one function argument or result.
struct ArgumentAnnotation {
    std::string func;      ///< `@main`
    unsigned index = 0;    ///< argument (result) number
    bool isResult = false; ///< a function result, named by its `jax.result_info`
    std::string value;     ///< as the file names it: `%arg0`, or `result 0`
    std::string path;      ///< the tree path the rules saw: `params/layer_0/w`
    std::string name;      ///< where the path comes from: the `loc` name (`jax.result_info`) as written
    std::string type;      ///< `tensor<64x256xf32>`
    LeafSharding result;   ///< the rule that matched and its spec (or the error)
    std::string sharding;  ///< the sharding written: `<@mesh, [{}, {"model"}]>` (empty when none was)
    /// The sharding it had before: an `sdy.sharding` (`<@mesh, [...]>`) or an `mhlo.sharding`
    /// (`{devices=[2,1]0,1}`); empty for none.
    std::string existing;
    /// For an `mhlo.sharding`: its PartitionSpec on the rules' mesh (`P('data')`), or why there is
    /// none (`no PartitionSpec gives it: ...`).
    std::string existingSpec;
    bool kept = false; ///< the existing sharding stayed (AnnotateOptions::keepExisting)
};

/// A value tagged with a named annotation (an `sdy.sharding_constraint`, see NamedRule) and what
/// the `named` rules gave it.
struct AnnotationSite {
    std::string func;       ///< `@main`
    std::string value;      ///< the constraint's result as the file names it: `%5`
    std::string annotation; ///< `hidden`
    std::string path;       ///< its `loc` name: `jit(f)/jit(main)/hidden/sharding_constraint`
    std::string type;
    SourcePos pos;
    LeafSharding result;  ///< the named rule that matched (rule -1: none, the constraint stays)
    std::string existing; ///< the constraint's sharding before
    std::string sharding; ///< the sharding written (empty when none was)
};

/// The annotated module's mesh and every argument's annotation.
struct AnnotateResult {
    std::string meshName; ///< the sdy.mesh the shardings refer to
    Mesh mesh;
    bool meshAdded = false; ///< no sdy.mesh of the module had the rules' axes: one was added
    /// Every argument of the public functions, then their results (results only where a rule
    /// matched or they had a sharding).
    std::vector<ArgumentAnnotation> arguments;
    std::vector<AnnotationSite> sites; ///< every named sharding constraint, program order
    DiagnosticList diagnostics;
    bool ok() const { return !diagnostics.hasErrors(); }
};

/// The annotation name of an `sdy.sharding_constraint` (see NamedRule): its
/// `mhlo.frontend_attributes` `sharding_annotation`, else the innermost name scope of its `loc`
/// name; empty when it has neither.
std::string annotationNameOf(const ir::Op& constraint);

/// The tree path of a JAX key string as `loc` names hold it: `params['layer_0']['w']` ->
/// `params/layer_0/w`, `x[0].kernel` -> `x/0/kernel`; a plain name stays as it is.
std::string treePathOfKeyString(const std::string& keyString);

/// Applies `rules` to the arguments of every public `func.func` of `module`: each argument's tree
/// path is its `loc` name as JAX exports it (treePathOfKeyString), else `argN`; the spec the
/// rules give (replicated when none does) is written as a closed `sdy.sharding` on the mesh
/// built from the rules' mesh (an existing sdy.mesh with the same axes, else a new one), and an
/// `mhlo.sharding` it had is removed (its spec is reported; see AnnotateOptions::keepExisting).
/// Results are named by their `jax.result_info` (`result`, `['logits']` -> `logits`) and get
/// the spec of a rule that matches them; no rule matching (a strict one included) leaves a result
/// to propagation, as scalax's `out_shardings=None`. Named sharding constraints get the spec of
/// the `named` rule of their annotation. The device count for -1 comes from `options` or
/// `mhlo.num_partitions`. Problems (a strict rule matching nothing, a spec unfit for a shape, a
/// mesh that does not fit the devices) are errors at the argument, and leave it as it was.
AnnotateResult annotateModule(ir::Module& module, const RuleSet& rules, const AnnotateOptions& options = {});

/// One line per argument: `@main %arg1 params/layer_0/w tensor<64x256xf32>: P(None, 'model') (tree_path
/// rule /rules/0: pattern 1 'w$')`, with `; was mhlo.sharding {devices=[2,1]0,1} = P('data')` for a
/// sharding it had; then one per named sharding constraint.
std::string printAnnotations(const AnnotateResult& result);

} // namespace shardx::annotate
