// Parser (MlirReaderImpl.h): the StableHLO ops with regions, reduce (full and `applies` forms) and while.
#include "core/io/MlirReaderImpl.h"
#include "core/ir/OpRegistry.h"

namespace shardx::io::detail {

using namespace ir;

std::unique_ptr<Op> Parser::parseReduce(std::unique_ptr<Op> op, const SourcePos& p)
{
    std::vector<OperandRef> inputs, inits;
    expect(Kind::LParen, "to start reduce operands");
    while (true) {
        inputs.push_back(parseOperandRef());
        expectKeyword("init", "in reduce operand");
        expect(Kind::Colon, "after 'init'");
        inits.push_back(parseOperandRef());
        expect(Kind::RParen, "to end reduce operand");
        if (at(Kind::Comma) && peek().kind == Kind::LParen) {
            next();
            next();
            continue;
        }
        break;
    }
    std::string bodyOp;
    SourcePos bodyPos;
    if (consumeKeyword("applies")) {
        bodyPos = pos();
        bodyOp = resolveOpName(expectBareId("(reduction op name)"));
        // The body op is an op like any other: one of a dialect that is not registered needs
        // -allow-unregistered-dialect here too, as it does in the generic form the printer writes.
        const size_t dot = bodyOp.find('.');
        const std::string dialect = dot == std::string::npos ? std::string() : bodyOp.substr(0, dot);
        if (!ir::OpRegistry::instance().isRegisteredDialect(dialect) && !m_opts.allowUnregisteredDialects &&
            !m_opts.keepUnknownOps)
            error(bodyPos, "unregistered operation '" + bodyOp +
                               "' found (use -allow-unregistered-dialect to keep operations of unknown dialects)");
    }
    expectKeyword("across", "in reduce");
    expectKeyword("dimensions", "in reduce");
    expect(Kind::Equal, "after 'dimensions'");
    op->setProp("dimensions", parseI64ListAsArray());
    parseOptionalAttrDictInto(*op);
    expect(Kind::Colon, "before reduce type");
    Type ft = parseFunctionType();
    std::vector<OperandRef> refs = inputs;
    refs.insert(refs.end(), inits.begin(), inits.end());
    addOperands(*op, refs, ft.elements(), p);
    for (const Type& r : ft.results())
        op->addResult(r);
    const size_t n = inputs.size();
    Region* region = op->addRegion();
    if (!bodyOp.empty()) {
        Block* b = region->addBlock();
        for (int pass = 0; pass < 2; ++pass)
            for (size_t k = 0; k < n; ++k)
                b->addArgument(ft.elements()[n + k]);
        auto body = std::make_unique<Op>(bodyOp);
        body->pos = bodyPos;
        for (size_t k = 0; k < n; ++k) {
            body->addOperand(b->arg(static_cast<unsigned>(k)));
            body->addOperand(b->arg(static_cast<unsigned>(n + k)));
        }
        for (size_t k = 0; k < n; ++k)
            body->addResult(ft.elements()[n + k]);
        Op* raw = b->push_back(std::move(body));
        auto ret = std::make_unique<Op>("stablehlo.return");
        ret->pos = bodyPos;
        for (unsigned k = 0; k < raw->numResults(); ++k)
            ret->addOperand(raw->result(k));
        b->push_back(std::move(ret));
        return op;
    }
    expectKeyword("reducer", "in reduce");
    std::vector<std::pair<ResultDef, Type>> args(2 * n);
    std::vector<AttrPtr> argLocs(2 * n);
    for (size_t k = 0; k < n; ++k) {
        std::vector<std::pair<ResultDef, Type>> pair;
        std::vector<AttrPtr> pairLocs;
        parseBlockArgList(pair, &pairLocs);
        if (pair.size() != 2)
            errorHere("expected two reducer arguments per reduce input");
        args[k] = pair[0];
        args[n + k] = pair[1];
        argLocs[k] = pairLocs[0];
        argLocs[n + k] = pairLocs[1];
    }
    std::vector<Value*> vals;
    parseRegion(*region, false, &args, &vals);
    for (size_t i = 0; i < vals.size(); ++i)
        vals[i]->setLoc(argLocs[i]);
    return op;
}

std::unique_ptr<Op> Parser::parseWhile(std::unique_ptr<Op> op, const SourcePos& p)
{
    expect(Kind::LParen, "to start while operands");
    std::vector<ResultDef> names;
    std::vector<OperandRef> refs;
    if (!consumeIf(Kind::RParen)) {
        while (true) {
            if (!at(Kind::PercentId))
                errorExpected("SSA name", "in while operands");
            ResultDef d;
            d.offset = m_tok.begin;
            d.name = m_tok.text.substr(1);
            next();
            expect(Kind::Equal, "in while operand");
            refs.push_back(parseOperandRef());
            names.push_back(d);
            if (consumeIf(Kind::RParen))
                break;
            expect(Kind::Comma, "or ')' in while operands");
        }
    }
    std::vector<Type> types;
    if (!refs.empty()) {
        expect(Kind::Colon, "before while types");
        types.push_back(parseType());
        while (consumeIf(Kind::Comma))
            types.push_back(parseType());
    }
    if (consumeKeyword("attributes")) {
        NamedAttrList d = parseAttrDict();
        moveInherentAttrs(*op, d);
    }
    addOperands(*op, refs, types, p);
    for (const Type& t : types)
        op->addResult(t);
    std::vector<std::pair<ResultDef, Type>> args;
    for (size_t i = 0; i < names.size(); ++i)
        args.emplace_back(names[i], types[i]);
    expectKeyword("cond", "in while");
    parseRegion(*op->addRegion(), false, &args);
    expectKeyword("do", "in while");
    parseRegion(*op->addRegion(), false, &args);
    return op;
}

} // namespace shardx::io::detail
