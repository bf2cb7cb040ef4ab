// -sdy-pad-for-divisibility (PARTITION.md 5): every value whose sharded dimensions do not divide
// among their shards is enlarged at the high end; collectives get padded inputs and trimmed outputs,
// contractions mask the padding of their operands.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "core/ir/Builder.h"
#include "core/ir/FuncOps.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/ir/StablehloAttrs.h"
#include "core/mesh/AxisRef.h"
#include "core/partition/LocalOps.h"
#include "core/partition/PartitionPasses.h"

namespace shardx {
namespace {

using partition::attr;

std::vector<int64_t> ints(const ir::Op& op, const char* name, int64_t expected = 0)
{
    return stablehlo::intList(op.attr(name), expected).value_or(std::vector<int64_t>{});
}

bool isElementwise(const std::string& name)
{
    static const std::set<std::string> kOps = {"stablehlo.abs",
                                               "stablehlo.add",
                                               "stablehlo.and",
                                               "stablehlo.atan2",
                                               "stablehlo.cbrt",
                                               "stablehlo.ceil",
                                               "stablehlo.clamp",
                                               "stablehlo.compare",
                                               "stablehlo.convert",
                                               "stablehlo.cosine",
                                               "stablehlo.divide",
                                               "stablehlo.exponential",
                                               "stablehlo.exponential_minus_one",
                                               "stablehlo.floor",
                                               "stablehlo.is_finite",
                                               "stablehlo.log",
                                               "stablehlo.log_plus_one",
                                               "stablehlo.logistic",
                                               "stablehlo.maximum",
                                               "stablehlo.minimum",
                                               "stablehlo.multiply",
                                               "stablehlo.negate",
                                               "stablehlo.not",
                                               "stablehlo.or",
                                               "stablehlo.popcnt",
                                               "stablehlo.power",
                                               "stablehlo.remainder",
                                               "stablehlo.round_nearest_afz",
                                               "stablehlo.round_nearest_even",
                                               "stablehlo.rsqrt",
                                               "stablehlo.select",
                                               "stablehlo.shift_left",
                                               "stablehlo.shift_right_arithmetic",
                                               "stablehlo.shift_right_logical",
                                               "stablehlo.sign",
                                               "stablehlo.sine",
                                               "stablehlo.sqrt",
                                               "stablehlo.subtract",
                                               "stablehlo.tan",
                                               "stablehlo.tanh",
                                               "stablehlo.xor",
                                               "stablehlo.real",
                                               "stablehlo.imag",
                                               "stablehlo.bitcast_convert",
                                               "sdy.all_reduce",
                                               "sdy.sharded_to_unreduced",
                                               "sdy.replicated_to_unreduced"};
    return kOps.count(name) > 0;
}

class Padder {
public:
    Padder(ir::Module& module, DiagnosticList& diags) : m_module(module), m_diags(diags), m_meshes(module) {}

    bool runOnFunc(ir::Op* func)
    {
        if (!checkSignature(func))
            return false;
        std::vector<ir::Op*> ops;
        func->walk([&](ir::Op* op) {
            if (op != func)
                ops.push_back(op);
        });
        for (ir::Op* op : ops)
            if (!rewrite(op))
                return false;
        return true;
    }

private:
    ir::Type padded(const ir::Type& t, const TensorSharding* s) const
    {
        return partition::paddedType(t, s, s ? m_meshes(*s) : nullptr);
    }
    /// Legality is judged on the types the program had before this pass (as MLIR's conversion
    /// driver sees the original operands).
    bool legal(const ir::Value* v) const
    {
        const ir::Type& t = original(v);
        return padded(t, ir::shardingOfValue(v)) == t;
    }
    const ir::Type& original(const ir::Value* v) const
    {
        auto it = m_original.find(v);
        return it == m_original.end() ? v->type() : it->second;
    }
    /// Gives `v` type `t`, noting the type it had first (what original() answers after).
    void retype(ir::Value* v, const ir::Type& t)
    {
        m_original.try_emplace(v, v->type());
        v->setType(t);
    }
    bool zeroKind(const ir::Value* v) const { return m_zero.count(v) > 0; }

