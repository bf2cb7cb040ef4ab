// Canonicalizer (Canonicalizer.h): the patterns of the sdy ops: reshards, manual computations, collectives.
#include <algorithm>
#include <map>

#include "core/ir/Canonicalizer.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/ir/StablehloAttrs.h"
#include "core/sharding/ShardingVerifier.h"

namespace shardx::ir {

namespace {

// ---- small helpers ----------------------------------------------------------------------

const Mesh* meshOf(const Rewriter& rw, const TensorSharding& s)
{
    return rw.module ? rw.module->resolveMesh(s.mesh) : (s.mesh.inlineMesh ? &*s.mesh.inlineMesh : nullptr);
}

bool allListsEmpty(const std::vector<std::vector<AxisRef>>* lists)
{
    if (!lists)
        return false;
    for (const auto& l : *lists)
        if (!l.empty())
            return false;
    return true;
}

Op* producer(const Op& op, const char* name)
{
    Value* v = op.numOperands() ? op.operand(0) : nullptr;
    Op* def = v ? v->definingOp() : nullptr;
    return def && def->name() == name ? def : nullptr;
}

/// A new op `name` with one operand and one result of the operand's type.
std::unique_ptr<Op> unaryOp(const std::string& name, Value* operand, const Type& resultType, const Op* locFrom)
{
    auto op = std::make_unique<Op>(name);
    op->addOperand(operand);
    op->addResult(resultType);
    if (locFrom) {
        op->pos = locFrom->pos;
        op->loc = locFrom->loc;
    }
    return op;
}

/// Replaces a collective by its operand when its per-dimension lists are all empty.
bool foldEmptyPerDim(Op& op, Rewriter& rw)
{
    if (!allListsEmpty(perDimCollectiveAxes(op)))
        return false;
    rw.replaceOp(&op, {op.operand(0)});
    return true;
}

// ---- reshard ----------------------------------------------------------------------------

/// reshard(reshard(x, s1), s2) where the inner reshard has one use -> reshard(x, s2).
bool reshardOfReshard(Op& op, Rewriter& rw)
{
    Op* inner = producer(op, "sdy.reshard");
    if (!inner || !inner->result(0)->hasOneUse())
        return false;
    op.setOperand(0, inner->operand(0));
    rw.notifyModified(&op);
    rw.enqueue(inner);
    return true;
}

/// (axis, stride) pairs of a sharding walked from the minor-most dimension (SDY.md 2.3).
struct AxisStride {
    AxisRef axis;
    double stride = 0;
};

std::vector<AxisStride> axisStrides(const TensorSharding& s, const Type& type, const Mesh& mesh)
{
    std::vector<AxisStride> out;
    double elementStride = 1;
    for (int d = type.rank() - 1; d >= 0; --d) {
        const double n = static_cast<double>(type.dim(d));
        const std::vector<AxisRef>& axes = s.dims[static_cast<size_t>(d)].axes;
        // Stride of axis i is elementStride * n / (product of the sizes of axes 0..i).
        std::vector<double> strides(axes.size());
        double prod = 1;
        for (size_t i = 0; i < axes.size(); ++i) {
            prod *= static_cast<double>(axes[i].size(mesh));
            strides[i] = elementStride * n / prod;
        }
        for (size_t i = axes.size(); i-- > 0;) {
            AxisStride cur{axes[i], strides[i]};
            if (!out.empty()) {
                AxisStride& prev = out.back();
                // `cur` is more major than `prev`: merge "x":(m)k (prev, minor) with "x":(m')k'
                // (cur) when cur ends where prev begins and the strides are contiguous.
                if (prev.axis.name == cur.axis.name && prev.axis.sub && cur.axis.sub &&
                    cur.axis.sub->nextPreSize() == prev.axis.sub->preSize &&
                    std::abs(cur.stride - prev.stride * static_cast<double>(prev.axis.sub->size)) < 1e-6) {
                    prev.axis = merge(cur.axis, prev.axis, mesh);
                    continue;
                }
            }
            out.push_back(cur);
        }
        elementStride *= n;
    }
    return out;
}

bool equivalentAcrossReshapes(const TensorSharding& a, const Type& ta, const TensorSharding& b, const Type& tb,
                              const Rewriter& rw)
{
    if (a.mesh.isInline() || b.mesh.isInline() || a.mesh.symbol != b.mesh.symbol || a.replicated != b.replicated)
        return false;
    if (ta.encoding() || tb.encoding() || !ta.hasStaticShape() || !tb.hasStaticShape())
        return false;
    if (a.rank() != ta.rank() || b.rank() != tb.rank())
        return false;
    const Mesh* mesh = meshOf(rw, a);
    if (!mesh)
        return false;
    std::vector<AxisStride> x = axisStrides(a, ta, *mesh);
    std::vector<AxisStride> y = axisStrides(b, tb, *mesh);
    if (x.size() != y.size())
        return false;
    for (size_t i = 0; i < x.size(); ++i)
        if (!(x[i].axis == y[i].axis) || std::abs(x[i].stride - y[i].stride) > 1e-6)
            return false;
    return true;
}

bool isReshapeOrTranspose(const Op* op)
{
    return op && (op->name() == "stablehlo.reshape" || op->name() == "stablehlo.transpose");
}

/// Finds an earlier equivalent reshard of the same root (looking through reshapes) and reuses it.
bool reshardCse(Op& op, Rewriter& rw)
{
    const TensorSharding* target = opSharding(op);
    if (!target)
        return false;
    Value* v = op.operand(0);
    // Chain from v up to root through reshapes and transposes (nearest first).
    std::vector<Op*> chain;
    Value* root = v;
    while (isReshapeOrTranspose(root->definingOp())) {
        chain.push_back(root->definingOp());
        root = root->definingOp()->operand(0);
    }
    // The target sharding as seen at the root's level, as far as that can be traced.
    TensorSharding seen = *target;
    for (Op* c : chain) {
        if (c->name() == "stablehlo.transpose") {
            const std::vector<int64_t> perm = stablehlo::transposePermutation(*c).value_or(std::vector<int64_t>{});
            if (perm.size() != seen.dims.size())
                break;
            std::vector<DimSharding> back(seen.dims.size());
            for (size_t i = 0; i < perm.size(); ++i)
                back[static_cast<size_t>(perm[i])] = seen.dims[i];
            seen.dims = back;
            continue;
        }
        if (c->operand(0)->type().rank() != c->result(0)->type().rank())
            break;
    }
    const Type& targetType = op.result(0)->type();

    // Search from the root, following reshape users only, for an earlier equivalent reshard.
    Op* found = nullptr;
    std::vector<Value*> frontier = {root};
    while (!found && !frontier.empty()) {
        Value* cur = frontier.back();
        frontier.pop_back();
        std::vector<Op*> users;
        for (const Use& u : cur->uses())
            if (std::find(users.begin(), users.end(), u.user) == users.end())
                users.push_back(u.user);
        std::sort(users.begin(), users.end(), [](Op* a, Op* b) { return a->isBeforeInBlock(b); });
        for (Op* u : users) {
            if (u == &op)
                continue;
            if (u->name() == "sdy.reshard" && u->parentBlock() == op.parentBlock() && u->isBeforeInBlock(&op)) {
                const TensorSharding* s = opSharding(*u);
                if (s && equivalentAcrossReshapes(*s, u->result(0)->type(), seen, targetType, rw)) {
                    found = u;
                    break;
                }
            }
            if (u->name() == "stablehlo.reshape")
                frontier.push_back(u->result(0));
        }
    }
    if (!found)
        return false;

    Value* base = found->result(0);
    Op* insertAfterOp = found;
    if (base->type() != root->type()) {
        Op* back = rw.insertAfter(found, unaryOp("stablehlo.reshape", base, root->type(), found));
        base = back->result(0);
        insertAfterOp = back;
    }
    // Clone the reshape/transpose chain (root side first) on top of the reused value, right
    // before the reshard being replaced.
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        auto clone = unaryOp((*it)->name(), base, (*it)->result(0)->type(), *it);
        for (const NamedAttribute& na : (*it)->props())
            clone->setProp(na.name, na.value);
        for (const NamedAttribute& na : (*it)->attrs())
            clone->setDiscardable(na.name, na.value);
        base = rw.insertBefore(&op, std::move(clone))->result(0);
    }
    (void)insertAfterOp;
    rw.replaceOp(&op, {base});
    for (Op* c : chain)
        rw.enqueue(c);
    return true;
}

// ---- manual computation -----------------------------------------------------------------

bool removeUnusedManualArgs(Op& op, Rewriter& rw)
{
    if (op.numRegions() != 1 || op.region(0).empty())
        return false;
    Block& body = op.region(0).front();
    const ShardingPerValue* in = inShardings(op);
    bool changed = false;
    ShardingPerValue newIn = in ? *in : ShardingPerValue{};
    for (unsigned i = body.numArgs(); i-- > 0;) {
        if (!body.arg(i)->useEmpty())
            continue;
        body.eraseArgument(i);
        op.eraseOperand(i);
        if (i < newIn.shardings.size())
            newIn.shardings.erase(newIn.shardings.begin() + i);
        changed = true;
    }
    if (!changed)
        return false;
    setInShardings(op, newIn);
    rw.notifyModified(&op);
    return true;
}

bool eraseEmptyManual(Op& op, Rewriter& rw)
{
    const ShardingPerValue* in = inShardings(op);
    const ShardingPerValue* out = outShardings(op);
    if ((in && !in->shardings.empty()) || (out && !out->shardings.empty()) || op.numResults() != 0)
        return false;
    if (op.numRegions() == 1 && !op.region(0).empty()) {
        const Block& b = op.region(0).front();
        if (b.ops().size() > 1 || (b.ops().size() == 1 && b.terminator()->name() != "sdy.return"))
            return false;
    }
    rw.eraseOp(&op);
    return true;
}

/// Inlines a manual computation whose manual axes have total size 1.
bool inlineTrivialManual(Op& op, Rewriter& rw)
{
    const std::vector<std::string>* axes = manualAxes(op);
    if (!axes || op.numRegions() != 1 || op.region(0).empty())
        return false;
    if (!axes->empty()) {
        const Mesh* mesh = nullptr;
        for (const ShardingPerValue* list : {inShardings(op), outShardings(op)})
            if (list)
                for (const TensorSharding& s : list->shardings)
                    if (const Mesh* m = meshOf(rw, s); m && !m->isEmpty() && !mesh)
                        mesh = m;
        if (!mesh)
            return false;
        int64_t product = 1;
        for (const std::string& name : *axes) {
            std::optional<int64_t> size = mesh->axisSize(name);
            if (!size)
                return false;
            product *= *size;
        }
        if (product != 1)
            return false;
    }
    Block& body = op.region(0).front();
    Op* term = body.terminator();
    if (!term || term->name() != "sdy.return" || term->numOperands() != op.numResults())
        return false;
    for (unsigned i = 0; i < body.numArgs(); ++i)
        body.arg(i)->replaceAllUsesWith(op.operand(i));
    std::vector<Value*> returned(term->operands().begin(), term->operands().end());
    term->erase();
    Block* parent = op.parentBlock();
    while (!body.ops().empty()) {
        Op* first = body.ops().front().get();
        Op* moved = parent->insertBefore(&op, body.remove(first));
        rw.enqueue(moved);
    }
    rw.replaceOp(&op, returned);
    return true;
}

// ---- collectives ------------------------------------------------------------------------

bool allSliceOfAllGather(Op& op, Rewriter& rw)
{
    Op* gather = producer(op, "sdy.all_gather");
    if (!gather)
        return false;
    const std::vector<std::vector<AxisRef>>* slicing = perDimCollectiveAxes(op);
    const std::vector<std::vector<AxisRef>>* gathering = perDimCollectiveAxes(*gather);
    if (!slicing || !gathering || *slicing != *gathering)
        return false;
    rw.replaceOp(&op, {gather->operand(0)});
    return true;
}

/// all_slice(all_reduce(x, R), L) -> reduce_scatter (+ all_slice of the residual axes).
bool reduceScatterFusion(Op& op, Rewriter& rw)
{
    Op* reduce = producer(op, "sdy.all_reduce");
    if (!reduce)
        return false;
    const std::vector<std::vector<AxisRef>>* slicing = perDimCollectiveAxes(op);
    const std::vector<AxisRef>* reduction = collectiveAxisList(*reduce);
    const TensorSharding* sliceOut = outSharding(op);
    const TensorSharding* reduceOut = outSharding(*reduce);
    if (!slicing || !reduction || !sliceOut || !reduceOut)
        return false;
    std::vector<Op*> slices;
    for (const Use& u : reduce->result(0)->uses()) {
        const std::vector<std::vector<AxisRef>>* other =
            u.user->name() == "sdy.all_slice" ? perDimCollectiveAxes(*u.user) : nullptr;
        if (!other || *other != *slicing)
            return false;
        if (std::find(slices.begin(), slices.end(), u.user) == slices.end())
            slices.push_back(u.user);
    }
    for (Op* s : slices)
        if (s != &op && s->isBeforeInBlock(&op))
            return false;

    std::vector<AxisRef> remaining = *reduction;
    std::vector<std::vector<AxisRef>> prefixes, residuals;
    bool anyResidual = false;
    for (const auto& dimAxes : *slicing) {
        std::vector<AxisRef> prefix, residual;
        size_t i = 0;
        for (; i < dimAxes.size(); ++i) {
            auto it = std::find(remaining.begin(), remaining.end(), dimAxes[i]);
            if (it == remaining.end())
                break;
            prefix.push_back(dimAxes[i]);
            remaining.erase(it);
        }
        residual.assign(dimAxes.begin() + static_cast<std::ptrdiff_t>(i), dimAxes.end());
        anyResidual |= !residual.empty();
        prefixes.push_back(std::move(prefix));
        residuals.push_back(std::move(residual));
    }
    if (!remaining.empty())
        return false;
    const Mesh* mesh = meshOf(rw, *reduceOut);
    if (!mesh)
        return false;

    Value* x = reduce->operand(0);
    const TensorSharding* xs = shardingOfValue(x);
    TensorSharding rsOut;
    rsOut.mesh = reduceOut->mesh;
    rsOut.dims.resize(prefixes.size());
    for (size_t d = 0; d < prefixes.size(); ++d) {
        if (xs && d < xs->dims.size())
            rsOut.dims[d].axes = xs->dims[d].axes;
        for (const AxisRef& a : prefixes[d])
            addAxisOrMerge(rsOut.dims[d].axes, a, *mesh);
    }
    rsOut.replicated = sliceOut->replicated;
    rsOut.unreduced = sliceOut->unreduced;
    rsOut.unreducedKind = sliceOut->unreducedKind;

    auto rs = unaryOp("sdy.reduce_scatter", x, op.result(0)->type(), &op);
    setPerDimCollectiveAxes(*rs, prefixes);
    setOutSharding(*rs, rsOut);
    if (const std::optional<ReductionKind> kind = reductionKindOf(*reduce))
        setReductionKind(*rs, *kind);
    Value* result = rw.insertBefore(&op, std::move(rs))->result(0);
    if (anyResidual) {
        auto slice = unaryOp("sdy.all_slice", result, op.result(0)->type(), &op);
        setPerDimCollectiveAxes(*slice, residuals);
        setOutSharding(*slice, *sliceOut);
        result = rw.insertBefore(&op, std::move(slice))->result(0);
    }
    for (Op* s : slices)
        rw.replaceOp(s, {result});
    rw.eraseOp(reduce);
    return true;
}

bool foldEmptyAllReduce(Op& op, Rewriter& rw)
{
    const std::vector<AxisRef>* axes = collectiveAxisList(op);
    if (!axes || !axes->empty())
        return false;
    rw.replaceOp(&op, {op.operand(0)});
    return true;
}

bool allReduceOfReplicatedToUnreduced(Op& op, Rewriter& rw)
{
    Op* r2u = producer(op, "sdy.replicated_to_unreduced");
    const std::vector<AxisRef>* axes = collectiveAxisList(op);
    const std::vector<AxisRef>* r2uAxes = r2u ? collectiveAxisList(*r2u) : nullptr;
    if (!axes || !r2uAxes || *axes != *r2uAxes)
        return false;
    rw.replaceOp(&op, {r2u->operand(0)});
    return true;
}

bool allReduceOfShardedToUnreduced(Op& op, Rewriter& rw)
{
    Op* s2u = producer(op, "sdy.sharded_to_unreduced");
    const std::vector<AxisRef>* axes = collectiveAxisList(op);
    const std::vector<std::vector<AxisRef>>* perDim = s2u ? perDimCollectiveAxes(*s2u) : nullptr;
    const TensorSharding* out = outSharding(op);
    if (!axes || !perDim || !out)
        return false;
    const Mesh* mesh = meshOf(rw, *out);
    if (!mesh)
        return false;
    std::vector<AxisRef> all;
    for (const auto& l : *perDim)
        all.insert(all.end(), l.begin(), l.end());
    if (sortAndMerge(all, *mesh) != *axes)
        return false;
    auto gather = unaryOp("sdy.all_gather", s2u->operand(0), op.result(0)->type(), &op);
    setPerDimCollectiveAxes(*gather, *perDim);
    setOutSharding(*gather, *out);
    Value* g = rw.insertBefore(&op, std::move(gather))->result(0);
    rw.replaceOp(&op, {g});
    return true;
}

bool eraseUnusedAllToAll(Op& op, Rewriter& rw)
{
    if (!op.result(0)->useEmpty())
        return false;
    rw.eraseOp(&op);
    return true;
}

bool allToAllFusion(Op& op, Rewriter& rw)
{
    Op* inner = producer(op, "sdy.all_to_all");
    if (!inner || !inner->result(0)->hasOneUse())
        return false;
    const std::vector<AllToAllParam>* outer = allToAllParams(op);
    const std::vector<AllToAllParam>* in = allToAllParams(*inner);
    if (!outer || !in)
        return false;
    std::vector<int64_t> dims;
    for (const AllToAllParam& p : *in) {
        dims.push_back(p.srcDim);
        dims.push_back(p.tgtDim);
    }
    for (const AllToAllParam& p : *outer)
        if (std::find(dims.begin(), dims.end(), p.srcDim) != dims.end() ||
            std::find(dims.begin(), dims.end(), p.tgtDim) != dims.end())
            return false;
    std::vector<AllToAllParam> merged = *in;
    merged.insert(merged.end(), outer->begin(), outer->end());
    std::stable_sort(merged.begin(), merged.end(),
                     [](const AllToAllParam& a, const AllToAllParam& b) { return a.srcDim < b.srcDim; });
    setAllToAllParams(op, std::move(merged));
    op.setOperand(0, inner->operand(0));
    rw.notifyModified(&op);
    rw.eraseOp(inner);
    return true;
}

bool foldEquivalentPermute(Op& op, Rewriter& rw)
{
    const TensorSharding* out = outSharding(op);
    const TensorSharding* in = shardingOfValue(op.operand(0));
    if (!out || !isEquivalent(out, in))
        return false;
    rw.replaceOp(&op, {op.operand(0)});
    return true;
}

} // namespace

const std::unordered_map<std::string, std::vector<CanonicalizationPattern>>& sdyCanonicalizationPatterns()
{
    static const std::unordered_map<std::string, std::vector<CanonicalizationPattern>> patterns = {
        {"sdy.reshard", {reshardOfReshard, reshardCse}},
        {"sdy.manual_computation", {removeUnusedManualArgs, eraseEmptyManual, inlineTrivialManual}},
        {"sdy.all_gather", {foldEmptyPerDim}},
        {"sdy.all_slice", {foldEmptyPerDim, allSliceOfAllGather, reduceScatterFusion}},
        {"sdy.all_reduce", {foldEmptyAllReduce, allReduceOfReplicatedToUnreduced, allReduceOfShardedToUnreduced}},
        {"sdy.reduce_scatter", {foldEmptyPerDim}},
        {"sdy.all_to_all", {eraseUnusedAllToAll, allToAllFusion}},
        {"sdy.collective_permute", {foldEquivalentPermute}},
    };
    return patterns;
}

bool foldReshardOfReshard(Op& op, Rewriter& rw) { return op.name() == "sdy.reshard" && reshardOfReshard(op, rw); }

} // namespace shardx::ir
