// Collectives.cpp - host-side collectives with the interpreter contract's element orders.
#include "core/exec/vulkan/Collectives.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

namespace shardx::exec::vk {

HostTensor HostTensor::zeros(DType dtype, const Shape& shape)
{
    HostTensor t;
    t.dtype = dtype;
    t.shape = shape;
    t.data.assign(size_t(elementCount(shape)) * dtypeSize(dtype), std::byte{0});
    return t;
}

namespace {

/// A tensor seen as [outer, dim, inner] around one dimension, in bytes.
struct DimSplit {
    int64_t outer = 1;
    int64_t dim = 1;
    int64_t innerBytes = 1;
};

DimSplit splitAround(const HostTensor& t, int64_t dimension)
{
    DimSplit s;
    for (int64_t d = 0; d < dimension; ++d)
        s.outer *= t.shape[d];
    s.dim = t.shape[dimension];
    s.innerBytes = dtypeSize(t.dtype);
    for (size_t d = size_t(dimension) + 1; d < t.shape.size(); ++d)
        s.innerBytes *= t.shape[d];
    return s;
}

/// Block `index` of `count` equal blocks of `t` along `dimension`.
HostTensor takeBlock(const HostTensor& t, int64_t dimension, int64_t index, int64_t count)
{
    DimSplit s = splitAround(t, dimension);
    int64_t block = s.dim / count;
    HostTensor out;
    out.dtype = t.dtype;
    out.shape = t.shape;
    out.shape[dimension] = block;
    out.data.resize(size_t(s.outer * block * s.innerBytes));
    for (int64_t o = 0; o < s.outer; ++o)
        std::memcpy(out.data.data() + o * block * s.innerBytes,
                    t.data.data() + (o * s.dim + index * block) * s.innerBytes, size_t(block * s.innerBytes));
    return out;
}

/// Concatenation of `parts` (same shape but `dimension`) along `dimension`.
HostTensor concatAlong(const std::vector<const HostTensor*>& parts, int64_t dimension)
{
    HostTensor out;
    out.dtype = parts[0]->dtype;
    out.shape = parts[0]->shape;
    out.shape[dimension] = 0;
    for (const HostTensor* p : parts)
        out.shape[dimension] += p->shape[dimension];
    out.data.resize(size_t(elementCount(out.shape)) * dtypeSize(out.dtype));
    DimSplit whole = splitAround(out, dimension);
    int64_t at = 0;
    for (const HostTensor* p : parts) {
        DimSplit s = splitAround(*p, dimension);
        for (int64_t o = 0; o < s.outer; ++o)
            std::memcpy(out.data.data() + (o * whole.dim + at) * s.innerBytes,
                        p->data.data() + o * s.dim * s.innerBytes, size_t(s.dim * s.innerBytes));
        at += s.dim;
    }
    return out;
}

template <typename T> T foldElement(ReduceOp op, T acc, T x)
{
    switch (op) {
    case ReduceOp::Sum: return T(acc + x);
    case ReduceOp::Prod: return T(acc * x);
    case ReduceOp::Max: return x > acc ? x : acc;
    case ReduceOp::Min: return x < acc ? x : acc;
    }
    return acc;
}

template <typename T> void foldInto(ReduceOp op, HostTensor& acc, const HostTensor& x)
{
    T* a = acc.as<T>();
    const T* b = x.as<T>();
    size_t n = acc.data.size() / sizeof(T);
    for (size_t i = 0; i < n; ++i)
        a[i] = foldElement<T>(op, a[i], b[i]);
}

void foldTensor(ReduceOp op, HostTensor& acc, const HostTensor& x)
{
    switch (acc.dtype) {
    case DType::F32: foldInto<float>(op, acc, x); break;
    case DType::F64: foldInto<double>(op, acc, x); break;
    // Integers wrap (two's complement), as StableHLO's add does: fold in unsigned for sum and product.
    case DType::I32:
        if (op == ReduceOp::Max || op == ReduceOp::Min)
            foldInto<int32_t>(op, acc, x);
        else
            foldInto<uint32_t>(op, acc, x);
        break;
    case DType::I64:
        if (op == ReduceOp::Max || op == ReduceOp::Min)
            foldInto<int64_t>(op, acc, x);
        else
            foldInto<uint64_t>(op, acc, x);
        break;
    case DType::U32: foldInto<uint32_t>(op, acc, x); break;
    }
}

/// Checks that `groups` partition 0..n-1 and that the members of each group agree on type and shape.
Status checkGroups(const char* what, const std::vector<HostTensor>& operands, const DeviceGroups& groups)
{
    std::vector<int> seen(operands.size(), 0);
    for (const std::vector<int64_t>& g : groups) {
        if (g.empty())
            return Error{std::string(what) + ": an empty group", {}};
        for (int64_t id : g) {
            if (id < 0 || id >= int64_t(operands.size()))
                return Error{std::string(what) + ": device " + std::to_string(id) + " is not in the mesh of " +
                                 std::to_string(operands.size()),
                             {}};
            if (seen[id]++)
                return Error{std::string(what) + ": device " + std::to_string(id) + " is in two groups", {}};
            const HostTensor& first = operands[g[0]];
            const HostTensor& t = operands[id];
            if (t.dtype != first.dtype || t.shape != first.shape)
                return Error{std::string(what) + ": devices " + std::to_string(g[0]) + " and " + std::to_string(id) +
                                 " of one group have different operand types",
                             {}};
            if (t.data.size() != size_t(elementCount(t.shape)) * dtypeSize(t.dtype))
                return Error{std::string(what) + ": device " + std::to_string(id) + "'s operand has " +
                                 std::to_string(t.data.size()) + " bytes, not what its shape needs",
                             {}};
        }
    }
    for (size_t i = 0; i < seen.size(); ++i) {
        if (!seen[i])
            return Error{std::string(what) + ": device " + std::to_string(i) + " is in no group", {}};
    }
    return Status::success();
}

Status checkDimension(const char* what, const HostTensor& t, int64_t dimension)
{
    if (dimension < 0 || dimension >= int64_t(t.shape.size()))
        return Error{std::string(what) + ": dimension " + std::to_string(dimension) + " out of range for rank " +
                         std::to_string(t.shape.size()),
                     {}};
    return Status::success();
}

double msSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

namespace collectives {

Expected<std::vector<HostTensor>> allGather(const std::vector<HostTensor>& operands, const DeviceGroups& groups,
                                            int64_t dimension)
{
    SHARDX_VK_TRY(checkGroups("all_gather", operands, groups));
    std::vector<HostTensor> results(operands.size());
    for (const std::vector<int64_t>& g : groups) {
        SHARDX_VK_TRY(checkDimension("all_gather", operands[g[0]], dimension));
        std::vector<const HostTensor*> parts;
        for (int64_t id : g)
            parts.push_back(&operands[id]);
        HostTensor gathered = concatAlong(parts, dimension);
        for (size_t k = 0; k + 1 < g.size(); ++k)
            results[g[k]] = gathered;
        results[g.back()] = std::move(gathered);
    }
    return results;
}

Expected<std::vector<HostTensor>> allReduce(const std::vector<HostTensor>& operands, const DeviceGroups& groups,
                                            ReduceOp op)
{
    SHARDX_VK_TRY(checkGroups("all_reduce", operands, groups));
    std::vector<HostTensor> results(operands.size());
    for (const std::vector<int64_t>& g : groups) {
        std::vector<int64_t> order = g;
        std::sort(order.begin(), order.end());
        HostTensor acc = operands[order[0]];
        for (size_t i = 1; i < order.size(); ++i)
            foldTensor(op, acc, operands[order[i]]);
        for (size_t k = 0; k + 1 < g.size(); ++k)
            results[g[k]] = acc;
        results[g.back()] = std::move(acc);
    }
    return results;
}

Expected<std::vector<HostTensor>> reduceScatter(const std::vector<HostTensor>& operands, const DeviceGroups& groups,
                                                int64_t dimension, ReduceOp op)
{
    Expected<std::vector<HostTensor>> reduced = allReduce(operands, groups, op);
    if (!reduced)
        return Error{"reduce_scatter: " + reduced.error().message.substr(std::string("all_reduce: ").size()), {}};
    std::vector<HostTensor> results(operands.size());
    for (const std::vector<int64_t>& g : groups) {
        const HostTensor& full = (*reduced)[g[0]];
        SHARDX_VK_TRY(checkDimension("reduce_scatter", full, dimension));
        if (full.shape[dimension] % int64_t(g.size()) != 0)
            return Error{"reduce_scatter: dimension " + std::to_string(dimension) + " of size " +
                             std::to_string(full.shape[dimension]) + " does not split into " +
                             std::to_string(g.size()) + " blocks",
                         {}};
        for (size_t k = 0; k < g.size(); ++k)
            results[g[k]] = takeBlock(full, dimension, int64_t(k), int64_t(g.size()));
    }
    return results;
}

Expected<std::vector<HostTensor>> allToAll(const std::vector<HostTensor>& operands, const DeviceGroups& groups,
                                           int64_t splitDimension, int64_t concatDimension)
{
    SHARDX_VK_TRY(checkGroups("all_to_all", operands, groups));
    std::vector<HostTensor> results(operands.size());
    for (const std::vector<int64_t>& g : groups) {
        const HostTensor& first = operands[g[0]];
        SHARDX_VK_TRY(checkDimension("all_to_all", first, splitDimension));
        SHARDX_VK_TRY(checkDimension("all_to_all", first, concatDimension));
        int64_t n = int64_t(g.size());
        if (first.shape[splitDimension] % n != 0)
            return Error{"all_to_all: split dimension of size " + std::to_string(first.shape[splitDimension]) +
                             " does not split into " + std::to_string(n) + " blocks",
                         {}};
        std::vector<int64_t> senders = g;
        std::sort(senders.begin(), senders.end());
        for (int64_t k = 0; k < n; ++k) {
            std::vector<HostTensor> blocks;
            for (int64_t s : senders)
                blocks.push_back(takeBlock(operands[s], splitDimension, k, n));
            std::vector<const HostTensor*> parts;
            for (const HostTensor& b : blocks)
                parts.push_back(&b);
            results[g[k]] = concatAlong(parts, concatDimension);
        }
    }
    return results;
}

Expected<std::vector<HostTensor>> collectivePermute(const std::vector<HostTensor>& operands,
                                                    const std::vector<std::pair<int64_t, int64_t>>& sourceTargetPairs)
{
    const int64_t n = int64_t(operands.size());
    std::vector<HostTensor> results(operands.size());
    std::vector<bool> isSource(operands.size(), false), isTarget(operands.size(), false);
    for (size_t i = 0; i < operands.size(); ++i)
        results[i] = HostTensor::zeros(operands[i].dtype, operands[i].shape);
    for (const auto& [source, target] : sourceTargetPairs) {
        if (source < 0 || source >= n || target < 0 || target >= n)
            return Error{"collective_permute: pair (" + std::to_string(source) + ", " + std::to_string(target) +
                             ") names a device outside the mesh of " + std::to_string(n),
                         {}};
        if (isSource[source] || isTarget[target])
            return Error{"collective_permute: device " + std::to_string(isSource[source] ? source : target) +
                             " is the source or target of two pairs",
                         {}};
        isSource[source] = isTarget[target] = true;
        if (operands[source].dtype != operands[target].dtype || operands[source].shape != operands[target].shape)
            return Error{"collective_permute: devices " + std::to_string(source) + " and " + std::to_string(target) +
                             " have different operand types",
                         {}};
        results[target] = operands[source];
    }
    return results;
}

} // namespace collectives

Expected<std::vector<HostTensor>> downloadAll(DeviceMesh& mesh, const std::vector<const Buffer*>& buffers, DType dtype,
                                              const std::vector<Shape>& shapes)
{
    if (buffers.size() != size_t(mesh.size()) || shapes.size() != buffers.size())
        return Error{"downloadAll: one buffer and one shape per logical device", {}};
    std::vector<HostTensor> tensors(buffers.size());
    Status s = mesh.forEachDevice([&](int i) -> Status {
        tensors[i] = HostTensor::zeros(dtype, shapes[i]);
        return mesh.device(i).download(*buffers[i], tensors[i].data.data(), tensors[i].data.size());
    });
    if (!s)
        return s.error();
    return tensors;
}

Status uploadAll(DeviceMesh& mesh, const std::vector<HostTensor>& tensors, const std::vector<Buffer*>& buffers)
{
    if (buffers.size() != size_t(mesh.size()) || tensors.size() != buffers.size())
        return Error{"uploadAll: one tensor and one buffer per logical device", {}};
    return mesh.forEachDevice([&](int i) -> Status {
        return mesh.device(i).upload(*buffers[i], tensors[i].data.data(), tensors[i].data.size());
    });
}

Expected<StagingTiming>
runStagedCollective(DeviceMesh& mesh, const std::vector<const Buffer*>& operands, DType dtype,
                    const std::vector<Shape>& shapes,
                    const std::function<Expected<std::vector<HostTensor>>(const std::vector<HostTensor>&)>& combine,
                    const std::vector<Buffer*>& results)
{
    StagingTiming timing;
    auto t0 = std::chrono::steady_clock::now();
    Expected<std::vector<HostTensor>> staged = downloadAll(mesh, operands, dtype, shapes);
    if (!staged)
        return staged.error();
    timing.downloadMs = msSince(t0);
    auto t1 = std::chrono::steady_clock::now();
    Expected<std::vector<HostTensor>> combined = combine(*staged);
    if (!combined)
        return combined.error();
    timing.combineMs = msSince(t1);
    auto t2 = std::chrono::steady_clock::now();
    SHARDX_VK_TRY(uploadAll(mesh, *combined, results));
    timing.uploadMs = msSince(t2);
    return timing;
}

} // namespace shardx::exec::vk
