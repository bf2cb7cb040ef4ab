// MLIR text reader: token stream, module/region/op structure, SSA scopes, generic op form.
#include "core/io/MlirReader.h"

#include <algorithm>

#include "core/io/MlirReaderImpl.h"
#include "core/ir/OpRegistry.h"

namespace shardx::io {

namespace detail {

Parser::Parser(std::string_view text, std::string fileName, DiagnosticList& diags, const ReadOptions& opts)
    : m_lex(text), m_file(std::move(fileName)), m_diags(diags), m_opts(opts)
{
    m_tok = m_lex.lexAt(0);
}

Parser::~Parser()
{
    // Ops under construction are gone; drop the module before the placeholders it may use.
    m_module.reset();
}

// ---- token stream --------------------------------------------------------------------------

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

uint64_t Parser::parseUInt(const Token& t, bool& overflow) const
{
    overflow = false;
    uint64_t v = 0;
    std::string_view s = t.text;
    bool hex = s.size() > 2 && s[0] == '0' && s[1] == 'x';
    for (size_t i = hex ? 2 : 0; i < s.size(); ++i) {
        char c = s[i];
        unsigned d = (c >= '0' && c <= '9') ? c - '0' : ((c | 0x20) - 'a' + 10);
        unsigned base = hex ? 16 : 10;
        if (v > (UINT64_MAX - d) / base) {
            overflow = true;
            return 0;
        }
        v = v * base + d;
    }
    return v;
}

int64_t Parser::parseInt64(std::string_view context)
{
    bool neg = false;
    SourcePos p = pos();
    if (at(Kind::Minus)) {
        neg = true;
        next();
    }
    if (!at(Kind::Integer))
        errorExpected("integer", context);
    bool ovf = false;
    uint64_t v = parseUInt(m_tok, ovf);
    if (ovf || (!neg && v > static_cast<uint64_t>(INT64_MAX)) || (neg && v > static_cast<uint64_t>(INT64_MAX) + 1))
        error(p, "integer value too large " + std::string(context));
    next();
    return neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

// ---- scopes and values ------------------------------------------------------------------------

void Parser::pushScope(bool isolated)
{
    m_scopes.emplace_back();
    m_scopes.back().isolated = isolated;
}

void Parser::popScope()
{
    Scope s = std::move(m_scopes.back());
    m_scopes.pop_back();
    for (auto& [label, p] : s.pendingLabels)
        error(p, "reference to an undefined block '" + label + "'");
    for (auto& [name, ref] : s.forwardRefs) {
        if (s.isolated || m_scopes.empty())
            error(ref.second, "use of undeclared SSA value name '%" + name + "'");
        Scope& parent = m_scopes.back();
        auto it = parent.forwardRefs.find(name);
        if (it == parent.forwardRefs.end()) {
            parent.forwardRefs.emplace(name, ref);
            continue;
        }
        Op* into = it->second.first;
        while (into->numResults() < ref.first->numResults())
            into->addResult(Type());
        for (unsigned i = 0; i < ref.first->numResults(); ++i)
            ref.first->result(i)->replaceAllUsesWith(into->result(i));
    }
}

Value* Parser::resolve(const OperandRef& ref, const Type* type)
{
    for (size_t i = m_scopes.size(); i-- > 0;) {
        Scope& s = m_scopes[i];
        auto it = s.values.find(ref.name);
        if (it != s.values.end()) {
            if (ref.index >= it->second.size())
                error(ref.pos,
                      "reference to invalid result number " + std::to_string(ref.index) + " of '%" + ref.name + "'");
            Value* v = it->second[ref.index];
            if (type && !type->isNone() && !v->type().isNone() && v->type() != *type)
                error(ref.pos, "use of value '%" + ref.name + "' expects different type than prior uses: '" +
                                   type->toString() + "' vs '" + v->type().toString() + "'");
            return v;
        }
        if (s.isolated)
            break;
    }
    Scope& s = m_scopes.back();
    auto it = s.forwardRefs.find(ref.name);
    Op* ph;
    if (it == s.forwardRefs.end()) {
        m_placeholders.push_back(std::make_unique<Op>("<placeholder>"));
        ph = m_placeholders.back().get();
        s.forwardRefs.emplace(ref.name, std::make_pair(ph, ref.pos));
    } else {
        ph = it->second.first;
    }
    while (ph->numResults() <= ref.index)
        ph->addResult(Type());
    Value* v = ph->result(ref.index);
    if (type && v->type().isNone())
        v->setType(*type);
    return v;
}

void Parser::defineValues(const ResultDef& def, const std::vector<Value*>& values)
{
    for (size_t i = m_scopes.size(); i-- > 0;) {
        if (m_scopes[i].values.count(def.name))
            error(def.pos, "redefinition of SSA value '%" + def.name + "'");
        if (m_scopes[i].isolated)
            break;
    }
    Scope& s = m_scopes.back();
    auto it = s.forwardRefs.find(def.name);
    if (it != s.forwardRefs.end()) {
        Op* ph = it->second.first;
        if (ph->numResults() > values.size())
            error(it->second.second, "reference to invalid result number of '%" + def.name + "'");
        for (unsigned i = 0; i < ph->numResults(); ++i)
            ph->result(i)->replaceAllUsesWith(values[i]);
        s.forwardRefs.erase(it);
    }
    if (values.size() == 1)
        values[0]->sourceName = def.name;
    else
        for (size_t i = 0; i < values.size(); ++i)
            values[i]->sourceName = def.name + "#" + std::to_string(i);
    s.values.emplace(def.name, values);
}

OperandRef Parser::parseOperandRef()
{
    if (!at(Kind::PercentId))
        errorExpected("SSA operand");
    OperandRef r;
    r.pos = pos();
    r.name = std::string(m_tok.text.substr(1));
    size_t end = m_tok.end;
    std::string_view src = m_lex.source();
    if (end < src.size() && src[end] == '#') {
        size_t i = end + 1;
        uint64_t v = 0;
        while (i < src.size() && src[i] >= '0' && src[i] <= '9') {
            v = v * 10 + static_cast<uint64_t>(src[i] - '0');
            if (v > 1000000000)
                error(posOf(end), "result number too large");
            ++i;
        }
        if (i == end + 1)
            error(posOf(end), "expected result number after '#'");
        r.index = static_cast<unsigned>(v);
        resetTo(i);
        return r;
    }
    next();
    return r;
}

std::vector<OperandRef> Parser::parseOperandRefs()
{
    std::vector<OperandRef> refs;
    if (!at(Kind::PercentId))
        return refs;
    refs.push_back(parseOperandRef());
    while (at(Kind::Comma) && peek().kind == Kind::PercentId) {
        next();
        refs.push_back(parseOperandRef());
    }
    return refs;
}

void Parser::addOperands(Op& op, const std::vector<OperandRef>& refs, const std::vector<Type>& types,
                         const SourcePos& p)
{
    if (refs.size() != types.size())
        error(p, std::to_string(refs.size()) + " operands present, but expected " + std::to_string(types.size()));
    for (size_t i = 0; i < refs.size(); ++i)
        op.addOperand(resolve(refs[i], &types[i]));
}

void Parser::moveInherentAttrs(Op& op, ir::NamedAttrList& dict)
{
    const ir::OpInfo* info = ir::OpRegistry::instance().lookup(op.name());
    for (auto& na : dict) {
        if (info &&
            std::find(info->inherentAttrs.begin(), info->inherentAttrs.end(), na.name) != info->inherentAttrs.end())
            op.setProp(na.name, na.value);
        else
            op.setDiscardable(na.name, na.value);
    }
}

void Parser::parseOptionalAttrDictInto(Op& op)
{
    if (!at(Kind::LBrace))
        return;
    ir::NamedAttrList d = parseAttrDict();
    moveInherentAttrs(op, d);
}

std::string Parser::resolveOpName(const std::string& name) const
{
    // MLIR: a name without a dialect prefix is looked up in the default dialect of the
    // enclosing op; left as written (and reported unknown) when that has no such op.
    if (name.find('.') != std::string::npos || m_defaultDialect.empty())
        return name;
    std::string qualified = m_defaultDialect + "." + name;
    return ir::OpRegistry::instance().lookup(qualified) ? qualified : name;
}

// ---- regions ------------------------------------------------------------------------------

void Parser::parseBlockArgList(std::vector<std::pair<ResultDef, Type>>& args, std::vector<AttrPtr>* locs)
{
    expect(Kind::LParen, "to start argument list");
    if (consumeIf(Kind::RParen))
        return;
    while (true) {
        if (!at(Kind::PercentId))
            errorExpected("SSA value name", "in argument list");
        ResultDef d;
        d.pos = pos();
        d.name = std::string(m_tok.text.substr(1));
        next();
        expect(Kind::Colon, "after argument name");
        Type t = parseType();
        // As in MLIR, a block (or region) argument takes an optional `loc(...)` but no
        // attribute dictionary: only function signatures have argument attributes.
        AttrPtr loc;
        parseOptionalTrailingLoc(loc);
        if (locs)
            locs->push_back(loc);
        args.emplace_back(d, t);
        if (consumeIf(Kind::RParen))
            break;
        expect(Kind::Comma, "or ')' in argument list");
    }
}

ir::Block* Parser::blockForLabel(const std::string& label, const SourcePos& p)
{
    Scope& s = m_scopes.back();
    auto it = s.labels.find(label);
    if (it != s.labels.end())
        return it->second;
    ir::Block* b = m_regionStack.back()->addBlock();
    s.labels[label] = b;
    s.pendingLabels[label] = p;
    return b;
}

void Parser::parseRegion(ir::Region& region, bool isolated, std::vector<std::pair<ResultDef, Type>>* entryArgs,
                         std::vector<ir::Value*>* entryValues)
{
    DepthGuard guard(*this);
    expect(Kind::LBrace, "to begin a region");
    pushScope(isolated);
    m_regionStack.push_back(&region);
    ir::Block* entry = nullptr;
    if (entryArgs) {
        entry = region.addBlock();
        for (auto& [def, type] : *entryArgs) {
            Value* v = entry->addArgument(type);
            v->pos = def.pos;
            defineValues(def, {v});
            if (entryValues)
                entryValues->push_back(v);
        }
    }
    parseRegionBody(region, entry);
    m_regionStack.pop_back();
    popScope();
}

void Parser::parseRegionBody(ir::Region& region, ir::Block* entry)
{
    ir::Block* cur = entry;
    bool explicitEntry = entry != nullptr;
    while (!at(Kind::RBrace)) {
        if (at(Kind::Eof))
            errorExpected("'}'", "to end a region");
        if (at(Kind::CaretId)) {
            SourcePos lp = pos();
            std::string label(m_tok.text);
            next();
            Scope& s = m_scopes.back();
            ir::Block* b = nullptr;
            if (!cur && !explicitEntry && region.blocks().empty()) {
                b = region.addBlock();
            } else if (s.labels.count(label)) {
                if (!s.pendingLabels.count(label))
                    error(lp, "redefinition of block '" + label + "'");
                b = s.labels[label];
                s.pendingLabels.erase(label);
                // Keep blocks in definition order.
                auto& blocks = region.blocks();
                auto bit = std::find_if(blocks.begin(), blocks.end(), [&](auto& u) { return u.get() == b; });
                std::unique_ptr<ir::Block> owned = std::move(*bit);
                blocks.erase(bit);
                blocks.push_back(std::move(owned));
            } else {
                if (!cur && region.blocks().empty())
                    b = region.addBlock();
                else
                    b = region.addBlock();
            }
            s.labels[label] = b;
            explicitEntry = true;
            if (at(Kind::LParen)) {
                std::vector<std::pair<ResultDef, Type>> args;
                std::vector<AttrPtr> locs;
                parseBlockArgList(args, &locs);
                for (size_t i = 0; i < args.size(); ++i) {
                    Value* v = b->addArgument(args[i].second);
                    v->pos = args[i].first.pos;
                    v->loc = locs[i];
                    defineValues(args[i].first, {v});
                }
            }
            expect(Kind::Colon, "after block name");
            cur = b;
            continue;
        }
        if (!cur) {
            cur = region.addBlock();
            explicitEntry = true;
        }
        parseOperation(*cur);
    }
    next(); // '}'
}

// ---- operations --------------------------------------------------------------------------

void Parser::parseOperation(ir::Block& block)
{
    DepthGuard guard(*this);
    SourcePos p = pos();
    std::vector<ResultDef> results;
    if (at(Kind::PercentId)) {
        while (true) {
            if (!at(Kind::PercentId))
                errorExpected("SSA value name", "in result list");
            ResultDef d;
            d.pos = pos();
            d.name = std::string(m_tok.text.substr(1));
            next();
            if (consumeIf(Kind::Colon)) {
                if (!at(Kind::Integer))
                    errorExpected("integer number of results");
                bool ovf = false;
                uint64_t n = parseUInt(m_tok, ovf);
                if (ovf || n == 0 || n > 100000)
                    errorHere("invalid number of results " + describeToken(m_tok));
                d.count = static_cast<unsigned>(n);
                next();
            }
            results.push_back(d);
            if (!consumeIf(Kind::Comma))
                break;
        }
        expect(Kind::Equal, "after SSA result list");
    }
    // Regions of the op get no default dialect unless its parser sets one (func, module).
    const std::string savedDialect = m_defaultDialect;
    std::unique_ptr<Op> op;
    if (at(Kind::String)) {
        m_defaultDialect.clear();
        op = parseGenericOp(p);
    } else if (at(Kind::BareId)) {
        std::string name = resolveOpName(std::string(m_tok.text));
        op = parseCustomOp(name, p); // clears the default dialect once the name is known
    } else {
        errorExpected("operation name");
    }
    m_defaultDialect = savedDialect;
    op->pos = p;
    parseOptionalTrailingLoc(op->loc);
    unsigned total = 0;
    for (const ResultDef& d : results)
        total += d.count;
    if (!results.empty() && total != op->numResults())
        error(p, "operation defines " + std::to_string(op->numResults()) + " results but was provided " +
                     std::to_string(total) + " to bind");
    Op* raw = block.push_back(std::move(op));
    unsigned idx = 0;
    for (const ResultDef& d : results) {
        std::vector<Value*> vs;
        for (unsigned k = 0; k < d.count; ++k)
            vs.push_back(raw->result(idx++));
        defineValues(d, vs);
    }
}

std::unique_ptr<Op> Parser::parseGenericOp(const SourcePos& p)
{
    std::string name = MlirLexer::unescape(m_tok.text);
    next();
    const auto& reg = ir::OpRegistry::instance();
    size_t dot = name.find('.');
    std::string dialect = dot == std::string::npos ? std::string() : name.substr(0, dot);
    if (!reg.isRegisteredDialect(dialect) && !m_opts.allowUnregisteredDialects)
        error(p, "unregistered operation '" + name +
                     "' found (use -allow-unregistered-dialect to keep operations of unknown dialects)");
    const ir::OpInfo* info = reg.lookup(name);
    auto op = std::make_unique<Op>(name);
    expect(Kind::LParen, "to start operand list");
    std::vector<OperandRef> refs = parseOperandRefs();
    expect(Kind::RParen, "to end operand list");
    if (consumeIf(Kind::LSquare)) {
        while (true) {
            if (!at(Kind::CaretId))
                errorExpected("block label", "in successor list");
            op->successors().push_back(blockForLabel(std::string(m_tok.text), pos()));
            next();
            if (consumeIf(Kind::RSquare))
                break;
            expect(Kind::Comma, "or ']' in successor list");
        }
    }
    if (at(Kind::Less)) {
        next();
        if (!at(Kind::LBrace))
            errorExpected("'{'", "to start properties");
        ir::NamedAttrList props = parseAttrDict();
        for (auto& na : props)
            op->setProp(na.name, na.value);
        expect(Kind::Greater, "to end properties");
    }
    if (at(Kind::LParen)) {
        next();
        while (true) {
            ir::Region* r = op->addRegion();
            m_defaultDialect = name == "func.func" ? "func" : (name == "builtin.module" ? "builtin" : "");
            parseRegion(*r, info && info->isolatedFromAbove, nullptr);
            if (consumeIf(Kind::RParen))
                break;
            expect(Kind::Comma, "or ')' after region");
        }
    }
    if (at(Kind::LBrace)) {
        ir::NamedAttrList d = parseAttrDict();
        moveInherentAttrs(*op, d);
    }
    expect(Kind::Colon, "before the operation's function type");
    SourcePos tp = pos();
    Type ft = parseType();
    if (ft.kind() != Type::Kind::Function)
        error(tp, "expected function type for the generic operation, found '" + ft.toString() + "'");
    addOperands(*op, refs, ft.elements(), p);
    for (const Type& t : ft.results())
        op->addResult(t);
    return op;
}

std::unique_ptr<Op> Parser::parseCustomOp(const std::string& name, const SourcePos& p)
{
    if (name == "func.func")
        return parseFuncOp(p);
    if (name == "builtin.module") {
        bool top = false;
        return parseModuleOp(p, top);
    }
    const auto& reg = ir::OpRegistry::instance();
    size_t dot = name.find('.');
    std::string dialect = dot == std::string::npos ? std::string() : name.substr(0, dot);
    if (dot == std::string::npos) {
        std::string tried = m_defaultDialect.empty() ? "" : " (tried '" + m_defaultDialect + "." + name + "' as well)";
        errorHere("custom op '" + name + "' is unknown" + tried);
    }
    if (!reg.isRegisteredDialect(dialect))
        errorHere("custom op '" + name + "' is unknown (dialect '" + dialect +
                  "' is not registered; unregistered operations must use the generic form)");
    // A registered dialect parses only its own ops (chlo, whose op set is not modelled, takes
    // any op in the element-wise form).
    const ir::OpInfo* info = reg.lookup(name);
    if (!reg.allowsUnknownOps(dialect) && !info)
        errorHere("custom op '" + name + "' is unknown");
    // As MLIR's OpState::parse: an op without an assembly format is only read in generic form.
    if (info && !info->hasCustomForm)
        errorHere("has no custom assembly form");
    m_defaultDialect.clear();
    if (dialect == "sdy")
        return parseSdyOp(name, p);
    if (dialect == "stablehlo" || dialect == "chlo" || dialect == "func")
        return parseStablehloOp(name, p);
    errorHere("custom op '" + name + "' is unknown");
}

// ---- top level ---------------------------------------------------------------------------

void Parser::parseResources()
{
    next(); // {-#
    while (!at(Kind::FileMetaEnd)) {
        if (at(Kind::Eof))
            errorExpected("'#-}'", "to end the file metadata");
        expectBareId("(resource section name)");
        expect(Kind::Colon, "after resource section name");
        expect(Kind::LBrace, "to start resource section");
        while (!at(Kind::RBrace)) {
            expectBareId("(resource dialect name)");
            expect(Kind::Colon, "after resource dialect name");
            expect(Kind::LBrace, "to start resource entries");
            while (!at(Kind::RBrace)) {
                std::string key;
                if (at(Kind::String))
                    key = MlirLexer::unescape(m_tok.text);
                else if (at(Kind::BareId))
                    key = std::string(m_tok.text);
                else
                    errorExpected("resource key");
                next();
                expect(Kind::Colon, "after resource key");
                if (at(Kind::String)) {
                    m_module->resources[key] = MlirLexer::unescape(m_tok.text);
                    next();
                } else {
                    AttrPtr a = parseAttr();
                    (void)a;
                }
                if (!consumeIf(Kind::Comma))
                    break;
            }
            expect(Kind::RBrace, "to end resource entries");
            if (!consumeIf(Kind::Comma))
                break;
        }
        expect(Kind::RBrace, "to end resource section");
        consumeIf(Kind::Comma);
    }
    next();
}

void Parser::parseTopLevel()
{
    // Pre-scan attribute alias definitions (`#name = ...` at the start of a line): a location
    // may name an alias defined further down (JAX puts its `#loc` aliases at the end).
    std::string_view src = m_lex.source();
    for (size_t i = 0; i < src.size();) {
        size_t j = i;
        while (j < src.size() && (src[j] == ' ' || src[j] == '\t'))
            ++j;
        if (j + 1 < src.size() && src[j] == '#') {
            char c = src[j + 1];
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
                size_t k = j + 1;
                while (k < src.size() && MlirLexer::isIdChar(src[k]))
                    ++k;
                std::string name(src.substr(j, k - j));
                while (k < src.size() && (src[k] == ' ' || src[k] == '\t'))
                    ++k;
                if (k < src.size() && src[k] == '=' && (k + 1 >= src.size() || src[k + 1] != '=')) {
                    m_aliasOffsets.emplace(name, k + 1);
                }
            }
        }
        size_t nl = src.find('\n', i);
        if (nl == std::string_view::npos)
            break;
        i = nl + 1;
    }

    m_module = std::make_unique<ir::Module>();
    pushScope(true);
    m_regionStack.push_back(&m_module->op().region(0));
    bool sawModule = false;
    bool sawOps = false;
    while (!at(Kind::Eof)) {
        if ((at(Kind::HashId) || at(Kind::BangId)) && peek().kind == Kind::Equal) {
            bool isType = at(Kind::BangId);
            std::string name(m_tok.text);
            SourcePos np = pos();
            // As MLIR: an alias is defined once, its name has no '.', and it can be used only
            // after its definition (locations excepted, see parseAliasRef).
            const std::string id = name.substr(1);
            if (isType) {
                if (m_typeAliasValues.count(name))
                    error(np, "redefinition of type alias id '" + id + "'");
                if (id.find('.') != std::string::npos)
                    error(np, "type names with a '.' are reserved for dialect-defined names");
            } else {
                if (m_aliasDefined.count(name))
                    error(np, "redefinition of attribute alias id '" + id + "'");
                if (id.find('.') != std::string::npos)
                    error(np, "attribute names with a '.' are reserved for dialect-defined names");
            }
            next();
            expect(Kind::Equal, isType ? "in type alias definition" : "in attribute alias definition");
            if (isType) {
                m_typeAliasValues[name] = parseType();
            } else {
                m_aliasInProgress.insert(name);
                AttrPtr a = atKeyword("loc") ? parseLocation() : parseAttr();
                m_aliasInProgress.erase(name);
                m_aliasValues[name] = a;
                m_aliasDefined.insert(name);
            }
            continue;
        }
        if (at(Kind::FileMetaBegin)) {
            parseResources();
            continue;
        }
        if (atKeyword("module") && !sawModule && !sawOps) {
            SourcePos p = pos();
            bool top = true;
            parseModuleOp(p, top);
            sawModule = true;
            continue;
        }
        if (sawModule)
            errorExpected("end of file", "after the top-level module");
        sawOps = true;
        parseOperation(m_module->body());
    }
    m_regionStack.pop_back();
    popScope();
    adoptSingleGenericModule();
}

void Parser::adoptSingleGenericModule()
{
    // A file holding one generic `"builtin.module"() ({...})` is that module (as in MLIR):
    // move its attributes and body into the module instead of nesting it.
    ir::Block& body = m_module->body();
    if (body.ops().size() != 1)
        return;
    Op* inner = body.ops().front().get();
    if (inner->name() != "builtin.module" || inner->numRegions() != 1 || inner->region(0).blocks().size() != 1)
        return;
    Op& outer = m_module->op();
    outer.props() = inner->props();
    outer.attrs() = inner->attrs();
    outer.pos = inner->pos;
    outer.loc = inner->loc;
    std::unique_ptr<Op> owned = body.remove(inner);
    ir::Block& innerBody = owned->region(0).front();
    while (!innerBody.ops().empty())
        body.push_back(innerBody.remove(innerBody.ops().front().get()));
}

std::unique_ptr<ir::Module> Parser::parseModuleTop()
{
    try {
        if (m_tok.kind == Kind::Error)
            errorHere("unexpected character " + describeToken(m_tok));
        parseTopLevel();
        return std::move(m_module);
    } catch (const ParseFailure&) {
        return nullptr;
    }
}

AttrPtr Parser::parseStandaloneAttr()
{
    try {
        if (m_tok.kind == Kind::Error)
            errorHere("unexpected character " + describeToken(m_tok));
        AttrPtr a = parseAttr();
        if (!at(Kind::Eof))
            errorExpected("end of attribute");
        return a;
    } catch (const ParseFailure&) {
        return nullptr;
    }
}

bool Parser::parseStandaloneType(Type& out)
{
    try {
        if (m_tok.kind == Kind::Error)
            errorHere("unexpected character " + describeToken(m_tok));
        out = parseType();
        if (!at(Kind::Eof))
            errorExpected("end of type");
        return true;
    } catch (const ParseFailure&) {
        return false;
    }
}

} // namespace detail

std::unique_ptr<ir::Module> parseMlir(std::string_view text, const std::string& fileName, DiagnosticList& diags,
                                      const ReadOptions& options)
{
    detail::Parser parser(text, fileName, diags, options);
    std::unique_ptr<ir::Module> m = parser.parseModuleTop();
    if (m)
        m->fileName = fileName;
    return m;
}

ir::AttrPtr parseAttribute(std::string_view text, DiagnosticList& diags)
{
    detail::Parser parser(text, "<attribute>", diags, ReadOptions{});
    return parser.parseStandaloneAttr();
}

bool parseType(std::string_view text, ir::Type& out, DiagnosticList& diags)
{
    detail::Parser parser(text, "<type>", diags, ReadOptions{});
    return parser.parseStandaloneType(out);
}

} // namespace shardx::io
