// Rules (RulesInternal.h): dot, dot_general and convolution.
#include <algorithm>

#include "core/rules/RulesInternal.h"

namespace shardx::rules {

RuleResult dotRule(const RuleContext& c)
{
    if (c.operandShapes.size() != 2 || c.resultShapes.size() != 1)
        return RuleResult::invalid("dot expects 2 operands and 1 result");
    const Shape& lhs = c.operand(0);
    const Shape& rhs = c.operand(1);
    if (lhs.empty() || rhs.empty() || lhs.size() > 2 || rhs.size() > 2)
        return RuleResult::invalid("dot operands must have rank 1 or 2");
    OpShardingRuleBuilder b = c.builder();
    int64_t outDim = 0;
    if (lhs.size() == 2)
        b.addFactor({0, kNullDim}, {outDim++}, lhs[0]);
    if (rhs.size() == 2)
        b.addFactor({kNullDim, 1}, {outDim++}, rhs[1]);
    b.addFactor({static_cast<int64_t>(lhs.size()) - 1, 0}, {kNullDim}, lhs.back(), FactorKind::Reduction);
    return RuleResult::created(b.build());
}

RuleResult dotGeneralRule(const RuleContext& c)
{
    if (c.operandShapes.size() != 2 || c.resultShapes.size() != 1)
        return RuleResult::invalid("dot_general expects 2 operands and 1 result");
    std::string err;
    auto dn = stablehlo::dotDimensionNumbers(c.op, &err);
    if (!dn)
        return RuleResult::invalid("dot_general: cannot read dot_dimension_numbers: " + err);
    const Shape& lhs = c.operand(0);
    const Shape& rhs = c.operand(1);
    auto valid = [](const std::vector<int64_t>& dims, const Shape& s) {
        return std::all_of(dims.begin(), dims.end(), [&](int64_t d) { return inRange(d, s); });
    };
    if (!valid(dn->lhsBatching, lhs) || !valid(dn->lhsContracting, lhs) || !valid(dn->rhsBatching, rhs) ||
        !valid(dn->rhsContracting, rhs))
        return RuleResult::invalid("dot_general: dimension number out of range");
    OpShardingRuleBuilder b = c.builder();
    int64_t outDim = 0;
    for (size_t k = 0; k < dn->lhsBatching.size(); ++k)
        b.addFactor({dn->lhsBatching[k], dn->rhsBatching[k]}, {outDim++}, lhs[static_cast<size_t>(dn->lhsBatching[k])]);
    auto isFree = [](int64_t d, const std::vector<int64_t>& a, const std::vector<int64_t>& b2) {
        return std::find(a.begin(), a.end(), d) == a.end() && std::find(b2.begin(), b2.end(), d) == b2.end();
    };
    for (int64_t d = 0; d < static_cast<int64_t>(lhs.size()); ++d)
        if (isFree(d, dn->lhsBatching, dn->lhsContracting))
            b.addFactor({d, kNullDim}, {outDim++}, lhs[static_cast<size_t>(d)]);
    for (int64_t d = 0; d < static_cast<int64_t>(rhs.size()); ++d)
        if (isFree(d, dn->rhsBatching, dn->rhsContracting))
            b.addFactor({kNullDim, d}, {outDim++}, rhs[static_cast<size_t>(d)]);
    for (size_t k = 0; k < dn->lhsContracting.size(); ++k)
        b.addFactor({dn->lhsContracting[k], dn->rhsContracting[k]}, {kNullDim},
                    lhs[static_cast<size_t>(dn->lhsContracting[k])], FactorKind::Reduction);
    return RuleResult::created(b.build());
}

RuleResult convolutionRule(const RuleContext& c)
{
    if (c.operandShapes.size() != 2 || c.resultShapes.size() != 1)
        return RuleResult::invalid("convolution expects 2 operands and 1 result");
    std::string err;
    auto dn = stablehlo::convDimensionNumbers(c.op, &err);
    if (!dn)
        return RuleResult::invalid("convolution: cannot read dimension_numbers: " + err);
    const Shape& in = c.operand(0);
    const Shape& ker = c.operand(1);
    const Shape& out = c.result(0);
    if (!inRange(dn->inputBatch, in) || !inRange(dn->inputFeature, in) || !inRange(dn->kernelInputFeature, ker) ||
        !inRange(dn->kernelOutputFeature, ker) || !inRange(dn->outputBatch, out) || !inRange(dn->outputFeature, out) ||
        dn->inputSpatial.size() != dn->kernelSpatial.size() || dn->inputSpatial.size() != dn->outputSpatial.size())
        return RuleResult::invalid("convolution: dimension numbers do not match the operand ranks");
    int64_t batchGroups = intAttr(c, "batch_group_count").value_or(1);
    int64_t featureGroups = intAttr(c, "feature_group_count").value_or(1);
    auto sz = [](const Shape& s, int64_t d) { return s[static_cast<size_t>(d)]; };

    OpShardingRuleBuilder b = c.builder();
    if (batchGroups > 1)
        b.addFactor({dn->inputBatch, dn->kernelOutputFeature}, {dn->outputFeature}, batchGroups);
    b.addFactor({dn->inputBatch, kNullDim}, {dn->outputBatch}, sz(out, dn->outputBatch));
    if (!c.conservative) {
        for (size_t k = 0; k < dn->inputSpatial.size(); ++k) {
            int64_t inD = dn->inputSpatial[k], kerD = dn->kernelSpatial[k], outD = dn->outputSpatial[k];
            if (!inRange(inD, in) || !inRange(kerD, ker) || !inRange(outD, out))
                return RuleResult::invalid("convolution: spatial dimension out of range");
            int64_t numWindows = sz(out, outD), windowSize = sz(ker, kerD), rem = sz(in, inD);
            auto addCount = [&] {
                int64_t s = std::min(rem, numWindows);
                if (s > 1) {
                    b.addFactor({inD, kNullDim}, {outD}, s, FactorKind::Permutation);
                    rem /= s;
                }
            };
            auto addWindow = [&] {
                int64_t s = std::min(rem, windowSize);
                if (s > 1) {
                    b.addFactor({inD, kerD}, {kNullDim}, s, FactorKind::Reduction);
                    rem /= s;
                }
            };
            if (numWindows >= windowSize) {
                addCount();
                addWindow();
            } else {
                addWindow();
                addCount();
            }
        }
    }
    if (featureGroups > 1)
        b.addFactor({dn->inputFeature, dn->kernelOutputFeature}, {dn->outputFeature}, featureGroups);
    b.addFactor({dn->inputFeature, dn->kernelInputFeature}, {kNullDim}, sz(ker, dn->kernelInputFeature),
                FactorKind::Reduction);
    int64_t groups = std::max<int64_t>(1, batchGroups * featureGroups);
    int64_t outFeature = sz(out, dn->outputFeature) / groups;
    if (outFeature > 1)
        b.addFactor({kNullDim, dn->kernelOutputFeature}, {dn->outputFeature}, outFeature);
    return RuleResult::created(b.build());
}

} // namespace shardx::rules
