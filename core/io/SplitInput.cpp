// SplitInput: cutting a file on `// -----` lines and joining the parts' outputs.
#include "core/io/SplitInput.h"

namespace shardx::io {

namespace {

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/// Calls `fn(line, begin, next)` for every line of `text`: `line` without its `\n`, `begin` its
/// offset, `next` the offset after its `\n` (text.size() for a last line without one). Stops when
/// `fn` returns false.
template <typename Fn> void forEachLine(std::string_view text, Fn&& fn)
{
    size_t begin = 0;
    while (begin < text.size()) {
        size_t nl = text.find('\n', begin);
        size_t end = nl == std::string_view::npos ? text.size() : nl;
        size_t next = nl == std::string_view::npos ? text.size() : nl + 1;
        if (!fn(text.substr(begin, end - begin), begin, next))
            return;
        begin = next;
    }
}

} // namespace

bool isSplitMarkerLine(std::string_view line)
{
    size_t first = 0;
    while (first < line.size() && isBlank(line[first]))
        ++first;
    size_t last = line.size();
    while (last > first && isBlank(line[last - 1]))
        --last;
    return line.substr(first, last - first) == kSplitMarker;
}

std::vector<InputPart> splitInputFile(std::string_view text)
{
    std::vector<InputPart> parts;
    if (text.empty())
        return parts;
    size_t partBegin = 0;
    int partLine = 1;
    int line = 0;
    forEachLine(text, [&](std::string_view lineText, size_t begin, size_t next) {
        ++line;
        if (isSplitMarkerLine(lineText)) {
            parts.push_back(InputPart{text.substr(partBegin, begin - partBegin), partLine});
            partBegin = next;
            partLine = line + 1;
        }
        return true;
    });
    // The text after the last marker (empty when the file ends with one) is the last part.
    parts.push_back(InputPart{text.substr(partBegin), partLine});
    return parts;
}

bool hasSplitMarker(std::string_view text)
{
    bool found = false;
    forEachLine(text, [&](std::string_view line, size_t, size_t) {
        found = isSplitMarkerLine(line);
        return !found;
    });
    return found;
}

std::string joinSplitOutputs(const std::vector<std::string>& modules)
{
    std::string out;
    for (size_t i = 0; i < modules.size(); ++i) {
        if (i)
            out += "\n" + std::string(kSplitMarker) + "\n";
        if (!modules[i].empty())
            out += modules[i] + "\n";
    }
    return out;
}

} // namespace shardx::io
