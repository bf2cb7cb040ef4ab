// Printer (PrinterInternal.h): custom assembly forms of StableHLO ops (SDY.md 6.5).
#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "core/io/PrinterInternal.h"
#include "core/ir/StablehloAttrs.h"

namespace shardx::io::detail {

using namespace ir;

namespace {

const std::unordered_set<std::string>& unaryOps()
{
    static const std::unordered_set<std::string> s = {"abs",
                                                      "cbrt",
                                                      "ceil",
                                                      "convert",
                                                      "count_leading_zeros",
                                                      "cosine",
                                                      "exponential",
                                                      "exponential_minus_one",
                                                      "floor",
                                                      "imag",
                                                      "is_finite",
                                                      "log",
                                                      "log_plus_one",
                                                      "logistic",
                                                      "not",
                                                      "negate",
                                                      "popcnt",
                                                      "real",
                                                      "round_nearest_afz",
                                                      "round_nearest_even",
                                                      "rsqrt",
                                                      "sign",
                                                      "sine",
                                                      "sqrt",
                                                      "tan",
                                                      "tanh"};
    return s;
}

const std::unordered_set<std::string>& binaryOps()
{
    static const std::unordered_set<std::string> s = {"add",
                                                      "atan2",
                                                      "divide",
                                                      "maximum",
                                                      "minimum",
                                                      "multiply",
                                                      "or",
                                                      "and",
                                                      "power",
                                                      "remainder",
                                                      "shift_left",
                                                      "shift_right_arithmetic",
                                                      "shift_right_logical",
                                                      "subtract",
                                                      "xor"};
    return s;
}

bool isCommutativeBinary(const std::string& name)
{
    static const std::unordered_set<std::string> s = {"stablehlo.add",     "stablehlo.multiply", "stablehlo.maximum",
                                                      "stablehlo.minimum", "stablehlo.and",      "stablehlo.or",
                                                      "stablehlo.xor"};
    return s.count(name) != 0;
}

bool allOperandsPresent(const Op& op)
{
    for (Value* v : op.operands())
        if (!v)
            return false;
    return true;
}

void appendIntList(std::string& out, const std::vector<int64_t>& v)
{
    out += '[';
    for (size_t i = 0; i < v.size(); ++i) {
        if (i)
            out += ", ";
        out += std::to_string(v[i]);
    }
    out += ']';
}

/// Value of `name = [..]` inside a dot-dimension-numbers body; empty when absent.
bool bodyList(const std::string& body, const std::string& name, std::string& out)
{
    size_t pos = 0;
    while ((pos = body.find(name, pos)) != std::string::npos) {
        bool startOk = pos == 0 || body[pos - 1] == ' ' || body[pos - 1] == ',';
        size_t after = pos + name.size();
        if (startOk && body.compare(after, 3, " = ") == 0 && after + 3 < body.size() && body[after + 3] == '[') {
            size_t close = body.find(']', after + 3);
            if (close == std::string::npos)
                return false;
            out = body.substr(after + 3, close - after - 2);
            return true;
        }
        pos = after;
    }
    out = "[]";
    return true;
}

/// `[DEFAULT, HIGHEST]` from an ArrayAttr of precision enums.
bool precisionList(const Attribute* a, std::string& out)
{
    const ArrayAttr* arr = a ? a->as<ArrayAttr>() : nullptr;
    if (!arr)
        return false;
    out = "[";
    for (size_t i = 0; i < arr->elements.size(); ++i) {
        std::string kw;
        if (!enumKeyword(arr->elements[i].get(), kw))
            return false;
        if (i)
            out += ", ";
        out += kw;
    }
    out += ']';
    return true;
}

} // namespace

/// True if every operand and result has the same type as the first result.
static bool allSameType(const Op& op)
{
    if (op.numResults() != 1)
        return false;
    const Type& r = op.result(0)->type();
    for (Value* v : op.operands())
        if (v->type() != r)
            return false;
    return true;
}

bool Printer::printCustomOp(const Op& op, bool inFuncBody)
{
    const std::string& full = op.name();
    if (!allOperandsPresent(op))
        return false;
    if (full == "builtin.module")
        return printModuleOp(op);
    if (full.rfind("func.", 0) == 0)
        return printFuncOp(op, inFuncBody);
    if (full.rfind("sdy.", 0) == 0)
        return printSdyOp(op);
    if (full.rfind("stablehlo.", 0) != 0)
        return false;
    const std::string name = full.substr(10);
    const unsigned nOps = op.numOperands();
    const unsigned nRes = op.numResults();
    if (op.numRegions() && name != "reduce" && name != "while")
        return false;
    if (printFunctionalFormOp(op))
        return true;

    // `: T` when all types agree, else the functional type.
    auto sameOrFunctional = [&] {
        out += " : ";
        if (nOps == 0 || allSameType(op))
            appendType(out, op.result(0)->type());
        else
            appendFunctionalType(op);
    };
    auto head = [&] { out += full; };
    // `stablehlo.op %a, %b`
    auto headOperands = [&] {
        head();
        out += ' ';
        appendValues(op.operands());
    };

    if (unaryOps().count(name) && nOps == 1 && nRes == 1) {
        head();
        out += ' ';
        appendValue(op.operand(0));
        std::vector<std::string> elided;
        if (const Attribute* ra = op.attr("result_accuracy")) {
            if (auto* o = ra->as<OpaqueAttr>();
                o && o->body.find("DEFAULT") != std::string::npos && o->body.find("atol = 0.0") != std::string::npos)
                elided.push_back("result_accuracy");
        }
        appendAttrDict(op, elided);
        if (name == "is_finite")
            (out += " : "), appendFunctionalType(op);
        else
            sameOrFunctional();
        return true;
    }
    if (((binaryOps().count(name) && nOps == 2) || (name == "clamp" && nOps == 3)) && nRes == 1) {
        headOperands();
        appendAttrDict(op, {});
        sameOrFunctional();
        return true;
    }
    if (name == "complex" && nOps == 2 && nRes == 1) {
        headOperands();
        appendAttrDict(op, {});
        out += " : ";
        const Type& r = op.result(0)->type();
        const std::string& elt = r.isTensor() ? r.elementType() : std::string();
        bool realOperands = false;
        if (r.isRankedTensor() && elt.rfind("complex<", 0) == 0) {
            Type real = Type::tensor(r.shape(), elt.substr(8, elt.size() - 9));
            realOperands = op.operand(0)->type() == real && op.operand(1)->type() == real;
        }
        if (realOperands)
            appendType(out, r);
        else
            appendFunctionalType(op);
        return true;
    }
    if (name == "get_dimension_size" && nOps == 1 && nRes == 1) {
        int64_t dim;
        if (!intValue(op.attr("dimension"), dim))
            return false;
        head();
        out += ' ';
        appendValue(op.operand(0));
        out += ", dim = " + std::to_string(dim);
        appendAttrDict(op, {"dimension"});
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if (name == "composite") {
        const Attribute* n = op.attr("name");
        if (!n || !n->is<StringAttr>())
            return false;
        std::vector<std::string> elided{"name"};
        int64_t version;
        if (intValue(op.attr("version"), version) && version == 0)
            elided.emplace_back("version");
        const Attribute* ca = op.attr("composite_attributes");
        if (ca && ca->is<DictionaryAttr>() && ca->as<DictionaryAttr>()->entries.empty())
            elided.emplace_back("composite_attributes");
        head();
        out += ' ';
        appendQuoted(out, n->as<StringAttr>()->value);
        if (nOps) {
            out += ' ';
            appendValues(op.operands());
        }
        appendAttrDict(op, elided);
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if ((name == "reshape" || name == "bitcast_convert") && nOps == 1 && nRes == 1) {
        head();
        out += ' ';
        appendValue(op.operand(0));
        appendAttrDict(op, {});
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if (name == "compare" && nOps == 2 && nRes == 1) {
        std::string dir, ctype;
        if (!enumKeyword(op.attr("comparison_direction"), dir))
            return false;
        const Attribute* ct = op.attr("compare_type");
        if (ct && !enumKeyword(ct, ctype))
            return false;
        head();
        out += "  " + dir + ", ";
        appendValues(op.operands());
        if (ct)
            out += ",  " + ctype;
        appendAttrDict(op, {"comparison_direction", "compare_type"});
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if (name == "constant" && nOps == 0 && nRes == 1) {
        const Attribute* v = op.attr("value");
        if (!v)
            return false;
        if (auto* d = v->as<DenseElementsAttr>()) {
            if (d->type != op.result(0)->type())
                return false;
        } else if (auto* r = v->as<DenseResourceAttr>()) {
            if (r->type != op.result(0)->type())
                return false;
        } else {
            return false;
        }
        head();
        appendAttrDict(op, {"value"});
        out += ' ';
        appendAttribute(out, *v);
        return true;
    }
    if (name == "iota" && nOps == 0 && nRes == 1) {
        int64_t dim;
        if (!intValue(op.attr("iota_dimension"), dim))
            return false;
        head();
        out += " dim = " + std::to_string(dim);
        appendAttrDict(op, {"iota_dimension"});
        out += " : ";
        appendType(out, op.result(0)->type());
        return true;
    }
    if ((name == "transpose" || name == "broadcast_in_dim" || name == "reverse") && nOps == 1 && nRes == 1) {
        const char* prop = name == "transpose"          ? "permutation"
                           : name == "broadcast_in_dim" ? "broadcast_dimensions"
                                                        : "dimensions";
        std::vector<int64_t> dims;
        const Attribute* a = op.attr(prop);
        if (!a || !a->is<DenseArrayAttr>() || !intList(a, dims))
            return false;
        head();
        out += ' ';
        appendValue(op.operand(0));
        out += ", dims = ";
        appendIntList(out, dims);
        appendAttrDict(op, {prop});
        if (name == "reverse")
            sameOrFunctional();
        else
            (out += " : "), appendFunctionalType(op);
        return true;
    }
    if (name == "slice" && nOps == 1 && nRes == 1) {
        std::vector<int64_t> start, limit, strides;
        if (!intList(op.attr("start_indices"), start) || !intList(op.attr("limit_indices"), limit) ||
            !intList(op.attr("strides"), strides) || start.size() != limit.size() || start.size() != strides.size())
            return false;
        head();
        out += ' ';
        appendValue(op.operand(0));
        out += " [";
        for (size_t i = 0; i < start.size(); ++i) {
            if (i)
                out += ", ";
            out += std::to_string(start[i]) + ':' + std::to_string(limit[i]);
            if (strides[i] != 1)
                out += ':' + std::to_string(strides[i]);
        }
        out += ']';
        appendAttrDict(op, {"start_indices", "limit_indices", "strides"});
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if (name == "dynamic_slice" && nOps >= 1 && nRes == 1) {
        std::vector<int64_t> sizes;
        if (!intList(op.attr("slice_sizes"), sizes))
            return false;
        headOperands();
        out += ", sizes = ";
        appendIntList(out, sizes);
        appendAttrDict(op, {"slice_sizes"});
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if (name == "dynamic_update_slice" && nOps >= 2 && nRes == 1) {
        headOperands();
        appendAttrDict(op, {});
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if (name == "concatenate" && nRes == 1) {
        int64_t dim;
        if (!intValue(op.attr("dimension"), dim))
            return false;
        headOperands();
        out += (nOps ? ", dim = " : "dim = ") + std::to_string(dim);
        appendAttrDict(op, {"dimension"});
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if (name == "pad" && nOps == 2 && nRes == 1) {
        std::vector<int64_t> lo, hi, in;
        if (!intList(op.attr("edge_padding_low"), lo) || !intList(op.attr("edge_padding_high"), hi) ||
            !intList(op.attr("interior_padding"), in))
            return false;
        headOperands();
        out += ", low = ";
        appendIntList(out, lo);
        out += ", high = ";
        appendIntList(out, hi);
        out += ", interior = ";
        appendIntList(out, in);
        appendAttrDict(op, {"edge_padding_low", "edge_padding_high", "interior_padding"});
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if (name == "dot" && nOps == 2 && nRes == 1) {
        std::string prec;
        const Attribute* pc = op.attr("precision_config");
        if (pc && !precisionList(pc, prec))
            return false;
        headOperands();
        if (pc)
            out += ", precision = " + prec;
        appendAttrDict(op, {"precision_config"});
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if (name == "dot_general" && nOps == 2 && nRes == 1) {
        const Attribute* dn = op.attr(stablehlo::kDotDimensionNumbersAttr);
        const OpaqueAttr* o = dn ? dn->as<OpaqueAttr>() : nullptr;
        if (!o || o->mnemonic != "dot")
            return false;
        std::string lb, rb, lc, rc;
        if (!bodyList(o->body, "lhs_batching_dimensions", lb) || !bodyList(o->body, "rhs_batching_dimensions", rb) ||
            !bodyList(o->body, "lhs_contracting_dimensions", lc) ||
            !bodyList(o->body, "rhs_contracting_dimensions", rc))
            return false;
        std::string prec;
        const Attribute* pc = op.attr("precision_config");
        if (pc && !precisionList(pc, prec))
            return false;
        const Attribute* alg = op.attr("algorithm");
        const OpaqueAttr* algO = alg ? alg->as<OpaqueAttr>() : nullptr;
        if (alg && !algO)
            return false;
        headOperands();
        out += ", ";
        if (lb != "[]" || rb != "[]")
            out += "batching_dims = " + lb + " x " + rb + ", ";
        out += "contracting_dims = " + lc + " x " + rc;
        if (pc)
            out += ", precision = " + prec;
        if (algO)
            out += ", algorithm = <" + algO->body + '>';
        appendAttrDict(op, {stablehlo::kDotDimensionNumbersAttr, "precision_config", "algorithm"});
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if (name == "convolution" && nOps == 2 && nRes == 1) {
        const Attribute* dn = op.attr(stablehlo::kDimensionNumbersAttr);
        const OpaqueAttr* o = dn ? dn->as<OpaqueAttr>() : nullptr;
        if (!o || o->mnemonic != "conv" || o->body.empty() || o->body[0] != '[')
            return false;
        std::string window;
        auto addList = [&](const char* prop, const char* key) -> bool {
            const Attribute* a = op.attr(prop);
            if (!a)
                return true;
            auto* da = a->as<DenseArrayAttr>();
            if (!da)
                return false;
            if (!window.empty())
                window += ", ";
            window += std::string(key) + " = [";
            for (size_t i = 0; i < da->ints.size(); ++i) {
                if (i)
                    window += ", ";
                if (da->elementType == "i1")
                    window += da->ints[i] ? "true" : "false";
                else
                    window += std::to_string(da->ints[i]);
            }
            window += ']';
            return true;
        };
        if (!addList("window_strides", "stride"))
            return false;
        if (const Attribute* pad = op.attr("padding")) {
            std::vector<int64_t> p;
            if (!intList(pad, p) || p.size() % 2)
                return false;
            if (!window.empty())
                window += ", ";
            window += "pad = [";
            for (size_t i = 0; i < p.size(); i += 2) {
                if (i)
                    window += ", ";
                window += '[' + std::to_string(p[i]) + ", " + std::to_string(p[i + 1]) + ']';
            }
            window += ']';
        }
        if (!addList("lhs_dilation", "lhs_dilate") || !addList("rhs_dilation", "rhs_dilate") ||
            !addList("window_reversal", "reverse"))
            return false;
        head();
        out += '(';
        appendValues(op.operands());
        out += ") dim_numbers = " + o->body + ", window = {" + window + '}';
        appendAttrDict(op, {stablehlo::kDimensionNumbersAttr, "window_strides", "padding", "lhs_dilation",
                            "rhs_dilation", "window_reversal"});
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if (name == "custom_call") {
        const std::optional<std::string> target = stablehlo::customCallTarget(op);
        if (!target)
            return false;
        std::vector<std::string> elided{stablehlo::kCallTargetNameAttr};
        int64_t api;
        if (intValue(op.attr("api_version"), api) && api == 1)
            elided.push_back("api_version");
        bool se;
        if (boolValue(op.attr("has_side_effect"), se) && !se)
            elided.push_back("has_side_effect");
        for (const char* n : {"called_computations", "output_operand_aliases"}) {
            const Attribute* a = op.attr(n);
            if (a && a->is<ArrayAttr>() && a->as<ArrayAttr>()->elements.empty())
                elided.push_back(n);
        }
        head();
        out += ' ';
        appendSymbol(out, *target);
        out += '(';
        appendValues(op.operands());
        out += ')';
        appendAttrDict(op, elided);
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if (name == "fft" && nOps == 1 && nRes == 1) {
        std::string kind;
        std::vector<int64_t> len;
        if (!enumKeyword(op.attr("fft_type"), kind) || !intList(op.attr("fft_length"), len))
            return false;
        head();
        out += ' ';
        appendValue(op.operand(0));
        out += ", type =  " + kind + ", length = ";
        appendIntList(out, len);
        appendAttrDict(op, {"fft_type", "fft_length"});
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if (name == "cholesky" && nOps == 1 && nRes == 1) {
        bool lower = false;
        const Attribute* l = op.attr("lower");
        if (l && !boolValue(l, lower))
            return false;
        head();
        out += ' ';
        appendValue(op.operand(0));
        if (lower)
            out += ", lower = true";
        appendAttrDict(op, {"lower"});
        sameOrFunctional();
        return true;
    }
    if (name == "select" && nOps == 3 && nRes == 1) {
        headOperands();
        appendAttrDict(op, {});
        out += " : ";
        const Type& r = op.result(0)->type();
        if (op.operand(1)->type() == r && op.operand(2)->type() == r) {
            appendType(out, op.operand(0)->type());
            out += ", ";
            appendType(out, r);
        } else {
            appendFunctionalType(op);
        }
        return true;
    }
    if (name == "rng_bit_generator" && nOps == 1 && nRes == 2) {
        std::string alg;
        if (!enumKeyword(op.attr("rng_algorithm"), alg))
            return false;
        head();
        out += ' ';
        appendValue(op.operand(0));
        out += ", algorithm =  " + alg;
        appendAttrDict(op, {"rng_algorithm"});
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if (name == "reduce_precision" && nOps == 1 && nRes == 1) {
        int64_t e, m;
        if (!intValue(op.attr("exponent_bits"), e) || !intValue(op.attr("mantissa_bits"), m))
            return false;
        head();
        out += ' ';
        appendValue(op.operand(0));
        out += ", format = e" + std::to_string(e) + 'm' + std::to_string(m);
        appendAttrDict(op, {"exponent_bits", "mantissa_bits"});
        sameOrFunctional();
        return true;
    }
    if (name == "optimization_barrier" && nOps == nRes) {
        head();
        appendAttrDict(op, {});
        if (nOps == 0) {
            out += "()";
            return true;
        }
        for (unsigned i = 0; i < nOps; ++i)
            if (op.operand(i)->type() != op.result(i)->type())
                return false;
        out += ' ';
        appendValues(op.operands());
        out += " : ";
        appendValueTypes(op.operands());
        return true;
    }
    if (name == "get_tuple_element" && nOps == 1 && nRes == 1) {
        int64_t idx;
        if (!intValue(op.attr("index"), idx))
            return false;
        head();
        out += ' ';
        appendValue(op.operand(0));
        out += '[' + std::to_string(idx) + ']';
        appendAttrDict(op, {"index"});
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if ((name == "tuple" || name == "after_all") && nRes == 1) {
        head();
        if (nOps) {
            out += ' ';
            appendValues(op.operands());
        }
        appendAttrDict(op, {});
        out += " : ";
        appendType(out, op.result(0)->type());
        return true;
    }
    if ((name == "create_token" || name == "partition_id" || name == "replica_id") && nOps == 0 && nRes == 1) {
        head();
        appendAttrDict(op, {});
        out += " : ";
        appendType(out, op.result(0)->type());
        return true;
    }
    if (name == "return" && nRes == 0) {
        head();
        if (nOps) {
            out += ' ';
            appendValues(op.operands());
        }
        appendAttrDict(op, {});
        if (nOps) {
            out += " : ";
            appendValueTypes(op.operands());
        }
        return true;
    }
    if (name == "reduce" && op.numRegions() == 1 && nOps >= 2 && nOps % 2 == 0) {
        std::vector<int64_t> dims;
        if (!intList(op.attr("dimensions"), dims))
            return false;
        const Region& body = op.region(0);
        if (body.blocks().size() != 1)
            return false;
        const Block& block = *body.blocks().front();
        unsigned n = nOps / 2;
        if (block.numArgs() != nOps)
            return false;
        head();
        for (unsigned k = 0; k < n; ++k) {
            out += k ? ", (" : "(";
            appendValue(op.operand(k));
            out += " init: ";
            appendValue(op.operand(k + n));
            out += ')';
        }
        // Compact form (StableHLO's isEligibleForCompactPrint).
        bool compact = false;
        if (block.ops().size() == 2) {
            const Op& inner = *block.ops().front();
            const Op& ret = *block.ops().back();
            compact = inner.dialect() == "stablehlo" && isCommutativeBinary(inner.name()) && inner.numOperands() == 2 &&
                      inner.numResults() == 1 && inner.numRegions() == 0 && inner.attrs().empty() &&
                      inner.props().empty() && ret.name() == "stablehlo.return" && ret.numOperands() == 1 &&
                      ret.operand(0) == inner.result(0) && inner.operand(0) == block.arg(0) &&
                      inner.operand(1) == block.arg(1);
            if (compact) {
                const Type& in0 = op.operand(0)->type();
                compact = in0.isTensor() && inner.operand(0)->type() == Type::tensor({}, in0.elementType());
            }
        }
        if (compact) {
            out += " applies " + block.ops().front()->name() + " across dimensions = ";
            appendIntList(out, dims);
            appendAttrDict(op, {"dimensions"});
            out += " : ";
            appendFunctionalType(op);
            return true;
        }
        out += " across dimensions = ";
        appendIntList(out, dims);
        appendAttrDict(op, {"dimensions"});
        out += " : ";
        appendFunctionalType(op);
        out += '\n';
        out.append(static_cast<size_t>(indent), ' ');
        out += " reducer";
        for (unsigned k = 0; k < n; ++k) {
            out += '(';
            appendBlockArgDecl(block.arg(k));
            out += ", ";
            appendBlockArgDecl(block.arg(k + n));
            out += ") ";
        }
        out += ' ';
        appendRegion(body, false);
        return true;
    }
    if (name == "while" && op.numRegions() == 2 && nOps == nRes) {
        const Region& cond = op.region(0);
        const Region& body = op.region(1);
        if (cond.blocks().empty() || body.blocks().empty())
            return false;
        const Block& cb = *cond.blocks().front();
        const Block& bb = *body.blocks().front();
        if (cb.numArgs() != nOps || bb.numArgs() != nOps)
            return false;
        head();
        out += '(';
        for (unsigned i = 0; i < nOps; ++i) {
            if (i)
                out += ", ";
            appendValue(cb.arg(i));
            out += " = ";
            appendValue(op.operand(i));
        }
        out += ')';
        if (nOps) {
            out += " : ";
            appendValueTypes(op.operands());
        }
        appendAttrDict(op, {}, true);
        out += '\n';
        out.append(static_cast<size_t>(indent), ' ');
        out += " cond ";
        appendRegion(cond, false);
        out += " do ";
        appendRegion(body, false);
        return true;
    }
    return false;
}

} // namespace shardx::io::detail
