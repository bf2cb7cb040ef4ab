// -sdy-convert-global-to-local: the StableHLO ops whose per-device form differs from the global one
// (PARTITION.md 7.9).
#include <algorithm>
#include <cstdint>
#include <map>

#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/ir/StablehloAttrs.h"
#include "core/ir/Type.h"
#include "core/partition/GlobalToLocalInternal.h"
#include "core/partition/LocalOps.h"

namespace shardx::partition {

namespace {

const AxisList kNoAxes;

const AxisList& dimAxes(const TensorSharding* s, size_t dim)
{
    return s && dim < s->dims.size() ? s->dims[dim].axes : kNoAxes;
}

std::vector<int64_t> intsOf(const ir::Op& op, const char* name, int64_t expected = 0)
{
    return stablehlo::intList(op.attr(name), expected).value_or(std::vector<int64_t>{});
}

/// True when `v` is a constant whose every element is zero.
bool isZeroSplat(const ir::Value* v)
{
    const ir::Op* def = v->definingOp();
    if (!def || (def->name() != "stablehlo.constant" && def->name() != "sdy.constant"))
        return false;
    const ir::Attribute* a = def->attr("value");
    const ir::DenseElementsAttr* d = a ? std::get_if<ir::DenseElementsAttr>(&a->payload()) : nullptr;
    return d && std::all_of(d->data.begin(), d->data.end(), [](uint8_t b) { return b == 0; });
}

void removeDiscardable(ir::Op& op)
{
    std::vector<std::string> names;
    for (const ir::NamedAttribute& a : op.attrs())
        names.push_back(a.name);
    for (const std::string& n : names)
        op.removeAttribute(n);
}

} // namespace

bool Converter::dot(ir::Op* op)
{
    const TensorSharding* lhs = operandSharding(*op, 0);
    if (!fullyReplicated(lhs)) {
        const Mesh* mesh = meshOf(*lhs);
        if (!mesh)
            return fail(*op, "the mesh of this dot's lhs sharding cannot be found");
        std::vector<int64_t> contracting;
        if (op->name() == "stablehlo.dot") {
            contracting.push_back(op->operand(0)->type().rank() - 1);
        } else {
            const std::optional<stablehlo::DotDimensionNumbers>& dims = dotDimensionNumbers(*op);
            if (!dims)
                return fail(*op, "the dot_dimension_numbers of this dot_general cannot be read");
            contracting = dims->lhsContracting;
        }
        AxisList reduced;
        for (int64_t d : contracting) {
            const AxisList& a = dimAxes(lhs, static_cast<size_t>(d));
            reduced.insert(reduced.end(), a.begin(), a.end());
        }
        if (!reduced.empty()) {
            for (unsigned i = 0; i < 2 && i < op->numOperands(); ++i) {
                const ir::Op* def = op->operand(i)->definingOp();
                if (def && def->name() == "stablehlo.pad" && def->numOperands() > 1 && !isZeroSplat(def->operand(1)))
                    return fail(*op, "an operand of this dot is padded with a value that is not zero, so the padding "
                                     "of its sharded contracting dimension would be added in");
            }
            if (!checkReducedBy(*op, reduced, *mesh, false))
                return false;
        }
    }
    return localizeResults(*op);
}

bool Converter::convolution(ir::Op* op)
{
    const TensorSharding* lhs = operandSharding(*op, 0);
    const TensorSharding* rhs = op->numOperands() > 1 ? operandSharding(*op, 1) : nullptr;
    const TensorSharding* res = sharding(op->result(0));
    if (fullyReplicated(lhs) && fullyReplicated(rhs) && fullyReplicated(res))
        return localizeResults(*op);
    const Mesh* mesh = nullptr;
    for (const TensorSharding* s : {lhs, rhs, res})
        if (!mesh && s)
            mesh = meshOf(*s);
    if (!mesh)
        return fail(*op, "the mesh of this convolution's shardings cannot be found");
    std::optional<stablehlo::ConvDimensionNumbers> dims = stablehlo::convDimensionNumbers(*op);
    if (!dims)
        return fail(*op, "the dimension_numbers of this convolution cannot be read");
    AxisList reduced;
    auto addAll = [&](const AxisList& axes) {
        for (const AxisRef& a : axes)
            if (std::find(reduced.begin(), reduced.end(), a) == reduced.end())
                reduced.push_back(a);
    };
    addAll(dimAxes(rhs, static_cast<size_t>(dims->kernelInputFeature)));
    for (int64_t d : dims->kernelSpatial)
        addAll(dimAxes(rhs, static_cast<size_t>(d)));
    if (!reduced.empty() && !checkReducedBy(*op, reduced, *mesh, true))
        return false;
    auto localGroups = [&](const char* name, const AxisList& axes) -> std::optional<int64_t> {
        const int64_t g = stablehlo::intValue(op->attr(name)).value_or(1);
        if (g <= 1 || axes.empty())
            return g;
        const int64_t q = std::min(g, axesProduct(axes, *mesh));
        if (q <= 0 || g % q != 0) {
            fail(*op, std::string(name) + " " + std::to_string(g) + " does not divide among " + std::to_string(q) +
                          " shards");
            return std::nullopt;
        }
        return g / q;
    };
    std::optional<int64_t> features =
        localGroups("feature_group_count", dimAxes(rhs, static_cast<size_t>(dims->kernelOutputFeature)));
    std::optional<int64_t> batches =
        localGroups("batch_group_count", dimAxes(lhs, static_cast<size_t>(dims->inputBatch)));
    if (!features || !batches || !localizeResults(*op))
        return false;
    op->setProp("feature_group_count", ir::integerAttr(*features, "i64"));
    op->setProp("batch_group_count", ir::integerAttr(*batches, "i64"));
    removeDiscardable(*op);
    return true;
}

bool Converter::concatenate(ir::Op* op)
{
    const size_t c = static_cast<size_t>(stablehlo::intValue(op->attr("dimension")).value_or(0));
    const TensorSharding* res = sharding(op->result(0));
    if (!dimAxes(res, c).empty())
        return fail(*op,
                    "the result of this concatenate is sharded along the concatenated dimension " + std::to_string(c));
    for (unsigned k = 0; k < op->numOperands(); ++k) {
        const TensorSharding* s = operandSharding(*op, k);
        if (fullyReplicated(s))
            continue;
        if (!dimAxes(s, c).empty())
            return fail(*op, "an operand of this concatenate is sharded along the concatenated dimension " +
                                 std::to_string(c));
        for (size_t i = 0; i < s->dims.size(); ++i)
            if (i != c && dimAxes(s, i) != dimAxes(res, i))
                return fail(*op, "an operand of this concatenate is sharded differently from its result in dimension " +
                                     std::to_string(i));
    }
    return localizeResults(*op);
}

bool Converter::slice(ir::Op* op)
{
    const TensorSharding* in = operandSharding(*op, 0);
    const TensorSharding* out = sharding(op->result(0));
    if (fullyReplicated(in) && fullyReplicated(out))
        return localizeResults(*op);
    const Mesh* mesh = meshOf(in ? *in : *out);
    if (!mesh)
        return fail(*op, "the mesh of this slice's shardings cannot be found");
    const int rank = op->result(0)->type().rank();
    std::vector<int64_t> start = intsOf(*op, "start_indices"), limit = intsOf(*op, "limit_indices"),
                         strides = intsOf(*op, "strides");
    if (static_cast<int>(start.size()) != rank || static_cast<int>(limit.size()) != rank)
        return fail(*op, "the start and limit indices of this slice cannot be read");
    strides.resize(static_cast<size_t>(rank), 1);
    const ir::Type globalOut = op->result(0)->type();
    std::optional<ir::Type> localOut = localType(globalOut, out, *op);
    if (!localOut)
        return false;
    for (int i = 0; i < rank; ++i) {
        const AxisList& ai = dimAxes(in, static_cast<size_t>(i));
        if (ai != dimAxes(out, static_cast<size_t>(i)))
            return fail(*op, "dimension " + std::to_string(i) +
                                 " of this slice is sharded differently in its operand (" + axisListString(ai) +
                                 ") and its result (" + axisListString(dimAxes(out, static_cast<size_t>(i))) + ")");
        if (ai.empty())
            continue;
        const int64_t n = axesProduct(ai, *mesh);
        const int64_t localIn = op->operand(0)->type().dim(i);
        const int64_t globalIn = localIn * n;
        const int64_t outSize = globalOut.dim(i);
        auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
        const bool full = limit[static_cast<size_t>(i)] == globalIn;
        const bool free =
            n <= 1 || (strides[static_cast<size_t>(i)] == 1 && ceilDiv(globalIn, n) == ceilDiv(outSize, n));
        if (start[static_cast<size_t>(i)] != 0 || !(full || free))
            return fail(*op, "dimension " + std::to_string(i) +
                                 " of this slice is sharded and the slice is not the same on every shard; resolve it "
                                 "with -sdy-resolve-permutation-factors first");
        start[static_cast<size_t>(i)] = 0;
        limit[static_cast<size_t>(i)] = full ? localIn : localOut->dim(i);
    }
    op->setProp("start_indices", ir::denseI64ArrayAttr(start));
    op->setProp("limit_indices", ir::denseI64ArrayAttr(limit));
    removeDiscardable(*op);
    op->result(0)->setType(*localOut);
    return true;
}

bool Converter::pad(ir::Op* op)
{
    const TensorSharding* in = operandSharding(*op, 0);
    const TensorSharding* out = sharding(op->result(0));
    if (fullyReplicated(in)) {
        if (!fullyReplicated(out))
            return fail(*op, "this pad has a replicated operand and a sharded result");
        return localizeResults(*op);
    }
    const Mesh* mesh = meshOf(*in);
    if (!mesh)
        return fail(*op, "the mesh of this pad's operand sharding cannot be found");
    const int rank = op->result(0)->type().rank();
    const std::vector<int64_t> low = intsOf(*op, "edge_padding_low"), interior = intsOf(*op, "interior_padding");
    if (static_cast<int>(low.size()) != rank || static_cast<int>(interior.size()) != rank)
        return fail(*op, "the padding of this pad cannot be read");
    std::optional<ir::Type> local = localType(op->result(0)->type(), out, *op);
    if (!local)
        return false;
    const int64_t n = mesh->totalSize();
    std::vector<std::vector<int64_t>> offsets(static_cast<size_t>(rank));
    std::vector<bool> uniform(static_cast<size_t>(rank), true);
    bool allUniform = true;
    for (int i = 0; i < rank; ++i) {
        const AxisList& axes = dimAxes(in, static_cast<size_t>(i));
        if (axes != dimAxes(out, static_cast<size_t>(i)))
            return fail(*op, "dimension " + std::to_string(i) +
                                 " of this pad is sharded differently in its operand and result");
        const int64_t shards = axesProduct(axes, *mesh);
        const int64_t sIn = op->operand(0)->type().dim(i);
        const int64_t sOut = local->dim(i);
        (void)shards;
        for (int64_t dev = 0; dev < n; ++dev) {
            const int64_t k = axes.empty() ? 0 : shardIndex(dev, *mesh, axes);
            offsets[static_cast<size_t>(i)].push_back(k * sIn * (interior[static_cast<size_t>(i)] + 1) +
                                                      low[static_cast<size_t>(i)] - k * sOut);
        }
        const auto& o = offsets[static_cast<size_t>(i)];
        uniform[static_cast<size_t>(i)] = std::all_of(o.begin(), o.end(), [&](int64_t v) { return v == o.front(); });
        allUniform = allUniform && uniform[static_cast<size_t>(i)];
    }
    auto extent = [&](int i) {
        return (op->operand(0)->type().dim(i) - 1) * (interior[static_cast<size_t>(i)] + 1) + 1;
    };
    if (allUniform) {
        std::vector<int64_t> lo, hi;
        for (int i = 0; i < rank; ++i) {
            lo.push_back(offsets[static_cast<size_t>(i)].front());
            hi.push_back(local->dim(i) - (extent(i) + lo.back()));
        }
        op->setProp("edge_padding_low", ir::denseI64ArrayAttr(lo));
        op->setProp("edge_padding_high", ir::denseI64ArrayAttr(hi));
        removeDiscardable(*op);
        op->result(0)->setType(*local);
        return true;
    }
    // A pad that covers every device's window, then each device's slice of it.
    std::vector<int64_t> kLow, kHigh, safeShape;
    for (int i = 0; i < rank; ++i) {
        const auto& o = offsets[static_cast<size_t>(i)];
        kLow.push_back(std::max<int64_t>(0, *std::max_element(o.begin(), o.end())));
        kHigh.push_back(std::max<int64_t>(0, local->dim(i) - *std::min_element(o.begin(), o.end()) - extent(i)));
        safeShape.push_back(kLow.back() + extent(i) + kHigh.back());
    }
    ir::Builder b;
    b.setInsertionPoint(*op);
    b.setLocationOf(*op);
    ir::Value* safe = create(b, "stablehlo.pad", {op->operand(0), op->operand(1)}, {local->withShape(safeShape)},
                             {{"edge_padding_high", ir::denseI64ArrayAttr(kHigh)},
                              {"edge_padding_low", ir::denseI64ArrayAttr(kLow)},
                              {"interior_padding", ir::denseI64ArrayAttr(interior)}})
                          ->result(0);
    ir::Value* id = deviceId(b);
    std::vector<ir::Value*> operands = {safe};
    for (int i = 0; i < rank; ++i) {
        const auto& o = offsets[static_cast<size_t>(i)];
        if (uniform[static_cast<size_t>(i)]) {
            operands.push_back(i64Scalar(b, kLow[static_cast<size_t>(i)] - o.front()));
            continue;
        }
        std::vector<int64_t> table;
        for (int64_t v : o)
            table.push_back(kLow[static_cast<size_t>(i)] - v);
        ir::Value* t = i64Table(b, table);
        ir::Value* one = create(b, "stablehlo.dynamic_slice", {t, id}, {ir::Type::tensor({1}, "i64")},
                                {{"slice_sizes", ir::denseI64ArrayAttr({1})}})
                             ->result(0);
        operands.push_back(reshape(b, one, {}));
    }
    ir::Value* r = create(b, "stablehlo.dynamic_slice", operands, {*local},
                          {{"slice_sizes", ir::denseI64ArrayAttr(local->shape())}})
                       ->result(0);
    replace(op, r);
    return true;
}

bool Converter::iota(ir::Op* op)
{
    const TensorSharding* out = sharding(op->result(0));
    if (fullyReplicated(out))
        return true;
    const Mesh* mesh = meshOf(*out);
    if (!mesh)
        return fail(*op, "the mesh of this iota's sharding cannot be found");
    const size_t d = static_cast<size_t>(stablehlo::intValue(op->attr("iota_dimension")).value_or(0));
    std::optional<ir::Type> local = localType(op->result(0)->type(), out, *op);
    if (!local)
        return false;
    removeDiscardable(*op);
    ir::Value* i = op->result(0);
    i->setType(*local);
    const AxisList& axes = dimAxes(out, d);
    if (axes.empty())
        return true;
    const std::vector<ir::Use> uses = i->uses();
    ir::Builder b;
    b.setInsertionPointAfter(*op);
    b.setLocationOf(*op);
    ir::Value* o = offset(b, *mesh, axes, local->dim(static_cast<int>(d)));
    ir::Value* oc = b.createValue("stablehlo.convert", {o}, ir::Type::tensor({}, local->elementType()));
    ir::Value* ob =
        create(b, "stablehlo.broadcast_in_dim", {oc}, {*local}, {{"broadcast_dimensions", ir::denseI64ArrayAttr({})}})
            ->result(0);
    ir::Value* sum = b.createValue("stablehlo.add", {i, ob}, *local);
    m_shardings[sum] = out;
    for (const ir::Use& u : uses)
        u.user->setOperand(u.index, sum);
    return true;
}

bool Converter::windowed(ir::Op* op)
{
    const TensorSharding* in = operandSharding(*op, 0);
    if (!fullyReplicated(in)) {
        const Mesh* mesh = meshOf(*in);
        if (!mesh)
            return fail(*op, "the mesh of this op's operand sharding cannot be found");
        const int rank = op->operand(0)->type().rank();
        const std::vector<int64_t> window = intsOf(*op, "window_dimensions");
        const std::vector<int64_t> strides = intsOf(*op, "window_strides");
        const std::vector<int64_t> padding = intsOf(*op, "padding", 2 * rank);
        for (int i = 0; i < rank; ++i) {
            if (axesProduct(dimAxes(in, static_cast<size_t>(i)), *mesh) <= 1)
                continue;
            const size_t k = static_cast<size_t>(i);
            if (padding.size() == 2 * static_cast<size_t>(rank) && (padding[2 * k] != 0 || padding[2 * k + 1] != 0))
                return fail(*op, "dimension " + std::to_string(i) + " is sharded and padded; its windows cross shards");
            const bool hasWindow = k < window.size(), hasStride = k < strides.size();
            const bool strideOk = !hasStride || strides[k] == 1 || (hasWindow && strides[k] >= window[k]);
            const bool windowOk = !hasWindow || window[k] == 1 || (hasStride && strides[k] >= window[k]);
            if (!strideOk || !windowOk)
                return fail(*op,
                            "dimension " + std::to_string(i) + " is sharded and its windows overlap or cross shards");
        }
    }
    return localizeResults(*op);
}

bool Converter::gather(ir::Op* op)
{
    const TensorSharding* in = operandSharding(*op, 0);
    if (fullyReplicated(in))
        return localizeResults(*op);
    const Mesh* mesh = meshOf(*in);
    if (!mesh)
        return fail(*op, "the mesh of this gather's operand sharding cannot be found");
    std::optional<stablehlo::GatherDimensionNumbers> dims = stablehlo::gatherDimensionNumbers(*op);
    if (!dims)
        return fail(*op, "the dimension_numbers of this gather cannot be read");
    const int rank = op->operand(0)->type().rank();
    std::vector<int64_t> sizes = intsOf(*op, "slice_sizes");
    if (static_cast<int>(sizes.size()) != rank)
        return fail(*op, "the slice_sizes of this gather cannot be read");
    auto isBatching = [&](int64_t i) {
        return std::find(dims->operandBatchingDims.begin(), dims->operandBatchingDims.end(), i) !=
               dims->operandBatchingDims.end();
    };
    // Trivial dims: sharded, indexed with slices of 1 (PARTITION.md 7.9.7); R = their axes.
    std::vector<int64_t> trivial;
    AxisList reduced;
    for (int i = 0; i < rank; ++i) {
        const AxisList& axes = dimAxes(in, static_cast<size_t>(i));
        const int64_t n = axesProduct(axes, *mesh);
        if (n <= 1 || isBatching(i))
            continue;
        if (sizes[static_cast<size_t>(i)] == 1) {
            trivial.push_back(i);
            reduced.insert(reduced.end(), axes.begin(), axes.end());
            continue;
        }
        const int64_t global = op->operand(0)->type().dim(i) * n;
        if (sizes[static_cast<size_t>(i)] != global)
            return fail(*op,
                        "dimension " + std::to_string(i) +
                            " of this gather's operand is sharded but its slices do not cover the whole dimension");
        sizes[static_cast<size_t>(i)] /= n;
    }
    op->setProp("slice_sizes", ir::denseI64ArrayAttr(sizes));
    if (trivial.empty())
        return localizeResults(*op);
    if (!checkReducedBy(*op, reduced, *mesh, false))
        return false;
    return gatherWithTrivialDims(op, *dims, trivial, *mesh);
}

bool Converter::gatherWithTrivialDims(ir::Op* op, const stablehlo::GatherDimensionNumbers& dims,
                                      const std::vector<int64_t>& trivial, const Mesh& mesh)
{
    // Each device gathers from its own piece: indices into a trivial dim are made local and masked
    // where they fall into another device's piece; the all_reduce after adds the pieces.
    const TensorSharding* in = operandSharding(*op, 0);
    const ir::Type& localOperand = op->operand(0)->type();
    auto isTrivial = [&](int64_t j) { return std::find(trivial.begin(), trivial.end(), j) != trivial.end(); };
    auto globalDim = [&](int64_t j) {
        return localOperand.dim(static_cast<int>(j)) * axesProduct(dimAxes(in, static_cast<size_t>(j)), mesh);
    };
    ir::Builder b;
    b.setInsertionPoint(*op);
    b.setLocationOf(*op);
    ir::Value* indices = op->operand(1);
    const ir::Type ti = indices->type();
    const std::string e = ti.elementType();
    const ir::Type scalar = ir::Type::tensor({}, e);
    const int64_t ivd = dims.indexVectorDim;
    const std::vector<int64_t>& sim = dims.startIndexMap;
    ir::Value* mask = nullptr;
    if (std::any_of(sim.begin(), sim.end(), isTrivial)) {
        // 1. Index-based part: clamp globally, then keep the indices that fall into this piece.
        ir::Value* lo = b.createConstant(attr("dense<0> : " + ti.toString()));
        ir::Value* hi = nullptr;
        if (ivd < ti.rank() && sim.size() > 1) {
            std::vector<int64_t> limits;
            for (int64_t j : sim)
                limits.push_back(globalDim(j) - 1);
            std::string text = "dense<[";
            for (size_t k = 0; k < limits.size(); ++k)
                text += (k ? ", " : "") + std::to_string(limits[k]);
            text += "]> : tensor<" + std::to_string(limits.size()) + "x" + e + ">";
            ir::Value* c = b.createConstant(attr(text));
            hi = create(b, "stablehlo.broadcast_in_dim", {c}, {ti},
                        {{"broadcast_dimensions", ir::denseI64ArrayAttr({ivd})}})
                     ->result(0);
        } else {
            hi = b.createConstant(attr("dense<" + std::to_string(globalDim(sim.front()) - 1) + "> : " + ti.toString()));
        }
        ir::Value* clamped = b.createValue("stablehlo.clamp", {lo, indices, hi}, ti);
        std::vector<ir::Value*> mins, maxs;
        for (int64_t j : sim) {
            if (!isTrivial(j)) {
                mins.push_back(b.createConstant(attr("dense<0> : " + scalar.toString())));
                maxs.push_back(
                    b.createConstant(attr("dense<" + std::to_string(globalDim(j) - 1) + "> : " + scalar.toString())));
                continue;
            }
            const int64_t localDim = localOperand.dim(static_cast<int>(j));
            ir::Value* o = offset(b, mesh, dimAxes(in, static_cast<size_t>(j)), localDim);
            ir::Value* min = b.createValue("stablehlo.convert", {o}, scalar);
            ir::Value* last =
                b.createConstant(attr("dense<" + std::to_string(localDim - 1) + "> : " + scalar.toString()));
            mins.push_back(min);
            maxs.push_back(b.createValue("stablehlo.add", {min, last}, scalar));
        }
        auto boundTensor = [&](const std::vector<ir::Value*>& bounds) {
            if (ivd >= ti.rank() || ti.dim(static_cast<int>(ivd)) == 1)
                return create(b, "stablehlo.broadcast_in_dim", {bounds.front()}, {ti},
                              {{"broadcast_dimensions", ir::denseI64ArrayAttr({})}})
                    ->result(0);
            std::vector<ir::Value*> pieces;
            for (ir::Value* v : bounds)
                pieces.push_back(reshape(b, v, {1}));
            ir::Value* cat =
                create(b, "stablehlo.concatenate", pieces, {ir::Type::tensor({static_cast<int64_t>(pieces.size())}, e)},
                       {{"dimension", ir::integerAttr(0, "i64")}})
                    ->result(0);
            return create(b, "stablehlo.broadcast_in_dim", {cat}, {ti},
                          {{"broadcast_dimensions", ir::denseI64ArrayAttr({ivd})}})
                ->result(0);
        };
        ir::Value* minTensor = boundTensor(mins);
        ir::Value* maxTensor = boundTensor(maxs);
        const ir::Type bools = ir::Type::tensor(ti.shape(), "i1");
        op->setOperand(1, b.createValue("stablehlo.subtract", {clamped, minTensor}, ti));
        ir::Value* ge = create(b, "stablehlo.compare", {clamped, minTensor}, {bools},
                               {{"comparison_direction", attr("#stablehlo<comparison_direction GE>")}})
                            ->result(0);
        ir::Value* le = create(b, "stablehlo.compare", {clamped, maxTensor}, {bools},
                               {{"comparison_direction", attr("#stablehlo<comparison_direction LE>")}})
                            ->result(0);
        mask = b.createValue("stablehlo.and", {ge, le}, bools);
    }
    // 2. Device-based part: a trivial dim the gather does not index starts at 0, which only the
    // device holding global offset 0 has.
    ir::Value* onFirst = nullptr;
    for (int64_t j : trivial) {
        if (std::find(sim.begin(), sim.end(), j) != sim.end())
            continue;
        ir::Value* o = offset(b, mesh, dimAxes(in, static_cast<size_t>(j)), localOperand.dim(static_cast<int>(j)));
        ir::Value* zero = i64Scalar(b, 0);
        ir::Value* eq = create(b, "stablehlo.compare", {o, zero}, {ir::Type::tensor({}, "i1")},
                               {{"comparison_direction", attr("#stablehlo<comparison_direction EQ>")}})
                            ->result(0);
        onFirst = onFirst ? b.createValue("stablehlo.and", {onFirst, eq}, eq->type()) : eq;
    }
    if (onFirst && mask) {
        ir::Value* wide = create(b, "stablehlo.broadcast_in_dim", {onFirst}, {mask->type()},
                                 {{"broadcast_dimensions", ir::denseI64ArrayAttr({})}})
                              ->result(0);
        mask = b.createValue("stablehlo.and", {mask, wide}, mask->type());
    } else if (onFirst) {
        mask = onFirst;
    }
    // 3. The local gather.
    if (!localizeResults(*op))
        return false;
    const ir::Type& result = op->result(0)->type();
    const std::vector<ir::Use> uses = op->result(0)->uses();
    ir::Builder a;
    a.setInsertionPointAfter(*op);
    a.setLocationOf(*op);
    // 4. One flag per index vector.
    if (mask->type().rank() > 0 && ivd < mask->type().rank()) {
        ir::Value* init = a.createConstant(attr("dense<true> : tensor<i1>"));
        std::vector<int64_t> shape;
        for (int k = 0; k < mask->type().rank(); ++k)
            if (k != ivd)
                shape.push_back(mask->type().dim(k));
        ir::Op* reduce = create(a, "stablehlo.reduce", {mask, init}, {ir::Type::tensor(shape, "i1")},
                                {{"dimensions", ir::denseI64ArrayAttr({ivd})}});
        ir::Builder rb;
        const ir::Type flag = ir::Type::tensor({}, "i1");
        ir::Block& block = rb.createBlock(*reduce->addRegion(), {flag, flag});
        ir::Value* both = rb.createValue("stablehlo.and", {block.arg(0), block.arg(1)}, flag);
        rb.create("stablehlo.return", {both}, {});
        mask = reduce->result(0);
    }
    // 5. Zero where the index was not this device's.
    std::vector<int64_t> batchDims;
    if (mask->type().rank() > 0)
        for (int k = 0; k < result.rank(); ++k)
            if (std::find(dims.offsetDims.begin(), dims.offsetDims.end(), k) == dims.offsetDims.end())
                batchDims.push_back(k);
    ir::Value* wide = create(a, "stablehlo.broadcast_in_dim", {mask}, {ir::Type::tensor(result.shape(), "i1")},
                             {{"broadcast_dimensions", ir::denseI64ArrayAttr(batchDims)}})
                          ->result(0);
    ir::Value* zero = zeros(a, result);
    ir::Value* selected = a.createValue("stablehlo.select", {wide, op->result(0), zero}, result);
    if (const TensorSharding* s = sharding(op->result(0)))
        m_shardings[selected] = s;
    for (const ir::Use& u : uses)
        u.user->setOperand(u.index, selected);
    return true;
}

namespace {

/// The identity of a scatter's update computation for input 0, as MLIR text of a scalar of
/// `elementType` (`0`, `1`, the lowest or largest value, `true`, `false`), or empty when the
/// computation is not one binary op of a known kind on arguments 0 and N.
std::string scatterIdentity(const ir::Op& scatter, unsigned inputs, const std::string& elementType)
{
    if (!scatter.numRegions() || scatter.region(0).empty())
        return {};
    const ir::Block& body = scatter.region(0).front();
    const ir::Op* ret = body.terminator();
    if (!ret || ret->numOperands() == 0 || body.numArgs() < 2 * inputs)
        return {};
    const ir::Op* combine = ret->operand(0)->definingOp();
    if (!combine || combine->numOperands() != 2)
        return {};
    const ir::Value* a = body.arg(0);
    const ir::Value* b = body.arg(inputs);
    if (!((combine->operand(0) == a && combine->operand(1) == b) ||
          (combine->operand(0) == b && combine->operand(1) == a)))
        return {};
    const bool isFloat = ir::isFloatElementType(elementType);
    const int bits = ir::elementBitWidth(elementType);
    const bool isUnsigned = ir::isUnsignedElementType(elementType);
    const std::string& k = combine->name();
    if (k == "stablehlo.add")
        return isFloat ? "0.000000e+00" : "0";
    if (k == "stablehlo.multiply")
        return isFloat ? "1.000000e+00" : "1";
    if (k == "stablehlo.and" && elementType == "i1")
        return "true";
    if (k == "stablehlo.or" && elementType == "i1")
        return "false";
    if (k != "stablehlo.maximum" && k != "stablehlo.minimum")
        return {};
    const bool lowest = k == "stablehlo.maximum";
    if (isFloat) {
        static const std::map<std::string, std::string> kMax = {{"f64", "1.7976931348623157E+308"},
                                                                {"f32", "3.40282347E+38"},
                                                                {"f16", "6.550400e+04"},
                                                                {"bf16", "3.389530e+38"}};
        auto it = kMax.find(elementType);
        if (it == kMax.end())
            return {};
        return (lowest ? "-" : "") + it->second;
    }
    if (bits <= 0 || bits > 64)
        return {};
    if (isUnsigned)
        return lowest ? "0" : std::to_string(bits == 64 ? UINT64_MAX : ((uint64_t(1) << bits) - 1));
    if (bits == 1)
        return lowest ? "false" : "true";
    const int64_t max = bits == 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1;
    return lowest ? std::to_string(-max - 1) : std::to_string(max);
}

} // namespace

bool Converter::scatter(ir::Op* op)
{
    const unsigned inputs = op->numOperands() >= 3 ? (op->numOperands() - 1) / 2 : 0;
    if (inputs == 0)
        return fail(*op, "this scatter has no inputs");
    const TensorSharding* in0 = operandSharding(*op, 0);
    const TensorSharding* up0 = operandSharding(*op, inputs + 1);
    if (fullyReplicated(in0) && fullyReplicated(up0))
        return localizeResults(*op);
    const Mesh* mesh = in0 ? meshOf(*in0) : (up0 ? meshOf(*up0) : nullptr);
    if (!mesh)
        return fail(*op, "the mesh of this scatter's shardings cannot be found");
    std::optional<stablehlo::ScatterDimensionNumbers> dims = stablehlo::scatterDimensionNumbers(*op);
    if (!dims)
        return fail(*op, "the scatter_dimension_numbers of this scatter cannot be read");
    // Axes that shard the update's scatter (batch) dimensions but not the input: every device of
    // such a group holds a partial update of the same data.
    AxisList reduced;
    for (size_t d = 0; up0 && d < up0->dims.size(); ++d) {
        if (std::find(dims->updateWindowDims.begin(), dims->updateWindowDims.end(), static_cast<int64_t>(d)) !=
            dims->updateWindowDims.end())
            continue;
        for (const AxisRef& a : up0->dims[d].axes) {
            bool inInput = false;
            for (size_t j = 0; in0 && j < in0->dims.size(); ++j)
                inInput = inInput ||
                          std::find(in0->dims[j].axes.begin(), in0->dims[j].axes.end(), a) != in0->dims[j].axes.end();
            if (!inInput)
                reduced.push_back(a);
        }
    }
    if (reduced.empty() && fullyReplicated(in0))
        return localizeResults(*op);
    std::vector<int64_t> indexed;
    for (size_t i = 0; !fullyReplicated(in0) && i < in0->dims.size(); ++i) {
        if (in0->dims[i].axes.empty())
            continue;
        if (axesProduct(in0->dims[i].axes, *mesh) <= 1)
            return fail(*op,
                        "dimension " + std::to_string(i) + " of this scatter's input is sharded by axes of size 1");
        const int64_t d = static_cast<int64_t>(i);
        const bool isIndexed = std::find(dims->scatterDimsToOperandDims.begin(), dims->scatterDimsToOperandDims.end(),
                                         d) != dims->scatterDimsToOperandDims.end();
        const bool inserted = std::find(dims->insertedWindowDims.begin(), dims->insertedWindowDims.end(), d) !=
                              dims->insertedWindowDims.end();
        if (inserted && !isIndexed)
            return fail(*op, "dimension " + std::to_string(i) +
                                 " of this scatter's input is sharded and inserted but not indexed");
        if (isIndexed)
            indexed.push_back(d);
    }
    if (indexed.empty() && reduced.empty())
        return localizeResults(*op);
    ir::Builder b;
    b.setInsertionPoint(*op);
    b.setLocationOf(*op);
    if (!reduced.empty()) {
        // Only the group's leader (shard index 0 along the reduced axes) keeps the input; the
        // others start from the identity, so that the all_reduce after adds the input once.
        const ir::Type& local0 = op->operand(0)->type();
        const std::string e = local0.elementType();
        const std::string identity = scatterIdentity(*op, inputs, e);
        if (identity.empty())
            return fail(*op, "the update computation of this scatter has no identity shardx knows, so its partial "
                             "updates on " +
                                 axisListString(reduced) + " cannot be combined");
        ir::Value* idc = b.createConstant(attr("dense<" + identity + "> : tensor<" + e + ">"));
        ir::Value* id = deviceId(b);
        const int64_t n = mesh->totalSize();
        std::string table = "dense<[";
        for (int64_t dev = 0; dev < n; ++dev)
            table += std::string(dev ? ", " : "") + (shardIndex(dev, *mesh, reduced) == 0 ? "true" : "false");
        table += "]> : tensor<" + std::to_string(n) + "xi1>";
        ir::Value* t = b.createConstant(attr(table));
        ir::Value* leader = create(b, "stablehlo.dynamic_slice", {t, id}, {ir::Type::tensor({1}, "i1")},
                                   {{"slice_sizes", ir::denseI64ArrayAttr({1})}})
                                ->result(0);
        ir::Value* mask = create(b, "stablehlo.broadcast_in_dim", {leader}, {ir::Type::tensor(local0.shape(), "i1")},
                                 {{"broadcast_dimensions", ir::denseI64ArrayAttr({0})}})
                              ->result(0);
        ir::Value* idb = create(b, "stablehlo.broadcast_in_dim", {idc}, {local0},
                                {{"broadcast_dimensions", ir::denseI64ArrayAttr({})}})
                             ->result(0);
        for (unsigned k = 0; k < inputs; ++k) {
            ir::Value* in = op->operand(k);
            op->setOperand(k, b.createValue("stablehlo.select", {mask, in, idb}, in->type()));
        }
    }
    if (!indexed.empty()) {
        // Indices into a sharded dimension become local: minus this device's offset. Indices of
        // other shards fall outside the local piece and their updates are dropped.
        ir::Value* indices = op->operand(inputs);
        const ir::Type ti = indices->type();
        const std::string e = ti.elementType();
        const ir::Type scalar = ir::Type::tensor({}, e);
        std::vector<ir::Value*> mins;
        for (int64_t j : dims->scatterDimsToOperandDims) {
            if (std::find(indexed.begin(), indexed.end(), j) == indexed.end()) {
                mins.push_back(b.createConstant(attr("dense<0> : tensor<" + e + ">")));
                continue;
            }
            ir::Value* o = offset(b, *mesh, in0->dims[static_cast<size_t>(j)].axes,
                                  op->operand(0)->type().dim(static_cast<int>(j)));
            mins.push_back(b.createValue("stablehlo.convert", {o}, scalar));
        }
        const int64_t ivd = dims->indexVectorDim;
        ir::Value* minTensor = nullptr;
        if (ivd >= ti.rank() || ti.dim(static_cast<int>(ivd)) == 1) {
            minTensor = create(b, "stablehlo.broadcast_in_dim", {mins.front()}, {ti},
                               {{"broadcast_dimensions", ir::denseI64ArrayAttr({})}})
                            ->result(0);
        } else {
            std::vector<ir::Value*> pieces;
            for (ir::Value* m : mins)
                pieces.push_back(reshape(b, m, {1}));
            ir::Value* cat =
                create(b, "stablehlo.concatenate", pieces, {ir::Type::tensor({static_cast<int64_t>(pieces.size())}, e)},
                       {{"dimension", ir::integerAttr(0, "i64")}})
                    ->result(0);
            minTensor = create(b, "stablehlo.broadcast_in_dim", {cat}, {ti},
                               {{"broadcast_dimensions", ir::denseI64ArrayAttr({ivd})}})
                            ->result(0);
        }
        op->setOperand(inputs, b.createValue("stablehlo.subtract", {indices, minTensor}, ti));
    }
    return localizeResults(*op);
}

} // namespace shardx::partition
