// Value, Op, Block and Region: the generic, MLIR-like program representation.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/Attribute.h"
#include "core/ir/Type.h"
#include "core/support/Diagnostic.h"

namespace shardx::ir {

class Block;
class Op;
class Region;
class Value;

/// Internal: removes one use record of `v` (used by Op).
void removeUseOf(Value* v, Op* user, unsigned index);
void releaseReferencesForTeardown(Op& op);

/// An interned op name ("stablehlo.add"): every OperationName made from the same spelling holds the
/// same pointer into a process-wide table (as MLIR's OperationName), so ops share their name's
/// storage and two names compare as one pointer. The table only grows (names are few: one per kind
/// of op a program uses); it is safe to intern from several threads.
class OperationName {
public:
    /// The empty name.
    OperationName();
    explicit OperationName(std::string_view name);

    const std::string& str() const { return *m_name; }
    operator std::string_view() const { return *m_name; }
    bool operator==(const OperationName& o) const { return m_name == o.m_name; }
    bool operator==(std::string_view s) const { return *m_name == s; }

private:
    const std::string* m_name;
};

/// One use of a value: operand `index` of `user`.
struct Use {
    Op* user = nullptr;
    unsigned index = 0;
    bool operator==(const Use& o) const = default;
};

/// Where a block argument was declared in the source, held apart from the Value (op results,
/// most of a program's values, have none).
struct ValueSource {
    AttrPtr loc;
    SourcePos pos;
};

/// An SSA value: an op result or a block argument.
class Value {
public:
    Value(Type type, Op* def, unsigned index) : m_index(index), m_isArgument(false), m_type(std::move(type)), m_def(def)
    {}
    Value(Type type, Block* block, unsigned index)
        : m_index(index), m_isArgument(block != nullptr), m_type(std::move(type)), m_block(block)
    {}
    Value(const Value&) = delete;
    Value& operator=(const Value&) = delete;

    const Type& type() const { return m_type; }
    void setType(Type t) { m_type = std::move(t); }
    /// Defining op, or nullptr for a block argument.
    Op* definingOp() const { return m_isArgument ? nullptr : m_def; }
    /// Owning block for a block argument, nullptr for an op result.
    Block* ownerBlock() const { return m_isArgument ? m_block : nullptr; }
    bool isBlockArgument() const { return m_isArgument; }
    /// Result number or argument number.
    unsigned index() const { return m_index; }
    void setIndex(unsigned i) { m_index = i; }

    const std::vector<Use>& uses() const { return m_uses; }
    bool hasOneUse() const { return m_uses.size() == 1; }
    bool useEmpty() const { return m_uses.empty(); }
    /// Makes every user of this value use `other` instead.
    void replaceAllUsesWith(Value* other);

