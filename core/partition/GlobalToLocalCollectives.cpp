// -sdy-convert-global-to-local: the sdy collectives become StableHLO collectives with replica
// groups (PARTITION.md 7.6).
#include <algorithm>

#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/mesh/DeviceLayout.h"
#include "core/partition/GlobalToLocalInternal.h"
#include "core/partition/LocalOps.h"

namespace shardx::partition {

namespace {

ir::AttrPtr i64(int64_t v) { return ir::integerAttr(v, "i64"); }
ir::AttrPtr unit() { return ir::makeAttr(ir::UnitAttr{}); }

/// The per-dimension axes of a collective, padded to `rank` lists.
std::vector<AxisList> perDim(const ir::Op& op, size_t rank)
{
    std::vector<AxisList> axes;
    if (const std::vector<std::vector<AxisRef>>* a = ir::perDimCollectiveAxes(op))
        axes = *a;
    axes.resize(rank);
    return axes;
}

} // namespace

bool Converter::allGather(ir::Op* op)
{
    const TensorSharding* out = ir::outSharding(*op);
    const Mesh* mesh = out ? meshOf(*out) : nullptr;
    if (!mesh)
        return fail(*op, "the mesh of this all_gather's out_sharding cannot be found");
    ir::Value* input = op->operand(0);
    const std::vector<AxisList> axes = perDim(*op, input->type().shape().size());
    if (std::all_of(axes.begin(), axes.end(), [](const AxisList& a) { return a.empty(); }))
        return fail(*op, "this all_gather gathers no axis");
    ir::Builder b;
    b.setInsertionPoint(*op);
    b.setLocationOf(*op);
    replace(op, gatherAxes(b, input, *mesh, out->mesh, axes));
    return true;
}

ir::Value* Converter::gatherAxes(ir::Builder& b, ir::Value* input, const Mesh& mesh, const MeshRef& meshRef,
                                 const std::vector<AxisList>& axes, std::vector<std::pair<ir::Op*, AxisList>>* created)
{
    const std::vector<int64_t> local = input->type().shape();
    std::vector<int> dims;
    for (size_t i = 0; i < axes.size() && i < local.size(); ++i)
        if (!axes[i].empty())
            dims.push_back(static_cast<int>(i));
    ir::Value* cur = input;
    if (dims.size() == 1 || m_options.perDimAllGather) {
        for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
            int64_t size = 1;
            ir::AttrPtr groups = replicaGroups(mesh, meshRef, axes[static_cast<size_t>(*it)], size);
            std::vector<int64_t> shape = cur->type().shape();
            if (shape[static_cast<size_t>(*it)] != ir::Type::kDynamic)
                shape[static_cast<size_t>(*it)] *= size;
            ir::Op* gather = create(b, "stablehlo.all_gather", {cur}, {cur->type().withShape(shape)},
                                    {{"all_gather_dim", i64(*it)},
                                     {"channel_handle", nextChannel()},
                                     {"replica_groups", groups},
                                     {"use_global_device_ids", unit()}});
            if (created)
                created->emplace_back(gather, axes[static_cast<size_t>(*it)]);
            cur = gather->result(0);
        }
        return cur;
    }
    // One all-gather of a new leading dimension, then the pieces are moved into place.
    const size_t k = dims.size();
    AxisList all;
    std::vector<int64_t> factors;
    for (int d : dims) {
        all.insert(all.end(), axes[static_cast<size_t>(d)].begin(), axes[static_cast<size_t>(d)].end());
        factors.push_back(axesProduct(axes[static_cast<size_t>(d)], mesh));
    }
    std::vector<int64_t> s0 = {1};
    s0.insert(s0.end(), local.begin(), local.end());
    ir::Value* t0 = reshape(b, cur, s0);
    int64_t g = 1;
    ir::AttrPtr groups = replicaGroups(mesh, meshRef, all, g);
    std::vector<int64_t> s1 = s0;
    s1[0] = g;
    ir::Op* gather = create(b, "stablehlo.all_gather", {t0}, {t0->type().withShape(s1)},
                            {{"all_gather_dim", i64(0)},
                             {"channel_handle", nextChannel()},
                             {"replica_groups", groups},
                             {"use_global_device_ids", unit()}});
    if (created)
        created->emplace_back(gather, all);
    ir::Value* t1 = gather->result(0);
    std::vector<int64_t> s2 = factors;
    s2.insert(s2.end(), local.begin(), local.end());
    ir::Value* t2 = reshape(b, t1, s2);
    std::vector<int64_t> perm;
    size_t j = 0;
    for (size_t i = 0; i < local.size(); ++i) {
        if (j < k && static_cast<int>(i) == dims[j]) {
            perm.push_back(static_cast<int64_t>(j));
            ++j;
        }
        perm.push_back(static_cast<int64_t>(k + i));
    }
    ir::Value* t3 = transpose(b, t2, perm);
    std::vector<int64_t> s4 = local;
    for (size_t m = 0; m < k; ++m)
        s4[static_cast<size_t>(dims[m])] *= factors[m];
    return reshape(b, t3, s4);
}

