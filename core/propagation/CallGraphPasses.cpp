// Call-graph steps of the propagation pipeline: flatten, import/export named computations,
// func results, unflatten, call reshards, pre-order, func data-flow edges (SDY.md 3.7.4, 3.7.8).
#include "core/propagation/CallGraphPasses.h"

#include "core/ir/Clone.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/propagation/DataFlowEdgePasses.h"
#include "core/propagation/ShardingWrites.h"
#include "core/propagation/ValueSharding.h"

namespace shardx {

using ir::Op;
using ir::Value;

namespace {

std::string originalName(const Op& func)
{
    const ir::Attribute* a = func.attr("sdy.original_func_name");
    const ir::StringAttr* s = a ? a->as<ir::StringAttr>() : nullptr;
    return s && !s->value.empty() ? s->value : ir::symbolName(func);
}

std::vector<Op*> callsIn(Op& root)
{
    // Walked in every call-graph step: the name is compared as an interned pointer.
    static const ir::OperationName kCall("func.call");
    std::vector<Op*> calls;
    root.walk([&](Op* op) {
        if (op->opName() == kCall)
            calls.push_back(op);
    });
    return calls;
}

std::string freshName(const ir::Module& module, const std::string& base)
{
    for (int i = 0;; ++i) {
        std::string n = base + "_" + std::to_string(i);
        if (!module.findFunc(n) && !module.findMeshOp(n))
            return n;
    }
}

std::optional<TensorSharding> copyOf(const TensorSharding* s)
{
    return s ? std::optional<TensorSharding>(*s) : std::nullopt;
}

/// A list with fully open shardings for the missing entries, or nullopt when all are missing.
std::optional<ShardingPerValue> completeList(const std::vector<std::optional<TensorSharding>>& list,
                                             const std::vector<int>& ranks)
{
    std::optional<MeshRef> mesh;
    for (const auto& s : list)
        if (s && !mesh)
            mesh = s->mesh;
    if (!mesh)
        return std::nullopt;
    ShardingPerValue out;
    for (size_t i = 0; i < list.size(); ++i)
        out.shardings.push_back(list[i] ? *list[i] : TensorSharding::open(*mesh, ranks[i]));
    return out;
}

/// Moves every op of `from` to the end of `to`, remapping `from`'s arguments to `args`.
void moveBody(ir::Block& from, ir::Block& to, const std::vector<Value*>& args)
{
    for (unsigned i = 0; i < from.numArgs() && i < args.size(); ++i)
        replaceUses(from.arg(i), args[i]);
    std::vector<Op*> ops;
    for (const auto& op : from.ops())
        ops.push_back(op.get());
    for (Op* op : ops)
        to.push_back(from.remove(op));
}

/// Replaces the terminator of `block` by an op named `name` with the same operands.
void replaceTerminator(ir::Block& block, const std::string& name)
{
    Op* term = block.terminator();
    if (!term)
        return;
    auto nt = std::make_unique<Op>(name);
    for (Value* v : term->operands())
        nt->addOperand(v);
    nt->pos = term->pos;
    eraseNotified(*term);
    block.push_back(std::move(nt));
}

/// Same mesh and dimension axes (open/closed, priorities, replicated and unreduced ignored).
bool equivalent(const std::optional<TensorSharding>& a, const std::optional<TensorSharding>& b)
{
    if (!a || !b)
        return !a && !b;
    if (!(a->mesh == b->mesh) || a->dims.size() != b->dims.size())
        return false;
    for (size_t i = 0; i < a->dims.size(); ++i)
        if (a->dims[i].axes != b->dims[i].axes)
            return false;
    return true;
}

Op* mainOf(const ir::Module& module)
{
    std::vector<Op*> funcs = module.funcs();
    return funcs.size() == 1 ? funcs.front() : module.findFunc("main");
}

} // namespace

void flattenCallGraph(ir::Module& module)
{
    std::set<std::string> claimed;
    std::set<std::string> called;
    // The calls of each function, found once (the clones made below are walked when visited).
    std::unordered_map<Op*, std::vector<Op*>> callsOf;
    for (Op* f : module.funcs()) {
        std::vector<Op*>& calls = callsOf[f] = callsIn(*f);
        for (Op* c : calls)
            called.insert(ir::calleeName(*c).value_or(std::string()));
    }
    std::function<void(Op*)> visit = [&](Op* func) {
        auto known = callsOf.find(func);
        const std::vector<Op*> calls = known != callsOf.end() ? known->second : callsIn(*func);
        for (Op* call : calls) {
            Op* callee = module.findCallee(*call);
            if (!callee)
                continue;
            const std::string name = ir::symbolName(*callee);
            if (!claimed.count(name)) {
                claimed.insert(name);
                visit(callee);
                continue;
            }
            ir::CloneMapping map;
            std::unique_ptr<Op> clone = ir::cloneOp(*callee, map);
            const std::string fresh = freshName(module, name);
            ir::setSymbolName(*clone, fresh);
            clone->setDiscardable("sdy.original_func_name", ir::makeAttr(ir::StringAttr{originalName(*callee)}));
            Op* raw = module.body().insertAfter(callee, std::move(clone));
            module.noteCloned(*callee, *raw);
            notifyOpsInserted(*raw);
            ir::setCalleeName(*call, fresh);
            claimed.insert(fresh);
            visit(raw);
        }
    };
    for (Op* f : module.funcs())
        if (!called.count(ir::symbolName(*f))) {
            claimed.insert(ir::symbolName(*f));
            visit(f);
        }
}

void importFuncCalls(ir::Module& module)
{
    std::vector<Op*> calls;
    for (Op* f : module.funcs())
        for (Op* c : callsIn(*f))
            calls.push_back(c);
    std::set<Op*> callees;
    for (Op* call : calls) {
        Op* callee = module.findCallee(*call);
        if (!callee || callee->region(0).empty())
            continue;
        callees.insert(callee);
        auto nc = std::make_unique<Op>("sdy.named_computation");
        ir::setComputationName(*nc, originalName(*callee));
        for (Value* v : call->operands())
            nc->addOperand(v);
        std::vector<int> argRanks, resRanks;
        std::vector<std::optional<TensorSharding>> argShardings;
        ir::Block& body = callee->region(0).front();
        for (unsigned i = 0; i < body.numArgs(); ++i) {
            argRanks.push_back(valueRank(body.arg(i)));
            argShardings.push_back(copyOf(ir::funcArgSharding(*callee, i)));
        }
        if (auto in = completeList(argShardings, argRanks))
            ir::setInShardings(*nc, std::move(*in));
        if (const ShardingPerValue* out = ir::resultShardings(*call))
            ir::setOutShardings(*nc, *out);
        for (const ir::NamedAttribute& a : call->attrs())
            if (a.name != ir::kSdyShardingAttr)
                nc->setDiscardable(a.name, a.value);
        for (const auto& r : call->results())
            nc->addResult(r->type());
        ir::Block* nb = nc->addRegion()->addBlock();
        std::vector<Value*> args;
        for (unsigned i = 0; i < body.numArgs(); ++i)
            args.push_back(nb->addArgument(body.arg(i)->type()));
        nc->pos = call->pos;
        Op* raw = call->parentBlock()->insertBefore(call, std::move(nc));
        // The named computation is the user's call, its arguments the callee's.
        module.noteReplaced(*raw, *call);
        for (unsigned i = 0; i < body.numArgs(); ++i)
            module.noteReplaced(*args[i], *body.arg(i));
        moveBody(body, *nb, args);
        replaceTerminator(*nb, "sdy.return");
        for (unsigned i = 0; i < call->numResults(); ++i)
            replaceUses(call->result(i), raw->result(i));
        eraseNotified(*call);
        // The call's results and the callee's arguments and body, now the computation's.
        notifyOpsInserted(*raw);
    }
    for (Op* f : callees)
        eraseNotified(*f);
    // Edges for the computations made here (every other data-flow op has its edges already).
    if (!callees.empty())
        addDataFlowEdges(module);
}

void exportNamedComputations(ir::Module& module)
{
    // Post-order: nested computations are exported before their parents, siblings in order.
    static const ir::OperationName kNamed("sdy.named_computation");
    std::vector<Op*> ncs;
    module.op().walkPostOrder([&](Op* op) {
        if (op->opName() == kNamed)
            ncs.push_back(op);
    });
    for (Op* nc : ncs) {
        const std::string base = ir::computationName(*nc).value_or(std::string());
        std::string name = base;
        if (module.findFunc(name) || module.findMeshOp(name))
            name = freshName(module, base);
        ir::Block& body = nc->region(0).front();
        // Edge shardings and edge removal on the block arguments.
        std::vector<std::optional<TensorSharding>> argShardings;
        for (unsigned i = 0; i < body.numArgs(); ++i) {
            Value* arg = body.arg(i);
            Op* edge = dataFlowEdgeOpOf(arg);
            argShardings.push_back(edge ? getOwnSharding(edge->result(0)) : getOwnSharding(arg));
            if (edge) {
                replaceUses(edge->result(0), arg);
                eraseNotified(*edge);
            }
        }
        std::vector<std::optional<TensorSharding>> resShardings;
        for (unsigned i = 0; i < nc->numResults(); ++i) {
            Value* r = nc->result(i);
            Op* edge = dataFlowEdgeOpOf(r);
            resShardings.push_back(edge ? getOwnSharding(edge->result(0)) : getOwnSharding(r));
            if (edge) {
                replaceUses(edge->result(0), r);
                eraseNotified(*edge);
            }
        }
        std::vector<ir::Type> argTypes, resTypes;
        std::vector<int> resRanks;
        for (unsigned i = 0; i < body.numArgs(); ++i)
            argTypes.push_back(body.arg(i)->type());
        for (unsigned i = 0; i < nc->numResults(); ++i) {
            resTypes.push_back(nc->result(i)->type());
            resRanks.push_back(valueRank(nc->result(i)));
        }
        auto func = std::make_unique<Op>("func.func");
        ir::setSymbolName(*func, name);
        ir::setFuncType(*func, ir::Type::function(argTypes, resTypes));
        ir::setSymbolVisibility(*func, "private");
        func->setDiscardable("sdy.original_func_name", ir::makeAttr(ir::StringAttr{base}));
        ir::Block* fb = func->addRegion()->addBlock();
        std::vector<Value*> args;
        for (const ir::Type& t : argTypes)
            args.push_back(fb->addArgument(t));
        Op* rawFunc = module.body().push_back(std::move(func));
        // The function is the callee the import inlined, its arguments the computation's.
        module.noteRestored(*rawFunc);
        for (unsigned i = 0; i < body.numArgs() && i < args.size(); ++i)
            module.noteReplaced(*args[i], *body.arg(i));
        for (unsigned i = 0; i < argTypes.size(); ++i)
            if (argShardings[i])
                ir::setFuncArgSharding(*rawFunc, i, *argShardings[i]);
        moveBody(body, *fb, args);
        replaceTerminator(*fb, "func.return");
        notifyOpsInserted(*rawFunc);

        auto call = std::make_unique<Op>("func.call");
        ir::setCalleeName(*call, name);
        for (Value* v : nc->operands())
            call->addOperand(v);
        for (const ir::Type& t : resTypes)
            call->addResult(t);
        for (const ir::NamedAttribute& a : nc->attrs())
            call->setDiscardable(a.name, a.value);
        if (auto out = completeList(resShardings, resRanks))
            ir::setResultShardings(*call, std::move(*out));
        call->pos = nc->pos;
        Op* rawCall = nc->parentBlock()->insertBefore(nc, std::move(call));
        module.noteReplaced(*rawCall, *nc);
        for (unsigned i = 0; i < nc->numResults(); ++i)
            replaceUses(nc->result(i), rawCall->result(i));
        eraseNotified(*nc);
        notifyOpsInserted(*rawCall);
    }
}

void propagateToFuncResults(ir::Module& module)
{
    Op* main = mainOf(module);
    for (Op* func : module.funcs()) {
        if (func == main || func->region(0).empty())
            continue;
        Op* ret = func->region(0).front().terminator();
        if (!ret)
            continue;
        for (unsigned i = 0; i < ret->numOperands(); ++i) {
            if (std::optional<TensorSharding> s = getSharding(ret->operand(i)))
                ir::setFuncResultSharding(*func, i, *s);
            else
                ir::removeFuncResultSharding(*func, i);
        }
        notifyShardingsWritten(*func);
    }
}

void unflattenCallGraph(ir::Module& module, bool dedupFunctionsFully)
{
    auto keyOf = [&](Op& f) {
        std::string key = originalName(f);
        if (!dedupFunctionsFully) {
            ir::Type ft = ir::funcType(f);
            for (unsigned i = 0; i < ft.elements().size(); ++i) {
                const TensorSharding* s = ir::funcArgSharding(f, i);
                key += "|" + (s ? s->toString() : std::string("-"));
            }
            key += "->";
            for (unsigned i = 0; i < ft.results().size(); ++i) {
                const TensorSharding* s = ir::funcResultSharding(f, i);
                key += "|" + (s ? s->toString() : std::string("-"));
            }
            const ir::Attribute* m = f.attr("sdy.func_manual_axes");
            key += m ? "#manual" : "";
        }
        return key;
    };
    std::vector<Op*> calls;
    for (Op* f : module.funcs())
        for (Op* c : callsIn(*f))
            calls.push_back(c);
    std::map<std::string, std::string> chosen;
    if (dedupFunctionsFully) {
        std::map<std::string, std::map<std::string, int>> counts;
        std::map<std::string, std::vector<std::string>> order;
        for (Op* c : calls)
            if (Op* f = module.findCallee(*c)) {
                const std::string k = keyOf(*f), n = ir::symbolName(*f);
                if (!counts[k].count(n))
                    order[k].push_back(n);
                ++counts[k][n];
            }
        for (auto& [k, names] : order) {
            std::string best = names.front();
            for (const std::string& n : names)
                if (counts[k][n] > counts[k][best])
                    best = n;
            chosen[k] = best;
        }
    }
    for (Op* c : calls) {
        Op* f = module.findCallee(*c);
        if (!f)
            continue;
        const std::string k = keyOf(*f);
        auto it = chosen.find(k);
        if (it == chosen.end())
            chosen[k] = ir::symbolName(*f);
        else
            ir::setCalleeName(*c, it->second);
    }
    for (Op* f : module.funcs()) {
        f->removeAttribute("sdy.original_func_name");
        if (f->removeAttribute("sdy.func_manual_axes"))
            notifyShardingsWritten(*f);
    }
}

void insertFuncCallReshards(ir::Module& module)
{
    for (Op* f : module.funcs())
        for (Op* call : callsIn(*f)) {
            Op* callee = module.findCallee(*call);
            if (!callee)
                continue;
            const ShardingPerValue* callList = ir::resultShardings(*call);
            std::vector<std::optional<TensorSharding>> calleeShardings;
            std::vector<int> ranks;
            Op* insertAfter = call;
            for (unsigned i = 0; i < call->numResults(); ++i) {
                std::optional<TensorSharding> cs = copyOf(ir::funcResultSharding(*callee, i));
                calleeShardings.push_back(cs);
                ranks.push_back(valueRank(call->result(i)));
                std::optional<TensorSharding> own;
                if (callList && i < callList->shardings.size())
                    own = callList->shardings[i];
                if (equivalent(own, cs))
                    continue;
                TensorSharding target = own ? *own : TensorSharding::closedReplicated(cs->mesh, ranks.back());
                auto reshard = std::make_unique<Op>("sdy.reshard");
                reshard->addOperand(call->result(i));
                Value* r = reshard->addResult(call->result(i)->type());
                ir::setOpSharding(*reshard, target);
                Op* raw = call->parentBlock()->insertAfter(insertAfter, std::move(reshard));
                module.noteDerived(*raw, *call->result(i), ir::Derivation::Reshard);
                notifyOpsInserted(*raw);
                insertAfter = raw;
                replaceUses(call->result(i), r, raw);
            }
            if (auto list = completeList(calleeShardings, ranks))
                ir::setResultShardings(*call, std::move(*list));
            else
                ir::removeResultShardings(*call);
            notifyShardingsWritten(*call);
        }
}

void preOrderFuncs(ir::Module& module)
{
    std::vector<Op*> funcs = module.funcs();
    std::set<std::string> called;
    for (Op* f : funcs)
        for (Op* c : callsIn(*f))
            called.insert(ir::calleeName(*c).value_or(std::string()));
    if (called.empty())
        return;
    std::vector<Op*> order;
    std::set<Op*> seen;
    std::function<void(Op*)> visit = [&](Op* f) {
        if (!f || !seen.insert(f).second)
            return;
        order.push_back(f);
        for (Op* c : callsIn(*f))
            visit(module.findCallee(*c));
    };
    for (Op* f : funcs)
        if (!called.count(ir::symbolName(*f)))
            visit(f);
    for (Op* f : funcs)
        visit(f);
    // Move the functions, in order, to the end of the module.
    for (Op* f : order)
        module.body().push_back(module.body().remove(f));
}

void addFuncDataFlowEdges(ir::Module& module)
{
    auto addEdge = [&module](Value* v, Op* after, ir::Block* block) {
        auto op = std::make_unique<Op>("sdy.func_data_flow_edge");
        op->addOperand(v);
        Value* r = op->addResult(v->type());
        if (std::optional<TensorSharding> s = getOwnSharding(v))
            ir::setResultShardings(*op, ShardingPerValue{{*s}});
        Op* raw = nullptr;
        if (after)
            raw = block->insertAfter(after, std::move(op));
        else
            raw = block->insertBefore(block->empty() ? nullptr : block->ops().front().get(), std::move(op));
        module.noteDerived(*raw, *v, ir::Derivation::Edge);
        replaceUses(v, r, raw);
        notifyOpsInserted(*raw);
    };
    for (Op* f : module.funcs()) {
        if (f->region(0).empty())
            continue;
        ir::Block& entry = f->region(0).front();
        for (unsigned i = entry.numArgs(); i-- > 0;)
            if (entry.arg(i)->type().isRankedTensor())
                addEdge(entry.arg(i), nullptr, &entry);
        for (Op* call : callsIn(*f))
            for (unsigned i = call->numResults(); i-- > 0;)
                if (call->result(i)->type().isRankedTensor())
                    addEdge(call->result(i), call, call->parentBlock());
    }
}

void sinkFuncDataFlowEdges(ir::Module& module)
{
    static const ir::OperationName kFuncEdge("sdy.func_data_flow_edge");
    std::vector<Op*> edges;
    module.op().walk([&](Op* op) {
        if (op->opName() == kFuncEdge)
            edges.push_back(op);
    });
    for (Op* edge : edges) {
        Value* in = edge->operand(0);
        if (std::optional<TensorSharding> s = getOwnSharding(edge->result(0)))
            setOwnSharding(in, *s);
        replaceUses(edge->result(0), in);
        eraseNotified(*edge);
    }
}

} // namespace shardx
