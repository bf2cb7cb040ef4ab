// Builder: creates ops at an insertion point in a block (MLIR's OpBuilder), with helpers for
// func.func, sdy.mesh, constants, shardings and the attributes they take.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/Module.h"

namespace shardx::ir {

/// What an op is made of before it is created (MLIR's OperationState).
struct OperationState {
    std::string name;
    std::vector<Value*> operands;
    std::vector<Type> resultTypes;
    /// Attributes by name. Those the OpRegistry lists as inherent to `name` become props, the
    /// others discardable attrs, as the reader files them.
    NamedAttrList attributes;
    /// Number of empty regions the op gets.
    unsigned numRegions = 0;
    /// `loc(...)` of the op; null takes the builder's current location.
    AttrPtr loc;

    explicit OperationState(std::string opName) : name(std::move(opName)) {}
    /// Sets attribute `attrName` (replacing one of that name).
    OperationState& addAttribute(const std::string& attrName, AttrPtr value);
};

/// One argument of a function built by Builder::createFunc.
struct FuncArgument {
    Type type;
    NamedAttrList attrs; ///< the argument's attribute dictionary (`{sdy.sharding = ...}`)
    AttrPtr loc;         ///< its `loc(...)`, may be null
};

/// One result of a function built by Builder::createFunc.
struct FuncResult {
    Type type;
    NamedAttrList attrs; ///< the result's attribute dictionary (`{jax.result_info = ""}`)
};

/// The signature of a func.func.
struct FuncSignature {
    std::string name;
    std::string visibility; ///< "public", "private", "nested", or empty (none written)
    std::vector<FuncArgument> arguments;
    std::vector<FuncResult> results;
};

/// Creates ops and inserts them at its insertion point: before an op of a block, or at the
/// block's end. Ops it creates get the builder's current location unless given one. Inserting
/// keeps the point after the new op, so successive creates come out in order.
class Builder {
public:
    /// A builder with no insertion point (set one before creating ops).
    Builder() = default;
    /// Inserts at the end of `block`.
    explicit Builder(Block& block) { setInsertionPointToEnd(block); }
    /// Inserts at the end of the module's body (where sdy.mesh and func.func go).
    explicit Builder(Module& module) { setInsertionPointToEnd(module.body()); }

    void setInsertionPointToEnd(Block& block);
    void setInsertionPointToStart(Block& block);
    /// Inserts right before `op` (which must be in a block).
    void setInsertionPoint(Op& op);
    /// Inserts right after `op` (which must be in a block).
    void setInsertionPointAfter(Op& op);
    /// The block ops are inserted into, nullptr when no point is set.
    Block* insertionBlock() const { return m_block; }
    /// The op new ops are inserted before, nullptr at the end of the block.
    Op* insertionOp() const { return m_before; }

    /// The location ops get when created without one (may be null: no `loc`).
    void setLoc(AttrPtr loc) { m_loc = std::move(loc); }
    const AttrPtr& loc() const { return m_loc; }
    /// The source position ops get (for diagnostics about them), e.g. the op a pass rewrites.
    void setPos(SourcePos pos) { m_pos = std::move(pos); }
    /// setLoc and setPos of `op`: what a pass creates for `op` is reported at `op`.
    void setLocationOf(const Op& op)
    {
        m_loc = op.loc;
        m_pos = op.pos;
    }

    /// Restores the builder's insertion point and location when it goes out of scope.
    class InsertionGuard {
    public:
        explicit InsertionGuard(Builder& b)
            : m_b(b), m_block(b.m_block), m_before(b.m_before), m_loc(b.m_loc), m_pos(b.m_pos)
        {}
        ~InsertionGuard()
        {
            m_b.m_block = m_block;
            m_b.m_before = m_before;
            m_b.m_loc = m_loc;
            m_b.m_pos = m_pos;
        }
        InsertionGuard(const InsertionGuard&) = delete;
        InsertionGuard& operator=(const InsertionGuard&) = delete;

    private:
        Builder& m_b;
        Block* m_block;
        Op* m_before;
        AttrPtr m_loc;
        SourcePos m_pos;
    };

    /// Creates the op `state` describes and inserts it; returns it.
    Op* create(OperationState state);
    /// Creates op `name` with `operands`, `resultTypes` and `attributes` (filed as
    /// OperationState::attributes); returns it.
    Op* create(std::string name, std::vector<Value*> operands, std::vector<Type> resultTypes,
               NamedAttrList attributes = {});
    /// The same for an op with one result; returns that result.
    Value* createValue(std::string name, std::vector<Value*> operands, Type resultType, NamedAttrList attributes = {});

    /// Appends a block with arguments of `argTypes` to `region` and moves the insertion point
    /// to its end; returns it.
    Block& createBlock(Region& region, const std::vector<Type>& argTypes = {});

    // ---- common ops ----------------------------------------------------------------------

    /// `sdy.mesh @name = <mesh>`.
    Op* createMesh(const std::string& name, Mesh mesh);
    /// A func.func with `sig` and an entry block whose arguments are the function's (with
    /// their locations); `arg_attrs` / `res_attrs` are set only when some dictionary is not
    /// empty, as the reader does. The insertion point stays where it was: build the body with
    /// `setInsertionPointToEnd(funcBody(*func))`.
    Op* createFunc(const FuncSignature& sig);
    /// `stablehlo.constant` holding `value` (an elements attribute, whose type is the result's).
    Value* createConstant(AttrPtr value);
    /// `sdy.sharding_constraint %value <sharding>`.
    Value* createShardingConstraint(Value* value, TensorSharding sharding);
    /// `func.return` of `values`.
    Op* createReturn(const std::vector<Value*>& values);

private:
    Block* m_block = nullptr;
    Op* m_before = nullptr;
    AttrPtr m_loc;
    SourcePos m_pos;
};

/// The entry block of a func.func made by Builder::createFunc (its arguments are the function's).
Block& funcBody(Op& func);

// ---- attributes ---------------------------------------------------------------------------

AttrPtr stringAttr(std::string value);
/// An integer of builtin type `type` ("i64", "i32", "index"...).
AttrPtr integerAttr(int64_t value, const std::string& type = "i64");
/// `array<i64: ...>`.
AttrPtr denseI64ArrayAttr(std::vector<int64_t> values);
/// A splat `dense<value> : type` of a ranked tensor of f32 or f64 (the value is rounded to the
/// element type, as the reader does).
AttrPtr floatSplatAttr(const Type& type, double value);
AttrPtr shardingAttr(TensorSharding sharding);
/// `loc("name")`, MLIR's NameLoc (JAX writes its name scopes this way).
AttrPtr nameLoc(std::string name);

/// A closed sharding on the mesh named `meshSymbol` whose dimension d is sharded on the full
/// axes `dimAxes[d]`, major to minor (`<@mesh, [{"data"}, {}]>`).
TensorSharding shardingOnAxes(const std::string& meshSymbol, const std::vector<std::vector<std::string>>& dimAxes);

} // namespace shardx::ir
