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

} // namespace shardx
