// PointerIndex: a flat open-addressing map from object addresses to small integer indices.
#pragma once

#include <cstdint>
#include <vector>

namespace shardx {

/// Maps pointers to non-negative ints. Linear probing in one flat array: a lookup touches one
/// or two cache lines and an insertion allocates nothing until the table grows, which matters
/// when a recorder indexes every value of a 100k-op module. Erased keys leave tombstones.
template <typename T> class PointerIndex {
public:
    /// The index stored for `key`, or -1.
    int find(const T* key) const
    {
        if (m_slots.empty() || !key)
            return -1;
        for (size_t i = slotOf(key);; i = (i + 1) & (m_slots.size() - 1)) {
            const Slot& s = m_slots[i];
            if (s.key == key)
                return s.value;
            if (!s.key && s.value != kTombstone)
                return -1;
        }
    }
    bool contains(const T* key) const { return find(key) >= 0; }
    /// Sets `key` to `value` (>= 0), replacing an earlier value.
    void insert(const T* key, int value)
    {
        if (!key)
            return;
        if ((m_used + 1) * 4 > m_slots.size() * 3)
            grow();
        size_t tomb = SIZE_MAX;
        size_t i = slotOf(key);
        for (;; i = (i + 1) & (m_slots.size() - 1)) {
            Slot& s = m_slots[i];
            if (s.key == key) {
                s.value = value;
                return;
            }
            if (!s.key && s.value == kTombstone && tomb == SIZE_MAX)
                tomb = i;
            if (!s.key && s.value != kTombstone)
                break;
        }
        if (tomb != SIZE_MAX)
            i = tomb;
        else
            ++m_used;
        m_slots[i] = Slot{key, value};
        ++m_size;
    }
    /// Removes `key`; returns its index or -1.
    int erase(const T* key)
    {
        if (m_slots.empty() || !key)
            return -1;
        for (size_t i = slotOf(key);; i = (i + 1) & (m_slots.size() - 1)) {
            Slot& s = m_slots[i];
            if (s.key == key) {
                const int v = s.value;
                s = Slot{nullptr, kTombstone};
                --m_size;
                return v;
            }
            if (!s.key && s.value != kTombstone)
                return -1;
        }
    }
    size_t size() const { return m_size; }
    /// Makes room for `n` keys without growing.
    void reserve(size_t n)
    {
        size_t cap = 16;
        while (cap * 3 < n * 4 + 4)
            cap *= 2;
        if (cap > m_slots.size())
            rehash(cap);
    }

private:
    static constexpr int kTombstone = -2;
    struct Slot {
        const T* key = nullptr;
        int value = -1; ///< -1 empty, kTombstone erased (with a null key)
    };

    size_t slotOf(const T* key) const
    {
        uint64_t h = reinterpret_cast<uintptr_t>(key);
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
        return static_cast<size_t>(h) & (m_slots.size() - 1);
    }
    /// Doubles the table, or only clears the tombstones when few keys are live.
    void grow()
    {
        if (m_slots.empty())
            rehash(16);
        else
            rehash(m_size * 4 >= m_slots.size() ? m_slots.size() * 2 : m_slots.size());
    }
    void rehash(size_t capacity)
    {
        std::vector<Slot> old;
        old.swap(m_slots);
        m_slots.assign(capacity, Slot{});
        m_used = m_size = 0;
        for (const Slot& s : old)
            if (s.key)
                insert(s.key, s.value);
    }

    std::vector<Slot> m_slots; ///< size is a power of two
    size_t m_used = 0;         ///< live keys plus tombstones
    size_t m_size = 0;         ///< live keys
};

} // namespace shardx
