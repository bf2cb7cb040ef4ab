// ProgramIds: naming a module's values and ops the way its file does, and naming what passes
// insert after the user's values they stand for.
#include "core/ir/ProgramIds.h"

#include <algorithm>
#include <bit>
#include <ostream>

#include "core/ir/Module.h"
#include "core/ir/SsaNames.h"

namespace shardx::ir {

namespace {

/// Makes room for one more entry: a table copied with its module (at exact capacity) grows by an eighth
/// when passes name what they insert, not by doubling (a copy of a 100k-op program's names is tens of
/// megabytes; the few thousand a partitioning adds would double it).
template <typename T> void roomForOneMore(std::vector<T>& v)
{
    if (v.size() == v.capacity())
        v.reserve(v.size() + v.size() / 8 + 16);
}

/// The name scope of a location: its name, or the first name inside a call site / fused one.
const std::string* scopeOf(const LocationAttr& loc)
{
    switch (loc.kind) {
    case LocationAttr::Kind::Name: return loc.text.empty() ? nullptr : &loc.text;
    case LocationAttr::Kind::CallSite:
    case LocationAttr::Kind::Fused:
        for (const auto& c : loc.children)
            if (c)
                if (const std::string* s = scopeOf(*c))
                    return s;
        return nullptr;
    default: return nullptr;
    }
}

/// `reshard` for `sdy.reshard`: the part after the dialect.
std::string shortOpName(const std::string& opName)
{
    const size_t dot = opName.find('.');
    return dot == std::string::npos ? opName : opName.substr(dot + 1);
}

bool isTopLevel(const Op& op)
{
    const Op* parent = op.parentOp();
    return !parent || parent->name() == "builtin.module";
}

/// The index of the region of `parent` that holds `block`.
unsigned regionIndexOf(const Op& parent, const Block& block)
{
    for (unsigned i = 0; i < parent.numRegions(); ++i)
        if (&parent.region(i) == block.parentRegion())
            return i;
    return 0;
}

/// `%x:2` style result list from source names (`x#0`, `x#1`), or nullopt when a result has none.
std::optional<std::string> sourceResultList(const Op& op)
{
    std::string out;
    unsigned i = 0;
    while (i < op.numResults()) {
        const std::string& n = op.result(i)->sourceName;
        if (n.empty())
            return std::nullopt;
        const size_t hash = n.find('#');
        const std::string head = n.substr(0, hash);
        unsigned count = 1;
        if (hash != std::string::npos)
            while (i + count < op.numResults() && op.result(i + count)->sourceName.rfind(head + "#", 0) == 0)
                ++count;
        out += out.empty() ? "%" : ", %";
        out += head;
        if (hash != std::string::npos) {
            out += ':';
            out += std::to_string(count);
        }
        i += count;
    }
    return out;
}

/// The display name of a value from its source name or the printer's names.
std::optional<std::string> userName(const Value& v, const SsaNames* printed)
{
    if (!v.sourceName.empty())
        return "%" + v.sourceName;
    if (printed) {
        std::string s = printed->reference(&v);
        if (!s.empty() && s[0] == '%')
            return s;
    }
    return std::nullopt;
}

/// `id`, else `id~2`, `id~3`... the first that `taken` says is free.
template <class Taken> std::string firstFreeId(std::string id, const Taken& taken)
{
    if (!taken(id))
        return id;
    for (int n = 2;; ++n) {
        std::string candidate = id + "~" + std::to_string(n);
        if (!taken(candidate))
            return candidate;
    }
}

int64_t funcResultKey(int func, int i) { return (static_cast<int64_t>(func) << 32) | static_cast<uint32_t>(i); }

} // namespace

// ---- texts ---------------------------------------------------------------------------------------

std::ostream& operator<<(std::ostream& os, const ProgramText& t) { return os << t.view(); }

ProgramTextStore& ProgramTextStore::operator=(const ProgramTextStore& o)
{
    if (this != &o) {
        m_chunks = o.m_chunks;
        m_free = nullptr;
        m_left = 0;
        m_bytes = o.m_bytes;
        m_recent[0] = m_recent[1] = ProgramText();
    }
    return *this;
}

ProgramText ProgramTextStore::add(std::string_view s)
{
    for (const ProgramText& r : m_recent)
        if (r.m_text && r.view() == s)
            return r;
    const bool isLong = s.size() >= ProgramText::kLongText;
    const size_t head = isLong ? 1 + sizeof(uint32_t) : 1;
    const size_t need = head + s.size() + 1;
    constexpr size_t kChunk = 64 * 1024;
    char* at;
    if (need > kChunk / 8) {
        // A long text gets a chunk of its own; the current one stays open.
        m_chunks.emplace_back(new char[need]);
        m_bytes += need;
        at = m_chunks.back().get();
    } else {
        if (need > m_left) {
            m_chunks.emplace_back(new char[kChunk]);
            m_bytes += kChunk;
            m_free = m_chunks.back().get();
            m_left = kChunk;
        }
        at = m_free;
        m_free += need;
        m_left -= need;
    }
    if (isLong) {
        at[0] = static_cast<char>(ProgramText::kLongText);
        const auto size = static_cast<uint32_t>(s.size());
        std::memcpy(at + 1, &size, sizeof size);
    } else {
        at[0] = static_cast<char>(s.size());
    }
    std::memcpy(at + head, s.data(), s.size());
    at[head + s.size()] = '\0';
    const ProgramText text(at);
    m_recent[1] = m_recent[0];
    m_recent[0] = text;
    return text;
}

const char* derivationName(Derivation d)
{
    switch (d) {
    case Derivation::Copy: return "copy";
    case Derivation::Edge: return "edge";
    case Derivation::Constraint: return "constraint";
    case Derivation::Reshard: return "reshard";
    case Derivation::Other: return "new";
    }
    return "new";
}

// ---- building --------------------------------------------------------------------------------

ProgramIds::ProgramIds(Module& module)
{
    bool allNamed = true;
    size_t numValues = 0, numOps = 0;
    // Naming starts afresh: indices an earlier ProgramIds stored in the objects are dropped.
    module.op().walk([&](Op* op) {
        ++numOps;
        op->programId = -1;
        // Values the file does not print (the body of a reduce in its `applies` form, a module
        // built in memory) are named as MLIR's printer names them: by its counters where they
        // give the name, else by the printer's naming itself (names that ops ask for).
        const bool hinted = hasAsmResultNameHints(*op);
        for (const auto& r : op->results()) {
            ++numValues;
            r->programId = -1;
            allNamed = allNamed && (!r->sourceName.empty() || !hinted);
        }
        for (const auto& region : op->regions()) {
            const bool counted = ssaNumbersEntryArgs(*region);
            for (const auto& block : region->blocks())
                for (const auto& a : block->args()) {
                    ++numValues;
                    a->programId = -1;
                    allNamed = allNamed && (!a->sourceName.empty() || counted || block != region->blocks().front());
                }
        }
    });
    m_values.reserve(numValues + 16);
    m_ops.reserve(numOps);
    m_naming = true;
    // Values the reader did not name (a module built in memory or a JSON document without
    // names) get the names MLIR's printer would give them.
    std::unique_ptr<SsaNames> printed;
    if (!allNamed)
        printed = std::make_unique<SsaNames>(module.op(), true);
    const SsaCounters topLevel = ssaCountersAfter(module.op().region(0), {});
    for (const auto& top : module.body().ops()) {
        Op& op = *top;
        nameTopLevelOp(op);
        if (op.name() == "func.func")
            nameFunction(op, printed.get(), printed ? nullptr : &topLevel);
    }
    m_naming = false;
}

const std::string& ProgramIds::scopeName(int id) const
{
    static const std::string kNone;
    return id >= 0 && static_cast<size_t>(id) < m_scopes.size() ? *m_scopes[static_cast<size_t>(id)].text : kNone;
}

int ProgramIds::scopeId(const AttrPtr& loc)
{
    // Ops of one name scope usually share one location attribute (`loc(#loc18)`).
    if (const int* known = m_scopeByLoc.find(loc.get()))
        return *known;
    const LocationAttr* l = loc ? loc->as<LocationAttr>() : nullptr;
    const std::string* name = l ? scopeOf(*l) : nullptr;
    int id = -1;
    if (name && m_lastScope >= 0 && *m_scopes[static_cast<size_t>(m_lastScope)].text == *name) {
        id = m_lastScope; // neighbouring ops of one scope, each with a location of its own
    } else if (name) {
        if (2 * (m_scopes.size() + 1) > m_scopeIndex.slotCount()) {
            m_scopeIndex.reset(std::bit_ceil(std::max<size_t>(64, 4 * (m_scopes.size() + 1))));
            for (size_t i = 0; i < m_scopes.size(); ++i)
                m_scopeIndex.place(std::hash<std::string_view>()(*m_scopes[i].text), static_cast<uint32_t>(i));
        }
        const size_t hash = std::hash<std::string_view>()(*name);
        TaggedSlotIndex::Probe p = m_scopeIndex.find(hash, [&](uint32_t i) { return *m_scopes[i].text == *name; });
        if (p.entry == TaggedSlotIndex::kAbsent) {
            // The scope's text stays in its attribute (immutable), which the scope holds on to.
            m_scopes.push_back(Scope{loc, name});
            p.entry = static_cast<uint32_t>(m_scopes.size() - 1);
            m_scopeIndex.insert(p, p.entry);
        }
        id = m_lastScope = static_cast<int>(p.entry);
    }
    if (loc)
        m_scopeByLoc.insert(loc.get(), id);
    return id;
}

bool ProgramIds::isTaken(const std::string& id) const { return m_takenValues.count(id) || m_takenOps.count(id); }

std::string ProgramIds::uniqueId(std::unordered_set<std::string>& taken, std::string id) const
{
    // The user's program names its values uniquely (per region, and ids qualify regions by
    // their op), so only names made here can collide: those are checked and remembered, and so
    // are user names that look like made ones (with a dot).
    if (m_naming) {
        if (id.find('.') != std::string::npos)
            taken.insert(id);
        return id;
    }
    id = firstFreeId(std::move(id), [&](const std::string& c) { return taken.count(c) != 0; });
    taken.insert(id);
    return id;
}

std::string ProgramIds::freeDerivedName(const std::string& base, const std::string& prefix) const
{
    if (!isTaken(prefix + base))
        return base;
    for (int n = 2;; ++n) {
        const std::string name = base + std::to_string(n);
        if (!isTaken(prefix + name))
            return name;
    }
}

std::string ProgramIds::nextResultlessId(const std::string& prefix, const std::string& opName)
{
    int& k = m_resultless[prefix + opName];
    return prefix + opName + "#" + std::to_string(k++);
}

int ProgramIds::addValue(Value& v, std::string name, const std::string& prefix, int func, int op, int scope)
{
    const int idx = static_cast<int>(m_values.size());
    ProgramValue pv;
    pv.id = m_text.add(uniqueId(m_takenValues, prefix + name));
    pv.name = m_text.add(name);
    pv.scope = scope;
    pv.func = func;
    pv.op = op;
    roomForOneMore(m_values);
    m_values.push_back(std::move(pv));
    v.programId = idx;
    return idx;
}

int ProgramIds::addOp(Op& op, std::string id, std::string name, int func, int scope)
{
    const int idx = static_cast<int>(m_ops.size());
    ProgramOp po;
    po.id = m_text.add(id);
    po.name = m_text.add(name);
    po.opName = op.opName();
    po.scope = scope;
    po.func = op.name() == "func.func" ? idx : func;
    roomForOneMore(m_ops);
    m_ops.push_back(std::move(po));
    op.programId = idx;
    return idx;
}

std::string ProgramIds::regionPrefix(const Op& op, unsigned region) const
{
    const ProgramOp& po = m_ops[static_cast<size_t>(op.programId)];
    if (op.name() == "func.func")
        return po.id + ":";
    std::string p = po.id + "/";
    if (op.numRegions() > 1)
        p += "r" + std::to_string(region) + "/";
    return p;
}

void ProgramIds::addFuncResults(Op& func)
{
    const int fi = func.programId;
    const std::string prefix = m_ops[static_cast<size_t>(fi)].id + ":";
    const size_t numResults = funcType(func).results().size();
    for (size_t i = 0; i < numResults; ++i) {
        const int idx = static_cast<int>(m_values.size());
        ProgramValue pv;
        pv.id = m_text.add(uniqueId(m_takenValues, prefix + "result" + std::to_string(i)));
        pv.name = m_text.add("result " + std::to_string(i));
        pv.func = fi;
        pv.funcResult = static_cast<int>(i);
        roomForOneMore(m_values);
        m_values.push_back(std::move(pv));
        m_funcResults[funcResultKey(fi, static_cast<int>(i))] = idx;
    }
}

void ProgramIds::nameFunction(Op& func, const SsaNames* printed, const SsaCounters* counters)
{
    addFuncResults(func);
    const int fi = func.programId;
    const std::string prefix = m_ops[static_cast<size_t>(fi)].id + ":";
    for (const auto& region : func.regions()) {
        Numbering numbering;
        if (counters)
            numbering = {*counters, ssaCountersAfter(*region, *counters)};
        for (const auto& block : region->blocks())
            nameBlockContents(*block, prefix, fi, printed, counters ? &numbering : nullptr);
    }
}

void ProgramIds::nameBlockContents(Block& block, const std::string& prefix, int func, const SsaNames* printed,
                                   Numbering* numbering)
{
    const Region* region = block.parentRegion();
    const bool entry = region && !region->blocks().empty() && region->blocks().front().get() == &block;
    const bool countedArgs = region && ssaNumbersEntryArgs(*region);
    for (unsigned a = 0; a < block.numArgs(); ++a) {
        Value& arg = *block.arg(a);
        std::optional<std::string> counted;
        if (numbering && (!entry || countedArgs))
            counted =
                entry ? "%arg" + std::to_string(numbering->at.arg++) : "%" + std::to_string(numbering->at.value++);
        if (arg.programId >= 0)
            continue;
        std::optional<std::string> name = userName(arg, printed);
        if (!name)
            name = counted ? std::move(counted) : freeDerivedName("%arg" + std::to_string(a), prefix);
        addValue(arg, std::move(*name), prefix, func, -1, scopeId(arg.loc()));
    }
    for (const auto& child : block.ops()) {
        Op& op = *child;
        const int number = numbering && ssaNumbersResults(op) ? static_cast<int>(numbering->at.value++) : -1;
        if (op.programId < 0)
            nameUserOp(op, prefix, func, printed, number);
        for (unsigned ri = 0; ri < op.numRegions(); ++ri) {
            const std::string inner = regionPrefix(op, ri);
            Numbering nested;
            if (numbering)
                nested = {numbering->regionEnd, ssaCountersAfter(op.region(ri), numbering->regionEnd)};
            for (const auto& b : op.region(ri).blocks())
                nameBlockContents(*b, inner, func, printed, numbering ? &nested : nullptr);
        }
    }
}

void ProgramIds::nameUserOp(Op& op, const std::string& prefix, int func, const SsaNames* printed, int number)
{
    const int scope = scopeId(op.loc);
    if (op.numResults() == 1 && !op.result(0)->sourceName.empty() &&
        op.result(0)->sourceName.find('#') == std::string::npos) {
        // The common case: one result the file names (`%5`, `%cst_0`).
        Value& r = *op.result(0);
        std::string name;
        name.reserve(r.sourceName.size() + 1);
        name += '%';
        name += r.sourceName;
        const int oi = addOp(op, uniqueId(m_takenOps, prefix + name), name, func, scope);
        addValue(r, std::move(name), prefix, func, oi, scope);
        return;
    }
    std::optional<std::string> list = sourceResultList(op);
    if (!list && printed && op.numResults()) {
        std::string s;
        printed->appendResultList(s, op);
        if (s.size() > 3 && s[0] == '%' && s.find("<<") == std::string::npos)
            list = s.substr(0, s.size() - 3);
    }
    if (!list && number >= 0) {
        list = "%" + std::to_string(number);
        if (op.numResults() > 1)
            *list += ":" + std::to_string(op.numResults());
    }
    if (op.numResults() == 0) {
        const std::string sym = symbolName(op);
        addOp(op, nextResultlessId(prefix, op.name()), sym.empty() ? op.name() : "@" + sym, func, scope);
    } else if (list) {
        const std::string head = list->substr(0, list->find_first_of(":,"));
        const int oi = addOp(op, uniqueId(m_takenOps, prefix + head), *list, func, scope);
        for (const auto& r : op.results()) {
            std::optional<std::string> name = userName(*r, printed);
            if (!name)
                name = op.numResults() == 1 ? head : head + "#" + std::to_string(r->index());
            addValue(*r, std::move(*name), prefix, func, oi, scope);
        }
    } else {
        nameNew(op);
    }
}

void ProgramIds::nameRegions(Op& op, int func)
{
    for (unsigned ri = 0; ri < op.numRegions(); ++ri)
        for (const auto& b : op.region(ri).blocks())
            nameBlockContents(*b, regionPrefix(op, ri), func, nullptr);
}

void ProgramIds::nameTopLevelOp(Op& op)
{
    // Top-level ids are symbols (`@main`, `@mesh`), else numbered by op name; a pass may make
    // one again under the symbol of an earlier one, which then gets `~2`.
    const std::string sym = symbolName(op);
    std::string id = sym.empty() ? nextResultlessId("module:", op.name()) : "@" + sym;
    id = firstFreeId(std::move(id), [&](const std::string& c) { return m_topLevel.count(c) != 0; });
    const int idx = addOp(op, id, sym.empty() ? op.name() : "@" + sym, -1, scopeId(op.loc));
    m_topLevel.emplace(m_ops[static_cast<size_t>(idx)].id, idx);
}

void ProgramIds::nameNew(Op& op)
{
    // The block that holds `op` gives the id prefix and the function.
    std::string prefix = "module:";
    int func = -1;
    Op* parent = op.parentOp();
    if (isTopLevel(op)) {
        nameTopLevelOp(op);
        if (op.name() == "func.func")
            nameFunction(op, nullptr);
        return;
    }
    opOf(parent);
    const ProgramOp& p = m_ops[static_cast<size_t>(parent->programId)];
    func = p.func;
    prefix = regionPrefix(*parent, regionIndexOf(*parent, *op.parentBlock()));
    // Named after its first named operand (`%4.reshard`), which it was made for, else after
    // its kind.
    std::string base = "%" + shortOpName(op.name());
    int from = -1;
    for (Value* operand : op.operands())
        if (operand) {
            from = valueOf(operand);
            if (from >= 0) {
                base = m_values[static_cast<size_t>(from)].name + "." + shortOpName(op.name());
                break;
            }
        }
    const int scope = scopeId(op.loc);
    if (op.numResults() == 0) {
        addOp(op, nextResultlessId(prefix, op.name()), op.name(), func, scope);
    } else {
        const std::string name = freeDerivedName(base, prefix);
        const int oi = addOp(op, uniqueId(m_takenOps, prefix + name),
                             op.numResults() > 1 ? name + ":" + std::to_string(op.numResults()) : name, func, scope);
        if (from >= 0)
            m_ops[static_cast<size_t>(oi)].derivedFrom = m_values[static_cast<size_t>(from)].op;
        for (const auto& r : op.results()) {
            const int vi = addValue(*r, op.numResults() > 1 ? name + "#" + std::to_string(r->index()) : name, prefix,
                                    func, oi, scope);
            m_values[static_cast<size_t>(vi)].derivedFrom = from;
        }
    }
    nameRegions(op, func);
}

// ---- lookups that name on demand ----------------------------------------------------------------

int ProgramIds::opOf(Op* op)
{
    if (!op)
        return -1;
    if (op->programId < 0)
        nameNew(*op);
    return op->programId;
}

int ProgramIds::valueOf(Value* v)
{
    if (!v)
        return -1;
    if (v->programId >= 0)
        return v->programId;
    if (Op* def = v->definingOp()) {
        opOf(def);
        return v->programId;
    }
    Block* block = v->ownerBlock();
    Op* parent = block ? block->parentOp() : nullptr;
    if (!parent)
        return -1;
    const int pi = opOf(parent);
    if (v->programId >= 0)
        return v->programId;
    nameBlockContents(*block, regionPrefix(*parent, regionIndexOf(*parent, *block)),
                      m_ops[static_cast<size_t>(pi)].func, nullptr);
    return v->programId;
}

int ProgramIds::funcResultOf(Op* func, int i)
{
    const int fi = opOf(func);
    if (fi < 0)
        return -1;
    auto it = m_funcResults.find(funcResultKey(fi, i));
    return it == m_funcResults.end() ? -1 : it->second;
}

void ProgramIds::nameAll(Module& module)
{
    module.op().walk([&](Op* op) {
        if (op == &module.op())
            return;
        opOf(op);
        for (const auto& region : op->regions())
            for (const auto& block : region->blocks())
                for (const auto& a : block->args())
                    valueOf(a.get());
    });
}

// ---- derived entities ----------------------------------------------------------------------------

void ProgramIds::noteDerived(Op& inserted, const Value& from, Derivation how)
{
    const int fi = valueOf(const_cast<Value*>(&from));
    if (fi < 0 || inserted.programId >= 0 || isTopLevel(inserted))
        return;
    Op* parent = inserted.parentOp();
    opOf(parent);
    const int func = m_ops[static_cast<size_t>(parent->programId)].func;
    const std::string prefix = regionPrefix(*parent, regionIndexOf(*parent, *inserted.parentBlock()));
    const ProgramValue& source = m_values[static_cast<size_t>(fi)];
    const std::string name = freeDerivedName(source.name + "." + derivationName(how), prefix);
    const int scope = inserted.loc ? scopeId(inserted.loc) : source.scope;
    const int sourceOp = source.op;
    const int oi =
        addOp(inserted, uniqueId(m_takenOps, prefix + name),
              inserted.numResults() > 1 ? name + ":" + std::to_string(inserted.numResults()) : name, func, scope);
    m_ops[static_cast<size_t>(oi)].derivedFrom = sourceOp;
    m_ops[static_cast<size_t>(oi)].derivation = how;
    for (const auto& r : inserted.results()) {
        const int vi = addValue(*r, inserted.numResults() > 1 ? name + "#" + std::to_string(r->index()) : name, prefix,
                                func, oi, scope);
        m_values[static_cast<size_t>(vi)].derivedFrom = fi;
        m_values[static_cast<size_t>(vi)].derivation = how;
    }
    nameRegions(inserted, func);
}

void ProgramIds::noteDerived(Op& inserted, const Op& from, Derivation how)
{
    const int fo = opOf(const_cast<Op*>(&from));
    if (fo < 0 || inserted.programId >= 0 || isTopLevel(inserted))
        return;
    if (from.numResults() == 0 || inserted.numResults() == 0) {
        nameNew(inserted);
        m_ops[static_cast<size_t>(inserted.programId)].derivedFrom = fo;
        m_ops[static_cast<size_t>(inserted.programId)].derivation = how;
        return;
    }
    Op* parent = inserted.parentOp();
    opOf(parent);
    const int func = m_ops[static_cast<size_t>(parent->programId)].func;
    const std::string prefix = regionPrefix(*parent, regionIndexOf(*parent, *inserted.parentBlock()));
    // One suffix for all results: the first n with every `<result name>.<how><n>` free.
    const std::string suffix = std::string(".") + derivationName(how);
    std::string n;
    for (int k = 1;; ++k) {
        n = k == 1 ? std::string() : std::to_string(k);
        bool free = true;
        for (const auto& r : from.results()) {
            const std::string candidate = prefix + m_values[static_cast<size_t>(r->programId)].name + suffix + n;
            free = free && !isTaken(candidate);
        }
        if (free)
            break;
    }
    const int scope = inserted.loc ? scopeId(inserted.loc) : m_ops[static_cast<size_t>(fo)].scope;
    const std::string head = m_values[static_cast<size_t>(from.result(0)->programId)].name + suffix + n;
    const int oi = addOp(inserted, uniqueId(m_takenOps, prefix + head),
                         m_ops[static_cast<size_t>(fo)].name + suffix + n, func, scope);
    m_ops[static_cast<size_t>(oi)].derivedFrom = fo;
    m_ops[static_cast<size_t>(oi)].derivation = how;
    for (const auto& r : inserted.results()) {
        const Value* original = r->index() < from.numResults() ? from.result(r->index()) : from.result(0);
        const int ov = original->programId;
        const int vi = addValue(*r, m_values[static_cast<size_t>(ov)].name + suffix + n, prefix, func, oi, scope);
        m_values[static_cast<size_t>(vi)].derivedFrom = ov;
        m_values[static_cast<size_t>(vi)].derivation = how;
    }
    nameRegions(inserted, func);
}

void ProgramIds::noteDerived(Value& inserted, const Value& from, Derivation how)
{
    const int fi = valueOf(const_cast<Value*>(&from));
    Block* block = inserted.ownerBlock();
    Op* parent = block ? block->parentOp() : nullptr;
    if (fi < 0 || inserted.programId >= 0 || !parent)
        return;
    opOf(parent);
    const int func = m_ops[static_cast<size_t>(parent->programId)].func;
    const std::string prefix = regionPrefix(*parent, regionIndexOf(*parent, *block));
    const ProgramValue& source = m_values[static_cast<size_t>(fi)];
    const std::string name = freeDerivedName(source.name + "." + derivationName(how), prefix);
    const int scope = inserted.loc() ? scopeId(inserted.loc()) : source.scope;
    const int vi = addValue(inserted, name, prefix, func, -1, scope);
    m_values[static_cast<size_t>(vi)].derivedFrom = fi;
    m_values[static_cast<size_t>(vi)].derivation = how;
}

void ProgramIds::noteReplaced(Op& replacement, Op& original)
{
    if (original.programId < 0 || replacement.programId >= 0)
        return;
    replacement.programId = original.programId;
    original.programId = -1;
    m_ops[static_cast<size_t>(replacement.programId)].opName = replacement.opName();
    for (unsigned i = 0; i < replacement.numResults() && i < original.numResults(); ++i)
        noteReplaced(*replacement.result(i), *original.result(i));
}

void ProgramIds::noteReplaced(Value& replacement, Value& original)
{
    if (original.programId < 0 || replacement.programId >= 0)
        return;
    replacement.programId = original.programId;
    original.programId = -1;
}

void ProgramIds::noteRestored(Op& func)
{
    if (func.programId >= 0)
        return;
    auto it = m_topLevel.find("@" + symbolName(func));
    if (it != m_topLevel.end() && m_ops[static_cast<size_t>(it->second)].opName == func.name())
        func.programId = it->second;
}

void ProgramIds::noteCloned(const Op& original, Op& clone)
{
    if (clone.programId >= 0)
        return;
    // The clone itself: a top-level op (a function) is named by its symbol, another op as a copy
    // of the original; then its contents keep the original's names inside it.
    if (isTopLevel(clone)) {
        nameTopLevelOp(clone);
        if (clone.name() == "func.func")
            addFuncResults(clone);
    } else {
        noteDerived(clone, original, Derivation::Copy);
    }
    m_ops[static_cast<size_t>(clone.programId)].derivedFrom = original.programId;
    m_ops[static_cast<size_t>(clone.programId)].derivation = Derivation::Copy;
    const int func = m_ops[static_cast<size_t>(clone.programId)].func;
    // Pair the contents: each keeps the original's name inside the clone.
    std::function<void(const Op&, Op&)> pairRegions = [&](const Op& o, Op& c) {
        for (unsigned ri = 0; ri < o.numRegions() && ri < c.numRegions(); ++ri) {
            const std::string prefix = regionPrefix(c, ri);
            const auto& ob = o.region(ri).blocks();
            const auto& cb = c.region(ri).blocks();
            for (size_t b = 0; b < ob.size() && b < cb.size(); ++b) {
                for (unsigned a = 0; a < ob[b]->numArgs() && a < cb[b]->numArgs(); ++a) {
                    Value* ov = ob[b]->arg(a);
                    Value* cv = cb[b]->arg(a);
                    const int oi = ov->programId;
                    if (cv->programId >= 0 || oi < 0)
                        continue;
                    const int vi = addValue(*cv, m_values[static_cast<size_t>(oi)].name, prefix, func, -1,
                                            m_values[static_cast<size_t>(oi)].scope);
                    m_values[static_cast<size_t>(vi)].derivedFrom = oi;
                    m_values[static_cast<size_t>(vi)].derivation = Derivation::Copy;
                }
                auto oit = ob[b]->ops().begin();
                auto cit = cb[b]->ops().begin();
                for (; oit != ob[b]->ops().end() && cit != cb[b]->ops().end(); ++oit, ++cit) {
                    const Op& oo = **oit;
                    Op& co = **cit;
                    if (co.programId < 0 && oo.programId >= 0) {
                        const ProgramOp& src = m_ops[static_cast<size_t>(oo.programId)];
                        const std::string tail = src.id.substr(src.id.rfind(':') + 1);
                        const std::string local = tail.substr(tail.rfind('/') + 1);
                        const int oi = addOp(co, uniqueId(m_takenOps, prefix + local), src.name, func, src.scope);
                        m_ops[static_cast<size_t>(oi)].derivedFrom = oo.programId;
                        m_ops[static_cast<size_t>(oi)].derivation = Derivation::Copy;
                        for (unsigned r = 0; r < co.numResults() && r < oo.numResults(); ++r) {
                            const int ov = oo.result(r)->programId;
                            if (ov < 0)
                                continue;
                            const int vi = addValue(*co.result(r), m_values[static_cast<size_t>(ov)].name, prefix, func,
                                                    oi, m_values[static_cast<size_t>(ov)].scope);
                            m_values[static_cast<size_t>(vi)].derivedFrom = ov;
                            m_values[static_cast<size_t>(vi)].derivation = Derivation::Copy;
                        }
                    }
                    if (co.programId >= 0)
                        pairRegions(oo, co);
                }
            }
        }
    };
    pairRegions(original, clone);
    // Whatever did not pair (the original had no name for it) is named as new.
    nameRegions(clone, func);
}

} // namespace shardx::ir
