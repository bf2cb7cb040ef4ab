// MLIR printer: the simple functional-type StableHLO op forms (io/StablehloForms.h) and the func
// ops `constant` and `call_indirect`.
#include "core/io/PrinterInternal.h"
#include "core/io/StablehloForms.h"

namespace shardx::io::detail {

using namespace ir;

bool Printer::printFunctionalFormOp(const Op& op)
{
    const std::string& name = op.name();
    const KeywordForm* form = keywordFormOf(name);
    if ((!form && !isOperandsOnlyFunctionalForm(name)) || op.numResults() == 0)
        return false;
    std::string clause;
    if (form) {
        const Attribute* a = op.attr(form->prop);
        if (!a)
            return false;
        clause = std::string(", ") + form->key + " = ";
        switch (form->value) {
        case FormValue::I64List: {
            std::vector<int64_t> v;
            if (!a->is<DenseArrayAttr>() || !intList(a, v))
                return false;
            clause += '[';
            for (size_t i = 0; i < v.size(); ++i)
                clause += (i ? ", " : "") + std::to_string(v[i]);
            clause += ']';
            break;
        }
        case FormValue::I64: {
            int64_t v;
            if (!intValue(a, v))
                return false;
            clause += std::to_string(v);
            break;
        }
        case FormValue::Enum: {
            const OpaqueAttr* o = a->as<OpaqueAttr>();
            std::string kw;
            if (!o || o->body.rfind(std::string(form->enumName) + ' ', 0) != 0 || !enumKeyword(a, kw))
                return false;
            clause += ' ' + kw;
            break;
        }
        case FormValue::String: {
            const StringAttr* s = a->as<StringAttr>();
            if (!s)
                return false;
            appendQuoted(clause, s->value);
            break;
        }
        }
    }
    out += name;
    if (op.numOperands()) {
        out += ' ';
        appendValues(op.operands());
    }
    out += clause;
    if (form)
        appendAttrDict(op, {form->prop});
    else
        appendAttrDict(op, {});
    out += " : ";
    appendFunctionalType(op);
    return true;
}

bool Printer::printFuncConstantOrCallIndirect(const Op& op, const std::string& prefix)
{
    if (op.numRegions())
        return false;
    if (op.name() == "func.constant" && op.numOperands() == 0 && op.numResults() == 1) {
        const Attribute* v = op.attr("value");
        if (!v || !v->is<SymbolRefAttr>() || v->as<SymbolRefAttr>()->path.size() != 1)
            return false;
        out += prefix + "constant";
        appendAttrDict(op, {"value"});
        out += ' ';
        appendAttribute(out, *v);
        out += " : ";
        appendType(out, op.result(0)->type());
        return true;
    }
    if (op.name() == "func.call_indirect" && op.numOperands() >= 1) {
        // The trailing type is the callee's: it must match the arguments and results.
        const Type& ft = op.operand(0)->type();
        if (ft.kind() != Type::Kind::Function || ft.elements().size() != op.numOperands() - 1 ||
            ft.results().size() != op.numResults())
            return false;
        for (unsigned i = 1; i < op.numOperands(); ++i)
            if (op.operand(i)->type() != ft.elements()[i - 1])
                return false;
        for (unsigned i = 0; i < op.numResults(); ++i)
            if (op.result(i)->type() != ft.results()[i])
                return false;
        std::vector<std::string> elided;
        for (const char* n : {kArgAttrsAttr, kResAttrsAttr}) {
            const Attribute* a = op.attr(n);
            if (a && a->is<ArrayAttr>() && a->as<ArrayAttr>()->elements.empty())
                elided.emplace_back(n);
        }
        out += prefix + "call_indirect ";
        appendValue(op.operand(0));
        out += '(';
        std::vector<Value*> args(op.operands().begin() + 1, op.operands().end());
        appendValues(args);
        out += ')';
        appendAttrDict(op, elided);
        out += " : ";
        appendType(out, ft);
        return true;
    }
    return false;
}

} // namespace shardx::io::detail
