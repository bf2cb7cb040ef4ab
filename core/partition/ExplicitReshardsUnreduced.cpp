// ExplicitReshards (ExplicitReshards.h): op building, unreduced collectives, reshard-to-target, single-device ops.
#include "core/partition/ExplicitReshardsInternal.h"

#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/propagation/ShardingWrites.h"
#include "core/propagation/ValueSharding.h"

namespace shardx::reshards {

using ir::Op;
using ir::Value;

namespace {

std::unique_ptr<Op> unaryOp(const std::string& name, Value* in)
{
    auto op = std::make_unique<Op>(name);
    op->addOperand(in);
    op->addResult(in->type());
    if (Op* def = in->definingOp())
        op->pos = def->pos;
    return op;
}

bool axisCoveredBy(const AxisRef& a, const std::vector<AxisRef>& list, const Mesh& mesh)
{
    for (const AxisRef& b : list)
        if (contains(b, a, mesh))
            return true;
    return false;
}

} // namespace

std::unique_ptr<Op> makeReshard(Value* in, const TensorSharding& s)
{
    auto op = unaryOp("sdy.reshard", in);
    ir::setOpSharding(*op, s);
    return op;
}

std::unique_ptr<Op> makeAllReduce(Value* in, const std::vector<AxisRef>& axes, const TensorSharding& out,
                                  ReductionKind kind)
{
    auto op = unaryOp("sdy.all_reduce", in);
    ir::setCollectiveAxisList(*op, axes);
    ir::setOutSharding(*op, out);
    if (kind != ReductionKind::Sum)
        ir::setReductionKind(*op, kind);
    return op;
}

Value* insertBefore(Op* before, std::unique_ptr<Op> op)
{
    if (op->pos.line == 0)
        op->pos = before->pos;
    Op* raw = before->parentBlock()->insertBefore(before, std::move(op));
    notifyOpsInserted(*raw);
    return raw->result(0);
}

Value* insertAfter(Op* after, std::unique_ptr<Op> op)
{
    if (op->pos.line == 0)
        op->pos = after->pos;
    Op* raw = after->parentBlock()->insertAfter(after, std::move(op));
    notifyOpsInserted(*raw);
    return raw->result(0);
}

Value* insertAfterDef(Value* v, std::unique_ptr<Op> op)
{
    Op* raw = ir::insertAtDefinition(*v, std::move(op));
    notifyOpsInserted(*raw);
    return raw->result(0);
}

Value* InsertPoint::insert(std::unique_ptr<Op> op)
{
    Value* r = nullptr;
    if (lastInserted)
        r = insertAfter(lastInserted, std::move(op));
    else if (before)
        r = insertBefore(before, std::move(op));
    else
        r = insertAfterDef(afterDefOf, std::move(op));
    lastInserted = r->definingOp();
    return r;
}

bool equivalentShardings(const Context& ctx, const std::optional<TensorSharding>& a,
                         const std::optional<TensorSharding>& b)
{
    if (!a && !b)
        return true;
    if (!a || !b) {
        const TensorSharding& s = a ? *a : *b;
        return !s.hasDimAxes() && s.unreduced.empty();
    }
    if (a->dims.size() != b->dims.size() || a->unreduced != b->unreduced)
        return false;
    for (size_t i = 0; i < a->dims.size(); ++i)
        if (a->dims[i].axes != b->dims[i].axes)
            return false;
    if (a->mesh == b->mesh)
        return true;
    const Mesh* ma = ir::meshOf(ctx.module, *a);
    const Mesh* mb = ir::meshOf(ctx.module, *b);
    if (!a->hasDimAxes() && a->unreduced.empty() && ma && mb && ma->equalsIgnoringDeviceIds(*mb))
        return true;
    return ma && mb && *ma == *mb;
}

TensorSharding closedVersion(TensorSharding s)
{
    for (DimSharding& d : s.dims) {
        d.closed = true;
        d.priority.reset();
    }
    return s;
}

Value* allReducePending(Context& ctx, Value* value, const std::vector<AxisRef>& keepUnreduced, InsertPoint& ip)
{
    // Called for every operand of every op: read in place (most values have no unreduced axes).
    std::optional<TensorSharding> storage;
    const TensorSharding* s = getShardingRef(value, storage);
    if (!s || s->unreduced.empty())
        return value;
    const Mesh* mesh = ir::meshOf(ctx.module, *s);
    if (!mesh)
        return value;
    std::vector<AxisRef> axes = axisListDifference(s->unreduced, keepUnreduced, *mesh);
    if (axes.empty())
        return value;
    TensorSharding out = *s;
    out.unreduced = axisListDifference(s->unreduced, axes, *mesh);
    for (DimSharding& d : out.dims)
        d.priority.reset();
    const ReductionKind kind = s->unreducedKind;
    return ip.insert(makeAllReduce(value, axes, out, kind));
}

Value* insertUnreducedCollectives(Context& ctx, Value* value, const TensorSharding& in, const TensorSharding& out,
                                  InsertPoint& ip, Op* errorOp)
{
    const Mesh* mesh = ir::meshOf(ctx.module, out);
    if (!mesh)
        return value;
    const std::vector<AxisRef> added = axisListDifference(out.unreduced, in.unreduced, *mesh);
    if (added.empty())
        return value;
    if (!axisListDifference(in.unreduced, out.unreduced, *mesh).empty()) {
        ctx.diags.error(errorOp ? errorOp->pos : SourcePos{}, "source and target shardings both have unreduced "
                                                              "axes the other lacks");
        ctx.failed = true;
        return value;
    }
    const size_t rank = std::min(in.dims.size(), out.dims.size());
    std::vector<std::vector<AxisRef>> s2u(out.dims.size());
    std::vector<bool> converted(out.dims.size(), false);
    bool needReshard = false;
    bool anyS2u = false;
    for (size_t d = 0; d < rank; ++d) {
        const std::vector<AxisRef>& ia = in.dims[d].axes;
        const std::vector<AxisRef>& oa = out.dims[d].axes;
        if (ia == oa)
            continue;
        if (!isStrictPrefix(oa, ia, *mesh)) {
            needReshard = true;
            continue;
        }
        std::vector<AxisRef> dropped;
        size_t k = oa.size();
        if (k > 0 && oa.back() != ia[k - 1]) {
            if (auto rest = suffixWithoutOverlap(ia[k - 1], oa.back(), *mesh))
                dropped.push_back(*rest);
        }
        for (size_t j = k; j < ia.size(); ++j)
            dropped.push_back(ia[j]);
        bool inside = !dropped.empty();
        for (const AxisRef& a : dropped)
            inside = inside && axisCoveredBy(a, added, *mesh);
        if (!inside) {
            needReshard = true;
            continue;
        }
        s2u[d] = dropped;
        converted[d] = true;
        anyS2u = true;
    }
    TensorSharding current = in;
    Value* v = value;
    if (needReshard || in.dims.size() != out.dims.size()) {
        current.dims = out.dims;
        for (size_t d = 0; d < rank; ++d)
            if (converted[d])
                current.dims[d] = in.dims[d];
        current.mesh = out.mesh;
        v = ip.insert(makeReshard(v, current));
    }
    std::vector<AxisRef> allS2u;
    for (const auto& l : s2u)
        allS2u.insert(allS2u.end(), l.begin(), l.end());
    std::vector<AxisRef> r2u = axisListDifference(added, allS2u, *mesh);
    if (!r2u.empty()) {
        TensorSharding mid = current;
        mid.mesh = out.mesh;
        mid.replicated = out.replicated;
        std::vector<AxisRef> u = in.unreduced;
        u.insert(u.end(), r2u.begin(), r2u.end());
        mid.unreduced = sortAndMerge(u, *mesh);
        mid.unreducedKind = out.unreducedKind;
        auto op = unaryOp("sdy.replicated_to_unreduced", v);
        ir::setCollectiveAxisList(*op, r2u);
        ir::setOutSharding(*op, mid);
        v = ip.insert(std::move(op));
    }
    if (anyS2u) {
        auto op = unaryOp("sdy.sharded_to_unreduced", v);
        ir::setPerDimCollectiveAxes(*op, s2u);
        ir::setOutSharding(*op, out);
        v = ip.insert(std::move(op));
    }
    return v;
}

void reshardToTarget(Context& ctx, Op* user, unsigned index, const std::optional<TensorSharding>& target, bool full,
                     InsertPoint ip)
{
    Value* original = user->operand(index);
    Value* v = original;
    std::vector<AxisRef> keep = target ? target->unreduced : std::vector<AxisRef>{};
    v = allReducePending(ctx, v, keep, ip);
    if (ctx.failed)
        return;
    std::optional<TensorSharding> src = getSharding(v);
    if (target && src && !target->unreduced.empty()) {
        v = insertUnreducedCollectives(ctx, v, *src, *target, ip, user);
        if (ctx.failed)
            return;
        src = getSharding(v);
    }
    if (full && (src || target)) {
        std::optional<TensorSharding> goal = target;
        if (!goal)
            goal = TensorSharding::closedReplicated(src->mesh, src->rank());
        if (!equivalentShardings(ctx, src, goal))
            v = ip.insert(makeReshard(v, *goal));
    }
    if (v != original)
        user->setOperand(index, v);
}

void handleSingleDeviceOp(Context& ctx, Op* op, const std::vector<std::optional<TensorSharding>>& results)
{
    std::optional<TensorSharding> maximal;
    for (const auto& r : results) {
        if (!r)
            continue;
        const Mesh* m = ir::meshOf(ctx.module, *r);
        if (!m || !m->isMaximal())
            continue;
        if (maximal && !(ir::meshOf(ctx.module, *maximal)->deviceIds() == m->deviceIds())) {
            ctx.diags.error(op->pos, "'" + op->name() + "' op has conflicting single-device result shardings");
            ctx.failed = true;
            return;
        }
        if (!maximal)
            maximal = r;
    }
    if (!maximal)
        return;
    std::optional<MeshRef> global;
    for (Op* m : ctx.module.meshes()) {
        const Mesh* mesh = ir::meshOpMesh(*m);
        if (mesh && !mesh->axes().empty()) {
            MeshRef ref;
            ref.symbol = ir::symbolName(*m);
            global = ref;
            break;
        }
    }
    if (!global)
        return;
    const Mesh* globalMesh = ctx.module.resolveMesh(*global);
    TensorSharding maximalSharding;
    maximalSharding.mesh = maximal->mesh;
    for (unsigned i = 0; i < op->numOperands(); ++i) {
        Value* v = op->operand(i);
        if (!v->type().isTensor())
            continue;
        std::optional<TensorSharding> s = getSharding(v);
        if (s && s->mesh == maximal->mesh)
            continue;
        InsertPoint ip;
        ip.before = op;
        const TensorSharding replicated = TensorSharding::closedReplicated(*global, valueRank(v));
        bool alreadyReplicated = false;
        if (s) {
            const Mesh* m = ir::meshOf(ctx.module, *s);
            alreadyReplicated = m && globalMesh && *m == *globalMesh && !s->hasDimAxes() && s->unreduced.empty();
        }
        Value* cur = v;
        if (!alreadyReplicated)
            cur = ip.insert(makeReshard(cur, replicated));
        cur = ip.insert(makeReshard(cur, maximalSharding));
        op->setOperand(i, cur);
    }
    Op* last = op;
    for (unsigned i = 0; i < op->numResults(); ++i) {
        Value* res = op->result(i);
        if (res->type().isToken()) {
            TensorSharding t;
            t.mesh = *global;
            setSharding(res, t);
            continue;
        }
        if (!res->type().isTensor())
            continue;
        const TensorSharding replicated = TensorSharding::closedReplicated(*global, valueRank(res));
        Value* cur = insertAfter(last, makeReshard(res, replicated));
        last = cur->definingOp();
        Op* firstReshard = last;
        const std::optional<TensorSharding>& orig = i < results.size() ? results[i] : std::nullopt;
        if (orig) {
            const Mesh* m = ir::meshOf(ctx.module, *orig);
            if (m && !m->isMaximal() && !(*orig == replicated)) {
                cur = insertAfter(last, makeReshard(cur, *orig));
                last = cur->definingOp();
            }
        }
        replaceUses(res, cur, firstReshard);
        setSharding(res, maximalSharding);
    }
}

} // namespace shardx::reshards
