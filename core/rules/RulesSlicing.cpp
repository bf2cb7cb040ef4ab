// Rules (RulesInternal.h): the ops that cut, pad or join along dimensions (concatenate, slice, pad, dynamic_slice,
// dynamic_update_slice).
#include "core/rules/RulesInternal.h"

namespace shardx::rules {

RuleResult concatenateRule(const RuleContext& c)
{
    auto dim = intAttr(c, "dimension");
    const Shape& out = c.result(0);
    if (!dim || !inRange(*dim, out))
        return RuleResult::invalid("concatenate: missing or invalid dimension");
    bool allSlices = true, anySlice = false, sameSource = true;
    const ir::Value* source = nullptr;
    for (const ir::Value* v : c.op.operands()) {
        const ir::Op* def = v->definingOp();
        bool isSlice = def && def->name() == "stablehlo.slice" && def->numOperands() == 1;
        allSlices = allSlices && isSlice;
        anySlice = anySlice || isSlice;
        const ir::Value* src = isSlice ? def->operand(0) : v;
        if (source && src != source)
            sameSource = false;
        source = src;
    }
    FactorKind concatKind =
        allSlices || (sameSource && anySlice) ? FactorKind::Permutation : FactorKind::NeedReplication;
    OpShardingRuleBuilder b = c.builder();
    for (int64_t d = 0; d < static_cast<int64_t>(out.size()); ++d) {
        if (d == *dim) {
            if (!c.conservative)
                b.addFactorAllTensors(d, out[static_cast<size_t>(d)], concatKind);
            continue;
        }
        b.addFactorAllTensors(d, out[static_cast<size_t>(d)]);
    }
    return RuleResult::created(b.build());
}

RuleResult sliceRule(const RuleContext& c)
{
    if (c.operand(0).size() != c.result(0).size())
        return RuleResult::invalid("slice: operand and result ranks differ");
    OpShardingRuleBuilder b = c.builder();
    b.addPointwiseWithMismatch(c.operand(0), c.result(0), FactorKind::Permutation, c.conservative);
    return RuleResult::created(b.build());
}

RuleResult padRule(const RuleContext& c)
{
    if (c.operandShapes.size() != 2 || c.operand(0).size() != c.result(0).size())
        return RuleResult::invalid("pad: expects an operand and a padding value of matching ranks");
    OpShardingRuleBuilder b = c.builder();
    b.addPointwiseWithMismatch(c.operand(0), c.result(0), FactorKind::Permutation, c.conservative);
    return RuleResult::created(b.build());
}

RuleResult dynamicSliceRule(const RuleContext& c)
{
    const Shape& in = c.operand(0);
    const Shape& out = c.result(0);
    if (in.size() != out.size())
        return RuleResult::invalid("dynamic_slice: operand and result ranks differ");
    OpShardingRuleBuilder b = c.builder();
    for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d) {
        int64_t s = in[static_cast<size_t>(d)];
        if (s == out[static_cast<size_t>(d)])
            b.addFactor({d}, {d}, s);
        else
            b.addFactor({d}, {d}, s, FactorKind::NeedReplication, true);
    }
    return RuleResult::created(b.build());
}

RuleResult dynamicUpdateSliceRule(const RuleContext& c)
{
    if (c.operandShapes.size() < 2)
        return RuleResult::invalid("dynamic_update_slice expects an operand and an update");
    const Shape& in = c.operand(0);
    const Shape& upd = c.operand(1);
    if (in.size() != upd.size())
        return RuleResult::invalid("dynamic_update_slice: operand and update ranks differ");
    bool constantIndices = true;
    for (unsigned k = 2; k < c.op.numOperands(); ++k) {
        const ir::Op* def = c.op.operand(k)->definingOp();
        if (!def || (def->name() != "stablehlo.constant" && def->name() != "sdy.constant"))
            constantIndices = false;
    }
    OpShardingRuleBuilder b = c.builder();
    for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d) {
        int64_t s = in[static_cast<size_t>(d)], u = upd[static_cast<size_t>(d)];
        if (s == u) {
            b.addFactor({d, d}, {d}, s);
        } else {
            b.addFactor({d, kNullDim}, {d}, s);
            b.addFactor({kNullDim, d}, {kNullDim}, u,
                        constantIndices ? FactorKind::PassThrough : FactorKind::NeedReplication);
        }
    }
    return RuleResult::created(b.build());
}

} // namespace shardx::rules
