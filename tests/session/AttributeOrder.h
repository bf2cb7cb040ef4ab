// Test helpers: MLIR text with the entries of its attribute dictionaries, or its location alias definitions, in
// another order (MLIR sorts the former by name and resolves the latter wherever they are, so the module is the same).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace shardx::testing {

namespace detail {

/// One past the end of the string literal that starts at `i` (`text[i] == '"'`).
inline size_t skipString(std::string_view text, size_t i)
{
    for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
            ++i;
    return std::min(i + 1, text.size());
}

inline bool opens(char c) { return c == '(' || c == '[' || c == '{' || c == '<'; }

/// `text[i]` closes a bracket (a `>` after `-` is an arrow, `->`).
inline bool closes(std::string_view text, size_t i)
{
    const char c = text[i];
    return c == ')' || c == ']' || c == '}' || (c == '>' && !(i > 0 && text[i - 1] == '-'));
}

/// The bracket closing the one at `open`, or npos.
inline size_t matchingBracket(std::string_view text, size_t open)
{
    int depth = 0;
    for (size_t i = open; i < text.size(); ++i) {
        if (text[i] == '"') {
            i = skipString(text, i) - 1;
        } else if (opens(text[i])) {
            ++depth;
        } else if (closes(text, i) && --depth == 0) {
            return i;
        }
    }
    return std::string_view::npos;
}

/// The comma-separated entries of `body` (commas inside brackets and strings do not separate), trimmed.
inline std::vector<std::string_view> topLevelEntries(std::string_view body)
{
    std::vector<std::string_view> entries;
    int depth = 0;
    size_t begin = 0;
    auto push = [&](size_t end) {
        std::string_view e = body.substr(begin, end - begin);
        while (!e.empty() && e.front() == ' ')
            e.remove_prefix(1);
        while (!e.empty() && e.back() == ' ')
            e.remove_suffix(1);
        entries.push_back(e);
    };
    for (size_t i = 0; i < body.size(); ++i) {
        if (body[i] == '"')
            i = skipString(body, i) - 1;
        else if (opens(body[i]))
            ++depth;
        else if (closes(body, i))
            --depth;
        else if (body[i] == ',' && depth == 0) {
            push(i);
            begin = i + 1;
        }
    }
    push(body.size());
    return entries;
}

/// `name = value` at the top level of an entry (an `=` inside brackets or strings does not count).
inline bool hasTopLevelEquals(std::string_view entry)
{
    int depth = 0;
    for (size_t i = 0; i < entry.size(); ++i) {
        if (entry[i] == '"')
            i = skipString(entry, i) - 1;
        else if (opens(entry[i]))
            ++depth;
        else if (closes(entry, i))
            --depth;
        else if (entry[i] == '=' && depth == 0)
            return true;
    }
    return false;
}

} // namespace detail

/// `text` with the entries of every attribute dictionary of two or more entries (op attributes, properties `<{...}>`,
/// function argument and result attributes, `attributes {...}` of functions and modules, dictionaries nested in
/// attribute values) in reverse order, each entry's text kept. What is not a dictionary is left alone: regions (a
/// `{` ending its line), braces inside `<...>` (dimension shardings, factor sizes of sharding rules) and brace lists
/// without `name = value` entries (`manual_axes={"a", "b"}`, the dimension lists of sdy collectives).
inline std::string reverseAttributeDictionaries(std::string_view text)
{
    using namespace detail;
    std::string out;
    std::vector<char> stack;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {
            const size_t end = skipString(text, i);
            out.append(text.substr(i, end - i));
            i = end - 1;
            continue;
        }
        if (c == '{') {
            size_t next = text.find_first_not_of(' ', i + 1);
            const bool region = next == std::string_view::npos || text[next] == '\n';
            const bool properties = i >= 2 && text[i - 1] == '<' && text[i - 2] == ' ';
            const bool insideAngles = std::find(stack.begin(), stack.end(), '<') != stack.end();
            const size_t close = matchingBracket(text, i);
            if (!region && (properties || !insideAngles) && close != std::string_view::npos) {
                std::vector<std::string_view> entries = topLevelEntries(text.substr(i + 1, close - i - 1));
                if (entries.size() >= 2 && std::any_of(entries.begin(), entries.end(), hasTopLevelEquals)) {
                    std::reverse(entries.begin(), entries.end());
                    out += '{';
                    for (size_t e = 0; e < entries.size(); ++e)
                        out += (e ? ", " : "") + reverseAttributeDictionaries(entries[e]);
                    out += '}';
                    i = close;
                    continue;
                }
            }
        }
        if (opens(c))
            stack.push_back(c);
        else if (closes(text, i) && !stack.empty())
            stack.pop_back();
        out += c;
    }
    return out;
}

/// `text` with its location alias definitions (`#loc3 = loc(...)` lines) in reverse order: MLIR resolves a location
/// alias wherever it is defined, so their order does not matter. Other lines stay where they are.
inline std::string reverseLocationAliases(std::string_view text)
{
    std::vector<std::string_view> lines;
    for (size_t begin = 0; begin < text.size();) {
        size_t end = text.find('\n', begin);
        end = end == std::string_view::npos ? text.size() : end + 1;
        lines.push_back(text.substr(begin, end - begin));
        begin = end;
    }
    auto isAlias = [](std::string_view l) {
        return l.size() > 4 && l.substr(0, 4) == "#loc" && l.find(" = loc(") != std::string_view::npos &&
               l.back() == '\n';
    };
    std::vector<size_t> aliasLines;
    for (size_t i = 0; i < lines.size(); ++i)
        if (isAlias(lines[i]))
            aliasLines.push_back(i);
    std::vector<std::string_view> reordered = lines;
    for (size_t k = 0; k < aliasLines.size(); ++k)
        reordered[aliasLines[k]] = lines[aliasLines[aliasLines.size() - 1 - k]];
    std::string out;
    for (std::string_view l : reordered)
        out += l;
    return out;
}

} // namespace shardx::testing
