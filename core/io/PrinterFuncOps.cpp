// Printer (PrinterInternal.h): custom assembly forms of the func ops: func, call, return, constant, call_indirect.
#include "core/io/PrinterInternal.h"

namespace shardx::io::detail {

using namespace ir;

bool Printer::printFuncOp(const Op& op, bool inFuncBody)
{
    const std::string prefix = inFuncBody ? "" : "func.";
    if (op.name() == "func.return" && op.numResults() == 0 && op.numRegions() == 0) {
        out += prefix + "return";
        appendAttrDict(op, {});
        if (op.numOperands()) {
            out += ' ';
            appendValues(op.operands());
            out += " : ";
            appendValueTypes(op.operands());
        }
        return true;
    }
    if (op.name() == "func.call" && op.numRegions() == 0) {
        if (!calleeRef(op))
            return false;
        out += prefix + "call ";
        appendAttribute(out, *op.attr(kCalleeAttr));
        out += '(';
        appendValues(op.operands());
        out += ')';
        std::vector<std::string> elided{kCalleeAttr};
        for (const char* n : {kArgAttrsAttr, kResAttrsAttr}) {
            const Attribute* a = op.attr(n);
            if (a && a->is<ArrayAttr>() && a->as<ArrayAttr>()->elements.empty())
                elided.emplace_back(n);
        }
        appendAttrDict(op, elided);
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if (op.name() == "func.constant" || op.name() == "func.call_indirect")
        return printFuncConstantOrCallIndirect(op, prefix);
    if (op.name() != "func.func" || op.numRegions() != 1 || op.numOperands() || op.numResults())
        return false;
    const Attribute* sym = op.attr(kSymNameAttr);
    const Type fnType = funcType(op);
    if (!sym || !sym->is<StringAttr>() || fnType.kind() != Type::Kind::Function)
        return false;
    const std::optional<std::string> vis = symbolVisibility(op);
    if (!vis && op.attr(kSymVisibilityAttr))
        return false;
    const Region& body = op.region(0);
    const size_t nIn = fnType.elements().size(), nOut = fnType.results().size();
    auto dictList = [&](const char* n, size_t count, std::vector<const DictionaryAttr*>& dicts) {
        const Attribute* a = op.attr(n);
        dicts.assign(count, nullptr);
        if (!a)
            return true;
        auto* arr = a->as<ArrayAttr>();
        if (!arr || arr->elements.size() != count)
            return false;
        for (size_t i = 0; i < count; ++i) {
            if (!arr->elements[i] || !arr->elements[i]->is<DictionaryAttr>())
                return false;
            dicts[i] = arr->elements[i]->as<DictionaryAttr>();
        }
        return true;
    };
    std::vector<const DictionaryAttr*> argDicts, resDicts;
    if (!dictList(kArgAttrsAttr, nIn, argDicts) || !dictList(kResAttrsAttr, nOut, resDicts))
        return false;
    const Block* entry = body.empty() ? nullptr : body.blocks().front().get();
    if (entry && entry->numArgs() != nIn)
        return false;

    out += "func.func ";
    if (vis) {
        out += *vis;
        out += ' ';
    }
    appendSymbol(out, symbolName(op));
    out += '(';
    for (size_t i = 0; i < nIn; ++i) {
        if (i)
            out += ", ";
        const NamedAttrList* attrs = argDicts[i] ? &argDicts[i]->entries : nullptr;
        if (entry) {
            appendBlockArgDecl(entry->arg(static_cast<unsigned>(i)), attrs);
        } else {
            appendType(out, fnType.elements()[i]);
            if (attrs && !attrs->empty()) {
                out += ' ';
                appendAttribute(out, Attribute(DictionaryAttr{*attrs}));
            }
        }
    }
    out += ')';
    if (nOut) {
        out += " -> ";
        bool parens = nOut > 1 || fnType.results()[0].kind() == Type::Kind::Function ||
                      (resDicts[0] && !resDicts[0]->entries.empty());
        if (parens)
            out += '(';
        for (size_t i = 0; i < nOut; ++i) {
            if (i)
                out += ", ";
            appendType(out, fnType.results()[i]);
            if (resDicts[i] && !resDicts[i]->entries.empty()) {
                out += ' ';
                appendAttribute(out, Attribute(DictionaryAttr{resDicts[i]->entries}));
            }
        }
        if (parens)
            out += ')';
    }
    appendAttrDict(op, {kSymNameAttr, kFunctionTypeAttr, kSymVisibilityAttr, kArgAttrsAttr, kResAttrsAttr}, true);
    // The custom form holds from here on: the body may be written out as it is printed.
    commitCustomForm();
    if (!body.empty()) {
        out += ' ';
        appendRegion(body, false);
    }
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
