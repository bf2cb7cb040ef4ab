// Parser (MlirReaderImpl.h): custom forms of the sdy ops (SDY.md 2 / 6.4). Prop names: see ReaderOps.cpp.
#include "core/io/MlirReaderImpl.h"

namespace shardx::io::detail {

using namespace ir;

namespace {

AttrPtr reductionKindAttr(const std::string& kw) { return opaque("sdy", "", "reduction_kind " + kw); }

} // namespace

std::unique_ptr<Op> Parser::parseRegionSdyOp(std::unique_ptr<Op> op, const SourcePos& p, bool named)
{
    if (named) {
        expect(Kind::Less, "after 'sdy.named_computation'");
        op->setProp("name", makeAttr(StringAttr{expectString("(computation name)")}));
        expect(Kind::Greater, "after computation name");
    }
    expect(Kind::LParen, "to start operands");
    std::vector<OperandRef> refs = parseOperandRefs();
    expect(Kind::RParen, "to end operands");
    auto shardings = [&](const char* key) {
        if (!atKeyword(key))
            return false;
        next();
        expect(Kind::Equal, std::string("after '") + key + "'");
        op->setProp(key, makeAttr(ShardingPerValueAttr{parseShardingList()}));
        return true;
    };
    bool hasIn = shardings("in_shardings");
    bool hasOut = shardings("out_shardings");
    if (!named) {
        if (!hasIn)
            errorExpected("'in_shardings'", "in sdy.manual_computation");
        if (!hasOut)
            errorExpected("'out_shardings'", "in sdy.manual_computation");
        expectKeyword("manual_axes", "in sdy.manual_computation");
        expect(Kind::Equal, "after 'manual_axes'");
        op->setProp("manual_axes", makeAttr(ManualAxesAttr{parseManualAxes()}));
    }
    std::vector<std::pair<ResultDef, Type>> args;
    std::vector<AttrPtr> locs;
    parseBlockArgList(args, &locs);
    Region* region = op->addRegion();
    std::vector<Value*> vals;
    parseRegion(*region, true, &args, &vals);
    for (size_t i = 0; i < vals.size(); ++i)
        vals[i]->loc = locs[i];
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
        op->setProp("out_sharding", makeAttr(ShardingAttr{parseShardingBody()}));
        return finishUnary(ref, true);
    };
    auto optionalKind = [&]() {
        if (atKeyword("sum") || atKeyword("max") || atKeyword("min")) {
            if (!atKeyword("sum"))
                op->setProp("reduction_kind", reductionKindAttr(std::string(m_tok.text)));
            next();
        }
    };

    if (s == "mesh") {
        if (!at(Kind::AtId))
            errorExpected("mesh name '@name'", "in sdy.mesh");
        std::string_view t = m_tok.text.substr(1);
        op->setProp("sym_name",
                    makeAttr(StringAttr{!t.empty() && t[0] == '"' ? MlirLexer::unescape(t) : std::string(t)}));
        next();
        expect(Kind::Equal, "after mesh name");
        op->setProp("mesh", makeAttr(MeshAttr{parseMeshBody(p)}));
        parseOptionalAttrDictInto(*op);
        return op;
    }
    if (s == "sharding_constraint" || s == "reshard") {
        OperandRef ref = parseOperandRef();
        op->setProp("sharding", makeAttr(ShardingAttr{parseShardingBody()}));
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
        op->setProp("allowed_direction", opaque("sdy", "", "propagation_direction " + dir));
        return finishUnary(ref, true);
    }
    if (s == "sharding_group") {
        OperandRef ref = parseOperandRef();
        keywordEq("group_id");
        op->setProp("group_id", i64Attr(parseInt64("as group id")));
        return finishUnary(ref, false);
    }
    if (s == "data_flow_edge") {
        OperandRef ref = parseOperandRef();
        if (atKeyword("sharding")) {
            next();
            expect(Kind::Equal, "after 'sharding'");
            op->setProp("sharding", makeAttr(ShardingAttr{parseShardingBody()}));
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
        op->setProp(s == "all_gather" ? "gathering_axes" : "slicing_axes",
                    makeAttr(ListOfAxisRefListsAttr{parseAxisListList()}));
        return collective();
    }
    if (s == "all_reduce") {
        optionalKind();
        op->setProp("reduction_axes", makeAttr(AxisRefListAttr{parseAxisList()}));
        return collective();
    }
    if (s == "reduce_scatter") {
        optionalKind();
        op->setProp("reduce_scatter_axes", makeAttr(ListOfAxisRefListsAttr{parseAxisListList()}));
        return collective();
    }
    if (s == "all_to_all") {
        op->setProp("params", makeAttr(AllToAllParamListAttr{parseAllToAllParams()}));
        return collective();
    }
    if (s == "collective_permute")
        return collective();
    if (s == "sharded_to_unreduced") {
        op->setProp("axes", makeAttr(ListOfAxisRefListsAttr{parseAxisListList()}));
        return collective();
    }
    if (s == "replicated_to_unreduced") {
        op->setProp("axes", makeAttr(AxisRefListAttr{parseAxisList()}));
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
