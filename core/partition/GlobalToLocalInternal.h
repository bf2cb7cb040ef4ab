// The converter of `-sdy-convert-global-to-local` (PARTITION.md 7), shared by GlobalToLocal*.cpp;
// not a public API.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/ir/Builder.h"
#include "core/ir/StablehloAttrs.h"
#include "core/partition/LocalOps.h"
#include "core/partition/PartitionPasses.h"
#include "core/sharding/TensorSharding.h"

namespace shardx::partition {

using AxisList = std::vector<AxisRef>;

/// One run of the pass over a module. Values are retyped in place where an op keeps its form (the
/// generic localization of PARTITION.md 7.5.6); ops with a rewrite of their own are replaced by new
/// ops inserted right before them. The shardings of every value are read once, before anything
/// changes, and follow a value onto its replacement.
class Converter {
public:
    Converter(ir::Module& module, const GlobalToLocalOptions& options, DiagnosticList& diags);
    bool run();

    // ---- reading the global program ----------------------------------------------------------
    /// The sharding `v` had in the global program (or was given as a replacement), or nullptr.
    const TensorSharding* sharding(const ir::Value* v) const;
    /// The sharding operand `i` of `op` has as `op` sees it: for an op that was in the body of an
    /// inlined sdy.manual_computation and used a block argument there, the argument's sharding
    /// (in_shardings minus the manual axes, PARTITION.md 7.8.4), not that of the operand the
    /// argument was replaced by; else sharding(op.operand(i)).
    const TensorSharding* operandSharding(const ir::Op& op, unsigned i) const;
    const Mesh* meshOf(const TensorSharding& s) const;
    /// stablehlo::dotDimensionNumbers of a dot_general, read once per distinct attribute text.
    const std::optional<stablehlo::DotDimensionNumbers>& dotDimensionNumbers(const ir::Op& dotGeneral);
    /// True when `s` is absent or has no dimension axes.
    static bool fullyReplicated(const TensorSharding* s);
    /// The local type of a value of global type `t` sharded as `s` (PARTITION.md 7.4); nullopt
    /// after an error at `at` when a dimension does not divide.
    std::optional<ir::Type> localType(const ir::Type& t, const TensorSharding* s, const ir::Op& at);

    // ---- building per-device code ------------------------------------------------------------
    /// Creates op `name` at `b` with props set exactly as given (the generic form's `<{...}>`).
    ir::Op* create(ir::Builder& b, const std::string& name, const std::vector<ir::Value*>& operands,
                   const std::vector<ir::Type>& types, const std::vector<std::pair<std::string, ir::AttrPtr>>& props);
    ir::Value* reshape(ir::Builder& b, ir::Value* v, const std::vector<int64_t>& shape);
    ir::Value* transpose(ir::Builder& b, ir::Value* v, const std::vector<int64_t>& perm);
    /// partition_id (replica_id when replica-count > 1) converted to tensor<i64>.
    ir::Value* deviceId(ir::Builder& b);
    /// The start of this device's shard of a dimension sharded by `axes` with local size
    /// `localSize` (PARTITION.md 7.5.2).
    ir::Value* offset(ir::Builder& b, const Mesh& mesh, const AxisList& axes, int64_t localSize);
    /// `dynamic_slice` of `x` to `local` by per-dimension axes (PARTITION.md 7.5.3).
    ir::Value* sliceByAxes(ir::Builder& b, ir::Value* x, const Mesh& mesh, const std::vector<AxisList>& axes,
                           const ir::Type& local);
    /// The StableHLO all-gathers that make `input` (a local shard, sharded in dimension d on
    /// `axes[d]`) whole in every dimension with axes (PARTITION.md 7.6.1).
    /// `created`, when given, receives each all_gather made with the axes it gathers over.
    ir::Value* gatherAxes(ir::Builder& b, ir::Value* input, const Mesh& mesh, const MeshRef& meshRef,
                          const std::vector<AxisList>& axes,
                          std::vector<std::pair<ir::Op*, AxisList>>* created = nullptr);
    /// Replica groups of `axes` (PARTITION.md 7.5.4); `groupSize` receives the group size.
    ir::AttrPtr replicaGroups(const Mesh& mesh, const MeshRef& ref, const AxisList& axes, int64_t& groupSize);
    /// `#stablehlo.channel_handle<handle = n, type = 1>` with the next n.
    ir::AttrPtr nextChannel();
    /// Adds the reduction region of PARTITION.md 7.5.5 to `op`.
    void addReductionRegion(ir::Op& op, const std::string& elementType, ReductionKind kind);
    /// Makes `with` stand for `old`'s single result (its sharding too) and erases `old`.
    void replace(ir::Op* old, ir::Value* with);
    /// Retypes `op`'s results to their local types (generic localization).
    bool localizeResults(ir::Op& op);
    /// Reports an error at `op`; returns false.
    bool fail(const ir::Op& op, const std::string& message);

