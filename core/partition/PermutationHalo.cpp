// Halo exchange of -sdy-resolve-permutation-factors (PARTITION.md 4.5-4.8): pad and slice read
// their neighbours' blocks inside an sdy.manual_computation; reverse moves the padding of uneven
// dimensions to the low edge and then reverses the device order with a reversed mesh.
#include <algorithm>

#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/ir/StablehloAttrs.h"
#include "core/mesh/DeviceLayout.h"
#include "core/partition/LocalOps.h"
#include "core/partition/PermutationFactorsInternal.h"

namespace shardx::partition {
namespace {

std::vector<int64_t> haloInts(const ir::Op& op, const char* name)
{
    return stablehlo::intList(op.attr(name)).value_or(std::vector<int64_t>{});
}

int64_t haloAt(const std::vector<int64_t>& v, size_t i, int64_t fallback) { return i < v.size() ? v[i] : fallback; }

/// The names of the axes of `dims`' shardings, in mesh order.
std::vector<std::string> axisNamesInMeshOrder(const std::vector<const DimSharding*>& dims, const Mesh& mesh)
{
    std::vector<std::string> names;
    for (const MeshAxis& axis : mesh.axes())
        for (const DimSharding* d : dims)
            if (std::any_of(d->axes.begin(), d->axes.end(), [&](const AxisRef& a) { return a.name == axis.name; }) &&
                std::find(names.begin(), names.end(), axis.name) == names.end())
                names.push_back(axis.name);
    return names;
}

/// The product of the sizes of the axes of `d` whose names are in `manual`.
int64_t manualShards(const DimSharding& d, const std::vector<std::string>& manual, const Mesh& mesh)
{
    int64_t n = 1;
    for (const AxisRef& a : d.axes)
        if (std::find(manual.begin(), manual.end(), a.name) != manual.end())
            n *= a.size(mesh);
    return n;
}

/// `tensor<...>` of `v` with dimension `dim` set to `size`.
ir::Type withDim(const ir::Type& t, int dim, int64_t size)
{
    std::vector<int64_t> shape = t.shape();
    shape[static_cast<size_t>(dim)] = size;
    return t.withShape(shape);
}

/// `stablehlo.slice` of `x` taking `[start, limit)` in `dim` and everything elsewhere.
ir::Value* sliceDim(ir::Builder& b, ir::Value* x, int dim, int64_t start, int64_t limit, const TensorSharding& local)
{
    const ir::Type& t = x->type();
    std::vector<int64_t> starts(static_cast<size_t>(t.rank()), 0), limits = t.shape(),
                                                                   strides(static_cast<size_t>(t.rank()), 1);
    starts[static_cast<size_t>(dim)] = start;
    limits[static_cast<size_t>(dim)] = limit;
    ir::Op* slice = b.create("stablehlo.slice", {x}, {withDim(t, dim, limit - start)});
    slice->setProp("limit_indices", ir::denseI64ArrayAttr(limits));
    slice->setProp("start_indices", ir::denseI64ArrayAttr(starts));
    slice->setProp("strides", ir::denseI64ArrayAttr(strides));
    ir::setResultShardings(*slice, ShardingPerValue{{local}});
    return slice->result(0);
}

/// `stablehlo.concatenate` of `parts` along `dim`.
ir::Value* concatAlong(ir::Builder& b, const std::vector<ir::Value*>& parts, int dim, const TensorSharding& local)
{
    int64_t size = 0;
    for (ir::Value* p : parts)
        size += p->type().dim(dim);
    ir::Op* concat = b.create("stablehlo.concatenate", parts, {withDim(parts.front()->type(), dim, size)});
    concat->setProp("dimension", ir::integerAttr(dim, "i64"));
    ir::setResultShardings(*concat, ShardingPerValue{{local}});
    return concat->result(0);
}

} // namespace

HaloGeometry PermutationResolver::padSliceGeometry(int64_t inSize, int64_t outSize, int64_t shards, int64_t padLow,
                                                   int64_t dilation)
{
    HaloGeometry g;
    g.shards = shards;
    g.sIn = ceilDivide(inSize, shards);
    g.sOut = ceilDivide(outSize, shards);
    for (int64_t t = 0; t < shards; ++t) {
        // C++ division truncates toward zero, as the source's does (PARTITION.md 4.3).
        const int64_t start = (t * g.sOut - padLow) / dilation;
        const int64_t limit = start + g.sOut - 1;
        const int64_t lo = std::max<int64_t>(0, start), hi = std::min(inSize - 1, limit);
        int64_t source = -1, last = -1;
        if (lo <= hi) {
            source = lo / g.sIn;
            last = hi / g.sIn;
        }
        g.source.push_back(source);
        g.localOffset.push_back(source >= 0 ? start - source * g.sIn : 0);
        if (source == -1 || source != t || last != t)
            g.communication = true;
        if (source >= 0 && source < t)
            g.leftHops = std::max(g.leftHops, t - source);
        if (last > t)
            g.rightHops = std::max(g.rightHops, last - t);
    }
    return g;
}

ir::Value* PermutationResolver::shift(ir::Builder& b, ir::Value* x, const Mesh& mesh, const std::vector<AxisRef>& axes,
                                      int64_t by, const TensorSharding* sharding)
{
    const std::vector<std::pair<int64_t, int64_t>> pairs = shiftPairs(mesh, axes, by);
    if (pairs.empty())
        return nullptr;
    std::vector<int64_t> flat;
    for (const auto& [source, target] : pairs) {
        flat.push_back(source);
        flat.push_back(target);
    }
    ir::Op* permute = b.create("stablehlo.collective_permute", {x}, {x->type()});
    if (m_nextChannel == 0) // the first: after the largest of the module (its copies add none larger)
        m_nextChannel = largestChannelHandle(m_module.op()) + 1;
    permute->setProp("channel_handle",
                     attr("#stablehlo.channel_handle<handle = " + std::to_string(m_nextChannel++) + ", type = 1>"));
    permute->setProp("source_target_pairs", attr(i64DenseText(flat, {static_cast<int64_t>(pairs.size()), 2})));
    if (sharding)
        ir::setResultShardings(*permute, ShardingPerValue{{*sharding}});
    return permute->result(0);
}

ir::Value* PermutationResolver::haloBuffer(ir::Builder& b, ir::Value* x, ir::Value* padValue, int dim, const Mesh& mesh,
                                           const std::vector<AxisRef>& axes, int64_t leftHops, int64_t rightHops,
                                           int64_t edge, int64_t interior, const TensorSharding& local)
{
    // Left neighbours farthest first, then right neighbours nearest first; a shift nobody takes
    // part in leaves the local block in its slot.
    std::vector<ir::Value*> left, right;
    for (int64_t h = leftHops; h >= 1; --h) {
        ir::Value* fetched = shift(b, x, mesh, axes, h, nullptr);
        left.push_back(fetched ? fetched : x);
    }
    for (int64_t h = 1; h <= rightHops; ++h) {
        ir::Value* fetched = shift(b, x, mesh, axes, -h, nullptr);
        right.push_back(fetched ? fetched : x);
    }
    std::vector<ir::Value*> parts = left;
    parts.push_back(x);
    parts.insert(parts.end(), right.begin(), right.end());
    ir::Value* concat = concatAlong(b, parts, dim, local);
    const int rank = concat->type().rank();
    std::vector<int64_t> edges(static_cast<size_t>(rank), 0), inner(static_cast<size_t>(rank), 0);
    edges[static_cast<size_t>(dim)] = edge;
    inner[static_cast<size_t>(dim)] = interior;
    const int64_t n = concat->type().dim(dim);
    const int64_t size = 2 * edge + n + std::max<int64_t>(0, n - 1) * interior;
    ir::Op* pad = b.create("stablehlo.pad", {concat, padValue}, {withDim(concat->type(), dim, size)});
    pad->setProp("edge_padding_high", ir::denseI64ArrayAttr(edges));
    pad->setProp("edge_padding_low", ir::denseI64ArrayAttr(edges));
    pad->setProp("interior_padding", ir::denseI64ArrayAttr(inner));
    ir::setResultShardings(*pad, ShardingPerValue{{local}});
    return pad->result(0);
}

ir::Value* PermutationResolver::extract(ir::Builder& b, ir::Value* buffer, int dim, ir::Value* offset, ir::Value* zero,
                                        int64_t size, const TensorSharding& local)
{
    std::vector<ir::Value*> operands = {buffer};
    for (int d = 0; d < buffer->type().rank(); ++d)
        operands.push_back(d == dim ? offset : zero);
    const ir::Type type = withDim(buffer->type(), dim, size);
    ir::Op* slice = b.create("stablehlo.dynamic_slice", operands, {type});
    slice->setProp("slice_sizes", ir::denseI64ArrayAttr(type.shape()));
    ir::setResultShardings(*slice, ShardingPerValue{{local}});
    return slice->result(0);
}

ir::Op* PermutationResolver::manualComputation(ir::Builder& b, const std::vector<ir::Value*>& operands,
                                               const ShardingPerValue& in, const ShardingPerValue& out,
                                               const std::vector<std::string>& manualAxes,
                                               const std::vector<ir::Type>& localTypes, const ir::Type& resultType)
{
    ir::OperationState state("sdy.manual_computation");
    state.operands = operands;
    state.resultTypes = {resultType};
    state.numRegions = 1;
    ir::Op* manual = b.create(std::move(state));
    ir::setInShardings(*manual, in);
    ir::setOutShardings(*manual, out);
    ir::setManualAxes(*manual, manualAxes);
    b.createBlock(manual->region(0), localTypes);
    return manual;
}

bool PermutationResolver::haloPadOrSlice(ir::Op* op)
{
    const bool isPad = op->name() == "stablehlo.pad";
    ir::Value* input = op->operand(0);
    const TensorSharding* in = ir::shardingOfValue(input);
    const Mesh* mesh = in ? meshOf(*in) : nullptr;
    if (!in || !in->hasDimAxes() || !mesh || mesh->isMaximal())
        return true;
    const ir::Type& inType = input->type();
    const ir::Type& outType = op->result(0)->type();
    const int rank = inType.rank();
    const std::vector<int64_t> low = haloInts(*op, isPad ? "edge_padding_low" : "start_indices");
    const std::vector<int64_t> high = isPad ? haloInts(*op, "edge_padding_high") : haloInts(*op, "limit_indices");
    const std::vector<int64_t> interior = isPad ? haloInts(*op, "interior_padding") : std::vector<int64_t>{};

    // 1. The geometry of every sharded dimension; nothing to do without communication.
    std::vector<HaloGeometry> geometry(static_cast<size_t>(rank));
    std::vector<const DimSharding*> shardedDims;
    bool communication = false;
    for (int d = 0; d < rank && d < in->rank(); ++d) {
        const size_t i = static_cast<size_t>(d);
        const int64_t n = axesProduct(in->dims[i].axes, *mesh);
        if (n <= 1)
            continue;
        shardedDims.push_back(&in->dims[i]);
        const int64_t padLow = isPad ? haloAt(low, i, 0) : -haloAt(low, i, 0);
        const int64_t dilation = isPad ? haloAt(interior, i, 0) + 1 : 1;
        geometry[i] = padSliceGeometry(inType.dim(d), outType.dim(d), n, padLow, dilation);
        communication = communication || geometry[i].communication;
    }
    if (!communication)
        return true;
    // 2. The hop limit refuses halo exchange for the whole op.
    for (const HaloGeometry& g : geometry)
        if (g.shards > 1 && g.leftHops + g.rightHops + 1 >= g.shards && (g.leftHops > 1 || g.rightHops > 1))
            return false;

    // 3. The divisible input, padded on the high side.
    ir::Builder b;
    b.setInsertionPoint(*op);
    b.setLocationOf(*op);
    const ir::Type scalar = ir::Type::tensor({}, inType.elementType());
    std::vector<int64_t> divisible = inType.shape();
    for (int d = 0; d < rank; ++d)
        if (geometry[static_cast<size_t>(d)].shards > 1)
            divisible[static_cast<size_t>(d)] =
                geometry[static_cast<size_t>(d)].shards * geometry[static_cast<size_t>(d)].sIn;
    ir::Value* padValue = isPad ? op->operand(1) : nullptr;
    ir::Value* x = input;
    if (inType.withShape(divisible) != inType)
        x = padHigh(b, input, isPad ? padValue : zeros(b, scalar), inType.withShape(divisible), in);
    if (!isPad)
        padValue = zeros(b, scalar);

    // 4. The manual computation over the axes of the sharded dimensions.
    const std::vector<std::string> manual = axisNamesInMeshOrder(shardedDims, *mesh);
    std::vector<int64_t> localIn = divisible;
    for (int d = 0; d < rank; ++d)
        localIn[static_cast<size_t>(d)] /= manualShards(in->dims[static_cast<size_t>(d)], manual, *mesh);
    const ir::Type paddedOut = paddedType(outType, in, mesh);
    TensorSharding scalarSharding;
    scalarSharding.mesh = in->mesh;
    ir::Op* mc = manualComputation(b, {x, padValue}, ShardingPerValue{{*in, scalarSharding}}, ShardingPerValue{{*in}},
                                   manual, {inType.withShape(localIn), scalar}, paddedOut);
    const TensorSharding local = withoutManualAxes(*in, manual);
    ir::Block& body = mc->region(0).front();
    ir::Value* cur = body.arg(0);
    ir::Value* bodyPad = body.arg(1);

    // 5. One exchange per communicating dimension, in order.
    for (int d = 0; d < rank; ++d) {
        const size_t i = static_cast<size_t>(d);
        const HaloGeometry& g = geometry[i];
        if (g.shards <= 1 || !g.communication)
            continue;
        const int64_t padLow = isPad ? haloAt(low, i, 0) : -haloAt(low, i, 0);
        const int64_t dilation = isPad ? haloAt(interior, i, 0) + 1 : 1;
        const std::vector<AxisRef>& axes = in->dims[i].axes;
        ir::Value* buffer = haloBuffer(b, cur, bodyPad, d, *mesh, axes, g.leftHops, g.rightHops, g.sOut * dilation,
                                       dilation - 1, local);
        ir::Value* t = runtimeShardIndex(b, deviceId(b), *mesh, axes);
        ir::Value* diff = i64Scalar(b, g.sOut - g.sIn * dilation);
        ir::Value* base = i64Scalar(b, -padLow + g.leftHops * g.sIn * dilation + g.sOut * dilation);
        ir::Value* scaled = b.createValue("stablehlo.multiply", {t, diff}, scalarTensor("i64"));
        ir::Value* sum = b.createValue("stablehlo.add", {scaled, base}, scalarTensor("i64"));
        ir::Value* zero = i64Scalar(b, 0);
        ir::Value* offset = b.createValue("stablehlo.maximum", {sum, zero}, scalarTensor("i64"));
        cur = extract(b, buffer, d, offset, zero, g.sOut, local);
    }

    // 6. The op's own work on the unsharded dimensions.
    const ir::Type& curType = cur->type();
    if (isPad) {
        std::vector<int64_t> lo(static_cast<size_t>(rank), 0), hi = lo, in2 = lo;
        bool any = false;
        for (int d = 0; d < rank; ++d) {
            const size_t i = static_cast<size_t>(d);
            if (geometry[i].shards > 1)
                continue;
            lo[i] = haloAt(low, i, 0);
            hi[i] = haloAt(high, i, 0);
            in2[i] = haloAt(interior, i, 0);
            any = any || lo[i] || hi[i] || in2[i];
        }
        if (any) {
            std::vector<int64_t> shape = curType.shape();
            for (size_t i = 0; i < shape.size(); ++i)
                shape[i] = lo[i] + hi[i] + shape[i] + std::max<int64_t>(0, shape[i] - 1) * in2[i];
            ir::Op* pad = b.create("stablehlo.pad", {cur, bodyPad}, {curType.withShape(shape)});
            pad->setProp("edge_padding_high", ir::denseI64ArrayAttr(hi));
            pad->setProp("edge_padding_low", ir::denseI64ArrayAttr(lo));
            pad->setProp("interior_padding", ir::denseI64ArrayAttr(in2));
            ir::setResultShardings(*pad, ShardingPerValue{{local}});
            cur = pad->result(0);
        }
    } else {
        // Unsharded dimensions keep the op's strides (PARTITION.md 4.7 says stride 1; the two agree
        // on every unit, and only the strides give the result its type when they are not 1).
        const std::vector<int64_t> opStrides = haloInts(*op, "strides");
        std::vector<int64_t> starts(static_cast<size_t>(rank), 0), limits = curType.shape(),
                                                                   strides(static_cast<size_t>(rank), 1);
        bool any = false;
        for (int d = 0; d < rank; ++d) {
            const size_t i = static_cast<size_t>(d);
            if (geometry[i].shards > 1)
                continue;
            starts[i] = haloAt(low, i, 0);
            limits[i] = haloAt(high, i, curType.dim(d));
            strides[i] = std::max<int64_t>(1, haloAt(opStrides, i, 1));
            any = any || starts[i] != 0 || limits[i] != curType.dim(d) || strides[i] != 1;
        }
        if (any) {
            std::vector<int64_t> shape;
            for (size_t i = 0; i < starts.size(); ++i)
                shape.push_back(ceilDivide(limits[i] - starts[i], strides[i]));
            ir::Op* slice = b.create("stablehlo.slice", {cur}, {curType.withShape(shape)});
            slice->setProp("limit_indices", ir::denseI64ArrayAttr(limits));
            slice->setProp("start_indices", ir::denseI64ArrayAttr(starts));
            slice->setProp("strides", ir::denseI64ArrayAttr(strides));
            ir::setResultShardings(*slice, ShardingPerValue{{local}});
            cur = slice->result(0);
        }
    }
    b.create("sdy.return", {cur}, {});

    // 7. Trim back to the op's type and replace it.
    b.setInsertionPointAfter(*mc);
    ir::Value* result = mc->result(0);
    if (paddedOut != outType)
        result = trim(b, result, outType.shape(), in);
    op->result(0)->replaceAllUsesWith(result);
    op->dropAllReferences();
    op->erase();
    return true;
}

void PermutationResolver::haloReverse(ir::Op* op)
{
    ir::Value* input = op->operand(0);
    const TensorSharding* in = ir::shardingOfValue(input);
    const Mesh* mesh = in ? meshOf(*in) : nullptr;
    if (!in || !in->hasDimAxes() || !mesh || mesh->isMaximal() || in->mesh.isInline())
        return;
    const Mesh meshCopy = *mesh;
    const TensorSharding inCopy = *in;
    const std::vector<int64_t> dims = haloInts(*op, "dimensions");
    const ir::Type& type = input->type();

    // 1. The axes to reverse, and the uneven reversed dimensions.
    std::vector<AxisRef> axesToReverse;
    std::vector<const DimSharding*> uneven;
    std::vector<int64_t> padded = type.shape();
    for (int64_t d : dims) {
        if (d < 0 || d >= inCopy.rank())
            continue;
        const DimSharding& ds = inCopy.dims[static_cast<size_t>(d)];
        const int64_t n = axesProduct(ds.axes, meshCopy);
        if (n <= 1)
            continue;
        axesToReverse.insert(axesToReverse.end(), ds.axes.begin(), ds.axes.end());
        const int64_t size = type.dim(static_cast<int>(d));
        if (size % n != 0) {
            uneven.push_back(&ds);
            padded[static_cast<size_t>(d)] = ceilDivide(size, n) * n;
        }
    }
    if (axesToReverse.empty())
        return;

    ir::Builder b;
    b.setInsertionPoint(*op);
    b.setLocationOf(*op);
    ir::Value* shifted = input;
    const ir::Type paddedType = type.withShape(padded);
    if (!uneven.empty()) {
        // 2. Pad on the high side, then move the padding to the low side by a right shift.
        ir::Value* pad = padHigh(b, input, zeros(b, ir::Type::tensor({}, type.elementType())), paddedType, &inCopy);
        const std::vector<std::string> manual = axisNamesInMeshOrder(uneven, meshCopy);
        std::vector<int64_t> localShape = padded;
        for (size_t d = 0; d < localShape.size() && d < inCopy.dims.size(); ++d)
            localShape[d] /= manualShards(inCopy.dims[d], manual, meshCopy);
        ir::Op* mc = manualComputation(b, {pad}, ShardingPerValue{{inCopy}}, ShardingPerValue{{inCopy}}, manual,
                                       {type.withShape(localShape)}, paddedType);
        const TensorSharding local = withoutManualAxes(inCopy, manual);
        ir::Value* cur = mc->region(0).front().arg(0);
        for (int64_t d : dims) {
            if (d < 0 || d >= inCopy.rank())
                continue;
            const DimSharding& ds = inCopy.dims[static_cast<size_t>(d)];
            if (std::find(uneven.begin(), uneven.end(), &ds) == uneven.end())
                continue;
            const int dim = static_cast<int>(d);
            const int64_t p = padded[static_cast<size_t>(d)] - type.dim(dim);
            const int64_t s = cur->type().dim(dim);
            const int64_t hops = p / s, frac = p % s;
            ir::Value* head = hops == 0 ? cur : shift(b, cur, meshCopy, ds.axes, hops, &local);
            ir::Value* tail = shift(b, cur, meshCopy, ds.axes, hops + 1, &local);
            // A shift with no partner at all delivers zeros.
            for (ir::Value** v : {&head, &tail}) {
                if (*v)
                    continue;
                ir::Value* zero = zeros(b, ir::Type::tensor({}, type.elementType()));
                ir::Op* bc = b.create("stablehlo.broadcast_in_dim", {zero}, {cur->type()});
                bc->setProp("broadcast_dimensions", ir::denseI64ArrayAttr({}));
                ir::setResultShardings(*bc, ShardingPerValue{{local}});
                *v = bc->result(0);
            }
            ir::Value* tailPart = sliceDim(b, tail, dim, s - frac, s, local);
            ir::Value* headPart = sliceDim(b, head, dim, 0, s - frac, local);
            cur = concatAlong(b, {tailPart, headPart}, dim, local);
        }
        b.create("sdy.return", {cur}, {});
        shifted = mc->result(0);
    }

    // 3. The reversed mesh: every coordinate along the reversed axes flipped.
    DeviceLayout layout(meshCopy);
    std::vector<int64_t> ids;
    for (int64_t pos = 0; pos < layout.numDevices(); ++pos) {
        std::vector<int64_t> coords = layout.coordsOf(pos);
        for (const AxisRef& a : axesToReverse) {
            const int at = meshCopy.axisIndex(a.name);
            if (at < 0)
                continue;
            const int64_t full = meshCopy.axes()[static_cast<size_t>(at)].size;
            const int64_t size = a.size(meshCopy);
            const int64_t minor = full / (a.preSize() * size);
            int64_t& c = coords[static_cast<size_t>(at)];
            const int64_t sub = (c / minor) % size;
            c += (size - 1 - 2 * sub) * minor;
        }
        ids.push_back(layout.deviceAt(layout.positionOfCoords(coords)));
    }
    const std::string reversedName = meshSymbolFor(Mesh(meshCopy.axes(), ids), inCopy.mesh.symbol);

    // 4. The reverse itself, on the reversed mesh.
    const TensorSharding* resultSharding = ir::shardingOfValue(op->result(0));
    const TensorSharding original =
        resultSharding ? *resultSharding : TensorSharding::closedReplicated(inCopy.mesh, type.rank());
    const std::vector<ir::Use> uses = op->result(0)->uses();
    op->setOperand(0, shifted);
    TensorSharding reversed = inCopy;
    reversed.mesh = MeshRef();
    reversed.mesh.symbol = reversedName;
    ir::setResultShardings(*op, ShardingPerValue{{reversed}});
    op->result(0)->setType(paddedType);

    // 5. Back to the original device order, then trimmed.
    ir::Builder a;
    a.setInsertionPointAfter(*op);
    a.setLocationOf(*op);
    ir::Op* reshard = a.create("sdy.reshard", {op->result(0)}, {paddedType});
    ir::setOpSharding(*reshard, original);
    ir::Value* result = reshard->result(0);
    if (paddedType != type)
        result = trim(a, result, type.shape(), &inCopy);
    for (const ir::Use& u : uses)
        u.user->setOperand(u.index, result);
}

} // namespace shardx::partition
