// MLIR printer: module, SSA value naming, generic op form, regions and blocks.
#include "core/io/MlirPrinter.h"

#include <algorithm>

#include "core/io/PrinterInternal.h"

namespace shardx::io {

using namespace ir;

namespace detail {

// ---- SSA naming (SDY.md 6.2, MLIR's SSANameState) ------------------------------------------

/// Result names an op gives through OpAsmOpInterface (empty: numbered).
static std::vector<std::string> resultNameHints(const Op& op)
{
    const std::string& n = op.name();
    if (n == "stablehlo.constant" && op.numResults() == 1) {
        const Type& t = op.result(0)->type();
        std::string elt = t.isTensor() ? t.elementType() : t.name();
        return {isIntegerElementType(elt) ? "c" : "cst"};
    }
    if (n == "stablehlo.rng_bit_generator" && op.numResults() == 2)
        return {"output_state", "output"};
    if (n == "stablehlo.batch_norm_training" && op.numResults() == 3)
        return {"output", "batch_mean", "batch_var"};
    if (n == "stablehlo.batch_norm_grad" && op.numResults() == 3)
        return {"grad_operand", "grad_scale", "grad_offset"};
    return {};
}

void Printer::ValueNameMap::reserve(size_t n)
{
    size_t cap = 16;
    while (cap < n * 2)
        cap <<= 1;
    m_keys.assign(cap, nullptr);
    m_ids.assign(cap, 0);
    m_size = 0;
}

size_t Printer::ValueNameMap::slot(const Value* v) const
{
    uint64_t h = reinterpret_cast<uintptr_t>(v);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    size_t mask = m_keys.size() - 1;
    size_t i = static_cast<size_t>(h) & mask;
    while (m_keys[i] && m_keys[i] != v)
        i = (i + 1) & mask;
    return i;
}

void Printer::ValueNameMap::set(const Value* v, uint32_t id)
{
    if ((m_size + 1) * 2 > m_keys.size()) {
        std::vector<const Value*> keys = std::move(m_keys);
        std::vector<uint32_t> ids = std::move(m_ids);
        reserve(std::max<size_t>(keys.size(), 8));
        for (size_t i = 0; i < keys.size(); ++i)
            if (keys[i])
                set(keys[i], ids[i]);
    }
    size_t i = slot(v);
    if (!m_keys[i]) {
        m_keys[i] = v;
        ++m_size;
    }
    m_ids[i] = id;
}

const uint32_t* Printer::ValueNameMap::find(const Value* v) const
{
    if (m_keys.empty())
        return nullptr;
    size_t i = slot(v);
    return m_keys[i] ? &m_ids[i] : nullptr;
}

std::string Printer::uniqueName(const std::string& hint, Counters& c)
{
    std::string name = hint;
    if (m_used.count(name)) {
        std::string probe;
        while (true) {
            probe = name + "_" + std::to_string(c.conflict++);
            if (!m_used.count(probe))
                break;
        }
        name = probe;
    }
    return name;
}

void Printer::setName(const Value* v, const std::string& hint, Counters& c)
{
    if (hint.empty()) {
        m_names.set(v, c.value++);
        return;
    }
    std::string name = uniqueName(hint, c);
    ++m_used[name];
    m_scopeNames.back().push_back(name);
    m_names.set(v, kNamed | static_cast<uint32_t>(m_namedValues.size()));
    m_namedValues.push_back(std::move(name));
}

void Printer::numberOp(const Op& op, Counters& c)
{
    if (op.numResults() == 0)
        return;
    std::vector<std::string> hints;
    if (!m_options.genericForm)
        hints = resultNameHints(op);
    if (hints.empty()) {
        m_names.set(op.result(0), c.value++);
        return;
    }
    std::vector<unsigned> groups{0};
    for (unsigned i = 0; i < op.numResults() && i < hints.size(); ++i) {
        setName(op.result(i), hints[i], c);
        if (i)
            groups.push_back(i);
    }
    if (groups.size() > 1)
        m_groups[&op] = std::move(groups);
}

void Printer::numberRegion(const Region& region, Counters c)
{
    m_scopeNames.emplace_back();
    const Op* parent = region.parentOp();
    bool whileArgs = !m_options.genericForm && parent && parent->name() == "stablehlo.while";
    unsigned blockId = 0;
    for (const auto& block : region.blocks()) {
        m_blockIds[block.get()] = blockId;
        bool entry = blockId == 0;
        ++blockId;
        for (const auto& arg : block->args()) {
            if (entry && whileArgs)
                setName(arg.get(), "iterArg", c);
            else if (entry)
                setName(arg.get(), "arg" + std::to_string(c.arg++), c);
            else
                setName(arg.get(), "", c);
        }
        for (const auto& op : block->ops())
            numberOp(*op, c);
    }
    for (const auto& block : region.blocks())
        for (const auto& op : block->ops())
            for (const auto& sub : op->regions())
                numberRegion(*sub, c);
    for (const std::string& n : m_scopeNames.back()) {
        auto it = m_used.find(n);
        if (--it->second == 0)
            m_used.erase(it);
    }
    m_scopeNames.pop_back();
}

// ---- values, types, attribute dictionaries --------------------------------------------------

void Printer::appendValue(const Value* v)
{
    if (!v) {
        out += "<<NULL VALUE>>";
        return;
    }
    const Value* head = v;
    int resultNo = -1;
    if (const Op* def = v->definingOp(); def && def->numResults() > 1) {
        auto g = m_groups.find(def);
        unsigned idx = v->index();
        if (g == m_groups.end()) {
            head = def->result(0);
            resultNo = static_cast<int>(idx);
        } else {
            const auto& starts = g->second;
            auto it = std::upper_bound(starts.begin(), starts.end(), idx);
            unsigned start = *(it - 1);
            unsigned end = it == starts.end() ? def->numResults() : *it;
            head = def->result(start);
            if (end - start > 1)
                resultNo = static_cast<int>(idx - start);
        }
    }
    const uint32_t* id = m_names.find(head);
    if (!id) {
        out += "<<UNKNOWN SSA VALUE>>";
        return;
    }
    out += '%';
    appendName(*id);
    if (resultNo >= 0) {
        out += '#';
        out += std::to_string(resultNo);
    }
}

void Printer::appendName(uint32_t id)
{
    if (id & kNamed) {
        out += m_namedValues[id & ~kNamed];
    } else {
        char buf[16];
        char* p = buf + sizeof buf;
        do {
            *--p = static_cast<char>('0' + id % 10);
            id /= 10;
        } while (id);
        out.append(p, static_cast<size_t>(buf + sizeof buf - p));
    }
}

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
    appendTrailingLoc(arg->loc, arg->pos);
}

// ---- ops, blocks, regions -----------------------------------------------------------------

void Printer::appendBlockName(const Block* b)
{
    auto it = m_blockIds.find(b);
    out += "^bb";
    out += it == m_blockIds.end() ? std::string("?") : std::to_string(it->second);
}

void Printer::appendResultList(const Op& op)
{
    unsigned n = op.numResults();
    if (!n)
        return;
    auto g = m_groups.find(&op);
    if (g == m_groups.end()) {
        appendValue(op.result(0));
        if (n > 1) {
            // appendValue printed `#0`; strip it for the definition.
            size_t hash = out.rfind('#');
            out.resize(hash);
            out += ':' + std::to_string(n);
        }
    } else {
        const auto& starts = g->second;
        for (size_t k = 0; k < starts.size(); ++k) {
            if (k)
                out += ", ";
            unsigned end = k + 1 < starts.size() ? starts[k + 1] : n;
            const uint32_t* id = m_names.find(op.result(starts[k]));
            out += '%';
            if (!id)
                out += "<<UNKNOWN SSA VALUE>>";
            else
                appendName(*id);
            if (end - starts[k] > 1)
                out += ':' + std::to_string(end - starts[k]);
        }
    }
    out += " = ";
}

void Printer::printOp(const Op& op, bool inFuncBody)
{
    out.append(static_cast<size_t>(indent), ' ');
    appendResultList(op);
    if (!m_options.genericForm) {
        size_t mark = out.size();
        if (printCustomOp(op, inFuncBody)) {
            appendTrailingLoc(op.loc, op.pos);
            out += '\n';
            return;
        }
        out.resize(mark);
    }
    printGenericOp(op);
    appendTrailingLoc(op.loc, op.pos);
    out += '\n';
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
                        preds.push_back(m_blockIds[b.get()]);
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
    Counters c;
    size_t numValues = 0;
    const_cast<Op&>(mod).walk([&](Op* o) {
        numValues += o->numResults();
        for (const auto& r : o->regions())
            for (const auto& b : r->blocks())
                numValues += b->numArgs();
    });
    m_names.reserve(numValues);
    out.reserve(numValues * 64);
    m_scopeNames.emplace_back();
    for (const auto& r : mod.regions())
        numberRegion(*r, c);
    m_scopeNames.pop_back();

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
