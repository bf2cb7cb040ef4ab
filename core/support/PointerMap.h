// PointerMap: a flat open-addressing hash map keyed by object addresses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace shardx {

/// Maps `const K*` to `V` with linear probing in one flat array: a lookup touches one or two
/// cache lines and an insertion allocates nothing until the table grows. Used where a map is
/// keyed by ops or values of a 100k-op module (the propagation worklist, the trace recorder's
/// indices), where node-based maps spend their time in malloc and cache misses. Erased keys
/// leave tombstones, cleared when the table is rebuilt.
template <typename K, typename V> class PointerMap {
public:
    /// The value of `key`, or nullptr.
    const V* find(const K* key) const
    {
        const size_t i = slotOf(key);
        return i == kNone ? nullptr : &m_entries[i].value;
    }
    V* find(const K* key)
    {
        const size_t i = slotOf(key);
        return i == kNone ? nullptr : &m_entries[i].value;
    }
    bool contains(const K* key) const { return slotOf(key) != kNone; }
    /// Sets the value of `key` (not nullptr), replacing an earlier one.
    void insert(const K* key, V value)
    {
        if ((m_used + 1) * 4 > m_entries.size() * 3)
            rehash(m_entries.empty() ? 16 : m_size * 4 >= m_entries.size() ? m_entries.size() * 2 : m_entries.size());
        const size_t mask = m_entries.size() - 1;
        Entry* tomb = nullptr;
        for (size_t i = hash(key) & mask;; i = (i + 1) & mask) {
            Entry& e = m_entries[i];
            if (e.key == key) {
                e.value = std::move(value);
                return;
            }
            if (e.key == tombstone() && !tomb)
                tomb = &e;
            if (!e.key) {
                Entry& target = tomb ? *tomb : e;
                if (!tomb)
                    ++m_used;
                target.key = key;
                target.value = std::move(value);
                ++m_size;
                return;
            }
        }
    }
    /// Removes `key`, returning its value if it was there.
    std::optional<V> erase(const K* key)
    {
        const size_t i = slotOf(key);
        if (i == kNone)
            return std::nullopt;
        Entry& e = m_entries[i];
        std::optional<V> value = std::move(e.value);
        e.key = tombstone();
        --m_size;
        return value;
    }
    size_t size() const { return m_size; }
    /// Makes room for `n` keys without growing.
    void reserve(size_t n)
    {
        size_t cap = 16;
        while (cap * 3 < n * 4 + 4)
            cap *= 2;
        if (cap > m_entries.size())
            rehash(cap);
    }
    void clear()
    {
        for (Entry& e : m_entries)
            e = Entry{};
        m_size = m_used = 0;
    }

private:
    static constexpr size_t kNone = SIZE_MAX;
    struct Entry {
        const K* key = nullptr; ///< nullptr empty, tombstone() erased
        V value{};
    };

    static const K* tombstone() { return reinterpret_cast<const K*>(uintptr_t{1}); }
    static size_t hash(const K* key)
    {
        uint64_t h = reinterpret_cast<uintptr_t>(key);
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
        return static_cast<size_t>(h);
    }
    size_t slotOf(const K* key) const
    {
        if (m_entries.empty() || !key || key == tombstone())
            return kNone;
        const size_t mask = m_entries.size() - 1;
        for (size_t i = hash(key) & mask;; i = (i + 1) & mask) {
            if (m_entries[i].key == key)
                return i;
            if (!m_entries[i].key)
                return kNone;
        }
    }
    void rehash(size_t capacity)
    {
        std::vector<Entry> old;
        old.swap(m_entries);
        m_entries.assign(capacity, Entry{});
        m_size = m_used = 0;
        for (Entry& e : old)
            if (e.key && e.key != tombstone())
                insert(e.key, std::move(e.value));
    }

    std::vector<Entry> m_entries; ///< size a power of two
    size_t m_size = 0;            ///< live keys
    size_t m_used = 0;            ///< live keys and tombstones
};

} // namespace shardx
