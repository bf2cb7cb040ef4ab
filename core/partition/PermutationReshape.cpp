// stablehlo.reshape in -sdy-resolve-permutation-factors (PARTITION.md 4.9): a reshape whose operand
// and result shardings describe the same distribution of the flattened elements stays; one whose
// uneven dimensions only split with at most one neighbour hop is computed by halo exchange; every
// other one is replicated on its uneven groups.
#include <algorithm>

#include "core/ir/ShardingAccess.h"
#include "core/partition/LocalOps.h"
#include "core/partition/PermutationFactorsInternal.h"

namespace shardx::partition {
namespace {

/// Minimal runs of input and output dimensions with equal products (PARTITION.md 4.9 "Groups").
struct ReshapeGroup {
    std::vector<int> ins, outs;
    int nonUnitIns = 0, nonUnitOuts = 0;
    bool passThrough() const { return nonUnitIns <= 1 && nonUnitOuts <= 1; }
    bool split() const { return nonUnitIns <= 1 && nonUnitOuts > 1; }
    bool neither() const { return nonUnitIns > 1 && nonUnitOuts > 1; }
};

std::vector<ReshapeGroup> reshapeGroups(const std::vector<int64_t>& in, const std::vector<int64_t>& out)
{
    std::vector<ReshapeGroup> groups;
    size_t i = 0, j = 0;
    while (i < in.size() || j < out.size()) {
        ReshapeGroup g;
        int64_t pin = 1, pout = 1;
        auto takeIn = [&] {
            g.ins.push_back(static_cast<int>(i));
            g.nonUnitIns += in[i] != 1;
            pin *= in[i++];
        };
        auto takeOut = [&] {
            g.outs.push_back(static_cast<int>(j));
            g.nonUnitOuts += out[j] != 1;
            pout *= out[j++];
        };
        if (i < in.size())
            takeIn();
        if (j < out.size())
            takeOut();
        while (pin != pout) {
            if (pin < pout && i < in.size())
                takeIn();
            else if (j < out.size())
                takeOut();
            else if (i < in.size())
                takeIn();
            else
                break;
        }
        groups.push_back(std::move(g));
    }
    return groups;
}

/// One atom of a sharding's axes, where it sits in the row-major flattened element space.
struct PlacedAtom {
    AxisRef atom;
    int64_t prefix = 1; ///< blocks on the major side: sizes of earlier dims times earlier atoms of its dim
    int64_t stride = 1; ///< elements between consecutive atom coordinates, with ceil-divided tiles
};

/// `axes` cut at `cuts` (per axis name: the sub-axis boundaries used anywhere), major to minor.
std::vector<AxisRef> splitAtoms(const std::vector<AxisRef>& axes,
                                const std::vector<std::pair<std::string, int64_t>>& cuts, const Mesh& mesh)
{
    std::vector<AxisRef> atoms;
    for (const AxisRef& a : axes) {
        const int64_t full = mesh.axisSize(a.name).value_or(1);
        const int64_t lo = a.preSize(), hi = a.nextPreSize(mesh);
        std::vector<int64_t> points = {lo, hi};
        for (const auto& [name, c] : cuts)
            if (name == a.name && c > lo && c < hi)
                points.push_back(c);
        std::sort(points.begin(), points.end());
        points.erase(std::unique(points.begin(), points.end()), points.end());
        for (size_t k = 0; k + 1 < points.size(); ++k) {
            const int64_t size = points[k + 1] / points[k];
            atoms.push_back(points[k] == 1 && size == full ? AxisRef(a.name) : AxisRef(a.name, points[k], size));
        }
    }
    return atoms;
}

std::vector<PlacedAtom> placeAtoms(const std::vector<int64_t>& shape, const TensorSharding& s,
                                   const std::vector<std::pair<std::string, int64_t>>& cuts, const Mesh& mesh)
{
    std::vector<PlacedAtom> placed;
    int64_t before = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
        int64_t after = 1;
        for (size_t k = d + 1; k < shape.size(); ++k)
            after *= shape[k];
        const std::vector<AxisRef> atoms =
            d < s.dims.size() ? splitAtoms(s.dims[d].axes, cuts, mesh) : std::vector<AxisRef>{};
        const int64_t n = axesProduct(atoms, mesh);
        const int64_t tile = ceilDivide(shape[d], std::max<int64_t>(n, 1));
        int64_t major = 1;
        for (size_t k = 0; k < atoms.size(); ++k) {
            int64_t minor = 1;
            for (size_t m = k + 1; m < atoms.size(); ++m)
                minor *= atoms[m].size(mesh);
            placed.push_back({atoms[k], before * major, tile * minor * after});
            major *= atoms[k].size(mesh);
        }
        before *= shape[d];
    }
    return placed;
}

/// The cut points of every sub-axis of `shardings`' dimensions.
std::vector<std::pair<std::string, int64_t>> cutPoints(const std::vector<const TensorSharding*>& shardings,
                                                       const Mesh& mesh)
{
    std::vector<std::pair<std::string, int64_t>> cuts;
    for (const TensorSharding* s : shardings)
        for (const DimSharding& d : s->dims)
            for (const AxisRef& a : d.axes)
                if (a.isSubAxis()) {
                    cuts.emplace_back(a.name, a.preSize());
                    cuts.emplace_back(a.name, a.nextPreSize(mesh));
                }
    return cuts;
}

int64_t dimShards(const TensorSharding& s, size_t d, const Mesh& mesh)
{
    return d < s.dims.size() ? axesProduct(s.dims[d].axes, mesh) : 1;
}

} // namespace

