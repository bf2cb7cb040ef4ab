// Module verifier (Verifier.h, VerifierInternal.h): the sdy collectives (SDY.md 2.12-2.17).
#include <algorithm>
#include <set>

#include "core/ir/VerifierInternal.h"

namespace shardx::ir::verifier {

namespace {

std::string bracketList(const std::vector<AxisRef>& axes)
{
    std::string s = "[";
    for (size_t i = 0; i < axes.size(); ++i)
        s += (i ? ", " : "") + axes[i].toString();
    return s + "]";
}

/// `dim` after remove-suffix of `axes` (SDY.md 2.12); nullopt + `err` set on failure.
std::optional<std::vector<AxisRef>> withoutSuffix(std::vector<AxisRef> dim, const std::vector<AxisRef>& axes,
                                                  const Mesh& mesh, const std::string& what, int64_t d,
                                                  std::string& err)
{
    if (const AxisRef* bad = removeSuffix(dim, axes, mesh)) {
        err = "can't apply " + what + " axis " + bad->toString() + " to operand sharding on dimension " +
              std::to_string(d);
        return std::nullopt;
    }
    return dim;
}

/// `dim` with `axes` appended, merging sub-axes.
std::vector<AxisRef> withAppended(std::vector<AxisRef> dim, const std::vector<AxisRef>& axes, const Mesh& mesh)
{
    addAxesOrMerge(dim, axes, mesh);
    return dim;
}

bool overlapsAnyOf(const AxisRef& a, const std::vector<AxisRef>& list)
{
    return std::any_of(list.begin(), list.end(), [&](const AxisRef& b) { return overlaps(a, b); });
}

struct Collective {
    Context& ctx;
    const Op& op;
    TensorSharding inStorage;
    const TensorSharding* in = nullptr;
    const TensorSharding* out = nullptr;
    const Mesh* mesh = nullptr; ///< the out sharding's mesh

    bool fail(const std::string& msg, const Op* noteOp = nullptr, const std::string& note = {})
    {
        return opError(ctx, op, msg, noteOp, note);
    }

    /// The kind of the reduced axes (an absent or unreadable `reduction_kind`: sum).
    ReductionKind reductionKind() const { return reductionKindOf(op).value_or(ReductionKind::Sum); }

    /// Per-dimension collectives: validity, rank and the expected axes per dimension.
    bool verifyPerDim(bool remove, const std::string& what)
    {
        static const std::vector<std::vector<AxisRef>> kNone;
        const std::vector<std::vector<AxisRef>>* lists = perDimCollectiveAxes(op);
        if (!lists)
            lists = &kNone;
        std::vector<AxisRef> seen;
        for (const auto& l : *lists)
            if (auto err = verifyAxisList(l, *mesh, seen))
                return fail(*err);
        if (static_cast<int>(lists->size()) != out->rank())
            return fail("result sharding has rank " + std::to_string(out->rank()) + " but collective axes has rank " +
                        std::to_string(lists->size()));
        for (int d = 0; d < out->rank(); ++d) {
            const std::vector<AxisRef>& operandAxes = in->dims[d].axes;
            std::vector<AxisRef> expected;
            if (remove) {
                std::string err;
                auto r = withoutSuffix(operandAxes, (*lists)[d], *mesh, what, d, err);
                if (!r)
                    return fail(err);
                expected = *r;
            } else {
                expected = withAppended(operandAxes, (*lists)[d], *mesh);
            }
            if (expected != out->dims[d].axes)
                return fail("result sharding doesn't match expected sharding " + bracketList(expected) +
                            " on dimension " + std::to_string(d));
        }
        return true;
    }

