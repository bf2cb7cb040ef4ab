// PropagationDriver (PropagationDriver.h): sharding groups, built and synchronised before propagation (SDY.md 4.10).
#include <algorithm>

#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/propagation/PropagationDriver.h"
#include "core/propagation/ShardingWrites.h"
#include "core/propagation/ValueSharding.h"

namespace shardx {

using ir::Op;
using ir::Value;

namespace {

bool isFullyOpenEmpty(const TensorSharding& s)
{
    if (!s.replicated.empty() || !s.unreduced.empty())
        return false;
    return std::all_of(s.dims.begin(), s.dims.end(), [](const DimSharding& d) { return !d.closed && d.axes.empty(); });
}

/// Inserts `%c = sdy.sharding_constraint %v <open>` right after `v`'s definition and makes
/// every other use of `v` use `%c`.
Value* insertOpenConstraint(ir::Module& module, Value* v, const MeshRef& mesh)
{
    auto op = std::make_unique<Op>("sdy.sharding_constraint");
    op->addOperand(v);
    Value* result = op->addResult(v->type());
    ir::setOpSharding(*op, TensorSharding::open(mesh, valueRank(v)));
    Op* raw = ir::insertAtDefinition(*v, std::move(op));
    module.noteDerived(*raw, *v, ir::Derivation::Constraint);
    replaceUses(v, result, raw);
    // A new value with a sharding, and `v` no longer read through an edge that now reads `%c`.
    notifyShardingsWritten(*raw);
    notifyShardingWritten(*v);
    return result;
}

} // namespace

void PropagationDriver::buildGroups()
{
    m_groupOf.clear();
    m_groups.clear();
    m_module.op().walk([&](Op* op) {
        if (op->name() != "sdy.sharding_group" || op->numOperands() != 1)
            return;
        Value* v = op->operand(0);
        const int64_t id = ir::shardingGroupId(*op).value_or(0);
        if (m_groupOf.count(v))
            return;
        m_groupOf[v] = id;
        m_groups[id].push_back(v);
    });
}

bool PropagationDriver::syncGroups()
{
    for (auto& [id, members] : m_groups) {
        std::optional<TensorSharding> first;
        std::optional<TensorSharding> differing;
        for (Value* m : members) {
            std::optional<TensorSharding> s = getSharding(m);
            if (!s || isFullyOpenEmpty(*s))
                continue;
            if (!first)
                first = s;
            else if (!(*first == *s) && !differing)
                differing = s;
        }
        if (!first)
            continue;
        if (!differing) {
            for (Value* m : members) {
                std::optional<TensorSharding> s = getSharding(m);
                if (!s || !(*s == *first))
                    setSharding(m, *first);
            }
            if (m_options.observer)
                m_options.observer->shardingGroupSync(id, false, members);
            continue;
        }
        Value* m0 = members.front();
        Op* owner = m0->definingOp() ? m0->definingOp() : m0->ownerBlock()->parentOp();
        SourcePos pos = owner ? owner->pos : SourcePos{};
        if (pos.file.empty())
            pos.file = m_module.fileName;
        m_diags.warning(pos, "The initial operand shardings on the sharding groups of groupID: " + std::to_string(id) +
                                 " do not match. Inserting an open sharding constraint to all constrained values. "
                                 "This can lead to unintended resharding.");
        std::vector<Value*> replaced;
        for (Value* m : members) {
            m_groupOf.erase(m);
            Value* c = insertOpenConstraint(m_module, m, differing->mesh);
            m_groupOf[c] = id;
            replaced.push_back(c);
        }
        members = replaced;
        if (m_options.observer)
            m_options.observer->shardingGroupSync(id, true, members);
    }
    return true;
}

} // namespace shardx
