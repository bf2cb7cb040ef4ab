// String spellings shared by every layer.
#include "core/support/StringUtil.h"

#include <cstdio>

namespace shardx {

std::string quoteString(const std::string& s)
{
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '\\') {
            out += "\\\\"; // MLIR's printEscapedString keeps a backslash as `\\`
        } else if (c == '"' || c < 0x20 || c >= 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\%02X", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    out += '"';
    return out;
}

bool isBareIdentifier(const std::string& s)
{
    if (s.empty())
        return false;
    auto isStart = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
    if (!isStart(s[0]))
        return false;
    for (char c : s) {
        bool ok = isStart(c) || (c >= '0' && c <= '9') || c == '$' || c == '.';
        if (!ok)
            return false;
    }
    return true;
}

std::string symbolRefString(const std::string& name)
{
    return isBareIdentifier(name) ? "@" + name : "@" + quoteString(name);
}

size_t invalidUtf8Offset(std::string_view s)
{
    size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        // The length of the sequence and the range of its second byte (Unicode 15, table 3-7).
        size_t n = 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            n = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 3;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 4;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            return i;
        }
        if (i + n > s.size())
            return i;
        const auto second = static_cast<unsigned char>(s[i + 1]);
        if (second < lo || second > hi)
            return i;
        for (size_t k = 2; k < n; ++k)
            if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80)
                return i;
        i += n;
    }
    return std::string_view::npos;
}

} // namespace shardx
