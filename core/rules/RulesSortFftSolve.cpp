// Rules (RulesInternal.h): sort, fft and triangular_solve, whose operative dimensions need replication.
#include "core/rules/RulesInternal.h"

namespace shardx::rules {

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
