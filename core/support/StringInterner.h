// StringInterner.h - a process-wide set of strings with stable addresses: what interned names (attribute names, op
// names, file names) point to, so that equal names compare as equal pointers.
#pragma once

#include <deque>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace shardx {

/// Thread-safe: lookups share a lock, an insertion takes it alone. Make one with `new` and never destroy it
/// (interned names are read by objects freed at exit, after static destructors); reachable from a static pointer, so
/// leak checkers do not report it.
class StringInterner {
public:
    /// The one string equal to `s`, added on first use. The address never changes.
    const std::string* intern(std::string_view s)
    {
        {
            std::shared_lock lock(m_mutex);
            auto it = m_index.find(s);
            if (it != m_index.end())
                return it->second;
        }
        std::unique_lock lock(m_mutex);
        auto it = m_index.find(s);
        if (it != m_index.end())
            return it->second;
        const std::string& stored = m_storage.emplace_back(s);
        m_index.emplace(std::string_view(stored), &stored);
        return &stored;
    }

private:
    std::shared_mutex m_mutex;
    std::deque<std::string> m_storage;                                // stable addresses
    std::unordered_map<std::string_view, const std::string*> m_index; // views of m_storage
};

} // namespace shardx
