// ExplicitComparison: explicit types against Shardy's propagated shardings, with the reason they differ.
#include "core/explicit/ExplicitComparison.h"

#include <algorithm>
#include <unordered_map>

#include "core/ir/ShardingAccess.h"

namespace shardx::explicit_ {

namespace {

/// `X`, or a sub-axis as `X:(1)2` (JAX has no notation for it).
std::string compareAxisText(const AxisRef& a)
{
    if (!a.sub)
        return a.name;
    return a.name + ":(" + std::to_string(a.sub->preSize) + ")" + std::to_string(a.sub->size);
}

/// `f32[4@X,8@(Y,Z)]` of a propagated sharding, every axis (sub-axes as Shardy writes them).
std::string compareConcreteText(const ExplicitType& type, const TensorSharding* s)
{
    ExplicitType t = unshardedType(type.elementType, type.shape);
    if (s && s->rank() == t.rank()) {
        for (int d = 0; d < s->rank(); ++d)
            for (const AxisRef& a : s->dims[static_cast<size_t>(d)].axes)
                t.sharding.dims[static_cast<size_t>(d)].push_back(compareAxisText(a));
        for (const AxisRef& a : s->unreduced)
            t.sharding.unreduced.push_back(compareAxisText(a));
    }
    return t.toString();
}

/// True when `more` keeps every axis of `type` (each dimension's axes a prefix of its own, the
/// same unreduced axes) and adds some.
bool compareExtends(const ExplicitType& more, const ExplicitType& type)
{
    if (more.rank() != type.rank() || more.sharding.unreduced != type.sharding.unreduced)
        return false;
    for (int d = 0; d < type.rank(); ++d) {
        const DimAxes& a = more.sharding.dims[static_cast<size_t>(d)];
        const DimAxes& b = type.sharding.dims[static_cast<size_t>(d)];
        if (a.size() < b.size() || !std::equal(b.begin(), b.end(), a.begin()))
            return false;
    }
    return true;
}

} // namespace

std::vector<TypeDifference> compareWithPropagated(const ExplicitResult& typed, const ir::Module& propagated)
{
    std::unordered_map<int, const ir::Value*> byId;
    const_cast<ir::Op&>(propagated.op()).walk([&](ir::Op* op) {
        for (const auto& r : op->results())
            if (r->programId >= 0)
                byId.emplace(r->programId, r.get());
        for (const auto& region : op->regions())
            for (const auto& block : region->blocks())
                for (const auto& a : block->args())
                    if (a->programId >= 0)
                        byId.emplace(a->programId, a.get());
    });
    std::vector<TypeDifference> out;
    for (const TypedValue& tv : typed.values) {
        if (tv.programId < 0 || !tv.type)
            continue;
        auto it = byId.find(tv.programId);
        if (it == byId.end())
            continue;
        const TensorSharding* s = ir::shardingOfValue(it->second);
        const bool onMesh = s && !s->mesh.isInline() && s->mesh.symbol == typed.meshName;
        const ExplicitType& type = *tv.type;
        const std::string concrete = compareConcreteText(type, onMesh ? s : nullptr);
        if (concrete == type.toString())
            continue;
        TypeDifference d;
        d.programId = tv.programId;
        d.func = tv.func;
        d.name = tv.name;
        d.type = type;
        d.concrete = concrete;
        d.sharding = s ? s->toString() : std::string("(none)");
        // Consistent when the concrete sharding, with its non-Explicit axes left out, is the type.
        auto isExplicitHere = [&](const std::string& axis) {
            return std::find(tv.explicitAxes.begin(), tv.explicitAxes.end(), axis) != tv.explicitAxes.end();
        };
        std::vector<std::string> extra;
        ExplicitType explicitPart = unshardedType(type.elementType, type.shape);
        if (onMesh && s->rank() == type.rank()) {
            for (int dim = 0; dim < s->rank(); ++dim)
                for (const AxisRef& a : s->dims[static_cast<size_t>(dim)].axes) {
                    if (isExplicitHere(a.name))
                        explicitPart.sharding.dims[static_cast<size_t>(dim)].push_back(compareAxisText(a));
                    else
                        extra.push_back(compareAxisText(a));
                }
            for (const AxisRef& a : s->unreduced)
                if (isExplicitHere(a.name))
                    explicitPart.sharding.unreduced.push_back(compareAxisText(a));
        }
        explicitPart.sharding.reduced = type.sharding.reduced;
        if (explicitPart == type) {
            d.moreSpecific = true;
            std::string axes;
            for (const std::string& a : extra)
                axes += (axes.empty() ? "" : ", ") + a;
            d.reason = "the concrete sharding is more specific: " + axes +
                       (extra.size() == 1 ? " is not an Explicit axis here, so the type leaves it out"
                                          : " are not Explicit axes here, so the type leaves them out") +
                       " and the choice is the compiler's (Shardy's propagation made it)";
        } else if (!onMesh || !s) {
            d.reason =
                "Shardy's propagation left the value without a sharding on @" + typed.meshName +
                ", while JAX's rules shard it on Explicit axes: propagation does not apply JAX's per-op rules, so "
                "keeping the type takes a sharding constraint on the value (JAX's lowering adds one)";
        } else if (compareExtends(explicitPart, type)) {
            d.reason = "Shardy's propagation shards it further, on Explicit axes, than JAX's rule types it (" +
                       explicitPart.toString() + " against the type " + type.toString() +
                       "): propagation does not apply JAX's per-op rules, so keeping the type takes a sharding "
                       "constraint on the value";
        } else {
            d.reason = "Shardy's propagation chose otherwise on an Explicit axis (" + explicitPart.toString() +
                       " against the type " + type.toString() +
                       "): propagation does not apply JAX's per-op rules, so keeping the type takes a sharding "
                       "constraint on the value (JAX's lowering adds one)";
        }
        out.push_back(std::move(d));
    }
    return out;
}

} // namespace shardx::explicit_
