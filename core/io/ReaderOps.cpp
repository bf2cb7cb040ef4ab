// Parser (MlirReaderImpl.h): custom (pretty) op forms into generic ir::Op: the shared forms and the StableHLO ops
// (ops with regions: ReaderRegionOps.cpp, convolution: ReaderConvolution.cpp, keyword forms: ReaderStablehloForms.cpp).
//
// ===== PROP NAMES (contract with the printer; keep accurate) ================================
// Every op: inherent attributes are in Op::props (sorted), everything else in Op::attrs.
// Attributes given in a `{...}` dictionary whose name is an inherent attribute of the op (see
// OpRegistry::inherentAttrs) are moved to props, so props alone reproduce the custom form.
// Integer props are IntegerAttr with the type noted (i64 unless said otherwise).
// "DA i64" = DenseArrayAttr{elementType "i64", ints}; "DA i1" = DenseArrayAttr{"i1", ints 0/1}.
// "Opq(d, m, body)" = OpaqueAttr{dialect d, mnemonic m, body} (body: normalized text, tokens
// separated by single spaces exactly as MLIR prints them, e.g. "comparison_direction GT").
//
// builtin.module   sym_name: StringAttr (only with `module @name`); `attributes {..}` -> attrs
// func.func        sym_name: StringAttr; function_type: TypeAttr(Type::function);
//                  sym_visibility: StringAttr ("public"/"private"/"nested", only when written);
//                  arg_attrs / res_attrs: ArrayAttr of DictionaryAttr (omitted when all empty);
//                  `attributes {..}` -> attrs. One region; entry block args = func args
//                  (Value::loc = `loc(..)` of the arg). No body = declaration (region empty).
// func.call        callee: SymbolRefAttr (path of 1); extra dict -> attrs
// func.return      (no props); `return {attrs} %a : t` (attr-dict first) also accepted
// func.constant    value: SymbolRefAttr (`constant {attrs} @f : (..) -> ..`)
// func.call_indirect  arg_attrs / res_attrs only from the dictionary; operand 0 is the
//                  callee (function-typed), then the arguments.
// Bare `return` / `call` (no dialect prefix) are read as func.return / func.call.
// (module and func forms are parsed in ReaderFuncOps.cpp.)
// sdy.mesh         sym_name: StringAttr; mesh: MeshAttr
// sdy.sharding_constraint / sdy.reshard    sharding: ShardingAttr
// sdy.propagation_barrier   allowed_direction: Opq("sdy", "", "propagation_direction FORWARD")
//                           (NONE / FORWARD / BACKWARD)
// sdy.sharding_group        group_id: IntegerAttr i64
// sdy.data_flow_edge        sharding: ShardingAttr (optional, only when `sharding=` written)
// sdy.func_data_flow_edge   (no props)
// sdy.constant              value: DenseElementsAttr (or other elements attr as written)
// sdy.manual_computation    in_shardings, out_shardings: ShardingPerValueAttr;
//                           manual_axes: ManualAxesAttr. One region, entry block args = the
//                           `(%argN: t)` list (local types); terminator sdy.return.
// sdy.named_computation     name: StringAttr; in_shardings / out_shardings:
//                           ShardingPerValueAttr (each optional, only when written). One region.
// sdy.all_gather            gathering_axes: ListOfAxisRefListsAttr; out_sharding: ShardingAttr
// sdy.all_slice             slicing_axes: ListOfAxisRefListsAttr; out_sharding
// sdy.all_reduce            reduction_axes: AxisRefListAttr; out_sharding;
//                           reduction_kind: Opq("sdy", "", "reduction_kind max") only when the
//                           kind keyword is max/min (absent = sum, also for an explicit `sum`)
// sdy.reduce_scatter        reduce_scatter_axes: ListOfAxisRefListsAttr; out_sharding;
//                           reduction_kind as all_reduce
// sdy.all_to_all            params: AllToAllParamListAttr; out_sharding
// sdy.collective_permute    out_sharding
// sdy.sharded_to_unreduced  axes: ListOfAxisRefListsAttr; out_sharding
// sdy.replicated_to_unreduced  axes: AxisRefListAttr; out_sharding
// sdy.return                (no props). A manual/named computation whose body lacks an
//                           sdy.return gets an implicit operand-less one (pos = the op's pos).
// (sdy forms are parsed in ReaderSdyOps.cpp.)
//
// stablehlo (custom forms; any stablehlo/chlo op without a special form below is parsed as the
// element-wise form `%r = op %a, %b {attrs} : T` or `: (T1, T2) -> R`):
// compare            comparison_direction: Opq("stablehlo", "", "comparison_direction GT");
//                    compare_type: Opq("stablehlo", "", "comparison_type FLOAT") (optional)
// constant           value: DenseElementsAttr (or DenseResourceAttr / other, as written)
// iota               iota_dimension: IntegerAttr i64
// transpose          permutation: DA i64
// broadcast_in_dim   broadcast_dimensions: DA i64
// slice              start_indices, limit_indices, strides: DA i64 (strides all 1 when omitted)
// dynamic_slice      slice_sizes: DA i64
// concatenate        dimension: IntegerAttr i64
// pad                edge_padding_low, edge_padding_high, interior_padding: DA i64
// reverse            dimensions: DA i64
// dot                precision_config: ArrayAttr of Opq("stablehlo", "", "precision DEFAULT")
//                    (only when `precision = [...]` written)
// dot_general        dot_dimension_numbers: Opq("stablehlo", "dot", body) with body
//                    "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0],
//                    lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]"
//                    (fields with empty lists omitted; order as shown);
//                    precision_config as dot; algorithm: Opq("stablehlo", "dot_algorithm", body)
// convolution        dimension_numbers: Opq("stablehlo", "conv", "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]");
//                    window_strides: DA i64; padding: DenseElementsAttr tensor<Nx2xi64>;
//                    lhs_dilation, rhs_dilation: DA i64; window_reversal: DA i1 (each only when
//                    written in `window = {...}`); feature_group_count, batch_group_count:
//                    IntegerAttr i64 and precision_config come from the dict (moved to props)
// custom_call        call_target_name: StringAttr; from the dict (moved to props):
//                    has_side_effect BoolAttr, backend_config (StringAttr or DictionaryAttr),
//                    api_version IntegerAttr i32, operand_layouts / result_layouts,
//                    output_operand_aliases, called_computations, custom_call_schedule
// fft                fft_type: Opq("stablehlo", "", "fft_type FFT"); fft_length: DA i64
// cholesky           lower: BoolAttr
// get_dimension_size dimension: IntegerAttr i64 (`, dim = N`)
// complex            `%re, %im : tensor<...xcomplex<T>>`: operands get the element part type T
// rng_bit_generator  rng_algorithm: Opq("stablehlo", "", "rng_algorithm DEFAULT")
// reduce_precision   exponent_bits, mantissa_bits: IntegerAttr i32 (`format = e5m10`)
// get_tuple_element  index: IntegerAttr i32
// composite          name: StringAttr; composite_attributes: DictionaryAttr; decomposition:
//                    SymbolRefAttr; version: IntegerAttr i32 (from the dict)
// reduce             dimensions: DA i64. One region with one block of 2N args (N = number of
//                    inputs); operands = inputs then inits. Compact `applies stablehlo.add`
//                    form builds it as MLIR does: args (%a_k: tensor<elt_k>, %a_{k+N}) where the
//                    arg type is the init's type, body `%0 = stablehlo.add %a0, %aN :
//                    tensor<elt>` then `stablehlo.return %0`. Full form: `reducer(%a: t, %b: t)
//                    ...` pairs are block args k and k+N.
// while              two regions (cond, body); each entry block has one arg per operand with
//                    the operand's type; `attributes {..}` -> attrs.
// select, clamp, tuple, after_all, create_token, partition_id, replica_id,
// optimization_barrier, bitcast_convert, reshape, dynamic_update_slice, return: no props.
// ===========================================================================================

