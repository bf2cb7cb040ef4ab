// Rules of slicing, padding, concatenation, reductions, windows, sort, fft and triangular_solve.
#include <algorithm>

#include "core/rules/RulesInternal.h"

namespace shardx::rules {

namespace {

bool contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

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

RuleResult sortRule(const RuleContext& c)
{
    const Shape& s = c.operand(0);
    int64_t rank = static_cast<int64_t>(s.size());
    int64_t dim = intAttr(c, "dimension").value_or(-1);
    if (dim < 0)
        dim += rank;
    if (!inRange(dim, s))
        return RuleResult::invalid("sort: invalid dimension");
    bool othersOne = true;
    for (int64_t d = 0; d < rank; ++d)
        if (d != dim && s[static_cast<size_t>(d)] != 1)
            othersOne = false;
    OpShardingRuleBuilder b = c.builder();
    for (int64_t d = 0; d < rank; ++d) {
        if (d == dim)
            b.addFactorAllTensors(d, s[static_cast<size_t>(d)], FactorKind::NeedReplication, othersOne);
        else
            b.addFactorAllTensors(d, s[static_cast<size_t>(d)]);
    }
    return RuleResult::created(b.build());
}

RuleResult fftRule(const RuleContext& c)
{
    const Shape& in = c.operand(0);
    const Shape& out = c.result(0);
    auto lengths = intListAttr(c, "fft_length");
    if (!lengths || in.size() != out.size() || lengths->size() > in.size())
        return RuleResult::invalid("fft: missing fft_length or mismatched ranks");
    int64_t rank = static_cast<int64_t>(in.size());
    int64_t firstFft = rank - static_cast<int64_t>(lengths->size());
    OpShardingRuleBuilder b = c.builder();
    for (int64_t d = 0; d < rank; ++d) {
        size_t ud = static_cast<size_t>(d);
        if (d < firstFft)
            b.addFactor({d}, {d}, in[ud]);
        else if (d == rank - 1)
            b.addFactor({d}, {d}, in[ud], FactorKind::NeedReplication, in[ud] != out[ud]);
        else
            b.addFactor({d}, {d}, in[ud], FactorKind::NeedReplication);
    }
    return RuleResult::created(b.build());
}

RuleResult triangularSolveRule(const RuleContext& c)
{
    if (c.operandShapes.size() != 2 || c.resultShapes.size() != 1)
        return RuleResult::invalid("triangular_solve expects 2 operands and 1 result");
    const Shape& a = c.operand(0);
    const Shape& bShape = c.operand(1);
    int64_t rank = static_cast<int64_t>(a.size());
    if (rank < 2 || bShape.size() != a.size())
        return RuleResult::invalid("triangular_solve: operands must have the same rank >= 2");
    bool leftSide = stablehlo::boolValue(c.attr("left_side")).value_or(false);
    std::string transpose = stablehlo::enumKeyword(c.attr("transpose_a"));
    bool transposed = transpose == "TRANSPOSE" || transpose == "ADJOINT";
    const int64_t d1 = rank - 2, d2 = rank - 1;
    auto sz = [](const Shape& s, int64_t d) { return s[static_cast<size_t>(d)]; };

    OpShardingRuleBuilder b = c.builder();
    for (int64_t d = 0; d < d1; ++d)
        b.addFactorAllTensors(d, sz(a, d));
    const FactorKind nr = FactorKind::NeedReplication;
    if (leftSide) {
        int64_t nonContracting = transposed ? d2 : d1, contracting = transposed ? d1 : d2;
        b.addFactor({nonContracting, d1}, {kNullDim}, sz(a, nonContracting), nr);
        b.addFactor({kNullDim, d2}, {d2}, sz(bShape, d2), nr);
        b.addFactor({contracting, kNullDim}, {d1}, sz(a, contracting), nr);
    } else {
        int64_t nonContracting = transposed ? d1 : d2, contracting = transposed ? d2 : d1;
        b.addFactor({kNullDim, d1}, {d1}, sz(bShape, d1), nr);
        b.addFactor({nonContracting, d2}, {kNullDim}, sz(a, nonContracting), nr);
        b.addFactor({contracting, kNullDim}, {d2}, sz(a, contracting), nr);
    }
    return RuleResult::created(b.build());
}

} // namespace shardx::rules
