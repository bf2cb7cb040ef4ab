// OpSlotMap: a flat open-addressing map from op pointers to worklist slots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardx::ir {
class Op;
}

namespace shardx {

/// Maps `ir::Op*` to a slot index, with linear probing in one flat array (no per-entry
/// allocation, one cache line per lookup): the propagation worklist's membership index.
class OpSlotMap {
public:
    /// Prepares room for `n` entries without rehashing.
    void reserve(size_t n)
    {
        size_t cap = 16;
        while (cap < n * 2)
            cap *= 2;
        if (cap > m_entries.size())
            rehash(cap);
    }
    void clear()
    {
        for (Entry& e : m_entries)
            e = Entry{};
        m_size = 0;
        m_used = 0;
    }
    bool contains(const ir::Op* op) const { return find(op) != nullptr; }
    /// Slot of `op`, or nullptr.
    const size_t* find(const ir::Op* op) const
    {
        if (m_entries.empty())
            return nullptr;
        const size_t mask = m_entries.size() - 1;
        for (size_t i = hash(op) & mask;; i = (i + 1) & mask) {
            const Entry& e = m_entries[i];
            if (e.key == op)
                return &e.slot;
            if (e.key == nullptr)
                return nullptr;
        }
    }
    /// Inserts or overwrites the slot of `op` (not nullptr).
    void insert(const ir::Op* op, size_t slot)
    {
        if ((m_used + 1) * 10 > m_entries.size() * 7)
            rehash(m_size * 2 + 1 > m_entries.size() / 2 ? m_entries.size() * 2 : m_entries.size());
        const size_t mask = m_entries.size() - 1;
        Entry* tomb = nullptr;
        for (size_t i = hash(op) & mask;; i = (i + 1) & mask) {
            Entry& e = m_entries[i];
            if (e.key == op) {
                e.slot = slot;
                return;
            }
            if (e.key == tombstone() && !tomb)
                tomb = &e;
            if (e.key == nullptr) {
                Entry& target = tomb ? *tomb : e;
                if (!tomb)
                    ++m_used;
                target.key = op;
                target.slot = slot;
                ++m_size;
                return;
            }
        }
    }
    /// Removes `op`; returns whether it was present.
    bool erase(const ir::Op* op)
    {
        if (m_entries.empty())
            return false;
        const size_t mask = m_entries.size() - 1;
        for (size_t i = hash(op) & mask;; i = (i + 1) & mask) {
            Entry& e = m_entries[i];
            if (e.key == op) {
                e.key = tombstone();
                --m_size;
                return true;
            }
            if (e.key == nullptr)
                return false;
        }
    }
    size_t size() const { return m_size; }

private:
    struct Entry {
        const ir::Op* key = nullptr;
        size_t slot = 0;
    };
    static const ir::Op* tombstone() { return reinterpret_cast<const ir::Op*>(uintptr_t{1}); }
    static size_t hash(const ir::Op* op)
    {
        auto x = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(op));
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33;
        return static_cast<size_t>(x);
    }
    void rehash(size_t cap)
    {
        if (cap < 16)
            cap = 16;
        std::vector<Entry> old;
        old.swap(m_entries);
        m_entries.assign(cap, Entry{});
        m_size = 0;
        m_used = 0;
        for (const Entry& e : old)
            if (e.key && e.key != tombstone())
                insert(e.key, e.slot);
    }

    std::vector<Entry> m_entries; ///< power-of-two size
    size_t m_size = 0;            ///< live entries
    size_t m_used = 0;            ///< live entries and tombstones
};

} // namespace shardx
