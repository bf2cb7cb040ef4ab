// LayoutMetrics: default advances and text widths.
#include "core/layout/LayoutMetrics.h"

namespace shardx::layout {

LayoutMetrics::LayoutMetrics()
{
    // A 12 px sans-serif: narrow punctuation, wide capitals; bold ~8% wider.
    for (size_t c = 0; c < advance.size(); ++c) {
        float w = 7.0f;
        if (c == ' ' || c == '.' || c == ',' || c == ':' || c == ';' || c == '\'' || c == '|' || c == 'i' || c == 'l' ||
            c == 'j' || c == '!')
            w = 3.5f;
        else if (c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == 'f' || c == 't' ||
                 c == 'r' || c == '"')
            w = 4.5f;
        else if (c >= 'A' && c <= 'Z')
            w = 8.0f;
        else if (c == 'm' || c == 'w' || c == '%' || c == '@')
            w = 10.0f;
        advance[c] = w;
        boldAdvance[c] = w * 1.08f;
    }
}

double LayoutMetrics::textWidth(std::string_view text, bool bold) const
{
    const auto& table = bold ? boldAdvance : advance;
    double w = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c < 128) {
            w += table[c];
            continue;
        }
        // One advance per UTF-8 sequence: skip its continuation bytes.
        w += otherAdvance;
        while (i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80)
            ++i;
    }
    return w;
}

} // namespace shardx::layout
