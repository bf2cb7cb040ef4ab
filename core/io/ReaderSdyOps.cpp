// Parser (MlirReaderImpl.h): custom forms of the sdy ops (SDY.md 2 / 6.4). Attributes: ir/SdyOps.h, ShardingAccess.h.
#include "core/io/MlirReaderImpl.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"

namespace shardx::io::detail {

using namespace ir;

std::unique_ptr<Op> Parser::parseRegionSdyOp(std::unique_ptr<Op> op, const SourcePos& p, bool named)
{
    if (named) {
        expect(Kind::Less, "after 'sdy.named_computation'");
        setComputationName(*op, expectName("(computation name)"));
        expect(Kind::Greater, "after computation name");
    }
    expect(Kind::LParen, "to start operands");
    std::vector<OperandRef> refs = parseOperandRefs();
    expect(Kind::RParen, "to end operands");
    auto shardings = [&](const char* key, void (*set)(Op&, ShardingPerValue)) {
        if (!atKeyword(key))
            return false;
        next();
        expect(Kind::Equal, std::string("after '") + key + "'");
        set(*op, parseShardingList());
        return true;
    };
    bool hasIn = shardings("in_shardings", setInShardings);
    bool hasOut = shardings("out_shardings", setOutShardings);
    if (!named) {
        if (!hasIn)
            errorExpected("'in_shardings'", "in sdy.manual_computation");
        if (!hasOut)
            errorExpected("'out_shardings'", "in sdy.manual_computation");
        expectKeyword("manual_axes", "in sdy.manual_computation");
        expect(Kind::Equal, "after 'manual_axes'");
        setManualAxes(*op, parseManualAxes());
    }
    std::vector<std::pair<ResultDef, Type>> args;
    std::vector<AttrPtr> locs;
    parseBlockArgList(args, &locs);
    Region* region = op->addRegion();
    std::vector<Value*> vals;
    parseRegion(*region, true, &args, &vals);
    for (size_t i = 0; i < vals.size(); ++i)
        vals[i]->setLoc(locs[i]);
    Block& body = region->front();
    if (body.empty() || body.terminator()->name() != "sdy.return") {
        auto ret = std::make_unique<Op>("sdy.return");
        ret->pos = p;
        body.push_back(std::move(ret));
    }
    parseOptionalAttrDictInto(*op);
    expect(Kind::Colon, "before operation type");
    Type ft = parseFunctionType();
    addOperands(*op, refs, ft.elements(), p);
    for (const Type& r : ft.results())
        op->addResult(r);
    return op;
}

std::unique_ptr<Op> Parser::parseSdyOp(const std::string& name, const SourcePos& p)
{
    next(); // op name
    auto op = std::make_unique<Op>(name);
    const std::string s = name.substr(4);

    // `%x {attrs} : T` with identical operand and result type.
    auto finishUnary = [&](const OperandRef& ref, bool hasResult) {
        parseOptionalAttrDictInto(*op);
        expect(Kind::Colon, "before type");
        Type t = parseType();
        op->addOperand(resolve(ref, &t));
        if (hasResult)
            op->addResult(t);
        return std::move(op);
    };
    auto keywordEq = [&](const char* kw) {
        expectKeyword(kw, "in '" + name + "'");
        expect(Kind::Equal, std::string("after '") + kw + "'");
    };
    auto collective = [&]() {
        OperandRef ref = parseOperandRef();
        keywordEq("out_sharding");
        setOutSharding(*op, parseShardingBody());
        return finishUnary(ref, true);
    };
    auto optionalKind = [&]() {
        if (atKeyword("sum") || atKeyword("max") || atKeyword("min")) {
            if (!atKeyword("sum"))
                setReductionKind(*op, *parseReductionKind(m_tok.text));
            next();
        }
    };

    if (s == "mesh") {
        if (!at(Kind::AtId))
            errorExpected("mesh name '@name'", "in sdy.mesh");
        std::string_view t = m_tok.text.substr(1);
        setSymbolName(*op, nameText(t, m_tok.begin));
        next();
        expect(Kind::Equal, "after mesh name");
        setMeshOpMesh(*op, parseMeshBody(p));
        parseOptionalAttrDictInto(*op);
        return op;
    }
    if (s == "sharding_constraint" || s == "reshard") {
        OperandRef ref = parseOperandRef();
        setOpSharding(*op, parseShardingBody());
        return finishUnary(ref, true);
    }
    if (s == "propagation_barrier") {
        OperandRef ref = parseOperandRef();
        keywordEq("allowed_direction");
        SourcePos dp = pos();
        std::string dir = expectBareId("(propagation direction NONE, FORWARD or BACKWARD)");
        if (dir == "BOTH")
            error(dp, "cannot specify `BOTH` as the direction");
        if (dir != "NONE" && dir != "FORWARD" && dir != "BACKWARD")
            error(dp, "invalid propagation direction '" + dir + "' (expected NONE, FORWARD or BACKWARD)");
        setBarrierDirection(*op, *parseDirection(dir));
        return finishUnary(ref, true);
    }
    if (s == "sharding_group") {
        OperandRef ref = parseOperandRef();
        keywordEq("group_id");
        setShardingGroupId(*op, parseInt64("as group id"));
        return finishUnary(ref, false);
    }
    if (s == "data_flow_edge") {
        OperandRef ref = parseOperandRef();
        if (atKeyword("sharding")) {
            next();
            expect(Kind::Equal, "after 'sharding'");
            setOpSharding(*op, parseShardingBody());
        }
        return finishUnary(ref, true);
    }
    if (s == "func_data_flow_edge") {
        OperandRef ref = parseOperandRef();
        return finishUnary(ref, true);
    }
    if (s == "constant") {
        parseOptionalAttrDictInto(*op);
        SourcePos vp = pos();
        AttrPtr v = parseAttr();
        const auto* d = v->as<DenseElementsAttr>();
        const auto* r = v->as<DenseResourceAttr>();
        if (!d && !r)
            error(vp, "expected elements literal for sdy.constant");
        op->setProp("value", v);
        op->addResult(d ? d->type : r->type);
        return op;
    }
    if (s == "all_gather" || s == "all_slice") {
        setPerDimCollectiveAxes(*op, parseAxisListList());
        return collective();
    }
    if (s == "all_reduce") {
        optionalKind();
        setCollectiveAxisList(*op, parseAxisList());
        return collective();
    }
    if (s == "reduce_scatter") {
        optionalKind();
        setPerDimCollectiveAxes(*op, parseAxisListList());
        return collective();
    }
    if (s == "all_to_all") {
        setAllToAllParams(*op, parseAllToAllParams());
        return collective();
    }
    if (s == "collective_permute")
        return collective();
    if (s == "sharded_to_unreduced") {
        setPerDimCollectiveAxes(*op, parseAxisListList());
        return collective();
    }
    if (s == "replicated_to_unreduced") {
        setCollectiveAxisList(*op, parseAxisList());
        return collective();
    }
    if (s == "manual_computation")
        return parseRegionSdyOp(std::move(op), p, false);
    if (s == "named_computation")
        return parseRegionSdyOp(std::move(op), p, true);
    if (s == "return") {
        return parseReturnLike(std::move(op), p);
    }
    error(p, "custom op '" + name + "' is unknown");
}

} // namespace shardx::io::detail