    /// Location of a block argument (`%arg0: tensor<..> loc(...)`), may be null.
    const AttrPtr& loc() const { return m_source ? m_source->loc : kNoSource.loc; }
    void setLoc(AttrPtr loc)
    {
        if (loc || m_source)
            source().loc = std::move(loc);
    }
    /// Source position (block arguments: where declared); unknown when none was set.
    const SourcePos& pos() const { return m_source ? m_source->pos : kNoSource.pos; }
    void setPos(const SourcePos& pos)
    {
        if (pos.line || pos.col || !pos.file.empty() || m_source)
            source().pos = pos;
    }
    /// The SSA name the source gave this value, without `%`: `5`, `cst_0`, `arg0`; the result i
    /// of a group `%x:2` is `x#i`. Empty for values made by passes; a module built in memory may
    /// set it (the generator gives the names the printer will print).
    std::string sourceName;
    /// Index of this value in its module's ProgramIds, -1 until it is named there.
    int32_t programId = -1;

private:
    friend class Op;
    friend void removeUseOf(Value* v, Op* user, unsigned index);
    friend void releaseReferencesForTeardown(Op& op);
    static const ValueSource kNoSource;
    ValueSource& source()
    {
        if (!m_source)
            m_source = std::make_unique<ValueSource>();
        return *m_source;
    }
    // Laid out without padding (a program holds a value per result and argument): the index and
    // the kind in one word next to programId, one owner pointer for both kinds, the source apart.
    unsigned m_index : 31;
    unsigned m_isArgument : 1;
    Type m_type;
    union {
        Op* m_def = nullptr; ///< an op result's defining op
        Block* m_block;      ///< a block argument's block
    };
    std::vector<Use> m_uses;
    std::unique_ptr<ValueSource> m_source; ///< null until a location or position is set
};

/// An ordered list of blocks.
class Region {
public:
    explicit Region(Op* parent) : m_parent(parent) {}
    Op* parentOp() const { return m_parent; }
    std::vector<std::unique_ptr<Block>>& blocks() { return m_blocks; }
    const std::vector<std::unique_ptr<Block>>& blocks() const { return m_blocks; }
    bool empty() const { return m_blocks.empty(); }
    /// The first block (creates one when the region is empty).
    Block& front();
    Block* addBlock();

private:
    Op* m_parent;
    std::vector<std::unique_ptr<Block>> m_blocks;
};

/// A basic block: arguments and a list of ops.
class Block {
public:
    using OpList = std::list<std::unique_ptr<Op>>;

    explicit Block(Region* parent) : m_parent(parent) {}
    ~Block();

    Region* parentRegion() const { return m_parent; }
    Op* parentOp() const;

    const std::vector<std::unique_ptr<Value>>& args() const { return m_args; }
    Value* arg(unsigned i) const { return m_args[i].get(); }
    unsigned numArgs() const { return static_cast<unsigned>(m_args.size()); }
    Value* addArgument(Type type);
    /// Erases argument `i` (it must have no uses) and renumbers the rest.
    void eraseArgument(unsigned i);

    OpList& ops() { return m_ops; }
    const OpList& ops() const { return m_ops; }
    bool empty() const { return m_ops.empty(); }
    /// Last op (the terminator in a well-formed block), or nullptr.
    Op* terminator() const { return m_ops.empty() ? nullptr : m_ops.back().get(); }

    /// Appends `op`; returns it.
    Op* push_back(std::unique_ptr<Op> op);
    /// Inserts `op` before `before` (nullptr = at the end); returns it.
    Op* insertBefore(Op* before, std::unique_ptr<Op> op);
    /// Inserts `op` right after `after`; returns it.
    Op* insertAfter(Op* after, std::unique_ptr<Op> op);
    /// Detaches `op` from this block without destroying it.
    std::unique_ptr<Op> remove(Op* op);

private:
    friend class Op;
    friend void releaseReferencesForTeardown(Op& op);
    Region* m_parent;
    std::vector<std::unique_ptr<Value>> m_args;
    OpList m_ops;
};

/// The source text of an op kept as written (viewer tolerance: an op in a custom form shardx
/// cannot read, such as an op of a dialect it does not know). `pieces` has one more entry than
/// the op has operands: the text is pieces[0], operand 0's name, pieces[1], ... (from the op name
/// to the end of the op, without the result list and the trailing `loc(...)`), so the printer
/// writes it back with the names it gives the operands.
struct OpaqueSyntax {
    std::vector<std::string> pieces;
    bool operator==(const OpaqueSyntax&) const = default;
};

/// What few ops have, held out of line so that every op stays small (a program holds one Op per
/// op): regions, successors, the source text of an op kept as written.
struct OpExtras {
    std::vector<std::unique_ptr<Region>> regions;
    std::vector<Block*> successors;
    std::shared_ptr<const OpaqueSyntax> opaqueSyntax;
};

/// A generic operation: name, operands, results, attributes, regions.
/// Inherent attributes (`props`, printed in `<{...}>` in generic form) and discardable
/// attributes (`attrs`) are kept apart; both lists stay sorted by name.
class Op {
public:
    explicit Op(const std::string& name) : m_name(name) {}
    explicit Op(OperationName name) : m_name(name) {}
    ~Op();
    Op(const Op&) = delete;
    Op& operator=(const Op&) = delete;

