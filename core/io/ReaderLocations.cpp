// Parser (MlirReaderImpl.h): locations `loc(...)` and location aliases (JAX defines them at the end of a file).
#include "core/io/MlirReaderImpl.h"

namespace shardx::io::detail {

using namespace ir;

AttrPtr Parser::parseAliasRef(const Token& t)
{
    std::string name(t.text);
    if (name.find('.') != std::string::npos)
        error(posOf(t.begin), "expected location, but found dialect attribute: '" + name + "'");
    auto it = m_aliasValues.find(name);
    if (it != m_aliasValues.end())
        return it->second;
    auto off = m_aliasOffsets.find(name);
    if (off == m_aliasOffsets.end())
        error(posOf(t.begin), "undefined symbol alias id '" + name + "'");
    if (m_aliasInProgress.count(name))
        error(posOf(t.begin), "cyclic attribute alias '" + name + "'");
    Token saved = m_tok;
    m_aliasInProgress.insert(name);
    resetTo(off->second);
    AttrPtr a = atKeyword("loc") ? parseLocation() : parseAttr();
    m_aliasInProgress.erase(name);
    m_aliasValues[name] = a;
    m_tok = saved;
    return a;
}

static std::shared_ptr<const LocationAttr> asLoc(const AttrPtr& a)
{
    return std::make_shared<const LocationAttr>(*a->as<LocationAttr>());
}

void Parser::parseOptionalTrailingLoc(AttrPtr& out)
{
    if (atKeyword("loc") && peek().kind == Kind::LParen)
        out = parseLocation();
}

int64_t Parser::parseLocationNumber(std::string_view what)
{
    bool ovf = false;
    uint64_t v = at(Kind::Integer) ? parseUInt(m_tok, ovf) : 0;
    if (!at(Kind::Integer) || ovf || v > UINT32_MAX)
        errorExpected("integer " + std::string(what) + " number", "in a file location");
    next();
    return static_cast<int64_t>(v);
}

AttrPtr Parser::parseLocation()
{
    DepthGuard guard(*this);
    expectKeyword("loc", "");
    expect(Kind::LParen, "after 'loc'");
    AttrPtr inner = parseLocationInner();
    expect(Kind::RParen, "to end location");
    return inner;
}

AttrPtr Parser::parseLocationInner()
{
    DepthGuard guard(*this);
    LocationAttr l;
    if (at(Kind::HashId)) {
        Token t = m_tok;
        AttrPtr a = parseAliasRef(t);
        if (!a || !a->is<LocationAttr>())
            error(posOf(t.begin), "expected location alias, '" + std::string(t.text) + "' is not a location");
        next();
        return a;
    }
    if (consumeKeyword("unknown")) {
        if (!m_unknownLoc)
            m_unknownLoc = makeAttr(l);
        return m_unknownLoc;
    }
    if (at(Kind::String)) {
        // A plain name read before (the same token text reads the same) is shared.
        const std::string_view quoted = m_tok.text;
        if (const AttrPtr* known = m_nameLocs.find(quoted)) {
            Token after = peek();
            if (after.kind != Kind::Colon && after.kind != Kind::LParen) {
                next();
                return *known;
            }
        }
        std::string s = nameText(m_tok.text, m_tok.begin);
        next();
        if (at(Kind::Colon)) {
            next();
            // MLIR's FileLineColRange: `"f":L`, `"f":L:C`, `"f":L:C to :C2`, `"f":L:C to L2:C2`.
            l.kind = LocationAttr::Kind::FileLineCol;
            l.text = s;
            l.line = static_cast<uint32_t>(parseLocationNumber("line"));
            if (!consumeIf(Kind::Colon))
                return makeAttr(l);
            l.col = static_cast<uint32_t>(parseLocationNumber("column"));
            if (!consumeKeyword("to"))
                return makeAttr(l);
            int64_t endLine = l.line;
            if (at(Kind::Integer)) {
                endLine = parseLocationNumber("line");
                if (!at(Kind::Colon))
                    errorExpected("':'", "after the end line of a location range");
            } else if (!at(Kind::Colon)) {
                errorExpected("integer or ':'", "after 'to' in a location range");
            }
            next(); // ':'
            int64_t endCol = parseLocationNumber("column");
            l.setRangeEnd(static_cast<uint32_t>(endLine), static_cast<uint32_t>(endCol));
            return makeAttr(l);
        }
        l.kind = LocationAttr::Kind::Name;
        l.text = s;
        if (consumeIf(Kind::LParen)) {
            l.children.push_back(asLoc(parseLocationInner()));
            expect(Kind::RParen, "after child location");
            return makeAttr(l);
        }
        AttrPtr a = makeAttr(l);
        m_nameLocs.insert(quoted, a); // not there: a known name followed by neither `:` nor `(` returned above
        return a;
    }
    if (consumeKeyword("callsite")) {
        l.kind = LocationAttr::Kind::CallSite;
        expect(Kind::LParen, "after 'callsite'");
        l.children.push_back(asLoc(parseLocationInner()));
        expectKeyword("at", "in callsite location");
        l.children.push_back(asLoc(parseLocationInner()));
        expect(Kind::RParen, "to end callsite location");
        return makeAttr(l);
    }
    if (consumeKeyword("fused")) {
        l.kind = LocationAttr::Kind::Fused;
        if (consumeIf(Kind::Less)) {
            l.metadata = parseAttr();
            expect(Kind::Greater, "after fused location metadata");
        }
        expect(Kind::LSquare, "in fused location");
        if (!consumeIf(Kind::RSquare)) {
            while (true) {
                l.children.push_back(asLoc(parseLocationInner()));
                if (consumeIf(Kind::RSquare))
                    break;
                expect(Kind::Comma, "or ']' in fused location");
            }
        }
        return makeAttr(l);
    }
    errorExpected("location", "(unknown, \"file\":line:col, \"name\", callsite(...), fused[...] or #alias)");
}

} // namespace shardx::io::detail
