// Structural equality of two modules.
#include "core/ir/Equivalence.h"

#include <unordered_map>

namespace shardx::ir {

namespace {

class Comparer {
public:
    explicit Comparer(std::string* why) : m_why(why) {}

    bool ops(const Op& a, const Op& b)
    {
        ++m_opIndex;
        if (a.name() != b.name())
            return fail(a, "names differ ('" + a.name() + "' vs '" + b.name() + "')");
        if (!lists(a.props(), b.props(), a, "property"))
            return false;
        if (!a.opaqueSyntax() != !b.opaqueSyntax() || (a.opaqueSyntax() && *a.opaqueSyntax() != *b.opaqueSyntax()))
            return fail(a, "the text kept as written differs");
        if (!lists(a.attrs(), b.attrs(), a, "attribute"))
            return false;
        if (a.numOperands() != b.numOperands())
            return fail(a, "operand counts differ");
        for (unsigned i = 0; i < a.numOperands(); ++i) {
            auto it = m_map.find(a.operand(i));
            if (it == m_map.end() || it->second != b.operand(i))
                return fail(a, "operand " + std::to_string(i) + " is wired differently");
        }
        if (a.numResults() != b.numResults())
            return fail(a, "result counts differ");
        for (unsigned i = 0; i < a.numResults(); ++i) {
            if (a.result(i)->type() != b.result(i)->type())
                return fail(a, "result " + std::to_string(i) + " types differ");
            m_map[a.result(i)] = b.result(i);
        }
        if (a.numRegions() != b.numRegions())
            return fail(a, "region counts differ");
        for (unsigned r = 0; r < a.numRegions(); ++r)
            if (!regions(a.region(r), b.region(r), a))
                return false;
        if (a.successors().size() != b.successors().size())
            return fail(a, "successor counts differ");
        return true;
    }

private:
    bool regions(const Region& a, const Region& b, const Op& owner)
    {
        if (a.blocks().size() != b.blocks().size())
            return fail(owner, "block counts differ");
        // Map every block's arguments first: non-entry blocks may be referenced before they appear.
        for (size_t k = 0; k < a.blocks().size(); ++k) {
            const Block& ba = *a.blocks()[k];
            const Block& bb = *b.blocks()[k];
            if (ba.numArgs() != bb.numArgs())
                return fail(owner, "block argument counts differ");
            for (unsigned i = 0; i < ba.numArgs(); ++i) {
                if (ba.arg(i)->type() != bb.arg(i)->type())
                    return fail(owner, "block argument " + std::to_string(i) + " types differ");
                m_map[ba.arg(i)] = bb.arg(i);
            }
        }
        for (size_t k = 0; k < a.blocks().size(); ++k) {
            const Block& ba = *a.blocks()[k];
            const Block& bb = *b.blocks()[k];
            if (ba.ops().size() != bb.ops().size())
                return fail(owner, "op counts differ in a region");
            auto ib = bb.ops().begin();
            for (auto ia = ba.ops().begin(); ia != ba.ops().end(); ++ia, ++ib)
                if (!ops(**ia, **ib))
                    return false;
        }
        return true;
    }

    bool lists(const NamedAttrList& a, const NamedAttrList& b, const Op& owner, const char* what)
    {
        if (a.size() != b.size())
            return fail(owner, std::string(what) + " counts differ");
        for (size_t i = 0; i < a.size(); ++i) {
            if (a[i].name != b[i].name)
                return fail(owner, std::string(what) + " names differ ('" + a[i].name + "' vs '" + b[i].name + "')");
            if (!attrEquals(a[i].value, b[i].value))
                return fail(owner, std::string(what) + " '" + a[i].name + "' differs");
        }
        return true;
    }

    bool fail(const Op& op, const std::string& msg)
    {
        if (m_why)
            *m_why = "op #" + std::to_string(m_opIndex) + " (" + op.name() + "): " + msg;
        return false;
    }

    std::string* m_why;
    int m_opIndex = -1;
    std::unordered_map<const Value*, const Value*> m_map;
};

} // namespace

bool modulesEquivalent(const Module& a, const Module& b, std::string* why)
{
    Comparer c(why);
    if (a.resources != b.resources) {
        if (why)
            *why = "dialect resources differ";
        return false;
    }
    return c.ops(a.op(), b.op());
}

} // namespace shardx::ir
