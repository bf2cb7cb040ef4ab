// Parser (MlirReaderImpl.h): the token stream, expected tokens, errors and the nesting guard.
#include "core/io/MlirReaderImpl.h"

#include <cstdio>

#include "core/support/StringUtil.h"

namespace shardx::io::detail {

void Parser::next()
{
    m_tok = m_peekFrom == m_tok.end ? m_peekTok : m_lex.lexAt(m_tok.end);
    if (m_tok.kind == Kind::Error)
        errorInToken(m_tok);
}

void Parser::resetTo(size_t p)
{
    m_tok = m_lex.lexAt(p);
    if (m_tok.kind == Kind::Error)
        errorInToken(m_tok);
}

void Parser::errorInToken(const Token& token)
{
    const std::string_view text = token.text;
    if (text.rfind('"', 0) != 0 && text.rfind("@\"", 0) != 0)
        error(posOf(token.begin), "unexpected character " + describeToken(token));
    // A string ends early at a line break, the end of the text, a NUL or a byte that is not UTF-8.
    const std::string_view src = m_lex.source();
    if (token.end >= src.size() || src[token.end] == '\n')
        error(posOf(token.begin), "expected '\"' to terminate string literal");
    errorAtByte(token.end, "in string literal");
}

void Parser::errorAtByte(size_t offset, const std::string& where)
{
    const auto byte = static_cast<unsigned char>(m_lex.source()[offset]);
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", byte);
    error(posOf(offset), byte == 0 ? "NUL byte " + where + " (write it as \\00 in a string)"
                                   : "invalid UTF-8 " + where + " (byte " + hex +
                                         "; write bytes that are not text as \\XX in a string)");
}

std::string Parser::nameText(std::string_view token, size_t offset)
{
    // A quoted name without escapes (nearly every one) is its body, as unescape would give it.
    const bool quoted = !token.empty() && token[0] == '"';
    std::string name = !quoted ? std::string(token)
                       : token.size() >= 2 && token.find('\\') == std::string_view::npos
                           ? std::string(token.substr(1, token.size() - 2))
                           : MlirLexer::unescape(token);
    if (!isValidUtf8(name))
        error(posOf(offset), "name is not valid UTF-8 after its \\XX escapes (names are text; only string "
                             "attributes hold bytes)");
    return name;
}

std::string Parser::expectName(std::string_view context)
{
    if (m_tok.kind != Kind::String)
        errorExpected("string", context);
    std::string s = nameText(m_tok.text, m_tok.begin);
    next();
    return s;
}

Token Parser::peek() const
{
    if (m_peekFrom != m_tok.end) {
        m_peekTok = m_lex.lexAt(m_tok.end);
        m_peekFrom = m_tok.end;
    }
    return m_peekTok;
}

bool Parser::consumeIf(Kind k)
{
    if (m_tok.kind != k)
        return false;
    next();
    return true;
}

bool Parser::consumeKeyword(std::string_view kw)
{
    if (!m_tok.isKeyword(kw))
        return false;
    next();
    return true;
}

static const char* kindSpelling(Kind k)
{
    switch (k) {
    case Kind::LParen: return "'('";
    case Kind::RParen: return "')'";
    case Kind::LSquare: return "'['";
    case Kind::RSquare: return "']'";
    case Kind::LBrace: return "'{'";
    case Kind::RBrace: return "'}'";
    case Kind::Less: return "'<'";
    case Kind::Greater: return "'>'";
    case Kind::Comma: return "','";
    case Kind::Colon: return "':'";
    case Kind::Equal: return "'='";
    case Kind::Arrow: return "'->'";
    case Kind::Question: return "'?'";
    case Kind::Star: return "'*'";
    case Kind::Minus: return "'-'";
    case Kind::Plus: return "'+'";
    case Kind::Vbar: return "'|'";
    case Kind::String: return "string";
    case Kind::Integer: return "integer";
    case Kind::Float: return "float";
    case Kind::BareId: return "identifier";
    case Kind::PercentId: return "SSA value";
    case Kind::AtId: return "symbol reference";
    case Kind::HashId: return "attribute alias";
    case Kind::BangId: return "dialect type";
    case Kind::CaretId: return "block label";
    case Kind::FileMetaBegin: return "'{-#'";
    case Kind::FileMetaEnd: return "'#-}'";
    default: return "token";
    }
}

void Parser::errorExpected(std::string_view what, std::string_view context)
{
    std::string msg = "expected " + std::string(what);
    if (!context.empty())
        msg += " " + std::string(context);
    msg += ", found " + describeToken(m_tok);
    errorHere(msg);
}

void Parser::expect(Kind k, std::string_view context)
{
    if (m_tok.kind != k)
        errorExpected(kindSpelling(k), context);
    next();
}

void Parser::expectKeyword(std::string_view kw, std::string_view context)
{
    if (!m_tok.isKeyword(kw))
        errorExpected("'" + std::string(kw) + "'", context);
    next();
}

std::string Parser::expectBareId(std::string_view context)
{
    if (m_tok.kind != Kind::BareId)
        errorExpected("identifier", context);
    std::string s(m_tok.text);
    next();
    return s;
}

std::string Parser::expectString(std::string_view context)
{
    if (m_tok.kind != Kind::String)
        errorExpected("string", context);
    std::string s = MlirLexer::unescape(m_tok.text);
    next();
    return s;
}

SourcePos Parser::posOf(size_t offset) const
{
    SourcePos p;
    p.file = m_file;
    m_lex.lineCol(offset, p.line, p.col);
    p.line += m_opts.firstLine - 1;
    return p;
}

void Parser::error(const SourcePos& p, const std::string& msg)
{
    m_diags.error(p, msg);
    throw ParseFailure{};
}

Parser::DepthGuard::DepthGuard(Parser& parser) : p(parser)
{
    if (++p.m_depth > kMaxDepth)
        p.errorHere("nesting too deep (more than " + std::to_string(kMaxDepth) + " levels)");
}

} // namespace shardx::io::detail