bool Converter::allSlice(ir::Op* op)
{
    const TensorSharding* out = ir::outSharding(*op);
    const Mesh* mesh = out ? meshOf(*out) : nullptr;
    if (!mesh)
        return fail(*op, "the mesh of this all_slice's out_sharding cannot be found");
    std::optional<ir::Type> local = localType(op->result(0)->type(), sharding(op->result(0)), *op);
    if (!local)
        return false;
    ir::Builder b;
    b.setInsertionPoint(*op);
    b.setLocationOf(*op);
    ir::Value* r = sliceByAxes(b, op->operand(0), *mesh, perDim(*op, static_cast<size_t>(local->rank())), *local);
    replace(op, r);
    return true;
}

bool Converter::allReduce(ir::Op* op)
{
    const TensorSharding* out = ir::outSharding(*op);
    const Mesh* mesh = out ? meshOf(*out) : nullptr;
    if (!mesh)
        return fail(*op, "the mesh of this all_reduce's out_sharding cannot be found");
    std::optional<ir::Type> local = localType(op->result(0)->type(), sharding(op->result(0)), *op);
    if (!local)
        return false;
    const std::vector<AxisRef>* axes = ir::collectiveAxisList(*op);
    ir::Builder b;
    b.setInsertionPoint(*op);
    b.setLocationOf(*op);
    int64_t g = 1;
    ir::Op* ar = create(b, "stablehlo.all_reduce", {op->operand(0)}, {*local},
                        {{"channel_handle", nextChannel()},
                         {"replica_groups", replicaGroups(*mesh, out->mesh, axes ? *axes : AxisList{}, g)},
                         {"use_global_device_ids", unit()}});
    addReductionRegion(*ar, local->elementType(), ir::reductionKindOf(*op).value_or(ReductionKind::Sum));
    replace(op, ar->result(0));
    return true;
}

bool Converter::reduceScatter(ir::Op* op)
{
    const TensorSharding* in = operandSharding(*op, 0);
    const Mesh* mesh = in ? meshOf(*in) : nullptr;
    if (!mesh)
        return fail(*op, "the mesh of this reduce_scatter's operand sharding cannot be found");
    std::optional<ir::Type> local = localType(op->result(0)->type(), sharding(op->result(0)), *op);
    if (!local)
        return false;
    ir::Value* input = op->operand(0);
    const std::vector<AxisList> axes = perDim(*op, static_cast<size_t>(local->rank()));
    std::vector<int> dims;
    AxisList all;
    for (size_t i = 0; i < axes.size(); ++i)
        if (!axes[i].empty()) {
            dims.push_back(static_cast<int>(i));
            all.insert(all.end(), axes[i].begin(), axes[i].end());
        }
    if (dims.empty())
        return fail(*op, "this reduce_scatter scatters no axis");
    const ReductionKind kind = ir::reductionKindOf(*op).value_or(ReductionKind::Sum);
    const std::string element = local->elementType();
    ir::Builder b;
    b.setInsertionPoint(*op);
    b.setLocationOf(*op);
    ir::Value* result = nullptr;
    int64_t g = 1;
    if (dims.size() == 1) {
        ir::Op* rs = create(b, "stablehlo.reduce_scatter", {input}, {*local},
                            {{"channel_handle", nextChannel()},
                             {"replica_groups", replicaGroups(*mesh, in->mesh, axes[static_cast<size_t>(dims[0])], g)},
                             {"scatter_dimension", i64(dims[0])},
                             {"use_global_device_ids", unit()}});
        addReductionRegion(*rs, element, kind);
        result = rs->result(0);
    } else if (!m_options.combineMultiDimensionReduceScatter) {
        ir::Op* ar = create(b, "stablehlo.all_reduce", {input}, {input->type()},
                            {{"channel_handle", nextChannel()},
                             {"replica_groups", replicaGroups(*mesh, in->mesh, all, g)},
                             {"use_global_device_ids", unit()}});
        addReductionRegion(*ar, element, kind);
        result = sliceByAxes(b, ar->result(0), *mesh, axes, *local);
    } else {
        const std::vector<int64_t>& s = input->type().shape();
        std::vector<int64_t> split, factorPos;
        for (size_t i = 0; i < s.size(); ++i) {
            if (axes[i].empty()) {
                split.push_back(s[i]);
                continue;
            }
            const int64_t f = axesProduct(axes[i], *mesh);
            if (s[i] == ir::Type::kDynamic || s[i] % f != 0)
                return fail(*op, "dimension " + std::to_string(i) + " cannot be split into " + std::to_string(f) +
                                     " pieces for a combined reduce_scatter");
            factorPos.push_back(static_cast<int64_t>(split.size()));
            split.push_back(f);
            split.push_back(s[i] / f);
        }
        ir::Value* t0 = reshape(b, input, split);
        std::vector<int64_t> perm = factorPos;
        for (int64_t p = 0; p < static_cast<int64_t>(split.size()); ++p)
            if (std::find(factorPos.begin(), factorPos.end(), p) == factorPos.end())
                perm.push_back(p);
        ir::Value* t1 = transpose(b, t0, perm);
        int64_t total = 1;
        for (int64_t p : factorPos)
            total *= split[static_cast<size_t>(p)];
        std::vector<int64_t> s2 = {total};
        s2.insert(s2.end(), local->shape().begin(), local->shape().end());
        ir::Value* t2 = reshape(b, t1, s2);
        std::vector<int64_t> s3 = s2;
        s3[0] = 1;
        ir::Op* rs = create(b, "stablehlo.reduce_scatter", {t2}, {t2->type().withShape(s3)},
                            {{"channel_handle", nextChannel()},
                             {"replica_groups", replicaGroups(*mesh, in->mesh, all, g)},
                             {"scatter_dimension", i64(0)},
                             {"use_global_device_ids", unit()}});
        addReductionRegion(*rs, element, kind);
        result = reshape(b, rs->result(0), local->shape());
    }
    replace(op, result);
    return true;
}

