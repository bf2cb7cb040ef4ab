// sdy-verify-unreduced-axes (PipelineSteps.h, SDY.md 3.7.11), with the verifier's unreduced transition check T.
#include <functional>
#include <unordered_map>

#include "core/ir/OpRegistry.h"
#include "core/ir/Verifier.h"
#include "core/ir/VerifierInternal.h"
#include "core/propagation/PipelineSteps.h"
#include "core/propagation/ValueSharding.h"

namespace shardx {

using ir::Op;
using ir::Value;
using ir::verifier::checkUnreducedTransition;
using ir::verifier::RemovePolicy;

namespace {

/// The sharding of an operand, none when it comes (through barriers) from a reshard/constraint
/// (`storage` holds it when it is not stored as is).
const TensorSharding* unreducedOperandShardingRef(const Value* v, std::optional<TensorSharding>& storage)
{
    static const ir::OperationName kBarrier("sdy.propagation_barrier"), kReshard("sdy.reshard"),
        kConstraint("sdy.sharding_constraint");
    const Value* cur = v;
    while (!cur->isBlockArgument() && cur->definingOp()->opName() == kBarrier && cur->definingOp()->numOperands() == 1)
        cur = cur->definingOp()->operand(0);
    if (!cur->isBlockArgument()) {
        const ir::OperationName n = cur->definingOp()->opName();
        if (n == kReshard || n == kConstraint)
            return nullptr;
    }
    return getShardingRef(v, storage);
}

std::optional<TensorSharding> operandSharding(const Value* v)
{
    std::optional<TensorSharding> storage;
    const TensorSharding* s = unreducedOperandShardingRef(v, storage);
    return s ? std::optional<TensorSharding>(*s) : std::nullopt;
}

/// The reduction kind of a reducer body: every returned value an add/max/min of one kind.
std::optional<ReductionKind> bodyKind(const Op& op)
{
    if (op.numRegions() == 0 || op.region(0).empty())
        return std::nullopt;
    const Op* term = op.region(0).blocks().front()->terminator();
    if (!term || term->numOperands() == 0)
        return std::nullopt;
    std::optional<ReductionKind> kind;
    for (const Value* v : term->operands()) {
        const Op* def = v->definingOp();
        if (!def)
            return std::nullopt;
        ReductionKind k;
        if (def->name() == "stablehlo.add")
            k = ReductionKind::Sum;
        else if (def->name() == "stablehlo.maximum")
            k = ReductionKind::Max;
        else if (def->name() == "stablehlo.minimum")
            k = ReductionKind::Min;
        else
            return std::nullopt;
        if (kind && *kind != k)
            return std::nullopt;
        kind = k;
    }
    return kind;
}

class UnreducedVerifier {
public:
    UnreducedVerifier(ir::Module& m, DiagnosticList& d) : m_module(m), m_diags(d), m_ctx{m, d} {}

    /// False after reporting the first error.
    bool verifyOp(Op& op)
    {
        // Asked of every op: names compared as interned pointers.
        static const ir::OperationName kReshard("sdy.reshard"), kConstraint("sdy.sharding_constraint"),
            kFunc("func.func"), kReduce("stablehlo.reduce"), kDot("stablehlo.dot"),
            kDotGeneral("stablehlo.dot_general"), kSdyAllReduce("sdy.all_reduce"),
            kSdyReduceScatter("sdy.reduce_scatter"), kAllReduce("stablehlo.all_reduce"),
            kReduceScatter("stablehlo.reduce_scatter"), kCall("func.call");
        const ir::OperationName n = op.opName();
        if (n == kReshard || n == kConstraint || n == kFunc)
            return true;
        if (n == kReduce) {
            const unsigned inputs = op.numOperands() / 2;
            for (unsigned i = 0; i < inputs && i < op.numResults(); ++i)
                if (!transition(op, op.operand(i), op.result(i), bodyKind(op), RemovePolicy{false, std::nullopt}))
                    return false;
            return true;
        }
        if (n == kDot || n == kDotGeneral) {
            for (Value* v : op.operands())
                if (!transition(op, v, op.result(0), ReductionKind::Sum, RemovePolicy{false, std::nullopt}))
                    return false;
            return true;
        }
        if (n == kSdyAllReduce || n == kSdyReduceScatter) {
            if (!getSharding(op.operand(0)))
                return fail(op, "operand must be sharded.");
            return true;
        }
        if (n == kAllReduce || n == kReduceScatter) {
            for (unsigned i = 0; i < op.numOperands() && i < op.numResults(); ++i)
                if (!transition(op, op.operand(i), op.result(i), std::nullopt, RemovePolicy{true, bodyKind(op)}))
                    return false;
            return true;
        }
        if (n == kCall)
            return verifyCall(op);
        if (isTerminator(n))
            return verifyTerminator(op);
        for (Value* operand : op.operands())
            for (const auto& result : op.results())
                if (!transition(op, operand, result.get(), ReductionKind::Sum, RemovePolicy{false, std::nullopt}))
                    return false;
        return true;
    }

private:
    /// The registry's answer, remembered per kind of op.
    bool isTerminator(const ir::OperationName& n)
    {
        auto [it, inserted] = m_isTerminator.try_emplace(&n.str(), false);
        if (inserted) {
            const ir::OpInfo* info = ir::OpRegistry::instance().lookup(n.str());
            it->second = info && info->isTerminator;
        }
        return it->second;
    }