#include <algorithm>
#include <functional>

#include "core/io/MlirReaderImpl.h"
#include "core/io/StablehloForms.h"
#include "core/ir/OpRegistry.h"
#include "core/ir/StablehloAttrs.h"

namespace shardx::io::detail {

using namespace ir;

std::vector<int64_t> Parser::parseI64List()
{
    std::vector<int64_t> out;
    expect(Kind::LSquare, "to start integer list");
    if (consumeIf(Kind::RSquare))
        return out;
    while (true) {
        out.push_back(parseInt64("in integer list"));
        if (consumeIf(Kind::RSquare))
            break;
        expect(Kind::Comma, "or ']' in integer list");
    }
    return out;
}

AttrPtr Parser::parseI64ListAsArray() { return denseI64(parseI64List()); }

// ---- shared pieces -------------------------------------------------------------------------

namespace {

Type resultTypeOfElements(const Attribute& a)
{
    if (auto* d = a.as<DenseElementsAttr>())
        return d->type;
    if (auto* r = a.as<DenseResourceAttr>())
        return r->type;
    return Type();
}

} // namespace

/// `: T`, `: T -> R` (chlo) or `: (T1, T2) -> R`; T applies to every operand and the one result.
void Parser::parseTrailingTypes(Op& op, const std::vector<OperandRef>& refs, const SourcePos& p)
{
    expect(Kind::Colon, "before operation types");
    if (at(Kind::LParen) || formFactsOf(op).functionalType) {
        Type ft = parseOpFunctionalType();
        addOperands(op, refs, ft.elements(), p);
        for (const Type& t : ft.results())
            op.addResult(t);
        return;
    }
    Type t = parseType();
    std::vector<Type> ins(refs.size(), t);
    // `stablehlo.complex %re, %im : tensor<4xcomplex<f32>>` names the result type only.
    const std::string& et = t.elementType();
    if (op.name() == "stablehlo.complex" && t.isTensor() && et.rfind("complex<", 0) == 0 && et.back() == '>')
        ins.assign(refs.size(), t.isRankedTensor() ? Type::tensor(t.shape(), et.substr(8, et.size() - 9))
                                                   : Type::unrankedTensor(et.substr(8, et.size() - 9)));
    if (consumeIf(Kind::Arrow)) {
        for (const Type& r : parseFunctionResults())
            op.addResult(r);
    } else {
        op.addResult(t);
    }
    addOperands(op, refs, ins, p);
}

/// Terminators (`func.return`, `stablehlo.return`, `sdy.return`): `{attrs}? %a, %b {attrs}? : t1, t2`.
std::unique_ptr<Op> Parser::parseReturnLike(std::unique_ptr<Op> op, const SourcePos& p)
{
    parseOptionalAttrDictInto(*op);
    std::vector<OperandRef> refs = parseOperandRefs();
    parseOptionalAttrDictInto(*op);
    std::vector<Type> types;
    if (!refs.empty()) {
        expect(Kind::Colon, "before return types");
        types.push_back(parseType());
        while (consumeIf(Kind::Comma))
            types.push_back(parseType());
    }
    addOperands(*op, refs, types, p);
    return op;
}

std::unique_ptr<Op> Parser::parseElementwise(std::unique_ptr<Op> op, const SourcePos& p, bool attrsFirst)
{
    if (attrsFirst)
        parseOptionalAttrDictInto(*op);
    std::vector<OperandRef> refs = parseOperandRefs();
    parseOptionalAttrDictInto(*op);
    parseTrailingTypes(*op, refs, p);
    return op;
}

// ---- stablehlo ---------------------------------------------------------------------------------

std::unique_ptr<Op> Parser::parseStablehloOp(const std::string& name, const SourcePos& p)
{
    next(); // op name
    auto op = std::make_unique<Op>(name);
    const std::string_view shortName = std::string_view(name).substr(name.find('.') + 1);

    // `, key = value` clauses after the operands.
    auto keywordArgs = [&](auto&& handle) {
        while (at(Kind::Comma) && peek().kind == Kind::BareId) {
            next();
            const size_t kp = m_tok.begin; // where the key is written
            std::string key(m_tok.text);
            next();
            expect(Kind::Equal, "after '" + key + "'");
            handle(key, kp);
        }
    };
    auto precisionList = [&]() {
        expect(Kind::LSquare, "to start precision list");
        ArrayAttr a;
        if (!consumeIf(Kind::RSquare)) {
            while (true) {
                a.elements.push_back(opaque("stablehlo", "", "precision " + expectBareId("(precision)")));
                if (consumeIf(Kind::RSquare))
                    break;
                expect(Kind::Comma, "or ']' in precision list");
            }
        }
        return makeAttr(std::move(a));
    };
    auto unknownKey = [&](const std::string& key, size_t kp) {
        error(posOf(kp), "unexpected keyword '" + key + "' in '" + name + "'");
    };

    if (formFactsOf(*op).keywordForm)
        return parseKeywordFormOp(std::move(op), p);

    if (shortName == "return") {
        return parseReturnLike(std::move(op), p);
    }
    if (shortName == "constant") {
        parseOptionalAttrDictInto(*op);
        const size_t valueAt = m_tok.begin;
        AttrPtr v = parseAttr();
        Type t = resultTypeOfElements(*v);
        if (t.isNone())
            error(posOf(valueAt), "expected elements attribute with a type for '" + name + "'");
        op->setProp("value", v);
        op->addResult(t);
        return op;
    }
    if (shortName == "iota") {
        expectKeyword("dim", "in iota");
        expect(Kind::Equal, "after 'dim'");
        op->setProp("iota_dimension", i64Attr(parseInt64("as iota dimension")));
        parseOptionalAttrDictInto(*op);
        expect(Kind::Colon, "before iota type");
        op->addResult(parseType());
        return op;
    }
    if (shortName == "create_token" || shortName == "partition_id" || shortName == "replica_id") {
        parseOptionalAttrDictInto(*op);
        expect(Kind::Colon, "before result type");
        op->addResult(parseType());
        return op;
    }
    if (shortName == "after_all") {
        std::vector<OperandRef> refs = parseOperandRefs();
        parseOptionalAttrDictInto(*op);
        expect(Kind::Colon, "before result type");
        Type t = parseType();
        addOperands(*op, refs, std::vector<Type>(refs.size(), Type::token()), p);
        op->addResult(t);
        return op;
    }
    if (shortName == "compare") {
        std::string dir = expectBareId("(comparison direction EQ, NE, GE, GT, LE or LT)");
        static const char* const kDirs[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
        if (std::find(std::begin(kDirs), std::end(kDirs), dir) == std::end(kDirs))
            error(p, "invalid comparison direction '" + dir + "' (expected EQ, NE, GE, GT, LE or LT)");
        op->setProp("comparison_direction", opaque("stablehlo", "", "comparison_direction " + dir));
        expect(Kind::Comma, "after comparison direction");
        std::vector<OperandRef> refs = parseOperandRefs();
        if (at(Kind::Comma) && peek().kind == Kind::BareId) {
            next();
            op->setProp("compare_type", opaque("stablehlo", "", "comparison_type " + expectBareId("(compare type)")));
        }
        parseOptionalAttrDictInto(*op);
        parseTrailingTypes(*op, refs, p);
        return op;
    }
    if (shortName == "select") {
        std::vector<OperandRef> refs = parseOperandRefs();
        parseOptionalAttrDictInto(*op);
        expect(Kind::Colon, "before select types");
        if (at(Kind::LParen)) {
            Type ft = parseFunctionType();
            addOperands(*op, refs, ft.elements(), p);
            for (const Type& r : ft.results())
                op->addResult(r);
            return op;
        }
        Type pred = parseType();
        expect(Kind::Comma, "between predicate type and result type");
        Type res = parseType();
        addOperands(*op, refs, {pred, res, res}, p);
        op->addResult(res);
        return op;
    }
    if (shortName == "tuple") {
        std::vector<OperandRef> refs = parseOperandRefs();
        parseOptionalAttrDictInto(*op);
        expect(Kind::Colon, "before tuple type");
        SourcePos tp = pos();
        Type t = parseType();
        if (!t.isTuple())
            error(tp, "expected tuple type, found '" + t.toString() + "'");
        addOperands(*op, refs, t.elements(), p);
        op->addResult(t);
        return op;
    }
    if (shortName == "get_tuple_element") {
        OperandRef ref = parseOperandRef();
        expect(Kind::LSquare, "before tuple index");
        op->setProp("index", i32Attr(parseInt64("as tuple index")));
        expect(Kind::RSquare, "after tuple index");
        parseOptionalAttrDictInto(*op);
        expect(Kind::Colon, "before types");
        if (at(Kind::LParen)) {
            Type ft = parseFunctionType();
            addOperands(*op, {ref}, ft.elements(), p);
            for (const Type& r : ft.results())
                op->addResult(r);
        } else {
            Type t = parseType();
            op->addOperand(resolve(ref, nullptr));
            op->addResult(t);
        }
        return op;
    }
    if (shortName == "optimization_barrier") {
        parseOptionalAttrDictInto(*op);
        std::vector<OperandRef> refs;
        if (at(Kind::LParen) && peek().kind == Kind::RParen) {
            next();
            next();
        } else {
            refs = parseOperandRefs();
        }
        expect(Kind::Colon, "before types");
        std::vector<Type> types;
        if (at(Kind::LParen)) {
            Type ft = parseFunctionType();
            types = ft.elements();
        } else {
            types.push_back(parseType());
            while (consumeIf(Kind::Comma))
                types.push_back(parseType());
        }
        addOperands(*op, refs, types, p);
        for (const Type& t : types)
            op->addResult(t);
        return op;
    }
    if (shortName == "slice") {
        OperandRef ref = parseOperandRef();
        expect(Kind::LSquare, "to start slice ranges");
        std::vector<int64_t> starts, limits, strides;
        if (!consumeIf(Kind::RSquare)) {
            while (true) {
                starts.push_back(parseInt64("as slice start"));
                expect(Kind::Colon, "in slice range");
                limits.push_back(parseInt64("as slice limit"));
                strides.push_back(consumeIf(Kind::Colon) ? parseInt64("as slice stride") : 1);
                if (consumeIf(Kind::RSquare))
                    break;
                expect(Kind::Comma, "or ']' in slice ranges");
            }
        }
        op->setProp("start_indices", denseI64(starts));
        op->setProp("limit_indices", denseI64(limits));
        op->setProp("strides", denseI64(strides));
        parseOptionalAttrDictInto(*op);
        parseTrailingTypes(*op, {ref}, p);
        return op;
    }
    if (shortName == "custom_call") {
        if (!at(Kind::AtId))
            errorExpected("call target '@name'", "in custom_call");
        std::string_view t = m_tok.text.substr(1);
        op->setProp(stablehlo::kCallTargetNameAttr, makeAttr(StringAttr{nameText(t, m_tok.begin)}));
        next();
        expect(Kind::LParen, "to start custom_call operands");
        std::vector<OperandRef> refs = parseOperandRefs();
        expect(Kind::RParen, "to end custom_call operands");
        parseOptionalAttrDictInto(*op);
        expect(Kind::Colon, "before custom_call type");
        Type ft = parseFunctionType();
        addOperands(*op, refs, ft.elements(), p);
        for (const Type& r : ft.results())
            op->addResult(r);
        return op;
    }
    if (shortName == "composite") {
        op->setProp("name", makeAttr(StringAttr{expectName("(composite name)")}));
        std::vector<OperandRef> refs = parseOperandRefs();
        parseOptionalAttrDictInto(*op);
        parseTrailingTypes(*op, refs, p);
        return op;
    }
    if (shortName == "reduce")
        return parseReduce(std::move(op), p);
    if (shortName == "while")
        return parseWhile(std::move(op), p);
    if (shortName == "convolution")
        return parseConvolution(std::move(op), p);

    // Forms `operands [, key = value]* {attrs} : types`.
    std::vector<OperandRef> refs = parseOperandRefs();
    if (shortName == "transpose" || shortName == "broadcast_in_dim" || shortName == "reverse") {
        const char* prop = shortName == "transpose" ? "permutation"
                           : shortName == "reverse" ? "dimensions"
                                                    : "broadcast_dimensions";
        keywordArgs([&](const std::string& key, size_t kp) {
            if (key != "dims")
                unknownKey(key, kp);
            op->setProp(prop, parseI64ListAsArray());
        });
    } else if (shortName == "dynamic_slice") {
        keywordArgs([&](const std::string& key, size_t kp) {
            if (key != "sizes")
                unknownKey(key, kp);
            op->setProp("slice_sizes", parseI64ListAsArray());
        });
    } else if (shortName == "concatenate") {
        keywordArgs([&](const std::string& key, size_t kp) {
            if (key != "dim")
                unknownKey(key, kp);
            op->setProp("dimension", i64Attr(parseInt64("as concatenate dimension")));
        });
    } else if (shortName == "pad") {
        keywordArgs([&](const std::string& key, size_t kp) {
            if (key == "low")
                op->setProp("edge_padding_low", parseI64ListAsArray());
            else if (key == "high")
                op->setProp("edge_padding_high", parseI64ListAsArray());
            else if (key == "interior")
                op->setProp("interior_padding", parseI64ListAsArray());
            else
                unknownKey(key, kp);
        });
    } else if (shortName == "dot") {
        keywordArgs([&](const std::string& key, size_t kp) {
            if (key != "precision")
                unknownKey(key, kp);
            op->setProp("precision_config", precisionList());
        });
    } else if (shortName == "dot_general") {
        std::vector<int64_t> lb, rb, lc, rc;
        keywordArgs([&](const std::string& key, size_t kp) {
            if (key == "batching_dims" || key == "contracting_dims") {
                auto& l = key == "batching_dims" ? lb : lc;
                auto& r = key == "batching_dims" ? rb : rc;
                l = parseI64List();
                expectKeyword("x", "between lhs and rhs dimensions");
                r = parseI64List();
            } else if (key == "precision") {
                op->setProp("precision_config", precisionList());
            } else if (key == "algorithm") {
                std::string body = captureBalanced('<', '>');
                op->setProp("algorithm", opaque("stablehlo", "dot_algorithm", body.substr(1, body.size() - 2)));
            } else {
                unknownKey(key, kp);
            }
        });
        op->setProp(stablehlo::kDotDimensionNumbersAttr, stablehlo::dotDimensionNumbersAttr({lb, rb, lc, rc}));
    } else if (shortName == "fft") {
        keywordArgs([&](const std::string& key, size_t kp) {
            if (key == "type")
                op->setProp("fft_type", opaque("stablehlo", "", "fft_type " + expectBareId("(fft type)")));
            else if (key == "length")
                op->setProp("fft_length", parseI64ListAsArray());
            else
                unknownKey(key, kp);
        });
    } else if (shortName == "cholesky") {
        keywordArgs([&](const std::string& key, size_t kp) {
            if (key != "lower")
                unknownKey(key, kp);
            if (!atKeyword("true") && !atKeyword("false"))
                errorExpected("'true' or 'false'");
            op->setProp("lower", makeAttr(BoolAttr{atKeyword("true")}));
            next();
        });
    } else if (shortName == "get_dimension_size") {
        keywordArgs([&](const std::string& key, size_t kp) {
            if (key != "dim")
                unknownKey(key, kp);
            op->setProp("dimension", i64Attr(parseInt64("as dimension")));
        });
    } else if (shortName == "rng_bit_generator") {
        keywordArgs([&](const std::string& key, size_t kp) {
            if (key != "algorithm")
                unknownKey(key, kp);
            op->setProp("rng_algorithm", opaque("stablehlo", "", "rng_algorithm " + expectBareId("(rng algorithm)")));
        });
    } else if (shortName == "reduce_precision") {
        keywordArgs([&](const std::string& key, size_t kp) {
            if (key != "format")
                unknownKey(key, kp);
            SourcePos fp = pos();
            std::string f = expectBareId("(format eXmY)");
            size_t m = f.find('m');
            bool ok = f.size() >= 4 && f[0] == 'e' && m != std::string::npos && m > 1 && m + 1 < f.size();
            for (size_t i = 1; ok && i < f.size(); ++i)
                ok = i == m || (f[i] >= '0' && f[i] <= '9');
            if (!ok || f.size() > 12)
                error(fp, "expected format 'e<bits>m<bits>', found '" + f + "'");
            op->setProp("exponent_bits", i32Attr(std::stoll(f.substr(1, m - 1))));
            op->setProp("mantissa_bits", i32Attr(std::stoll(f.substr(m + 1))));
        });
    }
    parseOptionalAttrDictInto(*op);
    parseTrailingTypes(*op, refs, p);
    return op;
}

} // namespace shardx::io::detail