    // ---- per op (GlobalToLocalCollectives.cpp) ------------------------------------------------
    bool allGather(ir::Op* op);
    bool allSlice(ir::Op* op);
    bool allReduce(ir::Op* op);
    bool reduceScatter(ir::Op* op);
    bool allToAll(ir::Op* op);
    bool collectivePermute(ir::Op* op);

    // ---- per op (GlobalToLocalOps.cpp) --------------------------------------------------------
    bool dot(ir::Op* op);
    bool convolution(ir::Op* op);
    bool concatenate(ir::Op* op);
    bool slice(ir::Op* op);
    bool pad(ir::Op* op);
    bool iota(ir::Op* op);
    bool windowed(ir::Op* op);
    bool gather(ir::Op* op);
    /// A gather whose operand is sharded in dimensions it indexes with slices of 1 (`trivial`):
    /// local indices, masked where another device holds the element (PARTITION.md 7.9.7).
    bool gatherWithTrivialDims(ir::Op* op, const stablehlo::GatherDimensionNumbers& dims,
                               const std::vector<int64_t>& trivial, const Mesh& mesh);
    bool scatter(ir::Op* op);
    /// The single user of `op` must be an sdy.all_reduce over exactly `axes` (`sorted`: compared
    /// after sorting and merging in mesh order).
    bool checkReducedBy(ir::Op& op, const AxisList& axes, const Mesh& mesh, bool sorted);

private:
    bool convert(ir::Op* op);
    /// An op that stays as it is (a function's return, sdy.return).
    bool keep(ir::Op*) { return true; }
    bool localizeResultsOf(ir::Op* op) { return localizeResults(*op); }
    bool func(ir::Op* op);
    bool manualComputation(ir::Op* op);
    bool namedComputation(ir::Op* op);
    bool whileLoop(ir::Op* op);
    bool regionReturn(ir::Op* op);
    /// Reports the gathers `created` for `owner` to GlobalToLocalOptions::added.
    void reportAdded(const std::vector<std::pair<ir::Op*, AxisList>>& created, ir::Op* owner,
                     AddedCollective::Reason reason, unsigned region, unsigned index, const Mesh& mesh,
                     const std::string& from, const std::string& to);
    bool constant(ir::Op* op);

    ir::Module& m_module;
    GlobalToLocalOptions m_options;
    DiagnosticList& m_diags;
    MeshLookup m_meshes;
    /// dotDimensionNumbers() by the attribute's text.
    std::unordered_map<std::string, std::optional<stablehlo::DotDimensionNumbers>> m_dotDims;
    /// The sharding of every value before anything changed, and of the values rewrites made: pointers into
    /// the attributes in m_keptAttrs (kept alive while ops change or go) or into m_ownShardings.
    std::unordered_map<const ir::Value*, const TensorSharding*> m_shardings;
    std::vector<ir::AttrPtr> m_keptAttrs;
    std::deque<TensorSharding> m_ownShardings;
    /// Uses (user, operand index) of inlined manual-computation block arguments, with the
    /// argument's sharding (nullopt: none), for operandSharding.
    std::map<std::pair<const ir::Op*, unsigned>, std::optional<TensorSharding>> m_inlinedUses;
    /// Ops of the pre-order list that a rewrite erased before their turn (an inlined manual
    /// computation's sdy.return): the driver skips them.
    std::set<const ir::Op*> m_erased;
    int64_t m_nextChannel = 1;
    ReplicaGroupCache m_groups;
    /// replicaGroups()'s dense attributes, per mesh and axis list.
    std::vector<std::tuple<Mesh, AxisList, ir::AttrPtr>> m_groupAttrs;
};

} // namespace shardx::partition
