// ProgramIds: a stable id and the user's own name for every value and op of a module.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/ir/Operation.h"
#include "core/ir/SsaNames.h"
#include "core/support/Expected.h"
#include "core/support/PointerMap.h"
#include "core/support/TaggedSlotIndex.h"

namespace shardx::ir {

class Module;

/// How a value or op that a pass inserted relates to the user's program.
enum class Derivation : uint8_t {
    Copy,       ///< a copy of the user's op (a constant split per use, a duplicated function body)
    Edge,       ///< a data-flow edge standing for a value
    Constraint, ///< a sharding constraint inserted on a value (sharding groups)
    Reshard,    ///< a reshard of a value, inserted for its use
    Other,      ///< made by a pass from a value, by no rule above
};
/// `copy`, `edge`, `constraint`, `reshard`, `new`: the suffix of derived names.
const char* derivationName(Derivation d);

/// A name or id of a ProgramIds, held in its ProgramTextStore: one pointer (a program has two per
/// value and two per op), where a std::string was 32 bytes each. Reads as a string_view (or a
/// std::string, copied); empty by default. Valid while a ProgramIds holding it lives (copies of a
/// ProgramIds share the text).
class ProgramText {
public:
    ProgramText() = default;

    std::string_view view() const
    {
        if (!m_text)
            return {};
        const auto n = static_cast<unsigned char>(m_text[0]);
        if (n < kLongText)
            return {m_text + 1, n};
        uint32_t size = 0;
        std::memcpy(&size, m_text + 1, sizeof size);
        return {m_text + 1 + sizeof size, size};
    }
    operator std::string_view() const { return view(); }
    operator std::string() const { return std::string(view()); }
    std::string str() const { return std::string(view()); }
    size_t size() const { return view().size(); }
    bool empty() const { return view().empty(); }
    const char* data() const { return view().data(); }
    size_t find(char c, size_t pos = 0) const { return view().find(c, pos); }
    size_t find(std::string_view s, size_t pos = 0) const { return view().find(s, pos); }
    size_t rfind(char c, size_t pos = std::string_view::npos) const { return view().rfind(c, pos); }
    size_t rfind(std::string_view s, size_t pos = std::string_view::npos) const { return view().rfind(s, pos); }
    std::string substr(size_t pos, size_t n = std::string_view::npos) const
    {
        return std::string(view().substr(pos, n));
    }

    bool operator==(const ProgramText& o) const { return view() == o.view(); }
    bool operator==(std::string_view s) const { return view() == s; }
    bool operator==(const std::string& s) const { return view() == s; }
    bool operator==(const char* s) const { return view() == s; }
    friend std::string operator+(const ProgramText& a, std::string_view b) { return a.str().append(b); }
    friend std::string operator+(const ProgramText& a, const std::string& b) { return a.str().append(b); }
    friend std::string operator+(const ProgramText& a, const char* b) { return a.str().append(b); }
    friend std::string operator+(std::string_view a, const ProgramText& b) { return std::string(a).append(b.view()); }
    friend std::string operator+(const std::string& a, const ProgramText& b) { return std::string(a).append(b.view()); }
    friend std::string operator+(const char* a, const ProgramText& b) { return std::string(a).append(b.view()); }
    friend std::ostream& operator<<(std::ostream& os, const ProgramText& t);

private:
    friend class ProgramTextStore;
    /// Texts of this many bytes or more store their size in four bytes after the marker.
    static constexpr unsigned kLongText = 255;
    explicit ProgramText(const char* text) : m_text(text) {}
    /// The size (one byte, or 255 and four bytes), then the characters and a NUL.
    const char* m_text = nullptr;
};

/// The characters of a ProgramIds' texts, in chunks that never move. A copy shares the chunks that
/// hold the texts so far and writes new texts into chunks of its own.
class ProgramTextStore {
public:
    ProgramTextStore() = default;
    ProgramTextStore(const ProgramTextStore& o) : m_chunks(o.m_chunks), m_bytes(o.m_bytes) {}
    ProgramTextStore& operator=(const ProgramTextStore& o);

