// Interpreter: sdy.manual_computation in a global program (JAX's shard_map), SDY.md 2.4. The operands are
// global tensors; each device along the manual axes gets its block of them (in_shardings, manual axes only: the
// free axes stay global in the body), the body runs once per such device as a process of its own, with the
// collectives of the body between those processes (runProcesses, the same collectives as run_parallel's), and
// the blocks the devices return are put together into global results by out_shardings.
#include <algorithm>
#include <map>
#include <memory>

#include "core/exec/Interpreter.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/mesh/DeviceLayout.h"

namespace shardx::exec {

namespace {

std::string manPosText(const Interpreter& interp, const ir::Op& op)
{
    const SourcePos p = interp.posOf(op);
    return std::to_string(p.line) + ":" + std::to_string(p.col);
}

std::string manAxesText(const std::vector<std::string>& axes)
{
    std::string s;
    for (const std::string& a : axes)
        s += (s.empty() ? "\"" : ", \"") + a + "\"";
    return "{" + s + "}";
}

bool manIsManual(const std::vector<std::string>& manual, const std::string& axis)
{
    return std::find(manual.begin(), manual.end(), axis) != manual.end();
}

/// The manual axes sharding each dimension of `s` (in the sharding's order, sub-axes kept).
std::vector<std::vector<AxisRef>> manDimAxes(const TensorSharding& s, const std::vector<std::string>& manual)
{
    std::vector<std::vector<AxisRef>> out(s.dims.size());
    for (size_t d = 0; d < s.dims.size(); ++d)
        for (const AxisRef& a : s.dims[d].axes)
            if (manIsManual(manual, a.name))
                out[d].push_back(a);
    return out;
}

/// The block of `x` of shape `shape` starting at `offset`.
Tensor manBlock(const Tensor& x, const std::vector<int64_t>& offset, const std::vector<int64_t>& shape)
{
    Tensor out(x.elementType(), shape);
    std::vector<int64_t> idx(shape.size(), 0), src(shape.size(), 0);
    for (int64_t i = 0; i < out.numElements(); ++i, nextIndex(idx, shape)) {
        for (size_t d = 0; d < idx.size(); ++d)
            src[d] = idx[d] + offset[d];
        out.copyElement(i, x, x.linearIndex(src));
    }
    return out;
}

/// Calls f(blockIndex, globalIndex) for every element of a block of shape `shape` at `offset` in `global`.
template <typename F>
void manForEachInBlock(const Tensor& global, const std::vector<int64_t>& offset, const std::vector<int64_t>& shape,
                       F&& f)
{
    int64_t count = 1;
    for (int64_t n : shape)
        count *= n;
    std::vector<int64_t> idx(shape.size(), 0), dst(shape.size(), 0);
    for (int64_t i = 0; i < count; ++i, nextIndex(idx, shape)) {
        for (size_t d = 0; d < idx.size(); ++d)
            dst[d] = idx[d] + offset[d];
        f(i, global.linearIndex(dst));
    }
}

/// The local shape of a global `shape` whose dimensions are split by `dimAxes` (each divisible; else
/// `what` fails the op).
std::vector<int64_t> manLocalShape(const OpContext& ctx, const std::string& what, const std::vector<int64_t>& shape,
                                   const std::vector<std::vector<AxisRef>>& dimAxes, const Mesh& mesh)
{
    std::vector<int64_t> local = shape;
    for (size_t d = 0; d < shape.size() && d < dimAxes.size(); ++d) {
        int64_t k = 1;
        for (const AxisRef& a : dimAxes[d])
            k *= a.size(mesh);
        if (k <= 0 || shape[d] % k != 0)
            ctx.fail(what + ": dimension " + std::to_string(d) + " of size " + std::to_string(shape[d]) +
                     " does not divide among the " + std::to_string(k) +
                     " devices of its manual axes (a manual computation needs divisible dimensions, SDY.md 2.4; "
                     "pad the operand)");
        local[d] = shape[d] / k;
    }
    return local;
}

std::vector<Tensor> manComputationOp(OpContext& ctx)
{
    const ir::Op& op = ctx.op;
    Interpreter& interp = ctx.interp;
    if (op.numRegions() != 1 || op.region(0).empty())
        ctx.fail("has no body");
    const std::vector<std::string>* manualPtr = ir::manualAxes(op);
    const std::vector<std::string> manual = manualPtr ? *manualPtr : std::vector<std::string>{};
    const ShardingPerValue* ins = ir::inShardings(op);
    const ShardingPerValue* outs = ir::outShardings(op);
    const size_t numIns = ins ? ins->shardings.size() : 0, numOuts = outs ? outs->shardings.size() : 0;
    if (numIns != ctx.numIn())
        ctx.fail(std::to_string(numIns) + " in_shardings for " + std::to_string(ctx.numIn()) + " operands");
    if (numOuts != op.numResults())
        ctx.fail(std::to_string(numOuts) + " out_shardings for " + std::to_string(op.numResults()) + " results");

    // The mesh: that of the first in or out sharding bound to one with axes (SDY.md 2.4: they all share it).
    const Mesh* mesh = nullptr;
    for (const ShardingPerValue* list : {ins, outs})
        for (size_t i = 0; list && !mesh && i < list->shardings.size(); ++i)
            if (const Mesh* m = ir::meshOf(interp.module(), list->shardings[i]); m && !m->axes().empty())
                mesh = m;
    int64_t manualDevices = 1;
    for (const std::string& a : manual) {
        if (!mesh)
            ctx.fail("manual axes " + manAxesText(manual) + " but no in or out sharding names a mesh with axes");
        const std::optional<int64_t> size = mesh->axisSize(a);
        if (!size)
            ctx.fail("unknown manual axis \"" + a + "\" (the mesh is " + mesh->toString() + ")");
        manualDevices *= *size;
    }
    const std::vector<Tensor> operands = [&] {
        std::vector<Tensor> v;
        for (unsigned i = 0; i < ctx.numIn(); ++i)
            v.push_back(ctx.in(i));
        return v;
    }();
    // One device along the manual axes: the body is the global program itself (SDY.md 2.4, canonicalization),
    // run in place, so that collectives in it reach the processes around it.
    if (manualDevices == 1)
        return interp.runRegion(op.region(0), operands, nullptr, ctx.proc);

    const ManualScope* parent = ctx.proc.manual;
    if (ctx.proc.rendezvous && !parent)
        ctx.fail("in a per-device program of interpreter.run_parallel: the body of a manual computation is per-device "
                 "code already (the partitioner inlines it); run the global program instead");
    if (parent && !(parent->mesh == *mesh))
        ctx.fail("nested in the manual computation at " + manPosText(interp, *parent->op) + " on the mesh " +
                 parent->mesh.toString() + ", but on the mesh " + mesh->toString() +
                 ": nested manual computations must share their mesh");
    for (const ManualScope* s = parent; s; s = s->parent)
        for (const std::string& a : manual)
            if (manIsManual(s->manualAxes, a))
                ctx.fail("manual axis \"" + a + "\" is manual in the enclosing manual computation at " +
                         manPosText(interp, *s->op) + " already");

    // The devices: those that agree with the one running this op on every axis but the manual ones (at the top
    // of a global program, the device at position 0: the free axes' coordinate 0 stands for all of them). The
    // device ids must be the partition ids 0..N-1 of one replica.
    const DeviceLayout layout(*mesh);
    const int64_t numDevices = layout.numDevices();
    {
        std::vector<int64_t> sorted = layout.deviceIds();
        std::sort(sorted.begin(), sorted.end());
        for (int64_t i = 0; i < numDevices; ++i)
            if (sorted[static_cast<size_t>(i)] != i)
                ctx.fail("the device ids of the mesh " + mesh->toString() + " are not 0.." +
                         std::to_string(numDevices - 1));
    }
    const int64_t here = parent ? ctx.proc.partition : layout.deviceAt(0);
    const std::optional<std::vector<int64_t>> hereCoords = layout.coordsOfDevice(here);
    if (!hereCoords)
        ctx.fail("device " + std::to_string(here) + " is not in the mesh " + mesh->toString());
    auto scope = std::make_unique<ManualScope>();
    scope->op = &op;
    scope->parent = parent;
    scope->mesh = *mesh;
    scope->manualAxes = parent ? parent->manualAxes : std::vector<std::string>{};
    scope->manualAxes.insert(scope->manualAxes.end(), manual.begin(), manual.end());
    scope->runs.assign(static_cast<size_t>(numDevices), 0);
    std::vector<int64_t> positions; // of the instances, in mesh order
    for (int64_t pos = 0; pos < numDevices; ++pos) {
        const std::vector<int64_t> coords = layout.coordsOf(pos);
        bool same = true;
        for (size_t a = 0; a < coords.size() && same; ++a)
            same = manIsManual(manual, mesh->axes()[a].name) || coords[a] == (*hereCoords)[a];
        if (same) {
            positions.push_back(pos);
            scope->runs[static_cast<size_t>(layout.deviceAt(pos))] = 1;
        }
    }
    if (static_cast<int64_t>(positions.size()) != manualDevices)
        ctx.fail("found " + std::to_string(positions.size()) + " devices along the manual axes, expected " +
                 std::to_string(manualDevices));

    // Each device's block of every operand.
    const ir::Block& body = op.region(0).front();
    if (body.numArgs() != ctx.numIn())
        ctx.fail("the body takes " + std::to_string(body.numArgs()) + " arguments for " + std::to_string(ctx.numIn()) +
                 " operands");
    std::vector<std::vector<Tensor>> args(positions.size());
    for (unsigned i = 0; i < ctx.numIn(); ++i) {
        const Tensor& x = operands[i];
        const ir::Type& argType = body.arg(i)->type();
        const TensorSharding& s = ins->shardings[i];
        const std::string what = "operand " + std::to_string(i);
        if (!argType.isRankedTensor()) { // a token: passed on as it is
            for (auto& a : args)
                a.push_back(x);
            continue;
        }
        for (const AxisRef& a : s.unreduced)
            if (manIsManual(manual, a.name))
                ctx.fail(what + ": in_shardings make it unreduced along manual axis \"" + a.name +
                         "\", which a global value does not say how to split into partial values");
        if (s.dims.size() != static_cast<size_t>(x.rank()))
            ctx.fail(what + ": its in_sharding has " + std::to_string(s.dims.size()) + " dimensions, the operand " +
                     x.typeString() + " " + std::to_string(x.rank()));
        const auto dimAxes = manDimAxes(s, manual);
        const std::vector<int64_t> local = manLocalShape(ctx, what, x.shape(), dimAxes, *mesh);
        if (local != argType.shape())
            ctx.fail(what + ": its block is " + Tensor(x.elementType(), local).typeString() +
                     " on each device, the "
                     "body takes " +
                     argType.toString());
        for (size_t k = 0; k < positions.size(); ++k) {
            std::vector<int64_t> offset(local.size(), 0);
            for (size_t d = 0; d < local.size(); ++d)
                offset[d] = layout.indexAlong(positions[k], dimAxes[d]) * local[d];
            args[k].push_back(manBlock(x, offset, local));
        }
    }

    // The body, once per device.
    std::vector<ProcessInfo> procs;
    for (int64_t pos : positions)
        procs.push_back(ProcessInfo{0, layout.deviceAt(pos), 1, numDevices, nullptr, scope.get()});
    const std::string where = "the sdy.manual_computation at " + manPosText(interp, op);
    std::vector<std::vector<Tensor>> blocks;
    try {
        blocks = interp.runProcesses(
            std::move(procs),
            [&](size_t k, const ProcessInfo& proc) {
                std::vector<Tensor> r = interp.runRegion(op.region(0), std::move(args[k]), nullptr, proc);
                // The results leave this device's thread: host tensors (a back end fetches on its own thread).
                for (Tensor& t : r)
                    t.dropStorage();
                return r;
            },
            [&](const ProcessInfo& proc) { return "on device " + std::to_string(proc.partition) + " of " + where; });
    } catch (ExecError& e) {
        if (!e.pos.isKnown())
            e.pos = interp.posOf(op);
        throw;
    }

    // The global results: a dimension sharded on manual axes concatenates the devices' blocks; devices that
    // differ along a manual axis the result is replicated on must return the same data (the first in mesh
    // order is taken), those that differ along an unreduced one are combined.
    std::vector<Tensor> results;
    for (unsigned i = 0; i < op.numResults(); ++i) {
        Tensor out = ctx.result(i);
        const std::string what = "result " + std::to_string(i);
        for (size_t k = 0; k < blocks.size(); ++k)
            if (blocks[k].size() != op.numResults())
                ctx.fail("the body returns " + std::to_string(blocks[k].size()) + " values, the op has " +
                         std::to_string(op.numResults()) + " results");
        if (!op.result(i)->type().isRankedTensor()) {
            results.push_back(blocks.front()[i]);
            continue;
        }
        const TensorSharding& s = outs->shardings[i];
        if (s.dims.size() != static_cast<size_t>(out.rank()))
            ctx.fail(what + ": its out_sharding has " + std::to_string(s.dims.size()) + " dimensions, the result " +
                     out.typeString() + " " + std::to_string(out.rank()));
        const auto dimAxes = manDimAxes(s, manual);
        const std::vector<int64_t> local = manLocalShape(ctx, what, out.shape(), dimAxes, *mesh);
        std::vector<AxisRef> unreduced;
        for (const AxisRef& a : s.unreduced)
            if (manIsManual(manual, a.name))
                unreduced.push_back(a);
        std::optional<BinaryKind> combine;
        if (!unreduced.empty()) {
            if (!out.elementType().isFloat() && !out.elementType().isInteger())
                ctx.fail(what + ": unreduced along manual axes, but of element type " + out.elementType().name);
            combine = s.unreducedKind == ReductionKind::Max   ? BinaryKind::Maximum
                      : s.unreducedKind == ReductionKind::Min ? BinaryKind::Minimum
                                                              : BinaryKind::Add;
        }
        // A device's data: its block (per dimension) and its partial (along the unreduced axes); the devices of
        // one data key hold the same data.
        std::map<std::vector<int64_t>, size_t> holder; // data key -> first device (instance) in mesh order
        std::map<std::vector<int64_t>, bool> blockWritten;
        for (size_t k = 0; k < blocks.size(); ++k) {
            const Tensor& b = blocks[k][i];
            if (!(b.elementType() == out.elementType()) || b.shape() != local)
                ctx.fail(what + ": device " + std::to_string(layout.deviceAt(positions[k])) + " returns " +
                         b.typeString() + ", out_shardings give " + Tensor(out.elementType(), local).typeString());
            std::vector<int64_t> key, blockKey;
            for (const auto& axes : dimAxes)
                blockKey.push_back(layout.indexAlong(positions[k], axes));
            key = blockKey;
            for (const AxisRef& a : unreduced)
                key.push_back(layout.axisCoord(positions[k], a));
            auto [it, fresh] = holder.emplace(key, k);
            if (!fresh) {
                const Tensor& first = blocks[it->second][i];
                if (first.bytes() != b.bytes()) {
                    // The manual axes (or the parts of them: sub-axes) the result does not use.
                    std::vector<std::string> replicatedOn;
                    for (const std::string& a : manual) {
                        int64_t used = 1;
                        for (const auto& axes : dimAxes)
                            for (const AxisRef& r : axes)
                                used *= r.name == a ? r.size(*mesh) : 1;
                        for (const AxisRef& r : unreduced)
                            used *= r.name == a ? r.size(*mesh) : 1;
                        if (used < mesh->axisSize(a).value_or(1))
                            replicatedOn.push_back(a);
                    }
                    ctx.fail(what + ": devices " + std::to_string(layout.deviceAt(positions[it->second])) + " and " +
                             std::to_string(layout.deviceAt(positions[k])) +
                             " return different values for the same part of it, but out_shardings replicate it "
                             "along (parts of) manual axes " +
                             manAxesText(replicatedOn) +
                             ": its global value is not defined (reduce it over those axes in the body, e.g. with an "
                             "all_reduce, or shard the result along them)");
                }
                continue;
            }
            std::vector<int64_t> offset(local.size(), 0);
            for (size_t d = 0; d < local.size(); ++d)
                offset[d] = blockKey[d] * local[d];
            bool& written = blockWritten[blockKey];
            if (combine && written)
                manForEachInBlock(out, offset, local,
                                  [&](int64_t bi, int64_t gi) { applyBinary(*combine, out, gi, b, bi, out, gi); });
            else
                manForEachInBlock(out, offset, local, [&](int64_t bi, int64_t gi) { out.copyElement(gi, b, bi); });
            written = true;
        }
        results.push_back(std::move(out));
    }
    return results;
}

} // namespace

void registerManualOps(HandlerMap& map) { map["sdy.manual_computation"] = manComputationOp; }

} // namespace shardx::exec
