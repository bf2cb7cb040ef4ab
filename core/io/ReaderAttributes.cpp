// Parser (MlirReaderImpl.h): attribute values, dictionaries and dialect attributes (numbers: ReaderNumbers.cpp).
#include "core/io/MlirReaderImpl.h"
#include "core/ir/OpRegistry.h"

namespace shardx::io::detail {

using namespace ir;

namespace {
std::string withoutDefaultFields(const std::string& body)
{
    // StableHLO prints its dimension-number structs without empty lists and zero integers.
    std::vector<std::string> kept;
    int depth = 0;
    size_t start = 0;
    auto flush = [&](size_t end) {
        std::string field = body.substr(start, end - start);
        while (!field.empty() && field.front() == ' ')
            field.erase(field.begin());
        const size_t eq = field.find(" = ");
        const std::string value = eq == std::string::npos ? std::string() : field.substr(eq + 3);
        if (!field.empty() && value != "[]" && value != "0")
            kept.push_back(field);
    };
    for (size_t i = 0; i < body.size(); ++i) {
        const char c = body[i];
        if (c == '[' || c == '<' || c == '(' || c == '{')
            ++depth;
        else if (c == ']' || c == '>' || c == ')' || c == '}')
            --depth;
        else if (c == ',' && depth == 0) {
            flush(i);
            start = i + 1;
        }
    }
    flush(body.size());
    std::string out;
    for (size_t i = 0; i < kept.size(); ++i)
        out += (i ? ", " : "") + kept[i];
    return out;
}
} // namespace

AttrPtr opaque(std::string dialect, std::string mnemonic, std::string body)
{
    if (dialect == "stablehlo" && (mnemonic == "scatter" || mnemonic == "gather"))
        body = withoutDefaultFields(body);
    return makeAttr(OpaqueAttr{std::move(dialect), std::move(mnemonic), std::move(body)});
}
AttrPtr i64Attr(int64_t v) { return makeAttr(IntegerAttr{v, Type::scalar("i64")}); }
AttrPtr i32Attr(int64_t v) { return makeAttr(IntegerAttr{v, Type::scalar("i32")}); }
AttrPtr denseI64(std::vector<int64_t> v)
{
    DenseArrayAttr a;
    a.elementType = "i64";
    a.ints = std::move(v);
    return makeAttr(std::move(a));
}

std::string Parser::normalizedBody(size_t begin, size_t end) const
{
    std::string_view src = m_lex.source();
    std::string out;
    bool pendingSpace = false;
    for (size_t i = begin; i < end && i < src.size();) {
        char c = src[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            pendingSpace = !out.empty();
            ++i;
            continue;
        }
        if (c == '/' && i + 1 < end && src[i + 1] == '/') {
            // A `//` comment is whitespace, as MLIR's lexer treats it: the body keeps no trace of it.
            while (i < end && src[i] != '\n')
                ++i;
            pendingSpace = !out.empty();
            continue;
        }
        if (pendingSpace) {
            char last = out.back();
            if (last != '<' && last != '(' && last != '[' && last != '{' && c != '>' && c != ')' && c != ']' &&
                c != '}' && c != ',')
                out += ' ';
            pendingSpace = false;
        }
        if (c == '"') {
            Token s = m_lex.lexAt(i);
            size_t e = s.kind == Kind::String ? s.end : i + 1;
            out.append(src.substr(i, e - i));
            i = e;
            continue;
        }
        out += c;
        ++i;
    }
    return out;
}

// ---- attribute values --------------------------------------------------------------------

NamedAttrList Parser::parseAttrDict()
{
    DepthGuard guard(*this);
    expect(Kind::LBrace, "to start attribute dictionary");
    NamedAttrList list;
    if (consumeIf(Kind::RBrace))
        return list;
    while (true) {
        std::string key;
        SourcePos kp = pos();
        if (at(Kind::BareId))
            key = std::string(m_tok.text);
        else if (at(Kind::String))
            key = nameText(m_tok.text, m_tok.begin);
        else
            errorExpected("attribute name");
        if (key.empty())
            errorHere("expected valid attribute name");
        next();
        AttrPtr value;
        if (consumeIf(Kind::Equal))
            value = parseAttr();
        else
            value = makeAttr(UnitAttr{});
        if (findAttr(list, key))
            error(kp, "duplicate key '" + key + "' in dictionary attribute");
        setAttr(list, key, value);
        if (consumeIf(Kind::RBrace))
            break;
        expect(Kind::Comma, "or '}' in attribute dictionary");
    }
    return list;
}

std::optional<AttrPtr> Parser::parseOptionalAttr()
{
    switch (m_tok.kind) {
    case Kind::BareId:
    case Kind::Integer:
    case Kind::Float:
    case Kind::Minus:
    case Kind::String:
    case Kind::AtId:
    case Kind::LSquare:
    case Kind::LBrace:
    case Kind::HashId:
    case Kind::BangId:
    case Kind::LParen: return parseAttr();
    default: return std::nullopt;
    }
}

void Parser::checkDialectLoaded(const std::string& dialect, const SourcePos& p, std::string_view what)
{
    // The dialects sdy_opt loads: the registered ones and quant (a dependency of stablehlo).
    if (m_opts.allowUnregisteredDialects || m_opts.keepUnknownOps || dialect == "quant" ||
        ir::OpRegistry::instance().isRegisteredDialect(dialect))
        return;
    error(p, std::string(what) + " created with unregistered dialect '" + dialect +
                 "' (use -allow-unregistered-dialect to keep it)");
}

AttrPtr Parser::parseDialectAttr(const Token& hashTok)
{
    std::string full(hashTok.text.substr(1));
    size_t dot = full.find('.');
    std::string dialect = dot == std::string::npos ? full : full.substr(0, dot);
    std::string mnemonic = dot == std::string::npos ? std::string() : full.substr(dot + 1);
    SourcePos p = posOf(hashTok.begin);
    std::string_view src = m_lex.source();
    bool hasBody = hashTok.end < src.size() && src[hashTok.end] == '<';
    if (dialect == "sdy" && !mnemonic.empty()) {
        resetTo(hashTok.end);
        return parseSdyAttr(mnemonic, p);
    }
    if (dialect == "sdy" && hasBody)
        if (AttrPtr a = parseSdyShortFormAttr(hashTok.end))
            return a;
    checkDialectLoaded(dialect, p, "attribute");
    if (!hasBody) {
        next();
        return opaque(dialect, mnemonic, "");
    }
    resetTo(hashTok.end);
    std::string body = captureBalanced('<', '>');
    return opaque(dialect, mnemonic, body.substr(1, body.size() - 2));
}

AttrPtr Parser::parseAttr()
{
    DepthGuard guard(*this);
    switch (m_tok.kind) {
    case Kind::BareId: {
        std::string_view kw = m_tok.text;
        if (kw == "true" || kw == "false") {
            bool v = kw == "true";
            next();
            return makeAttr(BoolAttr{v});
        }
        if (kw == "unit") {
            next();
            return makeAttr(UnitAttr{});
        }
        if (kw == "dense")
            return parseDenseAttrAfterKeyword();
        if (kw == "dense_resource") {
            next();
            expect(Kind::Less, "after 'dense_resource'");
            std::string name;
            if (at(Kind::BareId) || at(Kind::String))
                name = nameText(m_tok.text, m_tok.begin);
            else
                errorExpected("resource handle name");
            next();
            expect(Kind::Greater, "to end dense_resource");
            expect(Kind::Colon, "after dense_resource (a type is required)");
            Type t = parseType();
            return makeAttr(DenseResourceAttr{name, t});
        }
        if (kw == "array")
            return parseDenseArray();
        if (kw == "loc" && peek().kind == Kind::LParen)
            return parseLocation();
        if (atTypeStart())
            return makeAttr(TypeAttr{parseType()});
        errorExpected("attribute value");
    }
    case Kind::Integer:
    case Kind::Float:
    case Kind::Minus: return parseIntegerOrFloatAttr();
    case Kind::String: {
        std::string s = MlirLexer::unescape(m_tok.text);
        next();
        if (at(Kind::Colon) && [&] {
                Token t = peek();
                return t.kind == Kind::BareId || t.kind == Kind::BangId;
            }()) {
            // Typed string attribute `"..." : type`: the type is not modelled.
            size_t save = m_tok.begin;
            next();
            if (atTypeStart())
                parseType();
            else
                resetTo(save);
        }
        return makeAttr(StringAttr{s});
    }
    case Kind::AtId: {
        SymbolRefAttr r;
        while (true) {
            std::string_view t = m_tok.text.substr(1);
            r.path.push_back(nameText(t, m_tok.begin));
            size_t end = m_tok.end;
            std::string_view src = m_lex.source();
            if (end + 2 < src.size() && src[end] == ':' && src[end + 1] == ':' && src[end + 2] == '@') {
                resetTo(end + 2);
                continue;
            }
            next();
            break;
        }
        return makeAttr(std::move(r));
    }
    case Kind::LSquare: {
        next();
        ArrayAttr a;
        if (!consumeIf(Kind::RSquare)) {
            while (true) {
                a.elements.push_back(parseAttr());
                if (consumeIf(Kind::RSquare))
                    break;
                expect(Kind::Comma, "or ']' in array attribute");
            }
        }
        return makeAttr(std::move(a));
    }
    case Kind::LBrace: return makeAttr(DictionaryAttr{parseAttrDict()});
    case Kind::HashId: {
        Token t = m_tok;
        std::string name(t.text);
        if (m_aliasDefined.count(name)) {
            next();
            return m_aliasValues[name];
        }
        std::string_view src = m_lex.source();
        bool hasBody = t.end < src.size() && src[t.end] == '<';
        if (name.find('.') == std::string::npos && !hasBody)
            error(posOf(t.begin), "undefined symbol alias id '" + name + "'");
        return parseDialectAttr(t);
    }
    case Kind::BangId:
    case Kind::LParen: return makeAttr(TypeAttr{parseType()});
    default: break;
    }
    errorExpected("attribute value");
}

} // namespace shardx::io::detail
