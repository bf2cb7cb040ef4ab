// Interpreter: reduce, reduce_window, select_and_scatter and sort (folds in row-major order from the init values).
#include <algorithm>
#include <numeric>

#include "core/exec/Interpreter.h"
#include "core/ir/StablehloAttrs.h"

namespace shardx::exec {

namespace {

std::vector<Tensor> redReduceOp(OpContext& ctx)
{
    const unsigned n = ctx.numIn() / 2;
    if (n == 0 || ctx.numIn() % 2 != 0)
        ctx.fail("expected as many init values as inputs");
    const auto dims = ctx.ints("dimensions");
    const Tensor& x0 = ctx.in(0);
    std::vector<bool> reduced(x0.rank(), false);
    for (int64_t d : dims) {
        if (d < 0 || d >= x0.rank())
            ctx.fail("dimension out of range");
        reduced[static_cast<size_t>(d)] = true;
    }
    std::vector<Tensor> results;
    std::vector<Tensor*> accs;
    std::vector<const Tensor*> xs;
    for (unsigned k = 0; k < n; ++k) {
        results.push_back(ctx.result(k));
        xs.push_back(&ctx.in(k));
    }
    for (unsigned k = 0; k < n; ++k) {
        for (int64_t i = 0; i < results[k].numElements(); ++i)
            results[k].copyElement(i, ctx.in(n + k), 0);
        accs.push_back(&results[k]);
    }
    const auto rs = rowMajorStrides(results[0].shape());
    Combiner combine(ctx, 0);
    // Visiting the input in row-major order folds each result element's inputs in row-major order.
    std::vector<int64_t> idx(x0.rank(), 0);
    for (int64_t i = 0; i < x0.numElements(); ++i, nextIndex(idx, x0.shape())) {
        int64_t o = 0;
        size_t r = 0;
        for (size_t d = 0; d < idx.size(); ++d)
            if (!reduced[d])
                o += idx[d] * rs[r++];
        combine.combine(accs, o, xs, i);
    }
    return results;
}

/// Padding attribute (`dense<[[lo, hi], ...]>`) as lo/hi lists of `rank` entries.
void redPadding(const OpContext& ctx, int rank, std::vector<int64_t>& lo, std::vector<int64_t>& hi)
{
    lo.assign(static_cast<size_t>(rank), 0);
    hi.assign(static_cast<size_t>(rank), 0);
    if (!ctx.op.attr("padding"))
        return;
    const auto flat = ctx.ints("padding");
    if (flat.size() != static_cast<size_t>(2 * rank))
        ctx.fail("padding does not match the operand's rank");
    for (int d = 0; d < rank; ++d) {
        lo[static_cast<size_t>(d)] = flat[static_cast<size_t>(2 * d)];
        hi[static_cast<size_t>(d)] = flat[static_cast<size_t>(2 * d + 1)];
    }
}

std::vector<Tensor> redReduceWindowOp(OpContext& ctx)
{
    const unsigned n = ctx.numIn() / 2;
    if (n == 0 || ctx.numIn() % 2 != 0)
        ctx.fail("expected as many init values as inputs");
    const Tensor& x0 = ctx.in(0);
    const int rank = x0.rank();
    const auto window = ctx.ints("window_dimensions");
    const auto strides = ctx.intsOr("window_strides", std::vector<int64_t>(rank, 1));
    const auto baseDil = ctx.intsOr("base_dilations", std::vector<int64_t>(rank, 1));
    const auto winDil = ctx.intsOr("window_dilations", std::vector<int64_t>(rank, 1));
    std::vector<int64_t> lo, hi;
    redPadding(ctx, rank, lo, hi);
    if (window.size() != static_cast<size_t>(rank) || strides.size() != window.size() ||
        baseDil.size() != window.size() || winDil.size() != window.size())
        ctx.fail("window attributes do not match the operand's rank");
    std::vector<Tensor> results;
    std::vector<Tensor*> accs;
    std::vector<const Tensor*> xs;
    std::vector<Tensor> inits;
    for (unsigned k = 0; k < n; ++k) {
        results.push_back(ctx.result(k));
        inits.push_back(ctx.in(n + k));
    }
    for (unsigned k = 0; k < n; ++k) {
        for (int64_t i = 0; i < results[k].numElements(); ++i)
            results[k].copyElement(i, inits[k], 0);
        accs.push_back(&results[k]);
    }
    Combiner combine(ctx, 0);
    std::vector<const Tensor*> initPtrs;
    for (auto& t : inits)
        initPtrs.push_back(&t);
    for (unsigned k = 0; k < n; ++k)
        xs.push_back(&ctx.in(k));
    std::vector<int64_t> ridx(rank, 0), widx(rank, 0), xidx(rank, 0);
    const Tensor& r0 = results[0];
    for (int64_t o = 0; o < r0.numElements(); ++o, nextIndex(ridx, r0.shape())) {
        std::fill(widx.begin(), widx.end(), 0);
        do {
            // Position in the padded, base-dilated input; padding and dilation holes hold the init value.
            bool real = true;
            for (int d = 0; d < rank; ++d) {
                const auto u = static_cast<size_t>(d);
                const int64_t p = ridx[u] * strides[u] + widx[u] * winDil[u] - lo[u];
                if (p < 0 || p % baseDil[u] != 0 || p / baseDil[u] >= x0.dim(d)) {
                    real = false;
                    break;
                }
                xidx[u] = p / baseDil[u];
            }
            if (real)
                combine.combine(accs, o, xs, x0.linearIndex(xidx));
            else
                combine.combine(accs, o, initPtrs, 0);
        } while (nextIndex(widx, window));
    }
    return results;
}

/// Evaluates a comparator or selector region on scalars; fast path for one `stablehlo.compare` of the
/// first two arguments.
class RedPredicate {
public:
    RedPredicate(const OpContext& ctx, unsigned region) : m_ctx(ctx), m_region(region)
    {
        const ir::Block& block = *ctx.op.region(region).blocks().front();
        if (block.ops().size() != 2)
            return;
        const ir::Op& cmp = *block.ops().front();
        const ir::Op& ret = *block.ops().back();
        if (cmp.name() != "stablehlo.compare" || ret.numOperands() != 1 || ret.operand(0) != cmp.result(0) ||
            cmp.numOperands() != 2)
            return;
        const std::string type = stablehlo::enumKeyword(cmp.attr("compare_type"));
        if (type == "TOTALORDER")
            return;
        if (cmp.operand(0) == block.arg(0) && cmp.operand(1) == block.arg(1))
            m_dir = stablehlo::enumKeyword(cmp.attr("comparison_direction"));
        else if (cmp.operand(0) == block.arg(1) && cmp.operand(1) == block.arg(0))
            m_dir = stablehlo::enumKeyword(cmp.attr("comparison_direction")), m_swapped = true;
    }

