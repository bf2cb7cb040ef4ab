// JsonText: JSON text parsing with positions, a nesting limit and no exceptions.
#include "core/support/JsonText.h"

#include <algorithm>

namespace shardx {

namespace {

/// Offset of the first bracket that opens more than kMaxJsonTextDepth levels (outside strings), or npos.
size_t tooDeepOffset(std::string_view text)
{
    int depth = 0;
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonTextDepth)
                return i;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return std::string_view::npos;
}

/// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1, column 2: " head.
std::string explanation(const nlohmann::json::exception& e)
{
    std::string what = e.what();
    if (what.rfind("[json.exception", 0) != 0)
        return what;
    size_t start = what.find("] ");
    start = start == std::string::npos ? 0 : start + 2;
    if (what.compare(start, 15, "parse error at ") == 0)
        if (size_t colon = what.find(": ", start); colon != std::string::npos)
            start = colon + 2;
    return what.substr(start);
}

} // namespace

SourcePos textPosition(std::string_view text, size_t offset, const std::string& fileName)
{
    SourcePos pos{fileName, 1, 1};
    offset = std::min(offset, text.size());
    for (size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++pos.line;
            pos.col = 1;
        } else {
            ++pos.col;
        }
    }
    return pos;
}

Expected<nlohmann::json> parseJsonText(std::string_view text, const std::string& fileName)
{
    if (size_t deep = tooDeepOffset(text); deep != std::string_view::npos)
        return Error{"arrays and objects nested deeper than " + std::to_string(kMaxJsonTextDepth) + " levels",
                     textPosition(text, deep, fileName)};
    try {
        return nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& e) {
        // nlohmann's byte is the 1-based count of bytes read, the last one being the offender.
        return Error{explanation(e), textPosition(text, e.byte > 0 ? e.byte - 1 : 0, fileName)};
    } catch (const nlohmann::json::exception& e) {
        // A value the parser cannot hold (a number out of range): no position is kept.
        return Error{explanation(e), SourcePos{fileName, 1, 1}};
    }
}

} // namespace shardx
