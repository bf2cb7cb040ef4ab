// Interpreter: gather and scatter (with batching dimensions), as the StableHLO specification defines them.
#include <algorithm>

#include "core/exec/Interpreter.h"
#include "core/ir/StablehloAttrs.h"

namespace shardx::exec {

namespace {

bool idxContains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

/// The start-index vector (length `count`) at the batch position `batch` of `indices` (its dims without
/// `indexVectorDim`, in order).
std::vector<int64_t> idxStartVector(const Tensor& indices, const std::vector<int64_t>& batch, int64_t indexVectorDim,
                                    size_t count)
{
    std::vector<int64_t> pos;
    pos.reserve(static_cast<size_t>(indices.rank()));
    std::vector<int64_t> out(count);
    for (size_t k = 0; k < count; ++k) {
        pos.clear();
        size_t b = 0;
        for (int d = 0; d < indices.rank(); ++d) {
            if (d == indexVectorDim)
                pos.push_back(static_cast<int64_t>(k));
            else
                pos.push_back(batch[b++]);
        }
        out[k] = indices.getInt(indices.linearIndex(pos));
    }
    return out;
}

/// Position in the batch index (the dims of `indices` without `indexVectorDim`) of dim `d` of `indices`.
size_t idxBatchPosition(int64_t d, int64_t indexVectorDim)
{
    return static_cast<size_t>(d > indexVectorDim ? d - 1 : d);
}

std::vector<Tensor> idxGatherOp(OpContext& ctx)
{
    std::string error;
    auto dn = stablehlo::gatherDimensionNumbers(ctx.op, &error);
    if (!dn)
        ctx.fail("bad dimension_numbers: " + error);
    const Tensor& operand = ctx.in(0);
    const Tensor& indices = ctx.in(1);
    const auto sliceSizes = ctx.ints("slice_sizes");
    Tensor out = ctx.result(0);
    std::vector<int64_t> batchDims;
    for (int d = 0; d < out.rank(); ++d)
        if (!idxContains(dn->offsetDims, d))
            batchDims.push_back(d);
    // Operand dims that the offset dims of the result walk, in increasing order.
    std::vector<int64_t> offsetOperandDims;
    for (int d = 0; d < operand.rank(); ++d)
        if (!idxContains(dn->collapsedSliceDims, d) && !idxContains(dn->operandBatchingDims, d))
            offsetOperandDims.push_back(d);
    if (offsetOperandDims.size() != dn->offsetDims.size())
        ctx.fail("offset_dims do not match the operand's uncollapsed dimensions");
    std::vector<int64_t> idx(out.rank(), 0), batch(batchDims.size()), operandIdx(operand.rank());
    for (int64_t i = 0; i < out.numElements(); ++i, nextIndex(idx, out.shape())) {
        for (size_t k = 0; k < batchDims.size(); ++k)
            batch[k] = idx[static_cast<size_t>(batchDims[k])];
        std::fill(operandIdx.begin(), operandIdx.end(), 0);
        const auto start = idxStartVector(indices, batch, dn->indexVectorDim, dn->startIndexMap.size());
        for (size_t k = 0; k < dn->startIndexMap.size(); ++k) {
            const auto od = static_cast<size_t>(dn->startIndexMap[k]);
            operandIdx[od] = std::clamp<int64_t>(start[k], 0, operand.shape()[od] - sliceSizes[od]);
        }
        for (size_t k = 0; k < dn->operandBatchingDims.size(); ++k) {
            const auto od = static_cast<size_t>(dn->operandBatchingDims[k]);
            operandIdx[od] += batch[idxBatchPosition(dn->startIndicesBatchingDims[k], dn->indexVectorDim)];
        }
        for (size_t k = 0; k < offsetOperandDims.size(); ++k)
            operandIdx[static_cast<size_t>(offsetOperandDims[k])] += idx[static_cast<size_t>(dn->offsetDims[k])];
        out.copyElement(i, operand, operand.linearIndex(operandIdx));
    }
    return {std::move(out)};
}

std::vector<Tensor> idxScatterOp(OpContext& ctx)
{
    std::string error;
    auto dn = stablehlo::scatterDimensionNumbers(ctx.op, &error);
    if (!dn)
        ctx.fail("bad scatter_dimension_numbers: " + error);
    const unsigned n = ctx.numIn();
    if (n < 3 || (n - 1) % 2 != 0)
        ctx.fail("expected inputs, scatter_indices and updates");
    const unsigned count = (n - 1) / 2;
    const Tensor& indices = ctx.in(count);
    std::vector<Tensor> results;
    for (unsigned k = 0; k < count; ++k)
        results.push_back(ctx.in(k));
    std::vector<const Tensor*> updates;
    for (unsigned k = 0; k < count; ++k)
        updates.push_back(&ctx.in(count + 1 + k));
    const Tensor& upd0 = *updates[0];
    const Tensor& operand = results[0];
    std::vector<int64_t> scatterDims;
    for (int d = 0; d < upd0.rank(); ++d)
        if (!idxContains(dn->updateWindowDims, d))
            scatterDims.push_back(d);
    std::vector<int64_t> windowOperandDims;
    for (int d = 0; d < operand.rank(); ++d)
        if (!idxContains(dn->insertedWindowDims, d) && !idxContains(dn->inputBatchingDims, d))
            windowOperandDims.push_back(d);
    if (windowOperandDims.size() != dn->updateWindowDims.size())
        ctx.fail("update_window_dims do not match the operand's dimensions");
    Combiner combine(ctx, 0);
    std::vector<Tensor*> accs;
    for (auto& r : results)
        accs.push_back(&r);
    std::vector<int64_t> idx(upd0.rank(), 0), batch(scatterDims.size()), resultIdx(operand.rank());
    for (int64_t i = 0; i < upd0.numElements(); ++i, nextIndex(idx, upd0.shape())) {
        for (size_t k = 0; k < scatterDims.size(); ++k)
            batch[k] = idx[static_cast<size_t>(scatterDims[k])];
        std::fill(resultIdx.begin(), resultIdx.end(), 0);
        const auto start = idxStartVector(indices, batch, dn->indexVectorDim, dn->scatterDimsToOperandDims.size());
        for (size_t k = 0; k < dn->scatterDimsToOperandDims.size(); ++k)
            resultIdx[static_cast<size_t>(dn->scatterDimsToOperandDims[k])] = start[k];
        for (size_t k = 0; k < dn->inputBatchingDims.size(); ++k)
            resultIdx[static_cast<size_t>(dn->inputBatchingDims[k])] +=
                batch[idxBatchPosition(dn->scatterIndicesBatchingDims[k], dn->indexVectorDim)];
        for (size_t k = 0; k < windowOperandDims.size(); ++k)
            resultIdx[static_cast<size_t>(windowOperandDims[k])] += idx[static_cast<size_t>(dn->updateWindowDims[k])];
        bool inBounds = true;
        for (int d = 0; d < operand.rank(); ++d)
            inBounds = inBounds && resultIdx[static_cast<size_t>(d)] >= 0 &&
                       resultIdx[static_cast<size_t>(d)] < operand.dim(d);
        if (!inBounds)
            continue; // StableHLO leaves out-of-bounds updates implementation-defined: skipped
        combine.combine(accs, operand.linearIndex(resultIdx), updates, i);
    }
    return results;
}

} // namespace

void registerIndexingOps(HandlerMap& map)
{
    map["stablehlo.gather"] = idxGatherOp;
    map["stablehlo.scatter"] = idxScatterOp;
}

} // namespace shardx::exec
