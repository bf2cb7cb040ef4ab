// sdy-add-data-flow-edges and sdy-sink-data-flow-edges (SDY.md 3.5).
#include "core/propagation/DataFlowEdgePasses.h"

#include <functional>

#include "core/ir/ShardingAccess.h"
#include "core/propagation/ShardingWrites.h"
#include "core/propagation/ValueSharding.h"

namespace shardx {

using ir::Op;
using ir::Value;

namespace {

bool isStaticTensor(const Value* v) { return v->type().isRankedTensor() && v->type().hasStaticShape(); }

void addEdge(ir::Module& module, Value* owner)
{
    auto op = std::make_unique<Op>("sdy.data_flow_edge");
    op->addOperand(owner);
    Value* result = op->addResult(owner->type());
    if (std::optional<TensorSharding> s = getOwnSharding(owner))
        ir::setOpSharding(*op, *s);
    Op* raw = ir::insertAtDefinition(*owner, std::move(op));
    module.noteDerived(*raw, *owner, ir::Derivation::Edge);
    replaceUses(owner, result, raw);
    notifyOpsInserted(*raw); // its owner's family now reads the edge
}

/// Collects the edge shardings of `owners`; returns false when none has one.
bool edgeShardings(const std::vector<Value*>& owners, std::vector<std::optional<TensorSharding>>& out, MeshRef& mesh)
{
    bool any = false;
    for (Value* owner : owners) {
        Op* edge = dataFlowEdgeOpOf(owner);
        std::optional<TensorSharding> s = edge ? getOwnSharding(edge->result(0)) : std::nullopt;
        if (s && !any) {
            mesh = s->mesh;
            any = true;
        }
        out.push_back(s);
    }
    return any;
}

void sinkOp(Op& op)
{
    const bool manual = op.name() == "sdy.manual_computation";
    const std::vector<std::string> manualAxes = manual ? manualAxesOf(op) : std::vector<std::string>{};
    const bool regionOp = manual || op.name() == "sdy.named_computation";

    std::vector<Value*> args = blockArgOwners(op);
    std::vector<std::optional<TensorSharding>> shardings;
    MeshRef mesh;
    if (!args.empty() && edgeShardings(args, shardings, mesh)) {
        ShardingPerValue list;
        const ShardingPerValue* old = ir::inShardings(op);
        for (size_t i = 0; i < args.size(); ++i) {
            TensorSharding s = shardings[i] ? *shardings[i] : TensorSharding::open(mesh, valueRank(args[i]));
            if (manual && old && i < old->shardings.size())
                s = addManualAxes(old->shardings[i], s, manualAxes);
            list.shardings.push_back(std::move(s));
        }
        ir::setInShardings(op, std::move(list));
    }
    std::vector<Value*> results = resultOwners(op);
    shardings.clear();
    if (!results.empty() && edgeShardings(results, shardings, mesh)) {
        ShardingPerValue list;
        for (size_t i = 0; i < results.size(); ++i)
            list.shardings.push_back(shardings[i] ? *shardings[i] : TensorSharding::open(mesh, valueRank(results[i])));
        if (regionOp)
            ir::setOutShardings(op, std::move(list));
        else
            ir::setResultShardings(op, std::move(list));
    }
}

} // namespace

bool addDataFlowEdges(ir::Module& module)
{
    for (Op* func : module.funcs()) {
        func->walkPostOrder([&module](Op* op) {
            if (!isDataFlowOp(*op))
                return;
            std::vector<Value*> results = resultOwners(*op);
            std::vector<Value*> argOwners = blockArgOwners(*op);
            // Block-argument owners then result owners, each group processed in reverse so that
            // consecutive edges end up in owner order.
            for (auto it = argOwners.rbegin(); it != argOwners.rend(); ++it)
                if (isStaticTensor(*it) && !dataFlowEdgeOpOf(*it))
                    addEdge(module, *it);
            for (auto it = results.rbegin(); it != results.rend(); ++it)
                if (isStaticTensor(*it) && !dataFlowEdgeOpOf(*it))
                    addEdge(module, *it);
        });
    }
    return true;
}

bool sinkDataFlowEdges(ir::Module& module)
{
    for (Op* func : module.funcs()) {
        std::vector<Op*> dataFlowOps;
        std::vector<Op*> edges;
        static const ir::OperationName kEdge("sdy.data_flow_edge");
        func->walk([&](Op* op) {
            if (isDataFlowOp(*op))
                dataFlowOps.push_back(op);
            else if (op->opName() == kEdge)
                edges.push_back(op);
        });
        for (Op* op : dataFlowOps)
            sinkOp(*op);
        for (Op* edge : edges) {
            replaceUses(edge->result(0), edge->operand(0));
            eraseNotified(*edge);
        }
        // Their values read their own shardings now, no longer the edges'.
        for (Op* op : dataFlowOps)
            notifyShardingsWritten(*op);
    }
    return true;
}

} // namespace shardx
