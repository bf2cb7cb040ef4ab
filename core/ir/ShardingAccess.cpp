// Reading and writing the sharding attributes of ops, func arguments and results.
#include "core/ir/ShardingAccess.h"

namespace shardx::ir {

namespace {

const TensorSharding* nthOf(const ShardingPerValue* list, unsigned i)
{
    if (!list || i >= list->shardings.size())
        return nullptr;
    return &list->shardings[i];
}

const TensorSharding* shardingIn(const Attribute* a)
{
    const ShardingAttr* s = a ? a->as<ShardingAttr>() : nullptr;
    return s ? &s->sharding : nullptr;
}

/// The TensorSharding held by attribute `name` of `op` (a ShardingAttr), or nullptr.
const TensorSharding* shardingAttrOf(const Op& op, const char* name) { return shardingIn(op.attr(name)); }

/// Attribute `name` of `op` (a property or a discardable attribute), or nullptr. Attribute names are interned: one
/// pointer comparison per entry where Op::attr compares spellings (these lookups run for every op at every step).
const Attribute* internedAttrOf(const Op& op, const AttrName& name)
{
    const AttrPtr* a = op.findInterned(name);
    return a ? a->get() : nullptr;
}

/// The ShardingPerValue held by attribute `name` of `op`, or nullptr.
const ShardingPerValue* shardingsAttrOf(const Op& op, const AttrName& name)
{
    const Attribute* a = internedAttrOf(op, name);
    const ShardingPerValueAttr* s = a ? a->as<ShardingPerValueAttr>() : nullptr;
    return s ? &s->value : nullptr;
}

/// `sdy.sharding`, interned once.
const AttrName& sdyShardingName()
{
    static const AttrName name(kSdyShardingAttr);
    return name;
}

/// Replaces `name` where it is (property or discardable), else adds it (`discardable`: as a
/// discardable attribute).
void replaceOrAdd(Op& op, const char* name, AttrPtr value, bool discardable)
{
    if (findAttr(op.props(), name))
        op.setProp(name, std::move(value));
    else if (discardable || findAttr(op.attrs(), name))
        op.setDiscardable(name, std::move(value));
    else
        op.setProp(name, std::move(value));
}

} // namespace

bool isCollectiveOp(const std::string& n)
{
    return n == "sdy.all_gather" || n == "sdy.all_slice" || n == "sdy.all_reduce" || n == "sdy.reduce_scatter" ||
           n == "sdy.all_to_all" || n == "sdy.collective_permute" || n == "sdy.sharded_to_unreduced" ||
           n == "sdy.replicated_to_unreduced";
}

AttrPtr sharedShardingAttr(const TensorSharding& s)
{
    return sharedAttr(
        hashSharding(s),
        [&s](const Attribute& a) {
            const ShardingAttr* x = a.as<ShardingAttr>();
            return x && x->sharding == s;
        },
        [&s] { return Attribute::Payload(ShardingAttr{s}); });
}

AttrPtr sharedShardingsAttr(ShardingPerValue shardings)
{
    uint64_t hash = 0x5bd1e995u + shardings.shardings.size();
    for (const TensorSharding& s : shardings.shardings)
        hash = hash * 0x100000001b3ull ^ hashSharding(s);
    return sharedAttr(
        hash,
        [&shardings](const Attribute& a) {
            const ShardingPerValueAttr* x = a.as<ShardingPerValueAttr>();
            return x && x->value == shardings;
        },
        [&shardings] { return Attribute::Payload(ShardingPerValueAttr{std::move(shardings)}); });
}

const Mesh* meshOf(const Module& module, const TensorSharding& s) { return module.resolveMesh(s.mesh); }

const TensorSharding* opSharding(const Op& op) { return shardingAttrOf(op, kShardingAttr); }

void setOpSharding(Op& op, const TensorSharding& s) { replaceOrAdd(op, kShardingAttr, sharedShardingAttr(s), false); }

const TensorSharding* outSharding(const Op& collective) { return shardingAttrOf(collective, kOutShardingAttr); }

void setOutSharding(Op& collective, const TensorSharding& s)
{
    replaceOrAdd(collective, kOutShardingAttr, sharedShardingAttr(s), false);
}

const ShardingPerValue* inShardings(const Op& op)
{
    static const AttrName name(kInShardingsAttr);
    return shardingsAttrOf(op, name);
}

const ShardingPerValue* outShardings(const Op& op)
{
    static const AttrName name(kOutShardingsAttr);
    return shardingsAttrOf(op, name);
}

void setInShardings(Op& op, ShardingPerValue shardings)
{
    replaceOrAdd(op, kInShardingsAttr, sharedShardingsAttr(std::move(shardings)), false);
}

void setOutShardings(Op& op, ShardingPerValue shardings)
{
    replaceOrAdd(op, kOutShardingsAttr, sharedShardingsAttr(std::move(shardings)), false);
}

const ShardingPerValue* resultShardings(const Op& op) { return shardingsAttrOf(op, sdyShardingName()); }

void setResultShardings(Op& op, ShardingPerValue shardings)
{
    replaceOrAdd(op, kSdyShardingAttr, sharedShardingsAttr(std::move(shardings)), true);
}

void removeResultShardings(Op& op) { op.removeAttribute(kSdyShardingAttr); }

const TensorSharding* funcArgSharding(const Op& func, unsigned i)
{
    return shardingIn(funcArgAttr(func, i, kSdyShardingAttr));
}

const TensorSharding* funcResultSharding(const Op& func, unsigned i)
{
    return shardingIn(funcResultAttr(func, i, kSdyShardingAttr));
}

void setFuncArgSharding(Op& func, unsigned i, const TensorSharding& s)
{
    setFuncArgAttr(func, i, kSdyShardingAttr, sharedShardingAttr(s));
}

void setFuncResultSharding(Op& func, unsigned i, const TensorSharding& s)
{
    setFuncResultAttr(func, i, kSdyShardingAttr, sharedShardingAttr(s));
}

void removeFuncResultSharding(Op& func, unsigned i) { removeFuncResultAttr(func, i, kSdyShardingAttr); }

const TensorSharding* shardingOfValue(const Value* v)
{
    // Called for every operand and result at every propagation step: the names are compared as
    // interned pointers.
    static const OperationName kFunc("func.func"), kManual("sdy.manual_computation"), kNamed("sdy.named_computation"),
        kConstraint("sdy.sharding_constraint"), kReshard("sdy.reshard"), kEdge("sdy.data_flow_edge");
    static const OperationName kCollectives[] = {
        OperationName("sdy.all_gather"),           OperationName("sdy.all_slice"),
        OperationName("sdy.all_reduce"),           OperationName("sdy.reduce_scatter"),
        OperationName("sdy.all_to_all"),           OperationName("sdy.collective_permute"),
        OperationName("sdy.sharded_to_unreduced"), OperationName("sdy.replicated_to_unreduced")};
    if (!v)
        return nullptr;
    if (v->isBlockArgument()) {
        const Op* parent = v->ownerBlock()->parentOp();
        if (!parent)
            return nullptr;
        const OperationName n = parent->opName();
        if (n == kFunc)
            return funcArgSharding(*parent, v->index());
        if (n == kManual || n == kNamed)
            return nthOf(inShardings(*parent), v->index());
        return nullptr;
    }
    const Op* def = v->definingOp();
    if (!def)
        return nullptr;
    const OperationName n = def->opName();
    if (n == kConstraint || n == kReshard || n == kEdge)
        return opSharding(*def);
    for (const OperationName& c : kCollectives)
        if (n == c)
            return outSharding(*def);
    if (n == kManual || n == kNamed)
        return nthOf(outShardings(*def), v->index());
    return nthOf(resultShardings(*def), v->index());
}

} // namespace shardx::ir
