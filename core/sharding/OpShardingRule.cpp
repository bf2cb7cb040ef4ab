// OpShardingRule: text form.
#include "core/sharding/OpShardingRule.h"

#include <initializer_list>

namespace shardx {

std::string factorName(int64_t f)
{
    if (f < 18)
        return std::string(1, static_cast<char>('i' + f));
    return "z_" + std::to_string(f - 17);
}

static std::string mappingString(const std::vector<TensorFactorMapping>& tensors)
{
    std::string s = "(";
    for (size_t t = 0; t < tensors.size(); ++t) {
        if (t)
            s += ", ";
        s += '[';
        for (size_t d = 0; d < tensors[t].size(); ++d) {
            if (d)
                s += ", ";
            for (int64_t f : tensors[t][d])
                s += factorName(f);
        }
        s += ']';
    }
    s += ')';
    return s;
}

static std::string factorListString(const char* keyword, const std::vector<int64_t>& factors)
{
    if (factors.empty())
        return {};
    std::string s = " ";
    s += keyword;
    s += "={";
    for (size_t i = 0; i < factors.size(); ++i) {
        if (i)
            s += ", ";
        s += factorName(factors[i]);
    }
    s += '}';
    return s;
}

std::string OpShardingRule::toString() const
{
    std::string s = "<" + mappingString(operands) + "->" + mappingString(results);
    if (!factorSizes.empty()) {
        s += " {";
        for (size_t f = 0; f < factorSizes.size(); ++f) {
            if (f)
                s += ", ";
            s += factorName(static_cast<int64_t>(f)) + "=" + std::to_string(factorSizes[f]);
        }
        s += '}';
    }
    s += factorListString("reduction", reductionFactors);
    s += factorListString("need_replication", needReplicationFactors);
    s += factorListString("permutation", permutationFactors);
    s += factorListString("blocked_propagation", blockedPropagationFactors);
    if (isCustom)
        s += ", custom";
    s += '>';
    return s;
}

std::string OpShardingRule::toAttrString() const { return "#sdy.op_sharding_rule" + toString(); }

uint64_t hashRule(const OpShardingRule& r)
{
    uint64_t h = 0xcbf29ce484222325ull;
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ull + (h >> 29); };
    auto mixList = [&mix](const std::vector<int64_t>& list) {
        mix(list.size());
        for (int64_t x : list)
            mix(static_cast<uint64_t>(x));
    };
    for (const std::vector<TensorFactorMapping>* tensors : {&r.operands, &r.results}) {
        mix(tensors->size());
        for (const TensorFactorMapping& t : *tensors) {
            mix(t.size());
            for (const DimFactors& d : t)
                mixList(d);
        }
    }
    for (const std::vector<int64_t>* list : {&r.factorSizes, &r.reductionFactors, &r.needReplicationFactors,
                                             &r.permutationFactors, &r.blockedPropagationFactors})
        mixList(*list);
    mix(r.isCustom ? 1 : 0);
    return h;
}

} // namespace shardx
