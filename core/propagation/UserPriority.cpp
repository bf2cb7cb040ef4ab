// User-priority propagation (PropagationPasses.h): park dims with priority > 0, restore them one by one (SDY.md 4.7).
#include <map>
#include <set>

#include "core/ir/ShardingAccess.h"
#include "core/propagation/PropagationPasses.h"
#include "core/propagation/ShardingWrites.h"
#include "core/propagation/ValueSharding.h"
#include "core/support/PointerMap.h"

namespace shardx {

using ir::Op;

namespace {

/// A place where a sharding is stored.
struct Slot {
    enum class Kind { FuncArg, FuncResult, PerValue, Own, Out, InList, OutList } kind;
    Op* op = nullptr;
    unsigned index = 0;

    /// The list a PerValue / InList / OutList slot indexes.
    const ShardingPerValue* list() const
    {
        switch (kind) {
        case Kind::InList: return ir::inShardings(*op);
        case Kind::OutList: return ir::outShardings(*op);
        default: return ir::resultShardings(*op);
        }
    }

    std::optional<TensorSharding> get() const
    {
        const TensorSharding* s = nullptr;
        switch (kind) {
        case Kind::FuncArg: s = ir::funcArgSharding(*op, index); break;
        case Kind::FuncResult: s = ir::funcResultSharding(*op, index); break;
        case Kind::Own: s = ir::opSharding(*op); break;
        case Kind::Out: s = ir::outSharding(*op); break;
        default: {
            const ShardingPerValue* l = list();
            s = l && index < l->shardings.size() ? &l->shardings[index] : nullptr;
        }
        }
        return s ? std::optional<TensorSharding>(*s) : std::nullopt;
    }

    void set(const TensorSharding& s) const
    {
        write(s);
        notifyShardingsWritten(*op);
    }