    /// Full name, e.g. "stablehlo.add".
    const std::string& name() const { return m_name.str(); }
    /// The interned name: `op.opName() == kAdd` compares one pointer (for hot paths; name() == "..."
    /// compares the spelling).
    OperationName opName() const { return m_name; }
    bool is(const OperationName& n) const { return m_name == n; }
    void setName(const std::string& n) { m_name = OperationName(n); }
    void setName(OperationName n) { m_name = n; }
    /// "stablehlo" for "stablehlo.add".
    std::string dialect() const;

    // operands
    unsigned numOperands() const { return static_cast<unsigned>(m_operands.size()); }
    Value* operand(unsigned i) const { return m_operands[i]; }
    const std::vector<Value*>& operands() const { return m_operands; }
    void addOperand(Value* v);
    /// Makes room for `n` operands in all (a reader that knows the count allocates once).
    void reserveOperands(unsigned n) { m_operands.reserve(n); }
    void setOperand(unsigned i, Value* v);
    void setOperands(const std::vector<Value*>& vs);
    void eraseOperand(unsigned i);
    /// Drops every operand (and its use), recursively in regions too.
    void dropAllReferences();

    // results
    unsigned numResults() const { return static_cast<unsigned>(m_results.size()); }
    Value* result(unsigned i) const { return m_results[i].get(); }
    const std::vector<std::unique_ptr<Value>>& results() const { return m_results; }
    /// Asks the processor for the op's operand, result and attribute lists, ahead of reading them
    /// (loops over a large module that know the next op).
    void prefetchLists() const
    {
        __builtin_prefetch(m_operands.data());
        __builtin_prefetch(m_results.data());
        __builtin_prefetch(m_props.data());
        __builtin_prefetch(m_attrs.data());
    }
    Value* addResult(Type type);
    /// Removes the last result (it must have no uses).
    void eraseResult(unsigned i);

    // attributes
    NamedAttrList& props() { return m_props; }
    const NamedAttrList& props() const { return m_props; }
    NamedAttrList& attrs() { return m_attrs; }
    const NamedAttrList& attrs() const { return m_attrs; }
    /// Looks in props, then attrs.
    const Attribute* attr(std::string_view name) const;
    AttrPtr attrPtr(std::string_view name) const;
    /// The attribute `name` (props, then attrs) by interned name: one pointer comparison per
    /// attribute where attr() compares spellings (for lookups that run at every op of every step).
    /// Null if absent.
    const AttrPtr* findInterned(const AttrName& name) const;
    /// setDiscardable() with a name interned once by the caller.
    void setDiscardableInterned(const AttrName& name, AttrPtr v) { setAttr(m_attrs, name, std::move(v)); }
    void setProp(const std::string& name, AttrPtr v) { setAttr(m_props, name, std::move(v)); }
    void setDiscardable(const std::string& name, AttrPtr v) { setAttr(m_attrs, name, std::move(v)); }
    /// Removes `name` from props and attrs.
    bool removeAttribute(std::string_view name);

    // regions and successors
    unsigned numRegions() const { return m_extras ? static_cast<unsigned>(m_extras->regions.size()) : 0; }
    Region& region(unsigned i) const { return *m_extras->regions[i]; }
    const std::vector<std::unique_ptr<Region>>& regions() const
    {
        return m_extras ? m_extras->regions : kNoExtras.regions;
    }
    Region* addRegion();
    const std::vector<Block*>& successors() const { return m_extras ? m_extras->successors : kNoExtras.successors; }
    void addSuccessor(Block* b) { extras().successors.push_back(b); }

