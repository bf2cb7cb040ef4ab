// Sharding origins and propagation edges (SDY.md 5) computed from a recorded Trace.
#include "core/trace/DebugAttributes.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/propagation/ValueSharding.h"

namespace shardx {

using ir::Op;
using ir::Value;

namespace {

/// One new axis of a step (5.1): tensor `target` got `axis` from tensor `source`.
struct NewAxis {
    int target = -1;
    AxisRef axis;
    int source = -1;
};

bool startsWithList(const std::vector<AxisRef>& list, const std::vector<AxisRef>& prefix)
{
    if (prefix.size() > list.size())
        return false;
    return std::equal(prefix.begin(), prefix.end(), list.begin());
}

const FactorSharding* factorOf(const ShardingProjection& p, int t, int64_t f)
{
    return t >= 0 && t < p.numTensors() ? p.tensor(t).find(f) : nullptr;
}

/// SDY.md 5.1 for tensor `t` of step `s`.
void newAxesOf(const TraceData& data, const TraceStep& s, int t, const Mesh& mesh, std::vector<NewAxis>& out)
{
    const std::vector<TensorFactorMapping>& mappings = data.rule(s).mappings;
    const ShardingProjection& before = data.tablesBefore(s);
    const ShardingProjection& after = data.tablesAfter(s);
    if (static_cast<size_t>(t) >= mappings.size())
        return;
    std::vector<NewAxis> rec;
    for (const DimFactors& dim : mappings[static_cast<size_t>(t)]) {
        int prevLast = -1; // index in rec of the previous changed factor's last axis
        for (int64_t f : dim) {
            const FactorSharding* ob = factorOf(before, t, f);
            const FactorSharding* na = factorOf(after, t, f);
            if (!ob || !na || ob->axes == na->axes)
                continue;
            const std::vector<AxisRef>& old = ob->axes;
            const std::vector<AxisRef>& nw = na->axes;
            int source = -1;
            for (int pass = 0; pass < 2 && source < 0; ++pass)
                for (int u = pass ? s.numOperands : 0; u < (pass ? before.numTensors() : s.numOperands); ++u) {
                    const FactorSharding* ub = factorOf(before, u, f);
                    if (u != t && ub && startsWithList(ub->axes, nw)) {
                        source = u;
                        break;
                    }
                }
            if (source < 0) {
                prevLast = -1;
                continue;
            }
            std::vector<AxisRef> added;
            if (!old.empty() && nw.size() >= old.size() && !(nw[old.size() - 1] == old.back()))
                added.push_back(nw[old.size() - 1]);
            for (size_t i = old.size(); i < nw.size(); ++i)
                added.push_back(nw[i]);
            if (added.empty())
                continue;
            if (prevLast >= 0 && canMerge(rec[static_cast<size_t>(prevLast)].axis, added.back())) {
                added.back() = merge(rec[static_cast<size_t>(prevLast)].axis, added.back(), mesh);
                rec.erase(rec.begin() + prevLast);
            }
            for (const AxisRef& a : added)
                rec.push_back(NewAxis{t, a, source});
            prevLast = static_cast<int>(rec.size()) - 1;
        }
    }
    std::vector<AxisRef> seen;
    for (NewAxis& n : rec) {
        if (std::find(seen.begin(), seen.end(), n.axis) != seen.end())
            continue;
        seen.push_back(n.axis);
        out.push_back(std::move(n));
    }
}

bool isPropagationStep(TraceStepKind k)
{
    return k == TraceStepKind::Op || k == TraceStepKind::Barrier || k == TraceStepKind::DataFlowEdge ||
           k == TraceStepKind::FuncDataFlowEdge || k == TraceStepKind::FuncResult ||
           k == TraceStepKind::ApplyConstraint;
}

ir::EdgeNode nodeOf(const TraceStep& s, int t)
{
    return t < s.numOperands ? ir::EdgeNode{false, t} : ir::EdgeNode{true, t - s.numOperands};
}

bool nodeLess(const ir::EdgeNode& a, const ir::EdgeNode& b)
{
    return std::make_tuple(a.isResult, a.index) < std::make_tuple(b.isResult, b.index);
}

/// Origins of one value: axis -> name, in registration order.
using OriginList = std::vector<std::pair<AxisRef, std::string>>;

void addOrigin(OriginList& list, const AxisRef& a, const std::string& name)
{
    for (const auto& e : list)
        if (e.first == a)
            return;
    list.emplace_back(a, name);
}

void addAxesOrigin(OriginList& list, const std::optional<TensorSharding>& s, const std::string& name)
{
    if (!s)
        return;
    for (const DimSharding& d : s->dims)
        for (const AxisRef& a : d.axes)
            addOrigin(list, a, name);
}

ir::AttrPtr originDict(const OriginList& list, const std::string& selfName)
{
    ir::DictionaryAttr dict;
    for (const auto& [axis, name] : list)
        ir::setAttr(dict.entries, axisKeyText(axis),
                    ir::makeAttr(ir::StringAttr{!selfName.empty() && name == selfName ? "self" : name}));
    return ir::makeAttr(std::move(dict));
}

struct EdgeRecord {
    int64_t step;
    AxisRef axis;
    ir::EdgeNode source;
    ir::EdgeNode target;
};

ir::AttrPtr edgesAttr(std::vector<EdgeRecord> records)
{
    // Smallest step per (axis, source, target).
    std::vector<EdgeRecord> kept;
    for (const EdgeRecord& r : records) {
        auto it = std::find_if(kept.begin(), kept.end(), [&](const EdgeRecord& k) {
            return k.axis == r.axis && k.source == r.source && k.target == r.target;
        });
        if (it == kept.end())
            kept.push_back(r);
        else
            it->step = std::min(it->step, r.step);
    }
    std::stable_sort(kept.begin(), kept.end(), [](const EdgeRecord& a, const EdgeRecord& b) {
        if (a.step != b.step)
            return a.step < b.step;
        if (!(a.axis == b.axis))
            return lessByName(a.axis, b.axis);
        if (!(a.source == b.source))
            return nodeLess(a.source, b.source);
        return nodeLess(a.target, b.target);
    });
    ir::PropagationEdgesAttr attr;
    for (const EdgeRecord& r : kept) {
        if (attr.steps.empty() || attr.steps.back().step != r.step)
            attr.steps.push_back(ir::PropagationEdgeStep{r.step, {}});
        auto& entries = attr.steps.back().entries;
        if (entries.empty() || !(entries.back().axis == r.axis) || !(entries.back().source == r.source))
            entries.push_back(ir::PropagationEdgeEntry{r.axis, r.source, {}});
        entries.back().targets.push_back(r.target);
    }
    return ir::makeAttr(std::move(attr));
}

int64_t firstStepNumber(ir::Module& module)
{
    int64_t next = 0;
    module.op().walk([&](Op* op) {
        const ir::Attribute* a = op->attr(ir::kPropagationEdgesAttr);
        const ir::PropagationEdgesAttr* e = a ? a->as<ir::PropagationEdgesAttr>() : nullptr;
        if (e)
            for (const auto& s : e->steps)
                next = std::max(next, s.step + 1);
    });
    return next;
}

} // namespace

void writeDebugAttributes(ir::Module& module, const TraceRecorder& recorder, const Trace& trace,
                          const DebugOutputOptions& options)
{
    const TraceData& data = trace.data();
    auto initialOf = [&](int idx) -> std::optional<TensorSharding> {
        const TensorSharding* s = idx >= 0 && static_cast<size_t>(idx) < data.initial.size()
                                      ? data.sharding(data.initial[static_cast<size_t>(idx)])
                                      : nullptr;
        return s ? std::optional<TensorSharding>(*s) : std::nullopt;
    };
    std::map<int, OriginList> origins;
    std::map<Op*, std::string> selfNameOfEdge; // edge op -> its mc origin name
    std::map<Op*, std::string> constraintName;
    if (options.origins) {
        int k = 0;
        module.op().walk([&](Op* op) {
            if (op->name() != "sdy.sharding_constraint" || op->numOperands() != 1)
                return;
            const std::string name = "constraint_" + std::to_string(k++);
            addAxesOrigin(origins[recorder.valueIndex(op->result(0))], initialOf(recorder.valueIndex(op->result(0))),
                          name);
            addAxesOrigin(origins[recorder.valueIndex(op->operand(0))], initialOf(recorder.valueIndex(op->operand(0))),
                          name);
            op->setDiscardable("sdy.sharding_origin_name", ir::makeAttr(ir::StringAttr{name}));
            constraintName[op] = name;
        });
        k = 0;
        module.op().walk([&](Op* op) {
            if (op->name() != "sdy.manual_computation")
                return;
            const std::string mc = "mc_" + std::to_string(k++);
            const ShardingPerValue* in = ir::inShardings(*op);
            const ShardingPerValue* outs = ir::outShardings(*op);
            std::vector<Value*> args = blockArgOwners(*op);
            for (size_t n = 0; in && n < in->shardings.size(); ++n) {
                const std::string name = mc + "_input: " + std::to_string(n);
                if (n < args.size())
                    if (Op* edge = dataFlowEdgeOpOf(args[n])) {
                        addAxesOrigin(origins[recorder.valueIndex(edge->result(0))], in->shardings[n], name);
                        selfNameOfEdge[edge] = name;
                    }
                if (n < op->numOperands())
                    addAxesOrigin(origins[recorder.valueIndex(op->operand(static_cast<unsigned>(n)))],
                                  initialOf(recorder.valueIndex(op->operand(static_cast<unsigned>(n)))), name);
            }
            std::vector<Value*> results = resultOwners(*op);
            for (size_t n = 0; outs && n < outs->shardings.size() && n < results.size(); ++n) {
                const std::string name = mc + "_output: " + std::to_string(n);
                if (Op* edge = dataFlowEdgeOpOf(results[n])) {
                    addAxesOrigin(origins[recorder.valueIndex(edge->result(0))], outs->shardings[n], name);
                    selfNameOfEdge[edge] = name;
                }
            }
            op->setDiscardable("sdy.sharding_origin_name", ir::makeAttr(ir::StringAttr{mc}));
        });
        for (Op* func : module.funcs()) {
            if (!func->numRegions() || func->region(0).empty())
                continue;
            ir::Block& body = *func->region(0).blocks().front();
            for (unsigned n = 0; n < body.numArgs(); ++n)
                addAxesOrigin(origins[recorder.valueIndex(body.arg(n))], initialOf(recorder.valueIndex(body.arg(n))),
                              "input: " + std::to_string(n));
            Op* ret = body.terminator();
            for (unsigned n = 0; ret && ret->name() == "func.return" && n < ret->numOperands(); ++n)
                addAxesOrigin(origins[recorder.valueIndex(ret->operand(n))],
                              initialOf(recorder.funcResultIndex(func, static_cast<int>(n))),
                              "output: " + std::to_string(n));
        }
        origins.erase(-1);
    }

    std::map<std::pair<Op*, bool>, std::vector<EdgeRecord>> edges; // (holder, funcResult0) -> records
    int64_t number = firstStepNumber(module);
    for (const TraceStep& s : data.steps) {
        if (!isPropagationStep(s.kind) || s.changes.empty())
            continue;
        const Mesh* mesh = module.findMesh(s.meshName);
        if (!mesh)
            continue;
        // Every tensor whose value changed (a value used twice by the op changes in both places).
        std::vector<NewAxis> found;
        for (int t = 0; t < static_cast<int>(s.tensorValues.size()); ++t) {
            const int v = s.tensorValues[static_cast<size_t>(t)];
            const bool hit = std::any_of(s.changes.begin(), s.changes.end(), [&](const TraceChange& c) {
                return c.tensor == t || (v >= 0 && c.value == v);
            });
            if (hit)
                newAxesOf(data, s, t, *mesh, found);
        }
        if (found.empty())
            continue;
        const int64_t stepNumber = number++;
        Op* holder = recorder.liveOp(s.op);
        auto valueOfTensor = [&](int t) {
            if (s.kind == TraceStepKind::FuncResult)
                t = 0; // the function result stands for its returned value
            return static_cast<size_t>(t) < s.tensorValues.size() ? s.tensorValues[static_cast<size_t>(t)] : -1;
        };
        for (const NewAxis& n : found) {
            if (options.edges && holder)
                edges[{holder, s.kind == TraceStepKind::FuncResult}].push_back(
                    EdgeRecord{stepNumber, n.axis, nodeOf(s, n.source), nodeOf(s, n.target)});
            if (!options.origins)
                continue;
            const int target = valueOfTensor(n.target);
            const int source = valueOfTensor(n.source);
            if (target < 0 || source < 0 || target == source)
                continue;
            OriginList& tl = origins[target];
            if (std::any_of(tl.begin(), tl.end(), [&](const auto& e) { return e.first == n.axis; }))
                continue;
            const OriginList& sl = origins[source];
            auto it = std::find_if(sl.begin(), sl.end(), [&](const auto& e) { return e.first == n.axis; });
            if (it == sl.end())
                it = std::find_if(sl.begin(), sl.end(), [&](const auto& e) {
                    return contains(e.first, n.axis, *mesh) || contains(n.axis, e.first, *mesh);
                });
            if (it != sl.end())
                tl.emplace_back(n.axis, it->second);
        }
    }

    if (options.edges)
        for (auto& [key, records] : edges) {
            ir::AttrPtr attr = edgesAttr(records);
            if (key.second)
                ir::setFuncResultAttr(*key.first, 0, ir::kPropagationEdgesAttr, attr);
            else
                key.first->setDiscardable(ir::kPropagationEdgesAttr, attr);
        }

    if (!options.origins)
        return;
    auto originsOf = [&](const Value* v) -> const OriginList* {
        auto it = origins.find(recorder.valueIndex(v));
        return it == origins.end() || it->second.empty() ? nullptr : &it->second;
    };
    for (Op* func : module.funcs()) {
        if (!func->numRegions() || func->region(0).empty())
            continue;
        ir::Block& body = *func->region(0).blocks().front();
        for (unsigned n = 0; n < body.numArgs(); ++n)
            if (const OriginList* l = originsOf(body.arg(n)))
                ir::setFuncArgAttr(*func, n, "sdy.sharding_origins", originDict(*l, "input: " + std::to_string(n)));
        Op* ret = body.terminator();
        std::vector<const Value*> done;
        for (unsigned n = 0; ret && ret->name() == "func.return" && n < ret->numOperands(); ++n) {
            const Value* v = ret->operand(n);
            if (std::find(done.begin(), done.end(), v) != done.end())
                continue;
            done.push_back(v);
            if (const OriginList* l = originsOf(v))
                ir::setFuncResultAttr(*func, n, "sdy.sharding_origins", originDict(*l, "output: " + std::to_string(n)));
        }
        func->walk([&](Op* op) {
            if (op == func || op->numResults() == 0)
                return;
            if (op->name() == "sdy.sharding_constraint" || op->name() == "sdy.data_flow_edge") {
                if (const OriginList* l = originsOf(op->result(0))) {
                    std::string self = constraintName.count(op) ? constraintName[op] : std::string();
                    if (selfNameOfEdge.count(op))
                        self = selfNameOfEdge[op];
                    op->setDiscardable("sdy.sharding_origins", originDict(*l, self));
                }
                return;
            }
            bool any = false;
            ir::ArrayAttr list;
            for (const auto& r : op->results()) {
                const OriginList* l = originsOf(r.get());
                any = any || l;
                list.elements.push_back(l ? originDict(*l, "") : ir::makeAttr(ir::DictionaryAttr{}));
            }
            if (any)
                op->setDiscardable("sdy.sharding_origins", ir::makeAttr(std::move(list)));
        });
    }
}

bool runWithDebugOutputs(ir::Module& module, const DebugOutputOptions& options, PropagationObserver* outer,
                         const std::function<bool(PropagationObserver*)>& body)
{
    if (!options.any())
        return body(outer);
    TraceRecorder recorder(module);
    ObserverFanOut both({&recorder, outer});
    const bool ok = body(outer ? static_cast<PropagationObserver*>(&both) : &recorder);
    const Trace trace = recorder.trace();
    writeDebugAttributes(module, recorder, trace, options);
    return ok;
}

void sinkDebugAttributes(ir::Module& module, const DebugOutputOptions& options)
{
    if (!options.any())
        return;
    module.op().walk([&](Op* op) {
        if (!isDataFlowOp(*op))
            return;
        auto collect = [&](const std::vector<Value*>& owners, const char* from, const char* to) {
            ir::ArrayAttr list;
            for (Value* owner : owners)
                if (Op* edge = dataFlowEdgeOpOf(owner))
                    if (ir::AttrPtr a = edge->attrPtr(from))
                        list.elements.push_back(a);
            op->setDiscardable(to, ir::makeAttr(std::move(list)));
        };
        if (options.origins) {
            collect(blockArgOwners(*op), "sdy.sharding_origins", "sdy.block_arg_sharding_origins");
            collect(resultOwners(*op), "sdy.sharding_origins", "sdy.result_sharding_origins");
        }
        if (options.edges) {
            collect(blockArgOwners(*op), ir::kPropagationEdgesAttr, ir::kBlockArgPropagationEdgesAttr);
            collect(resultOwners(*op), ir::kPropagationEdgesAttr, ir::kResultPropagationEdgesAttr);
        }
    });
}

} // namespace shardx
