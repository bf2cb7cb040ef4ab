// The resolver of `-sdy-resolve-permutation-factors` (PARTITION.md 4), shared by
// ResolvePermutationFactors.cpp (driver, replication), PermutationHalo.cpp (halo exchange of pad,
// slice and reverse) and PermutationReshape.cpp (reshape); not a public API.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/Builder.h"
#include "core/partition/PartitionPasses.h"
#include "core/sharding/OpShardingRule.h"
#include "core/sharding/TensorSharding.h"

namespace shardx::partition {

/// Where target shard `t` of a sharded dimension reads its input (PARTITION.md 4.3, 4.9).
struct HaloGeometry {
    int64_t shards = 1;               ///< n: the dimension's shard count
    int64_t sIn = 0;                  ///< local input size (of the divisible input)
    int64_t sOut = 0;                 ///< local output size (the window each target reads)
    int64_t leftHops = 0;             ///< neighbours on the low side a target reads from
    int64_t rightHops = 0;            ///< neighbours on the high side
    bool communication = false;       ///< some target reads outside its own input shard
    std::vector<int64_t> source;      ///< per target: the shard holding its first element, or -1
    std::vector<int64_t> localOffset; ///< per target: that element's offset in `source`'s block
};

/// One run of the pass over a module.
class PermutationResolver {
public:
    PermutationResolver(ir::Module& module, const PermutationFactorOptions& options, DiagnosticList& diags);

    /// Resolves `op` (PARTITION.md 4.2).
    void visit(ir::Op* op);

    // ---- ResolvePermutationFactors.cpp ---------------------------------------------------------
    /// Replicates the sharded permutation factors of `op` around it (PARTITION.md 4.4).
    void replicate(ir::Op* op, const OpShardingRule& rule);

    // ---- PermutationHalo.cpp -------------------------------------------------------------------
    /// Pad or slice by halo exchange (PARTITION.md 4.6, 4.7); false when the hop limit refuses it
    /// (the op is then replicated), true otherwise, also when nothing had to be done.
    bool haloPadOrSlice(ir::Op* op);
    /// Reverse by shifting the padding and reversing the device order (PARTITION.md 4.8).
    void haloReverse(ir::Op* op);

    /// The geometry of a pad/slice dimension (PARTITION.md 4.3).
    static HaloGeometry padSliceGeometry(int64_t inSize, int64_t outSize, int64_t shards, int64_t padLow,
                                         int64_t dilation);
    /// Fetches `hops` neighbours of `x` along `axes` in dimension `dim` and builds the padded
    /// buffer `[pad e | left fetches | x | right fetches | pad e]` (PARTITION.md 4.5.2 steps 1-2).
    ir::Value* haloBuffer(ir::Builder& b, ir::Value* x, ir::Value* padValue, int dim, const Mesh& mesh,
                          const std::vector<AxisRef>& axes, int64_t leftHops, int64_t rightHops, int64_t edge,
                          int64_t interior, const TensorSharding& local);
    /// `stablehlo.dynamic_slice` of `buffer` at `offset` in `dim` (`zero` elsewhere), `size` long
    /// there and full elsewhere (PARTITION.md 4.5.2 step 5).
    ir::Value* extract(ir::Builder& b, ir::Value* buffer, int dim, ir::Value* offset, ir::Value* zero, int64_t size,
                       const TensorSharding& local);
    /// `stablehlo.collective_permute` of `x` by `shift` shards along `axes`; nullptr when no device
    /// has a partner.
    ir::Value* shift(ir::Builder& b, ir::Value* x, const Mesh& mesh, const std::vector<AxisRef>& axes, int64_t shift,
                     const TensorSharding* sharding);
    /// An empty `sdy.manual_computation` over `operands` whose body block has arguments of
    /// `localTypes`; the builder is left at the end of that block.
    ir::Op* manualComputation(ir::Builder& b, const std::vector<ir::Value*>& operands, const ShardingPerValue& in,
                              const ShardingPerValue& out, const std::vector<std::string>& manualAxes,
                              const std::vector<ir::Type>& localTypes, const ir::Type& resultType);
    /// The device id the pass reads (partition_id or replica_id), as `tensor<i64>`.
    ir::Value* deviceId(ir::Builder& b) const;

    // ---- PermutationReshape.cpp ----------------------------------------------------------------
    /// Reshape in both modes (PARTITION.md 4.9).
    void reshape(ir::Op* op);

    // ---- shared state ----------------------------------------------------------------------------
    const Mesh* meshOf(const TensorSharding& s) const;
    /// The symbol of an sdy.mesh holding `mesh`: an existing one (the first), or a new
    /// `<base>_reversed` (uniqued) at the top of the module.
    std::string meshSymbolFor(const Mesh& mesh, const std::string& base);
    ir::Module& module() { return m_module; }
    const PermutationFactorOptions& options() const { return m_options; }

private:
    /// The mesh all shardings of an op share (ignoring device ids, iota preferred), with the
    /// reference naming it; nullptr when there is none or they disagree (PARTITION.md 4.4).
    const Mesh* commonMesh(const std::vector<const TensorSharding*>& all, MeshRef& ref) const;

    ir::Module& m_module;
    const PermutationFactorOptions& m_options;
    DiagnosticList& m_diags;
    int64_t m_nextChannel = 0; ///< 0 until the first halo exchange reads the module's largest
    int64_t m_uniqueCounter = 0;
    std::vector<std::pair<Mesh, std::string>> m_meshCache;
};

/// Ceiling of `a / b` for positive `b`.
inline int64_t ceilDivide(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace shardx::partition
