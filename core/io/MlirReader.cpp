// MLIR text reader (MlirReader.h; Parser of MlirReaderImpl.h): entry points, top level, regions, operations.
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

// ---- op attributes and names ------------------------------------------------------------------

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
        d.offset = m_tok.begin;
        d.name = m_tok.text.substr(1);
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
            v->setPos(posOf(def.offset));
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
                    v->setPos(posOf(args[i].first.offset));
                    v->setLoc(locs[i]);
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
    // This op's result list is m_resultDefs[resultsBegin, end): the ops in its regions push theirs
    // above it and drop them again before it goes on (no allocation per op).
    const size_t resultsBegin = m_resultDefs.size();
    if (at(Kind::PercentId)) {
        while (true) {
            if (!at(Kind::PercentId))
                errorExpected("SSA value name", "in result list");
            ResultDef d;
            d.offset = m_tok.begin;
            d.name = m_tok.text.substr(1);
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
            m_resultDefs.push_back(d);
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
        // A dotted name (nearly every op) is its own resolution: its interned spelling, found by its
        // token's text, is the name (no copy per op).
        std::string undotted;
        const std::string* name = nullptr;
        if (m_tok.text.find('.') != std::string_view::npos) {
            if (const ir::OperationName* known = m_opNames.find(m_tok.text)) {
                name = &known->str();
            } else {
                const ir::OperationName interned(m_tok.text);
                m_opNames.insert(m_tok.text, interned);
                name = &interned.str(); // the process-wide table's storage
            }
        } else {
            undotted = resolveOpName(std::string(m_tok.text));
            name = &undotted;
        }
        unsigned numResults = 0;
        for (size_t k = resultsBegin; k < m_resultDefs.size(); ++k)
            numResults += m_resultDefs[k].count;
        op = parseCustomOp(*name, p, numResults); // clears the default dialect once the name is known
    } else {
        errorExpected("operation name");
    }
    m_defaultDialect = savedDialect;
    op->pos = std::move(p);
    parseOptionalTrailingLoc(op->loc);
    unsigned total = 0;
    for (size_t k = resultsBegin; k < m_resultDefs.size(); ++k)
        total += m_resultDefs[k].count;
    if (m_resultDefs.size() > resultsBegin && total != op->numResults())
        error(op->pos, "operation defines " + std::to_string(op->numResults()) + " results but was provided " +
                           std::to_string(total) + " to bind");
    Op* raw = block.push_back(std::move(op));
    unsigned idx = 0;
    for (size_t k = resultsBegin; k < m_resultDefs.size(); ++k) {
        const ResultDef& d = m_resultDefs[k];
        std::vector<Value*> vs;
        if (d.count == 1) {
            Value* v = raw->result(idx++);
            defineValues(d, &v, 1);
            continue;
        }
        for (unsigned r = 0; r < d.count; ++r)
            vs.push_back(raw->result(idx++));
        defineValues(d, vs);
    }
    m_resultDefs.resize(resultsBegin);
}

std::unique_ptr<Op> Parser::parseGenericOp(const SourcePos& p)
{
    std::string name = nameText(m_tok.text, m_tok.begin);
    next();
    const auto& reg = ir::OpRegistry::instance();
    size_t dot = name.find('.');
    std::string dialect = dot == std::string::npos ? std::string() : name.substr(0, dot);
    if (!reg.isRegisteredDialect(dialect) && !m_opts.allowUnregisteredDialects && !m_opts.keepUnknownOps)
        error(p, "unregistered operation '" + name +
                     "' found (use -allow-unregistered-dialect to keep operations of unknown dialects)");
    const ir::OpInfo* info = reg.lookup(name);
    if (m_opts.keepUnknownOps && !info && (!reg.isRegisteredDialect(dialect) || !reg.allowsUnknownOps(dialect)))
        noteUnknownOp(name, p);
    auto op = std::make_unique<Op>(name);
    expect(Kind::LParen, "to start operand list");
    std::vector<OperandRef> refs = parseOperandRefs();
    expect(Kind::RParen, "to end operand list");
    if (consumeIf(Kind::LSquare)) {
        while (true) {
            if (!at(Kind::CaretId))
                errorExpected("block label", "in successor list");
            op->addSuccessor(blockForLabel(std::string(m_tok.text), pos()));
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

std::unique_ptr<Op> Parser::parseCustomOp(const std::string& name, const SourcePos& p, unsigned numResults)
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
    const ir::OpInfo* info = reg.lookup(name);
    if (m_opts.keepUnknownOps && (!reg.isRegisteredDialect(dialect) || (!reg.allowsUnknownOps(dialect) && !info))) {
        m_defaultDialect.clear();
        return parseOpaqueOp(name, p, numResults);
    }
    if (!reg.isRegisteredDialect(dialect))
        errorHere("custom op '" + name + "' is unknown (dialect '" + dialect +
                  "' is not registered; unregistered operations must use the generic form)");
    // A registered dialect parses only its own ops (chlo, whose op set is not modelled, takes
    // any op in the element-wise form).
    if (!reg.allowsUnknownOps(dialect) && !info)
        errorHere("custom op '" + name + "' is unknown");
    // As MLIR's OpState::parse: an op without an assembly format is only read in generic form.
    if (info && !info->hasCustomForm)
        errorHere("has no custom assembly form");
    m_defaultDialect.clear();
    if (dialect == "sdy")
        return parseSdyOp(name, p);
    if (dialect == "func")
        return parseFuncDialectOp(name, p);
    if (dialect == "stablehlo" || dialect == "chlo")
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
                    key = nameText(m_tok.text, m_tok.begin);
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
        reportUnknownOps();
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

ir::AttrPtr parseAttribute(std::string_view text, DiagnosticList& diags, const ReadOptions& options)
{
    detail::Parser parser(text, "<attribute>", diags, options);
    return parser.parseStandaloneAttr();
}

bool parseType(std::string_view text, ir::Type& out, DiagnosticList& diags, const ReadOptions& options)
{
    detail::Parser parser(text, "<type>", diags, options);
    return parser.parseStandaloneType(out);
}

} // namespace shardx::io
