// -sdy-resolve-single-device-sharding and -sdy-drop-sharding-and-mesh (PARTITION.md 6 and 8).
#include <algorithm>
#include <optional>

#include "core/ir/Builder.h"
#include "core/ir/Clone.h"
#include "core/ir/FuncOps.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/partition/LocalOps.h"
#include "core/partition/PartitionPasses.h"

namespace shardx {
namespace {

bool startsWithSdy(const std::string& name) { return name.rfind("sdy.", 0) == 0; }

/// The device id of an op whose results live on one device, or nullopt. `error` is set when the op
/// mixes devices, or one device and sharded results.
std::optional<int64_t> singleDeviceTarget(const partition::MeshLookup& meshes, const ir::Op& op, std::string& error)
{
    const ShardingPerValue* shardings = ir::resultShardings(op);
    if (!shardings)
        return std::nullopt;
    std::optional<int64_t> id;
    bool otherSharded = false;
    for (unsigned i = 0; i < op.numResults() && i < shardings->shardings.size(); ++i) {
        if (!op.result(i)->type().isRankedTensor())
            continue;
        const TensorSharding& s = shardings->shardings[i];
        const Mesh* mesh = meshes(s);
        if (mesh && mesh->isMaximal()) {
            const int64_t d = mesh->deviceIds().front();
            if (id && *id != d)
                error = "the results of this op live on different single devices (" + std::to_string(*id) + " and " +
                        std::to_string(d) + ")";
            id = d;
        } else if (s.hasDimAxes()) {
            otherSharded = true;
        }
    }
    if (id && otherSharded)
        error = "this op has results on a single device and results sharded over a mesh";
    return id;
}

bool isSingleDeviceReshard(const ir::Module& module, const ir::Value* v)
{
    const ir::Op* def = v->definingOp();
    if (!def || def->name() != "sdy.reshard")
        return false;
    const TensorSharding* s = ir::opSharding(*def);
    const Mesh* mesh = s ? ir::meshOf(module, *s) : nullptr;
    return mesh && mesh->isMaximal();
}

void resolveOp(ir::Module& module, ir::Op* op, int64_t device, const std::string& globalMesh, const Mesh& mesh,
               bool useReplicaId)
{
    ir::Builder b;
    b.setInsertionPoint(*op);
    b.setLocationOf(*op);
    ir::Value* id = partition::currentDeviceId(b, useReplicaId);
    ir::Value* target = partition::i64Scalar(b, device);
    ir::Value* isDevice =
        b.createValue("stablehlo.compare", {id, target}, partition::scalarTensor("i1"),
                      {{"comparison_direction", partition::attr("#stablehlo<comparison_direction EQ>")}});
    std::vector<ir::Type> types;
    for (unsigned i = 0; i < op->numResults(); ++i)
        types.push_back(op->result(i)->type());
    ir::OperationState state("stablehlo.if");
    state.operands = {isDevice};
    state.resultTypes = types;
    state.numRegions = 2;
    ir::Op* ifOp = b.create(std::move(state));

    // Then: the op itself, reading past the reshards onto the device.
    std::vector<ir::Op*> bypassed;
    {
        ir::Builder::InsertionGuard guard(b);
        b.createBlock(ifOp->region(0));
        ir::CloneMapping mapping;
        std::unique_ptr<ir::Op> clone = ir::cloneOp(*op, mapping);
        ir::removeResultShardings(*clone);
        for (unsigned i = 0; i < clone->numOperands(); ++i) {
            ir::Value* v = clone->operand(i);
            if (isSingleDeviceReshard(module, v)) {
                bypassed.push_back(v->definingOp());
                clone->setOperand(i, v->definingOp()->operand(0));
            }
        }
        ir::Op* inner = b.insertionBlock()->insertBefore(nullptr, std::move(clone));
        inner->pos = op->pos;
        std::vector<ir::Value*> results;
        for (unsigned i = 0; i < inner->numResults(); ++i)
            results.push_back(inner->result(i));
        b.create("stablehlo.return", results, {});
    }
    // Else: zeros (and a fresh token).
    {
        ir::Builder::InsertionGuard guard(b);
        b.createBlock(ifOp->region(1));
        std::vector<ir::Value*> results;
        for (const ir::Type& t : types)
            results.push_back(t.isToken() ? b.createValue("stablehlo.create_token", {}, t) : partition::zeros(b, t));
        b.create("stablehlo.return", results, {});
    }
    // Every device gets the value: an all-reduce over the whole global mesh.
    b.setInsertionPointAfter(*ifOp);
    std::vector<AxisRef> allAxes;
    for (const MeshAxis& a : mesh.axes())
        allAxes.emplace_back(a.name);
    for (unsigned k = 0; k < op->numResults(); ++k) {
        ir::Value* old = op->result(k);
        if (!old->type().isRankedTensor()) {
            old->replaceAllUsesWith(ifOp->result(k));
            continue;
        }
        TensorSharding replicated;
        replicated.mesh.symbol = globalMesh;
        replicated = TensorSharding::closedReplicated(replicated.mesh, old->type().rank());
        ir::Op* ar = b.create("sdy.all_reduce", {ifOp->result(k)}, {old->type()});
        ir::setCollectiveAxisList(*ar, allAxes);
        ir::setOutSharding(*ar, replicated);
        const std::vector<ir::Use> uses = old->uses();
        for (const ir::Use& use : uses) {
            const TensorSharding* s = use.user->name() == "sdy.reshard" ? ir::opSharding(*use.user) : nullptr;
            if (s && *s == replicated) {
                use.user->result(0)->replaceAllUsesWith(ar->result(0));
                use.user->dropAllReferences();
                use.user->erase();
            } else {
                use.user->setOperand(use.index, ar->result(0));
            }
        }
    }
    op->dropAllReferences();
    op->erase();
    for (ir::Op* r : bypassed)
        if (r->result(0)->useEmpty())
            r->erase();
}

} // namespace

bool resolveSingleDeviceSharding(ir::Module& module, const DeviceCountOptions& options, DiagnosticList& diags)
{
    const ir::Op* globalMeshOp = nullptr;
    for (ir::Op* m : module.meshes()) {
        const Mesh* mesh = ir::meshOpMesh(*m);
        if (mesh && !mesh->isMaximal() && !mesh->axes().empty()) {
            globalMeshOp = m;
            break;
        }
    }
    if (!globalMeshOp)
        return true;
    if (options.replicaCount > 1 && options.partitionCount > 1) {
        diags.error(module.op().pos, "replica-count and partition-count cannot both be greater than 1");
        return false;
    }
    const std::string globalMesh = ir::symbolName(*globalMeshOp);
    const Mesh mesh = *ir::meshOpMesh(*globalMeshOp);
    const partition::MeshLookup meshes(module); // the walk below adds and removes no mesh
    for (ir::Op* func : module.funcs()) {
        std::vector<std::pair<ir::Op*, int64_t>> ops;
        bool failed = false;
        func->walkPostOrder([&](ir::Op* op) {
            if (op == func || startsWithSdy(op->name()))
                return;
            std::string error;
            std::optional<int64_t> device = singleDeviceTarget(meshes, *op, error);
            if (!error.empty()) {
                diags.error(op->pos, error);
                failed = true;
            } else if (device) {
                ops.emplace_back(op, *device);
            }
        });
        if (failed)
            return false;
        for (auto& [op, device] : ops)
            resolveOp(module, op, device, globalMesh, mesh, options.replicaCount > 1);
    }
    return true;
}

void dropShardingAndMesh(ir::Module& module, const char* alsoDrop)
{
    module.op().walk([alsoDrop](ir::Op* op) {
        if (ir::findAttr(op->attrs(), ir::kSdyShardingAttr))
            op->removeAttribute(ir::kSdyShardingAttr);
        if (alsoDrop)
            op->removeAttribute(alsoDrop);
    });
    for (ir::Op* func : module.funcs()) {
        // One rewrite of each array: a removal per argument would rewrite it per argument.
        ir::removeEveryFuncArgAttr(*func, ir::kSdyShardingAttr);
        ir::removeEveryFuncResultAttr(*func, ir::kSdyShardingAttr);
    }
    for (ir::Op* mesh : module.meshes())
        mesh->erase();
}

} // namespace shardx

