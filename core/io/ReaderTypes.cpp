// Parser (MlirReaderImpl.h): types (tensor, token, tuple, complex, function, dialect types).
#include "core/io/MlirReaderImpl.h"

#include <algorithm>

#include "core/support/StringUtil.h"

namespace shardx::io::detail {

namespace {

bool isDigitC(char c) { return c >= '0' && c <= '9'; }

/// What a tensor type written compactly holds between `<` and `>`: dimensions, `x`, `?`, `*` and a
/// builtin element type.
bool isCompactTensorByte(char c)
{
    return isDigitC(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '?' || c == '*';
}

bool isBuiltinScalarName(std::string_view s)
{
    // string_views (lengths known): this runs for every tensor's element type.
    static constexpr std::string_view kNames[] = {"f16",    "bf16",      "f32",        "f64",        "f80",
                                                  "f128",   "tf32",      "index",      "none",       "f8E5M2",
                                                  "f8E4M3", "f8E4M3FN",  "f8E5M2FNUZ", "f8E4M3FNUZ", "f8E4M3B11FNUZ",
                                                  "f8E3M4", "f8E8M0FNU", "f4E2M1FN",   "f6E2M3FN",   "f6E3M2FN"};
    for (std::string_view n : kNames)
        if (s == n)
            return true;
    size_t p = 0;
    if (s.rfind("ui", 0) == 0 || s.rfind("si", 0) == 0)
        p = 2;
    else if (!s.empty() && s[0] == 'i')
        p = 1;
    else
        return false;
    if (p >= s.size() || s.size() - p > 8)
        return false;
    for (size_t i = p; i < s.size(); ++i)
        if (!isDigitC(s[i]))
            return false;
    return s[p] != '0';
}

} // namespace

bool Parser::atTypeStart() const
{
    if (at(Kind::BangId) || at(Kind::LParen))
        return true;
    if (!at(Kind::BareId))
        return false;
    std::string_view t = m_tok.text;
    return t == "tensor" || t == "tuple" || t == "complex" || t == "vector" || t == "memref" || isBuiltinScalarName(t);
}

std::string Parser::captureBalanced(char open, char close)
{
    std::string_view src = m_lex.source();
    size_t start = m_tok.begin;
    if (start >= src.size() || src[start] != open)
        errorExpected(std::string("'") + open + "'");
    int depth = 0;
    size_t i = start;
    while (i < src.size()) {
        char c = src[i];
        if (c == '"') {
            Token s = m_lex.lexAt(i);
            if (s.kind != Kind::String)
                errorInToken(s);
            i = s.end;
            continue;
        }
        if (c == '-' && i + 1 < src.size() && src[i + 1] == '>') {
            i += 2;
            continue;
        }
        if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {
            // A comment inside the body (MLIR's lexer skips it): its brackets do not count.
            while (i < src.size() && src[i] != '\n')
                ++i;
            continue;
        }
        if (c == '<' || c == '(' || c == '[' || c == '{')
            ++depth;
        else if (c == '>' || c == ')' || c == ']' || c == '}') {
            --depth;
            if (depth == 0) {
                if (c != close)
                    error(posOf(i), std::string("expected '") + close + "', found '" + c + "'");
                // The body is kept as written: it must be text, as string literals are.
                const std::string_view body = src.substr(start, i + 1 - start);
                if (size_t bad = std::min(body.find('\0'), invalidUtf8Offset(body)); bad != std::string_view::npos)
                    errorAtByte(start + bad, "in a dialect attribute or type");
                std::string out = normalizedBody(start, i + 1);
                resetTo(i + 1);
                return out;
            }
            if (depth < 0)
                break;
        }
        if (depth > kMaxDepth)
            error(posOf(i), "nesting too deep");
        ++i;
    }
    error(posOf(start), std::string("unbalanced '") + open + "': expected '" + close + "' before end of file");
}

std::vector<Type> Parser::parseTypeListParens()
{
    std::vector<Type> out;
    expect(Kind::LParen, "to start type list");
    if (consumeIf(Kind::RParen))
        return out;
    while (true) {
        out.push_back(parseType());
        if (consumeIf(Kind::RParen))
            break;
        expect(Kind::Comma, "or ')' in type list");
    }
    return out;
}

std::vector<Type> Parser::parseFunctionResults()
{
    if (at(Kind::LParen))
        return parseTypeListParens();
    return {parseType()};
}

Type Parser::parseFunctionType()
{
    std::vector<Type> ins = parseTypeListParens();
    expect(Kind::Arrow, "in function type");
    std::vector<Type> outs = parseFunctionResults();
    return Type::function(std::move(ins), std::move(outs));
}

std::string Parser::parseElementTypeSpelling()
{
    Type t = parseType();
    switch (t.kind()) {
    case Type::Kind::Scalar:
    case Type::Kind::Opaque: return t.name();
    case Type::Kind::Token: return "!stablehlo.token";
    default: break;
    }
    return t.toString();
}

std::optional<Type> Parser::parseOptionalType()
{
    if (!atTypeStart())
        return std::nullopt;
    return parseType();
}

Type Parser::parseType()
{
    DepthGuard guard(*this);
    if (at(Kind::LParen))
        return parseFunctionType();
    if (at(Kind::BangId)) {
        std::string name(m_tok.text);
        auto alias = m_typeAliasValues.find(name);
        if (alias != m_typeAliasValues.end()) {
            next();
            return alias->second;
        }
        if (name == "!stablehlo.token") {
            next();
            return Type::token();
        }
        if (name.find('.') == std::string::npos)
            errorHere("undefined symbol alias id '" + name + "'");
        checkDialectLoaded(name.substr(1, name.find('.') - 1), pos(), "type");
        size_t end = m_tok.end;
        std::string_view src = m_lex.source();
        if (end < src.size() && src[end] == '<') {
            resetTo(end);
            name += captureBalanced('<', '>');
            return Type::opaque(name);
        }
        next();
        return Type::opaque(name);
    }
    if (!at(Kind::BareId))
        errorExpected("type");
    std::string_view kw = m_tok.text;
    if (kw == "tensor") {
        const size_t typeOffset = m_tok.begin;
        // `tensor<` followed by dimension and identifier bytes up to `>`: a compact type, maybe read before.
        std::string_view compact;
        {
            const std::string_view src = m_lex.source();
            size_t i = m_tok.end;
            if (i < src.size() && src[i] == '<') {
                size_t j = i + 1;
                while (j < src.size() && isCompactTensorByte(src[j]))
                    ++j;
                if (j < src.size() && src[j] == '>')
                    compact = src.substr(i, j + 1 - i);
            }
        }
        // The element type's fast path below takes a builtin scalar only under the depth limit.
        if (!compact.empty() && m_depth < kMaxDepth) {
            if (const Type* known = m_tensorTypes.find(compact)) {
                resetTo(static_cast<size_t>(compact.data() + compact.size() - m_lex.source().data()));
                return *known;
            }
        }
        next();
        if (!at(Kind::Less))
            errorExpected("'<'", "in tensor type");
        next();
        std::string_view src = m_lex.source();
        size_t i = m_tok.begin;
        // Reuses the scratch's capacity; a tensor type nested in this one (in its encoding) finds the
        // scratch empty and takes one of its own.
        std::vector<int64_t> shape;
        shape.swap(m_shapeScratch);
        shape.clear();
        bool unranked = false;
        while (i < src.size()) {
            char c = src[i];
            if (c == '*') {
                if (i + 1 >= src.size() || src[i + 1] != 'x')
                    error(posOf(i + 1), "expected 'x' in unranked tensor type");
                unranked = true;
                i += 2;
                break;
            }
            if (c == '?') {
                if (i + 1 >= src.size() || src[i + 1] != 'x')
                    error(posOf(i + 1), "expected 'x' in dimension list");
                shape.push_back(Type::kDynamic);
                i += 2;
                continue;
            }
            if (isDigitC(c)) {
                size_t s = i;
                int64_t v = 0;
                while (i < src.size() && isDigitC(src[i])) {
                    if (v > (INT64_MAX - 9) / 10)
                        error(posOf(s), "dimension size too large in tensor type");
                    v = v * 10 + (src[i] - '0');
                    ++i;
                }
                if (i >= src.size() || src[i] != 'x')
                    error(posOf(i), std::string("expected 'x' after dimension in tensor shape, found ") +
                                        describeToken(m_lex.lexAt(i)));
                shape.push_back(v);
                ++i;
                continue;
            }
            break;
        }
        resetTo(i);
        // A builtin scalar element type (nearly every tensor) is its token's text; the fast path takes
        // it when parseType's depth guard would pass, so that the diagnostics stay the same.
        std::string eltSpelling;
        std::string_view elt;
        if (at(Kind::BareId) && m_depth < kMaxDepth && isBuiltinScalarName(m_tok.text)) {
            elt = m_tok.text;
            next();
        } else {
            eltSpelling = parseElementTypeSpelling();
            elt = eltSpelling;
        }
        std::shared_ptr<const ir::Attribute> enc;
        if (consumeIf(Kind::Comma))
            enc = parseAttr();
        if (!at(Kind::Greater))
            errorExpected("'>'", "to end tensor type");
        next();
        Type t = unranked ? Type::unrankedTensor(elt) : Type::tensor(shape, elt);
        shape.clear();
        m_shapeScratch.swap(shape);
        // Element counts (and the sizes derived from them) are int64 everywhere.
        if (t.hasElementCountOverflow())
            error(posOf(typeOffset), "tensor type has more elements than fit in 64 bits");
        if (enc)
            t.setEncoding(enc);
        else if (!compact.empty() &&
                 m_tok.begin >= static_cast<size_t>(compact.data() + compact.size() - m_lex.source().data()) &&
                 !m_tensorTypes.find(compact))
            m_tensorTypes.insert(compact, t);
        return t;
    }
    if (kw == "tuple") {
        next();
        expect(Kind::Less, "in tuple type");
        std::vector<Type> elems;
        if (!consumeIf(Kind::Greater)) {
            while (true) {
                elems.push_back(parseType());
                if (consumeIf(Kind::Greater))
                    break;
                expect(Kind::Comma, "or '>' in tuple type");
            }
        }
        return Type::tuple(std::move(elems));
    }
    if (kw == "complex") {
        next();
        expect(Kind::Less, "in complex type");
        std::string inner = parseElementTypeSpelling();
        expect(Kind::Greater, "to end complex type");
        return Type::scalar("complex<" + inner + ">");
    }
    if (kw == "vector" || kw == "memref") {
        std::string name(kw);
        size_t end = m_tok.end;
        resetTo(end);
        if (!at(Kind::Less) || m_tok.begin != end)
            errorExpected("'<'", "after '" + name + "'");
        name += captureBalanced('<', '>');
        return Type::opaque(name);
    }
    if (isBuiltinScalarName(kw)) {
        std::string n(kw);
        next();
        return Type::scalar(n);
    }
    errorExpected("type");
}

} // namespace shardx::io::detail