    bool checkSignature(ir::Op* func)
    {
        const ir::Type type = ir::funcType(*func);
        for (unsigned i = 0; i < type.elements().size(); ++i) {
            const ir::Type& t = type.elements()[i];
            if (padded(t, ir::funcArgSharding(*func, i)) != t) {
                m_diags.error(func->pos, "argument " + std::to_string(i) + " of type " + t.toString() +
                                             " has a sharding that does not divide it; function inputs and outputs "
                                             "must be divisible");
                return false;
            }
        }
        for (unsigned i = 0; i < type.results().size(); ++i) {
            const ir::Type& t = type.results()[i];
            if (padded(t, ir::funcResultSharding(*func, i)) != t) {
                m_diags.error(func->pos, "result " + std::to_string(i) + " of type " + t.toString() +
                                             " has a sharding that does not divide it; function inputs and outputs "
                                             "must be divisible");
                return false;
            }
        }
        return true;
    }

    ir::Builder before(ir::Op& op)
    {
        ir::Builder b;
        b.setInsertionPoint(op);
        b.setLocationOf(op);
        return b;
    }
    static void setSharding(ir::Op& op, const TensorSharding* s)
    {
        if (s)
            ir::setResultShardings(op, ShardingPerValue{{*s}});
    }
    ir::Value* scalarZero(ir::Builder& b, const std::string& elementType)
    {
        return partition::zeros(b, ir::Type::tensor({}, elementType));
    }
    ir::Value* padHigh(ir::Builder& b, ir::Value* v, ir::Value* value, const ir::Type& target)
    {
        return partition::padHigh(b, v, value, target, ir::shardingOfValue(v));
    }
    ir::Value* trim(ir::Builder& b, ir::Value* v, const std::vector<int64_t>& limit, const TensorSharding* s)
    {
        return partition::trim(b, v, limit, s);
    }
    /// Replaces every use of `r` (a result of `op`) by a trim of it to `limit`, inserted right after
    /// `op`, with sharding `s`; the trim has `r`'s original type and, when `zero`, zero padding.
    ir::Value* trimUses(ir::Op& op, ir::Value* r, const std::vector<int64_t>& limit, const TensorSharding* s, bool zero)
    {
        const std::vector<ir::Use> uses = r->uses();
        ir::Builder b;
        b.setInsertionPointAfter(op);
        b.setLocationOf(op);
        ir::Value* t = trim(b, r, limit, s);
        if (zero)
            m_zero.insert(t);
        m_original[t] = original(r);
        for (const ir::Use& u : uses)
            u.user->setOperand(u.index, t);
        return t;
    }

    /// Overwrites the padding of `v` (beyond `orig` in `dims`) with `value` (PARTITION.md 5.4).
    ir::Value* mask(ir::Builder& b, ir::Value* v, const ir::Type& orig, ir::Value* value,
                    const std::vector<int64_t>& dims)
    {
        const ir::Type& p = v->type();
        const TensorSharding* s = ir::shardingOfValue(v);
        const ir::Type i32 = p.withShape(p.shape());
        ir::Value* m = nullptr;
        for (int d = 0; d < p.rank(); ++d) {
            if (orig.dim(d) == p.dim(d) || std::find(dims.begin(), dims.end(), d) == dims.end())
                continue;
            const ir::Type idx = ir::Type::tensor(p.shape(), "i32");
            ir::Op* iota = b.create("stablehlo.iota", {}, {idx});
            iota->setProp("iota_dimension", ir::integerAttr(d, "i64"));
            setSharding(*iota, s);
            ir::Value* limit = b.createConstant(attr("dense<" + std::to_string(orig.dim(d)) + "> : tensor<i32>"));
            ir::Op* bc = b.create("stablehlo.broadcast_in_dim", {limit}, {idx});
            bc->setProp("broadcast_dimensions", ir::denseI64ArrayAttr({}));
            setSharding(*bc, s);
            ir::Op* lt =
                b.create("stablehlo.compare", {iota->result(0), bc->result(0)}, {ir::Type::tensor(p.shape(), "i1")});
            lt->setProp("comparison_direction", attr("#stablehlo<comparison_direction LT>"));
            setSharding(*lt, s);
            if (!m) {
                m = lt->result(0);
            } else {
                ir::Op* both = b.create("stablehlo.and", {m, lt->result(0)}, {m->type()});
                setSharding(*both, s);
                m = both->result(0);
            }
        }
        (void)i32;
        if (!m)
            return v;
        ir::Op* bp = b.create("stablehlo.broadcast_in_dim", {value}, {p});
        bp->setProp("broadcast_dimensions", ir::denseI64ArrayAttr({}));
        setSharding(*bp, s);
        ir::Op* sel = b.create("stablehlo.select", {m, v, bp->result(0)}, {p});
        setSharding(*sel, s);
        return sel->result(0);
    }
    ir::Value* ensureZeroPadding(ir::Builder& b, ir::Value* v, const std::vector<int64_t>& dims)
    {
        const ir::Type& orig = original(v);
        if (v->type() == orig || zeroKind(v))
            return v;
        ir::Value* zero = scalarZero(b, v->type().elementType());
        return mask(b, v, orig, zero, dims);
    }

