// Builder: insertion points, op creation and the helpers for common ops and attributes.
#include "core/ir/Builder.h"

#include <cassert>
#include <cstring>

#include "core/ir/OpRegistry.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"

namespace shardx::ir {

OperationState& OperationState::addAttribute(const std::string& attrName, AttrPtr value)
{
    setAttr(attributes, attrName, std::move(value));
    return *this;
}

void Builder::setInsertionPointToEnd(Block& block)
{
    m_block = &block;
    m_before = nullptr;
}

void Builder::setInsertionPointToStart(Block& block)
{
    m_block = &block;
    m_before = block.empty() ? nullptr : block.ops().front().get();
}

void Builder::setInsertionPoint(Op& op)
{
    assert(op.parentBlock() && "the insertion op must be in a block");
    m_block = op.parentBlock();
    m_before = &op;
}

void Builder::setInsertionPointAfter(Op& op)
{
    assert(op.parentBlock() && "the insertion op must be in a block");
    m_block = op.parentBlock();
    m_before = op.nextInBlock();
}

Op* Builder::create(OperationState state)
{
    assert(m_block && "create needs an insertion point");
    auto op = std::make_unique<Op>(std::move(state.name));
    for (Value* v : state.operands)
        op->addOperand(v);
    for (Type& t : state.resultTypes)
        op->addResult(std::move(t));
    const OpRegistry& registry = OpRegistry::instance();
    for (NamedAttribute& na : state.attributes) {
        if (registry.isInherent(op->name(), na.name))
            op->setProp(na.name, std::move(na.value));
        else
            op->setDiscardable(na.name, std::move(na.value));
    }
    for (unsigned i = 0; i < state.numRegions; ++i)
        op->addRegion();
    op->loc = state.loc ? std::move(state.loc) : m_loc;
    op->pos = m_pos;
    return m_block->insertBefore(m_before, std::move(op));
}

Op* Builder::create(std::string name, std::vector<Value*> operands, std::vector<Type> resultTypes,
                    NamedAttrList attributes)
{
    OperationState state(std::move(name));
    state.operands = std::move(operands);
    state.resultTypes = std::move(resultTypes);
    state.attributes = std::move(attributes);
    return create(std::move(state));
}

Value* Builder::createValue(std::string name, std::vector<Value*> operands, Type resultType, NamedAttrList attributes)
{
    return create(std::move(name), std::move(operands), {std::move(resultType)}, std::move(attributes))->result(0);
}

Block& Builder::createBlock(Region& region, const std::vector<Type>& argTypes)
{
    Block* block = region.addBlock();
    for (const Type& t : argTypes)
        block->addArgument(t);
    setInsertionPointToEnd(*block);
    return *block;
}

Op* Builder::createMesh(const std::string& name, Mesh mesh)
{
    OperationState state("sdy.mesh");
    state.addAttribute(kSymNameAttr, stringAttr(name));
    state.addAttribute(kMeshAttr, makeAttr(MeshAttr{std::move(mesh)}));
    return create(std::move(state));
}

Op* Builder::createFunc(const FuncSignature& sig)
{
    OperationState state("func.func");
    state.numRegions = 1;
    state.addAttribute(kSymNameAttr, stringAttr(sig.name));
    if (!sig.visibility.empty())
        state.addAttribute(kSymVisibilityAttr, stringAttr(sig.visibility));
    std::vector<Type> inputs, outputs;
    ArrayAttr argDicts, resultDicts;
    bool anyArgAttr = false, anyResultAttr = false;
    for (const FuncArgument& a : sig.arguments) {
        inputs.push_back(a.type);
        argDicts.elements.push_back(makeAttr(DictionaryAttr{a.attrs}));
        anyArgAttr = anyArgAttr || !a.attrs.empty();
    }
    for (const FuncResult& r : sig.results) {
        outputs.push_back(r.type);
        resultDicts.elements.push_back(makeAttr(DictionaryAttr{r.attrs}));
        anyResultAttr = anyResultAttr || !r.attrs.empty();
    }
    state.addAttribute(kFunctionTypeAttr, makeAttr(TypeAttr{Type::function(inputs, outputs)}));
    if (anyArgAttr)
        state.addAttribute(kArgAttrsAttr, makeAttr(std::move(argDicts)));
    if (anyResultAttr)
        state.addAttribute(kResAttrsAttr, makeAttr(std::move(resultDicts)));
    Op* func = create(std::move(state));
    Block* entry = func->region(0).addBlock();
    for (const FuncArgument& a : sig.arguments)
        entry->addArgument(a.type)->setLoc(a.loc);
    return func;
}

Block& funcBody(Op& func) { return func.region(0).front(); }

Value* Builder::createConstant(AttrPtr value)
{
    const auto* elements = value->as<DenseElementsAttr>();
    assert(elements && "a constant holds an elements attribute");
    Type type = elements->type;
    return createValue("stablehlo.constant", {}, std::move(type), {{"value", std::move(value)}});
}

Value* Builder::createShardingConstraint(Value* value, TensorSharding sharding)
{
    return createValue("sdy.sharding_constraint", {value}, value->type(),
                       {{kShardingAttr, shardingAttr(std::move(sharding))}});
}

Op* Builder::createReturn(const std::vector<Value*>& values) { return create("func.return", values, {}); }

// ---- attributes ---------------------------------------------------------------------------

AttrPtr stringAttr(std::string value) { return makeAttr(StringAttr{std::move(value)}); }

AttrPtr integerAttr(int64_t value, const std::string& type) { return makeAttr(IntegerAttr{value, Type::scalar(type)}); }

AttrPtr denseI64ArrayAttr(std::vector<int64_t> values)
{
    DenseArrayAttr a;
    a.elementType = "i64";
    a.ints = std::move(values);
    return makeAttr(std::move(a));
}

AttrPtr floatSplatAttr(const Type& type, double value)
{
    assert(type.isRankedTensor() && (type.elementType() == "f32" || type.elementType() == "f64"));
    DenseElementsAttr d;
    d.type = type;
    d.splat = true;
    // Little-endian bytes of the element, as the reader stores them.
    uint64_t bits = 0;
    size_t bytes = 8;
    if (type.elementType() == "f32") {
        const float f = static_cast<float>(value);
        uint32_t b32 = 0;
        std::memcpy(&b32, &f, sizeof b32);
        bits = b32;
        bytes = 4;
    } else {
        std::memcpy(&bits, &value, sizeof bits);
    }
    for (size_t i = 0; i < bytes; ++i)
        d.data.push_back(static_cast<uint8_t>(bits >> (8 * i)));
    return makeAttr(std::move(d));
}

AttrPtr shardingAttr(TensorSharding sharding) { return makeAttr(ShardingAttr{std::move(sharding)}); }

AttrPtr nameLoc(std::string name)
{
    LocationAttr l;
    l.kind = LocationAttr::Kind::Name;
    l.text = std::move(name);
    return makeAttr(std::move(l));
}

TensorSharding shardingOnAxes(const std::string& meshSymbol, const std::vector<std::vector<std::string>>& dimAxes)
{
    TensorSharding s;
    s.mesh.symbol = meshSymbol;
    for (const auto& axes : dimAxes) {
        DimSharding d;
        for (const std::string& a : axes)
            d.axes.emplace_back(a);
        s.dims.push_back(std::move(d));
    }
    return s;
}

} // namespace shardx::ir
