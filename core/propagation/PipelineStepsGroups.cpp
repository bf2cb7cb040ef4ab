// Pipeline steps (PipelineSteps.h): sharding-group import, manual-axes cleanup, in/out sharding fixes (SDY.md 3.7).
#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/propagation/PipelineSteps.h"
#include "core/propagation/ShardingWrites.h"
#include "core/propagation/ValueSharding.h"

namespace shardx {

using ir::Op;
using ir::Value;

namespace {

SourcePos posOf(const Op& op, const ir::Module& m)
{
    SourcePos p = op.pos;
    if (p.file.empty())
        p.file = m.fileName;
    return p;
}

const Op* enclosingManual(const Value* v)
{
    const Op* op = v->isBlockArgument() ? v->ownerBlock()->parentOp() : v->definingOp()->parentOp();
    if (v->isBlockArgument() && op && op->name() == "sdy.manual_computation")
        return op;
    for (; op; op = op->parentOp())
        if (op->name() == "sdy.manual_computation")
            return op;
    return nullptr;
}

int64_t findRoot(std::map<int64_t, int64_t>& parent, int64_t x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

/// Longest evenly-dividing prefix of a dimension (3.7.9).
std::optional<DimSharding> divisiblePrefix(const DimSharding& d, int64_t size, const Mesh& mesh)
{
    if (axesProduct(d.axes, mesh) != 0 && size % axesProduct(d.axes, mesh) == 0)
        return std::nullopt;
    DimSharding out;
    out.closed = d.closed;
    int64_t remaining = size;
    for (const AxisRef& a : d.axes) {
        const int64_t n = a.size(mesh);
        const int64_t g = std::gcd(n, remaining);
        if (g == 1)
            break;
        if (g == n) {
            out.axes.push_back(a);
            remaining /= n;
            continue;
        }
        out.axes.push_back(AxisRef(a.name, a.preSize(), g));
        break;
    }
    return out;
}

bool fixDivisibility(TensorSharding& s, const ir::Type& type, const ir::Module& module)
{
    const Mesh* mesh = module.resolveMesh(s.mesh);
    if (!mesh || !type.isRankedTensor() || type.rank() != s.rank())
        return false;
    bool changed = false;
    for (int d = 0; d < s.rank(); ++d) {
        if (std::optional<DimSharding> fixed = divisiblePrefix(s.dims[static_cast<size_t>(d)], type.dim(d), *mesh)) {
            s.dims[static_cast<size_t>(d)] = *fixed;
            changed = true;
        }
    }
    return changed;
}

template <typename Fn> void updateFuncIo(Op& func, bool args, bool results, Fn&& fn)
{
    ir::Type ft = ir::funcType(func);
    auto visit = [&](bool isArg, unsigned i, const ir::Type& t) {
        const TensorSharding* s = isArg ? ir::funcArgSharding(func, i) : ir::funcResultSharding(func, i);
        if (!s)
            return;
        TensorSharding copy = *s;
        if (!fn(copy, t))
            return;
        if (isArg)
            ir::setFuncArgSharding(func, i, copy);
        else
            ir::setFuncResultSharding(func, i, copy);
        notifyShardingsWritten(func);
    };
    if (args)
        for (unsigned i = 0; i < ft.elements().size(); ++i)
            visit(true, i, ft.elements()[i]);
    if (results)
        for (unsigned i = 0; i < ft.results().size(); ++i)
            visit(false, i, ft.results()[i]);
}

using ListFix = std::function<bool(TensorSharding&, const ir::Type&)>;

/// `list` with `fn` applied to each sharding and its value's type; nullopt when `list` is null
/// or nothing changed.
std::optional<ShardingPerValue> updatedList(const ShardingPerValue* list, const std::vector<ir::Type>& types,
                                            const ListFix& fn)
{
    if (!list)
        return std::nullopt;
    ShardingPerValue copy = *list;
    bool any = false;
    for (size_t i = 0; i < copy.shardings.size() && i < types.size(); ++i)
        any = fn(copy.shardings[i], types[i]) || any;
    return any ? std::optional<ShardingPerValue>(std::move(copy)) : std::nullopt;
}

/// Applies `fn` to the in_shardings and out_shardings of a manual computation.
void updateInOutShardings(Op& op, const std::vector<ir::Type>& inTypes, const std::vector<ir::Type>& outTypes,
                          const ListFix& fn)
{
    if (std::optional<ShardingPerValue> in = updatedList(ir::inShardings(op), inTypes, fn)) {
        ir::setInShardings(op, std::move(*in));
        notifyShardingsWritten(op);
    }
    if (std::optional<ShardingPerValue> out = updatedList(ir::outShardings(op), outTypes, fn)) {
        ir::setOutShardings(op, std::move(*out));
        notifyShardingsWritten(op);
    }
}

} // namespace

bool shardingGroupImport(ir::Module& module, DiagnosticList& diags)
{
    std::vector<Op*> groupOps;
    module.op().walk([&](Op* op) {
        if (op->name() == "sdy.sharding_group" && op->numOperands() == 1)
            groupOps.push_back(op);
    });
    if (groupOps.empty())
        return true;
    // Checks per original group id.
    std::map<int64_t, std::vector<Op*>> byId;
    for (Op* g : groupOps)
        byId[ir::shardingGroupId(*g).value_or(0)].push_back(g);
    bool ok = true;
    for (const auto& [id, ops] : byId) {
        const Op* manual = enclosingManual(ops.front()->operand(0));
        const ir::Type& type = ops.front()->operand(0)->type();
        for (Op* g : ops) {
            if (enclosingManual(g->operand(0)) != manual) {
                diags.error(posOf(*g, module), "ShardingGroupOps values cannot cross ManualComputationOp boundaries "
                                               "for groupId: " +
                                                   std::to_string(id));
                ok = false;
                break;
            }
            if (g->operand(0)->type().shape() != type.shape()) {
                diags.error(posOf(*g, module),
                            "ShardingGroupOps values must have the same shape for groupId: " + std::to_string(id));
                ok = false;
                break;
            }
        }
    }
    if (!ok)
        return false;
    // Union groups sharing a value; the smallest id represents.
    std::map<int64_t, int64_t> parent;
    for (const auto& entry : byId)
        parent[entry.first] = entry.first;
    std::map<const Value*, int64_t> firstGroup;
    for (Op* g : groupOps) {
        const int64_t id = ir::shardingGroupId(*g).value_or(0);
        auto [it, inserted] = firstGroup.emplace(g->operand(0), id);
        if (!inserted) {
            int64_t a = findRoot(parent, it->second), b = findRoot(parent, id);
            if (a != b)
                parent[std::max(a, b)] = std::min(a, b);
        }
    }
    std::map<int64_t, int64_t> renumber;
    for (const auto& entry : byId) {
        const int64_t root = findRoot(parent, entry.first);
        if (!renumber.count(root)) {
            const int64_t next = static_cast<int64_t>(renumber.size());
            renumber[root] = next;
        }
    }
    std::set<std::pair<const Value*, int64_t>> seen;
    for (Op* g : groupOps) {
        const int64_t id = renumber[findRoot(parent, ir::shardingGroupId(*g).value_or(0))];
        if (!seen.insert({g->operand(0), id}).second) {
            eraseNotified(*g);
            continue;
        }
        ir::setShardingGroupId(*g, id);
    }
    return true;
}

bool manualAxesCleanup(ir::Module& module, DiagnosticList& diags)
{
    bool ok = true;
    static const ir::OperationName kManual("sdy.manual_computation");
    module.op().walk([&](Op* op) {
        if (op->opName() != kManual)
            return;
        std::vector<std::string> manual = manualAxesOf(*op);
        const ShardingPerValue* in = ir::inShardings(*op);
        const ShardingPerValue* out = ir::outShardings(*op);
        const bool noShardings = (!in || in->shardings.empty()) && (!out || out->shardings.empty());
        const bool bodyEmpty =
            op->numRegions() == 0 || op->region(0).empty() || op->region(0).blocks().front()->ops().size() <= 1;
        if (noShardings) {
            if (!manual.empty() && !bodyEmpty) {
                diags.error(SourcePos{module.fileName, op->pos.line, op->pos.col},
                            "op has manual_axes when there are no in/out shardings and the body is not empty");
                ok = false;
            }
            return;
        }
        // The common mesh: the first sharding on a non-empty mesh.
        std::optional<MeshRef> meshRef;
        const Mesh* mesh = nullptr;
        for (const ShardingPerValue* l : {in, out})
            if (l)
                for (const TensorSharding& s : l->shardings)
                    if (const Mesh* m = module.resolveMesh(s.mesh); m && !m->isEmpty() && !mesh) {
                        mesh = m;
                        meshRef = s.mesh;
                    }
        if (!mesh)
            return;
        std::sort(manual.begin(), manual.end(),
                  [&](const std::string& a, const std::string& b) { return mesh->axisIndex(a) < mesh->axisIndex(b); });
        ir::setManualAxes(*op, manual);
        notifyShardingsWritten(*op); // the view of its arguments' shardings follows its manual axes
        auto fix = [&](TensorSharding& s, const ir::Type& t) {
            if (!t.isTensor())
                return false;
            bool changed = false;
            if (const Mesh* m = module.resolveMesh(s.mesh); m && m->isEmpty()) {
                s.mesh = *meshRef;
                changed = true;
            }
            for (const std::string& axis : manual) {
                bool used = false;
                for (const DimSharding& d : s.dims)
                    for (const AxisRef& a : d.axes)
                        used = used || a.name == axis;
                for (const AxisRef& a : s.replicated)
                    used = used || a.name == axis;
                for (const AxisRef& a : s.unreduced)
                    used = used || a.name == axis;
                if (!used) {
                    s.replicated.push_back(AxisRef(axis));
                    changed = true;
                }
            }
            if (changed)
                s.replicated = sortAndMerge(s.replicated, *mesh);
            return changed;
        };
        std::vector<ir::Type> inTypes, outTypes;
        for (Value* v : op->operands())
            inTypes.push_back(v->type());
        for (const auto& r : op->results())
            outTypes.push_back(r->type());
        updateInOutShardings(*op, inTypes, outTypes, fix);
    });
    return ok;
}

void updateNonDivisibleInputOutputShardings(ir::Module& module)
{
    auto fix = [&](TensorSharding& s, const ir::Type& t) { return fixDivisibility(s, t, module); };
    for (Op* func : module.funcs())
        updateFuncIo(*func, true, true, fix);
    static const ir::OperationName kCall("func.call"), kManual("sdy.manual_computation");
    module.op().walk([&](Op* op) {
        // Only calls and manual computations hold such lists: no type vectors for other ops.
        if (op->opName() != kCall && op->opName() != kManual)
            return;
        std::vector<ir::Type> inTypes, outTypes;
        for (Value* v : op->operands())
            inTypes.push_back(v->type());
        for (const auto& r : op->results())
            outTypes.push_back(r->type());
        if (op->name() == "func.call") {
            if (std::optional<ShardingPerValue> l = updatedList(ir::resultShardings(*op), outTypes, fix)) {
                ir::setResultShardings(*op, std::move(*l));
                notifyShardingsWritten(*op);
            }
        } else if (op->name() == "sdy.manual_computation") {
            updateInOutShardings(*op, inTypes, outTypes, fix);
        }
    });
}

void removeSubAxesInInputOutputShardings(ir::Module& module)
{
    std::vector<Op*> funcs = module.funcs();
    Op* main = funcs.size() == 1 ? funcs.front() : module.findFunc("main");
    if (!main)
        return;
    updateFuncIo(*main, true, true, [](TensorSharding& s, const ir::Type&) {
        bool changed = false;
        for (DimSharding& d : s.dims) {
            if (d.closed)
                continue;
            auto it = std::find_if(d.axes.begin(), d.axes.end(), [](const AxisRef& a) { return a.isSubAxis(); });
            if (it != d.axes.end()) {
                d.axes.erase(it, d.axes.end());
                changed = true;
            }
        }
        return changed;
    });
}

} // namespace shardx