    void replaceUses(ir::Value* from, ir::Value* to, const ir::Op* except)
    {
        const std::vector<ir::Use> uses = from->uses();
        for (const ir::Use& u : uses)
            if (u.user != except)
                u.user->setOperand(u.index, to);
    }

    bool opLegal(const ir::Op& op) const
    {
        for (const ir::Value* v : op.operands())
            if (!legal(v))
                return false;
        for (unsigned i = 0; i < op.numResults(); ++i)
            if (!legal(op.result(i)))
                return false;
        return true;
    }

    bool rewrite(ir::Op* op)
    {
        const std::string& name = op->name();
        if (name == "sdy.all_slice" || name == "sdy.reduce_scatter") {
            const ir::Type& in = original(op->operand(0));
            if (padded(in, ir::outSharding(*op)) == in)
                return true;
            if (name == "sdy.all_slice")
                gatherMisalignedBeforeSlice(op);
            return sliceLike(op);
        }
        if (name == "sdy.all_to_all")
            return opLegal(*op) || allToAll(op);
        if (name == "sdy.all_gather") {
            if (legal(op->operand(0)))
                return true;
            ir::Op* reslice = gatherMisalignedWhole(op);
            if (!allGather(op))
                return false;
            if (!reslice)
                return true;
            retype(reslice->result(0), reslice->operand(0)->type()); // the trim's, padded or not
            return rewrite(reslice);
        }
        const bool generic = name == "sdy.all_reduce" || name == "sdy.sharded_to_unreduced" ||
                             name == "sdy.replicated_to_unreduced" || name.rfind("stablehlo.", 0) == 0;
        if (!generic || opLegal(*op))
            return true;
        if (name == "stablehlo.slice")
            return slice(op);
        if (name == "stablehlo.pad")
            return pad(op);
        if (name == "stablehlo.dot_general")
            return dotGeneral(op);
        if (name == "stablehlo.convolution")
            return convolution(op);
        retypeGeneric(*op);
        return true;
    }

    void retypeGeneric(ir::Op& op)
    {
        std::optional<std::vector<int64_t>> inferred;
        if (isElementwise(op.name()))
            for (const ir::Value* v : op.operands())
                if (v->type().isRankedTensor() && op.numResults() && v->type().rank() == op.result(0)->type().rank()) {
                    inferred = v->type().shape();
                    break;
                }
        for (unsigned i = 0; i < op.numResults(); ++i) {
            ir::Value* r = op.result(i);
            ir::Type p = padded(r->type(), ir::shardingOfValue(r));
            if (inferred && p.isRankedTensor() && static_cast<int>(inferred->size()) == p.rank()) {
                std::vector<int64_t> shape = p.shape();
                for (size_t d = 0; d < shape.size(); ++d)
                    shape[d] = std::max(shape[d], (*inferred)[d]);
                p = p.withShape(shape);
            }
            retype(r, p);
        }
    }

