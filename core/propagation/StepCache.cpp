// StepCache (StepCache.h): outcomes of factor propagation by their inputs.
#include "core/propagation/StepCache.h"

#include <atomic>

namespace shardx {

namespace {

/// Beyond this many outcomes the cache starts over (a module whose steps rarely repeat would
/// otherwise keep one per step).
constexpr size_t kMaxStepOutcomes = 4096;

inline void stepCacheMix(uint64_t& h, uint64_t v) { h = (h ^ v) * 0x100000001b3ull + (h >> 29); }

/// A cheap hash of an axis list: names by length and end characters (entries are compared by
/// content, so a collision only costs a comparison).
void stepCacheMixAxes(uint64_t& h, const std::vector<AxisRef>& axes)
{
    stepCacheMix(h, axes.size());
    for (const AxisRef& a : axes) {
        const std::string& n = a.name;
        stepCacheMix(h, n.empty() ? 0
                                  : n.size() | static_cast<uint64_t>(static_cast<unsigned char>(n.front())) << 8 |
                                        static_cast<uint64_t>(static_cast<unsigned char>(n.back())) << 16);
        if (a.sub) {
            stepCacheMix(h, static_cast<uint64_t>(a.sub->preSize));
            stepCacheMix(h, static_cast<uint64_t>(a.sub->size));
        }
    }
}

uint64_t stepCacheHashSharding(const TensorSharding& s)
{
    uint64_t h = s.mesh.symbol.size();
    stepCacheMix(h, s.dims.size());
    for (const DimSharding& d : s.dims) {
        stepCacheMixAxes(h, d.axes);
        stepCacheMix(h, d.closed ? 1u : 0u);
    }
    stepCacheMixAxes(h, s.replicated);
    stepCacheMixAxes(h, s.unreduced);
    return h;
}

} // namespace

uint64_t StepCache::hashOf(const Key& key)
{
    // The rule by its address and factor sizes (rules attached to ops are shared by content, so
    // equal rules mostly share an address): a rule equal to a stored one at another address only
    // misses, since entries are compared by content.
    uint64_t h = reinterpret_cast<uintptr_t>(key.rule);
    for (int64_t size : key.rule->factorSizes)
        stepCacheMix(h, static_cast<uint64_t>(size));
    stepCacheMix(h, reinterpret_cast<uintptr_t>(key.mesh));
    stepCacheMix(h, key.meshName->size());
    stepCacheMix(h, key.shardings->size());
    for (const TensorSharding* s : *key.shardings)
        stepCacheMix(h, s ? stepCacheHashSharding(*s) : 0x5bd1e995u);
    for (PropagationDirection d : *key.directions)
        stepCacheMix(h, static_cast<uint64_t>(d) + 1);
    stepCacheMix(h, (key.aggressive ? 1u : 0u) | (key.conservative ? 2u : 0u) | (key.elementwise ? 4u : 0u));
    return h;
}

bool StepCache::matches(const Entry& e, const Key& key)
{
    if (e.mesh != key.mesh || e.aggressive != key.aggressive || e.conservative != key.conservative ||
        e.elementwise != key.elementwise || e.directions != *key.directions || e.meshName != *key.meshName)
        return false;
    const std::vector<const TensorSharding*>& shardings = *key.shardings;
    if (e.shardings.size() != shardings.size())
        return false;
    for (size_t i = 0; i < shardings.size(); ++i) {
        const std::optional<TensorSharding>& mine = e.shardings[i];
        if (mine.has_value() != (shardings[i] != nullptr) || (mine && !(*mine == *shardings[i])))
            return false;
    }
    // An attribute's rule is immutable and the entry keeps it alive: the same address is the same rule.
    if (e.ruleAttr && e.ruleAddress == key.rule)
        return true;
    return e.rule == *key.rule;
}

StepOutcome* StepCache::find(const Key& key, uint64_t hash)
{
    auto it = m_entries.find(hash);
    if (it == m_entries.end())
        return nullptr;
    for (const std::unique_ptr<Entry>& e : it->second)
        if (matches(*e, key))
            return &e->outcome;
    return nullptr;
}

StepOutcome& StepCache::insert(const Key& key, uint64_t hash, StepOutcome outcome)
{
    if (m_size >= kMaxStepOutcomes)
        clear();
    auto e = std::make_unique<Entry>();
    e->rule = *key.rule;
    if (key.ruleAttr) {
        e->ruleAttr = *key.ruleAttr;
        e->ruleAddress = key.rule;
    }
    e->mesh = key.mesh;
    e->meshName = *key.meshName;
    e->shardings.reserve(key.shardings->size());
    for (const TensorSharding* s : *key.shardings)
        e->shardings.push_back(s ? std::optional<TensorSharding>(*s) : std::nullopt);
    e->directions = *key.directions;
    e->aggressive = key.aggressive;
    e->conservative = key.conservative;
    e->elementwise = key.elementwise;
    static std::atomic<uint64_t> lastOutcomeId{0};
    e->outcome = std::move(outcome);
    e->outcome.record.outcomeId = ++lastOutcomeId;
    StepOutcome& out = e->outcome;
    m_entries[hash].push_back(std::move(e));
    ++m_size;
    return out;
}

void StepCache::clear()
{
    m_entries.clear();
    m_size = 0;
}

} // namespace shardx
