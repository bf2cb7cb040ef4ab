// Parser (MlirReaderImpl.h): builtin.module and the func dialect (func, call, return, constant, call_indirect).
#include "core/io/MlirReaderImpl.h"

namespace shardx::io::detail {

using namespace ir;

std::unique_ptr<Op> Parser::parseModuleOp(const SourcePos& p, bool& isTopModule)
{
    next(); // module
    std::unique_ptr<Op> owned;
    Op* target;
    if (isTopModule) {
        target = &m_module->op();
    } else {
        owned = std::make_unique<Op>("builtin.module");
        owned->addRegion();
        target = owned.get();
    }
    target->pos = p;
    if (at(Kind::AtId)) {
        std::string_view t = m_tok.text.substr(1);
        setSymbolName(*target, nameText(t, m_tok.begin));
        next();
    }
    if (consumeKeyword("attributes")) {
        NamedAttrList d = parseAttrDict();
        moveInherentAttrs(*target, d);
    }
    if (isTopModule) {
        expect(Kind::LBrace, "to begin the module body");
        parseRegionBody(target->region(0), &m_module->body());
        parseOptionalTrailingLoc(target->loc);
        return nullptr;
    }
    std::vector<std::pair<ResultDef, Type>> none;
    m_defaultDialect = "builtin";
    parseRegion(target->region(0), true, &none);
    return owned;
}

std::unique_ptr<Op> Parser::parseFuncOp(const SourcePos& p)
{
    next(); // func.func
    auto op = std::make_unique<Op>("func.func");
    if (atKeyword("public") || atKeyword("private") || atKeyword("nested")) {
        setSymbolVisibility(*op, std::string(m_tok.text));
        next();
    }
    if (!at(Kind::AtId))
        errorExpected("function name '@name'");
    std::string_view nm = m_tok.text.substr(1);
    setSymbolName(*op, nameText(nm, m_tok.begin));
    next();
    std::vector<std::pair<ResultDef, Type>> args;
    std::vector<AttrPtr> argLocs;
    std::vector<Type> inTypes, outTypes;
    std::vector<AttrPtr> argDicts, resDicts;
    bool anyAttr = false;
    expect(Kind::LParen, "to start function arguments");
    if (!consumeIf(Kind::RParen)) {
        bool named = at(Kind::PercentId);
        while (true) {
            ResultDef d;
            if (named) {
                if (!at(Kind::PercentId))
                    errorExpected("SSA argument name", "in function signature");
                d.offset = m_tok.begin;
                d.name = m_tok.text.substr(1);
                next();
                expect(Kind::Colon, "after argument name");
            }
            Type t = parseType();
            NamedAttrList dict;
            if (at(Kind::LBrace)) {
                dict = parseAttrDict();
                anyAttr = anyAttr || !dict.empty();
            }
            argDicts.push_back(makeAttr(DictionaryAttr{dict}));
            AttrPtr loc;
            parseOptionalTrailingLoc(loc);
            argLocs.push_back(loc);
            inTypes.push_back(t);
            if (named)
                args.emplace_back(d, t);
            if (consumeIf(Kind::RParen))
                break;
            expect(Kind::Comma, "or ')' in function arguments");
        }
    }
    bool anyResAttr = false;
    if (consumeIf(Kind::Arrow)) {
        if (consumeIf(Kind::LParen)) {
            if (!consumeIf(Kind::RParen)) {
                while (true) {
                    outTypes.push_back(parseType());
                    NamedAttrList dict;
                    if (at(Kind::LBrace)) {
                        dict = parseAttrDict();
                        anyResAttr = anyResAttr || !dict.empty();
                    }
                    resDicts.push_back(makeAttr(DictionaryAttr{dict}));
                    if (consumeIf(Kind::RParen))
                        break;
                    expect(Kind::Comma, "or ')' in function results");
                }
            }
        } else {
            outTypes.push_back(parseType());
            resDicts.push_back(makeAttr(DictionaryAttr{}));
        }
    }
    if (consumeKeyword("attributes")) {
        NamedAttrList d = parseAttrDict();
        moveInherentAttrs(*op, d);
    }
    setFuncType(*op, Type::function(inTypes, outTypes));
    if (anyAttr)
        op->setProp(kArgAttrsAttr, makeAttr(ArrayAttr{argDicts}));
    if (anyResAttr)
        op->setProp(kResAttrsAttr, makeAttr(ArrayAttr{resDicts}));
    Region* body = op->addRegion();
    if (at(Kind::LBrace)) {
        // As MLIR: a body without arguments or ops would be printed as none, so `{}` is refused.
        if (args.empty() && peek().kind == Kind::RBrace)
            errorHere("expected non-empty function body");
        if (args.size() != inTypes.size())
            errorHere("expected named arguments '%name: type' for a function with a body");
        m_defaultDialect = "func";
        std::vector<Value*> vals;
        parseRegion(*body, true, &args, &vals);
        for (size_t i = 0; i < vals.size(); ++i)
            vals[i]->setLoc(argLocs[i]);
    }
    (void)p;
    return op;
}

std::unique_ptr<Op> Parser::parseFuncDialectOp(const std::string& name, const SourcePos& p)
{
    next(); // op name
    auto op = std::make_unique<Op>(name);
    const std::string shortName = name.substr(name.find('.') + 1);
    if (shortName == "return") {
        return parseReturnLike(std::move(op), p);
    }
    if (shortName == "call") {
        if (!at(Kind::AtId))
            errorExpected("callee '@name'");
        std::string_view t = m_tok.text.substr(1);
        setCalleeName(*op, nameText(t, m_tok.begin));
        next();
        expect(Kind::LParen, "to start call operands");
        std::vector<OperandRef> refs = parseOperandRefs();
        expect(Kind::RParen, "to end call operands");
        parseOptionalAttrDictInto(*op);
        expect(Kind::Colon, "before call type");
        Type ft = parseFunctionType();
        addOperands(*op, refs, ft.elements(), p);
        for (const Type& r : ft.results())
            op->addResult(r);
        return op;
    }
    if (shortName == "constant")
        return parseFuncConstant(std::move(op), p);
    if (shortName == "call_indirect")
        return parseCallIndirect(std::move(op), p);
    errorHere("custom op '" + name + "' is unknown");
}

std::unique_ptr<Op> Parser::parseFuncConstant(std::unique_ptr<Op> op, const SourcePos& p)
{
    (void)p;
    parseOptionalAttrDictInto(*op);
    if (!at(Kind::AtId))
        errorExpected("symbol reference '@name'", "in func.constant");
    std::string_view t = m_tok.text.substr(1);
    op->setProp("value", makeAttr(SymbolRefAttr{{nameText(t, m_tok.begin)}}));
    next();
    expect(Kind::Colon, "before constant type");
    op->addResult(parseType());
    return op;
}

std::unique_ptr<Op> Parser::parseCallIndirect(std::unique_ptr<Op> op, const SourcePos& p)
{
    OperandRef callee = parseOperandRef();
    expect(Kind::LParen, "to start call_indirect operands");
    std::vector<OperandRef> refs = parseOperandRefs();
    expect(Kind::RParen, "to end call_indirect operands");
    parseOptionalAttrDictInto(*op);
    expect(Kind::Colon, "before callee type");
    SourcePos tp = pos();
    Type ft = parseType();
    if (ft.kind() != Type::Kind::Function)
        error(tp, "invalid kind of type specified");
    std::vector<OperandRef> all{callee};
    all.insert(all.end(), refs.begin(), refs.end());
    std::vector<Type> types{ft};
    types.insert(types.end(), ft.elements().begin(), ft.elements().end());
    addOperands(*op, all, types, p);
    for (const Type& r : ft.results())
        op->addResult(r);
    return op;
}

} // namespace shardx::io::detail