    bool fail(const Op& op, const std::string& message)
    {
        SourcePos pos = op.pos;
        if (pos.file.empty())
            pos.file = m_module.fileName;
        m_diags.error(pos, "'" + op.name() + "' op " + message);
        return false;
    }

    bool check(const Op& op, const TensorSharding* in, const TensorSharding* out,
               std::optional<ReductionKind> introduce, RemovePolicy remove)
    {
        // Without unreduced axes on either side there is no transition to check.
        if (!out || (out->unreduced.empty() && (!in || in->unreduced.empty())))
            return true;
        if (auto err = checkUnreducedTransition(m_ctx, in, *out, introduce, remove))
            return fail(op, *err);
        return true;
    }

    bool check(const Op& op, const std::optional<TensorSharding>& in, const std::optional<TensorSharding>& out,
               std::optional<ReductionKind> introduce, RemovePolicy remove)
    {
        return check(op, in ? &*in : nullptr, out ? &*out : nullptr, introduce, remove);
    }

    bool transition(const Op& op, const Value* operand, const Value* result, std::optional<ReductionKind> introduce,
                    RemovePolicy remove)
    {
        // Read in place: the common op result holds its sharding as is.
        std::optional<TensorSharding> inStorage, outStorage;
        const TensorSharding* in = unreducedOperandShardingRef(operand, inStorage);
        return check(op, in, getShardingRef(result, outStorage), introduce, remove);
    }

    static std::vector<AxisRef> unreducedOf(const std::optional<TensorSharding>& s)
    {
        return s ? s->unreduced : std::vector<AxisRef>{};
    }

    static std::vector<AxisRef> unreducedOf(const TensorSharding* s)
    {
        return s ? s->unreduced : std::vector<AxisRef>{};
    }

    bool verifyCall(const Op& call)
    {
        const std::string calleeName = ir::calleeName(call).value_or(std::string());
        Op* callee = m_module.findFunc(calleeName);
        if (!callee)
            return true;
        for (unsigned i = 0; i < call.numOperands(); ++i) {
            std::vector<AxisRef> a = unreducedOf(operandSharding(call.operand(i)));
            std::vector<AxisRef> b = unreducedOf(ir::funcArgSharding(*callee, i));
            if (a != b)
                return fail(call, "has unreduced axes mismatch for '" + calleeName + "' at call argument " +
                                      std::to_string(i) + ".");
        }
        for (unsigned i = 0; i < call.numResults(); ++i) {
            std::vector<AxisRef> a = unreducedOf(ir::funcResultSharding(*callee, i));
            std::vector<AxisRef> b = unreducedOf(getSharding(call.result(i)));
            if (a != b)
                return fail(call, "has unreduced axes mismatch for '" + calleeName + "' at call result " +
                                      std::to_string(i) + ".");
        }
        return true;
    }

    /// Ops whose region is a computation on scalars (a reducer, a comparator, a scatter's update)
    /// rather than a body whose returns become the op's results.
    static bool isComputationBody(const Op& parent)
    {
        static const char* const kNames[] = {
            "stablehlo.reduce", "stablehlo.reduce_window", "stablehlo.scatter",        "stablehlo.select_and_scatter",
            "stablehlo.sort",   "stablehlo.all_reduce",    "stablehlo.reduce_scatter", "stablehlo.map"};
        for (const char* n : kNames)
            if (parent.name() == n)
                return true;
        return false;
    }

    bool verifyTerminator(const Op& term)
    {
        Op* parent = term.parentOp();
        if (!parent)
            return true;
        if (term.name() == "func.return") {
            for (unsigned i = 0; i < term.numOperands(); ++i) {
                const TensorSharding* out = ir::funcResultSharding(*parent, i);
                std::optional<TensorSharding> storage;
                if (out && !check(term, unreducedOperandShardingRef(term.operand(i), storage), out, ReductionKind::Sum,
                                  RemovePolicy{false, std::nullopt}))
                    return false;
            }
            return true;
        }
        if (term.numOperands() != parent->numResults() || isComputationBody(*parent))
            return true;
        const bool manual = parent->name() == "sdy.manual_computation";
        for (unsigned i = 0; i < term.numOperands(); ++i) {
            std::optional<TensorSharding> out = getSharding(parent->result(i));
            if (out && manual)
                out = eraseManualAxes(*out, manualAxesOf(*parent));
            if (!check(term, operandSharding(term.operand(i)), out, ReductionKind::Sum,
                       RemovePolicy{false, std::nullopt}))
                return false;
        }
        return true;
    }

    ir::Module& m_module;
    DiagnosticList& m_diags;
    ir::verifier::Context m_ctx;
    std::unordered_map<const std::string*, bool> m_isTerminator;
};

bool walkPostOrder(Op& op, const std::function<bool(Op&)>& fn)
{
    for (const auto& region : op.regions())
        for (const auto& block : region->blocks())
            for (const auto& child : block->ops())
                if (!walkPostOrder(*child, fn))
                    return false;
    return fn(op);
}

} // namespace

bool verifyUnreducedAxes(ir::Module& module, DiagnosticList& diags)
{
    UnreducedVerifier verifier(module, diags);
    for (Op* func : module.funcs())
        if (!walkPostOrder(*func, [&](Op& op) { return verifier.verifyOp(op); }))
            return false;
    return true;
}

} // namespace shardx
