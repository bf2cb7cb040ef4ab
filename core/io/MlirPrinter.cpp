// MLIR printer: module, SSA value naming, generic op form, regions and blocks.
#include "core/io/MlirPrinter.h"

#include <algorithm>
#include <ostream>

#include "core/io/PrinterInternal.h"

namespace shardx::io {

using namespace ir;

namespace detail {

// ---- values, types, attribute dictionaries --------------------------------------------------

void Printer::appendValue(const Value* v) { m_names->appendReference(out, v); }

void Printer::appendValues(const std::vector<Value*>& vs)
{
    for (size_t i = 0; i < vs.size(); ++i) {
        if (i)
            out += ", ";
        appendValue(vs[i]);
    }
}

void Printer::appendValueTypes(const std::vector<Value*>& vs)
{
    for (size_t i = 0; i < vs.size(); ++i) {
        if (i)
            out += ", ";
        if (vs[i])
            appendType(out, vs[i]->type());
        else
            out += "none";
    }
}

void Printer::appendFunctionalType(const std::vector<Type>& ins, const std::vector<Type>& outs)
{
    appendType(out, Type::function(ins, outs));
}

void Printer::appendFunctionalType(const Op& op)
{
    std::vector<Type> ins, outs;
    for (Value* v : op.operands())
        ins.push_back(v ? v->type() : Type());
    for (const auto& r : op.results())
        outs.push_back(r->type());
    appendFunctionalType(ins, outs);
}

void Printer::appendAttrDict(const Op& op, const std::vector<std::string>& elided, bool withKeyword)
{
    // props and attrs are each sorted; merge them.
    // Both lists are kept sorted by the IR; sort copies defensively if a pass broke that.
    auto byName = [](const NamedAttribute& x, const NamedAttribute& y) { return x.name < y.name; };
    NamedAttrList sortedA, sortedB;
    const NamedAttrList* pa = &op.props();
    const NamedAttrList* pb = &op.attrs();
    if (!std::is_sorted(pa->begin(), pa->end(), byName)) {
        sortedA = *pa;
        std::stable_sort(sortedA.begin(), sortedA.end(), byName);
        pa = &sortedA;
    }
    if (!std::is_sorted(pb->begin(), pb->end(), byName)) {
        sortedB = *pb;
        std::stable_sort(sortedB.begin(), sortedB.end(), byName);
        pb = &sortedB;
    }
    const NamedAttrList& a = *pa;
    const NamedAttrList& b = *pb;
    auto skip = [&](const NamedAttribute& na) {
        return std::find(elided.begin(), elided.end(), na.name) != elided.end();
    };
    size_t i = 0, j = 0;
    bool first = true;
    while (i < a.size() || j < b.size()) {
        const NamedAttribute* na;
        if (j >= b.size() || (i < a.size() && a[i].name <= b[j].name))
            na = &a[i++];
        else
            na = &b[j++];
        if (skip(*na))
            continue;
        if (first) {
            out += withKeyword ? " attributes {" : " {";
            first = false;
        } else {
            out += ", ";
        }
        appendNamedAttribute(out, *na);
    }
    if (!first)
        out += '}';
}

void Printer::appendTrailingLoc(const AttrPtr& loc, const SourcePos& pos)
{
    if (!m_options.printDebugInfo)
        return;
    out += ' ';
    if (loc && loc->is<LocationAttr>()) {
        appendLocation(out, *loc->as<LocationAttr>());
    } else if (pos.isKnown()) {
        // No explicit loc: MLIR's parser gives the op its source position.
        LocationAttr l;
        l.kind = LocationAttr::Kind::FileLineCol;
        l.text = pos.file;
        l.line = pos.line;
        l.col = pos.col;
        appendLocation(out, l);
    } else {
        out += "loc(unknown)";
    }
}

void Printer::appendBlockArgDecl(const Value* arg, const NamedAttrList* attrs)
{
    appendValue(arg);
    out += ": ";
    appendType(out, arg->type());
    if (attrs && !attrs->empty()) {
        out += ' ';
        appendAttribute(out, Attribute(DictionaryAttr{*attrs}));
    }
    appendTrailingLoc(arg->loc(), arg->pos());
}

// ---- ops, blocks, regions -----------------------------------------------------------------

void Printer::appendBlockName(const Block* b)
{
    const int id = m_names->blockNumber(b);
    out += "^bb";
    out += id < 0 ? std::string("?") : std::to_string(id);
}

void Printer::appendResultList(const Op& op) { m_names->appendResultList(out, op); }

void Printer::printOp(const Op& op, bool inFuncBody)
{
    out.append(static_cast<size_t>(indent), ' ');
    appendResultList(op);
    if (op.opaqueSyntax()) {
        // Kept as written: its text, with the names this printer gives its operands.
        const auto& pieces = op.opaqueSyntax()->pieces;
        for (size_t i = 0; i < pieces.size(); ++i) {
            if (i)
                appendValue(op.operand(static_cast<unsigned>(i - 1)));
            out += pieces[i];
        }
        appendTrailingLoc(op.loc, op.pos);
        out += '\n';
        return;
    }
    if (!m_options.genericForm) {
        const uint64_t mark = m_flushed + out.size();
        m_rollbackMarks.push_back(mark);
        const bool printed = printCustomOp(op, inFuncBody);
        m_rollbackMarks.pop_back();
        if (printed) {
            appendTrailingLoc(op.loc, op.pos);
            out += '\n';
            flushToSink();
            return;
        }
        out.resize(static_cast<size_t>(mark - m_flushed));
    }
    printGenericOp(op);
    appendTrailingLoc(op.loc, op.pos);
    out += '\n';
    flushToSink();
}

void Printer::commitCustomForm()
{
    if (!m_rollbackMarks.empty())
        m_rollbackMarks.back() = kNoRollback;
}

void Printer::flushToSink()
{
    constexpr size_t kChunk = 256 * 1024;
    if (!m_sink || out.size() < kChunk)
        return;
    uint64_t limit = m_flushed + out.size();
    for (uint64_t mark : m_rollbackMarks)
        limit = std::min(limit, mark);
    const size_t n = static_cast<size_t>(limit - m_flushed);
    if (n < kChunk / 2)
        return;
    m_sink->write(out.data(), static_cast<std::streamsize>(n));
    out.erase(0, n);
    m_flushed += n;
}

void Printer::finishSink()
{
    if (!m_sink)
        return;
    m_sink->write(out.data(), static_cast<std::streamsize>(out.size()));
    m_flushed += out.size();
    out.clear();
}

void Printer::printGenericOp(const Op& op)
{
    appendQuoted(out, op.name());
    out += '(';
    appendValues(op.operands());
    out += ')';
    if (!op.successors().empty()) {
        out += '[';
        for (size_t i = 0; i < op.successors().size(); ++i) {
            if (i)
                out += ", ";
            appendBlockName(op.successors()[i]);
        }
        out += ']';
    }
    if (!op.props().empty()) {
        out += " <{";
        for (size_t i = 0; i < op.props().size(); ++i) {
            if (i)
                out += ", ";
            appendNamedAttribute(out, op.props()[i]);
        }
        out += "}>";
    }
    if (op.numRegions()) {
        out += " (";
        for (unsigned i = 0; i < op.numRegions(); ++i) {
            if (i)
                out += ", ";
            appendRegion(op.region(i), true, true, true);
        }
        out += ')';
    }
    if (!op.attrs().empty()) {
        out += " {";
        for (size_t i = 0; i < op.attrs().size(); ++i) {
            if (i)
                out += ", ";
            appendNamedAttribute(out, op.attrs()[i]);
        }
        out += '}';
    }
    out += " : ";
    appendFunctionalType(op);
}

void Printer::printBlock(const Block& block, bool printHeader, bool printTerminator, bool inFuncBody)
{
    if (printHeader) {
        out.append(static_cast<size_t>(indent), ' ');
        appendBlockName(&block);
        if (block.numArgs()) {
            out += '(';
            for (unsigned i = 0; i < block.numArgs(); ++i) {
                if (i)
                    out += ", ";
                appendBlockArgDecl(block.arg(i));
            }
            out += ')';
        }
        out += ':';
        // Predecessor comment, as MLIR prints it.
        const Region* region = block.parentRegion();
        std::vector<unsigned> preds;
        if (region) {
            for (const auto& b : region->blocks()) {
                const Op* term = b->terminator();
                if (!term)
                    continue;
                for (const Block* s : term->successors())
                    if (s == &block)
                        preds.push_back(static_cast<unsigned>(m_names->blockNumber(b.get())));
            }
        }
        bool isEntry = region && !region->blocks().empty() && region->blocks().front().get() == &block;
        if (preds.empty()) {
            if (!isEntry)
                out += "  // no predecessors";
        } else {
            std::sort(preds.begin(), preds.end());
            preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
            if (preds.size() == 1) {
                out += "  // pred: ^bb" + std::to_string(preds[0]);
            } else {
                out += "  // " + std::to_string(preds.size()) + " preds: ";
                for (size_t i = 0; i < preds.size(); ++i) {
                    if (i)
                        out += ", ";
                    out += "^bb" + std::to_string(preds[i]);
                }
            }
        }
        out += '\n';
    }
    indent += 2;
    const auto& ops = block.ops();
    for (auto it = ops.begin(); it != ops.end(); ++it) {
        if (!printTerminator && std::next(it) == ops.end())
            break;
        printOp(**it, inFuncBody);
    }
    indent -= 2;
}

void Printer::appendRegion(const Region& region, bool printEntryBlockArgs, bool printBlockTerminators,
                           bool printEmptyBlock)
{
    out += "{\n";
    const Op* parent = region.parentOp();
    bool inFuncBody = parent && parent->name() == "func.func";
    if (!region.empty()) {
        const Block& entry = *region.blocks().front();
        bool header = (printEmptyBlock && entry.empty()) || (printEntryBlockArgs && entry.numArgs() != 0);
        printBlock(entry, header, printBlockTerminators, inFuncBody);
        for (size_t i = 1; i < region.blocks().size(); ++i)
            printBlock(*region.blocks()[i], true, true, inFuncBody);
    }
    out.append(static_cast<size_t>(indent), ' ');
    out += '}';
}

bool Printer::printModuleOp(const Op& mod)
{
    if (mod.numResults() || mod.numOperands() || mod.numRegions() != 1 || mod.region(0).blocks().size() != 1 ||
        mod.region(0).blocks().front()->numArgs() != 0)
        return false;
    const Attribute* symName = mod.attr(kSymNameAttr);
    if (symName && !symName->is<StringAttr>())
        return false;
    out += "module";
    if (symName) {
        out += ' ';
        appendSymbol(out, symbolName(mod));
    }
    appendAttrDict(mod, {kSymNameAttr}, true);
    out += ' ';
    appendRegion(mod.region(0), false, true, false);
    return true;
}

// ---- module --------------------------------------------------------------------------------

void Printer::printModule(const Module& module)
{
    const Op& mod = module.op();
    m_names.emplace(mod, !m_options.genericForm);
    if (m_sink) {
        out.reserve(512 * 1024);
    } else {
        size_t numOps = 0;
        const_cast<Op&>(mod).walk([&](Op*) { ++numOps; });
        out.reserve(numOps * 96);
    }

    if (m_options.genericForm || !printModuleOp(mod)) {
        appendResultList(mod);
        printGenericOp(mod);
    }
    appendTrailingLoc(mod.loc, mod.pos);
    out += '\n';

    if (!module.resources.empty()) {
        out += "\n{-#\n  dialect_resources: {\n    builtin: {\n";
        size_t i = 0;
        for (const auto& [key, blob] : module.resources) {
            out += "      ";
            if (isBareIdentifier(key))
                out += key;
            else
                appendQuoted(out, key);
            out += ": ";
            if (blob.size() >= 1 && blob.front() == '"')
                out += blob;
            else
                appendQuoted(out, blob);
            out += ++i < module.resources.size() ? ",\n" : "\n";
        }
        out += "    }\n  }\n#-}\n";
    }
}

} // namespace detail

std::string printModule(const Module& module, const PrintOptions& options)
{
    detail::Printer p(options);
    p.printModule(module);
    return std::move(p.out);
}

void printModule(const Module& module, const PrintOptions& options, std::ostream& out)
{
    detail::Printer p(options, &out);
    p.printModule(module);
    p.finishSink();
}

std::string printAttribute(const Attribute& attr)
{
    std::string s;
    detail::appendAttribute(s, attr);
    return s;
}

std::string printType(const Type& type)
{
    std::string s;
    detail::appendType(s, type);
    return s;
}

} // namespace shardx::io
