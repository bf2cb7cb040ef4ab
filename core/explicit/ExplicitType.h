// ExplicitType: a value's type in JAX's explicit sharding mode (`f32[4@X,8@Y]{U:Z}`), seed 001.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace shardx::explicit_ {

/// The explicit axes sharding one dimension, major to minor (empty: not sharded, `None`).
using DimAxes = std::vector<std::string>;

/// The sharding part of an explicit type: only Explicit mesh axes appear in it (Auto axes are the
/// compiler's, Manual axes shard_map's). An axis in no list is replicated.
struct TypeSharding {
    std::vector<DimAxes> dims;
    std::vector<std::string> unreduced; ///< `{U:X}`: partial sums over these axes, in mesh order
    std::vector<std::string> reduced;   ///< `{R:X}`: reduced over these axes, in mesh order

    bool operator==(const TypeSharding& o) const = default;
    /// True when no dimension is sharded and nothing is unreduced or reduced.
    bool isReplicated() const;
    /// Every axis named in the sharding, in order of appearance (dims, unreduced, reduced); an
    /// axis named twice appears twice.
    std::vector<std::string> usedAxes() const;
    /// The first axis named twice, or empty when each axis is named at most once.
    std::string repeatedAxis() const;
};

/// A value's type as `jax.typeof` prints it: element type, shape and sharding.
struct ExplicitType {
    std::string elementType; ///< MLIR spelling (`f32`, `i32`, `i1`, `bf16`)
    std::vector<int64_t> shape;
    TypeSharding sharding;

    int rank() const { return static_cast<int>(shape.size()); }
    bool operator==(const ExplicitType& o) const = default;
    /// JAX's short form: `f32[4@X,8@Y]`, several axes on one dimension `f32[8@(X,Y)]`, a scalar
    /// `f32[]`, unreduced and reduced axes after the brackets: `f32[8]{U:X}`, `f32[8]{U:(X,Y)}`,
    /// `f32[8]{R:X}`. The element type in JAX's short spelling (`i32`, `bool` for i1).
    std::string toString() const;
};

/// An unsharded type of `shape` (`rank` empty dimension shardings).
ExplicitType unshardedType(std::string elementType, std::vector<int64_t> shape);

/// `X` for one axis, `(X,Y)` for several: how a dimension's axes follow the `@`.
std::string dimAxesString(const DimAxes& axes);

} // namespace shardx::explicit_
