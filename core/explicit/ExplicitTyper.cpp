// ExplicitTyper: walks a module in program order and types every value with JAX's rules (seed 001).
#include "core/explicit/ExplicitTyper.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "core/explicit/ExplicitRules.h"
#include "core/ir/FuncOps.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/ir/StablehloAttrs.h"

namespace shardx::explicit_ {

const TypedValue* ExplicitResult::find(const ir::Value* v) const
{
    for (const TypedValue& t : values)
        if (t.value == v)
            return &t;
    return nullptr;
}

const ExplicitType* ExplicitResult::typeOf(const ir::Value* v) const
{
    const TypedValue* t = find(v);
    return t && t->type ? &*t->type : nullptr;
}

namespace {

/// The mesh the explicit types name: the one the first sharding of the module refers to by
/// symbol, else the first sdy.mesh.
std::string typerDefaultMesh(const ir::Module& module)
{
    std::string found;
    auto consider = [&](const TensorSharding* s) {
        if (found.empty() && s && !s->mesh.isInline() && module.findMesh(s->mesh.symbol))
            found = s->mesh.symbol;
    };
    const_cast<ir::Op&>(module.op()).walk([&](ir::Op* op) {
        if (!found.empty())
            return;
        if (op->name() == "func.func") {
            const ir::Block& body = op->region(0).front();
            for (unsigned i = 0; i < body.numArgs(); ++i)
                consider(ir::funcArgSharding(*op, i));
            return;
        }
        consider(ir::opSharding(*op));
        if (const ShardingPerValue* list = ir::resultShardings(*op))
            for (const TensorSharding& s : list->shardings)
                consider(&s);
        if (const ShardingPerValue* list = ir::inShardings(*op))
            for (const TensorSharding& s : list->shardings)
                consider(&s);
    });
    if (found.empty()) {
        std::vector<ir::Op*> meshes = module.meshes();
        if (!meshes.empty())
            found = ir::symbolName(*meshes.front());
    }
    return found;
}

class Typer {
public:
    Typer(const ir::Module& module, const ExplicitOptions& options, ExplicitResult& result)
        : m_module(module), m_options(options), m_result(result)
    {}

    void run();

private:
    using AxisContext = std::map<std::string, AxisType>;

    // ---- types of values ----------------------------------------------------------------------
    const ExplicitType* typeOf(const ir::Value* v) const
    {
        auto it = m_types.find(v);
        return it == m_types.end() ? nullptr : &it->second;
    }
    void record(const ir::Value* v, const std::optional<ExplicitType>& type, const std::string& how);
    void recordFuncResult(const ir::Op& func, unsigned i, const std::optional<ExplicitType>& type,
                          const std::string& how);
    std::vector<const ExplicitType*> operandTypes(const ir::Op& op) const;
    void error(const ir::Op& op, const std::string& message) { m_result.diagnostics.error(op.pos, message); }

    /// The explicit type `s` gives a value of type `t` under the current axis types: the Explicit
    /// axes of each dimension (and of unreduced); others are not part of the type.
    std::optional<ExplicitType> fromSharding(const TensorSharding& s, const ir::Type& t, const ir::Op& at,
                                             const std::string& what);
    std::optional<ExplicitType> unshardedOf(const ir::Type& t) const;
    /// `t` with the axes that are not Explicit under the current context dropped.
    ExplicitType restrictToExplicit(const ExplicitType& t) const;
    std::vector<std::string> explicitAxesNow() const
    {
        std::vector<std::string> out;
        for (const MeshAxis& a : m_result.mesh.axes())
            if (isExplicit(a.name))
                out.push_back(a.name);
        return out;
    }
    bool isExplicit(const std::string& axis) const
    {
        auto it = m_context.find(axis);
        return it != m_context.end() && it->second == AxisType::Explicit;
    }

    // ---- program order ------------------------------------------------------------------------
    void typeFunc(const ir::Op& func, const std::vector<const ExplicitType*>* callerTypes);
    void typeBlock(const ir::Block& block);
    void typeOp(const ir::Op& op);
    void typeGenericOp(const ir::Op& op);
    void typeBranches(const ir::Op& op);
    void typeWhile(const ir::Op& op);
    void typeCall(const ir::Op& op);
    void typeManual(const ir::Op& op);
    void typeNamed(const ir::Op& op);
    /// Types the block arguments of an op's nested regions without a rule of their own (a
    /// reducer's scalars) unsharded, and their ops.
    void typeNestedRegionsUnsharded(const ir::Op& op);
    /// The out sharding JAX lowers to a sharding constraint right after the op: every result's
    /// only uses are sdy.sharding_constraint ops (all alike). nullptr when it is not so.
    const TensorSharding* constraintOutSharding(const ir::Value& result) const;

