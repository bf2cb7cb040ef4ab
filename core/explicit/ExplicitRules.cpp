// ExplicitRules: the per-op rules of JAX's explicit sharding mode (seed 001), op by op.
#include "core/explicit/ExplicitRules.h"

#include <algorithm>
#include <set>

#include "core/ir/OpRegistry.h"
#include "core/ir/StablehloAttrs.h"

namespace shardx::explicit_ {

namespace {

/// The unsharded type of result `i` of `op` (a rank-0 placeholder for a result that is no
/// ranked tensor).
ExplicitType ruleResultType(const ir::Op& op, unsigned i)
{
    const ir::Type& t = op.result(i)->type();
    if (!t.isRankedTensor())
        return unshardedType(t.isTensor() ? t.elementType() : t.toString(), {});
    return unshardedType(t.elementType(), t.shape());
}

std::vector<ExplicitType> ruleUnshardedResults(const ir::Op& op)
{
    std::vector<ExplicitType> out;
    for (unsigned i = 0; i < op.numResults(); ++i)
        out.push_back(ruleResultType(op, i));
    return out;
}

std::string ruleDimText(const DimAxes& d) { return d.empty() ? std::string("None") : dimAxesString(d); }

/// The start of every error: `add operation with inputs: i32[4@X,4], i32[4,4@X]`.
std::string ruleHead(const ir::Op& op, const std::vector<const ExplicitType*>& operands)
{
    return primitiveName(op) + " operation with inputs: " + operandTypesText(operands);
}

const char* const kAskOutSharding =
    "give it an explicit out sharding (`out_sharding=`: an `sdy.sharding` on the op, or a sharding constraint "
    "that is its result's only use)";

/// JAX's "consensus" of the input dimensions one output dimension corresponds to: None when all
/// are None, the common non-None sharding, else a conflict (false).
bool ruleConsensus(const std::vector<const DimAxes*>& inputs, DimAxes& out)
{
    out.clear();
    for (const DimAxes* d : inputs) {
        if (!d || d->empty())
            continue;
        if (out.empty())
            out = *d;
        else if (out != *d)
            return false;
    }
    return true;
}

/// Unreduced (reduced) axes all operands agree on; false when they differ.
bool ruleSameUnreduced(const std::vector<const ExplicitType*>& ops, std::vector<std::string>& unreduced,
                       std::vector<std::string>& reduced)
{
    bool first = true;
    for (const ExplicitType* t : ops) {
        if (!t)
            continue;
        if (first) {
            unreduced = t->sharding.unreduced;
            reduced = t->sharding.reduced;
            first = false;
        } else if (unreduced != t->sharding.unreduced || reduced != t->sharding.reduced) {
            return false;
        }
    }
    return true;
}

/// Element-wise ops: dimensions are zipped (operands of the result's rank; a rank-0 operand of
/// select or clamp is a scalar that zips with nothing).
RuleResult ruleElementwise(const ir::Op& op, const std::vector<const ExplicitType*>& operands)
{
    RuleResult r;
    r.results = ruleUnshardedResults(op);
    std::vector<const ExplicitType*> zipped;
    for (const ExplicitType* t : operands)
        if (t && t->rank() == r.results.front().rank())
            zipped.push_back(t);
    ExplicitType& out = r.results.front();
    for (int d = 0; d < out.rank(); ++d) {
        std::vector<const DimAxes*> dims;
        for (const ExplicitType* t : zipped)
            dims.push_back(&t->sharding.dims[static_cast<size_t>(d)]);
        DimAxes axes;
        if (!ruleConsensus(dims, axes)) {
            std::string list;
            for (const DimAxes* x : dims)
                list += (list.empty() ? "" : " and ") + ruleDimText(*x);
            r.error = ruleHead(op, operands) + " has incompatible shardings on the zipped dimension " +
                      std::to_string(d) + " (" + list +
                      "): zipped dimensions must be sharded alike or be None; reshard an input, or " + kAskOutSharding;
            continue; // recovered unsharded
        }
        out.sharding.dims[static_cast<size_t>(d)] = axes;
    }
    if (!ruleSameUnreduced(zipped, out.sharding.unreduced, out.sharding.reduced)) {
        out.sharding.unreduced.clear();
        out.sharding.reduced.clear();
        if (r.error.empty())
            r.error = ruleHead(op, operands) +
                      " mixes operands with different unreduced (or reduced) axes; reshard an input, or " +
                      kAskOutSharding;
    }
    for (size_t i = 1; i < r.results.size(); ++i)
        r.results[i].sharding = out.sharding;
    return r;
}

RuleResult ruleBroadcastInDim(const ir::Op& op, const ExplicitType& in)
{
    RuleResult r;
    r.results = ruleUnshardedResults(op);
    ExplicitType& out = r.results.front();
    const std::vector<int64_t> dims =
        stablehlo::intList(op.attr("broadcast_dimensions")).value_or(std::vector<int64_t>{});
    for (size_t i = 0; i < dims.size() && static_cast<int>(i) < in.rank(); ++i) {
        const int64_t d = dims[i];
        if (d < 0 || d >= out.rank())
            continue;
        // A size-1 dimension broadcast to a larger one is new data along it: unsharded.
        if (in.shape[i] == out.shape[static_cast<size_t>(d)])
            out.sharding.dims[static_cast<size_t>(d)] = in.sharding.dims[i];
    }
    out.sharding.unreduced = in.sharding.unreduced;
    out.sharding.reduced = in.sharding.reduced;
    return r;
}

RuleResult ruleTranspose(const ir::Op& op, const ExplicitType& in)
{
    RuleResult r;
    r.results = ruleUnshardedResults(op);
    ExplicitType& out = r.results.front();
    const std::vector<int64_t> perm = stablehlo::transposePermutation(op).value_or(std::vector<int64_t>{});
    for (size_t i = 0; i < perm.size() && static_cast<int>(i) < out.rank(); ++i)
        if (perm[i] >= 0 && perm[i] < in.rank())
            out.sharding.dims[i] = in.sharding.dims[static_cast<size_t>(perm[i])];
    out.sharding.unreduced = in.sharding.unreduced;
    out.sharding.reduced = in.sharding.reduced;
    return r;
}

/// stablehlo.reduce: results keep the inputs' kept dimensions (the inputs agreeing on each);
/// reduced dimensions disappear (the compiler reduces over their axes).
RuleResult ruleReduce(const ir::Op& op, const std::vector<const ExplicitType*>& operands)
{
    RuleResult r;
    r.results = ruleUnshardedResults(op);
    const size_t n = op.numResults();
    std::vector<int64_t> reduced = stablehlo::intList(op.attr("dimensions")).value_or(std::vector<int64_t>{});
    std::vector<const ExplicitType*> inputs(operands.begin(),
                                            operands.begin() + static_cast<long>(std::min(n, operands.size())));
    if (inputs.empty() || !inputs.front())
        return r;
    const int rank = inputs.front()->rank();
    TypeSharding kept;
    for (int d = 0; d < rank; ++d) {
        if (std::find(reduced.begin(), reduced.end(), d) != reduced.end())
            continue;
        std::vector<const DimAxes*> dims;
        for (const ExplicitType* t : inputs)
            if (t && t->rank() == rank)
                dims.push_back(&t->sharding.dims[static_cast<size_t>(d)]);
        DimAxes axes;
        if (!ruleConsensus(dims, axes))
            r.error = ruleHead(op, operands) + " has inputs sharded differently on dimension " + std::to_string(d) +
                      "; reshard an input, or " + kAskOutSharding;
        kept.dims.push_back(axes);
    }
    ruleSameUnreduced(inputs, kept.unreduced, kept.reduced);
    for (ExplicitType& out : r.results)
        if (out.rank() == static_cast<int>(kept.dims.size()))
            out.sharding = kept;
    return r;
}

/// dot_general: result = batch dimensions, lhs free, rhs free (StableHLO's order).
RuleResult ruleDotGeneral(const ir::Op& op, const std::vector<const ExplicitType*>& operands,
                          const stablehlo::DotDimensionNumbers& dn)
{
    RuleResult r;
    r.results = ruleUnshardedResults(op);
    const ExplicitType& lhs = *operands[0];
    const ExplicitType& rhs = *operands[1];
    ExplicitType& out = r.results.front();
    auto dimOf = [](const ExplicitType& t, int64_t d) -> const DimAxes* {
        return d >= 0 && d < t.rank() ? &t.sharding.dims[static_cast<size_t>(d)] : nullptr;
    };
    std::vector<DimAxes> dims;
    for (size_t i = 0; i < dn.lhsBatching.size() && i < dn.rhsBatching.size(); ++i) {
        const DimAxes* l = dimOf(lhs, dn.lhsBatching[i]);
        const DimAxes* rr = dimOf(rhs, dn.rhsBatching[i]);
        DimAxes axes;
        if (!ruleConsensus({l, rr}, axes) && r.error.empty())
            r.error = ruleHead(op, operands) + " has batch dimensions sharded differently (lhs dimension " +
                      std::to_string(dn.lhsBatching[i]) + " on " + ruleDimText(*l) + ", rhs dimension " +
                      std::to_string(dn.rhsBatching[i]) + " on " + ruleDimText(*rr) + "); reshard an input, or " +
                      kAskOutSharding;
        dims.push_back(axes);
    }
    for (size_t i = 0; i < dn.lhsContracting.size() && i < dn.rhsContracting.size(); ++i) {
        const DimAxes* l = dimOf(lhs, dn.lhsContracting[i]);
        const DimAxes* rr = dimOf(rhs, dn.rhsContracting[i]);
        if (l && rr && !l->empty() && !rr->empty() && r.error.empty())
            r.error = ruleHead(op, operands) + " contracts dimensions sharded on both sides (lhs dimension " +
                      std::to_string(dn.lhsContracting[i]) + " on " + ruleDimText(*l) + ", rhs dimension " +
                      std::to_string(dn.rhsContracting[i]) + " on " + ruleDimText(*rr) +
                      "): it is ambiguous how the output should be sharded; " + kAskOutSharding +
                      ", or reshard an input so that the dot is conflict free";
    }
    auto free = [&](const ExplicitType& t, const std::vector<int64_t>& batch, const std::vector<int64_t>& contract) {
        for (int64_t d = 0; d < t.rank(); ++d)
            if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
                std::find(contract.begin(), contract.end(), d) == contract.end())
                dims.push_back(t.sharding.dims[static_cast<size_t>(d)]);
    };
    free(lhs, dn.lhsBatching, dn.lhsContracting);
    free(rhs, dn.rhsBatching, dn.rhsContracting);
    if (static_cast<int>(dims.size()) == out.rank())
        out.sharding.dims = dims;
    return r;
}

/// reshape (seed 001): drop size-1 dimensions; equal shapes then keep every dimension's
/// sharding; a single split of one dimension or a single merge of adjacent dimensions is allowed
/// when the split (merged) dimensions are unsharded, the others keeping theirs; anything else is
/// an error asking for an out sharding.
RuleResult ruleReshape(const ir::Op& op, const std::vector<const ExplicitType*>& operands)
{
    RuleResult r;
    r.results = ruleUnshardedResults(op);
    const ExplicitType& in = *operands[0];
    ExplicitType& out = r.results.front();
    std::vector<int> inDims, outDims; // dimensions of size other than 1
    for (int d = 0; d < in.rank(); ++d)
        if (in.shape[static_cast<size_t>(d)] != 1)
            inDims.push_back(d);
    for (int d = 0; d < out.rank(); ++d)
        if (out.shape[static_cast<size_t>(d)] != 1)
            outDims.push_back(d);
    out.sharding.unreduced = in.sharding.unreduced;
    out.sharding.reduced = in.sharding.reduced;
    std::string shapeText = "[";
    for (size_t i = 0; i < out.shape.size(); ++i)
        shapeText += (i ? "," : "") + std::to_string(out.shape[i]);
    shapeText += "]";
    const std::string head = "reshape operation from " + in.toString() + " to shape " + shapeText;
    // Groups of input and output dimensions whose sizes multiply to the same product.
    struct Group {
        size_t in0, in1, out0, out1; // [in0, in1) and [out0, out1) into inDims / outDims
    };
    std::vector<Group> groups;
    size_t i = 0, j = 0;
    bool matched = true;
    while (i < inDims.size() && j < outDims.size()) {
        Group g{i, i + 1, j, j + 1};
        int64_t pa = in.shape[static_cast<size_t>(inDims[i++])];
        int64_t pb = out.shape[static_cast<size_t>(outDims[j++])];
        while (pa != pb) {
            if (pa < pb && i < inDims.size())
                pa *= in.shape[static_cast<size_t>(inDims[i++])];
            else if (pb < pa && j < outDims.size())
                pb *= out.shape[static_cast<size_t>(outDims[j++])];
            else {
                matched = false;
                break;
            }
        }
        if (!matched)
            break;
        g.in1 = i;
        g.out1 = j;
        groups.push_back(g);
    }
    matched = matched && i == inDims.size() && j == outDims.size();
    size_t nontrivial = 0;
    for (const Group& g : groups)
        if (g.in1 - g.in0 != 1 || g.out1 - g.out0 != 1)
            ++nontrivial;
    const Group* special = nullptr;
    for (const Group& g : groups)
        if (g.in1 - g.in0 != 1 || g.out1 - g.out0 != 1)
            special = &g;
    if (!matched || nontrivial > 1 ||
        (special && special->in1 - special->in0 > 1 && special->out1 - special->out0 > 1)) {
        r.error = head +
                  " is neither a split of one dimension nor a merge of adjacent dimensions (size-1 dimensions "
                  "dropped), so its sharding is not defined; " +
                  kAskOutSharding;
        return r;
    }
    for (const Group& g : groups) {
        if (g.in1 - g.in0 == 1 && g.out1 - g.out0 == 1) {
            out.sharding.dims[static_cast<size_t>(outDims[g.out0])] =
                in.sharding.dims[static_cast<size_t>(inDims[g.in0])];
            continue;
        }
        std::vector<int> sharded;
        for (size_t k = g.in0; k < g.in1; ++k)
            if (!in.sharding.dims[static_cast<size_t>(inDims[k])].empty())
                sharded.push_back(inDims[k]);
        if (sharded.empty())
            continue; // the split (merged) dimensions are unsharded, and so are the new ones
        const std::string& axis = dimAxesString(in.sharding.dims[static_cast<size_t>(sharded.front())]);
        if (g.in1 - g.in0 == 1) {
            r.error = head + " splits dimension " + std::to_string(inDims[g.in0]) + " (size " +
                      std::to_string(in.shape[static_cast<size_t>(inDims[g.in0])]) + "), which is sharded on " + axis +
                      ": only an unsharded dimension may be split; " + kAskOutSharding;
        } else {
            std::string merged;
            for (size_t k = g.in0; k < g.in1; ++k)
                merged += (k == g.in0 ? "" : k + 1 == g.in1 ? " and " : ", ") + std::to_string(inDims[k]);
            r.error = head + " merges dimensions " + merged + ", of which dimension " +
                      std::to_string(sharded.front()) + " is sharded on " + axis +
                      ": only unsharded dimensions may be merged; " + kAskOutSharding;
        }
    }
    return r;
}

/// Ops that keep each dimension unless they change its size (slice, dynamic_slice, pad): a
/// resized dimension must be unsharded.
RuleResult ruleSameDimsUnlessResized(const ir::Op& op, const std::vector<const ExplicitType*>& operands)
{
    RuleResult r;
    r.results = ruleUnshardedResults(op);
    const ExplicitType& in = *operands[0];
    ExplicitType& out = r.results.front();
    if (in.rank() != out.rank())
        return r;
    for (int d = 0; d < in.rank(); ++d) {
        const DimAxes& axes = in.sharding.dims[static_cast<size_t>(d)];
        if (in.shape[static_cast<size_t>(d)] == out.shape[static_cast<size_t>(d)]) {
            out.sharding.dims[static_cast<size_t>(d)] = axes;
        } else if (!axes.empty() && r.error.empty()) {
            r.error = ruleHead(op, operands) + " changes the size of dimension " + std::to_string(d) +
                      ", which is sharded on " + dimAxesString(axes) + " (" +
                      std::to_string(in.shape[static_cast<size_t>(d)]) + " -> " +
                      std::to_string(out.shape[static_cast<size_t>(d)]) + "); reshard it to None first, or " +
                      kAskOutSharding;
        }
    }
    out.sharding.unreduced = in.sharding.unreduced;
    out.sharding.reduced = in.sharding.reduced;
    return r;
}

/// concatenate: every operand must be sharded alike; the result is sharded so.
RuleResult ruleConcatenate(const ir::Op& op, const std::vector<const ExplicitType*>& operands)
{
    RuleResult r;
    r.results = ruleUnshardedResults(op);
    const ExplicitType* first = nullptr;
    for (const ExplicitType* t : operands) {
        if (!t)
            continue;
        if (!first)
            first = t;
        else if (t->sharding != first->sharding) {
            r.error =
                ruleHead(op, operands) + " needs every operand sharded alike; reshard an input, or " + kAskOutSharding;
            return r;
        }
    }
    if (first && first->rank() == r.results.front().rank())
        r.results.front().sharding = first->sharding;
    return r;
}

bool ruleIsNullary(const std::string& n)
{
    return n == "stablehlo.constant" || n == "stablehlo.iota" || n == "stablehlo.rng" ||
           n == "stablehlo.rng_bit_generator" || n == "stablehlo.create_token" || n == "stablehlo.after_all" ||
           n == "stablehlo.partition_id" || n == "stablehlo.replica_id";
}

bool ruleIsElementwise(const ir::Op& op)
{
    if (op.name() == "stablehlo.bitcast_convert")
        return op.numOperands() == 1 && op.numResults() == 1 &&
               op.operand(0)->type().shape() == op.result(0)->type().shape();
    const ir::OpInfo* info = ir::OpRegistry::instance().lookup(op.name());
    return info && info->isElementwise && op.dialect() == "stablehlo";
}

} // namespace

