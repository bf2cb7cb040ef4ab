// Printer (PrinterInternal.h): the simple functional-type StableHLO op forms (io/StablehloForms.h).
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

} // namespace shardx::io::detail