bool Converter::allToAll(ir::Op* op)
{
    const TensorSharding* out = ir::outSharding(*op);
    const Mesh* mesh = out ? meshOf(*out) : nullptr;
    if (!mesh)
        return fail(*op, "the mesh of this all_to_all's out_sharding cannot be found");
    const std::vector<ir::AllToAllParam>* params = ir::allToAllParams(*op);
    if (!params || params->empty())
        return fail(*op, "this all_to_all has no parameters");
    ir::Value* input = op->operand(0);
    const std::vector<int64_t> s = input->type().shape();
    for (const ir::AllToAllParam& p : *params)
        if (p.axes.empty())
            return fail(*op, "a parameter of this all_to_all moves no axis");
    ir::Builder b;
    b.setInsertionPoint(*op);
    b.setLocationOf(*op);
    ir::Value* result = nullptr;
    if (params->size() == 1) {
        const ir::AllToAllParam& p = params->front();
        int64_t g = 1;
        ir::AttrPtr groups = replicaGroups(*mesh, out->mesh, p.axes, g);
        const size_t src = static_cast<size_t>(p.srcDim), tgt = static_cast<size_t>(p.tgtDim);
        if (src >= s.size() || tgt >= s.size() || s[src] == ir::Type::kDynamic || s[tgt] == ir::Type::kDynamic ||
            s[tgt] % g != 0)
            return fail(*op, "dimension " + std::to_string(tgt) + " cannot be split into " + std::to_string(g) +
                                 " pieces for this all_to_all");
        std::vector<int64_t> shape = s;
        shape[src] *= g;
        shape[tgt] /= g;
        result = create(b, "stablehlo.all_to_all", {input}, {input->type().withShape(shape)},
                        {{"channel_handle", nextChannel()},
                         {"concat_dimension", i64(p.srcDim)},
                         {"replica_groups", groups},
                         {"split_count", i64(g)},
                         {"split_dimension", i64(p.tgtDim)}})
                     ->result(0);
    } else {
        std::vector<ir::AllToAllParam> sortedParams = *params;
        std::stable_sort(sortedParams.begin(), sortedParams.end(),
                         [](const ir::AllToAllParam& a, const ir::AllToAllParam& c) { return a.tgtDim < c.tgtDim; });
        const size_t k = sortedParams.size();
        AxisList all;
        std::vector<int64_t> shape0, perm0;
        for (size_t i = 0; i < s.size(); ++i) {
            auto it = std::find_if(sortedParams.begin(), sortedParams.end(),
                                   [&](const ir::AllToAllParam& p) { return p.tgtDim == static_cast<int64_t>(i); });
            if (it == sortedParams.end()) {
                shape0.push_back(s[i]);
                continue;
            }
            const int64_t f = axesProduct(it->axes, *mesh);
            if (s[i] == ir::Type::kDynamic || f <= 0 || s[i] % f != 0)
                return fail(*op, "dimension " + std::to_string(i) + " cannot be split into " + std::to_string(f) +
                                     " pieces for this all_to_all");
            perm0.push_back(static_cast<int64_t>(shape0.size()));
            shape0.push_back(f);
            shape0.push_back(s[i] / f);
        }
        for (const ir::AllToAllParam& p : sortedParams)
            all.insert(all.end(), p.axes.begin(), p.axes.end());
        for (int64_t p = 0; p < static_cast<int64_t>(shape0.size()); ++p)
            if (std::find(perm0.begin(), perm0.begin() + static_cast<std::ptrdiff_t>(k), p) ==
                perm0.begin() + static_cast<std::ptrdiff_t>(k))
                perm0.push_back(p);
        ir::Value* t0 = reshape(b, input, shape0);
        ir::Value* t1 = transpose(b, t0, perm0);
        const std::vector<int64_t> s1 = t1->type().shape();
        int64_t g = 1;
        ir::AttrPtr groups = replicaGroups(*mesh, out->mesh, all, g);
        std::vector<int64_t> s2 = {g};
        s2.insert(s2.end(), s1.begin() + static_cast<std::ptrdiff_t>(k), s1.end());
        ir::Value* t2 = reshape(b, t1, s2);
        ir::Value* t3 = create(b, "stablehlo.all_to_all", {t2}, {t2->type()},
                               {{"channel_handle", nextChannel()},
                                {"concat_dimension", i64(0)},
                                {"replica_groups", groups},
                                {"split_count", i64(g)},
                                {"split_dimension", i64(0)}})
                            ->result(0);
        ir::Value* t4 = reshape(b, t3, s1);
        std::vector<int64_t> perm1;
        for (size_t i = 0; i < s.size(); ++i)
            perm1.push_back(static_cast<int64_t>(k + i));
        for (size_t j = 0; j < k; ++j) {
            auto at = std::find(perm1.begin(), perm1.end(), sortedParams[j].srcDim + static_cast<int64_t>(k));
            perm1.insert(at, static_cast<int64_t>(j));
        }
        ir::Value* t5 = transpose(b, t4, perm1);
        std::vector<int64_t> finalShape;
        for (size_t i = 0; i < perm1.size(); ++i) {
            const int64_t size = s1[static_cast<size_t>(perm1[i])];
            if (perm1[i] < static_cast<int64_t>(k) && i + 1 < perm1.size()) {
                finalShape.push_back(size * s1[static_cast<size_t>(perm1[i + 1])]);
                ++i;
            } else {
                finalShape.push_back(size);
            }
        }
        result = reshape(b, t5, finalShape);
    }
    replace(op, result);
    return true;
}

