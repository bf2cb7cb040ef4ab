// ShardingRules: scalax-style rules (seed 003) that turn named parameters and their shapes into
// PartitionSpecs, read from a JSON rule file, and the mesh helper.
#pragma once

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "core/mesh/Mesh.h"
#include "core/support/Expected.h"

namespace shardx::annotate {

/// A PartitionSpec: per dimension the mesh axes sharding it, major to minor (empty: None).
/// Shorter than the tensor's rank: the remaining dimensions are None.
using PartitionSpec = std::vector<std::vector<std::string>>;

/// `P('data', None, ('fsdp', 'tensor'))`; `P()` for an empty spec.
std::string partitionSpecText(const PartitionSpec& spec);

/// scalax's MeshShardingHelper arguments: `axis_dims` (one may be -1), `axis_names`,
/// `mesh_axis_splitting`.
struct MeshSpec {
    std::vector<int64_t> axisDims;
    std::vector<std::string> axisNames;
    /// Read and kept, but without effect: a module has no physical topology whose axes could be
    /// split, so every logical mesh of the right device count is accepted.
    bool meshAxisSplitting = false;
};

/// The mesh of `spec` for `deviceCount` devices: a -1 dimension is the device count divided by
/// the product of the others, which must divide it; without -1 the product must equal it.
Expected<Mesh> buildMesh(const MeshSpec& spec, int64_t deviceCount);

/// FSDPShardingRule: shard one dimension of each tensor of at least `minSize` elements on
/// `axisName`: the largest dimension divisible by `axisSize` (dimensions by decreasing size, the
/// first of equal sizes first), or without `axisSize` the dimension with the largest power-of-two
/// divisor (the first of those in the same order). A tensor smaller than `minSize`, or with no
/// divisible dimension, gets no sharding from the rule.
struct FsdpRule {
    std::vector<std::string> axisName; ///< one axis, or several (sharding the dimension together)
    std::optional<int64_t> axisSize;
    int64_t minSize = 1048576; ///< scalax's default (2^20 elements)
};

/// TreePathShardingRule: ordered (regex, spec) pairs, searched in each leaf's path (`re.search`);
/// the first match gives the spec. `strict`: an unmatched leaf is an error; otherwise the rule gives
/// it nothing (a later rule, or replication, decides).
struct TreePathRule {
    struct Pattern {
        std::string regex;
        std::regex compiled;
        PartitionSpec spec;
    };
    std::vector<Pattern> patterns;
    bool strict = true;
};

/// PolicyShardingRule as data: a list of (conditions, spec); the first entry whose conditions all
/// hold gives the spec. Conditions: `path` (regex searched in the path), `rank`, `shape` (a list
/// with null as a wildcard), `dtype` (MLIR spelling or JAX's: `f32`, `bf16`), `min_size` (elements).
struct PolicyRule {
    struct Condition {
        std::optional<std::string> path;
        std::optional<std::regex> pathRegex;
        std::optional<int64_t> rank;
        std::optional<std::vector<std::optional<int64_t>>> shape;
        std::optional<std::string> dtype;
        std::optional<int64_t> minSize;
    };
    struct Entry {
        Condition when;
        PartitionSpec spec;
    };
    std::vector<Entry> entries;
};

/// scalax's `annotation_shardings` as a rule: annotation name -> spec, for the values the program
/// tags with a named annotation (`with_sharding_annotation(x, "hidden")`). In an exported module
/// such a value is an `sdy.sharding_constraint` (what JAX lowers the annotation's sharding
/// constraint to), and its annotation name is read (ModuleAnnotator: annotationNameOf):
/// - the `sharding_annotation` entry of the op's `mhlo.frontend_attributes`, which
///   `jax.experimental.xla_metadata.set_xla_metadata(sharding_annotation="hidden")` writes, else
/// - the innermost name scope of its `loc` name: `jit(f)/jit(main)/hidden/sharding_constraint`
///   -> `hidden` (the op's own last component and `jit(...)` components are not names; a `loc`
///   name of one component is the name itself).
/// A named rule applies to those values only, and the other kinds never do (scalax keeps
/// parameter rules and annotation shardings apart).
struct NamedRule {
    struct Entry {
        std::string name;
        PartitionSpec spec;
        std::string pointer; ///< `/rules/2/annotations/hidden`
    };
    std::vector<Entry> entries; ///< in the file's key order (sorted by name)
};

/// One rule of the file.
struct ShardingRule {
    enum class Kind { Fsdp, TreePath, Policy, Named };
    Kind kind = Kind::Fsdp;
    std::string pointer; ///< JSON pointer of the rule in its file: `/rules/0`
    FsdpRule fsdp;
    TreePathRule treePath;
    PolicyRule policy;
    NamedRule named;
};
const char* ruleKindName(ShardingRule::Kind k); ///< `fsdp`, `tree_path`, `policy`, `named`

/// A rule file: `{"mesh": {"axis_dims": [2, -1], "axis_names": ["data", "fsdp"]}, "rules": [...]}`.
struct RuleSet {
    MeshSpec mesh;
    std::vector<ShardingRule> rules;
};

/// `/rules/0/annotations/a~1b` for the key `a/b`: RFC 6901's escapes (`~` -> `~0`, `/` -> `~1`).
std::string jsonPointerToken(const std::string& key);

/// Parses a rule file. Errors name the file and the JSON pointer of the problem
/// (`rules.json: error: /rules/1/patterns/0/1: ...`), or the line and column of a JSON syntax error.
Expected<RuleSet> parseRuleSet(std::string_view text, const std::string& fileName);

/// A tensor to annotate: its tree path (`params/layers_3/mlp/wi`), shape and element type.
struct Leaf {
    std::string path;
    std::vector<int64_t> shape;
    std::string elementType; ///< MLIR spelling (`f32`)
    /// Set for a value tagged with a named annotation (an annotation site): only `named` rules
    /// apply to it. Unset for a parameter: `named` rules do not apply.
    std::optional<std::string> annotation;
};

/// What the rules gave a leaf.
struct LeafSharding {
    PartitionSpec spec;  ///< replicated (empty) when no rule gave one
    int rule = -1;       ///< index of the rule that gave it, -1: none (replicated)
    std::string matched; ///< how: `tree_path rule /rules/0: pattern 2 'mlp/wi'`, `fsdp rule /rules/1: dimension 1`
    std::string error;   ///< a strict tree_path rule that matched nothing, or a spec unfit for the leaf
};

/// Applies `rules` in order to `leaf` on `mesh`: the first rule that gives the leaf a sharding wins
/// (`named` rules for an annotation site, the other kinds for a parameter).
/// A spec naming an axis the mesh lacks, longer than the rank, naming an axis twice or not dividing
/// its dimension is an error.
LeafSharding applyRules(const RuleSet& rules, const Mesh& mesh, const Leaf& leaf);

/// The largest power of two dividing `n` (1 for odd numbers and 0).
int64_t largestPowerOfTwoDivisor(int64_t n);

} // namespace shardx::annotate
