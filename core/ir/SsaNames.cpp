// SsaNames: MLIR's SSANameState (value and block naming of the printer).
#include "core/ir/SsaNames.h"

#include <algorithm>

namespace shardx::ir {

bool hasAsmResultNameHints(const Op& op)
{
    const std::string& n = op.name();
    return (n == "stablehlo.constant" && op.numResults() == 1) ||
           (n == "stablehlo.rng_bit_generator" && op.numResults() == 2) ||
           ((n == "stablehlo.batch_norm_training" || n == "stablehlo.batch_norm_grad") && op.numResults() == 3);
}

bool ssaNumbersEntryArgs(const Region& region)
{
    const Op* parent = region.parentOp();
    return !parent || parent->name() != "stablehlo.while";
}

SsaCounters ssaCountersAfter(const Region& region, SsaCounters c)
{
    const bool countArgs = ssaNumbersEntryArgs(region);
    bool entry = true;
    for (const auto& block : region.blocks()) {
        if (entry)
            c.arg += countArgs ? block->numArgs() : 0;
        else
            c.value += block->numArgs();
        entry = false;
        for (const auto& op : block->ops())
            c.value += ssaNumbersResults(*op) ? 1 : 0;
    }
    return c;
}

std::vector<std::string> asmResultNameHints(const Op& op)
{
    if (!hasAsmResultNameHints(op))
        return {};
    const std::string& n = op.name();
    if (n == "stablehlo.constant" && op.numResults() == 1) {
        const Type& t = op.result(0)->type();
        const std::string elt = t.isTensor() ? t.elementType() : t.name();
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

SsaNames::SsaNames(const Op& root, bool useHints) : m_useHints(useHints)
{
    size_t numValues = 0;
    const_cast<Op&>(root).walk([&](Op* o) {
        numValues += o->numResults();
        for (const auto& r : o->regions())
            for (const auto& b : r->blocks())
                numValues += b->numArgs();
    });
    m_names.reserve(numValues);
    m_scopeNames.emplace_back();
    Counters c;
    for (const auto& r : root.regions())
        numberRegion(*r, c);
    m_scopeNames.pop_back();
}

std::string SsaNames::uniqueName(const std::string& hint, Counters& c)
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

void SsaNames::setName(const Value* v, const std::string& hint, Counters& c)
{
    if (hint.empty()) {
        m_names.insert(v, c.value++);
        return;
    }
    std::string name = uniqueName(hint, c);
    ++m_used[name];
    m_scopeNames.back().push_back(name);
    m_names.insert(v, kNamed | static_cast<uint32_t>(m_namedValues.size()));
    m_namedValues.push_back(std::move(name));
}

void SsaNames::numberOp(const Op& op, Counters& c)
{
    if (op.numResults() == 0)
        return;
    std::vector<std::string> hints;
    if (m_useHints)
        hints = asmResultNameHints(op);
    if (hints.empty()) {
        m_names.insert(op.result(0), c.value++);
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

void SsaNames::numberRegion(const Region& region, Counters c)
{
    m_scopeNames.emplace_back();
    const bool whileArgs = m_useHints && !ssaNumbersEntryArgs(region);
    unsigned blockId = 0;
    for (const auto& block : region.blocks()) {
        m_blockIds.insert(block.get(), blockId);
        const bool entry = blockId == 0;
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

void SsaNames::appendName(std::string& out, uint32_t id) const
{
    if (id & kNamed) {
        out += m_namedValues[id & ~kNamed];
        return;
    }
    char buf[16];
    char* p = buf + sizeof buf;
    do {
        *--p = static_cast<char>('0' + id % 10);
        id /= 10;
    } while (id);
    out.append(p, static_cast<size_t>(buf + sizeof buf - p));
}

void SsaNames::appendReference(std::string& out, const Value* v) const
{
    if (!v) {
        out += "<<NULL VALUE>>";
        return;
    }
    const Value* head = v;
    int resultNo = -1;
    if (const Op* def = v->definingOp(); def && def->numResults() > 1) {
        auto g = m_groups.find(def);
        const unsigned idx = v->index();
        if (g == m_groups.end()) {
            head = def->result(0);
            resultNo = static_cast<int>(idx);
        } else {
            const auto& starts = g->second;
            auto it = std::upper_bound(starts.begin(), starts.end(), idx);
            const unsigned start = *(it - 1);
            const unsigned end = it == starts.end() ? def->numResults() : *it;
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
    appendName(out, *id);
    if (resultNo >= 0) {
        out += '#';
        out += std::to_string(resultNo);
    }
}

std::string SsaNames::reference(const Value* v) const
{
    std::string s;
    appendReference(s, v);
    return s;
}

void SsaNames::appendResultList(std::string& out, const Op& op) const
{
    const unsigned n = op.numResults();
    if (!n)
        return;
    auto g = m_groups.find(&op);
    if (g == m_groups.end()) {
        const uint32_t* id = m_names.find(op.result(0));
        out += '%';
        if (!id)
            out += "<<UNKNOWN SSA VALUE>>";
        else
            appendName(out, *id);
        if (n > 1)
            out += ':' + std::to_string(n);
    } else {
        const auto& starts = g->second;
        for (size_t k = 0; k < starts.size(); ++k) {
            if (k)
                out += ", ";
            const unsigned end = k + 1 < starts.size() ? starts[k + 1] : n;
            const uint32_t* id = m_names.find(op.result(starts[k]));
            out += '%';
            if (!id)
                out += "<<UNKNOWN SSA VALUE>>";
            else
                appendName(out, *id);
            if (end - starts[k] > 1)
                out += ':' + std::to_string(end - starts[k]);
        }
    }
    out += " = ";
}

int SsaNames::blockNumber(const Block* b) const
{
    const unsigned* id = m_blockIds.find(b);
    return id ? static_cast<int>(*id) : -1;
}

} // namespace shardx::ir