std::string primitiveName(const ir::Op& op)
{
    const std::string& n = op.name();
    const size_t dot = n.find('.');
    return dot == std::string::npos ? n : n.substr(dot + 1);
}

std::string operandTypesText(const std::vector<const ExplicitType*>& operands)
{
    std::string s;
    for (const ExplicitType* t : operands)
        if (t)
            s += (s.empty() ? "" : ", ") + t->toString();
    return s;
}

RuleResult applyExplicitRule(const ir::Op& op, const std::vector<const ExplicitType*>& operands)
{
    const std::string& n = op.name();
    RuleResult unsharded;
    unsharded.results = ruleUnshardedResults(op);
    if (ruleIsNullary(n) || op.numResults() == 0)
        return unsharded;
    auto allTyped = [&](size_t count) {
        if (operands.size() < count)
            return false;
        for (size_t i = 0; i < count; ++i)
            if (!operands[i])
                return false;
        return true;
    };
    if (!op.result(0)->type().isRankedTensor() && n != "stablehlo.optimization_barrier")
        return unsharded;
    if (ruleIsElementwise(op))
        return ruleElementwise(op, operands);
    if (n == "stablehlo.broadcast_in_dim" && allTyped(1))
        return ruleBroadcastInDim(op, *operands[0]);
    if (n == "stablehlo.transpose" && allTyped(1))
        return ruleTranspose(op, *operands[0]);
    if (n == "stablehlo.reduce")
        return ruleReduce(op, operands);
    if (n == "stablehlo.dot_general" && allTyped(2)) {
        std::string error;
        std::optional<stablehlo::DotDimensionNumbers> dn = stablehlo::dotDimensionNumbers(op, &error);
        if (!dn) {
            unsharded.error = "dot_general operation has unreadable dimension numbers: " + error;
            return unsharded;
        }
        return ruleDotGeneral(op, operands, *dn);
    }
    if (n == "stablehlo.dot" && allTyped(2)) {
        // dot: lhs [m, k] or [k], rhs [k, n] or [k]; contracts lhs's last with rhs's first.
        stablehlo::DotDimensionNumbers dn;
        dn.lhsContracting = {operands[0]->rank() - 1};
        dn.rhsContracting = {0};
        return ruleDotGeneral(op, operands, dn);
    }
    if (n == "stablehlo.reshape" && allTyped(1))
        return ruleReshape(op, operands);
    if ((n == "stablehlo.slice" || n == "stablehlo.dynamic_slice" || n == "stablehlo.pad") && allTyped(1))
        return ruleSameDimsUnlessResized(op, operands);
    if (n == "stablehlo.concatenate")
        return ruleConcatenate(op, operands);
    if ((n == "stablehlo.reverse" || n == "stablehlo.dynamic_update_slice") && allTyped(1)) {
        RuleResult r = unsharded;
        if (operands[0]->rank() == r.results.front().rank())
            r.results.front().sharding = operands[0]->sharding;
        return r;
    }
    if (n == "stablehlo.sort") {
        // Every operand has the result's shape: zipped as an element-wise op's, result by result.
        RuleResult r = ruleElementwise(op, operands);
        return r;
    }
    if (n == "stablehlo.optimization_barrier") {
        RuleResult r = unsharded;
        for (size_t i = 0; i < r.results.size() && i < operands.size(); ++i)
            if (operands[i])
                r.results[i] = *operands[i];
        return r;
    }
    unsharded.noRule = true;
    unsharded.error = primitiveName(op) + " operation (" + n + ") has no explicit-sharding rule (as in JAX, where " +
                      "ops such as gather and scatter lack one); " + kAskOutSharding +
                      ", or compute it under auto_axes";
    return unsharded;
}

std::string checkIllegalResults(const ir::Op& op, const std::vector<const ExplicitType*>& operands,
                                std::vector<ExplicitType>& results)
{
    std::string error;
    for (ExplicitType& t : results) {
        const std::string axis = t.sharding.repeatedAxis();
        if (axis.empty())
            continue;
        if (error.empty())
            error = ruleHead(op, operands) + " produces an illegally sharded result: " + t.toString() + " (mesh axis " +
                    axis + " is used twice); " + kAskOutSharding + ", or compute it under auto_axes";
        // Recovery: keep each axis at its first use.
        std::set<std::string> seen;
        auto keepFirst = [&](std::vector<std::string>& list) {
            std::vector<std::string> kept;
            for (const std::string& a : list)
                if (seen.insert(a).second)
                    kept.push_back(a);
            list = kept;
        };
        for (DimAxes& d : t.sharding.dims)
            keepFirst(d);
        keepFirst(t.sharding.unreduced);
        keepFirst(t.sharding.reduced);
    }
    return error;
}

} // namespace shardx::explicit_