    /// Stores `s`; a text equal to one of the last two stored is not stored again (an op and
    /// its result share their id and name).
    ProgramText add(std::string_view s);
    /// Bytes of chunk storage held.
    size_t bytes() const { return m_bytes; }

private:
    std::vector<std::shared_ptr<char[]>> m_chunks;
    char* m_free = nullptr; ///< where the next text goes in the last chunk (null: in a new one)
    size_t m_left = 0;      ///< bytes left there
    size_t m_bytes = 0;
    ProgramText m_recent[2];
};

/// A value as users know it.
struct ProgramValue {
    /// Unique and stable: `@main:%5`, `@main:%0#1`, `@main:%3/%arg5` (an argument of a region of the
    /// op defining %3), `@main:result0` (a function result), `@main:%cst.copy2` (inserted).
    ProgramText id;
    /// What the file prints: `%5`, `%cst_0`, `%arg0`, `%0#1`, `result 0`; `%cst.copy2` for values
    /// that passes insert, named after the user's value they stand for.
    ProgramText name;
    int scope = -1;       ///< ProgramIds::scopeName(): the `loc` name scope of its op or argument
    int func = -1;        ///< op index of the enclosing func.func, -1 outside functions
    int op = -1;          ///< op index of the defining op, -1 for block arguments and func results
    int funcResult = -1;  ///< for a function result: its index
    int derivedFrom = -1; ///< for an inserted value: the value index it was made from
    Derivation derivation = Derivation::Other;
};

/// An op as users know it.
struct ProgramOp {
    /// Unique and stable: `@main:%5` (the op defining %5), `@main:%0` (defining %0:2),
    /// `@main:sdy.sharding_group#1` (ops without results, numbered by name), `@main`, `@mesh`.
    ProgramText id;
    /// Its result list as printed (`%5`, `%0:2`, `%output_state, %output`), or for an op without
    /// results its symbol (`@main`) or op name.
    ProgramText name;
    OperationName opName; ///< `stablehlo.add` (interned: one pointer)
    int scope = -1;       ///< ProgramIds::scopeName(): the `loc` name scope
    int func = -1;        ///< op index of the enclosing func.func (itself for a func.func), -1 outside
    int derivedFrom = -1;
    Derivation derivation = Derivation::Other;
};

/// What a lookup by user name sees of one value or op.
struct NamedEntity {
    std::string_view id;
    std::string_view name;
    std::string_view scope;
};

/// Finds one of `count` entities by what a user types, in this order: its exact id
/// (`@main:%5`); its name, alone or after its function (`%5`, `@main:%5`, `result 0`;
/// `@main:arg0` for `%arg0`); its `loc` name scope, whole or a trailing run of `/`-separated
/// parts (`layer_0/add`). The first of these that matches anything decides; several matches are
/// an error listing them, no match an error listing candidates. `what` names the kind ("value").
Expected<int> findByUserName(const std::string& query, size_t count, const std::function<NamedEntity(size_t)>& entity,
                             const char* what);

/// The names users know for a module: every value and op gets a stable id and a display name
/// that is exactly what the user's file prints (Value::sourceName where the reader recorded one,
/// else the name MLIR's printer gives it), plus its `loc` name scope. The index of each entity is
/// stored in the IR object (Value::programId, Op::programId), so it follows the object through
/// passes and module copies (Module::clone). Values and ops that passes insert are named as
/// derived from the user's value or op (noteDerived, noteCloned) or, when a pass said nothing,
/// from their first named operand (`%4.reshard`) when first met. Entities are never removed: an
/// erased op keeps its id, so a trace can name it.
class ProgramIds {
public:
    /// Names every value and op of `module` (afresh: the indices the objects held are replaced,
    /// so a module has one ProgramIds at a time; Module::programIds() keeps it).
    explicit ProgramIds(Module& module);

    const std::vector<ProgramValue>& values() const { return m_values; }
    const std::vector<ProgramOp>& ops() const { return m_ops; }
    size_t numScopes() const { return m_scopes.size(); }
    /// The scope `id`, empty for -1.
    const std::string& scopeName(int id) const;

    /// Index of `v`, naming it first (with its op) when a pass made it after the module was
    /// named; -1 for null.
    int valueOf(Value* v);
    /// Index of `op`, naming it first when needed; -1 for null.
    int opOf(Op* op);
    /// Index of result `i` of function `func`, -1 when it has none.
    int funcResultOf(Op* func, int i);
    /// Names everything in `module` not named yet (in walk order).
    void nameAll(Module& module);