namespace shardx {

void removeAllGatherReduceScatterForCmv1(ir::Module& module)
{
    for (ir::Op* func : module.funcs()) {
        std::vector<ir::Op*> toRemove;
        func->walkPostOrder([&](ir::Op* op) {
            if (op->name() != "stablehlo.dot" && op->name() != "stablehlo.dot_general")
                return;
            bool sawGather = false;
            for (ir::Value* v : op->operands()) {
                ir::Op* def = v->definingOp();
                if (def && def->name() == "sdy.all_gather" && v->hasOneUse()) {
                    if (std::find(toRemove.begin(), toRemove.end(), def) == toRemove.end())
                        toRemove.push_back(def);
                    sawGather = true;
                }
            }
            if (sawGather || op->numResults() != 1 || !op->result(0)->hasOneUse())
                return;
            ir::Op* user = op->result(0)->uses().front().user;
            const ShardingPerValue* own = ir::resultShardings(*op);
            const TensorSharding* out = ir::outSharding(*user);
            if (user->name() != "sdy.reduce_scatter" || !own || own->shardings.empty() ||
                !own->shardings.front().unreduced.empty() || !out)
                return;
            ir::setResultShardings(*op, ShardingPerValue{{*out}});
            toRemove.push_back(user);
        });
        for (ir::Op* r : toRemove) {
            r->result(0)->replaceAllUsesWith(r->operand(0));
            r->dropAllReferences();
            r->erase();
        }
    }
}

} // namespace shardx
