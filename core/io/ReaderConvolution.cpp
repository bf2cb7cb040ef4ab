// Parser (MlirReaderImpl.h): stablehlo.convolution (dim_numbers, window = {stride, pad, lhs/rhs_dilate, reverse}).
#include "core/io/MlirReaderImpl.h"
#include "core/ir/StablehloAttrs.h"

namespace shardx::io::detail {

using namespace ir;

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
