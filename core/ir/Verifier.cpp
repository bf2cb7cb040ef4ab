// Module verifier: walk, func/op sharding attributes, rules, propagation edges (SDY.md 1, 6.6).
#include "core/ir/Verifier.h"

#include <algorithm>
#include <set>

#include "core/ir/OpRegistry.h"
#include "core/ir/VerifierInternal.h"
#include "core/mesh/MeshVerifier.h"
#include "core/sharding/RuleVerifier.h"

namespace shardx::ir {

namespace verifier {

bool opError(Context& ctx, const Op& op, const std::string& message, const Op* noteOp, const std::string& note)
{
    Diagnostic d{Severity::Error, op.pos, "'" + op.name() + "' op " + message, {}};
    if (noteOp)
        d.notes.push_back(Diagnostic{Severity::Note, noteOp->pos, note, {}});
    ctx.diags.add(std::move(d));
    return false;
}

std::vector<std::pair<std::string, const Op*>> enclosingManualAxes(const Op& op)
{
    std::vector<std::pair<std::string, const Op*>> out;
    for (const Op* p = op.parentOp(); p; p = p->parentOp()) {
        if (p->name() != "sdy.manual_computation")
            continue;
        if (const std::vector<std::string>* axes = manualAxes(*p))
            for (const std::string& axis : *axes)
                out.emplace_back(axis, p);
    }
    return out;
}

std::vector<std::string> manualAxisNames(const std::vector<std::pair<std::string, const Op*>>& bound)
{
    std::vector<std::string> names;
    for (const auto& [axis, op] : bound)
        names.push_back(axis);
    return names;
}

const Op* binderOf(const std::vector<std::pair<std::string, const Op*>>& bound, const std::string& axis)
{
    for (const auto& [name, op] : bound)
        if (name == axis)
            return op;
    return nullptr;
}

bool verifyShardingAt(Context& ctx, const Op& op, const TensorSharding& s, const Type* type,
                      const std::vector<std::pair<std::string, const Op*>>& bound, const std::string& prefix)
{
    const std::optional<TypeShape> shape = type ? std::optional<TypeShape>(type->typeShape()) : std::nullopt;
    std::optional<std::string> err =
        verifyTensorSharding(s, shape ? &*shape : nullptr, ctx.lookup(), manualAxisNames(bound));
    if (!err)
        return true;
    const Op* noteOp = nullptr;
    for (const AxisRef& a : allAxesOf(s))
        if ((noteOp = binderOf(bound, a.name)))
            break;
    if (noteOp && err->find("already bound by a parent") != std::string::npos)
        return opError(ctx, op, prefix + *err, noteOp, "parent bounding this axis as manual");
    return opError(ctx, op, prefix + *err);
}

static bool overlapsAny(const AxisRef& a, const std::vector<AxisRef>& list)
{
    return std::any_of(list.begin(), list.end(), [&](const AxisRef& b) { return overlaps(a, b); });
}

static bool listsOverlap(const std::vector<AxisRef>& x, const std::vector<AxisRef>& y)
{
    return std::any_of(x.begin(), x.end(), [&](const AxisRef& a) { return overlapsAny(a, y); });
}

std::optional<std::string> checkUnreducedTransition(Context& ctx, const TensorSharding* in, const TensorSharding& out,
                                                    std::optional<ReductionKind> introduce, RemovePolicy remove)
{
    const Mesh* outMesh = ctx.resolve(out.mesh);
    if (!outMesh)
        return std::nullopt;
    static const std::vector<AxisRef> kNone;
    const std::vector<AxisRef>& uIn = in ? in->unreduced : kNone;
    if (in) {
        const Mesh* inMesh = ctx.resolve(in->mesh);
        if (!inMesh || !(*inMesh == *outMesh))
            return std::nullopt;
    }
    const std::vector<AxisRef> introduced = axisListDifference(out.unreduced, uIn, *outMesh);
    if (!introduced.empty()) {
        if (!introduce)
            return "cannot add new unreduced axis " + introduced.front().toString() + ".";
        if (listsOverlap(out.unreduced, introduced) && out.unreducedKind != *introduce)
            return std::string("cannot introduce '") + reductionKindName(out.unreducedKind) +
                   "' unreduced axes. Expected '" + reductionKindName(*introduce) + "'.";
    }
    const std::vector<AxisRef> removed = axisListDifference(uIn, out.unreduced, *outMesh);
    if (!removed.empty()) {
        if (!remove.allowed)
            return "dropped unreduced axis " + removed.front().toString() + " without a blessed operation";
        if (remove.kind && listsOverlap(uIn, removed) && in->unreducedKind != *remove.kind)
            return std::string("cannot reduce '") + reductionKindName(in->unreducedKind) +
                   "' unreduced axes. Expected '" + reductionKindName(*remove.kind) + "'.";
    }
    if (in && in->unreducedKind != out.unreducedKind && listsOverlap(out.unreduced, uIn))
        return std::string("cannot change the reduction operator of kept unreduced axes from ") +
               reductionKindName(in->unreducedKind) + " to " + reductionKindName(out.unreducedKind) + ".";
    return std::nullopt;
}

} // namespace verifier

using namespace verifier;

namespace {

std::string nodeString(const EdgeNode& n)
{
    return std::string(n.isResult ? "result-" : "operand-") + std::to_string(n.index);
}

/// Attribute-level checks of a propagation_edges value (SDY.md 1.9).
std::optional<std::string> verifyEdgesAttr(const PropagationEdgesAttr& edges)
{
    std::set<int64_t> steps;
    for (const PropagationEdgeStep& step : edges.steps) {
        if (step.step < 0)
            return "propagation edges have a negative step index: " + std::to_string(step.step);
        if (!steps.insert(step.step).second)
            return "propagation edges have duplicate step index: " + std::to_string(step.step);
        for (const PropagationEdgeEntry& e : step.entries) {
            for (size_t i = 0; i < e.targets.size(); ++i) {
                if (e.targets[i] == e.source)
                    return std::string("propagation edges have a source that is the same as a target");
                for (size_t j = 0; j < i; ++j)
                    if (e.targets[j] == e.targets[i])
                        return "propagation edges have duplicate targets for step index: " + std::to_string(step.step) +
                               " and axis: " + e.axis.name;
            }
        }
    }
    return std::nullopt;
}

/// `sdy.propagation_edges` attached to `op`: attribute checks plus the op-level ones.
bool verifyOpEdges(Context& ctx, const Op& op, const PropagationEdgesAttr& edges)
{
    if (auto err = verifyEdgesAttr(edges))
        return opError(ctx, op, *err);
    const bool checkRange = op.name() != "sdy.func_data_flow_edge";
    std::vector<EdgeNode> nodes;
    for (const PropagationEdgeStep& step : edges.steps)
        for (const PropagationEdgeEntry& e : step.entries) {
            nodes.push_back(e.source);
            nodes.insert(nodes.end(), e.targets.begin(), e.targets.end());
        }
    if (checkRange)
        for (const EdgeNode& n : nodes) {
            const int64_t limit = n.isResult ? op.numResults() : op.numOperands();
            if (n.index < 0 || n.index >= limit)
                return opError(ctx, op,
                               std::string("expected a value ref to have ") + (n.isResult ? "a result" : "an operand") +
                                   " index in range [0, " + std::to_string(limit) +
                                   "), got: " + std::to_string(n.index));
        }
    const Mesh* mesh = nullptr;
    bool found = false;
    for (const EdgeNode& n : nodes) {
        const int64_t limit = n.isResult ? op.numResults() : op.numOperands();
        if (n.index < 0 || n.index >= limit)
            continue;
        const Value* v =
            n.isResult ? op.result(static_cast<unsigned>(n.index)) : op.operand(static_cast<unsigned>(n.index));
        const TensorSharding* s = shardingOfValue(v);
        if (!s)
            continue;
        const Mesh* m = ctx.resolve(s->mesh);
        if (!m)
            continue;
        if (found && !(*m == *mesh))
            return opError(ctx, op,
                           "propagation edges reference shardings bound to different meshes (" + nodeString(n) + ")");
        mesh = m;
        found = true;
    }
    if (!found)
        return opError(ctx, op, "expected propagation edges attr to reference a sharding");
    for (const PropagationEdgeStep& step : edges.steps)
        for (const PropagationEdgeEntry& e : step.entries)
            if (!mesh->hasAxis(e.axis.name))
                return opError(ctx, op, "propagation edges reference unknown axis name: " + quoteString(e.axis.name));
    return true;
}

/// Discardable `sdy.*` attributes that are verified on any op (SDY.md 1.6).
bool verifyOpSdyAttrs(Context& ctx, const Op& op)
{
    const std::vector<std::pair<std::string, const Op*>> bound = enclosingManualAxes(op);
    if (const Attribute* a = findAttr(op.attrs(), kSdyShardingAttr)) {
        const ShardingPerValueAttr* list = a->as<ShardingPerValueAttr>();
        if (!list)
            return opError(ctx, op, "should have a sharding attribute of type TensorShardingPerValueAttr");
        const auto& shardings = list->value.shardings;
        const size_t n = op.numResults();
        if (n == 0 && shardings.size() == 1) {
            const Mesh* m = ctx.resolve(shardings[0].mesh);
            if (!shardings[0].mesh.isInline() && !m)
                return opError(ctx, op, "result - unknown mesh: " + symbolRefString(shardings[0].mesh.symbol));
            if (!(m && m->isMaximal()) && shardings[0].hasDimAxes())
                return opError(ctx, op, "result shardings don't match number of values: 1 shardings vs 0 values");
            if (!verifyShardingAt(ctx, op, shardings[0], nullptr, bound, "result - "))
                return false;
        } else {
            if (shardings.size() != n)
                return opError(ctx, op,
                               "result shardings don't match number of values: " + std::to_string(shardings.size()) +
                                   " shardings vs " + std::to_string(n) + " values");
            for (size_t i = 0; i < n; ++i) {
                const std::string prefix = n == 1 ? "result - " : "result " + std::to_string(i) + " - ";
                if (!verifyShardingAt(ctx, op, shardings[i], &op.result(static_cast<unsigned>(i))->type(), bound,
                                      prefix))
                    return false;
            }
        }
    }
    if (const Attribute* a = findAttr(op.attrs(), kShardingRuleAttr)) {
        const OpShardingRuleAttr* r = a->as<OpShardingRuleAttr>();
        if (!r)
            return opError(ctx, op,
                           "should have a sharding rule attribute of type OpShardingRuleAttr for attr named "
                           "'sdy.sharding_rule'");
        if (auto err = verifyOpShardingRule(r->rule, operandTypeShapes(op), resultTypeShapes(op)))
            return opError(ctx, op, *err);
    }
    if (const Attribute* a = findAttr(op.attrs(), kPropagationEdgesAttr)) {
        const PropagationEdgesAttr* e = a->as<PropagationEdgesAttr>();
        if (!e)
            return opError(ctx, op,
                           "should have a propagation edges attribute of type PropagationEdgesAttr for attr named "
                           "'sdy.propagation_edges'");
        if (!verifyOpEdges(ctx, op, *e))
            return false;
    }
    for (const char* name : {kResultPropagationEdgesAttr, kBlockArgPropagationEdgesAttr}) {
        const Attribute* a = findAttr(op.attrs(), name);
        if (!a)
            continue;
        const ArrayAttr* arr = a->as<ArrayAttr>();
        bool ok = arr != nullptr;
        if (arr)
            for (const AttrPtr& el : arr->elements)
                ok = ok && el && el->is<PropagationEdgesAttr>();
        if (!ok)
            return opError(ctx, op,
                           "should have a propagation edges attribute of type ArrayAttr<PropagationEdgesAttr> for "
                           "attr named 'sdy.result_propagation_edges' or 'sdy.block_arg_propagation_edges'");
        for (const AttrPtr& el : arr->elements)
            if (auto err = verifyEdgesAttr(*el->as<PropagationEdgesAttr>()))
                return opError(ctx, op, *err);
    }
    return true;
}

/// Argument / result `sdy.sharding` attributes of a func.func (SDY.md 1.6).
bool verifyFunc(Context& ctx, const Op& func)
{
    const Type ft = funcType(func);
    for (int isResult = 0; isResult < 2; ++isResult) {
        const std::vector<Type>& types = isResult ? ft.results() : ft.elements();
        for (unsigned i = 0; i < types.size(); ++i) {
            const Attribute* a =
                isResult ? funcResultAttr(func, i, kSdyShardingAttr) : funcArgAttr(func, i, kSdyShardingAttr);
            if (!a)
                continue;
            const std::string prefix = std::string(isResult ? "result " : "arg ") + std::to_string(i) + " - ";
            const ShardingAttr* s = a->as<ShardingAttr>();
            if (!s)
                return opError(ctx, func, prefix + "should have a sharding attribute of type TensorShardingAttr");
            if (!verifyShardingAt(ctx, func, s->sharding, &types[i], {}, prefix))
                return false;
        }
    }
    return true;
}

/// `func.return` against the enclosing function's type.
bool verifyReturn(Context& ctx, const Op& op)
{
    const Op* func = op.parentOp();
    if (!func || func->name() != "func.func")
        return true;
    const Type ft = funcType(*func);
    if (ft.kind() != Type::Kind::Function)
        return true;
    const std::string fname = symbolRefString(symbolName(*func));
    if (op.numOperands() != ft.results().size())
        return opError(ctx, op,
                       "has " + std::to_string(op.numOperands()) + " operands, but enclosing function (" + fname +
                           ") returns " + std::to_string(ft.results().size()));
    for (unsigned i = 0; i < op.numOperands(); ++i)
        if (op.operand(i)->type() != ft.results()[i])
            return opError(ctx, op,
                           "type of return operand " + std::to_string(i) + " ('" + op.operand(i)->type().toString() +
                               "') doesn't match function result type ('" + ft.results()[i].toString() +
                               "') in function " + fname);
    return true;
}

bool verifyCall(Context& ctx, const Op& op)
{
    const SymbolRefAttr* ref = calleeRef(op);
    if (!ref)
        return opError(ctx, op, "requires a 'callee' symbol reference attribute");
    if (!ctx.module.findFunc(ref->path.front()))
        return opError(ctx, op, "'" + symbolRefString(ref->path.front()) + "' does not reference a valid function");
    return true;
}

bool verifyOp(Context& ctx, const Op& op)
{
    const std::string& name = op.name();
    // An op of a registered dialect that the dialect does not define (written in generic form).
    const OpRegistry& reg = OpRegistry::instance();
    // Viewer tolerance keeps it (as written, or in generic form): nothing of it is known to check.
    const bool kept = ctx.allowUnknownOps || op.opaqueSyntax();
    if (!kept && reg.isRegisteredDialect(op.dialect()) && !reg.allowsUnknownOps(op.dialect()) && !reg.lookup(name)) {
        ctx.diags.add(Diagnostic{Severity::Error,
                                 op.pos,
                                 "unregistered operation '" + name + "' found in dialect ('" + op.dialect() +
                                     "') that does not allow unknown operations",
                                 {}});
        return false;
    }
    if (!verifyOpSignature(ctx, op))
        return false;
    if (name == "func.func" && !verifyFunc(ctx, op))
        return false;
    if (name == "func.return" && !verifyReturn(ctx, op))
        return false;
    if (name == "func.call" && !verifyCall(ctx, op))
        return false;
    if (op.dialect() == "sdy") {
        if (isCollectiveOp(name)) {
            if (!verifyCollective(ctx, op))
                return false;
        } else if (!verifySdyOp(ctx, op)) {
            return false;
        }
    }
    return verifyOpSdyAttrs(ctx, op);
}

bool verifyRecursive(Context& ctx, const Op& op)
{
    if (!verifyOp(ctx, op))
        return false;
    bool ok = true;
    for (const auto& region : op.regions())
        for (const auto& block : region->blocks()) {
            if (!verifyBlockEntry(ctx, op, *region, *block))
                return false;
            for (const auto& nested : block->ops())
                if (!verifyRecursive(ctx, *nested)) {
                    ok = false;
                    if (!ctx.everyOp)
                        return false;
                }
            if (ok && !verifyBlockExit(ctx, op, *region, *block))
                return false;
        }
    return ok;
}

} // namespace

bool verifyModule(const Module& module, DiagnosticList& diags, VerifyScope scope)
{
    VerifyOptions options;
    options.scope = scope;
    return verifyModule(module, diags, options);
}

bool verifyModule(const Module& module, DiagnosticList& diags, const VerifyOptions& options)
{
    Context ctx{module, diags, options.scope == VerifyScope::EveryOp, options.allowUnknownOps};
    // Symbols of the module body: meshes must be unique (and functions too).
    std::set<std::string> symbols;
    for (const auto& op : module.body().ops()) {
        const std::string sym = symbolName(*op);
        if ((op->name() == "sdy.mesh" || op->name() == "func.func") && !sym.empty() && !symbols.insert(sym).second)
            return opError(ctx, *op, "redefinition of symbol named '" + sym + "'");
        if (op->name() == "sdy.mesh") {
            const Mesh* m = meshOpMesh(*op);
            if (!m)
                return opError(ctx, *op, "requires a mesh attribute");
            if (auto err = verifyMesh(*m))
                return opError(ctx, *op, *err);
        }
    }
    bool ok = true;
    for (const auto& op : module.body().ops())
        if (!verifyRecursive(ctx, *op)) {
            ok = false;
            if (!ctx.everyOp)
                return false;
        }
    return ok;
}

} // namespace shardx::ir