    /// The region's verdict on (a[ia], b[ib]) (for sort: lhs, rhs of every input).
    bool operator()(const std::vector<const Tensor*>& ts, int64_t ia, int64_t ib) const
    {
        if (!m_dir.empty() && ts.size() == 1 && !ts[0]->elementType().isComplex()) {
            const Tensor& t = *ts[0];
            int64_t x = m_swapped ? ib : ia, y = m_swapped ? ia : ib;
            int cmp;
            bool unordered = false;
            if (t.elementType().isFloat()) {
                double a = t.getFloat(x), b = t.getFloat(y);
                unordered = a != a || b != b;
                cmp = a < b ? -1 : a > b ? 1 : 0;
            } else if (t.elementType().isUnsigned || t.elementType().isBool()) {
                uint64_t a = static_cast<uint64_t>(t.getInt(x)), b = static_cast<uint64_t>(t.getInt(y));
                cmp = a < b ? -1 : a > b ? 1 : 0;
            } else {
                int64_t a = t.getInt(x), b = t.getInt(y);
                cmp = a < b ? -1 : a > b ? 1 : 0;
            }
            if (m_dir == "EQ")
                return !unordered && cmp == 0;
            if (m_dir == "NE")
                return unordered || cmp != 0;
            if (unordered)
                return false;
            if (m_dir == "LT")
                return cmp < 0;
            if (m_dir == "LE")
                return cmp <= 0;
            if (m_dir == "GT")
                return cmp > 0;
            return cmp >= 0;
        }
        std::vector<Tensor> args;
        for (const Tensor* t : ts) {
            args.push_back(scalarOf(*t, ia));
            args.push_back(scalarOf(*t, ib));
        }
        auto out = m_ctx.runRegion(m_region, std::move(args));
        if (out.size() != 1 || out[0].numElements() != 1)
            m_ctx.fail("comparator must return one i1 scalar");
        return out[0].getInt(0) != 0;
    }

private:
    const OpContext& m_ctx;
    unsigned m_region;
    std::string m_dir;
    bool m_swapped = false;
};

std::vector<Tensor> redSelectAndScatterOp(OpContext& ctx)
{
    const Tensor& operand = ctx.in(0);
    const Tensor& source = ctx.in(1);
    const Tensor& init = ctx.in(2);
    const int rank = operand.rank();
    const auto window = ctx.ints("window_dimensions");
    const auto strides = ctx.intsOr("window_strides", std::vector<int64_t>(rank, 1));
    std::vector<int64_t> lo, hi;
    redPadding(ctx, rank, lo, hi);
    if (window.size() != static_cast<size_t>(rank) || strides.size() != window.size())
        ctx.fail("window attributes do not match the operand's rank");
    Tensor result = ctx.result(0);
    for (int64_t i = 0; i < result.numElements(); ++i)
        result.copyElement(i, init, 0);
    RedPredicate select(ctx, 0);
    Combiner scatter(ctx, 1);
    std::vector<const Tensor*> op{&operand};
    std::vector<Tensor*> accs{&result};
    std::vector<const Tensor*> src{&source};
    std::vector<int64_t> sidx(rank, 0), widx(rank, 0), xidx(rank, 0);
    for (int64_t s = 0; s < source.numElements(); ++s, nextIndex(sidx, source.shape())) {
        std::fill(widx.begin(), widx.end(), 0);
        int64_t selected = -1;
        do {
            bool real = true;
            for (int d = 0; d < rank; ++d) {
                const auto u = static_cast<size_t>(d);
                const int64_t p = sidx[u] * strides[u] + widx[u] - lo[u];
                if (p < 0 || p >= operand.dim(d)) {
                    real = false;
                    break;
                }
                xidx[u] = p;
            }
            if (!real)
                continue;
            const int64_t x = operand.linearIndex(xidx);
            if (selected < 0 || !select(op, selected, x))
                selected = x;
        } while (nextIndex(widx, window));
        if (selected >= 0)
            scatter.combine(accs, selected, src, s);
    }
    return {std::move(result)};
}

std::vector<Tensor> redSortOp(OpContext& ctx)
{
    const Tensor& x0 = ctx.in(0);
    int64_t dim = ctx.integerOr("dimension", -1);
    if (dim < 0)
        dim += x0.rank();
    if (dim < 0 || dim >= x0.rank())
        ctx.fail("dimension out of range");
    std::vector<Tensor> results;
    std::vector<const Tensor*> inputs;
    for (unsigned k = 0; k < ctx.numIn(); ++k) {
        results.push_back(ctx.in(k));
        inputs.push_back(&ctx.in(k));
    }
    RedPredicate less(ctx, 0);
    const auto strides = rowMajorStrides(x0.shape());
    const int64_t len = x0.dim(static_cast<int>(dim));
    const int64_t step = strides[static_cast<size_t>(dim)];
    std::vector<int64_t> outer = x0.shape();
    outer[static_cast<size_t>(dim)] = 1;
    std::vector<int64_t> idx(outer.size(), 0);
    std::vector<int64_t> order(static_cast<size_t>(len));
    for (int64_t o = 0; o < elementCount(outer); ++o, nextIndex(idx, outer)) {
        const int64_t base = x0.linearIndex(idx);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](int64_t a, int64_t b) { return less(inputs, base + a * step, base + b * step); });
        for (unsigned k = 0; k < inputs.size(); ++k)
            for (int64_t j = 0; j < len; ++j)
                results[k].copyElement(base + j * step, *inputs[k], base + order[static_cast<size_t>(j)] * step);
    }
    return results;
}

} // namespace

void registerReductionOps(HandlerMap& map)
{
    map["stablehlo.reduce"] = redReduceOp;
    map["stablehlo.reduce_window"] = redReduceWindowOp;
    map["stablehlo.select_and_scatter"] = redSelectAndScatterOp;
    map["stablehlo.sort"] = redSortOp;
}

} // namespace shardx::exec
