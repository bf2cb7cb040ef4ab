// Custom forms of convolution, the `operands, key = value : functional-type` StableHLO ops
// (broadcast, dynamic_broadcast_in_dim, dynamic_iota, set_dimension_size, rng, einsum,
// unary_einsum) and func.constant / func.call_indirect. Prop names: see ReaderOps.cpp.
//
// broadcast                 broadcast_sizes: DA i64 (`, sizes = [..]`)
// dynamic_broadcast_in_dim  broadcast_dimensions: DA i64 (`, dims = [..]`); the optional
//                           known_expanding_dimensions / known_nonexpanding_dimensions (DA i64)
//                           come from the attribute dictionary
// dynamic_iota              iota_dimension: IntegerAttr i64 (`, dim = N`)
// set_dimension_size        dimension: IntegerAttr i64 (`, dim = N`)
// rng                       rng_distribution: Opq("stablehlo", "", "rng_distribution NORMAL")
// einsum, unary_einsum      einsum_config: StringAttr (`, config = ".."`)
// dynamic_pad, dynamic_reshape, real_dynamic_slice, uniform_quantize, uniform_dequantize:
//                           no props; operands then a functional type (ReaderOps.cpp).
// func.constant             value: SymbolRefAttr (`constant {attrs} @f : (..) -> ..`)
// func.call_indirect        arg_attrs / res_attrs only from the dictionary; operand 0 is the
//                           callee (function-typed), then the arguments.

#include <algorithm>

#include "core/io/MlirReaderImpl.h"
#include "core/io/StablehloForms.h"
#include "core/ir/StablehloAttrs.h"