    bool sliceLike(ir::Op* op)
    {
        ir::Value* in = op->operand(0);
        const TensorSharding* out = ir::outSharding(*op);
        const ir::Type target = padded(in->type(), out);
        bool zero = zeroKind(in);
        if (target != in->type()) {
            const bool paddedBefore = in->type() != original(in);
            ir::Builder b = before(*op);
            ir::Value* c = scalarZero(b, in->type().elementType());
            ir::Value* p = padHigh(b, in, c, target);
            zero = !paddedBefore || zero;
            if (zero)
                m_zero.insert(p);
            m_original[p] = original(in);
            op->setOperand(0, p);
        }
        retype(op->result(0), target);
        if (zero)
            m_zero.insert(op->result(0));
        return true;
    }

    bool allToAll(ir::Op* op)
    {
        ir::Value* in = op->operand(0);
        const bool zeroBefore = zeroKind(in);
        sliceLike(op);
        const std::vector<ir::AllToAllParam>* params = ir::allToAllParams(*op);
        ir::Value* r = op->result(0);
        std::vector<int64_t> limit = r->type().shape();
        bool needed = false;
        for (const ir::AllToAllParam& p : params ? *params : std::vector<ir::AllToAllParam>{}) {
            const size_t d = static_cast<size_t>(p.srcDim);
            if (d < limit.size() && limit[d] > original(in).dim(static_cast<int>(d))) {
                limit[d] = original(in).dim(static_cast<int>(d));
                needed = true;
            }
        }
        if (needed)
            trimUses(*op, r, limit, ir::outSharding(*op), zeroBefore);
        return true;
    }

    // Shardy's rules for all_slice and all_gather (PARTITION.md 5.3.3, 5.3.5) assume that the shards a
    // dimension keeps through the collective line up: the blocks of the padded finer sharding, taken
    // `m` at a time, are the blocks of the coarser one. That fails when the coarser sharding divides the
    // dimension and the finer one does not: 10 rows on 2 shards are blocks of 5, on 4 shards blocks of
    // 3 (padded to 12), and two of those are 6 rows. A trim or pad on such a still-sharded dimension
    // would move rows between shards, which convert-global-to-local rejects (or computes wrongly), and
    // Shardy itself fails there. Such dimensions are gathered whole instead, trimmed or padded
    // replicated, and sliced again.

    /// True when a dimension of unpadded size `size`, sharded `coarse` ways, does not cut into the
    /// blocks of its padded `coarse * m`-way sharding taken `m` at a time.
    static bool misaligned(int64_t size, int64_t coarse, int64_t m)
    {
        if (coarse <= 1 || m <= 1 || size < 0)
            return false;
        const int64_t fine = coarse * m;
        return (size + coarse - 1) / coarse != m * ((size + fine - 1) / fine);
    }

    /// An all_slice whose operand keeps axes `K` on a misaligned dimension: the operand is gathered
    /// over `K` there first and the slice takes `K` and its own axes.
    void gatherMisalignedBeforeSlice(ir::Op* op)
    {
        ir::Value* in = op->operand(0);
        const TensorSharding* inS = ir::shardingOfValue(in);
        const TensorSharding* out = ir::outSharding(*op);
        const std::vector<std::vector<AxisRef>>* axes = ir::perDimCollectiveAxes(*op);
        const Mesh* mesh = inS ? m_meshes(*inS) : nullptr;
        if (!inS || !out || !axes || !mesh)
            return;
        const ir::Type& orig = original(in);
        std::vector<std::vector<AxisRef>> gather(axes->size()), slicing = *axes;
        TensorSharding gathered = *inS;
        bool any = false;
        for (size_t d = 0; d < axes->size() && d < inS->dims.size() && static_cast<int>(d) < orig.rank(); ++d) {
            const std::vector<AxisRef>& kept = inS->dims[d].axes;
            if (!misaligned(orig.dim(static_cast<int>(d)), axesProduct(kept, *mesh), axesProduct((*axes)[d], *mesh)))
                continue;
            gather[d] = kept;
            slicing[d] = kept;
            addAxesOrMerge(slicing[d], (*axes)[d], *mesh); // "model":(1)2 then "model":(2)2 is "model"
            gathered.dims[d].axes.clear();
            any = true;
        }
        if (!any)
            return;
        ir::Builder b = before(*op);
        ir::Op* g = b.create("sdy.all_gather", {in}, {in->type()});
        ir::setPerDimCollectiveAxes(*g, gather);
        ir::setOutSharding(*g, gathered);
        if (ir::AttrPtr cause = op->attrPtr("shardx.cause"))
            g->setDiscardable("shardx.cause", cause);
        m_original[g->result(0)] = orig;
        if (!legal(in))
            allGather(g);
        op->setOperand(0, g->result(0));
        ir::setPerDimCollectiveAxes(*op, slicing);
    }

