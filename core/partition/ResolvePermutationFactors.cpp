// -sdy-resolve-permutation-factors (PARTITION.md 4): the driver and replication. Ops with a
// sharded permutation factor (pad, slice, reverse, concatenate of slices, windowed ops, convolution
// windows) are made locally computable by halo exchange where one exists (pad, slice, reverse:
// PermutationHalo.cpp) or by replicating that factor around them (4.4); reshapes are analysed
// apart (PermutationReshape.cpp).
#include <algorithm>
#include <iterator>

#include "core/ir/Builder.h"
#include "core/ir/OpRegistry.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/ir/StablehloAttrs.h"
#include "core/partition/LocalOps.h"
#include "core/partition/PermutationFactorsInternal.h"
#include "core/rules/RuleRegistry.h"
#include "core/rules/ShardingProjection.h"

namespace shardx::partition {
namespace {

std::vector<int64_t> permutationInts(const ir::Op& op, const char* name)
{
    return stablehlo::intList(op.attr(name)).value_or(std::vector<int64_t>{});
}

/// A slice or pad dimension whose every output shard reads only its own input shard (4.4 step 3).
bool replicationCommunicationFree(const ir::Op& op, int64_t dim, const TensorSharding* in, const Mesh& mesh)
{
    const int64_t n = in && dim < in->rank() ? axesProduct(in->dims[static_cast<size_t>(dim)].axes, mesh) : 1;
    if (n <= 1)
        return true;
    const int64_t inSize = op.operand(0)->type().dim(static_cast<int>(dim));
    const int64_t outSize = op.result(0)->type().dim(static_cast<int>(dim));
    const size_t d = static_cast<size_t>(dim);
    if (op.name() == "stablehlo.slice") {
        const std::vector<int64_t> start = permutationInts(op, "start_indices"),
                                   strides = permutationInts(op, "strides");
        return d < start.size() && start[d] == 0 && (d >= strides.size() || strides[d] == 1) &&
               ceilDivide(inSize, n) == ceilDivide(outSize, n);
    }
    if (op.name() == "stablehlo.pad") {
        const std::vector<int64_t> low = permutationInts(op, "edge_padding_low"),
                                   interior = permutationInts(op, "interior_padding");
        if (d >= low.size() || (d < interior.size() && interior[d] != 0))
            return false;
        const int64_t sIn = ceilDivide(inSize, n), sOut = ceilDivide(outSize, n);
        for (int64_t t = 0; t < n; ++t) {
            const int64_t start = t * sOut - low[d];
            const int64_t lo = std::max<int64_t>(0, start), hi = std::min(inSize - 1, start + sOut - 1);
            if (lo <= hi && (lo / sIn != t || hi / sIn != t))
                return false;
        }
        return true;
    }
    return false;
}

} // namespace

PermutationResolver::PermutationResolver(ir::Module& module, const PermutationFactorOptions& options,
                                         DiagnosticList& diags)
    : m_module(module), m_options(options), m_diags(diags)
{
    for (ir::Op* meshOp : module.meshes())
        if (const Mesh* m = ir::meshOpMesh(*meshOp))
            m_meshCache.emplace_back(*m, ir::symbolName(*meshOp));
}

void PermutationResolver::visit(ir::Op* op)
{
    if (op->name().rfind("stablehlo.", 0) != 0 || op->numResults() == 0 || op->name() == "stablehlo.return")
        return;
    if (op->name() == "stablehlo.reshape") {
        reshape(op);
        return;
    }
    if (m_options.permutationFree && m_options.permutationFree->contains(*op))
        return; // its rule has no permutation factor (built by explicit reshards just before)
    std::optional<OpShardingRule> rule = getOrCreateOpShardingRule(*op, /*conservativePropagation=*/false);
    if (!rule || rule->isCustom || rule->permutationFactors.empty())
        return;
    if (m_options.enableHaloExchange) {
        if (op->name() == "stablehlo.reverse") {
            haloReverse(op);
            return;
        }
        if ((op->name() == "stablehlo.pad" || op->name() == "stablehlo.slice") && haloPadOrSlice(op))
            return;
    }
    replicate(op, *rule);
}

const Mesh* PermutationResolver::meshOf(const TensorSharding& s) const { return ir::meshOf(m_module, s); }

std::string PermutationResolver::meshSymbolFor(const Mesh& mesh, const std::string& base)
{
    for (const auto& [m, name] : m_meshCache)
        if (m == mesh)
            return name;
    std::string name = base + "_reversed";
    while (m_module.findMeshOp(name))
        name = base + "_reversed_" + std::to_string(m_uniqueCounter++);
    ir::Builder b(m_module);
    if (!m_module.body().empty())
        b.setInsertionPoint(*m_module.body().ops().front());
    b.createMesh(name, mesh);
    m_meshCache.emplace_back(mesh, name);
    return name;
}

ir::Value* PermutationResolver::deviceId(ir::Builder& b) const
{
    return currentDeviceId(b, m_options.counts.replicaCount > 1);
}

const Mesh* PermutationResolver::commonMesh(const std::vector<const TensorSharding*>& all, MeshRef& ref) const
{
    const Mesh* common = nullptr;
    for (const TensorSharding* s : all) {
        if (!s)
            continue;
        const Mesh* mesh = ir::meshOf(m_module, *s);
        if (!mesh || mesh->isEmpty())
            continue;
        if (!common) {
            common = mesh;
            ref = s->mesh;
            continue;
        }
        if (!common->equalsIgnoringDeviceIds(*mesh))
            return nullptr;
        if (!common->deviceIds().empty() && mesh->deviceIds().empty()) {
            common = mesh;
            ref = s->mesh;
        }
    }
    return common;
}

void PermutationResolver::replicate(ir::Op* op, const OpShardingRule& rule)
{
    std::vector<const TensorSharding*> operands, results, all;
    for (ir::Value* v : op->operands())
        operands.push_back(ir::shardingOfValue(v));
    for (unsigned i = 0; i < op->numResults(); ++i)
        results.push_back(ir::shardingOfValue(op->result(i)));
    all = operands;
    all.insert(all.end(), results.begin(), results.end());
    MeshRef ref;
    const Mesh* mesh = commonMesh(all, ref);
    if (!mesh || mesh->isMaximal())
        return;
    const ShardingProjection before = buildProjection(operands, results, rule, *mesh, /*closedIfMissing=*/true);
    ShardingProjection after = before;
    const bool sliceOrPad = op->name() == "stablehlo.slice" || op->name() == "stablehlo.pad";
    for (int64_t f : rule.permutationFactors) {
        if (sliceOrPad && replicationCommunicationFree(*op, f, operands.empty() ? nullptr : operands[0], *mesh))
            continue;
        for (int t = 0; t < after.numTensors(); ++t)
            if (FactorSharding* fs = after.tensor(t).find(f)) {
                fs->axes.clear();
                fs->overflowAxes.clear();
            }
    }
    if (after == before)
        return;
    const std::string meshName = ref.isInline() ? std::string() : ref.symbol;
    auto rebuilt = [&](int t, const TensorSharding* original, const TensorFactorMapping& mapping) {
        TensorSharding s = backProject(after.tensor(t), mapping, rule.factorSizes, meshName, *mesh);
        s.mesh = ref;
        for (size_t d = 0; original && d < s.dims.size() && d < original->dims.size(); ++d)
            s.dims[d].closed = original->dims[d].closed;
        return s;
    };
    ir::Builder b;
    b.setInsertionPoint(*op);
    b.setLocationOf(*op);
    for (int i = 0; i < after.numOperands(); ++i) {
        const TensorSharding* original = operands[static_cast<size_t>(i)];
        const Mesh* own = original ? ir::meshOf(m_module, *original) : nullptr;
        const bool otherOrder = original && original->hasDimAxes() && own && own->deviceIds() != mesh->deviceIds();
        if (after.operands[static_cast<size_t>(i)] == before.operands[static_cast<size_t>(i)] && !otherOrder)
            continue;
        ir::Value* v = op->operand(static_cast<unsigned>(i));
        ir::Op* reshard = b.create("sdy.reshard", {v}, {v->type()});
        ir::setOpSharding(*reshard, rebuilt(i, original, rule.operands[static_cast<size_t>(i)]));
        op->setOperand(static_cast<unsigned>(i), reshard->result(0));
    }
    ShardingPerValue newResults;
    std::vector<unsigned> changed;
    for (int i = 0; i < after.numResults(); ++i) {
        const TensorSharding* original = results[static_cast<size_t>(i)];
        const bool differs = after.results[static_cast<size_t>(i)] != before.results[static_cast<size_t>(i)];
        newResults.shardings.push_back(
            differs || !original ? rebuilt(after.numOperands() + i, original, rule.results[static_cast<size_t>(i)])
                                 : *original);
        if (differs)
            changed.push_back(static_cast<unsigned>(i));
    }
    // The result shardings are set before the reshards after the op read them.
    std::vector<TensorSharding> originals;
    for (unsigned i = 0; i < op->numResults(); ++i)
        originals.push_back(results[i] ? *results[i]
                                       : TensorSharding::closedReplicated(ref, op->result(i)->type().rank()));
    ir::setResultShardings(*op, newResults);
    ir::Builder a;
    a.setInsertionPointAfter(*op);
    a.setLocationOf(*op);
    for (unsigned i : changed) {
        ir::Value* r = op->result(i);
        const std::vector<ir::Use> uses = r->uses();
        ir::Op* reshard = a.create("sdy.reshard", {r}, {r->type()});
        ir::setOpSharding(*reshard, originals[i]);
        for (const ir::Use& u : uses)
            u.user->setOperand(u.index, reshard->result(0));
    }
}

} // namespace shardx::partition