    /// Names the op `inserted` (just inserted by a pass) and its results as standing for the
    /// user's value `from`: `%4.reshard`, `%3.edge`, `%4.reshard2`, ...
    void noteDerived(Op& inserted, const Value& from, Derivation how);
    /// Names the op `inserted` as a copy (or other derivative) of the user's op `from`: its
    /// results after `from`'s (`%cst.copy`, `%cst.copy2`).
    void noteDerived(Op& inserted, const Op& from, Derivation how);
    /// Names one value (a block argument a pass created) after `from`.
    void noteDerived(Value& inserted, const Value& from, Derivation how);
    /// `replacement` takes the place of `original` (a call turned into a named computation and
    /// back): it takes over the original's id and name, and so do its results, result by result;
    /// the original becomes unnamed. A trace then follows the user's op through the rewrite.
    void noteReplaced(Op& replacement, Op& original);
    /// The same for one value (a block argument standing for another).
    void noteReplaced(Value& replacement, Value& original);
    /// `func`, a function a pass made again under the symbol of an earlier one that is gone (a
    /// callee inlined at import and outlined at export), takes over that function's id. The
    /// caller makes sure no other op holds it.
    void noteRestored(Op& func);
    /// Names every value and op of `clone`, a copy of `original` with the same structure, after
    /// the original's, inside the clone's own function (a duplicated function keeps `%5`).
    void noteCloned(const Op& original, Op& clone);

    /// Finds a value by user name (see findByUserName); also `@func:argN` and `@func:resultN`.
    Expected<int> findValue(const std::string& query) const;
    /// Finds an op by user name: its id, its result list or op name, its scope.
    Expected<int> findOp(const std::string& query) const;

private:
    void nameTopLevelOp(Op& op);
    void addFuncResults(Op& func);
    /// The printer's counters while naming the user's program without its names: at the block
    /// being named (advanced as it goes) and at the end of the block's region.
    struct Numbering {
        SsaCounters at, regionEnd;
    };
    /// `counters`: the printer's counters at the function (null when `printed` names values).
    void nameFunction(Op& func, const SsaNames* printed, const SsaCounters* counters = nullptr);
    /// Names what `block` holds and, recursively, its ops' regions: the file's names, else the
    /// printer's (`printed`, or `numbering`'s counters), else names derived here.
    void nameBlockContents(Block& block, const std::string& prefix, int func, const SsaNames* printed,
                           Numbering* numbering = nullptr);
    /// Names what `op`'s regions hold that is not named yet (an op a pass made).
    void nameRegions(Op& op, int func);
    /// Names an op of the user's program and its results; `number` is the printer's number
    /// for its results (-1 none).
    void nameUserOp(Op& op, const std::string& prefix, int func, const SsaNames* printed, int number);
    int addValue(Value& v, std::string name, const std::string& prefix, int func, int op, int scope);
    int addOp(Op& op, std::string id, std::string name, int func, int scope);
    /// `prefix` for the ids of `op`'s region contents: `@f:%3/`, `@f:%3/r1/`.
    std::string regionPrefix(const Op& op, unsigned region) const;
    /// Makes `id` unique among the ids in `taken` made after the naming of the user's program
    /// (`~2`, `~3` appended) and remembers it there; while naming the user's program, ids are
    /// unique already.
    std::string uniqueId(std::unordered_set<std::string>& taken, std::string id) const;
    bool isTaken(const std::string& id) const;
    /// `prefix` + `opName` + `#k`, k counting the resultless ops of that name under `prefix`.
    std::string nextResultlessId(const std::string& prefix, const std::string& opName);
    /// `base`, else `base2`, `base3`... the first name whose id under `prefix` is free.
    std::string freeDerivedName(const std::string& base, const std::string& prefix) const;
    /// Names an op a pass made without saying what from: after its first named operand.
    void nameNew(Op& op);
    int scopeId(const AttrPtr& loc);

    std::vector<ProgramValue> m_values;
    std::vector<ProgramOp> m_ops;
    ProgramTextStore m_text; ///< the ids and names of m_values and m_ops
    /// A `loc` name scope: its text, held in the location attribute it was found in.
    struct Scope {
        AttrPtr owner;
        const std::string* text = nullptr;
    };
    std::vector<Scope> m_scopes;
    /// m_scopes by text (a node-based map spent some 50 bytes on each scope, and a program has a
    /// scope per few ops).
    TaggedSlotIndex m_scopeIndex;
    int m_lastScope = -1;                                      ///< the scope scopeId found last
    PointerMap<Attribute, int> m_scopeByLoc;                   ///< location attribute -> scope id (-1 none)
    bool m_naming = false;                                     ///< naming the user's program (the constructor)
    std::unordered_set<std::string> m_takenValues, m_takenOps; ///< ids that may collide (see uniqueId)
    std::unordered_map<std::string, int> m_topLevel;           ///< top-level op id -> op index
    std::unordered_map<std::string, int> m_resultless;         ///< next number per prefix + op name
    /// (function op index, result index) -> value index.
    std::unordered_map<int64_t, int> m_funcResults;
};

} // namespace shardx::ir
