// Parser (MlirReaderImpl.h): sdy attributes (meshes, shardings, axis lists, sharding rules, edges).
#include "core/io/MlirReaderImpl.h"
#include "core/mesh/MeshVerifier.h"

namespace shardx::io::detail {

using namespace ir;

Mesh Parser::parseMeshBody(const SourcePos& errPos)
{
    expect(Kind::Less, "to start mesh");
    expect(Kind::LSquare, "to start mesh axes");
    std::vector<MeshAxis> axes;
    std::vector<int64_t> ids;
    if (!consumeIf(Kind::RSquare)) {
        while (true) {
            MeshAxis a;
            a.name = expectString("(mesh axis name)");
            expect(Kind::Equal, "after mesh axis name");
            a.size = parseInt64("as mesh axis size");
            axes.push_back(a);
            if (consumeIf(Kind::RSquare))
                break;
            expect(Kind::Comma, "or ']' in mesh axes");
        }
    }
    if (consumeIf(Kind::Comma)) {
        expectKeyword("device_ids", "after ',' in mesh");
        expect(Kind::Equal, "after 'device_ids'");
        expect(Kind::LSquare, "to start device ids");
        if (!consumeIf(Kind::RSquare)) {
            while (true) {
                ids.push_back(parseInt64("as device id"));
                if (ids.size() > (size_t(1) << 26))
                    errorHere("too many device ids");
                if (consumeIf(Kind::RSquare))
                    break;
                expect(Kind::Comma, "or ']' in device ids");
            }
        }
    }
    expect(Kind::Greater, "to end mesh");
    if (auto err = verifyMesh(axes, ids))
        error(errPos, *err);
    return Mesh(std::move(axes), std::move(ids));
}

MeshRef Parser::parseMeshOrRef()
{
    MeshRef r;
    if (at(Kind::AtId)) {
        std::string_view t = m_tok.text.substr(1);
        r.symbol = !t.empty() && t[0] == '"' ? MlirLexer::unescape(t) : std::string(t);
        next();
        return r;
    }
    if (atKeyword("mesh")) {
        SourcePos p = pos();
        next();
        r.inlineMesh = parseMeshBody(p);
        return r;
    }
    errorExpected("mesh symbol '@name' or inline 'mesh<...>'", "in sharding");
}

AxisRef Parser::parseAxisRef()
{
    AxisRef a(expectString("(axis name)"));
    if (at(Kind::Colon) && peek().kind == Kind::LParen) {
        next();
        next();
        int64_t pre = parseInt64("as sub-axis pre-size");
        expect(Kind::RParen, "after sub-axis pre-size");
        int64_t size = parseInt64("as sub-axis size");
        a.sub = SubAxisInfo{pre, size};
    }
    return a;
}

std::vector<AxisRef> Parser::parseAxisList()
{
    expect(Kind::LBrace, "to start axis list");
    std::vector<AxisRef> out;
    if (consumeIf(Kind::RBrace))
        return out;
    while (true) {
        out.push_back(parseAxisRef());
        if (consumeIf(Kind::RBrace))
            break;
        if (!at(Kind::Comma))
            errorExpected("'}'", "to end axis list");
        next();
    }
    return out;
}

std::vector<std::vector<AxisRef>> Parser::parseAxisListList()
{
    expect(Kind::LSquare, "to start list of axis lists");
    std::vector<std::vector<AxisRef>> out;
    if (consumeIf(Kind::RSquare))
        return out;
    while (true) {
        out.push_back(parseAxisList());
        if (consumeIf(Kind::RSquare))
            break;
        expect(Kind::Comma, "or ']' in list of axis lists");
    }
    return out;
}

std::vector<AllToAllParam> Parser::parseAllToAllParams()
{
    expect(Kind::LSquare, "to start all-to-all parameters");
    std::vector<AllToAllParam> out;
    if (consumeIf(Kind::RSquare))
        return out;
    while (true) {
        AllToAllParam p;
        p.axes = parseAxisList();
        expect(Kind::Colon, "after all-to-all axes");
        p.srcDim = parseInt64("as all-to-all source dimension");
        expect(Kind::Arrow, "between all-to-all source and target dimensions");
        p.tgtDim = parseInt64("as all-to-all target dimension");
        out.push_back(std::move(p));
        if (consumeIf(Kind::RSquare))
            break;
        expect(Kind::Comma, "or ']' in all-to-all parameters");
    }
    return out;
}

std::vector<std::string> Parser::parseManualAxes()
{
    expect(Kind::LBrace, "to start manual axes");
    std::vector<std::string> out;
    if (consumeIf(Kind::RBrace))
        return out;
    while (true) {
        out.push_back(expectString("(manual axis name)"));
        if (consumeIf(Kind::RBrace))
            break;
        expect(Kind::Comma, "or '}' in manual axes");
    }
    return out;
}

DimSharding Parser::parseDimSharding()
{
    DimSharding d;
    expect(Kind::LBrace, "to start dimension sharding");
    if (consumeIf(Kind::Question)) {
        d.closed = false;
    } else if (!at(Kind::RBrace)) {
        while (true) {
            d.axes.push_back(parseAxisRef());
            if (!consumeIf(Kind::Comma))
                break;
            if (consumeIf(Kind::Question)) {
                d.closed = false;
                break;
            }
        }
    }
    if (!at(Kind::RBrace))
        errorExpected("'}'", "to end dimension sharding");
    next();
    if (at(Kind::BareId)) {
        std::string_view kw = m_tok.text;
        std::string s(kw);
        bool digits = kw.size() >= 2 && kw[0] == 'p';
        for (size_t i = 1; digits && i < kw.size(); ++i)
            digits = kw[i] >= '0' && kw[i] <= '9';
        if (!digits)
            errorHere("expecting priority in format 'p<number>', got: " + s);
        if (kw.size() > 2 && kw[1] == '0')
            errorHere("priorities with leading zeros are not allowed, got: " + s);
        uint64_t v = 0;
        for (size_t i = 1; i < kw.size(); ++i) {
            unsigned dgt = static_cast<unsigned>(kw[i] - '0');
            if (v > (static_cast<uint64_t>(INT64_MAX) - dgt) / 10)
                errorHere("expecting integer priority, got: " + s);
            v = v * 10 + dgt;
        }
        d.priority = static_cast<int64_t>(v);
        next();
    }
    return d;
}

TensorSharding Parser::parseShardingBody()
{
    DepthGuard guard(*this);
    TensorSharding s;
    expect(Kind::Less, "to start sharding");
    s.mesh = parseMeshOrRef();
    expect(Kind::Comma, "after the mesh of a sharding");
    expect(Kind::LSquare, "to start dimension shardings");
    if (!consumeIf(Kind::RSquare)) {
        while (true) {
            s.dims.push_back(parseDimSharding());
            if (consumeIf(Kind::RSquare))
                break;
            expect(Kind::Comma, "or ']' in dimension shardings");
        }
    }
    bool seenRep = false, seenUnred = false;
    while (consumeIf(Kind::Comma)) {
        if (atKeyword("replicated") && !seenRep) {
            seenRep = true;
            next();
            expect(Kind::Equal, "after 'replicated'");
            s.replicated = parseAxisList();
        } else if (atKeyword("unreduced") && !seenUnred) {
            seenUnred = true;
            next();
            if (consumeIf(Kind::Equal)) {
                if (at(Kind::BareId)) {
                    if (atKeyword("sum"))
                        s.unreducedKind = ReductionKind::Sum;
                    else if (atKeyword("max"))
                        s.unreducedKind = ReductionKind::Max;
                    else if (atKeyword("min"))
                        s.unreducedKind = ReductionKind::Min;
                    else
                        errorExpected("reduction kind 'sum', 'max' or 'min'", "after 'unreduced='");
                    next();
                }
            }
            if (!at(Kind::LBrace))
                errorExpected("'{'", "to start unreduced axes");
            s.unreduced = parseAxisList();
        } else {
            errorHere("failed to parse Sdy_TensorSharding, expected valid named axis list after comma "
                      "('replicated={...}' or 'unreduced={...}'), found " +
                      describeToken(m_tok));
        }
    }
    expect(Kind::Greater, "to end sharding");
    return s;
}

ShardingPerValue Parser::parseShardingList()
{
    ShardingPerValue v;
    expect(Kind::LSquare, "to start sharding list");
    if (consumeIf(Kind::RSquare))
        return v;
    while (true) {
        if (at(Kind::HashId) && m_tok.text == "#sdy.sharding")
            resetTo(m_tok.end);
        v.shardings.push_back(parseShardingBody());
        if (consumeIf(Kind::RSquare))
            break;
        expect(Kind::Comma, "or ']' in sharding list");
    }
    return v;
}

namespace {

/// Parses factor symbols concatenated in `id` (`ij`, `z_8z_9`); returns an error message or "".
std::string parseFactorSymbols(std::string_view id, std::vector<int64_t>& out)
{
    size_t i = 0;
    while (i < id.size()) {
        char c = id[i];
        if (c < 'i' || c > 'z')
            return std::string("expecting symbol from 'i' to 'z'. Received: '") + c + "'";
        if (c == 'z' && i + 1 < id.size() && id[i + 1] == '_') {
            size_t s = i + 2;
            size_t e = s;
            while (e < id.size() && id[e] >= '0' && id[e] <= '9')
                ++e;
            if (e == s)
                return "expecting integer after 'z_'. Received: '" + std::string(id.substr(i, 2)) + "'";
            if (id[s] == '0')
                return "expecting positive integer without leading zeros. Received: '" +
                       std::string(id.substr(s, e - s)) + "'";
            uint64_t v = 0;
            for (size_t k = s; k < e; ++k) {
                unsigned d = static_cast<unsigned>(id[k] - '0');
                if (v > (static_cast<uint64_t>(INT64_MAX) - d) / 10)
                    return "factor index too large: 'z_" + std::string(id.substr(s, e - s)) + "'";
                v = v * 10 + d;
            }
            int64_t idx = v > static_cast<uint64_t>(INT64_MAX - 17) ? INT64_MAX : static_cast<int64_t>(v) + 17;
            out.push_back(idx);
            i = e;
            continue;
        }
        out.push_back(c - 'i');
        ++i;
    }
    return {};
}

} // namespace

OpShardingRule Parser::parseRuleBody()
{
    OpShardingRule r;
    expect(Kind::Less, "to start op sharding rule");
    auto parseMappings = [&](std::vector<TensorFactorMapping>& out, const char* what) {
        expect(Kind::LParen, what);
        while (true) {
            if (!at(Kind::LSquare))
                errorExpected("'['", "to start a tensor mapping");
            next();
            TensorFactorMapping m;
            if (!consumeIf(Kind::RSquare)) {
                while (true) {
                    if (at(Kind::RSquare)) {
                        // `[i,]`: an empty dimension mapping; rejected by rule verification.
                        next();
                        m.push_back({});
                        break;
                    }
                    if (!at(Kind::BareId))
                        errorExpected("factor symbol", "in tensor mapping");
                    DimFactors f;
                    std::string err = parseFactorSymbols(m_tok.text, f);
                    if (!err.empty())
                        errorHere(err);
                    next();
                    m.push_back(std::move(f));
                    if (consumeIf(Kind::RSquare))
                        break;
                    if (!at(Kind::Comma))
                        errorExpected("']'", "to end tensor mapping");
                    next();
                }
            }
            out.push_back(std::move(m));
            if (consumeIf(Kind::RParen))
                break;
            expect(Kind::Comma, "or ')' between tensor mappings");
        }
    };
    parseMappings(r.operands, "to start operand mappings");
    expect(Kind::Arrow, "between operand and result mappings");
    parseMappings(r.results, "to start result mappings");
    if (consumeIf(Kind::LBrace)) {
        while (true) {
            if (!at(Kind::BareId))
                errorExpected("factor symbol", "in factor sizes");
            std::vector<int64_t> f;
            std::string err = parseFactorSymbols(m_tok.text, f);
            if (!err.empty())
                errorHere(err);
            int64_t expected = static_cast<int64_t>(r.factorSizes.size());
            if (f.size() != 1 || f[0] != expected)
                errorHere("expecting factor indices to be ordered like an iota ([0,1,2,...], e.g. {i=#, j=#, ...}). "
                          "Expecting factor index symbol '" +
                          factorName(expected) + "', received: '" + std::string(m_tok.text) + "'");
            next();
            expect(Kind::Equal, "after factor symbol");
            r.factorSizes.push_back(parseInt64("as factor size"));
            if (consumeIf(Kind::RBrace))
                break;
            expect(Kind::Comma, "or '}' in factor sizes");
        }
    }
    const char* kLists[] = {"reduction", "need_replication", "permutation", "blocked_propagation"};
    std::vector<int64_t>* targets[] = {&r.reductionFactors, &r.needReplicationFactors, &r.permutationFactors,
                                       &r.blockedPropagationFactors};
    for (int k = 0; k < 4; ++k) {
        if (!atKeyword(kLists[k]))
            continue;
        next();
        expect(Kind::Equal, std::string("after '") + kLists[k] + "'");
        expect(Kind::LBrace, "to start factor list");
        if (!consumeIf(Kind::RBrace)) {
            while (true) {
                if (!at(Kind::BareId))
                    errorExpected("factor symbol");
                std::string err = parseFactorSymbols(m_tok.text, *targets[k]);
                if (!err.empty())
                    errorHere(err);
                next();
                if (consumeIf(Kind::RBrace))
                    break;
                expect(Kind::Comma, "or '}' in factor list");
            }
        }
    }
    if (consumeIf(Kind::Comma)) {
        if (!atKeyword("custom"))
            errorExpected("'custom'", "after ',' in op sharding rule");
        next();
        r.isCustom = true;
    }
    expect(Kind::Greater, "to end op sharding rule");
    return r;
}

PropagationEdgesAttr Parser::parseEdgesBody()
{
    PropagationEdgesAttr e;
    expect(Kind::Less, "to start propagation edges");
    expect(Kind::LSquare, "to start propagation edge steps");
    auto parseNode = [&]() {
        EdgeNode n;
        if (atKeyword("result"))
            n.isResult = true;
        else if (!atKeyword("operand"))
            errorExpected("'operand' or 'result'", "in propagation edge");
        next();
        expect(Kind::Minus, "in edge node");
        n.index = parseInt64("as edge node index");
        return n;
    };
    if (!consumeIf(Kind::RSquare)) {
        while (true) {
            PropagationEdgeStep st;
            expect(Kind::LBrace, "to start propagation step");
            expectKeyword("step", "in propagation edges");
            expect(Kind::Minus, "after 'step'");
            st.step = parseInt64("as step index");
            expect(Kind::Equal, "after step index");
            expect(Kind::LSquare, "to start step entries");
            if (!consumeIf(Kind::RSquare)) {
                while (true) {
                    PropagationEdgeEntry en;
                    expect(Kind::LBrace, "to start edge entry");
                    en.axis = parseAxisRef();
                    expect(Kind::Equal, "after edge axis");
                    en.source = parseNode();
                    expect(Kind::Arrow, "after edge source");
                    expect(Kind::LSquare, "to start edge targets");
                    if (!consumeIf(Kind::RSquare)) {
                        while (true) {
                            en.targets.push_back(parseNode());
                            if (consumeIf(Kind::RSquare))
                                break;
                            expect(Kind::Comma, "or ']' in edge targets");
                        }
                    }
                    expect(Kind::RBrace, "to end edge entry");
                    st.entries.push_back(std::move(en));
                    if (consumeIf(Kind::RSquare))
                        break;
                    expect(Kind::Comma, "or ']' in step entries");
                }
            }
            expect(Kind::RBrace, "to end propagation step");
            e.steps.push_back(std::move(st));
            if (consumeIf(Kind::RSquare))
                break;
            expect(Kind::Comma, "or ']' in propagation edges");
        }
    }
    expect(Kind::Greater, "to end propagation edges");
    return e;
}

AttrPtr Parser::parseSdyAttr(const std::string& mnemonic, const SourcePos& p)
{
    DepthGuard guard(*this);
    // `<...>` around the body, the context of errors naming the attribute.
    auto inAngles = [&](auto parseBody) {
        expect(Kind::Less, "to start " + mnemonic);
        auto body = parseBody();
        expect(Kind::Greater, "to end " + mnemonic);
        return body;
    };
    if (mnemonic == "sharding")
        return makeAttr(ShardingAttr{parseShardingBody()});
    if (mnemonic == "sharding_per_value")
        return makeAttr(ShardingPerValueAttr{inAngles([&] { return parseShardingList(); })});
    if (mnemonic == "mesh")
        return makeAttr(MeshAttr{parseMeshBody(p)});
    if (mnemonic == "op_sharding_rule")
        return makeAttr(OpShardingRuleAttr{parseRuleBody()});
    if (mnemonic == "propagation_edges")
        return makeAttr(parseEdgesBody());
    if (mnemonic == "manual_axes")
        return makeAttr(ManualAxesAttr{inAngles([&] { return parseManualAxes(); })});
    if (mnemonic == "axis_ref_list")
        return makeAttr(AxisRefListAttr{inAngles([&] { return parseAxisList(); })});
    if (mnemonic == "list_of_axis_ref_lists")
        return makeAttr(ListOfAxisRefListsAttr{inAngles([&] { return parseAxisListList(); })});
    if (mnemonic == "all_to_all_param_list")
        return makeAttr(AllToAllParamListAttr{inAngles([&] { return parseAllToAllParams(); })});
    if (mnemonic == "axis_ref")
        return makeAttr(AxisRefListAttr{{inAngles([&] { return parseAxisRef(); })}});
    error(p, "unknown sdy attribute '#sdy." + mnemonic + "'");
}

AttrPtr Parser::parseSdyShortFormAttr(size_t angle)
{
    resetTo(angle);
    next(); // '<'
    const std::string kind = at(Kind::BareId) ? std::string(m_tok.text) : std::string();
    AttrPtr attr;
    auto body = [&](auto parse) {
        next();
        auto value = parse();
        expect(Kind::Greater, "to end #sdy<" + kind + ">");
        return value;
    };
    if (kind == "manual_axes")
        attr = makeAttr(ManualAxesAttr{body([&] { return parseManualAxes(); })});
    else if (kind == "axis_ref_list")
        attr = makeAttr(AxisRefListAttr{body([&] { return parseAxisList(); })});
    else if (kind == "list_of_axis_ref_lists")
        attr = makeAttr(ListOfAxisRefListsAttr{body([&] { return parseAxisListList(); })});
    else if (kind == "all_to_all_param_list")
        attr = makeAttr(AllToAllParamListAttr{body([&] { return parseAllToAllParams(); })});
    else
        resetTo(angle);
    return attr;
}

} // namespace shardx::io::detail
