// Reading the sharding of a value.
#include "core/ir/ShardingAccess.h"

namespace shardx::ir {

namespace {

const TensorSharding* nthOf(const ShardingPerValue* list, unsigned i)
{
    if (!list || i >= list->shardings.size())
        return nullptr;
    return &list->shardings[i];
}

} // namespace

const TensorSharding* shardingAttrOf(const Op& op, const std::string& name)
{
    const Attribute* a = op.attr(name);
    const ShardingAttr* s = a ? a->as<ShardingAttr>() : nullptr;
    return s ? &s->sharding : nullptr;
}

const ShardingPerValue* shardingsAttrOf(const Op& op, const std::string& name)
{
    const Attribute* a = op.attr(name);
    const ShardingPerValueAttr* s = a ? a->as<ShardingPerValueAttr>() : nullptr;
    return s ? &s->value : nullptr;
}

bool isCollectiveOp(const std::string& n)
{
    return n == "sdy.all_gather" || n == "sdy.all_slice" || n == "sdy.all_reduce" || n == "sdy.reduce_scatter" ||
           n == "sdy.all_to_all" || n == "sdy.collective_permute" || n == "sdy.sharded_to_unreduced" ||
           n == "sdy.replicated_to_unreduced";
}

const TensorSharding* shardingOfValue(const Value* v)
{
    if (!v)
        return nullptr;
    if (v->isBlockArgument()) {
        const Op* parent = v->ownerBlock()->parentOp();
        if (!parent)
            return nullptr;
        if (parent->name() == "func.func") {
            const Attribute* arr = parent->attr("arg_attrs");
            const ArrayAttr* list = arr ? arr->as<ArrayAttr>() : nullptr;
            if (!list || v->index() >= list->elements.size() || !list->elements[v->index()])
                return nullptr;
            const DictionaryAttr* dict = list->elements[v->index()]->as<DictionaryAttr>();
            const Attribute* s = dict ? findAttr(dict->entries, "sdy.sharding") : nullptr;
            const ShardingAttr* sa = s ? s->as<ShardingAttr>() : nullptr;
            return sa ? &sa->sharding : nullptr;
        }
        if (parent->name() == "sdy.manual_computation" || parent->name() == "sdy.named_computation")
            return nthOf(shardingsAttrOf(*parent, "in_shardings"), v->index());
        return nullptr;
    }
    const Op* def = v->definingOp();
    if (!def)
        return nullptr;
    const std::string& n = def->name();
    if (n == "sdy.sharding_constraint" || n == "sdy.reshard" || n == "sdy.data_flow_edge")
        return shardingAttrOf(*def, "sharding");
    if (isCollectiveOp(n))
        return shardingAttrOf(*def, "out_sharding");
    if (n == "sdy.manual_computation" || n == "sdy.named_computation")
        return nthOf(shardingsAttrOf(*def, "out_shardings"), v->index());
    return nthOf(shardingsAttrOf(*def, "sdy.sharding"), v->index());
}

} // namespace shardx::ir
