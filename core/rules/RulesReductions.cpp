// Rules (RulesInternal.h): reduce, reduce_window and select_and_scatter.
#include <algorithm>

#include "core/rules/RulesInternal.h"

namespace shardx::rules {

namespace {

/// Window dims as (size, stride, padLow, padHigh), defaults 1/1/0/0 when attributes are absent.
struct WindowDims {
    std::vector<int64_t> sizes, strides, padding;
    bool trivial(size_t d) const
    {
        bool sizeOne = d >= sizes.size() || sizes[d] == 1;
        bool strideOne = d >= strides.size() || strides[d] == 1;
        bool noPad = 2 * d + 1 >= padding.size() || (padding[2 * d] == 0 && padding[2 * d + 1] == 0);
        return sizeOne && strideOne && noPad;
    }
};

WindowDims readWindow(const RuleContext& c, size_t rank)
{
    WindowDims w;
    w.sizes = intListAttr(c, "window_dimensions").value_or(std::vector<int64_t>{});
    w.strides = intListAttr(c, "window_strides").value_or(std::vector<int64_t>{});
    w.padding = intListAttr(c, "padding", static_cast<int64_t>(2 * rank)).value_or(std::vector<int64_t>{});
    return w;
}

} // namespace

RuleResult reduceRule(const RuleContext& c)
{
    size_t numOperands = c.operandShapes.size();
    if (numOperands == 0 || numOperands % 2 != 0 || c.resultShapes.size() != numOperands / 2)
        return RuleResult::invalid("reduce expects N inputs, N inits and N results");
    const size_t n = numOperands / 2;
    auto dims = intListAttr(c, "dimensions");
    if (!dims)
        return RuleResult::invalid("reduce: missing dimensions");
    const Shape& in = c.operand(0);
    OpShardingRuleBuilder b = c.builder();
    int64_t outDim = 0;
    for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d) {
        std::vector<int64_t> ops(n, d);
        ops.resize(2 * n, kNullDim);
        if (contains(*dims, d)) {
            b.addFactor(ops, {}, in[static_cast<size_t>(d)], FactorKind::Reduction);
        } else {
            b.addFactor(ops, OpShardingRuleBuilder::repeat(outDim, n), in[static_cast<size_t>(d)]);
            ++outDim;
        }
    }
    return RuleResult::created(b.build());
}

RuleResult reduceWindowRule(const RuleContext& c)
{
    const Shape& out = c.result(0);
    WindowDims w = readWindow(c, out.size());
    OpShardingRuleBuilder b = c.builder();
    for (int64_t d = 0; d < static_cast<int64_t>(out.size()); ++d) {
        if (w.trivial(static_cast<size_t>(d)))
            b.addFactorAllTensors(d, out[static_cast<size_t>(d)]);
        else
            b.addFactorAllTensors(d, out[static_cast<size_t>(d)], FactorKind::Permutation, c.conservative);
    }
    return RuleResult::created(b.build());
}

RuleResult selectAndScatterRule(const RuleContext& c)
{
    if (c.operandShapes.size() != 3 || c.resultShapes.size() != 1)
        return RuleResult::invalid("select_and_scatter expects 3 operands and 1 result");
    const Shape& operand = c.operand(0);
    const Shape& source = c.operand(1);
    const Shape& out = c.result(0);
    if (operand.size() != out.size() || source.size() != out.size())
        return RuleResult::invalid("select_and_scatter: ranks differ");
    WindowDims w = readWindow(c, out.size());
    OpShardingRuleBuilder b = c.builder();
    for (int64_t d = 0; d < static_cast<int64_t>(out.size()); ++d) {
        size_t ud = static_cast<size_t>(d);
        if (w.trivial(ud)) {
            b.addFactor({d, d, kNullDim}, {d}, out[ud]);
        } else {
            b.addFactor({kNullDim, d, kNullDim}, {kNullDim}, source[ud], FactorKind::NeedReplication, c.conservative);
            b.addFactor({d, kNullDim, kNullDim}, {d}, operand[ud], FactorKind::Permutation, c.conservative);
        }
    }
    return RuleResult::created(b.build());
}

} // namespace shardx::rules
