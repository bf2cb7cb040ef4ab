// -sdy-explicit-gather-scatter-batching (PARTITION.md 11): implicit batching through an iota
// index component becomes StableHLO's explicit batching dimensions.
#include <algorithm>
#include <optional>

#include "core/ir/Builder.h"
#include "core/ir/Canonicalizer.h"
#include "core/ir/StablehloAttrs.h"
#include "core/propagation/PipelineSteps.h"

namespace shardx {

namespace {

/// The op defining `v` when it is named `name`, else nullptr.
ir::Op* batchingDefinedBy(ir::Value* v, const char* name)
{
    ir::Op* def = v ? v->definingOp() : nullptr;
    return def && def->name() == name ? def : nullptr;
}

/// `dimension` of a stablehlo.concatenate (-1 when unreadable).
int64_t batchingConcatDim(const ir::Op& concat) { return stablehlo::intValue(concat.attr("dimension")).value_or(-1); }

/// Position of `value` in `list`, or nullopt.
std::optional<size_t> batchingPositionOf(const std::vector<int64_t>& list, int64_t value)
{
    auto it = std::find(list.begin(), list.end(), value);
    if (it == list.end())
        return std::nullopt;
    return static_cast<size_t>(it - list.begin());
}

/// `list` without its entry at `pos`.
std::vector<int64_t> batchingWithout(std::vector<int64_t> list, size_t pos)
{
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(pos));
    return list;
}

/// `list` without every entry equal to `value`.
std::vector<int64_t> batchingWithoutValue(std::vector<int64_t> list, int64_t value)
{
    list.erase(std::remove(list.begin(), list.end(), value), list.end());
    return list;
}

/// Whether index component `k` of `indices` (a vector along `indexVectorDim`) is the row number
/// along dimension 0, as PARTITION.md 11.1 step 6 recognises it: the k-th input of a concatenate
/// along the index vector dimension (the input number stands for the component), or the indices
/// themselves, traced through reshapes, broadcasts, clamps and selects to an iota along 0.
bool batchingComponentIsIota(ir::Value* indices, int64_t indexVectorDim, size_t k)
{
    ir::Value* v = indices;
    if (ir::Op* concat = batchingDefinedBy(indices, "stablehlo.concatenate")) {
        if (batchingConcatDim(*concat) != indexVectorDim || concat->numOperands() <= k)
            return false;
        v = concat->operand(static_cast<unsigned>(k));
    }
    for (;;) {
        ir::Op* def = v->definingOp();
        if (!def)
            return false;
        const std::string& name = def->name();
        if ((name == "stablehlo.reshape" || name == "stablehlo.broadcast_in_dim") && def->numOperands() == 1) {
            v = def->operand(0);
        } else if (name == "stablehlo.clamp" && def->numOperands() == 3) {
            v = def->operand(1);
        } else if (name == "stablehlo.select" && def->numOperands() == 3) {
            // The false operand when it is an iota itself, else the true one.
            v = batchingDefinedBy(def->operand(2), "stablehlo.iota") ? def->operand(2) : def->operand(1);
        } else {
            return name == "stablehlo.iota" && stablehlo::intValue(def->attr("iota_dimension")).value_or(-1) == 0;
        }
    }
}

/// `stablehlo.slice` of `v` keeping [begin, end) along `dim` and everything elsewhere.
ir::Value* batchingSliceAlong(ir::Builder& b, ir::Value* v, int64_t dim, int64_t begin, int64_t end)
{
    const ir::Type& t = v->type();
    std::vector<int64_t> start(static_cast<size_t>(t.rank()), 0);
    std::vector<int64_t> limit = t.shape();
    start[static_cast<size_t>(dim)] = begin;
    limit[static_cast<size_t>(dim)] = end;
    std::vector<int64_t> shape = t.shape();
    shape[static_cast<size_t>(dim)] = end - begin;
    return b.createValue("stablehlo.slice", {v}, t.withShape(shape),
                         {{"limit_indices", ir::denseI64ArrayAttr(limit)},
                          {"start_indices", ir::denseI64ArrayAttr(start)},
                          {"strides", ir::denseI64ArrayAttr(std::vector<int64_t>(start.size(), 1))}});
}

/// `stablehlo.concatenate` of `parts` along `dim`.
ir::Value* batchingConcatenate(ir::Builder& b, const std::vector<ir::Value*>& parts, int64_t dim)
{
    std::vector<int64_t> shape = parts.front()->type().shape();
    shape[static_cast<size_t>(dim)] = 0;
    for (ir::Value* p : parts)
        shape[static_cast<size_t>(dim)] += p->type().dim(static_cast<int>(dim));
    return b.createValue("stablehlo.concatenate", parts, parts.front()->type().withShape(shape),
                         {{"dimension", ir::integerAttr(dim, "i64")}});
}

/// The indices without component `k` along `indexVectorDim` (PARTITION.md 11.1 "New start
/// indices"), built before `user`.
ir::Value* batchingIndicesWithout(ir::Rewriter& rw, ir::Op& user, ir::Value* indices, int64_t indexVectorDim, size_t k)
{
    ir::Builder b;
    b.setInsertionPoint(user);
    b.setLocationOf(user);
    ir::Op* const before = user.prevInBlock();
    std::vector<ir::Value*> parts;
    const int64_t size = indices->type().dim(static_cast<int>(indexVectorDim));
    ir::Op* concat = batchingDefinedBy(indices, "stablehlo.concatenate");
    if (concat && batchingConcatDim(*concat) == indexVectorDim && int64_t{concat->numOperands()} == size) {
        for (unsigned i = 0; i < concat->numOperands(); ++i)
            if (i != k)
                parts.push_back(concat->operand(i));
    } else {
        const auto kk = static_cast<int64_t>(k);
        if (kk > 0)
            parts.push_back(batchingSliceAlong(b, indices, indexVectorDim, 0, kk));
        if (kk + 1 < size)
            parts.push_back(batchingSliceAlong(b, indices, indexVectorDim, kk + 1, size));
    }
    ir::Value* result = parts.size() == 1 ? parts.front() : batchingConcatenate(b, parts, indexVectorDim);
    // The driver visits what the pattern creates, as MLIR's rewriter queues new ops.
    ir::Op* created = before ? before->nextInBlock() : user.parentBlock()->ops().front().get();
    for (; created && created != &user; created = created->nextInBlock())
        rw.enqueue(created);
    return result;
}

/// Whether `v` is a ranked tensor of rank > 0.
bool batchingHasDims(const ir::Value* v) { return v->type().isRankedTensor() && v->type().rank() > 0; }

/// PARTITION.md 11.1.
bool batchGather(ir::Op& gather, ir::Rewriter& rw)
{
    if (gather.numOperands() != 2)
        return false;
    ir::Value* operand = gather.operand(0);
    ir::Value* indices = gather.operand(1);
    std::optional<stablehlo::GatherDimensionNumbers> dims = stablehlo::gatherDimensionNumbers(gather);
    if (!dims || !dims->operandBatchingDims.empty() || !batchingHasDims(operand) || !batchingHasDims(indices))
        return false;
    const int64_t ivd = dims->indexVectorDim;
    if (ivd < 0 || ivd >= indices->type().rank() || indices->type().dim(static_cast<int>(ivd)) <= 1)
        return false;
    if (indices->type().dim(0) != operand->type().dim(0))
        return false;
    std::optional<size_t> k = batchingPositionOf(dims->startIndexMap, 0);
    if (!k || !batchingComponentIsIota(indices, ivd, *k) || !batchingPositionOf(dims->collapsedSliceDims, 0))
        return false;

    ir::Value* newIndices = batchingIndicesWithout(rw, gather, indices, ivd, *k);
    stablehlo::GatherDimensionNumbers out = *dims;
    out.collapsedSliceDims = batchingWithoutValue(dims->collapsedSliceDims, 0);
    out.operandBatchingDims = {0};
    out.startIndicesBatchingDims = {0};
    out.startIndexMap = batchingWithout(dims->startIndexMap, *k);
    gather.setOperand(1, newIndices);
    gather.setProp(stablehlo::kDimensionNumbersAttr, stablehlo::gatherDimensionNumbersAttr(out));
    rw.notifyModified(&gather);
    if (ir::Op* old = indices->definingOp())
        rw.enqueue(old);
    return true;
}

/// PARTITION.md 11.2.
bool batchScatter(ir::Op& scatter, ir::Rewriter& rw)
{
    // Operands: N inputs, the indices, N updates.
    if (scatter.numOperands() < 3 || scatter.numOperands() % 2 == 0)
        return false;
    const unsigned n = (scatter.numOperands() - 1) / 2;
    ir::Value* input = scatter.operand(0);
    ir::Value* indices = scatter.operand(n);
    std::optional<stablehlo::ScatterDimensionNumbers> dims = stablehlo::scatterDimensionNumbers(scatter);
    if (!dims || !dims->inputBatchingDims.empty() || !batchingHasDims(input) || !batchingHasDims(indices))
        return false;
    const int64_t ivd = dims->indexVectorDim;
    if (ivd < 0 || ivd >= indices->type().rank() || indices->type().dim(static_cast<int>(ivd)) <= 1)
        return false;
    if (indices->type().dim(0) != input->type().dim(0))
        return false;
    std::optional<size_t> k = batchingPositionOf(dims->scatterDimsToOperandDims, 0);
    if (!k || !batchingComponentIsIota(indices, ivd, *k) || !batchingPositionOf(dims->insertedWindowDims, 0))
        return false;

    ir::Value* newIndices = batchingIndicesWithout(rw, scatter, indices, ivd, *k);
    stablehlo::ScatterDimensionNumbers out = *dims;
    out.insertedWindowDims = batchingWithoutValue(dims->insertedWindowDims, 0);
    out.inputBatchingDims = {0};
    out.scatterIndicesBatchingDims = {0};
    out.scatterDimsToOperandDims = batchingWithout(dims->scatterDimsToOperandDims, *k);
    scatter.setOperand(n, newIndices);
    scatter.setProp(stablehlo::kScatterDimensionNumbersAttr, stablehlo::scatterDimensionNumbersAttr(out));
    rw.notifyModified(&scatter);
    if (ir::Op* old = indices->definingOp())
        rw.enqueue(old);
    return true;
}

} // namespace

void explicitGatherScatterBatching(ir::Module& module)
{
    ir::applyPatternsGreedily(module, [](ir::Op& op, ir::Rewriter& rw) {
        if (op.name() == "stablehlo.gather")
            return batchGather(op, rw);
        if (op.name() == "stablehlo.scatter")
            return batchScatter(op, rw);
        return false;
    });
}

} // namespace shardx
