// TaggedSlotIndex: the slots of an open-addressing hash table whose entries are kept elsewhere.
#pragma once

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardx {

/// Finds entries, numbered 0, 1, 2... and stored by the caller, by their hash: linear probing in
/// one array of 32-bit slots. A slot holds its entry's number + 1 in its low bits and, above them,
/// the top bits of the entry's hash (its tag). A probe that meets another entry is told apart by
/// the tag almost always, without reading that entry: in tables of 100k to millions of names (SSA
/// names while reading, the trace's strings) reading it was a cache miss each.
///
/// The caller keeps the load at most one half (entries fewer than half the slots) and rebuilds
/// with reset() and place() when it grows.
class TaggedSlotIndex {
public:
    static constexpr uint32_t kAbsent = UINT32_MAX;
    /// Where a probe ended: the entry found, or kAbsent and the empty slot where it would go.
    struct Probe {
        size_t slot = 0;
        uint32_t tag = 0;
        uint32_t entry = kAbsent;
    };

    bool empty() const { return m_slots.empty(); }
    size_t slotCount() const { return m_slots.size(); }
    /// Empties the index and gives it `slotCount` slots: a power of two, from 2 to 2^31.
    void reset(size_t slotCount)
    {
        assert(slotCount >= 2 && slotCount <= (size_t{1} << 31) && std::has_single_bit(slotCount));
        m_slots.assign(slotCount, 0);
        m_bits = static_cast<unsigned>(std::countr_zero(slotCount));
    }
    /// The entry of hash `hash` for which `same(entry)` holds; `same` is asked only of entries whose
    /// tag matches. The index must not be empty.
    template <typename Same> Probe find(size_t hash, Same&& same) const
    {
        const size_t mask = m_slots.size() - 1;
        const uint32_t tag = tagOf(hash);
        for (size_t i = hash & mask;; i = (i + 1) & mask) {
            const uint32_t slot = m_slots[i];
            if (!slot)
                return Probe{i, tag, kAbsent};
            if ((slot >> m_bits) == tag) {
                const uint32_t entry = (slot & entryMask()) - 1;
                if (same(entry))
                    return Probe{i, tag, entry};
            }
        }
    }
    /// Puts `entry` where `probe` (a find() that found nothing, with no insertion since) ended.
    void insert(const Probe& probe, uint32_t entry) { m_slots[probe.slot] = probe.tag << m_bits | (entry + 1); }
    /// Puts `entry`, known not to be there (rebuilding after reset()).
    void place(size_t hash, uint32_t entry)
    {
        const size_t mask = m_slots.size() - 1;
        size_t i = hash & mask;
        while (m_slots[i])
            i = (i + 1) & mask;
        m_slots[i] = tagOf(hash) << m_bits | (entry + 1);
    }
    /// Asks the processor for the slot where a probe for `hash` starts (the index must not be empty).
    void prefetch(size_t hash) const { __builtin_prefetch(&m_slots[hash & (m_slots.size() - 1)]); }

private:
    /// Entries are fewer than half the slots: an entry's number + 1 fits in m_bits bits, and the
    /// tag is the hash's top 32 - m_bits bits (the slot's index comes from the bottom ones).
    uint32_t tagOf(size_t hash) const { return static_cast<uint32_t>(static_cast<uint64_t>(hash) >> (32 + m_bits)); }
    uint32_t entryMask() const { return (uint32_t{1} << m_bits) - 1; }

    std::vector<uint32_t> m_slots; ///< tag << m_bits | (entry + 1); 0: empty
    unsigned m_bits = 0;
};

} // namespace shardx
