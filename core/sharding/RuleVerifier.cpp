// OpShardingRule verification (SDY.md 1.8).
#include "core/sharding/RuleVerifier.h"

#include <algorithm>
#include <set>

namespace shardx {

namespace {

std::optional<std::string> verifyMappings(const OpShardingRule& rule, const std::vector<TensorFactorMapping>& maps,
                                          const std::vector<TypeShape>& types, const std::string& what,
                                          std::vector<bool>& used)
{
    if (maps.size() != types.size())
        return "number of " + what + "s and mappings must match: " + std::to_string(types.size()) +
               " != " + std::to_string(maps.size());
    for (size_t t = 0; t < maps.size(); ++t) {
        const std::string prefix = what + " " + std::to_string(t) + " - ";
        const TypeShape& type = types[t];
        if (!type.hasStaticShape())
            return prefix + "expected a ranked tensor with a static shape";
        const TensorFactorMapping& map = maps[t];
        if (static_cast<int>(map.size()) != type.rank())
            return prefix + "mapping rank must match: " + std::to_string(map.size()) +
                   " != " + std::to_string(type.rank());
        std::set<int64_t> seenFactors;
        for (const DimFactors& dim : map) {
            if (dim.empty())
                return prefix + "dim mapping must have at least one factor";
            for (int64_t f : dim) {
                if (f < 0 || f >= rule.numFactors())
                    return prefix +
                           "expecting factor indices to be within 0<=...<num_factors; received: " + std::to_string(f) +
                           ", num_factors: " + std::to_string(rule.numFactors());
                if (!seenFactors.insert(f).second)
                    return prefix + "cannot reuse factors for the same tensor value";
                used[static_cast<size_t>(f)] = true;
            }
            if (dim.size() > 1)
                for (int64_t f : dim)
                    if (rule.factorSizes[static_cast<size_t>(f)] == 1)
                        return prefix + "dim mapping can't have a factor of size 1 if there are multiple factors";
        }
    }
    return std::nullopt;
}

std::optional<std::string> verifyIndexList(const std::vector<int64_t>& list, int64_t numFactors)
{
    for (size_t i = 0; i < list.size(); ++i) {
        if (list[i] < 0 || list[i] >= numFactors)
            return "index must be less than " + std::to_string(numFactors) + ", got: " + std::to_string(list[i]);
        if (i > 0 && list[i] == list[i - 1])
            return std::string("indices of special factors must be unique");
        if (i > 0 && list[i] < list[i - 1])
            return std::string("indices of special factors must be sorted");
    }
    return std::nullopt;
}

} // namespace

std::optional<std::string> verifyOpShardingRule(const OpShardingRule& rule, const std::vector<TypeShape>& operandTypes,
                                                const std::vector<TypeShape>& resultTypes)
{
    std::vector<bool> used(static_cast<size_t>(rule.numFactors()), false);
    if (auto err = verifyMappings(rule, rule.operands, operandTypes, "operand", used))
        return err;
    if (auto err = verifyMappings(rule, rule.results, resultTypes, "result", used))
        return err;
    for (int64_t f = 0; f < rule.numFactors(); ++f)
        if (!used[static_cast<size_t>(f)])
            return "has factor " + factorName(f) + "=" + std::to_string(rule.factorSizes[static_cast<size_t>(f)]) +
                   " that isn't used in operand and result mappings";
    std::set<int64_t> special;
    for (const auto* list : {&rule.reductionFactors, &rule.needReplicationFactors, &rule.permutationFactors}) {
        if (auto err = verifyIndexList(*list, rule.numFactors()))
            return err;
        for (int64_t f : *list)
            if (!special.insert(f).second)
                return std::string("a factor can only be in one of the reduction, need replication, or permutation "
                                   "factor sets");
    }
    if (auto err = verifyIndexList(rule.blockedPropagationFactors, rule.numFactors()))
        return err;
    for (int64_t f : rule.reductionFactors)
        for (const TensorFactorMapping& map : rule.results)
            for (const DimFactors& dim : map)
                if (std::find(dim.begin(), dim.end(), f) != dim.end())
                    return "reduction factor " + factorName(f) + " appears in a result mapping";
    return std::nullopt;
}

} // namespace shardx