void PermutationResolver::reshape(ir::Op* op)
{
    ir::Value* input = op->operand(0);
    const TensorSharding* inPtr = ir::shardingOfValue(input);
    const TensorSharding* outPtr = ir::shardingOfValue(op->result(0));
    if (!inPtr || !outPtr)
        return;
    const Mesh* meshPtr = meshOf(*inPtr);
    if (!meshPtr || meshPtr->isMaximal() || !input->type().isRankedTensor() || !op->result(0)->type().isRankedTensor())
        return;
    const Mesh mesh = *meshPtr;
    const TensorSharding in = *inPtr, out = *outPtr;
    const ir::Type inType = input->type(), outType = op->result(0)->type();
    const std::vector<int64_t> inShape = inType.shape(), outShape = outType.shape();
    if (std::find(inShape.begin(), inShape.end(), ir::Type::kDynamic) != inShape.end() ||
        std::find(outShape.begin(), outShape.end(), ir::Type::kDynamic) != outShape.end())
        return;

    // Both shardings must order the same axes (adjacent sub-axes merged) the same way.
    const std::vector<std::pair<std::string, int64_t>> cuts = cutPoints({&in, &out}, mesh);
    const std::vector<PlacedAtom> inAtoms = placeAtoms(inShape, in, cuts, mesh);
    const std::vector<PlacedAtom> outAtoms = placeAtoms(outShape, out, cuts, mesh);
    if (inAtoms.size() != outAtoms.size())
        return;
    bool equivalent = true, strict = true;
    for (size_t k = 0; k < inAtoms.size(); ++k) {
        if (!(inAtoms[k].atom == outAtoms[k].atom))
            return;
        equivalent = equivalent && inAtoms[k].prefix == outAtoms[k].prefix;
        strict = strict && inAtoms[k].stride == outAtoms[k].stride;
    }
    strict = strict && equivalent;
    const std::vector<ReshapeGroup> groups = reshapeGroups(inShape, outShape);
    const bool allPassThrough =
        std::all_of(groups.begin(), groups.end(), [](const ReshapeGroup& g) { return g.passThrough(); });
    if (equivalent && (strict || allPassThrough))
        return;

    // Uneven dimensions and their groups.
    std::vector<int64_t> paddedIn = inShape, paddedOut = outShape;
    auto pad = [&](std::vector<int64_t>& shape, const TensorSharding& s, int d) {
        const int64_t n = dimShards(s, static_cast<size_t>(d), mesh);
        int64_t& size = shape[static_cast<size_t>(d)];
        if (n > 1 && size % n != 0) {
            size = ceilDivide(size, n) * n;
            return true;
        }
        return false;
    };
    std::vector<bool> uneven(groups.size(), false);
    for (size_t g = 0; g < groups.size(); ++g) {
        for (int d : groups[g].ins)
            uneven[g] = pad(paddedIn, in, d) || uneven[g];
        for (int d : groups[g].outs)
            uneven[g] = pad(paddedOut, out, d) || uneven[g];
    }
    std::vector<std::string> manual;
    std::vector<AxisRef> removed;
    for (size_t g = 0; g < groups.size(); ++g) {
        if (!uneven[g])
            continue;
        auto collect = [&](const TensorSharding& s, const std::vector<int>& dims) {
            for (int d : dims)
                for (const AxisRef& a : s.dims[static_cast<size_t>(d)].axes) {
                    if (std::find(manual.begin(), manual.end(), a.name) == manual.end())
                        manual.push_back(a.name);
                    if (!groups[g].passThrough())
                        removed.push_back(a);
                }
        };
        collect(in, groups[g].ins);
        collect(out, groups[g].outs);
    }

    // Replication of the uneven, non-pass-through groups (always: reshard, reshape, reshard).
    auto replicate = [&] {
        auto reduce = [&](TensorSharding s) {
            for (DimSharding& d : s.dims)
                d.axes = axisListDifference(d.axes, removed, mesh);
            return s;
        };
        ir::Builder b;
        b.setInsertionPoint(*op);
        b.setLocationOf(*op);
        ir::Op* before = b.create("sdy.reshard", {input}, {inType});
        ir::setOpSharding(*before, reduce(in));
        ir::Op* local = b.create("stablehlo.reshape", {before->result(0)}, {outType});
        ir::setResultShardings(*local, ShardingPerValue{{reduce(out)}});
        ir::Op* after = b.create("sdy.reshard", {local->result(0)}, {outType});
        ir::setOpSharding(*after, out);
        op->result(0)->replaceAllUsesWith(after->result(0));
        op->dropAllReferences();
        op->erase();
    };
    const bool anyUneven = std::find(uneven.begin(), uneven.end(), true) != uneven.end();
    if (!equivalent || !anyUneven || !m_options.enableHaloExchange)
        return replicate();

    // The halo plan: every uneven group that moves data must be a split of one dimension.
    std::vector<size_t> active;
    for (size_t g = 0; g < groups.size(); ++g) {
        const ReshapeGroup& group = groups[g];
        if (group.passThrough() || !uneven[g])
            continue;
        if (group.neither() || !group.split() || group.ins.empty() || group.outs.empty())
            return replicate();
        int64_t inVolume = 1, outVolume = 1;
        for (int d : group.ins) {
            if (inShape[static_cast<size_t>(d)] == 1)
                return replicate();
            inVolume *= paddedIn[static_cast<size_t>(d)];
        }
        for (int d : group.outs) {
            if (outShape[static_cast<size_t>(d)] == 1)
                return replicate();
            outVolume *= paddedOut[static_cast<size_t>(d)];
        }
        const int64_t firstIn = paddedIn[static_cast<size_t>(group.ins.front())];
        const int64_t firstOut = paddedOut[static_cast<size_t>(group.outs.front())];
        if ((firstIn % firstOut != 0 && firstOut % firstIn != 0) || inVolume != outVolume)
            return replicate();
        active.push_back(g);
    }
    if (active.empty())
        return replicate();

    // The exchange of each active group's input dimension (at most one hop each way).
    struct Exchange {
        int dim = 0;
        std::vector<AxisRef> axes; ///< the group's output axes, combined
        int64_t sOut = 0, leftHops = 0, rightHops = 0;
        std::vector<int64_t> offsets;
    };
    std::vector<Exchange> exchanges;
    for (size_t g : active) {
        const ReshapeGroup& group = groups[g];
        Exchange x;
        x.dim = group.ins.front();
        const size_t d = static_cast<size_t>(x.dim);
        const int64_t n = dimShards(in, d, mesh);
        if (n <= 1)
            return replicate();
        const int64_t size = inShape[d];
        x.sOut = paddedIn[d] / n;
        const int64_t tile = ceilDivide(size, n);
        std::vector<int64_t> counts, tiles, inner;
        for (int o : group.outs) {
            const size_t k = static_cast<size_t>(o);
            x.axes.insert(x.axes.end(), out.dims[k].axes.begin(), out.dims[k].axes.end());
            counts.push_back(dimShards(out, k, mesh));
            tiles.push_back(ceilDivide(outShape[k], counts.back()));
        }
        for (size_t k = 0; k < group.outs.size(); ++k) {
            int64_t p = 1;
            for (size_t m = k + 1; m < group.outs.size(); ++m)
                p *= outShape[static_cast<size_t>(group.outs[m])];
            inner.push_back(p);
        }
        std::vector<int64_t> first(static_cast<size_t>(n)), source(static_cast<size_t>(n));
        for (int64_t t = 0; t < n; ++t) {
            int64_t rest = t, start = 0;
            for (size_t k = group.outs.size(); k-- > 0;) {
                start += (rest % counts[k]) * tiles[k] * inner[k];
                rest /= counts[k];
            }
            const int64_t src = start < size ? start / tile : -1;
            const int64_t lastElement = start + x.sOut - 1;
            const int64_t last = lastElement < size ? lastElement / tile : -1;
            if (src >= 0 && src < t)
                x.leftHops = std::max(x.leftHops, t - src);
            if (last > t)
                x.rightHops = std::max(x.rightHops, last - t);
            first[static_cast<size_t>(t)] = start;
            source[static_cast<size_t>(t)] = src;
        }
        if (x.leftHops > 1 || x.rightHops > 1)
            return replicate();
        for (int64_t t = 0; t < n; ++t) {
            const int64_t src = source[static_cast<size_t>(t)] >= 0 ? source[static_cast<size_t>(t)] : t;
            const int64_t localOffset = first[static_cast<size_t>(t)] - src * tile;
            x.offsets.push_back(x.sOut + (x.leftHops + src - t) * tile + localOffset);
        }
        exchanges.push_back(std::move(x));
    }
    std::sort(exchanges.begin(), exchanges.end(), [](const Exchange& a, const Exchange& b) { return a.dim < b.dim; });

    // The manual computation over the uneven groups' axes.
    std::vector<std::string> manualInMeshOrder;
    for (const MeshAxis& axis : mesh.axes())
        if (std::find(manual.begin(), manual.end(), axis.name) != manual.end())
            manualInMeshOrder.push_back(axis.name);
    auto localShape = [&](std::vector<int64_t> shape, const TensorSharding& s) {
        for (size_t d = 0; d < shape.size() && d < s.dims.size(); ++d) {
            int64_t n = 1;
            for (const AxisRef& a : s.dims[d].axes)
                if (std::find(manualInMeshOrder.begin(), manualInMeshOrder.end(), a.name) != manualInMeshOrder.end())
                    n *= a.size(mesh);
            shape[d] /= n;
        }
        return shape;
    };
    ir::Builder b;
    b.setInsertionPoint(*op);
    b.setLocationOf(*op);
    const ir::Type scalar = ir::Type::tensor({}, inType.elementType());
    ir::Value* padValue = zeros(b, scalar);
    ir::Value* x = input;
    if (paddedIn != inShape)
        x = padHigh(b, input, zeros(b, scalar), inType.withShape(paddedIn), &in);
    TensorSharding scalarSharding;
    scalarSharding.mesh = in.mesh;
    ir::Op* mc = manualComputation(b, {x, padValue}, ShardingPerValue{{in, scalarSharding}}, ShardingPerValue{{out}},
                                   manualInMeshOrder, {inType.withShape(localShape(paddedIn, in)), scalar},
                                   outType.withShape(paddedOut));
    const TensorSharding localIn = withoutManualAxes(in, manualInMeshOrder);
    const TensorSharding localOut = withoutManualAxes(out, manualInMeshOrder);
    ir::Value* cur = mc->region(0).front().arg(0);
    ir::Value* bodyPad = mc->region(0).front().arg(1);
    for (const Exchange& e : exchanges) {
        ir::Value* buffer =
            haloBuffer(b, cur, bodyPad, e.dim, mesh, e.axes, e.leftHops, e.rightHops, e.sOut, 0, localIn);
        ir::Value* t = runtimeShardIndex(b, deviceId(b), mesh, e.axes);
        ir::Value* table = i64Table(b, e.offsets);
        ir::Op* one = b.create("stablehlo.dynamic_slice", {table, t}, {ir::Type::tensor({1}, "i64")});
        one->setProp("slice_sizes", ir::denseI64ArrayAttr({1}));
        ir::Value* offset = b.createValue("stablehlo.reshape", {one->result(0)}, scalarTensor("i64"));
        ir::Value* zero = i64Scalar(b, 0);
        cur = extract(b, buffer, e.dim, offset, zero, e.sOut, localIn);
    }
    ir::Op* local = b.create("stablehlo.reshape", {cur}, {outType.withShape(localShape(paddedOut, out))});
    ir::setResultShardings(*local, ShardingPerValue{{localOut}});
    b.create("sdy.return", {local->result(0)}, {});
    b.setInsertionPointAfter(*mc);
    ir::Value* result = mc->result(0);
    if (paddedOut != outShape)
        result = trim(b, result, outShape, &out);
    op->result(0)->replaceAllUsesWith(result);
    op->dropAllReferences();
    op->erase();
}

} // namespace shardx::partition
