// MlirLexer: on-demand tokenizer of MLIR text.
#include "core/io/MlirLexer.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "core/support/StringUtil.h"

namespace shardx::io {

namespace {

bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHex(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

} // namespace

bool MlirLexer::isIdChar(char c) { return isAlpha(c) || isDigit(c) || c == '_' || c == '$' || c == '.'; }

namespace {

/// isIdChar as a table: identifiers are most of what the lexer scans.
struct IdCharTable {
    bool id[256] = {};
    bool space[256] = {};
    IdCharTable()
    {
        for (int c = 0; c < 256; ++c)
            id[c] = MlirLexer::isIdChar(static_cast<char>(c));
        for (char c : {' ', '\t', '\n', '\r', '\f', '\v'})
            space[static_cast<unsigned char>(c)] = true;
    }
};
const IdCharTable kLexerIdChars;

inline bool isIdByte(char c) { return kLexerIdChars.id[static_cast<unsigned char>(c)]; }
inline bool isLexerSpace(char c) { return kLexerIdChars.space[static_cast<unsigned char>(c)]; }

/// Whether any of the eight bytes in `w` may end the plain run of a string literal: '"', '\\', a
/// line break, NUL or a byte of 0x80 and above (the caller then steps byte by byte).
inline bool stringWordHasSpecialByte(uint64_t w)
{
    constexpr uint64_t kOnes = 0x0101010101010101ull;
    constexpr uint64_t kHigh = 0x8080808080808080ull;
    auto hasZero = [](uint64_t v) { return (v - kOnes) & ~v & kHigh; };
    return ((w & kHigh) | hasZero(w) | hasZero(w ^ (kOnes * '"')) | hasZero(w ^ (kOnes * '\\')) |
            hasZero(w ^ (kOnes * '\n'))) != 0;
}

} // namespace

MlirLexer::MlirLexer(std::string_view src) : m_src(src)
{
    m_lineStarts.reserve(src.size() / 64 + 1);
    m_lineStarts.push_back(0);
    const char* const begin = src.data();
    const char* const end = begin + src.size();
    for (const char* p = begin; p < end;) {
        const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
        if (!nl)
            break;
        p = static_cast<const char*>(nl) + 1;
        m_lineStarts.push_back(static_cast<size_t>(p - begin));
    }
}

void MlirLexer::lineCol(size_t pos, int& line, int& col) const
{
    pos = std::min(pos, m_src.size());
    const size_t lines = m_lineStarts.size();
    auto holds = [&](size_t i) { return m_lineStarts[i] <= pos && (i + 1 == lines || pos < m_lineStarts[i + 1]); };
    size_t idx;
    if (holds(m_lastLine)) {
        idx = m_lastLine;
    } else if (m_lastLine + 1 < lines && holds(m_lastLine + 1)) {
        idx = m_lastLine + 1;
    } else {
        auto it = std::upper_bound(m_lineStarts.begin(), m_lineStarts.end(), pos);
        idx = static_cast<size_t>(it - m_lineStarts.begin()) - 1;
    }
    m_lastLine = idx;
    line = static_cast<int>(idx + 1);
    col = static_cast<int>(pos - m_lineStarts[idx] + 1);
}

Token MlirLexer::lexAt(size_t pos) const
{
    const size_t n = m_src.size();
    // Skip whitespace and comments.
    while (pos < n) {
        char c = m_src[pos];
        if (isLexerSpace(c)) {
            ++pos;
        } else if (c == '/' && pos + 1 < n && m_src[pos + 1] == '/') {
            while (pos < n && m_src[pos] != '\n')
                ++pos;
        } else {
            break;
        }
    }
    Token t;
    t.begin = pos;
    auto finish = [&](Token::Kind k, size_t end) {
        t.kind = k;
        t.end = end;
        t.text = std::string_view(m_src.data() + t.begin, end - t.begin); // begin <= end <= size
        return t;
    };
    if (pos >= n)
        return finish(Token::Kind::Eof, n);
    char c = m_src[pos];
    auto at = [&](size_t i) { return i < n ? m_src[i] : '\0'; };
    auto idEnd = [&](size_t i, bool allowDash) {
        while (i < n && (isIdByte(m_src[i]) || (allowDash && m_src[i] == '-')))
            ++i;
        return i;
    };
    switch (c) {
    case '(': return finish(Token::Kind::LParen, pos + 1);
    case ')': return finish(Token::Kind::RParen, pos + 1);
    case '[': return finish(Token::Kind::LSquare, pos + 1);
    case ']': return finish(Token::Kind::RSquare, pos + 1);
    case '{':
        if (at(pos + 1) == '-' && at(pos + 2) == '#')
            return finish(Token::Kind::FileMetaBegin, pos + 3);
        return finish(Token::Kind::LBrace, pos + 1);
    case '}': return finish(Token::Kind::RBrace, pos + 1);
    case '<': return finish(Token::Kind::Less, pos + 1);
    case '>': return finish(Token::Kind::Greater, pos + 1);
    case ',': return finish(Token::Kind::Comma, pos + 1);
    case ':': return finish(Token::Kind::Colon, pos + 1);
    case '=': return finish(Token::Kind::Equal, pos + 1);
    case '?': return finish(Token::Kind::Question, pos + 1);
    case '*': return finish(Token::Kind::Star, pos + 1);
    case '+': return finish(Token::Kind::Plus, pos + 1);
    case '|': return finish(Token::Kind::Vbar, pos + 1);
    case '-':
        if (at(pos + 1) == '>')
            return finish(Token::Kind::Arrow, pos + 2);
        return finish(Token::Kind::Minus, pos + 1);
    case '"': {
        size_t i = pos + 1;
        bool plain = true; // only bytes 1..127 (escaped ones too): nothing the check below could refuse
        auto notPlain = [](char b) { return b == '\0' || static_cast<unsigned char>(b) >= 0x80; };
        // Plain bytes (nothing the loop below stops at or notes) eight at a time.
        while (i + 8 <= n) {
            uint64_t w;
            std::memcpy(&w, m_src.data() + i, 8);
            if (stringWordHasSpecialByte(w))
                break;
            i += 8;
        }
        while (i < n && m_src[i] != '"') {
            const char b = m_src[i];
            if (b == '\n')
                return finish(Token::Kind::Error, i);
            if (notPlain(b))
                plain = false;
            if (b == '\\') {
                ++i;
                if (i < n && notPlain(m_src[i]))
                    plain = false;
            }
            ++i;
        }
        if (i >= n)
            return finish(Token::Kind::Error, n);
        // What a string holds is text: well-formed UTF-8 without NULs (other bytes are written as `\XX`).
        if (!plain) {
            const std::string_view body = m_src.substr(pos + 1, i - pos - 1);
            const size_t bad = std::min(body.find('\0'), invalidUtf8Offset(body));
            if (bad != std::string_view::npos)
                return finish(Token::Kind::Error, pos + 1 + bad);
        }
        return finish(Token::Kind::String, i + 1);
    }
    case '%': {
        size_t e = idEnd(pos + 1, true);
        if (e == pos + 1)
            return finish(Token::Kind::Error, pos + 1);
        return finish(Token::Kind::PercentId, e);
    }
    case '^': {
        size_t e = idEnd(pos + 1, true);
        if (e == pos + 1)
            return finish(Token::Kind::Error, pos + 1);
        return finish(Token::Kind::CaretId, e);
    }
    case '@': {
        if (at(pos + 1) == '"') {
            Token s = lexAt(pos + 1);
            if (s.kind != Token::Kind::String || s.begin != pos + 1)
                return finish(Token::Kind::Error, s.end);
            return finish(Token::Kind::AtId, s.end);
        }
        size_t e = idEnd(pos + 1, true);
        if (e == pos + 1)
            return finish(Token::Kind::Error, pos + 1);
        return finish(Token::Kind::AtId, e);
    }
    case '#': {
        if (at(pos + 1) == '-' && at(pos + 2) == '}')
            return finish(Token::Kind::FileMetaEnd, pos + 3);
        size_t e = idEnd(pos + 1, false);
        if (e == pos + 1)
            return finish(Token::Kind::Error, pos + 1);
        return finish(Token::Kind::HashId, e);
    }
    case '!': {
        size_t e = idEnd(pos + 1, false);
        if (e == pos + 1)
            return finish(Token::Kind::Error, pos + 1);
        return finish(Token::Kind::BangId, e);
    }
    default: break;
    }
    if (isDigit(c)) {
        size_t i = pos;
        if (c == '0' && at(pos + 1) == 'x' && isHex(at(pos + 2))) {
            i = pos + 2;
            while (i < n && isHex(m_src[i]))
                ++i;
            return finish(Token::Kind::Integer, i);
        }
        while (i < n && isDigit(m_src[i]))
            ++i;
        if (at(i) == '.') {
            ++i;
            while (i < n && isDigit(m_src[i]))
                ++i;
            if ((at(i) == 'e' || at(i) == 'E') &&
                (isDigit(at(i + 1)) || ((at(i + 1) == '-' || at(i + 1) == '+') && isDigit(at(i + 2))))) {
                i += 2;
                while (i < n && isDigit(m_src[i]))
                    ++i;
            }
            return finish(Token::Kind::Float, i);
        }
        return finish(Token::Kind::Integer, i);
    }
    if (isAlpha(c) || c == '_')
        return finish(Token::Kind::BareId, idEnd(pos, false));
    return finish(Token::Kind::Error, pos + 1);
}

std::string MlirLexer::unescape(std::string_view q)
{
    std::string out;
    if (q.size() < 2)
        return out;
    q = q.substr(1, q.size() - 2);
    out.reserve(q.size());
    for (size_t i = 0; i < q.size(); ++i) {
        char c = q[i];
        if (c != '\\' || i + 1 >= q.size()) {
            out += c;
            continue;
        }
        char d = q[++i];
        switch (d) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case '\\': out += '\\'; break;
        case '"': out += '"'; break;
        default:
            if (isHex(d) && i + 1 < q.size() && isHex(q[i + 1])) {
                auto hv = [](char h) { return isDigit(h) ? h - '0' : (h | 0x20) - 'a' + 10; };
                out += static_cast<char>(hv(d) * 16 + hv(q[i + 1]));
                ++i;
            } else {
                out += d;
            }
        }
    }
    return out;
}

std::string describeToken(const Token& t)
{
    if (t.kind == Token::Kind::Eof)
        return "end of file";
    std::string s(t.text.substr(0, 40));
    if (t.text.size() > 40)
        s += "...";
    std::string out;
    for (unsigned char c : s) {
        if (c < 32 || c >= 127) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02X", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    return "'" + out + "'";
}

} // namespace shardx::io