    void write(const TensorSharding& s) const
    {
        switch (kind) {
        case Kind::FuncArg: ir::setFuncArgSharding(*op, index, s); return;
        case Kind::FuncResult: ir::setFuncResultSharding(*op, index, s); return;
        case Kind::Own: ir::setOpSharding(*op, s); return;
        case Kind::Out: ir::setOutSharding(*op, s); return;
        default: {
            const ShardingPerValue* l = list();
            if (!l || index >= l->shardings.size())
                return;
            ShardingPerValue copy = *l;
            copy.shardings[index] = s;
            if (kind == Kind::InList)
                ir::setInShardings(*op, std::move(copy));
            else if (kind == Kind::OutList)
                ir::setOutShardings(*op, std::move(copy));
            else
                ir::setResultShardings(*op, std::move(copy));
        }
        }
    }
};

std::vector<Slot> collectSlots(ir::Module& module)
{
    std::vector<Slot> slots;
    module.op().walk([&](Op* op) {
        const std::string& n = op->name();
        if (n == "func.func") {
            ir::Type ft = ir::funcType(*op);
            for (unsigned i = 0; i < ft.elements().size(); ++i)
                slots.push_back(Slot{Slot::Kind::FuncArg, op, i});
            for (unsigned i = 0; i < ft.results().size(); ++i)
                slots.push_back(Slot{Slot::Kind::FuncResult, op, i});
            return;
        }
        if (n == "sdy.sharding_constraint" || n == "sdy.reshard" || n == "sdy.data_flow_edge") {
            slots.push_back(Slot{Slot::Kind::Own, op, 0});
            return;
        }
        if (ir::isCollectiveOp(n)) {
            slots.push_back(Slot{Slot::Kind::Out, op, 0});
            return;
        }
        if (n == "sdy.manual_computation" || n == "sdy.named_computation") {
            std::vector<ir::Value*> args = blockArgOwners(*op);
            for (unsigned i = 0; i < args.size(); ++i)
                if (!dataFlowEdgeOpOf(args[i]))
                    slots.push_back(Slot{Slot::Kind::InList, op, i});
            for (unsigned i = 0; i < op->numResults(); ++i)
                if (!dataFlowEdgeOpOf(op->result(i)))
                    slots.push_back(Slot{Slot::Kind::OutList, op, i});
            return;
        }
        if (const ShardingPerValue* l = ir::resultShardings(*op)) {
            for (unsigned i = 0; i < l->shardings.size(); ++i) {
                if (isDataFlowOp(*op) && i < op->numResults() && dataFlowEdgeOpOf(op->result(i)))
                    continue;
                slots.push_back(Slot{Slot::Kind::PerValue, op, i});
            }
        }
    });
    return slots;
}

struct Parked {
    Slot slot;
    TensorSharding original;
};

} // namespace

bool runUserPriorityPropagation(ir::Module& module, const PropagationPassOptions& options, DiagnosticList& diags)
{
    PropagationObserver* obs = options.base.observer;
    PropagationDriver driver(module, options.base, diags);
    if (obs)
        obs->passBegin("sdy-user-priority-propagate", "user-priority");
    if (!driver.prepare())
        return false;

    // Park.
    std::vector<Parked> parked;
    std::map<int64_t, std::vector<size_t>> byPriority;
    for (const Slot& slot : collectSlots(module)) {
        std::optional<TensorSharding> s = slot.get();
        if (!s)
            continue;
        bool any = false;
        for (const DimSharding& d : s->dims)
            any = any || d.priority.has_value();
        if (!any)
            continue;
        TensorSharding nw = *s;
        std::set<int64_t> priorities;
        for (DimSharding& d : nw.dims) {
            const int64_t p = d.priority.value_or(0);
            d.priority.reset();
            if (p > 0) {
                priorities.insert(p);
                nw.replicated.insert(nw.replicated.end(), d.axes.begin(), d.axes.end());
                d.axes.clear();
                d.closed = true;
            }
        }
        if (!priorities.empty()) {
            if (const Mesh* mesh = module.resolveMesh(nw.mesh))
                nw.replicated = sortAndMerge(nw.replicated, *mesh);
            parked.push_back(Parked{slot, *s});
            for (int64_t p : priorities)
                byPriority[p].push_back(parked.size() - 1);
        }
        slot.set(nw);
    }

    if (obs)
        obs->userPriorityBegin(0);
    opPriorityRounds(driver, options);

    for (const auto& [p, indices] : byPriority) {
        // Which of the parked ops are still in the module (propagation may have erased some).
        PointerMap<Op, bool> live;
        for (size_t idx : indices)
            live.insert(parked[idx].slot.op, false);
        module.op().walk([&](Op* op) {
            if (bool* found = live.find(op))
                *found = true;
        });
        for (size_t idx : indices) {
            const Parked& entry = parked[idx];
            if (!*live.find(entry.slot.op))
                continue;
            std::optional<TensorSharding> cur = entry.slot.get();
            if (!cur)
                continue;
            std::vector<AxisRef> restored;
            for (size_t d = 0; d < cur->dims.size() && d < entry.original.dims.size(); ++d) {
                const DimSharding& orig = entry.original.dims[d];
                if (orig.priority.value_or(0) != p)
                    continue;
                cur->dims[d].axes = orig.axes;
                cur->dims[d].closed = orig.closed;
                cur->dims[d].priority.reset();
                restored.insert(restored.end(), orig.axes.begin(), orig.axes.end());
            }
            std::vector<AxisRef> replicated;
            for (const AxisRef& a : cur->replicated)
                if (std::find(restored.begin(), restored.end(), a) == restored.end())
                    replicated.push_back(a);
            cur->replicated = std::move(replicated);
            entry.slot.set(*cur);
        }
        if (obs)
            obs->userPriorityBegin(p);
        opPriorityRounds(driver, options);
    }
    driver.finish();
    if (obs)
        obs->passEnd("sdy-user-priority-propagate");
    return !diags.hasErrors();
}

} // namespace shardx