namespace shardx {

void PermutationFreeOps::note(const ir::Op& op, const OpShardingRule* rule)
{
    // The rules that read nothing but the op's own attributes and types (those of concatenate,
    // dynamic_slice and custom_call, for instance, look at the ops around it).
    static const ir::OperationName kOwn[] = {
        ir::OperationName("stablehlo.broadcast_in_dim"), ir::OperationName("stablehlo.transpose"),
        ir::OperationName("stablehlo.dot"), ir::OperationName("stablehlo.dot_general"),
        ir::OperationName("stablehlo.reduce")};
    if (rule && !rule->isCustom && !rule->permutationFactors.empty())
        return;
    const ir::OperationName name = op.opName();
    bool own = std::find(std::begin(kOwn), std::end(kOwn), name) != std::end(kOwn);
    if (!own) {
        const ir::OpInfo* info = ir::OpRegistry::instance().lookup(name);
        own = info && info->hasPointwiseRule;
    }
    if (own)
        m_ops.insert_or_assign(&op, name);
}

bool PermutationFreeOps::contains(const ir::Op& op) const
{
    auto it = m_ops.find(&op);
    return it != m_ops.end() && it->second == op.opName();
}

bool resolvePermutationFactors(ir::Module& module, const PermutationFactorOptions& options, DiagnosticList& diags)
{
    if (options.counts.replicaCount > 1 && options.counts.partitionCount > 1) {
        diags.error(module.op().pos, "replica-count and partition-count cannot both be greater than 1");
        return false;
    }
    partition::PermutationResolver resolver(module, options, diags);
    for (ir::Op* func : module.funcs()) {
        std::vector<ir::Op*> ops;
        func->walkPostOrder([&](ir::Op* op) {
            if (op != func)
                ops.push_back(op);
        });
        for (ir::Op* op : ops)
            resolver.visit(op);
    }
    return !diags.hasErrors();
}

} // namespace shardx
