// Parser (MlirReaderImpl.h): the token stream, expected tokens, errors and the nesting guard.
#include "core/io/MlirReaderImpl.h"

namespace shardx::io::detail {

void Parser::next()
{
    m_tok = m_lex.lexAt(m_tok.end);
    if (m_tok.kind == Kind::Error) {
        if (!m_tok.text.empty() && m_tok.text[0] == '"')
            errorHere("expected '\"' to terminate string literal");
        errorHere("unexpected character " + describeToken(m_tok));
    }
}

void Parser::resetTo(size_t p)
{
    m_tok = m_lex.lexAt(p);
    if (m_tok.kind == Kind::Error)
        errorHere("unexpected character " + describeToken(m_tok));
}

Token Parser::peek() const { return m_lex.lexAt(m_tok.end); }

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
