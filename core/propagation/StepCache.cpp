// StepCache (StepCache.h): outcomes of factor propagation by their inputs.
#include "core/propagation/StepCache.h"

namespace shardx {

namespace {

/// Beyond this many outcomes the cache starts over (a module whose steps rarely repeat would
/// otherwise keep one per step).
constexpr size_t kMaxStepOutcomes = 16384;

inline void stepCacheMix(uint64_t& h, uint64_t v) { h = (h ^ v) * 0x100000001b3ull + (h >> 29); }

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
    stepCacheMix(h, std::hash<std::string>{}(*key.meshName));
    stepCacheMix(h, key.shardings->size());
    for (const TensorSharding* s : *key.shardings)
        stepCacheMix(h, s ? hashSharding(*s) : 0x5bd1e995u);
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
    e->mesh = key.mesh;
    e->meshName = *key.meshName;
    e->shardings.reserve(key.shardings->size());
    for (const TensorSharding* s : *key.shardings)
        e->shardings.push_back(s ? std::optional<TensorSharding>(*s) : std::nullopt);
    e->directions = *key.directions;
    e->aggressive = key.aggressive;
    e->conservative = key.conservative;
    e->elementwise = key.elementwise;
    e->outcome = std::move(outcome);
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
