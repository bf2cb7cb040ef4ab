// OpShardingRuleBuilder: factor creation and the final size-1 fill.
#include "core/rules/OpShardingRuleBuilder.h"

#include <algorithm>
#include <utility>

namespace shardx {

OpShardingRuleBuilder::OpShardingRuleBuilder(std::vector<Shape> operandShapes, std::vector<Shape> resultShapes)
    : m_operandShapes(std::move(operandShapes)), m_resultShapes(std::move(resultShapes))
{
    for (const Shape& s : m_operandShapes)
        m_rule.operands.emplace_back(s.size());
    for (const Shape& s : m_resultShapes)
        m_rule.results.emplace_back(s.size());
}

OpShardingRuleBuilder OpShardingRuleBuilder::fromTypes(const std::vector<ir::Type>& operandTypes,
                                                       const std::vector<ir::Type>& resultTypes)
{
    auto shapes = [](const std::vector<ir::Type>& types) {
        std::vector<Shape> out;
        for (const ir::Type& t : types)
            out.push_back(t.isRankedTensor() ? t.shape() : Shape{});
        return out;
    };
    return OpShardingRuleBuilder(shapes(operandTypes), shapes(resultTypes));
}

int64_t OpShardingRuleBuilder::newFactor(int64_t size, FactorKind kind, bool blocked)
{
    int64_t f = m_rule.numFactors();
    m_rule.factorSizes.push_back(size);
    switch (kind) {
    case FactorKind::Reduction: m_rule.reductionFactors.push_back(f); break;
    case FactorKind::NeedReplication: m_rule.needReplicationFactors.push_back(f); break;
    case FactorKind::Permutation: m_rule.permutationFactors.push_back(f); break;
    case FactorKind::PassThrough: break;
    }
    if (blocked)
        m_rule.blockedPropagationFactors.push_back(f);
    return f;
}

void OpShardingRuleBuilder::appendTo(TensorFactorMapping& map, int64_t dim, int64_t factor, int64_t size)
{
    if (dim == kNullDim || dim < 0 || dim >= static_cast<int64_t>(map.size()))
        return;
    DimFactors& d = map[static_cast<size_t>(dim)];
    if (size == 1 && !d.empty())
        return;
    d.push_back(factor);
}

int64_t OpShardingRuleBuilder::addFactor(const std::vector<int64_t>& operandDims,
                                         const std::vector<int64_t>& resultDims, int64_t size, FactorKind kind,
                                         bool blocked)
{
    int64_t f = newFactor(size, kind, blocked);
    for (size_t i = 0; i < operandDims.size() && i < m_rule.operands.size(); ++i)
        appendTo(m_rule.operands[i], operandDims[i], f, size);
    for (size_t i = 0; i < resultDims.size() && i < m_rule.results.size(); ++i)
        appendTo(m_rule.results[i], resultDims[i], f, size);
    return f;
}

int64_t OpShardingRuleBuilder::addFactorAllTensors(int64_t dim, int64_t size, FactorKind kind, bool blocked)
{
    int64_t f = newFactor(size, kind, blocked);
    for (auto* maps : {&m_rule.operands, &m_rule.results})
        for (TensorFactorMapping& map : *maps)
            if (!map.empty() && dim >= 0 && dim < static_cast<int64_t>(map.size()))
                map[static_cast<size_t>(dim)].push_back(f);
    return f;
}

void OpShardingRuleBuilder::addPointwise(const Shape& shape, const std::function<FactorKind(int64_t)>& kindOf,
                                         const std::function<bool(int64_t)>& blockedOf)
{
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
        addFactorAllTensors(d, shape[static_cast<size_t>(d)], kindOf ? kindOf(d) : FactorKind::PassThrough,
                            blockedOf ? blockedOf(d) : false);
}

void OpShardingRuleBuilder::addPointwiseWithMismatch(const Shape& inShape, const Shape& outShape,
                                                     FactorKind mismatchKind, bool blockMismatch)
{
    for (size_t d = 0; d < inShape.size(); ++d) {
        int64_t outSize = d < outShape.size() ? outShape[d] : inShape[d];
        if (inShape[d] == outSize)
            addFactorAllTensors(static_cast<int64_t>(d), inShape[d]);
        else
            addFactorAllTensors(static_cast<int64_t>(d), inShape[d], mismatchKind, blockMismatch);
    }
}

OpShardingRule OpShardingRuleBuilder::build()
{
    OpShardingRule rule = std::move(m_rule); // rules are built for every op: no copy
    m_rule = OpShardingRule{};
    for (auto* maps : {&rule.operands, &rule.results})
        for (TensorFactorMapping& map : *maps)
            for (DimFactors& d : map)
                if (d.empty()) {
                    d.push_back(rule.numFactors());
                    rule.factorSizes.push_back(1);
                }
    for (auto* list : {&rule.reductionFactors, &rule.needReplicationFactors, &rule.permutationFactors,
                       &rule.blockedPropagationFactors}) {
        std::sort(list->begin(), list->end());
        list->erase(std::unique(list->begin(), list->end()), list->end());
    }
    return rule;
}

} // namespace shardx
