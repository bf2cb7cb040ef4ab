// ModelGenerator: synthetic JAX-style StableHLO programs for benchmarks and demos.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/Module.h"
#include "core/support/Expected.h"

namespace shardx::generate {

/// How the generated transformer is annotated.
enum class ShardingStyle {
    DataParallel, ///< "dp": batch on every data-like axis, parameters replicated
    Fsdp,         ///< "fsdp": batch on data+fsdp, parameters sharded on fsdp along dim 0
    Megatron,     ///< "megatron": batch on data, column/row-parallel weights on tensor
    FsdpMegatron, ///< "fsdp+megatron": both
};

/// Parameters of `shardx-cli generate transformer`.
struct TransformerSpec {
    int layers = 2;
    int64_t hidden = 64;
    int64_t heads = 4;
    int64_t seq = 16;
    int64_t batch = 8;
    /// Mesh axes in order, e.g. {{"data", 2}, {"fsdp", 4}, {"tensor", 4}}.
    std::vector<std::pair<std::string, int64_t>> mesh = {{"data", 2}, {"fsdp", 4}, {"tensor", 4}};
    ShardingStyle style = ShardingStyle::FsdpMegatron;
};

/// Parses "dp", "fsdp", "megatron" or "fsdp+megatron".
Expected<ShardingStyle> parseShardingStyle(const std::string& text);
/// Parses "data=2,fsdp=4,tensor=4".
Expected<std::vector<std::pair<std::string, int64_t>>> parseMeshSpec(const std::string& text);

/// A forward decoder stack as `jax.jit(f).lower(...)` builds it with Shardy: layer norms
/// (reduce / rsqrt / broadcast), attention with head reshapes and transposes, softmax (reduce
/// max, exp, reduce sum, divide), a tanh-GELU MLP and residual adds; parameters are function
/// arguments located at `params/layer_N/...`, ops carry `loc("jit(transformer)/jit(main)/layer_N/...")`
/// name scopes, and arguments plus a few sharding constraints are annotated per `spec.style`.
/// Values carry the names the printer gives them (`arg0`, `0`, `cst_3`), so printing the
/// module with `io::printModule` (with debug info to keep the scopes) and reading it back
/// names them alike. Deterministic. Fails on inconsistent sizes (hidden not divisible by
/// heads...) or an invalid mesh.
Expected<std::unique_ptr<ir::Module>> generateTransformer(const TransformerSpec& spec);

} // namespace shardx::generate
