// Rules (RulesInternal.h): reshape, with compound factors for split, merged and mixed dimensions (SDY.md 4.12).
#include <numeric>

#include "core/rules/RulesInternal.h"

namespace shardx::rules {

namespace {

/// The size of a factor emitted on the side that lags behind (`small` < `large`).
int64_t divergedFactor(int64_t n, int64_t small, int64_t large, int64_t g)
{
    if (large % small == 0 && n % (large / small) == 0)
        return large / small;
    if (n > g)
        return n / g;
    return n;
}

} // namespace

RuleResult reshapeRule(const RuleContext& c)
{
    if (c.operandShapes.size() != 1 || c.resultShapes.size() != 1)
        return RuleResult::invalid("reshape expects 1 operand and 1 result");
    const Shape& in = c.operand(0);
    const Shape& out = c.result(0);
    int64_t inElems = std::accumulate(in.begin(), in.end(), int64_t(1), std::multiplies<>());
    int64_t outElems = std::accumulate(out.begin(), out.end(), int64_t(1), std::multiplies<>());
    if (inElems == 0)
        return RuleResult::none("reshape of a tensor with zero elements has no sharding rule");
    if (inElems != outElems)
        return RuleResult::invalid("reshape changes the number of elements");

    OpShardingRuleBuilder b = c.builder();
    const int64_t inRank = static_cast<int64_t>(in.size()), outRank = static_cast<int64_t>(out.size());
    int64_t i = 0, o = 0;
    int64_t dIn = 1, dOut = 1, fIn = 1, fOut = 1;
    auto inSize = [&](int64_t k) { return in[static_cast<size_t>(k)]; };
    auto outSize = [&](int64_t k) { return out[static_cast<size_t>(k)]; };
    int guard = 0;
    while (i < inRank || o < outRank) {
        if (++guard > 10000)
            return RuleResult::invalid("reshape factorization did not converge");
        if (i < inRank && inSize(i) == 1) {
            b.addFactor({i}, {kNullDim}, 1);
            ++i;
            continue;
        }
        if (o < outRank && outSize(o) == 1) {
            b.addFactor({kNullDim}, {o}, 1);
            ++o;
            continue;
        }
        if (i < inRank && dIn == fIn)
            dIn *= inSize(i);
        if (o < outRank && dOut == fOut)
            dOut *= outSize(o);
        int64_t nIn = dIn / fIn, nOut = dOut / fOut;
        int64_t g = std::gcd(nIn, nOut);
        int64_t inDim = i < inRank ? i : kNullDim;
        int64_t outDim = o < outRank ? o : kNullDim;
        if (fIn == fOut) {
            if (g > 1) {
                b.addFactor({inDim}, {outDim}, g);
                fIn *= g;
                fOut *= g;
            } else {
                b.addFactor({inDim}, {kNullDim}, nIn);
                fIn *= nIn;
                b.addFactor({kNullDim}, {outDim}, nOut);
                fOut *= nOut;
            }
        } else if (fIn < fOut) {
            int64_t f = divergedFactor(nIn, fIn, fOut, g);
            b.addFactor({inDim}, {kNullDim}, f);
            fIn *= f;
        } else {
            int64_t f = divergedFactor(nOut, fOut, fIn, g);
            b.addFactor({kNullDim}, {outDim}, f);
            fOut *= f;
        }
        if (i < inRank && dIn == fIn)
            ++i;
        if (o < outRank && dOut == fOut)
            ++o;
    }
    return RuleResult::created(b.build());
}

} // namespace shardx::rules
