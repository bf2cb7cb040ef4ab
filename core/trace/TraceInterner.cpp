// TraceInterner: content hashing and pooling of the shared parts of trace steps.
#include "core/trace/TraceInterner.h"

#include <initializer_list>
#include <string_view>

namespace shardx {

namespace {

constexpr uint64_t kSeed = 0x9e3779b97f4a7c15ULL;

inline void mix(uint64_t& h, uint64_t v) { h ^= v + kSeed + (h << 6) + (h >> 2); }

inline void mix(uint64_t& h, const std::string& s) { mix(h, std::hash<std::string_view>{}(s)); }

void mixAxes(uint64_t& h, const std::vector<AxisRef>& axes)
{
    mix(h, axes.size());
    for (const AxisRef& a : axes)
        mix(h, traceHash(a));
}

void mixMapping(uint64_t& h, const TensorFactorMapping& m)
{
    mix(h, m.size());
    for (const DimFactors& d : m) {
        mix(h, d.size());
        for (int64_t f : d)
            mix(h, static_cast<uint64_t>(f));
    }
}

void mixTable(uint64_t& h, const TensorFactorShardings& t)
{
    mix(h, t.factors.size());
    for (const auto& [f, fs] : t.factors) {
        mix(h, static_cast<uint64_t>(f));
        mixAxes(h, fs.axes);
        mixAxes(h, fs.overflowAxes);
        mix(h, (fs.closed ? 1u : 0u) | (fs.minorMost ? 2u : 0u));
    }
    mixAxes(h, t.replicated);
    mixAxes(h, t.unreduced);
    mix(h, static_cast<uint64_t>(t.unreducedKind) << 1 | (t.hasSharding ? 1u : 0u));
}

/// The hash of a rule's mappings (the lists one after the other) and factor sizes: a TraceRule
/// and the OpShardingRule it was made from hash alike.
uint64_t hashRule(std::initializer_list<const std::vector<TensorFactorMapping>*> lists,
                  const std::vector<int64_t>& factorSizes)
{
    uint64_t h = 4;
    size_t count = 0;
    for (const auto* list : lists)
        count += list->size();
    mix(h, count);
    for (const auto* list : lists)
        for (const auto& m : *list)
            mixMapping(h, m);
    mix(h, factorSizes.size());
    for (int64_t s : factorSizes)
        mix(h, static_cast<uint64_t>(s));
    return h;
}

bool ruleEquals(const TraceRule& a, const OpShardingRule& b)
{
    if (a.factorSizes != b.factorSizes || a.mappings.size() != b.operands.size() + b.results.size())
        return false;
    for (size_t i = 0; i < b.operands.size(); ++i)
        if (a.mappings[i] != b.operands[i])
            return false;
    for (size_t i = 0; i < b.results.size(); ++i)
        if (a.mappings[b.operands.size() + i] != b.results[i])
            return false;
    return true;
}

/// Finds an entry of `pool` equal to `x` under `hash` in `index`, or appends `make()`.
template <typename Pool, typename X, typename Eq, typename Make>
int intern(std::unordered_multimap<uint64_t, int>& index, Pool& pool, uint64_t hash, const X& x, Eq eq, Make make)
{
    auto [lo, hi] = index.equal_range(hash);
    for (auto it = lo; it != hi; ++it)
        if (eq(pool[static_cast<size_t>(it->second)], x))
            return it->second;
    const int id = static_cast<int>(pool.size());
    pool.push_back(make());
    index.emplace(hash, id);
    return id;
}

} // namespace

uint64_t traceHash(const AxisRef& a) { return hashAxisRef(a); }

uint64_t traceHash(const TensorSharding& s) { return hashSharding(s); }

uint64_t traceHash(const ShardingProjection& p)
{
    uint64_t h = 2;
    mix(h, p.operands.size());
    for (const auto& t : p.operands)
        mixTable(h, t);
    mix(h, p.results.size());
    for (const auto& t : p.results)
        mixTable(h, t);
    return h;
}

uint64_t traceHash(const std::vector<FactorDecision>& ds)
{
    uint64_t h = 3;
    mix(h, ds.size());
    for (const FactorDecision& d : ds) {
        mix(h, static_cast<uint64_t>(d.factor));
        mix(h, static_cast<uint64_t>(d.direction));
        mixAxes(h, d.compatible);
        mixAxes(h, d.result);
        mix(h, d.truncations.size());
        for (const AxisTruncation& t : d.truncations) {
            mix(h, traceHash(t.axis));
            mix(h, t.replacedBy ? traceHash(*t.replacedBy) : 0);
            mix(h, static_cast<uint64_t>(t.reason));
            mix(h, static_cast<uint64_t>(t.tensor));
            mix(h, static_cast<uint64_t>(t.otherFactor));
        }
        mix(h, d.expandedTensors.size());
        for (int t : d.expandedTensors)
            mix(h, static_cast<uint64_t>(t));
        mix(h, static_cast<uint64_t>(d.sourceTensor));
        mix(h, static_cast<uint64_t>(d.sourceSize));
        mix(h, static_cast<uint64_t>(d.order));
    }
    return h;
}

uint64_t traceHash(const OpShardingRule& r) { return hashRule({&r.operands, &r.results}, r.factorSizes); }

uint64_t traceHash(const TraceRule& r) { return hashRule({&r.mappings}, r.factorSizes); }

TraceInterner::TraceInterner(TraceData& data) : m_data(&data)
{
    for (size_t i = 0; i < data.shardings.size(); ++i)
        m_shardings.emplace(traceHash(data.shardings[i]), static_cast<int>(i));
    for (size_t i = 0; i < data.rules.size(); ++i)
        m_rules.emplace(traceHash(data.rules[i]), static_cast<int>(i));
    for (size_t i = 0; i < data.tables.size(); ++i)
        m_tables.emplace(traceHash(data.tables[i]), static_cast<int>(i));
    for (size_t i = 0; i < data.decisionSets.size(); ++i)
        m_decisions.emplace(traceHash(data.decisionSets[i]), static_cast<int>(i));
}

int TraceInterner::sharding(const TensorSharding& s)
{
    return intern(
        m_shardings, m_data->shardings, traceHash(s), s,
        [](const TensorSharding& a, const TensorSharding& b) { return a == b; }, [&] { return s; });
}

int TraceInterner::rule(const OpShardingRule& r)
{
    return intern(m_rules, m_data->rules, traceHash(r), r, ruleEquals, [&] {
        TraceRule t;
        t.mappings = r.operands;
        t.mappings.insert(t.mappings.end(), r.results.begin(), r.results.end());
        t.factorSizes = r.factorSizes;
        return t;
    });
}

int TraceInterner::rule(const TraceRule& r)
{
    return intern(
        m_rules, m_data->rules, traceHash(r), r, [](const TraceRule& a, const TraceRule& b) { return a == b; },
        [&] { return r; });
}

int TraceInterner::tables(const ShardingProjection& p)
{
    return intern(
        m_tables, m_data->tables, traceHash(p), p,
        [](const ShardingProjection& a, const ShardingProjection& b) { return a == b; }, [&] { return p; });
}

int TraceInterner::decisions(const std::vector<FactorDecision>& d)
{
    return intern(
        m_decisions, m_data->decisionSets, traceHash(d), d,
        [](const std::vector<FactorDecision>& a, const std::vector<FactorDecision>& b) { return a == b; },
        [&] { return d; });
}

} // namespace shardx
