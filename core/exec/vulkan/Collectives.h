// Collectives.h - StableHLO collectives between logical devices, computed on host staging copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "core/exec/vulkan/DeviceMesh.h"
#include "core/exec/vulkan/Ops.h"

namespace shardx::exec::vk {

/// A tensor in host memory (row-major), one per logical device in the collectives.
struct HostTensor {
    DType dtype = DType::F32;
    Shape shape;
    std::vector<std::byte> data; ///< elementCount(shape) * dtypeSize(dtype) bytes

    static HostTensor zeros(DType dtype, const Shape& shape);
    template <typename T> const T* as() const { return reinterpret_cast<const T*>(data.data()); }
    template <typename T> T* as() { return reinterpret_cast<T*>(data.data()); }
};

/// Groups of logical device ids, each in the order listed (`replica_groups` resolved to device ids).
using DeviceGroups = std::vector<std::vector<int64_t>>;

/// The collectives of the conformance README's interpreter contract, on host tensors indexed by logical device id
/// (`operands[i]` is device i's operand; every device appears in exactly one group, except for
/// collective_permute). Results are indexed the same way. Errors: bad groups, shapes or types that differ within
/// a group, dimensions that do not divide.
namespace collectives {

/// Concatenates the members' operands along `dimension` in the group's listed order.
Expected<std::vector<HostTensor>> allGather(const std::vector<HostTensor>& operands, const DeviceGroups& groups,
                                            int64_t dimension);
/// Element by element: starts from the operand of the member with the lowest id and folds in the others in
/// increasing id order (`acc = op(acc, x)`, evaluated in the element type).
Expected<std::vector<HostTensor>> allReduce(const std::vector<HostTensor>& operands, const DeviceGroups& groups,
                                            ReduceOp op = ReduceOp::Sum);
/// allReduce, then the member at position k of its group keeps block k of `dimension`.
Expected<std::vector<HostTensor>> reduceScatter(const std::vector<HostTensor>& operands, const DeviceGroups& groups,
                                                int64_t dimension, ReduceOp op = ReduceOp::Sum);
/// Cuts each operand into group-size blocks along `splitDimension`; the member at position k receives every
/// member's block k, concatenated along `concatDimension` in increasing id order of the senders.
Expected<std::vector<HostTensor>> allToAll(const std::vector<HostTensor>& operands, const DeviceGroups& groups,
                                           int64_t splitDimension, int64_t concatDimension);
/// Sends each source's operand to its target; a device that is no pair's target gets zeros.
Expected<std::vector<HostTensor>> collectivePermute(const std::vector<HostTensor>& operands,
                                                    const std::vector<std::pair<int64_t, int64_t>>& sourceTargetPairs);

} // namespace collectives

/// Copies between device buffers and host staging for a whole mesh, one thread per logical device.
struct StagingTiming {
    double downloadMs = 0; ///< device buffers -> host (all devices, concurrently)
    double combineMs = 0;  ///< the collective on the host
    double uploadMs = 0;   ///< host -> device buffers
};

/// Downloads `buffers[i]` (a tensor of `dtype` and `shapes[i]`) from logical device i.
Expected<std::vector<HostTensor>> downloadAll(DeviceMesh& mesh, const std::vector<const Buffer*>& buffers, DType dtype,
                                              const std::vector<Shape>& shapes);
/// Uploads `tensors[i]` into `buffers[i]` on logical device i.
Status uploadAll(DeviceMesh& mesh, const std::vector<HostTensor>& tensors, const std::vector<Buffer*>& buffers);
/// downloadAll, `combine` on the host, uploadAll into `results`, with the time of each phase.
Expected<StagingTiming>
runStagedCollective(DeviceMesh& mesh, const std::vector<const Buffer*>& operands, DType dtype,
                    const std::vector<Shape>& shapes,
                    const std::function<Expected<std::vector<HostTensor>>(const std::vector<HostTensor>&)>& combine,
                    const std::vector<Buffer*>& results);

} // namespace shardx::exec::vk
