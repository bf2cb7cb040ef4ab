// ProgramIds (ProgramIds.h): finding values and ops by what users type (ids, printed names,
// `loc` name scopes), for ProgramIds and for traces (findTraceValue).
#include "core/ir/ProgramIds.h"

#include <string_view>

namespace shardx::ir {

// ---- lookup by user name ---------------------------------------------------------------------

Expected<int> findByUserName(const std::string& query, size_t count, const std::function<NamedEntity(size_t)>& entity,
                             const char* what)
{
    if (query.empty())
        return Error{std::string("empty ") + what +
                         " query (use an id such as @main:%arg0, @main:%3, @main:result0, or a loc name scope)",
                     {}};
    std::string func, local = query;
    const size_t colon = query.find(':');
    if (query[0] == '@' && colon != std::string::npos) {
        func = query.substr(0, colon);
        local = query.substr(colon + 1);
    }
    auto inFunc = [&](std::string_view id) {
        return func.empty() ||
               (id.size() > func.size() && id.compare(0, func.size(), func) == 0 && id[func.size()] == ':');
    };
    auto scopeMatches = [&](std::string_view scope) {
        return !scope.empty() &&
               (scope == query || (query.size() < scope.size() && scope[scope.size() - query.size() - 1] == '/' &&
                                   scope.compare(scope.size() - query.size(), query.size(), query) == 0));
    };
    std::vector<int> hits;
    for (int tier = 0; tier < 3 && hits.empty(); ++tier)
        for (size_t i = 0; i < count; ++i) {
            const NamedEntity e = entity(i);
            bool match = false;
            if (tier == 0)
                match = e.id == query;
            else if (tier == 1)
                match = inFunc(e.id) && !e.name.empty() && (e.name == local || e.name == "%" + local);
            else
                match = scopeMatches(e.scope);
            if (match)
                hits.push_back(static_cast<int>(i));
        }
    if (hits.size() == 1)
        return hits.front();
    auto listOf = [&](const std::vector<int>& list) {
        std::string s;
        for (size_t i = 0; i < list.size() && i < 8; ++i) {
            const NamedEntity e = entity(static_cast<size_t>(list[i]));
            s += (i ? ", " : "") + std::string(e.id);
            if (!e.name.empty() && e.id.size() >= e.name.size() &&
                e.id.compare(e.id.size() - e.name.size(), e.name.size(), e.name) != 0)
                s += " (" + std::string(e.name) + ")";
        }
        if (list.size() > 8)
            s += ", ... (" + std::to_string(list.size()) + " in all)";
        return s;
    };
    if (!hits.empty())
        return Error{"'" + query + "' matches " + std::to_string(hits.size()) + " " + what + "s: " + listOf(hits), {}};
    std::vector<int> near;
    for (size_t i = 0; i < count; ++i) {
        const NamedEntity e = entity(i);
        if (!func.empty() ? inFunc(e.id)
                          : e.id.find(query) != std::string_view::npos || e.scope.find(query) != std::string_view::npos)
            near.push_back(static_cast<int>(i));
    }
    std::string msg = std::string("no ") + what + " '" + query + "'";
    if (!near.empty())
        msg += "; candidates: " + listOf(near);
    else
        msg += " (use an id such as @main:%arg0, @main:%3, @main:result0, or a loc name scope)";
    return Error{msg, {}};
}

// ---- user queries --------------------------------------------------------------------------------

Expected<int> ProgramIds::findValue(const std::string& query) const
{
    std::string q = query;
    // `@main:arg0`: the form the trace used to print.
    const size_t colon = q.find(':');
    if (!q.empty() && q[0] == '@' && colon != std::string::npos && q.compare(colon + 1, 3, "arg") == 0)
        q = q.substr(0, colon + 1) + "%" + q.substr(colon + 1);
    return findByUserName(
        q, m_values.size(),
        [this](size_t i) {
            const ProgramValue& v = m_values[i];
            return NamedEntity{v.id, v.name, scopeName(v.scope)};
        },
        "value");
}

Expected<int> ProgramIds::findOp(const std::string& query) const
{
    return findByUserName(
        query, m_ops.size(),
        [this](size_t i) {
            // An op answers to the head of its result list (`%0` for `%0:2`) as its name.
            const ProgramOp& o = m_ops[i];
            const size_t colon = o.id.find(':');
            std::string_view tail =
                colon == std::string::npos ? std::string_view(o.id) : std::string_view(o.id).substr(colon + 1);
            return NamedEntity{o.id, tail, scopeName(o.scope)};
        },
        "op");
}

} // namespace shardx::ir