namespace shardx::io::detail {

using namespace ir;

Type Parser::parseOpFunctionalType()
{
    if (!at(Kind::LParen)) {
        SourcePos tp = pos();
        parseType();
        error(tp, "invalid kind of type specified");
    }
    return parseFunctionType();
}

std::unique_ptr<Op> Parser::parseKeywordFormOp(std::unique_ptr<Op> op, const SourcePos& p)
{
    const KeywordForm& form = *keywordFormOf(op->name());
    std::vector<OperandRef> refs = parseOperandRefs();
    expect(Kind::Comma, std::string("before '") + form.key + "'");
    expectKeyword(form.key, "in '" + op->name() + "'");
    expect(Kind::Equal, std::string("after '") + form.key + "'");
    switch (form.value) {
    case FormValue::I64List: op->setProp(form.prop, parseI64ListAsArray()); break;
    case FormValue::I64: op->setProp(form.prop, i64Attr(parseInt64(std::string("as ") + form.key))); break;
    case FormValue::String: op->setProp(form.prop, makeAttr(StringAttr{expectString(form.key)})); break;
    case FormValue::Enum: {
        SourcePos vp = pos();
        std::string v = expectBareId(form.enumName);
        if (std::none_of(form.enumValues.begin(), form.enumValues.end(), [&](const char* e) { return v == e; }))
            error(vp, "expected " + std::string(form.enumName) + " keyword, found '" + v + "'");
        op->setProp(form.prop, opaque("stablehlo", "", std::string(form.enumName) + " " + v));
        break;
    }
    }
    parseOptionalAttrDictInto(*op);
    expect(Kind::Colon, "before operation types");
    Type ft = parseOpFunctionalType();
    addOperands(*op, refs, ft.elements(), p);
    for (const Type& r : ft.results())
        op->addResult(r);
    return op;
}

std::unique_ptr<Op> Parser::parseFuncConstant(std::unique_ptr<Op> op, const SourcePos& p)
{
    (void)p;
    parseOptionalAttrDictInto(*op);
    if (!at(Kind::AtId))
        errorExpected("symbol reference '@name'", "in func.constant");
    std::string_view t = m_tok.text.substr(1);
    op->setProp("value",
                makeAttr(SymbolRefAttr{{!t.empty() && t[0] == '"' ? MlirLexer::unescape(t) : std::string(t)}}));
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

std::unique_ptr<Op> Parser::parseConvolution(std::unique_ptr<Op> op, const SourcePos& p)
{
    expect(Kind::LParen, "to start convolution operands");
    std::vector<OperandRef> refs = parseOperandRefs();
    expect(Kind::RParen, "to end convolution operands");
    expectKeyword("dim_numbers", "in convolution");
    expect(Kind::Equal, "after 'dim_numbers'");
    auto dimList = [&]() {
        expect(Kind::LSquare, "to start convolution dimension list");
        std::string s = "[";
        bool first = true;
        while (!at(Kind::RSquare)) {
            if (!first)
                expect(Kind::Comma, "or ']' in convolution dimension list");
            if (!at(Kind::BareId) && !at(Kind::Integer))
                errorExpected("dimension name", "in convolution dimension list");
            s += (first ? "" : ", ") + std::string(m_tok.text);
            first = false;
            next();
        }
        next();
        return s + "]";
    };
    std::string dn = dimList();
    expectKeyword("x", "in convolution dimension numbers");
    dn += "x" + dimList();
    expect(Kind::Arrow, "in convolution dimension numbers");
    dn += "->" + dimList();
    op->setProp(stablehlo::kDimensionNumbersAttr, opaque("stablehlo", "conv", dn));
    if (consumeIf(Kind::Comma)) {
        expectKeyword("window", "in convolution");
        expect(Kind::Equal, "after 'window'");
        expect(Kind::LBrace, "to start convolution window");
        while (!consumeIf(Kind::RBrace)) {
            SourcePos kp = pos();
            std::string key = expectBareId("(window attribute)");
            expect(Kind::Equal, "after window attribute name");
            if (key == "stride") {
                op->setProp("window_strides", parseI64ListAsArray());
            } else if (key == "lhs_dilate") {
                op->setProp("lhs_dilation", parseI64ListAsArray());
            } else if (key == "rhs_dilate") {
                op->setProp("rhs_dilation", parseI64ListAsArray());
            } else if (key == "reverse") {
                expect(Kind::LSquare, "to start window reversal");
                DenseArrayAttr a;
                a.elementType = "i1";
                while (!consumeIf(Kind::RSquare)) {
                    if (!a.ints.empty())
                        expect(Kind::Comma, "or ']' in window reversal");
                    if (atKeyword("true") || atKeyword("false"))
                        a.ints.push_back(atKeyword("true") ? 1 : 0);
                    else if (at(Kind::Integer))
                        a.ints.push_back(m_tok.text == "0" ? 0 : 1);
                    else
                        errorExpected("boolean", "in window reversal");
                    next();
                }
                op->setProp("window_reversal", makeAttr(std::move(a)));
            } else if (key == "pad") {
                expect(Kind::LSquare, "to start window padding");
                std::vector<int64_t> vals;
                while (!consumeIf(Kind::RSquare)) {
                    if (!vals.empty())
                        expect(Kind::Comma, "or ']' in window padding");
                    std::vector<int64_t> pr = parseI64List();
                    if (pr.size() != 2)
                        errorHere("expected padding pairs [low, high]");
                    vals.insert(vals.end(), pr.begin(), pr.end());
                }
                DenseElementsAttr d;
                d.type = Type::tensor({static_cast<int64_t>(vals.size() / 2), 2}, "i64");
                for (int64_t v : vals)
                    for (int i = 0; i < 8; ++i)
                        d.data.push_back(static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i)));
                bool same = !vals.empty();
                for (int64_t v : vals)
                    same = same && v == vals[0];
                if (same) {
                    d.splat = true;
                    d.data.resize(8);
                }
                op->setProp("padding", makeAttr(std::move(d)));
            } else {
                error(kp, "unknown convolution window attribute '" + key + "'");
            }
            if (!at(Kind::RBrace))
                expect(Kind::Comma, "or '}' in convolution window");
        }
    }
    parseOptionalAttrDictInto(*op);
    expect(Kind::Colon, "before convolution type");
    Type ft = parseFunctionType();
    addOperands(*op, refs, ft.elements(), p);
    for (const Type& r : ft.results())
        op->addResult(r);
    return op;
}

} // namespace shardx::io::detail