    // position in the program
    Block* parentBlock() const { return m_parent; }
    /// Parent op (the op whose region holds this op), nullptr at top level.
    Op* parentOp() const;
    /// True if `this` is `other` or nested (at any depth) inside one of its regions.
    bool isProperAncestorOf(const Op* other) const;
    /// Next / previous op in the same block (nullptr at the ends).
    Op* nextInBlock() const;
    Op* prevInBlock() const;
    /// True if this op comes before `other` in the same block.
    bool isBeforeInBlock(const Op* other) const;
    /// Removes this op from its block and destroys it (results must be unused).
    void erase();

    /// Where the op starts in the source (line of its first token), for diagnostics.
    SourcePos pos;
    /// `loc(...)` attached to the op, may be null.
    AttrPtr loc;
    /// Index of this op in its module's ProgramIds, -1 until it is named there.
    int32_t programId = -1;
    /// Set for an op kept as written (see OpaqueSyntax); null for every op shardx reads.
    const std::shared_ptr<const OpaqueSyntax>& opaqueSyntax() const
    {
        return m_extras ? m_extras->opaqueSyntax : kNoExtras.opaqueSyntax;
    }
    void setOpaqueSyntax(std::shared_ptr<const OpaqueSyntax> syntax)
    {
        if (syntax || m_extras)
            extras().opaqueSyntax = std::move(syntax);
    }

    /// Pre-order walk over this op and every nested op. Return false from `fn` to skip
    /// the op's regions. The templates take any callable without wrapping it in a std::function
    /// (one indirect call per op less; the hot walks of propagation and partitioning); the
    /// std::function overloads stay for callers that hold one.
    void walk(const std::function<void(Op*)>& fn);
    void walkPreOrder(const std::function<bool(Op*)>& fn);
    template <typename F> void walk(F&& fn)
    {
        walkPreOrder([&fn](Op* op) {
            fn(op);
            return true;
        });
    }
    template <typename F> void walkPreOrder(F&& fn)
    {
        if (!fn(this) || !m_extras)
            return;
        for (auto& r : m_extras->regions)
            for (auto& b : r->blocks())
                for (auto& op : b->ops())
                    op->walkPreOrder(fn);
    }
    /// Post-order walk (nested ops before their parent). Each block's op list is taken before
    /// its ops are visited, so `fn` may insert ops next to the one it visits or erase it.
    void walkPostOrder(const std::function<void(Op*)>& fn);
    template <typename F> void walkPostOrder(F&& fn)
    {
        std::vector<Op*> ops;
        for (auto& r : regions())
            for (auto& b : r->blocks()) {
                ops.clear();
                for (auto& op : b->ops())
                    ops.push_back(op.get());
                for (Op* op : ops)
                    op->walkPostOrder(fn);
            }
        fn(this);
    }

private:
    friend class Block;
    friend void releaseReferencesForTeardown(Op& op);
    static const OpExtras kNoExtras;
    OpExtras& extras()
    {
        if (!m_extras)
            m_extras = std::make_unique<OpExtras>();
        return *m_extras;
    }
    OperationName m_name;
    std::vector<Value*> m_operands;
    std::vector<std::unique_ptr<Value>> m_results;
    NamedAttrList m_props;
    NamedAttrList m_attrs;
    std::unique_ptr<OpExtras> m_extras; ///< null while the op has none of them
    Block* m_parent = nullptr;
    Block::OpList::iterator m_self;
};

/// Internal (Module's destructor): empties the operand and use lists of `op` and of everything nested in it
/// without searching the use lists one by one, for a program that is destroyed whole (every value it
/// defines dies with it, so no use record needs to stay right).
void releaseReferencesForTeardown(Op& op);

/// Inserts `op` where every use of `v` sees it: right after `v`'s defining op, or first in its
/// block for a block argument. `op` takes the defining op's source position when it has none.
/// Returns it.
Op* insertAtDefinition(Value& v, std::unique_ptr<Op> op);

/// The type shapes of an op's operands / results (what the rule verifier checks).
std::vector<TypeShape> operandTypeShapes(const Op& op);
std::vector<TypeShape> resultTypeShapes(const Op& op);

} // namespace shardx::ir