    bool verifyAllToAll()
    {
        const std::vector<AllToAllParam>* params = allToAllParams(op);
        if (!params || params->empty())
            return fail("parameter list is empty");
        std::vector<AxisRef> seen;
        std::set<int64_t> usedDims;
        const int64_t rank = out->rank();
        int64_t prevSrc = -1;
        for (const AllToAllParam& p : *params) {
            if (auto err = verifyAxisList(p.axes, *mesh, seen))
                return fail(*err);
            if (p.srcDim < 0 || p.srcDim >= rank)
                return fail("source dimension " + std::to_string(p.srcDim) + " is out of range [0, " +
                            std::to_string(rank) + ")");
            if (p.tgtDim < 0 || p.tgtDim >= rank)
                return fail("target dimension " + std::to_string(p.tgtDim) + " is out of range [0, " +
                            std::to_string(rank) + ")");
            for (int64_t dim : {p.srcDim, p.tgtDim})
                if (!usedDims.insert(dim).second || p.srcDim == p.tgtDim)
                    return fail("overlapping source/target dimensions in all-to-all params: " + std::to_string(dim));
            if (p.srcDim < prevSrc)
                return fail("source dimensions are not sorted in ascending order: " + std::to_string(p.srcDim) +
                            " appears after " + std::to_string(prevSrc));
            prevSrc = p.srcDim;
        }
        std::vector<std::vector<AxisRef>> expected;
        for (const DimSharding& d : in->dims)
            expected.push_back(d.axes);
        for (const AllToAllParam& p : *params) {
            std::string err;
            auto r = withoutSuffix(in->dims[p.srcDim].axes, p.axes, *mesh, "all-to-all", p.srcDim, err);
            if (!r)
                return fail(err);
            expected[p.srcDim] = *r;
            expected[p.tgtDim] = withAppended(in->dims[p.tgtDim].axes, p.axes, *mesh);
        }
        for (int d = 0; d < out->rank(); ++d)
            if (expected[d] != out->dims[d].axes)
                return fail("result sharding doesn't match expected sharding " + bracketList(expected[d]) +
                            " on dimension " + std::to_string(d));
        return true;
    }

    bool verifyCollectivePermute()
    {
        const Mesh* inMesh = ctx.resolve(in->mesh);
        if (!inMesh || !(inMesh->axes() == mesh->axes()))
            return fail("result mesh has different axes than operand mesh");
        if (!(in->mesh == out->mesh) && inMesh->deviceIds() == mesh->deviceIds())
            return fail("result mesh name is different but same device ids as operand");
        for (int d = 0; d < out->rank(); ++d) {
            if (in->dims[d].axes == out->dims[d].axes)
                continue;
            const int64_t r = axesProduct(out->dims[d].axes, *mesh);
            const int64_t o = axesProduct(in->dims[d].axes, *inMesh);
            if (r != o)
                return fail("sharded size of result doesn't match operand on dimension " + std::to_string(d) + ": " +
                            std::to_string(r) + " != " + std::to_string(o));
        }
        return true;
    }

    bool verifyAllReduce()
    {
        if (!isEquivalent(in, out, /*ignoreUnreduced=*/true))
            return fail("operand and result shardings are not equivalent");
        static const std::vector<AxisRef> kNone;
        const std::vector<AxisRef>* axes = collectiveAxisList(op);
        if (!axes)
            axes = &kNone;
        if (auto err = verifyAxesOrdered(*axes, *mesh, "reduction"))
            return fail(*err);
        std::vector<AxisRef> seen;
        if (auto err = verifyAxisList(*axes, *mesh, seen))
            return fail(*err);
        std::vector<AxisRef> operandAxes = in->replicated;
        for (const DimSharding& d : in->dims)
            operandAxes.insert(operandAxes.end(), d.axes.begin(), d.axes.end());
        for (const AxisRef& a : *axes) {
            if (overlapsAnyOf(a, operandAxes))
                return fail("reduction axis " + a.toString() +
                            " overlaps with operand dimension sharding or replicated axes");
            if (overlapsAnyOf(a, out->unreduced))
                return fail("reduction axis " + a.toString() + " overlaps with result unreduced axes");
        }
        if (auto err = checkUnreducedTransition(ctx, in, *out, std::nullopt, RemovePolicy{true, reductionKind()}))
            return fail(*err);
        return true;
    }

    bool verifyShardedToUnreduced()
    {
        if (out->unreducedKind != ReductionKind::Sum)
            return fail("out_sharding reduction_op must be SUM");
        if (!verifyPerDim(true, "shard-to-unreduce"))
            return false;
        std::vector<AxisRef> all = in->unreduced;
        if (const auto* lists = perDimCollectiveAxes(op))
            for (const auto& l : *lists)
                all.insert(all.end(), l.begin(), l.end());
        if (sortAndMerge(all, *mesh) != out->unreduced)
            return fail("out_unreduced_axes should be in_unreduced_axes + sharded_to_unreduced_axes");
        return true;
    }