bool Converter::collectivePermute(ir::Op* op)
{
    const TensorSharding* in = operandSharding(*op, 0);
    const TensorSharding* out = ir::outSharding(*op);
    const Mesh* inMesh = in ? meshOf(*in) : nullptr;
    const Mesh* outMesh = out ? meshOf(*out) : nullptr;
    if (!inMesh || !outMesh)
        return fail(*op, "the meshes of this collective_permute cannot be found (its operand must be sharded)");
    if (inMesh->totalSize() != outMesh->totalSize())
        return fail(*op, "this collective_permute moves data between meshes of different sizes");
    Expected<std::vector<std::pair<int64_t, int64_t>>> pairList = permutePairs(*in, *inMesh, *out, *outMesh);
    if (!pairList)
        return fail(*op, pairList.error().message);
    const int64_t n = static_cast<int64_t>(pairList->size());
    std::vector<int64_t> pairs;
    for (const auto& [source, target] : *pairList) {
        pairs.push_back(source);
        pairs.push_back(target);
    }
    ir::Builder b;
    b.setInsertionPoint(*op);
    b.setLocationOf(*op);
    ir::Value* input = op->operand(0);
    ir::Value* r =
        create(b, "stablehlo.collective_permute", {input}, {input->type()},
               {{"channel_handle", nextChannel()}, {"source_target_pairs", attr(i64DenseText(pairs, {n, 2}))}})
            ->result(0);
    replace(op, r);
    return true;
}

} // namespace shardx::partition