    /// An all_gather that keeps axes `K` on a misaligned dimension: it gathers the dimension whole
    /// and an all_slice over `K`, inserted after it, takes over its uses. Returns that all_slice.
    ir::Op* gatherMisalignedWhole(ir::Op* op)
    {
        ir::Value* in = op->operand(0);
        ir::Value* r = op->result(0);
        const TensorSharding* inS = ir::shardingOfValue(in);
        const TensorSharding* outP = ir::outSharding(*op);
        const std::vector<std::vector<AxisRef>>* axes = ir::perDimCollectiveAxes(*op);
        const Mesh* mesh = outP ? m_meshes(*outP) : nullptr;
        if (!inS || !outP || !axes || !mesh)
            return nullptr;
        const TensorSharding out = *outP;
        const ir::Type orig = r->type();
        std::vector<std::vector<AxisRef>> gather = *axes, reslice(axes->size());
        TensorSharding whole = out;
        bool any = false;
        for (size_t d = 0; d < axes->size() && d < out.dims.size() && d < inS->dims.size(); ++d) {
            const std::vector<AxisRef>& kept = out.dims[d].axes;
            if ((*axes)[d].empty() ||
                !misaligned(orig.dim(static_cast<int>(d)), axesProduct(kept, *mesh), axesProduct((*axes)[d], *mesh)))
                continue;
            gather[d] = inS->dims[d].axes;
            reslice[d] = kept;
            whole.dims[d].axes.clear();
            any = true;
        }
        if (!any)
            return nullptr;
        ir::setPerDimCollectiveAxes(*op, gather);
        ir::setOutSharding(*op, whole);
        ir::Builder b;
        b.setInsertionPointAfter(*op);
        b.setLocationOf(*op);
        ir::Op* s = b.create("sdy.all_slice", {r}, {orig});
        ir::setPerDimCollectiveAxes(*s, reslice);
        ir::setOutSharding(*s, out);
        if (ir::AttrPtr cause = op->attrPtr("shardx.cause"))
            s->setDiscardable("shardx.cause", cause);
        m_original[s->result(0)] = orig;
        replaceUses(r, s->result(0), s);
        return s;
    }

    bool allGather(ir::Op* op)
    {
        ir::Value* in = op->operand(0);
        ir::Value* r = op->result(0);
        const ir::Type orig = r->type();
        const TensorSharding* out = ir::outSharding(*op);
        const ir::Type p = padded(orig, out);
        std::vector<int64_t> shape = p.shape();
        for (size_t d = 0; d < shape.size(); ++d)
            shape[d] = std::max(shape[d], in->type().dim(static_cast<int>(d)));
        retype(r, orig.withShape(shape));
        if (zeroKind(in))
            m_zero.insert(r);
        const std::vector<std::vector<AxisRef>>* axes = ir::perDimCollectiveAxes(*op);
        std::vector<int64_t> limit = shape;
        bool needed = false;
        for (size_t d = 0; axes && d < axes->size() && d < limit.size(); ++d)
            if (!(*axes)[d].empty() && limit[d] > orig.dim(static_cast<int>(d))) {
                limit[d] = orig.dim(static_cast<int>(d));
                needed = true;
            }
        if (!needed)
            return true;
        ir::Value* t = trimUses(*op, r, limit, out, zeroKind(in));
        // A trim that is itself not divisible is widened back (the slice rule).
        if (!legal(t))
            return slice(t->definingOp());
        return true;
    }

