// SsaNames: the names MLIR's printer gives SSA values and blocks (SDY.md 6.2), for the printer
// and for ProgramIds.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/ir/Operation.h"
#include "core/support/PointerMap.h"

namespace shardx::ir {

/// The result names an op asks for through MLIR's OpAsmOpInterface (`cst`/`c` for a constant,
/// `output_state`/`output` for rng_bit_generator, ...); empty for numbered results.
std::vector<std::string> asmResultNameHints(const Op& op);
/// Whether asmResultNameHints(op) is not empty (without making the names).
bool hasAsmResultNameHints(const Op& op);

/// The printer's counters at a point of a naming scope: the next `%N` and the next `%argN`.
/// A nested region starts from the counters of its parent region at that region's end, and
/// sibling regions start from the same counters (SSANameState copies them into each region).
struct SsaCounters {
    unsigned value = 0, arg = 0;
};
/// Whether the entry block arguments of `region` are `%argN` (counted), not `%iterArg`.
bool ssaNumbersEntryArgs(const Region& region);
/// Whether `op`'s results take a number (`%N`, `%N:2`), not names it asks for.
inline bool ssaNumbersResults(const Op& op) { return op.numResults() > 0 && !hasAsmResultNameHints(op); }
/// The counters after the values `region` itself defines (its block arguments and the results
/// of its ops, not those of nested regions), starting from `start`: where its ops' regions start.
SsaCounters ssaCountersAfter(const Region& region, SsaCounters start);

/// Names every value under one op as MLIR's printer does (SSANameState): numbered values `%0`,
/// `%1`, ... (a nested region continues the numbering of its parent, which resumes after it),
/// entry block arguments `%argN` (`%iterArg` in a stablehlo.while body), the names ops ask for
/// made unique with `_N` across the enclosing scopes, and blocks `^bbN` per region.
class SsaNames {
public:
    /// Names everything under `root`. `useHints` false names every result by number (the
    /// generic form prints no OpAsm names).
    SsaNames(const Op& root, bool useHints);

    /// Appends how a use refers to `v`: `%5`, `%cst_0`, `%0#1`; `<<UNKNOWN SSA VALUE>>` for a
    /// value outside `root`, `<<NULL VALUE>>` for null.
    void appendReference(std::string& out, const Value* v) const;
    std::string reference(const Value* v) const;
    /// Appends the result list of `op`'s definition with the ` = ` after it: `%0 = `,
    /// `%0:2 = `, `%output_state, %output = `; nothing for an op without results.
    void appendResultList(std::string& out, const Op& op) const;
    /// The number N of `^bbN`, -1 for a block outside `root`.
    int blockNumber(const Block* b) const;

private:
    struct Counters {
        unsigned value = 0, arg = 0, conflict = 0;
    };
    void numberRegion(const Region& region, Counters c);
    void numberOp(const Op& op, Counters& c);
    void setName(const Value* v, const std::string& hint, Counters& c);
    std::string uniqueName(const std::string& hint, Counters& c);
    void appendName(std::string& out, uint32_t id) const;

    /// A name id: a number, or kNamed | index into m_namedValues.
    static constexpr uint32_t kNamed = 0x80000000u;
    bool m_useHints;
    PointerMap<Value, uint32_t> m_names;
    std::vector<std::string> m_namedValues;
    /// Result groups of ops with named results (start indices), only when more than one group.
    std::unordered_map<const Op*, std::vector<unsigned>> m_groups;
    /// Names in use in the current scope chain, with the count of scopes that hold them.
    std::unordered_map<std::string, int> m_used;
    PointerMap<Block, unsigned> m_blockIds;
    /// Names added by each open naming scope.
    std::vector<std::vector<std::string>> m_scopeNames;
};

} // namespace shardx::ir
