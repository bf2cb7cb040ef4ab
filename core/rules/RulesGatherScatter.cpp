// Rules (RulesInternal.h): gather and scatter (offset, batch, collapsed/inserted and index-vector dims).
#include <algorithm>

#include "core/rules/RulesInternal.h"

namespace shardx::rules {

namespace {

int64_t positionOf(const std::vector<int64_t>& v, int64_t x)
{
    auto it = std::find(v.begin(), v.end(), x);
    return it == v.end() ? -1 : static_cast<int64_t>(it - v.begin());
}

/// True if the update computation of a scatter with `numInputs` inputs combines, for every
/// input k, block arguments k and k+N with the same plain reduction op (add, multiply,
/// maximum, minimum; and/or on i1).
bool isPlainReduction(const ir::Op& scatter, size_t numInputs)
{
    if (scatter.numRegions() < 1 || scatter.region(0).empty())
        return false;
    const ir::Block& block = *scatter.region(0).blocks().front();
    if (block.numArgs() != 2 * numInputs)
        return false;
    const ir::Op* ret = block.terminator();
    if (!ret || ret->numOperands() != numInputs)
        return false;
    std::string kind;
    for (size_t k = 0; k < numInputs; ++k) {
        const ir::Op* def = ret->operand(static_cast<unsigned>(k))->definingOp();
        if (!def || def->parentBlock() != &block || def->numOperands() != 2)
            return false;
        const std::string& n = def->name();
        bool isI1 = def->result(0)->type().elementType() == "i1";
        bool ok = n == "stablehlo.add" || n == "stablehlo.multiply" || n == "stablehlo.maximum" ||
                  n == "stablehlo.minimum" || ((n == "stablehlo.and" || n == "stablehlo.or") && isI1);
        if (!ok || (!kind.empty() && kind != n))
            return false;
        kind = n;
        const ir::Value* a = def->operand(0);
        const ir::Value* b = def->operand(1);
        auto isArg = [&](const ir::Value* v, size_t idx) {
            return v->isBlockArgument() && v->ownerBlock() == &block && v->index() == idx;
        };
        if (!((isArg(a, k) && isArg(b, k + numInputs)) || (isArg(b, k) && isArg(a, k + numInputs))))
            return false;
    }
    return true;
}

} // namespace

RuleResult gatherRule(const RuleContext& c)
{
    if (c.operandShapes.size() != 2 || c.resultShapes.size() != 1)
        return RuleResult::invalid("gather expects 2 operands and 1 result");
    std::string err;
    auto dn = stablehlo::gatherDimensionNumbers(c.op, &err);
    if (!dn)
        return RuleResult::invalid("gather: cannot read dimension_numbers: " + err);
    const Shape& operand = c.operand(0);
    const Shape& indices = c.operand(1);
    const Shape& result = c.result(0);
    auto sz = [](const Shape& s, int64_t d) { return s[static_cast<size_t>(d)]; };

    OpShardingRuleBuilder b = c.builder();
    int64_t inputDim = 0, batchPos = 0;
    for (int64_t s = 0; s < static_cast<int64_t>(result.size()); ++s) {
        if (contains(dn->offsetDims, s)) {
            while (contains(dn->collapsedSliceDims, inputDim) || contains(dn->operandBatchingDims, inputDim))
                ++inputDim;
            if (!inRange(inputDim, operand))
                return RuleResult::invalid("gather: more offset dims than operand dims");
            int64_t d = inputDim++;
            if (sz(operand, d) == sz(result, s)) {
                b.addFactor({d, kNullDim}, {s}, sz(operand, d));
            } else if (sz(result, s) == 1) {
                b.addFactor({d, kNullDim}, {kNullDim}, sz(operand, d), FactorKind::Reduction);
                b.addFactor({kNullDim, kNullDim}, {s}, 1, FactorKind::NeedReplication);
            } else {
                b.addFactor({d, kNullDim}, {s}, sz(operand, d), FactorKind::NeedReplication, true);
            }
            continue;
        }
        if (batchPos == dn->indexVectorDim)
            ++batchPos;
        int64_t idxDim = batchPos++;
        if (!inRange(idxDim, indices))
            return RuleResult::invalid("gather: more batch dims than indices dims");
        int64_t k = positionOf(dn->startIndicesBatchingDims, idxDim);
        int64_t opDim = k >= 0 && k < static_cast<int64_t>(dn->operandBatchingDims.size())
                            ? dn->operandBatchingDims[static_cast<size_t>(k)]
                            : kNullDim;
        b.addFactor({opDim, idxDim}, {s}, sz(result, s));
    }
    for (int64_t d : dn->collapsedSliceDims) {
        if (!inRange(d, operand))
            return RuleResult::invalid("gather: collapsed_slice_dims out of range");
        b.addFactor({d, kNullDim}, {kNullDim}, sz(operand, d),
                    sz(operand, d) == 1 ? FactorKind::NeedReplication : FactorKind::Reduction);
    }
    if (dn->indexVectorDim < static_cast<int64_t>(indices.size()))
        b.addFactor({kNullDim, dn->indexVectorDim}, {kNullDim}, sz(indices, dn->indexVectorDim),
                    FactorKind::NeedReplication);
    return RuleResult::created(b.build());
}

RuleResult scatterRule(const RuleContext& c)
{
    size_t numOperands = c.operandShapes.size();
    if (numOperands < 3 || numOperands % 2 == 0 || c.resultShapes.size() != (numOperands - 1) / 2)
        return RuleResult::invalid("scatter expects N inputs, indices, N updates and N results");
    const size_t n = (numOperands - 1) / 2;
    std::string err;
    auto dn = stablehlo::scatterDimensionNumbers(c.op, &err);
    if (!dn)
        return RuleResult::invalid("scatter: cannot read scatter_dimension_numbers: " + err);
    const Shape& input = c.operand(0);
    const Shape& indices = c.operand(n);
    const Shape& updates = c.operand(n + 1);
    auto sz = [](const Shape& s, int64_t d) { return s[static_cast<size_t>(d)]; };

    // Per-tensor dimension lists: inputs, indices, updates (operands); inputs (results).
    auto dims = [&](int64_t inputD, int64_t idxD, int64_t updD) {
        std::vector<int64_t> ops;
        for (size_t k = 0; k < n; ++k)
            ops.push_back(inputD);
        ops.push_back(idxD);
        for (size_t k = 0; k < n; ++k)
            ops.push_back(updD);
        return ops;
    };
    auto resDims = [&](int64_t inputD) { return OpShardingRuleBuilder::repeat(inputD, n); };

    const bool plainReduction = isPlainReduction(c.op, n);
    OpShardingRuleBuilder b = c.builder();
    int64_t inputDim = 0, batchPos = 0;
    for (int64_t s = 0; s < static_cast<int64_t>(updates.size()); ++s) {
        if (contains(dn->updateWindowDims, s)) {
            while (contains(dn->insertedWindowDims, inputDim) || contains(dn->inputBatchingDims, inputDim))
                ++inputDim;
            if (!inRange(inputDim, input))
                return RuleResult::invalid("scatter: more update window dims than input dims");
            int64_t d = inputDim++;
            if (sz(input, d) == sz(updates, s)) {
                b.addFactor(dims(d, kNullDim, s), resDims(d), sz(input, d));
            } else {
                b.addFactor(dims(d, kNullDim, kNullDim), resDims(d), sz(input, d), FactorKind::NeedReplication);
                b.addFactor(dims(kNullDim, kNullDim, s), resDims(kNullDim), sz(updates, s),
                            FactorKind::NeedReplication);
            }
            continue;
        }
        if (batchPos == dn->indexVectorDim)
            ++batchPos;
        int64_t idxDim = batchPos++;
        if (!inRange(idxDim, indices))
            return RuleResult::invalid("scatter: more update scatter dims than indices dims");
        int64_t k = positionOf(dn->scatterIndicesBatchingDims, idxDim);
        int64_t inDim = k >= 0 && k < static_cast<int64_t>(dn->inputBatchingDims.size())
                            ? dn->inputBatchingDims[static_cast<size_t>(k)]
                            : kNullDim;
        FactorKind kind = FactorKind::PassThrough;
        if (inDim == kNullDim)
            kind = plainReduction ? FactorKind::Reduction : FactorKind::NeedReplication;
        b.addFactor(dims(inDim, idxDim, s), resDims(inDim), sz(updates, s), kind);
    }
    for (int64_t d : dn->insertedWindowDims) {
        if (!inRange(d, input))
            return RuleResult::invalid("scatter: inserted_window_dims out of range");
        b.addFactor(dims(d, kNullDim, kNullDim), resDims(d), sz(input, d));
    }
    if (dn->indexVectorDim < static_cast<int64_t>(indices.size()))
        b.addFactor(dims(kNullDim, dn->indexVectorDim, kNullDim), resDims(kNullDim), sz(indices, dn->indexVectorDim),
                    FactorKind::NeedReplication);
    return RuleResult::created(b.build());
}

} // namespace shardx::rules