    bool verifyReplicatedToUnreduced()
    {
        if (out->unreducedKind != ReductionKind::Sum)
            return fail("out_sharding reduction_op must be SUM");
        if (in->dims != out->dims)
            return fail("input and output must share the same dimension shardings");
        static const std::vector<AxisRef> kNone;
        const std::vector<AxisRef>* axes = collectiveAxisList(op);
        if (!axes)
            axes = &kNone;
        if (axes->empty())
            return fail("r2u axes must not be empty");
        if (auto err = verifyAxesOrdered(*axes, *mesh, "r2u"))
            return fail(*err);
        std::vector<AxisRef> seen;
        if (auto err = verifyAxisList(*axes, *mesh, seen))
            return fail(*err);
        std::vector<AxisRef> dimAxes;
        for (const DimSharding& d : in->dims)
            dimAxes.insert(dimAxes.end(), d.axes.begin(), d.axes.end());
        for (const AxisRef& a : *axes) {
            if (overlapsAnyOf(a, dimAxes))
                return fail("r2u axis " + a.toString() + " overlaps with operand dimension sharding");
            if (overlapsAnyOf(a, in->unreduced))
                return fail("r2u axis " + a.toString() + " overlaps with operand unreduced axes");
        }
        std::vector<AxisRef> all = in->unreduced;
        all.insert(all.end(), axes->begin(), axes->end());
        if (sortAndMerge(all, *mesh) != out->unreduced)
            return fail("out_unreduced_axes should be in_unreduced_axes + r2u_axes");
        return true;
    }

    bool run()
    {
        const std::string& n = op.name();
        out = outSharding(op);
        if (!out)
            return fail("requires an 'out_sharding' attribute of type TensorShardingAttr");
        if (op.numOperands() != 1 || op.numResults() != 1)
            return fail("expects one operand and one result");
        // 1. operand sharding.
        in = shardingOfValue(op.operand(0));
        if (!in) {
            if (n != "sdy.all_slice" && n != "sdy.all_reduce" && n != "sdy.reduce_scatter")
                return fail("collective on operand without sharding");
            const Type& t = op.operand(0)->type();
            inStorage = TensorSharding::closedReplicated(out->mesh, t.isRankedTensor() ? t.rank() : out->rank());
            in = &inStorage;
        }
        // 2. out sharding valid.
        if (!verifyShardingAt(ctx, op, *out, &op.result(0)->type(), enclosingManualAxes(op), ""))
            return false;
        mesh = ctx.resolve(out->mesh);
        if (!mesh)
            return fail("unknown mesh: " + symbolRefString(out->mesh.symbol));
        // 3. same mesh.
        if (n != "sdy.collective_permute") {
            const Mesh* inMesh = ctx.resolve(in->mesh);
            if (!inMesh || !(*inMesh == *mesh))
                return fail("result mesh does not match operand mesh", op.operand(0)->definingOp(), "operand mesh");
        }
        // 4. same rank.
        if (in->rank() != out->rank())
            return fail("operand and result shardings have different ranks: " + std::to_string(in->rank()) + " vs " +
                        std::to_string(out->rank()));
        if (n == "sdy.all_gather")
            return verifyPerDim(true, "gathering");
        if (n == "sdy.all_slice")
            return verifyPerDim(false, "slicing");
        if (n == "sdy.reduce_scatter") {
            if (auto err = checkUnreducedTransition(ctx, in, *out, std::nullopt, RemovePolicy{true, reductionKind()}))
                return fail(*err);
            return verifyPerDim(false, "reduce-scatter");
        }
        if (n == "sdy.all_to_all")
            return verifyAllToAll();
        if (n == "sdy.collective_permute")
            return verifyCollectivePermute();
        if (n == "sdy.all_reduce")
            return verifyAllReduce();
        if (n == "sdy.sharded_to_unreduced")
            return verifyShardedToUnreduced();
        if (n == "sdy.replicated_to_unreduced")
            return verifyReplicatedToUnreduced();
        return true;
    }
};

} // namespace

bool verifyCollective(Context& ctx, const Op& op)
{
    Collective c{ctx, op, {}, nullptr, nullptr, nullptr};
    return c.run();
}

} // namespace shardx::ir::verifier
