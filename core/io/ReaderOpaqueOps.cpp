// Parser (MlirReaderImpl.h): ops in a custom form shardx does not know, kept as written (viewer tolerance).
#include "core/io/MlirReaderImpl.h"

namespace shardx::io::detail {

namespace {

bool isOpening(Kind k) { return k == Kind::LParen || k == Kind::LSquare || k == Kind::LBrace || k == Kind::Less; }

Kind closingOf(Kind k)
{
    switch (k) {
    case Kind::LParen: return Kind::RParen;
    case Kind::LSquare: return Kind::RSquare;
    case Kind::LBrace: return Kind::RBrace;
    default: return Kind::Greater;
    }
}

bool isClosing(Kind k) { return k == Kind::RParen || k == Kind::RSquare || k == Kind::RBrace || k == Kind::Greater; }

} // namespace

Value* Parser::lookupDefined(const std::string& name, unsigned index) const
{
    for (size_t i = m_scopes.size(); i-- > 0;) {
        const Scope& s = m_scopes[i];
        if (const DefinedValues* defined = s.values.find(name))
            return index < defined->size() ? (*defined)[index] : nullptr;
        if (s.isolated)
            break;
    }
    return nullptr;
}

std::unique_ptr<Op> Parser::parseOpaqueOp(const std::string& name, const SourcePos& p, unsigned numResults)
{
    // The op runs from its name to the end of its line, or further while brackets are open
    // (regions, multi-line lists); a trailing `loc(...)` is read as its location. Values named
    // in it that are defined here become its operands, so that the printer can rename them.
    auto op = std::make_unique<Op>(name);
    auto syntax = std::make_shared<ir::OpaqueSyntax>();
    std::string_view src = m_lex.source();
    const size_t start = m_tok.begin;
    size_t pieceFrom = start;
    size_t lastEnd = m_tok.end;
    int line = 0;
    int col = 0;
    m_lex.lineCol(start, line, col);
    std::vector<Kind> open;
    size_t typesAt = std::string::npos;
    bool afterArrow = false;
    next(); // the op name
    while (true) {
        if (open.empty()) {
            int tokLine = 0;
            m_lex.lineCol(m_tok.begin, tokLine, col);
            if (at(Kind::Eof) || at(Kind::RBrace) || at(Kind::FileMetaBegin) || tokLine != line)
                break;
            if (atKeyword("loc") && peek().kind == Kind::LParen)
                break;
        }
        if (at(Kind::Eof))
            error(p, "'" + name + "' kept as written: expected " +
                         std::string(open.back() == Kind::LBrace ? "'}'" : "a closing bracket") +
                         " before the end of the file");
        const Token t = m_tok;
        if (isOpening(t.kind)) {
            open.push_back(t.kind);
        } else if (isClosing(t.kind)) {
            if (open.empty() || closingOf(open.back()) != t.kind) {
                // `>` without `<` is text (a comparison in some dialects' syntax); any other
                // bracket out of place ends nothing we can recover from.
                if (t.kind != Kind::Greater)
                    errorHere("'" + name + "' kept as written: unbalanced " + describeToken(t));
            } else {
                open.pop_back();
            }
        } else if (open.empty() && (t.kind == Kind::Colon || t.kind == Kind::Arrow)) {
            typesAt = t.end;
            afterArrow = t.kind == Kind::Arrow;
        }
        if (t.kind == Kind::PercentId) {
            // `%name` or `%name#i`: an operand when it names a value defined here.
            size_t end = t.end;
            unsigned index = 0;
            if (end < src.size() && src[end] == '#') {
                size_t i = end + 1;
                uint64_t v = 0;
                while (i < src.size() && src[i] >= '0' && src[i] <= '9' && v < 1000000000)
                    v = v * 10 + static_cast<uint64_t>(src[i++] - '0');
                if (i > end + 1) {
                    index = static_cast<unsigned>(v);
                    end = i;
                }
            }
            if (Value* v = lookupDefined(std::string(t.text.substr(1)), index)) {
                syntax->pieces.emplace_back(src.substr(pieceFrom, t.begin - pieceFrom));
                op->addOperand(v);
                pieceFrom = end;
            }
            lastEnd = end;
            resetTo(end);
            continue;
        }
        lastEnd = t.end;
        next();
    }
    syntax->pieces.emplace_back(src.substr(pieceFrom, lastEnd - pieceFrom));
    std::vector<Type> types;
    if (numResults && typesAt != std::string::npos)
        types = opaqueResultTypes(typesAt, lastEnd, afterArrow, op->numOperands(), numResults);
    for (unsigned i = 0; i < numResults; ++i)
        op->addResult(i < types.size() ? types[i] : Type());
    op->setOpaqueSyntax(std::move(syntax));
    noteUnknownOp(name, p);
    return op;
}

void Parser::noteUnknownOp(const std::string& name, const SourcePos& p)
{
    auto [it, added] = m_unknownOpIndex.emplace(name, m_unknownOps.size());
    if (added)
        m_unknownOps.push_back({name, p, 0});
    ++m_unknownOps[it->second].count;
}

void Parser::reportUnknownOps()
{
    for (const UnknownOp& u : m_unknownOps)
        m_diags.warning(u.first, "'" + u.name + "' is an op shardx does not know" +
                                     (u.count > 1 ? " (" + std::to_string(u.count) + " ops, the first here)" : "") +
                                     ": kept as written; shardings do not propagate through it");
}

std::vector<Type> Parser::opaqueResultTypes(size_t typesAt, size_t end, bool afterArrow, unsigned numOperands,
                                            unsigned numResults)
{
    // Read speculatively: a failure only means the types are not known here.
    const Token saved = m_tok;
    const size_t numDiags = m_diags.all().size();
    const int depth = m_depth;
    std::vector<Type> types;
    try {
        resetTo(typesAt);
        if (afterArrow) {
            types = parseFunctionResults();
        } else {
            Type t = parseType();
            if (t.kind() == Type::Kind::Function) {
                types = t.results();
            } else {
                types.push_back(t);
                while (m_tok.begin < end && consumeIf(Kind::Comma))
                    types.push_back(parseType());
            }
            if (m_tok.begin < end)
                types.clear(); // more than a type list follows: not a signature we know
        }
    } catch (const ParseFailure&) {
        types.clear();
    }
    m_diags.truncate(numDiags);
    m_depth = depth;
    m_tok = saved;
    // `: T` for every result (and operand) alike, `: results`, or `: operands, results`.
    if (types.size() == numResults)
        return types;
    if (types.size() == numOperands + numResults)
        return std::vector<Type>(types.end() - numResults, types.end());
    if (types.size() == 1)
        return std::vector<Type>(numResults, types.front());
    return {};
}

} // namespace shardx::io::detail
