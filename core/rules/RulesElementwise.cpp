// Rules (RulesInternal.h): element-wise, layout (transpose, broadcast, reverse) and collective StableHLO ops.
#include "core/rules/RulesInternal.h"

namespace shardx::rules {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

/// Every non-scalar tensor must have the rank of `shape` for a same-dim-everywhere rule.
std::optional<std::string> checkSameRank(const RuleContext& c, const Shape& shape)
{
    for (size_t i = 0; i < c.operandShapes.size(); ++i)
        if (!c.operand(i).empty() && c.operand(i).size() != shape.size())
            return "operand " + str(static_cast<int64_t>(i)) + " has rank " + str(c.operand(i).size()) + ", expected " +
                   str(shape.size());
    for (size_t i = 0; i < c.resultShapes.size(); ++i)
        if (!c.result(i).empty() && c.result(i).size() != shape.size())
            return "result " + str(static_cast<int64_t>(i)) + " has rank " + str(c.result(i).size()) + ", expected " +
                   str(shape.size());
    return std::nullopt;
}

RuleResult pointwiseOver(const RuleContext& c, const Shape& shape,
                         const std::function<FactorKind(int64_t)>& kindOf = {},
                         const std::function<bool(int64_t)>& blockedOf = {})
{
    if (auto err = checkSameRank(c, shape))
        return RuleResult::invalid(*err);
    OpShardingRuleBuilder b = c.builder();
    b.addPointwise(shape, kindOf, blockedOf);
    return RuleResult::created(b.build());
}

/// Dims other than `skip` get a pointwise factor (sizes from the operand).
void pointwiseExcept(OpShardingRuleBuilder& b, const Shape& shape, const std::vector<int64_t>& skip)
{
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
        if (std::find(skip.begin(), skip.end(), d) == skip.end())
            b.addFactorAllTensors(d, shape[static_cast<size_t>(d)]);
}

} // namespace

RuleResult pointwiseRule(const RuleContext& c)
{
    if (c.resultShapes.empty())
        return RuleResult::none("op has no result");
    return pointwiseOver(c, c.result(0));
}

RuleResult selectRule(const RuleContext& c) { return pointwiseRule(c); }

RuleResult clampRule(const RuleContext& c)
{
    if (c.operandShapes.size() != 3)
        return RuleResult::invalid("clamp expects 3 operands");
    return pointwiseOver(c, c.operand(1));
}

RuleResult bitcastConvertRule(const RuleContext& c)
{
    if (c.operandShapes.size() != 1 || c.resultShapes.size() != 1)
        return RuleResult::invalid("bitcast_convert expects one operand and one result");
    const Shape& in = c.operand(0);
    const Shape& out = c.result(0);
    OpShardingRuleBuilder b = c.builder();
    const Shape& lower = in.size() < out.size() ? in : out;
    if (in.size() != out.size() && in.size() != out.size() + 1 && out.size() != in.size() + 1)
        return RuleResult::invalid("bitcast_convert ranks differ by more than one");
    b.addPointwise(lower);
    if (out.size() == in.size() + 1)
        b.addFactor({kNullDim}, {static_cast<int64_t>(out.size()) - 1}, out.back(), FactorKind::NeedReplication);
    else if (in.size() == out.size() + 1)
        b.addFactor({static_cast<int64_t>(in.size()) - 1}, {kNullDim}, in.back(), FactorKind::NeedReplication);
    return RuleResult::created(b.build());
}

RuleResult batchNormInferenceRule(const RuleContext& c)
{
    if (c.operandShapes.size() != 5 || c.resultShapes.size() != 1)
        return RuleResult::invalid("batch_norm_inference expects 5 operands and 1 result");
    auto f = intAttr(c, "feature_index");
    const Shape& in = c.operand(0);
    if (!f || !inRange(*f, in))
        return RuleResult::invalid("batch_norm_inference: missing or invalid feature_index");
    OpShardingRuleBuilder b = c.builder();
    for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d) {
        int64_t feat = d == *f ? 0 : kNullDim;
        b.addFactor({d, feat, feat, feat, feat}, {d}, in[static_cast<size_t>(d)]);
    }
    return RuleResult::created(b.build());
}

RuleResult broadcastInDimRule(const RuleContext& c)
{
    auto dims = intListAttr(c, "broadcast_dimensions");
    if (!dims)
        return RuleResult::invalid("broadcast_in_dim: missing broadcast_dimensions");
    const Shape& in = c.operand(0);
    const Shape& out = c.result(0);
    if (dims->size() != in.size())
        return RuleResult::invalid("broadcast_in_dim: broadcast_dimensions size differs from the operand rank");
    OpShardingRuleBuilder b = c.builder();
    for (int64_t o = 0; o < static_cast<int64_t>(out.size()); ++o) {
        int64_t inDim = kNullDim;
        for (size_t i = 0; i < dims->size(); ++i)
            if ((*dims)[i] == o)
                inDim = static_cast<int64_t>(i);
        int64_t outSize = out[static_cast<size_t>(o)];
        if (inDim != kNullDim && in[static_cast<size_t>(inDim)] == 1 && outSize != 1) {
            b.addFactor({inDim}, {kNullDim}, 1);
            inDim = kNullDim;
        }
        b.addFactor({inDim}, {o}, outSize);
    }
    return RuleResult::created(b.build());
}