    bool slice(ir::Op* op)
    {
        ir::Value* r = op->result(0);
        const TensorSharding* s = ir::shardingOfValue(r);
        const ir::Type p = padded(r->type(), s);
        if (p == r->type()) {
            // The slice infers its type from its (possibly enlarged) operand: unchanged.
            return true;
        }
        std::vector<int64_t> start = ints(*op, "start_indices"), limit = ints(*op, "limit_indices");
        if (start.size() != static_cast<size_t>(p.rank()) || limit.size() != start.size()) {
            m_diags.error(op->pos, "the indices of this slice cannot be read");
            return false;
        }
        for (size_t i = 0; i < start.size(); ++i)
            limit[i] = start[i] + p.dim(static_cast<int>(i));
        op->setProp("limit_indices", ir::denseI64ArrayAttr(limit));
        retype(r, p);
        return true;
    }

    bool pad(ir::Op* op)
    {
        ir::Value* r = op->result(0);
        const ir::Type p = padded(original(r), ir::shardingOfValue(r));
        std::vector<int64_t> low = ints(*op, "edge_padding_low"), high = ints(*op, "edge_padding_high"),
                             interior = ints(*op, "interior_padding");
        const int rank = p.rank();
        if (static_cast<int>(low.size()) != rank || high.size() != low.size() || interior.size() != low.size()) {
            m_diags.error(op->pos, "the padding of this pad cannot be read");
            return false;
        }
        ir::Value* in = op->operand(0);
        std::vector<int64_t> newHigh(static_cast<size_t>(rank));
        bool shrank = false;
        for (int d = 0; d < rank; ++d) {
            const size_t k = static_cast<size_t>(d);
            const int64_t i = in->type().dim(d);
            newHigh[k] = p.dim(d) - i - low[k] - std::max<int64_t>(0, i - 1) * interior[k];
            shrank = shrank || newHigh[k] < high[k];
        }
        if (shrank) {
            ir::Builder b = before(*op);
            std::vector<int64_t> all;
            for (int d = 0; d < rank; ++d)
                all.push_back(d);
            op->setOperand(0, mask(b, in, original(in), op->operand(1), all));
        }
        op->setProp("edge_padding_high", ir::denseI64ArrayAttr(newHigh));
        retype(r, p);
        return true;
    }

    bool dotGeneral(ir::Op* op)
    {
        std::optional<stablehlo::DotDimensionNumbers> dims = stablehlo::dotDimensionNumbers(*op);
        if (!dims) {
            m_diags.error(op->pos, "the dot_dimension_numbers of this dot_general cannot be read");
            return false;
        }
        ir::Builder b = before(*op);
        op->setOperand(0, ensureZeroPadding(b, op->operand(0), dims->lhsContracting));
        op->setOperand(1, ensureZeroPadding(b, op->operand(1), dims->rhsContracting));
        // Result: the padded result type, at least what the operands give in batch and free dims.
        ir::Value* r = op->result(0);
        ir::Type p = padded(r->type(), ir::shardingOfValue(r));
        std::vector<int64_t> shape = p.shape();
        const ir::Type& lhs = op->operand(0)->type();
        const ir::Type& rhs = op->operand(1)->type();
        std::vector<int64_t> inferred;
        for (int64_t d : dims->lhsBatching)
            inferred.push_back(lhs.dim(static_cast<int>(d)));
        for (int d = 0; d < lhs.rank(); ++d)
            if (std::find(dims->lhsBatching.begin(), dims->lhsBatching.end(), d) == dims->lhsBatching.end() &&
                std::find(dims->lhsContracting.begin(), dims->lhsContracting.end(), d) == dims->lhsContracting.end())
                inferred.push_back(lhs.dim(d));
        for (int d = 0; d < rhs.rank(); ++d)
            if (std::find(dims->rhsBatching.begin(), dims->rhsBatching.end(), d) == dims->rhsBatching.end() &&
                std::find(dims->rhsContracting.begin(), dims->rhsContracting.end(), d) == dims->rhsContracting.end())
                inferred.push_back(rhs.dim(d));
        if (inferred.size() == shape.size())
            for (size_t d = 0; d < shape.size(); ++d)
                shape[d] = std::max(shape[d], inferred[d]);
        retype(r, p.withShape(shape));
        return true;
    }