    const ir::Module& m_module;
    const ExplicitOptions& m_options;
    ExplicitResult& m_result;
    AxisContext m_context;
    std::unordered_map<const ir::Value*, ExplicitType> m_types;
    std::string m_func; ///< `@main` while typing it
    std::set<const ir::Op*> m_typedFuncs;
    std::set<const ir::Op*> m_typing; ///< functions being typed (recursion guard)
};

void Typer::record(const ir::Value* v, const std::optional<ExplicitType>& type, const std::string& how)
{
    TypedValue t;
    t.value = v;
    t.programId = v->programId;
    t.func = m_func;
    if (m_options.ids && v->programId >= 0 && static_cast<size_t>(v->programId) < m_options.ids->values().size())
        t.name = m_options.ids->values()[static_cast<size_t>(v->programId)].name;
    else
        t.name = "%" + (v->sourceName.empty() ? std::string("?") : v->sourceName);
    if (const ir::Op* def = v->definingOp()) {
        t.opName = def->name();
        t.pos = def->pos;
    } else {
        t.pos = v->pos();
    }
    t.type = type;
    t.how = how;
    t.explicitAxes = explicitAxesNow();
    if (type)
        m_types[v] = *type;
    m_result.values.push_back(std::move(t));
}

void Typer::recordFuncResult(const ir::Op& func, unsigned i, const std::optional<ExplicitType>& type,
                             const std::string& how)
{
    TypedValue t;
    t.func = m_func;
    t.name = "result " + std::to_string(i);
    t.pos = func.pos;
    t.type = type;
    t.how = how;
    t.explicitAxes = explicitAxesNow();
    m_result.values.push_back(std::move(t));
}

std::vector<const ExplicitType*> Typer::operandTypes(const ir::Op& op) const
{
    std::vector<const ExplicitType*> out;
    for (const ir::Value* v : op.operands())
        out.push_back(typeOf(v));
    return out;
}

std::optional<ExplicitType> Typer::unshardedOf(const ir::Type& t) const
{
    if (!t.isRankedTensor())
        return std::nullopt;
    return unshardedType(t.elementType(), t.shape());
}

ExplicitType Typer::restrictToExplicit(const ExplicitType& t) const
{
    ExplicitType out = t;
    auto keep = [&](std::vector<std::string>& axes) {
        axes.erase(std::remove_if(axes.begin(), axes.end(), [&](const std::string& a) { return !isExplicit(a); }),
                   axes.end());
    };
    for (DimAxes& d : out.sharding.dims)
        keep(d);
    keep(out.sharding.unreduced);
    keep(out.sharding.reduced);
    return out;
}

std::optional<ExplicitType> Typer::fromSharding(const TensorSharding& s, const ir::Type& t, const ir::Op& at,
                                                const std::string& what)
{
    std::optional<ExplicitType> out = unshardedOf(t);
    if (!out)
        return out;
    if (s.mesh.isInline() || s.mesh.symbol != m_result.meshName) {
        const Mesh* other = ir::meshOf(m_module, s);
        if (other && !other->axes().empty())
            error(at, what + " is on mesh " + s.mesh.toString() + ", but explicit types name the axes of @" +
                          m_result.meshName + " (one mesh per program)");
        return out;
    }
    if (s.rank() != out->rank())
        return out; // the verifier reports it
    for (int d = 0; d < s.rank(); ++d) {
        DimAxes& axes = out->sharding.dims[static_cast<size_t>(d)];
        int64_t product = 1;
        for (const AxisRef& a : s.dims[static_cast<size_t>(d)].axes) {
            if (!isExplicit(a.name))
                continue;
            if (a.sub) {
                error(at, what + " shards dimension " + std::to_string(d) + " on the sub-axis " + a.toString() +
                              ", which an explicit type cannot name (JAX types name whole mesh axes)");
                continue;
            }
            axes.push_back(a.name);
            product *= m_result.mesh.axisSize(a.name).value_or(1);
        }
        const int64_t size = out->shape[static_cast<size_t>(d)];
        if (product > 1 && size >= 0 && size % product != 0)
            error(at, what + " shards dimension " + std::to_string(d) + " of size " + std::to_string(size) + " on " +
                          dimAxesString(axes) + " (" + std::to_string(product) +
                          " shards): the size must be divisible by the number of shards");
    }
    for (const AxisRef& a : s.unreduced)
        if (isExplicit(a.name) && !a.sub)
            out->sharding.unreduced.push_back(a.name);
    return out;
}

const TensorSharding* Typer::constraintOutSharding(const ir::Value& result) const
{
    const TensorSharding* found = nullptr;
    for (const ir::Use& u : result.uses()) {
        if (u.user->name() != "sdy.sharding_constraint")
            return nullptr;
        const TensorSharding* s = ir::opSharding(*u.user);
        if (!s || (found && !(*found == *s)))
            return nullptr;
        found = s;
    }
    return found;
}

void Typer::run()
{
    m_result.meshName = m_options.meshName.empty() ? typerDefaultMesh(m_module) : m_options.meshName;
    if (const Mesh* mesh = m_module.findMesh(m_result.meshName))
        m_result.mesh = *mesh;
    m_result.axisTypes = readAxisTypes(m_module, m_result.meshName, m_options.axisTypes);
    for (size_t i = 0; i < m_result.axisTypes.axes.size(); ++i)
        m_context[m_result.axisTypes.axes[i]] = m_result.axisTypes.types[i];
    for (const auto& [axis, type] : m_options.axisTypes)
        if (!m_result.mesh.hasAxis(axis))
            m_result.diagnostics.warning(SourcePos{m_module.fileName, 0, 0}, "--axes names '" + axis +
                                                                                 "', which mesh @" + m_result.meshName +
                                                                                 " does not have");
    // Functions called privately are typed at their first call, from the caller's types.
    std::set<std::string> called;
    const_cast<ir::Op&>(m_module.op()).walk([&](ir::Op* op) {
        if (op->name() == "func.call")
            if (std::optional<std::string> callee = ir::calleeName(*op))
                called.insert(*callee);
    });
    for (const ir::Op* func : m_module.funcs()) {
        if (m_typedFuncs.count(func))
            continue;
        if (ir::isPrivateSymbol(*func) && called.count(ir::symbolName(*func)))
            continue;
        typeFunc(*func, nullptr);
    }
    for (const ir::Op* func : m_module.funcs()) // called only from code not typed (none normally)
        if (!m_typedFuncs.count(func))
            typeFunc(*func, nullptr);
}

void Typer::typeFunc(const ir::Op& func, const std::vector<const ExplicitType*>* callerTypes)
{
    m_typedFuncs.insert(&func);
    m_typing.insert(&func);
    const std::string savedFunc = m_func;
    m_func = "@" + ir::symbolName(func);
    if (func.numRegions() == 0 || func.region(0).empty()) {
        m_func = savedFunc;
        m_typing.erase(&func);
        return;
    }
    const ir::Block& body = func.region(0).front();
    for (unsigned i = 0; i < body.numArgs(); ++i) {
        const ir::Value* arg = body.arg(i);
        if (callerTypes && i < callerTypes->size() && (*callerTypes)[i]) {
            record(arg, *(*callerTypes)[i], "from the caller");
        } else if (const TensorSharding* s = ir::funcArgSharding(func, i)) {
            record(arg, fromSharding(*s, arg->type(), func, "the sharding of argument " + std::to_string(i)),
                   "annotation");
        } else {
            record(arg, unshardedOf(arg->type()), "");
        }
    }
    typeBlock(body);
    const ir::Op* ret = body.terminator();
    if (ret && ret->name() == "func.return") {
        for (unsigned i = 0; i < ret->numOperands(); ++i) {
            if (const TensorSharding* s = ir::funcResultSharding(func, i))
                recordFuncResult(
                    func, i,
                    fromSharding(*s, ret->operand(i)->type(), func, "the sharding of result " + std::to_string(i)),
                    "out sharding");
            else
                recordFuncResult(
                    func, i,
                    typeOf(ret->operand(i)) ? std::optional<ExplicitType>(*typeOf(ret->operand(i))) : std::nullopt, "");
        }
    }
    m_func = savedFunc;
    m_typing.erase(&func);
}

void Typer::typeBlock(const ir::Block& block)
{
    for (const auto& op : block.ops())
        typeOp(*op);
}

void Typer::typeOp(const ir::Op& op)
{
    const std::string& n = op.name();
    if (n == "func.return" || n == "stablehlo.return" || n == "sdy.return")
        return;
    if (n == "sdy.sharding_constraint" || n == "sdy.reshard") {
        const TensorSharding* s = ir::opSharding(op);
        for (unsigned i = 0; i < op.numResults(); ++i)
            record(op.result(i),
                   s ? fromSharding(*s, op.result(i)->type(), op, "the sharding of " + n)
                     : unshardedOf(op.result(i)->type()),
                   "reshard");
        return;
    }
    if (n == "stablehlo.if" || n == "stablehlo.case")
        return typeBranches(op);
    if (n == "stablehlo.while")
        return typeWhile(op);
    if (n == "func.call")
        return typeCall(op);
    if (n == "sdy.manual_computation")
        return typeManual(op);
    if (n == "sdy.named_computation")
        return typeNamed(op);
    typeGenericOp(op);
}

void Typer::typeNestedRegionsUnsharded(const ir::Op& op)
{
    for (const auto& region : op.regions())
        for (const auto& block : region->blocks()) {
            for (unsigned i = 0; i < block->numArgs(); ++i)
                record(block->arg(i), unshardedOf(block->arg(i)->type()), "");
            typeBlock(*block);
        }
}

void Typer::typeGenericOp(const ir::Op& op)
{
    typeNestedRegionsUnsharded(op);
    if (op.numResults() == 0)
        return;
    const std::vector<const ExplicitType*> operands = operandTypes(op);
    // An out sharding given on the op itself: the rule is not asked (JAX's `out_sharding=`).
    if (const ShardingPerValue* given = ir::resultShardings(op);
        given && given->shardings.size() == op.numResults() && op.dialect() != "sdy") {
        for (unsigned i = 0; i < op.numResults(); ++i)
            record(op.result(i),
                   fromSharding(given->shardings[i], op.result(i)->type(), op, "the out sharding of " + op.name()),
                   "out sharding");
        return;
    }
    RuleResult rule = applyExplicitRule(op, operands);
    std::string message = rule.error;
    if (message.empty())
        message = checkIllegalResults(op, operands, rule.results);
    std::string how;
    if (!message.empty()) {
        // JAX lowers `out_sharding=` as a sharding constraint right after the op: with one on
        // every result, the rule's error is JAX's to avoid, and the constraint gives the type.
        bool constrained = true;
        for (unsigned i = 0; i < op.numResults(); ++i)
            constrained = constrained && constraintOutSharding(*op.result(i)) != nullptr;
        if (constrained) {
            for (unsigned i = 0; i < op.numResults(); ++i)
                record(op.result(i),
                       fromSharding(*constraintOutSharding(*op.result(i)), op.result(i)->type(), op,
                                    "the out sharding of " + op.name()),
                       "out sharding (the sharding constraint on its result)");
            return;
        }
        error(op, message);
        how = "recovered after an error";
    }
    for (unsigned i = 0; i < op.numResults(); ++i) {
        const ir::Type& t = op.result(i)->type();
        if (!t.isRankedTensor())
            record(op.result(i), std::nullopt, "");
        else
            record(op.result(i), i < rule.results.size() ? restrictToExplicit(rule.results[i]) : *unshardedOf(t), how);
    }
}

void Typer::typeBranches(const ir::Op& op)
{
    // Each branch in order; the results' types are the types the branches agree on.
    std::vector<std::vector<std::optional<ExplicitType>>> returned;
    for (const auto& region : op.regions()) {
        if (region->empty())
            continue;
        const ir::Block& block = region->front();
        typeBlock(block);
        std::vector<std::optional<ExplicitType>> types;
        if (const ir::Op* ret = block.terminator())
            for (const ir::Value* v : ret->operands())
                types.push_back(typeOf(v) ? std::optional<ExplicitType>(*typeOf(v)) : std::nullopt);
        returned.push_back(types);
    }
    const std::vector<const ExplicitType*> operands = operandTypes(op);
    for (unsigned i = 0; i < op.numResults(); ++i) {
        std::optional<ExplicitType> type = unshardedOf(op.result(i)->type());
        std::string how;
        if (!returned.empty() && i < returned.front().size() && returned.front()[i])
            type = returned.front()[i];
        for (size_t b = 1; b < returned.size(); ++b) {
            if (i >= returned[b].size() || !returned[b][i] || !type || *returned[b][i] == *type)
                continue;
            error(op, primitiveName(op) + " operation's branches return different types for result " +
                          std::to_string(i) + ": " + type->toString() + " (branch 0) and " +
                          returned[b][i]->toString() + " (branch " + std::to_string(b) +
                          "); the sides of a cond must have matching shardings: reshard in a branch");
            how = "recovered after an error (branch 0's type)";
            break;
        }
        if (const ShardingPerValue* given = ir::resultShardings(op); given && i < given->shardings.size())
            record(op.result(i), fromSharding(given->shardings[i], op.result(i)->type(), op, "the out sharding"),
                   "out sharding");
        else
            record(op.result(i), type, how);
    }
}

void Typer::typeWhile(const ir::Op& op)
{
    const std::vector<const ExplicitType*> carried = operandTypes(op);
    for (const auto& region : op.regions()) {
        if (region->empty())
            continue;
        const ir::Block& block = region->front();
        for (unsigned i = 0; i < block.numArgs(); ++i)
            record(block.arg(i),
                   i < carried.size() && carried[i] ? std::optional<ExplicitType>(*carried[i])
                                                    : unshardedOf(block.arg(i)->type()),
                   "loop carry");
        typeBlock(block);
    }
    // The body (region 1) must return the carry as it entered.
    if (op.numRegions() > 1 && !op.region(1).empty())
        if (const ir::Op* ret = op.region(1).front().terminator())
            for (unsigned i = 0; i < ret->numOperands() && i < carried.size(); ++i) {
                const ExplicitType* out = typeOf(ret->operand(i));
                if (out && carried[i] && !(*out == *carried[i]))
                    error(*ret, "while operation's loop carry " + std::to_string(i) + " enters the body as " +
                                    carried[i]->toString() + " and leaves it as " + out->toString() +
                                    "; a loop carry must keep its sharding: reshard it at the end of the body");
            }
    for (unsigned i = 0; i < op.numResults(); ++i)
        record(op.result(i),
               i < carried.size() && carried[i] ? std::optional<ExplicitType>(*carried[i])
                                                : unshardedOf(op.result(i)->type()),
               "loop carry");
}

void Typer::typeCall(const ir::Op& op)
{
    const std::vector<const ExplicitType*> operands = operandTypes(op);
    const ir::Op* callee = m_module.findCallee(op);
    std::vector<std::optional<ExplicitType>> results(op.numResults());
    if (callee && !m_typing.count(callee)) {
        if (!m_typedFuncs.count(callee)) {
            typeFunc(*callee, &operands);
        } else if (callee->numRegions() && !callee->region(0).empty()) {
            const ir::Block& body = callee->region(0).front();
            for (unsigned i = 0; i < body.numArgs() && i < operands.size(); ++i) {
                const ExplicitType* declared = typeOf(body.arg(i));
                if (declared && operands[i] && !(*declared == *operands[i]))
                    error(op, "call of @" + ir::symbolName(*callee) + " passes " + operands[i]->toString() +
                                  " for argument " + std::to_string(i) + ", which @" + ir::symbolName(*callee) +
                                  " was typed with as " + declared->toString() +
                                  "; reshard the argument to the function's type");
            }
        }
        if (callee->numRegions() && !callee->region(0).empty())
            if (const ir::Op* ret = callee->region(0).front().terminator())
                for (unsigned i = 0; i < ret->numOperands() && i < results.size(); ++i) {
                    if (const TensorSharding* s = ir::funcResultSharding(*callee, i))
                        results[i] = fromSharding(*s, op.result(i)->type(), op, "the result sharding of the callee");
                    else if (const ExplicitType* t = typeOf(ret->operand(i)))
                        results[i] = *t;
                }
    }
    for (unsigned i = 0; i < op.numResults(); ++i)
        record(op.result(i), results[i] ? results[i] : unshardedOf(op.result(i)->type()), "");
}

void Typer::typeManual(const ir::Op& op)
{
    const ShardingPerValue* in = ir::inShardings(op);
    const ShardingPerValue* out = ir::outShardings(op);
    const std::vector<std::string>* manual = ir::manualAxes(op);
    const AxisContext outer = m_context;
    if (manual)
        for (const std::string& a : *manual)
            m_context[a] = AxisType::Manual;
    if (op.numRegions() && !op.region(0).empty()) {
        const ir::Block& body = op.region(0).front();
        for (unsigned i = 0; i < body.numArgs(); ++i)
            record(body.arg(i),
                   in && i < in->shardings.size() ? fromSharding(in->shardings[i], body.arg(i)->type(), op,
                                                                 "in_shardings entry " + std::to_string(i))
                                                  : unshardedOf(body.arg(i)->type()),
                   "shard_map argument (manual axes left out)");
        typeBlock(body);
    }
    m_context = outer;
    for (unsigned i = 0; i < op.numResults(); ++i)
        record(op.result(i),
               out && i < out->shardings.size() ? fromSharding(out->shardings[i], op.result(i)->type(), op,
                                                               "out_shardings entry " + std::to_string(i))
                                                : unshardedOf(op.result(i)->type()),
               "out sharding");
}

void Typer::typeNamed(const ir::Op& op)
{
    const std::string name = ir::computationName(op).value_or("");
    const bool autoAxes = name == "auto_axes";
    const bool explicitAxes = name == "explicit_axes";
    const ShardingPerValue* in = ir::inShardings(op);
    const ShardingPerValue* out = ir::outShardings(op);
    const AxisContext outer = m_context;
    if (autoAxes || explicitAxes) {
        // The axes switched: the `axes` attribute (names), all mesh axes without it.
        std::vector<std::string> axes;
        const ir::Attribute* attr = op.attr("axes");
        if (const auto* list = attr ? attr->as<ir::ArrayAttr>() : nullptr) {
            for (const auto& e : list->elements)
                if (std::optional<std::string> s = stablehlo::stringValue(e.get()))
                    axes.push_back(*s);
        } else if (std::optional<std::string> s = stablehlo::stringValue(attr)) {
            axes.push_back(*s);
        } else {
            for (const MeshAxis& a : m_result.mesh.axes())
                axes.push_back(a.name);
        }
        for (const std::string& a : axes) {
            if (!m_result.mesh.hasAxis(a))
                error(op, name + " names axis '" + a + "', which mesh @" + m_result.meshName + " does not have");
            else
                m_context[a] = autoAxes ? AxisType::Auto : AxisType::Explicit;
        }
    }
    const std::vector<const ExplicitType*> operands = operandTypes(op);
    if (op.numRegions() && !op.region(0).empty()) {
        const ir::Block& body = op.region(0).front();
        for (unsigned i = 0; i < body.numArgs(); ++i) {
            if (in && i < in->shardings.size())
                record(
                    body.arg(i),
                    fromSharding(in->shardings[i], body.arg(i)->type(), op, "in_shardings entry " + std::to_string(i)),
                    "in sharding");
            else if (i < operands.size() && operands[i])
                record(body.arg(i), restrictToExplicit(*operands[i]), autoAxes ? "operand, Auto axes left out" : "");
            else
                record(body.arg(i), unshardedOf(body.arg(i)->type()), "");
        }
        typeBlock(body);
    }
    const ir::Op* ret = op.numRegions() && !op.region(0).empty() ? op.region(0).front().terminator() : nullptr;
    std::vector<std::optional<ExplicitType>> returned(op.numResults());
    if (ret)
        for (unsigned i = 0; i < ret->numOperands() && i < returned.size(); ++i)
            if (const ExplicitType* t = typeOf(ret->operand(i)))
                returned[i] = *t;
    m_context = outer;
    if (autoAxes && (!out || out->shardings.size() != op.numResults()))
        error(op, "auto_axes needs out_shardings: its results leave the Auto region, and their types must be given "
                  "(out_shardings=...)");
    for (unsigned i = 0; i < op.numResults(); ++i) {
        if (out && i < out->shardings.size())
            record(
                op.result(i),
                fromSharding(out->shardings[i], op.result(i)->type(), op, "out_shardings entry " + std::to_string(i)),
                "out sharding");
        else if (returned[i])
            record(op.result(i), restrictToExplicit(*returned[i]), "");
        else
            record(op.result(i), unshardedOf(op.result(i)->type()), "");
    }
}

} // namespace

ExplicitResult typeModule(const ir::Module& module, const ExplicitOptions& options)
{
    ExplicitResult result;
    Typer(module, options, result).run();
    return result;
}

std::string printTypes(const ExplicitResult& result)
{
    std::string s = "mesh @" + result.meshName + ": " + result.axisTypes.toString(result.mesh) + "\n";
    for (size_t i = 0; i < result.axisTypes.axes.size(); ++i)
        s += "  " + result.axisTypes.axes[i] + ": " + axisTypeName(result.axisTypes.types[i]) + " (" +
             result.axisTypes.sources[i] + ")\n";
    for (const TypedValue& t : result.values) {
        s += t.func + " " + t.name;
        if (!t.opName.empty())
            s += " = " + t.opName;
        s += " : " + (t.type ? t.type->toString() : std::string("(no array type)"));
        if (!t.how.empty())
            s += "  [" + t.how + "]";
        s += "\n";
    }
    return s;
}

} // namespace shardx::explicit_