RuleResult transposeRule(const RuleContext& c)
{
    auto perm = stablehlo::transposePermutation(c.op);
    const Shape& in = c.operand(0);
    const Shape& out = c.result(0);
    if (!perm || perm->size() != out.size())
        return RuleResult::invalid("transpose: missing or malformed permutation");
    OpShardingRuleBuilder b = c.builder();
    for (int64_t o = 0; o < static_cast<int64_t>(out.size()); ++o) {
        int64_t i = (*perm)[static_cast<size_t>(o)];
        if (!inRange(i, in))
            return RuleResult::invalid("transpose: permutation entry out of range");
        b.addFactor({i}, {o}, out[static_cast<size_t>(o)]);
    }
    return RuleResult::created(b.build());
}

RuleResult choleskyRule(const RuleContext& c)
{
    const Shape& s = c.result(0);
    int64_t r = static_cast<int64_t>(s.size());
    return pointwiseOver(c, s,
                         [r](int64_t d) { return d >= r - 2 ? FactorKind::NeedReplication : FactorKind::PassThrough; });
}

RuleResult reverseRule(const RuleContext& c)
{
    auto dims = intListAttr(c, "dimensions");
    if (!dims)
        return RuleResult::invalid("reverse: missing dimensions");
    std::vector<int64_t> rev = *dims;
    return pointwiseOver(c, c.result(0), [rev](int64_t d) {
        return std::find(rev.begin(), rev.end(), d) != rev.end() ? FactorKind::Permutation : FactorKind::PassThrough;
    });
}

/// all_gather and reduce_scatter: pointwise but for the dimension `dimAttr` names, which
/// changes size and so is one operand factor and one result factor, both needing replication.
RuleResult resizedDimRule(const RuleContext& c, const char* opLabel, const char* dimAttr)
{
    auto d = intAttr(c, dimAttr);
    if (!d || !inRange(*d, c.operand(0)))
        return RuleResult::invalid(std::string(opLabel) + ": missing or invalid " + dimAttr);
    OpShardingRuleBuilder b = c.builder();
    pointwiseExcept(b, c.operand(0), {*d});
    b.addFactor(OpShardingRuleBuilder::repeat(*d, c.operandShapes.size()), {}, c.operand(0)[static_cast<size_t>(*d)],
                FactorKind::NeedReplication);
    b.addFactor({}, OpShardingRuleBuilder::repeat(*d, c.resultShapes.size()), c.result(0)[static_cast<size_t>(*d)],
                FactorKind::NeedReplication);
    return RuleResult::created(b.build());
}

RuleResult allGatherRule(const RuleContext& c) { return resizedDimRule(c, "all_gather", "all_gather_dim"); }

RuleResult allToAllRule(const RuleContext& c)
{
    auto s = intAttr(c, "split_dimension");
    auto cd = intAttr(c, "concat_dimension");
    if (!s || !cd || !inRange(*s, c.operand(0)) || !inRange(*cd, c.operand(0)))
        return RuleResult::invalid("all_to_all: missing or invalid split/concat dimension");
    OpShardingRuleBuilder b = c.builder();
    pointwiseExcept(b, c.operand(0), {*s, *cd});
    size_t no = c.operandShapes.size(), nr = c.resultShapes.size();
    b.addFactor(OpShardingRuleBuilder::repeat(*s, no), {}, c.operand(0)[static_cast<size_t>(*s)],
                FactorKind::NeedReplication);
    b.addFactor({}, OpShardingRuleBuilder::repeat(*s, nr), c.result(0)[static_cast<size_t>(*s)],
                FactorKind::NeedReplication);
    if (*cd != *s) {
        b.addFactor(OpShardingRuleBuilder::repeat(*cd, no), {}, c.operand(0)[static_cast<size_t>(*cd)],
                    FactorKind::NeedReplication);
        b.addFactor({}, OpShardingRuleBuilder::repeat(*cd, nr), c.result(0)[static_cast<size_t>(*cd)],
                    FactorKind::NeedReplication);
    }
    return RuleResult::created(b.build());
}

RuleResult reduceScatterRule(const RuleContext& c) { return resizedDimRule(c, "reduce_scatter", "scatter_dimension"); }

RuleResult rngBitGeneratorRule(const RuleContext& c)
{
    if (c.operandShapes.size() != 1 || c.resultShapes.size() != 2)
        return RuleResult::invalid("rng_bit_generator expects 1 operand and 2 results");
    OpShardingRuleBuilder b = c.builder();
    const Shape& state = c.operand(0);
    for (int64_t d = 0; d < static_cast<int64_t>(state.size()); ++d)
        b.addFactor({d}, {d, kNullDim}, state[static_cast<size_t>(d)], FactorKind::NeedReplication, true);
    const Shape& out = c.result(1);
    for (int64_t d = 0; d < static_cast<int64_t>(out.size()); ++d)
        b.addFactor({kNullDim}, {kNullDim, d}, out[static_cast<size_t>(d)]);
    return RuleResult::created(b.build());
}

} // namespace shardx::rules
