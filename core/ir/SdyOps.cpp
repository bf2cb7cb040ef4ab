// SdyOps: typed accessors of the sdy ops' attributes other than shardings (SDY.md 2).
#include "core/ir/SdyOps.h"

#include <array>

namespace shardx::ir {

namespace {

/// The keyword an enum attribute spells: the last word of an OpaqueAttr body
/// (`propagation_direction FORWARD`) or a StringAttr's value; empty otherwise.
std::string_view enumKeywordOf(const Attribute* a)
{
    if (!a)
        return {};
    if (const StringAttr* s = a->as<StringAttr>())
        return s->value;
    if (const OpaqueAttr* o = a->as<OpaqueAttr>()) {
        std::string_view body = o->body;
        const size_t sp = body.rfind(' ');
        return sp == std::string_view::npos ? body : body.substr(sp + 1);
    }
    return {};
}

template <typename T> const T* payloadOf(const Op& op, const char* name)
{
    const Attribute* a = op.attr(name);
    return a ? a->as<T>() : nullptr;
}

/// The axes attribute of each collective, by op name.
enum class AxesKind { PerDim, List, Params, None };
struct CollectiveAxes {
    std::string_view op;
    const char* attr;
    AxesKind kind;
};
constexpr std::array<CollectiveAxes, 8> kCollectiveAxes{{
    {"sdy.all_gather", "gathering_axes", AxesKind::PerDim},
    {"sdy.all_slice", "slicing_axes", AxesKind::PerDim},
    {"sdy.reduce_scatter", "reduce_scatter_axes", AxesKind::PerDim},
    {"sdy.sharded_to_unreduced", "axes", AxesKind::PerDim},
    {"sdy.all_reduce", "reduction_axes", AxesKind::List},
    {"sdy.replicated_to_unreduced", "axes", AxesKind::List},
    {"sdy.all_to_all", "params", AxesKind::Params},
    {"sdy.collective_permute", "", AxesKind::None},
}};

const CollectiveAxes* collectiveAxesOf(std::string_view opName)
{
    for (const CollectiveAxes& c : kCollectiveAxes)
        if (c.op == opName)
            return &c;
    return nullptr;
}

/// The axes attribute of `opName` when it is of kind `kind`, else nullptr.
const char* axesAttrOf(std::string_view opName, AxesKind kind)
{
    const CollectiveAxes* c = collectiveAxesOf(opName);
    return c && c->kind == kind ? c->attr : nullptr;
}

} // namespace

const Mesh* meshOpMesh(const Op& meshOp)
{
    const MeshAttr* m = payloadOf<MeshAttr>(meshOp, kMeshAttr);
    return m ? &m->mesh : nullptr;
}

void setMeshOpMesh(Op& meshOp, const Mesh& mesh) { meshOp.setProp(kMeshAttr, makeAttr(MeshAttr{mesh})); }

const char* directionName(PropagationDirection d)
{
    switch (d) {
    case PropagationDirection::None: return "NONE";
    case PropagationDirection::Forward: return "FORWARD";
    case PropagationDirection::Backward: return "BACKWARD";
    case PropagationDirection::Both: return "BOTH";
    }
    return "BOTH";
}

std::optional<PropagationDirection> parseDirection(std::string_view keyword)
{
    for (PropagationDirection d : {PropagationDirection::None, PropagationDirection::Forward,
                                   PropagationDirection::Backward, PropagationDirection::Both})
        if (keyword == directionName(d))
            return d;
    return std::nullopt;
}

std::optional<PropagationDirection> barrierDirection(const Op& barrier)
{
    const Attribute* a = barrier.attr(kAllowedDirectionAttr);
    if (!a)
        return std::nullopt;
    if (const IntegerAttr* i = a->as<IntegerAttr>())
        return i->value >= 0 && i->value <= 3 ? std::optional(static_cast<PropagationDirection>(i->value))
                                              : std::nullopt;
    return parseDirection(enumKeywordOf(a));
}

void setBarrierDirection(Op& barrier, PropagationDirection d)
{
    barrier.setProp(kAllowedDirectionAttr,
                    makeAttr(OpaqueAttr{"sdy", "", std::string("propagation_direction ") + directionName(d)}));
}

std::optional<ReductionKind> reductionKindOf(const Op& collective)
{
    const Attribute* a = collective.attr(kReductionKindAttr);
    if (!a)
        return std::nullopt;
    if (const IntegerAttr* i = a->as<IntegerAttr>())
        return i->value >= 0 && i->value <= 2 ? std::optional(static_cast<ReductionKind>(i->value)) : std::nullopt;
    return parseReductionKind(enumKeywordOf(a));
}

void setReductionKind(Op& collective, ReductionKind kind)
{
    collective.setProp(kReductionKindAttr,
                       makeAttr(OpaqueAttr{"sdy", "", std::string("reduction_kind ") + reductionKindName(kind)}));
}

const char* collectiveAxesAttrName(std::string_view opName)
{
    const CollectiveAxes* c = collectiveAxesOf(opName);
    return c ? c->attr : nullptr;
}

bool hasPerDimAxes(std::string_view opName)
{
    const CollectiveAxes* c = collectiveAxesOf(opName);
    return c && c->kind == AxesKind::PerDim;
}

const std::vector<std::vector<AxisRef>>* perDimCollectiveAxes(const Op& collective)
{
    const char* name = axesAttrOf(collective.name(), AxesKind::PerDim);
    const ListOfAxisRefListsAttr* l = name ? payloadOf<ListOfAxisRefListsAttr>(collective, name) : nullptr;
    return l ? &l->lists : nullptr;
}

void setPerDimCollectiveAxes(Op& collective, std::vector<std::vector<AxisRef>> axes)
{
    if (const char* name = axesAttrOf(collective.name(), AxesKind::PerDim))
        collective.setProp(name, makeAttr(ListOfAxisRefListsAttr{std::move(axes)}));
}

const std::vector<AxisRef>* collectiveAxisList(const Op& collective)
{
    const char* name = axesAttrOf(collective.name(), AxesKind::List);
    const AxisRefListAttr* l = name ? payloadOf<AxisRefListAttr>(collective, name) : nullptr;
    return l ? &l->axes : nullptr;
}

void setCollectiveAxisList(Op& collective, std::vector<AxisRef> axes)
{
    if (const char* name = axesAttrOf(collective.name(), AxesKind::List))
        collective.setProp(name, makeAttr(AxisRefListAttr{std::move(axes)}));
}

const std::vector<AllToAllParam>* allToAllParams(const Op& allToAll)
{
    const AllToAllParamListAttr* p =
        payloadOf<AllToAllParamListAttr>(allToAll, axesAttrOf("sdy.all_to_all", AxesKind::Params));
    return p ? &p->params : nullptr;
}

void setAllToAllParams(Op& allToAll, std::vector<AllToAllParam> params)
{
    allToAll.setProp(axesAttrOf("sdy.all_to_all", AxesKind::Params),
                     makeAttr(AllToAllParamListAttr{std::move(params)}));
}

const std::vector<std::string>* manualAxes(const Op& manualComputation)
{
    const ManualAxesAttr* m = payloadOf<ManualAxesAttr>(manualComputation, kManualAxesAttr);
    return m ? &m->axes : nullptr;
}

void setManualAxes(Op& manualComputation, std::vector<std::string> axes)
{
    manualComputation.setProp(kManualAxesAttr, makeAttr(ManualAxesAttr{std::move(axes)}));
}

std::optional<std::string> computationName(const Op& namedComputation)
{
    const StringAttr* s = payloadOf<StringAttr>(namedComputation, kComputationNameAttr);
    return s ? std::optional<std::string>(s->value) : std::nullopt;
}

void setComputationName(Op& namedComputation, const std::string& name)
{
    namedComputation.setProp(kComputationNameAttr, makeAttr(StringAttr{name}));
}

std::optional<int64_t> shardingGroupId(const Op& group)
{
    const IntegerAttr* i = payloadOf<IntegerAttr>(group, kGroupIdAttr);
    return i ? std::optional<int64_t>(i->value) : std::nullopt;
}

void setShardingGroupId(Op& group, int64_t id)
{
    group.setProp(kGroupIdAttr, makeAttr(IntegerAttr{id, Type::scalar("i64")}));
}

} // namespace shardx::ir