    bool convolution(ir::Op* op)
    {
        std::optional<stablehlo::ConvDimensionNumbers> dims = stablehlo::convDimensionNumbers(*op);
        if (!dims) {
            m_diags.error(op->pos, "the dimension_numbers of this convolution cannot be read");
            return false;
        }
        ir::Builder b = before(*op);
        std::vector<int64_t> lhsDims = {dims->inputFeature}, rhsDims = {dims->kernelInputFeature};
        lhsDims.insert(lhsDims.end(), dims->inputSpatial.begin(), dims->inputSpatial.end());
        rhsDims.insert(rhsDims.end(), dims->kernelSpatial.begin(), dims->kernelSpatial.end());
        op->setOperand(0, ensureZeroPadding(b, op->operand(0), lhsDims));
        op->setOperand(1, ensureZeroPadding(b, op->operand(1), rhsDims));
        // StableHLO's shape inference of the output.
        const ir::Type& lhs = op->operand(0)->type();
        const ir::Type& rhs = op->operand(1)->type();
        const size_t n = dims->inputSpatial.size();
        const std::vector<int64_t> strides = ints(*op, "window_strides"), lhsDil = ints(*op, "lhs_dilation"),
                                   rhsDil = ints(*op, "rhs_dilation"),
                                   padding = ints(*op, "padding", 2 * static_cast<int64_t>(n));
        ir::Value* r = op->result(0);
        const ir::Type target = padded(r->type(), ir::shardingOfValue(r));
        std::vector<int64_t> shape = r->type().shape();
        const int64_t batchGroups = stablehlo::intValue(op->attr("batch_group_count")).value_or(1);
        shape[static_cast<size_t>(dims->outputBatch)] =
            lhs.dim(static_cast<int>(dims->inputBatch)) / std::max<int64_t>(1, batchGroups);
        shape[static_cast<size_t>(dims->outputFeature)] = rhs.dim(static_cast<int>(dims->kernelOutputFeature));
        for (size_t i = 0; i < n; ++i) {
            auto at = [](const std::vector<int64_t>& v, size_t k, int64_t dflt) { return k < v.size() ? v[k] : dflt; };
            const int64_t in = lhs.dim(static_cast<int>(dims->inputSpatial[i]));
            const int64_t k = rhs.dim(static_cast<int>(dims->kernelSpatial[i]));
            const int64_t dilated = in == 0 ? 0 : (in - 1) * at(lhsDil, i, 1) + 1;
            const int64_t padSize = dilated + at(padding, 2 * i, 0) + at(padding, 2 * i + 1, 0);
            const int64_t window = k == 0 ? 0 : (k - 1) * at(rhsDil, i, 1) + 1;
            const int64_t out = padSize < window ? 0 : (padSize - window) / at(strides, i, 1) + 1;
            const size_t o = static_cast<size_t>(dims->outputSpatial[i]);
            if (out < target.dim(static_cast<int>(o))) {
                m_diags.error(op->pos, "this convolution's output spatial dimension " + std::to_string(o) +
                                           " comes out smaller than its sharding needs; make it divisible or "
                                           "replicate it (-sdy-resolve-permutation-factors)");
                return false;
            }
            shape[o] = out;
        }
        retype(r, r->type().withShape(shape));
        std::vector<int64_t> limit = shape;
        bool needed = false;
        for (size_t i = 0; i < n; ++i) {
            const size_t o = static_cast<size_t>(dims->outputSpatial[i]);
            if (limit[o] > target.dim(static_cast<int>(o))) {
                limit[o] = target.dim(static_cast<int>(o));
                needed = true;
            }
        }
        if (needed)
            trimUses(*op, r, limit, ir::shardingOfValue(r), true);
        return true;
    }

    ir::Module& m_module;
    DiagnosticList& m_diags;
    partition::MeshLookup m_meshes;
    std::unordered_map<const ir::Value*, ir::Type> m_original;
    std::set<const ir::Value*> m_zero;
};

} // namespace

bool padForDivisibility(ir::Module& module, DiagnosticList& diags)
{
    Padder padder(module, diags);
    bool ok = true;
    for (ir::Op* func : module.funcs())
        ok = padder.runOnFunc(func) && ok;
    return ok;
}

} // namespace shardx
