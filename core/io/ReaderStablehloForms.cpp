// Parser (MlirReaderImpl.h): the `operands, key = value : functional-type` StableHLO forms of io/StablehloForms.h
// (broadcast, dynamic_broadcast_in_dim, dynamic_iota, set_dimension_size, rng, einsum, unary_einsum). Prop names: see
// ReaderOps.cpp.
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

#include <algorithm>

#include "core/io/MlirReaderImpl.h"
#include "core/io/StablehloForms.h"

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

const Parser::OpFormFacts& Parser::formFactsOf(const ir::Op& op)
{
    const ir::OperationName name = op.opName();
    for (const auto& [known, facts] : m_opFormFacts)
        if (known == name)
            return facts;
    OpFormFacts facts;
    facts.keywordForm = keywordFormOf(name.str());
    facts.functionalType = requiresFunctionalType(name.str());
    return m_opFormFacts.emplace_back(name, facts).second;
}

std::unique_ptr<Op> Parser::parseKeywordFormOp(std::unique_ptr<Op> op, const SourcePos& p)
{
    const KeywordForm& form = *formFactsOf(*op).keywordForm;
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

} // namespace shardx::io::detail
