// Interpreter: partition_id / replica_id, the StableHLO collectives between the processes of a grid, and
// interpreter.run_parallel (one thread per process). Group formation follows the conformance README:
// replica_groups, channel_handle and use_global_device_ids decide who meets whom.
#include <algorithm>
#include <cctype>
#include <thread>

#include "core/exec/Interpreter.h"
#include "core/exec/Rendezvous.h"
#include "core/ir/StablehloAttrs.h"
#include "core/partition/LocalOps.h"

namespace shardx::exec {

namespace {

int64_t colProcessId(const ProcessInfo& p, int64_t replica, int64_t partition)
{
    return replica * p.numPartitions + partition;
}

int64_t colChannelId(const OpContext& ctx)
{
    const ir::Attribute* a = ctx.op.attr("channel_handle");
    if (!a)
        return 0;
    const auto* o = a->as<ir::OpaqueAttr>();
    if (!o)
        ctx.fail("malformed channel_handle");
    const size_t at = o->body.find("handle");
    const size_t eq = at == std::string::npos ? at : o->body.find('=', at);
    if (eq == std::string::npos)
        ctx.fail("malformed channel_handle");
    try {
        return std::stoll(o->body.substr(eq + 1));
    } catch (...) {
        ctx.fail("malformed channel_handle");
    }
}

/// The device id groups of `#stablehlo.replica_group_mesh_axes<mesh = @m, axes = [#stablehlo.axis_ref<name =
/// "x">, ...]>` (the groups of those axes of mesh @m, PARTITION.md 2.4).
std::vector<std::vector<int64_t>> colMeshAxesRows(const OpContext& ctx, const char* name, const ir::OpaqueAttr& o)
{
    std::string error;
    const std::optional<stablehlo::ReplicaGroupMeshAxes> parsed = stablehlo::parseReplicaGroupMeshAxes(o, &error);
    if (!parsed)
        ctx.fail(std::string("attribute '") + name + "': " + error);
    const std::string& meshName = parsed->mesh;
    const Mesh* mesh = ctx.interp.module().findMesh(meshName);
    if (!mesh && ctx.interp.hooks().meshSource)
        mesh = ctx.interp.hooks().meshSource->findMesh(meshName);
    if (!mesh)
        ctx.fail(std::string("attribute '") + name + "' names the mesh @" + meshName +
                 ", which is no sdy.mesh of the module");
    for (const AxisRef& axis : parsed->axes)
        if (!mesh->hasAxis(axis.name))
            ctx.fail(std::string("attribute '") + name + "': the mesh @" + meshName + " has no axis \"" + axis.name +
                     "\"");
    return partition::replicaGroups(*mesh, parsed->axes);
}

/// `replica_groups` (or `source_target_pairs`) as rows of ids; -1 entries (padding of uneven groups)
/// dropped. Empty when absent or empty. `replica_groups` may also name mesh axes (colMeshAxesRows).
std::vector<std::vector<int64_t>> colIdRows(const OpContext& ctx, const char* name)
{
    std::vector<std::vector<int64_t>> rows;
    const ir::Attribute* a = ctx.op.attr(name);
    if (!a)
        return rows;
    if (const auto* o = a->as<ir::OpaqueAttr>(); o && o->mnemonic == "replica_group_mesh_axes")
        return colMeshAxesRows(ctx, name, *o);
    const auto* dense = a->as<ir::DenseElementsAttr>();
    if (!dense || dense->type.rank() != 2)
        ctx.fail(std::string("attribute '") + name + "' must be a 2-d dense tensor");
    auto flat = stablehlo::intList(a);
    if (!flat)
        ctx.fail(std::string("attribute '") + name + "' is not a list of integers");
    const int64_t cols = dense->type.dim(1);
    for (int64_t r = 0; r < dense->type.dim(0); ++r) {
        std::vector<int64_t> row;
        for (int64_t c = 0; c < cols; ++c) {
            const int64_t v = (*flat)[static_cast<size_t>(r * cols + c)];
            if (v >= 0)
                row.push_back(v);
        }
        if (!row.empty())
            rows.push_back(std::move(row));
    }
    return rows;
}

enum class ColMode { CrossReplica, CrossPartition, CrossReplicaAndPartition, FlattenedIds };

/// Every process group of the grid (process ids, in the listed order) for `mode` and `rows`.
std::vector<std::vector<int64_t>> colGroups(const OpContext& ctx, ColMode mode, std::vector<std::vector<int64_t>> rows)
{
    const ProcessInfo& p = ctx.proc;
    auto range = [](int64_t n) {
        std::vector<int64_t> v(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i)
            v[static_cast<size_t>(i)] = i;
        return v;
    };
    if (rows.empty())
        rows.push_back(range(mode == ColMode::CrossPartition ? p.numPartitions
                             : mode == ColMode::FlattenedIds ? p.numReplicas * p.numPartitions
                                                             : p.numReplicas));
    std::vector<std::vector<int64_t>> groups;
    auto check = [&](int64_t id, int64_t bound, const char* what) {
        if (id >= bound)
            ctx.fail(std::string(what) + " " + std::to_string(id) + " is outside the grid (" + std::to_string(bound) +
                     ")");
    };
    for (const auto& row : rows) {
        switch (mode) {
        case ColMode::CrossReplica:
            for (int64_t part = 0; part < p.numPartitions; ++part) {
                std::vector<int64_t> g;
                for (int64_t r : row) {
                    check(r, p.numReplicas, "replica id");
                    g.push_back(colProcessId(p, r, part));
                }
                groups.push_back(std::move(g));
            }
            break;
        case ColMode::CrossPartition:
            for (int64_t rep = 0; rep < p.numReplicas; ++rep) {
                std::vector<int64_t> g;
                for (int64_t q : row) {
                    check(q, p.numPartitions, "partition id");
                    g.push_back(colProcessId(p, rep, q));
                }
                groups.push_back(std::move(g));
            }
            break;
        case ColMode::CrossReplicaAndPartition: {
            std::vector<int64_t> g;
            for (int64_t r : row) {
                check(r, p.numReplicas, "replica id");
                for (int64_t part = 0; part < p.numPartitions; ++part)
                    g.push_back(colProcessId(p, r, part));
            }
            groups.push_back(std::move(g));
            break;
        }
        case ColMode::FlattenedIds:
            for (int64_t id : row)
                check(id, p.numReplicas * p.numPartitions, "device id");
            groups.push_back(row);
            break;
        }
    }
    return groups;
}

/// This process's group of a collective (ordered as listed), its position in it, and the key peers meet at.
struct ColGroup {
    std::vector<int64_t> members;
    size_t position = 0;
    std::string key;
};

std::string colIdsText(const std::vector<int64_t>& ids)
{
    std::string s = "[";
    for (size_t i = 0; i < ids.size(); ++i)
        s += (i ? ", " : "") + std::to_string(ids[i]);
    return s + "]";
}

/// In the body of a manual computation every member of a group must run an instance of it: the devices that
/// differ from this one along free (non-manual) axes hold the same global data and run no instance of their own.
void colCheckManualGroup(const OpContext& ctx, const std::vector<int64_t>& members)
{
    const ManualScope* scope = ctx.proc.manual;
    if (!scope)
        return;
    for (int64_t m : members) {
        if (scope->runsOn(m))
            continue;
        std::string axes;
        for (const std::string& a : scope->manualAxes)
            axes += (axes.empty() ? "\"" : ", \"") + a + "\"";
        const SourcePos pos = ctx.interp.posOf(*scope->op);
        ctx.fail(std::string(members.size() == 2 && ctx.op.name() == "stablehlo.collective_permute" ? "the pair "
                                                                                                    : "the group ") +
                 colIdsText(members) + " of device " + std::to_string(ctx.proc.partition) + " reaches device " +
                 std::to_string(m) +
                 ", which differs from it along an axis that is not manual in the body of the "
                 "sdy.manual_computation at " +
                 std::to_string(pos.line) + ":" + std::to_string(pos.col) + " (manual axes: " + axes +
                 "): a collective in a manual computation may only group devices along its manual axes");
    }
}

ColGroup colMyGroup(const OpContext& ctx, ColMode mode, std::vector<std::vector<int64_t>> rows)
{
    const int64_t me = colProcessId(ctx.proc, ctx.proc.replica, ctx.proc.partition);
    for (auto& g : colGroups(ctx, mode, std::move(rows))) {
        auto it = std::find(g.begin(), g.end(), me);
        if (it == g.end())
            continue;
        colCheckManualGroup(ctx, g);
        ColGroup out;
        out.position = static_cast<size_t>(it - g.begin());
        out.members = std::move(g);
        out.key = ctx.op.name() + "/" + std::to_string(colChannelId(ctx)) + "/";
        for (int64_t m : out.members)
            out.key += std::to_string(m) + ",";
        return out;
    }
    ctx.fail("process (replica " + std::to_string(ctx.proc.replica) + ", partition " +
             std::to_string(ctx.proc.partition) + ") is in none of the collective's groups");
}

/// all_gather, all_reduce and reduce_scatter read their ids by channel and use_global_device_ids.
ColMode colReduceGatherMode(const OpContext& ctx)
{
    const bool global = ctx.op.attr("use_global_device_ids") != nullptr &&
                        stablehlo::boolValue(ctx.op.attr("use_global_device_ids")).value_or(true);
    if (global)
        return ColMode::FlattenedIds;
    return colChannelId(ctx) > 0 ? ColMode::CrossReplicaAndPartition : ColMode::CrossReplica;
}

/// all_to_all and collective_permute: replicas within a partition on channel 0, else partitions within a replica.
ColMode colPermuteMode(const OpContext& ctx)
{
    return colChannelId(ctx) > 0 ? ColMode::CrossPartition : ColMode::CrossReplica;
}

std::shared_ptr<const Contributions> colExchange(const OpContext& ctx, const ColGroup& group)
{
    std::vector<Tensor> data;
    for (unsigned i = 0; i < ctx.numIn(); ++i)
        data.push_back(ctx.in(i));
    if (!ctx.proc.rendezvous) {
        if (group.members.size() != 1)
            ctx.fail("a collective of several processes outside interpreter.run_parallel");
        auto single = std::make_shared<Contributions>();
        single->emplace(group.members[0], std::move(data));
        return single;
    }
    try {
        return ctx.proc.rendezvous->exchange(group.key, group.members[group.position], group.members.size(),
                                             std::move(data));
    } catch (const ExecError& e) {
        throw ExecError{"'" + ctx.op.name() + "': " + e.message, ctx.interp.posOf(ctx.op), e.secondary};
    }
}

/// Concatenates `parts` (same rank) along `dim` into a tensor shaped like `out`.
void colConcat(const std::vector<const Tensor*>& parts, int64_t dim, Tensor& out)
{
    const auto os = rowMajorStrides(out.shape());
    int64_t offset = 0;
    for (const Tensor* x : parts) {
        std::vector<int64_t> idx(x->rank(), 0);
        for (int64_t i = 0; i < x->numElements(); ++i, nextIndex(idx, x->shape())) {
            int64_t dst = 0;
            for (size_t d = 0; d < idx.size(); ++d)
                dst += (idx[d] + (static_cast<int64_t>(d) == dim ? offset : 0)) * os[d];
            out.copyElement(dst, *x, i);
        }
        offset += x->dim(static_cast<int>(dim));
    }
}

/// Block `k` of `count` equal blocks of `x` along `dim`.
Tensor colBlock(const OpContext& ctx, const Tensor& x, int64_t dim, int64_t count, int64_t k)
{
    if (dim < 0 || dim >= x.rank() || count <= 0 || x.dim(static_cast<int>(dim)) % count != 0)
        ctx.fail("dimension " + std::to_string(dim) + " of " + x.typeString() + " does not split into " +
                 std::to_string(count) + " blocks");
    std::vector<int64_t> shape = x.shape();
    const int64_t len = shape[static_cast<size_t>(dim)] / count;
    shape[static_cast<size_t>(dim)] = len;
    Tensor out(x.elementType(), shape);
    const auto xs = rowMajorStrides(x.shape());
    std::vector<int64_t> idx(shape.size(), 0);
    for (int64_t i = 0; i < out.numElements(); ++i, nextIndex(idx, shape)) {
        int64_t src = 0;
        for (size_t d = 0; d < idx.size(); ++d)
            src += (idx[d] + (static_cast<int64_t>(d) == dim ? k * len : 0)) * xs[d];
        out.copyElement(i, x, src);
    }
    return out;
}

std::vector<Tensor> colPartitionIdOp(OpContext& ctx)
{
    Tensor out = ctx.result(0);
    out.setInt(0, ctx.proc.partition);
    return {std::move(out)};
}

std::vector<Tensor> colReplicaIdOp(OpContext& ctx)
{
    Tensor out = ctx.result(0);
    out.setInt(0, ctx.proc.replica);
    return {std::move(out)};
}

std::vector<Tensor> colAllGatherOp(OpContext& ctx)
{
    const ColGroup group = colMyGroup(ctx, colReduceGatherMode(ctx), colIdRows(ctx, "replica_groups"));
    const int64_t dim = ctx.integer("all_gather_dim");
    auto all = colExchange(ctx, group);
    std::vector<Tensor> results;
    for (unsigned k = 0; k < ctx.numIn(); ++k) {
        Tensor out = ctx.result(k);
        std::vector<const Tensor*> parts;
        for (int64_t m : group.members)
            parts.push_back(&all->at(m)[k]);
        int64_t total = 0;
        for (const Tensor* t : parts)
            total += t->dim(static_cast<int>(dim));
        if (total != out.dim(static_cast<int>(dim)))
            ctx.fail("gathered size " + std::to_string(total) + " does not match the result " + out.typeString());
        colConcat(parts, dim, out);
        results.push_back(std::move(out));
    }
    return results;
}

/// The element-wise fold of operand `k` of every member, from the lowest process id up.
Tensor colReduce(const OpContext& ctx, const Contributions& all, unsigned k)
{
    auto it = all.begin(); // a std::map: increasing process id
    Tensor acc = it->second[k];
    Combiner combine(ctx, 0);
    std::vector<Tensor*> accs{&acc};
    for (++it; it != all.end(); ++it) {
        std::vector<const Tensor*> xs{&it->second[k]};
        if (xs[0]->numElements() != acc.numElements())
            ctx.fail("members bring operands of different shapes");
        for (int64_t i = 0; i < acc.numElements(); ++i)
            combine.combine(accs, i, xs, i);
    }
    return acc;
}

std::vector<Tensor> colAllReduceOp(OpContext& ctx)
{
    const ColGroup group = colMyGroup(ctx, colReduceGatherMode(ctx), colIdRows(ctx, "replica_groups"));
    auto all = colExchange(ctx, group);
    std::vector<Tensor> results;
    for (unsigned k = 0; k < ctx.numIn(); ++k)
        results.push_back(colReduce(ctx, *all, k));
    return results;
}

std::vector<Tensor> colReduceScatterOp(OpContext& ctx)
{
    const ColGroup group = colMyGroup(ctx, colReduceGatherMode(ctx), colIdRows(ctx, "replica_groups"));
    const int64_t dim = ctx.integer("scatter_dimension");
    auto all = colExchange(ctx, group);
    std::vector<Tensor> results;
    for (unsigned k = 0; k < ctx.numIn(); ++k) {
        Tensor reduced = colReduce(ctx, *all, k);
        results.push_back(colBlock(ctx, reduced, dim, static_cast<int64_t>(group.members.size()),
                                   static_cast<int64_t>(group.position)));
    }
    return results;
}

std::vector<Tensor> colAllToAllOp(OpContext& ctx)
{
    const ColGroup group = colMyGroup(ctx, colPermuteMode(ctx), colIdRows(ctx, "replica_groups"));
    const int64_t splitDim = ctx.integer("split_dimension");
    const int64_t concatDim = ctx.integer("concat_dimension");
    const int64_t count = ctx.integer("split_count");
    if (count != static_cast<int64_t>(group.members.size()))
        ctx.fail("split_count " + std::to_string(count) + " differs from the group size " +
                 std::to_string(group.members.size()));
    auto all = colExchange(ctx, group);
    std::vector<Tensor> results;
    for (unsigned k = 0; k < ctx.numIn(); ++k) {
        std::vector<Tensor> blocks;
        for (const auto& [pid, data] : *all) // senders in increasing process id
            blocks.push_back(colBlock(ctx, data[k], splitDim, count, static_cast<int64_t>(group.position)));
        std::vector<const Tensor*> parts;
        for (const Tensor& b : blocks)
            parts.push_back(&b);
        Tensor out = ctx.result(k);
        colConcat(parts, concatDim, out);
        results.push_back(std::move(out));
    }
    return results;
}

std::vector<Tensor> colCollectivePermuteOp(OpContext& ctx)
{
    const ColMode mode = colPermuteMode(ctx);
    const auto pairs = colIdRows(ctx, "source_target_pairs");
    // Every process of the domain (replicas of this partition, or partitions of this replica) meets; in a manual
    // computation's body, the devices that run an instance of it, and a pair may not leave them.
    ColGroup group;
    if (const ManualScope* scope = ctx.proc.manual; scope && mode == ColMode::CrossPartition) {
        group.key = ctx.op.name() + "/" + std::to_string(colChannelId(ctx)) + "/manual";
        for (int64_t d = 0; d < static_cast<int64_t>(scope->runs.size()); ++d)
            if (scope->runsOn(d)) {
                if (d == ctx.proc.partition)
                    group.position = group.members.size();
                group.members.push_back(d);
            }
        for (const auto& pair : pairs)
            if (pair.size() == 2 && scope->runsOn(pair[0]) != scope->runsOn(pair[1]))
                colCheckManualGroup(ctx, pair);
    } else {
        group = colMyGroup(ctx, mode, {});
    }
    const int64_t myId = mode == ColMode::CrossReplica ? ctx.proc.replica : ctx.proc.partition;
    auto all = colExchange(ctx, group);
    Tensor out = ctx.result(0);
    for (const auto& pair : pairs) {
        if (pair.size() != 2)
            ctx.fail("source_target_pairs must hold pairs");
        if (pair[1] != myId)
            continue;
        const int64_t src = mode == ColMode::CrossReplica ? colProcessId(ctx.proc, pair[0], ctx.proc.partition)
                                                          : colProcessId(ctx.proc, ctx.proc.replica, pair[0]);
        auto it = all->find(src);
        if (it == all->end())
            ctx.fail("source " + std::to_string(pair[0]) + " is outside the grid");
        if (!it->second[0].sameShapeAndType(out))
            ctx.fail("received " + it->second[0].typeString() + ", expected " + out.typeString());
        out = it->second[0];
    }
    return {std::move(out)};
}

std::vector<Tensor> colCollectiveBroadcastOp(OpContext& ctx)
{
    // Like collective_permute: replica ids on channel 0, else partition ids; the first listed process
    // of each group sends its operand to the group; a process in no group gets zeros.
    const ColMode mode = colPermuteMode(ctx);
    const auto rows = colIdRows(ctx, "replica_groups");
    std::vector<std::vector<int64_t>> groups = colGroups(ctx, mode, rows);
    const int64_t me = colProcessId(ctx.proc, ctx.proc.replica, ctx.proc.partition);
    for (const auto& g : groups) {
        if (std::find(g.begin(), g.end(), me) == g.end())
            continue;
        colCheckManualGroup(ctx, g);
        ColGroup group;
        group.members = g;
        group.position = static_cast<size_t>(std::find(g.begin(), g.end(), me) - g.begin());
        group.key = ctx.op.name() + "/" + std::to_string(colChannelId(ctx)) + "/";
        for (int64_t m : g)
            group.key += std::to_string(m) + ",";
        auto all = colExchange(ctx, group);
        return {all->at(g.front())[0]};
    }
    return {ctx.result(0)};
}

std::vector<Tensor> colRunParallelOp(OpContext& ctx)
{
    if (ctx.proc.rendezvous)
        ctx.fail("nested run_parallel is not supported");
    const ir::Attribute* programs = ctx.op.attr("programs");
    const auto* rows = programs ? programs->as<ir::ArrayAttr>() : nullptr;
    if (!rows || rows->elements.empty())
        ctx.fail("expects 'programs', a non-empty list of lists of functions");
    std::vector<std::vector<const ir::Op*>> grid;
    for (const auto& row : rows->elements) {
        const auto* list = row ? row->as<ir::ArrayAttr>() : nullptr;
        if (!list || list->elements.empty())
            ctx.fail("each entry of 'programs' must be a non-empty list of functions");
        std::vector<const ir::Op*> funcs;
        for (const auto& f : list->elements) {
            const auto* ref = f ? f->as<ir::SymbolRefAttr>() : nullptr;
            if (!ref || ref->path.size() != 1)
                ctx.fail("'programs' holds something other than a function symbol");
            const ir::Op* func = ctx.interp.module().findFunc(ref->path[0]);
            if (!func)
                ctx.fail("no function @" + ref->path[0]);
            funcs.push_back(func);
        }
        if (!grid.empty() && funcs.size() != grid.front().size())
            ctx.fail("the lists of 'programs' differ in length");
        grid.push_back(std::move(funcs));
    }
    const int64_t numReplicas = static_cast<int64_t>(grid.size());
    const int64_t numPartitions = static_cast<int64_t>(grid.front().size());
    const int64_t n = numReplicas * numPartitions;
    // Operands and results: each process's, laid end to end in grid order.
    std::vector<std::vector<Tensor>> args(static_cast<size_t>(n));
    unsigned nextOperand = 0;
    size_t totalResults = 0;
    for (int64_t p = 0; p < n; ++p) {
        const ir::Op* f = grid[static_cast<size_t>(p / numPartitions)][static_cast<size_t>(p % numPartitions)];
        const ir::Type ft = ir::funcType(*f);
        for (size_t a = 0; a < ft.elements().size(); ++a) {
            if (nextOperand >= ctx.numIn())
                ctx.fail("too few operands for the programs' parameters");
            args[static_cast<size_t>(p)].push_back(ctx.in(nextOperand++));
        }
        totalResults += ft.results().size();
    }
    if (nextOperand != ctx.numIn())
        ctx.fail("more operands than the programs take");
    if (totalResults != ctx.op.numResults())
        ctx.fail("the programs return " + std::to_string(totalResults) + " values, the op has " +
                 std::to_string(ctx.op.numResults()) + " results");
    std::vector<const ir::Op*> funcs;
    for (const auto& row : grid)
        funcs.insert(funcs.end(), row.begin(), row.end());
    std::vector<std::vector<Tensor>> results;
    try {
        results = ctx.interp.runGrid(funcs, numReplicas, numPartitions, std::move(args));
    } catch (ExecError& e) {
        if (!e.pos.isKnown())
            e.pos = ctx.interp.posOf(ctx.op);
        throw;
    }
    std::vector<Tensor> out;
    for (auto& r : results)
        for (auto& t : r)
            out.push_back(std::move(t));
    return out;
}

} // namespace

std::vector<std::vector<Tensor>>
Interpreter::runProcesses(std::vector<ProcessInfo> procs, const ProcessBody& body,
                          const std::function<std::string(const ProcessInfo&)>& describe)
{
    const size_t n = procs.size();
    Rendezvous rendezvous(static_cast<int64_t>(n));
    for (ProcessInfo& proc : procs)
        proc.rendezvous = &rendezvous;
    std::vector<std::vector<Tensor>> results(n);
    std::vector<std::optional<ExecError>> errors(n); // per process
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (size_t p = 0; p < n; ++p) {
        threads.emplace_back([&, p] {
            const ProcessInfo& proc = procs[p];
            bool failed = false;
            try {
                results[p] = body(p, proc);
            } catch (const ExecError& e) {
                failed = true;
                errors[p] = ExecError{describe(proc) + ": " + e.message, e.pos, e.secondary};
            } catch (const std::exception& e) {
                // Nothing may escape a thread; what did not come from an op (out of memory) fails the run.
                failed = true;
                errors[p] = ExecError{describe(proc) + ": " + e.what(), {}};
            }
            rendezvous.processFinished(failed);
        });
    }
    for (auto& t : threads)
        t.join();
    // The reported failure is a cause (not a peer released by it), of the lowest process id, whatever
    // the timing: the same program fails with the same message every time.
    const ExecError* first = nullptr;
    for (const auto& e : errors)
        if (e && (!first || (first->secondary && !e->secondary)))
            first = &*e;
    if (first)
        throw *first;
    return results;
}

std::vector<std::vector<Tensor>> Interpreter::runGrid(const std::vector<const ir::Op*>& funcs, int64_t replicas,
                                                      int64_t partitions, std::vector<std::vector<Tensor>> args)
{
    std::vector<ProcessInfo> procs;
    procs.reserve(funcs.size());
    for (size_t p = 0; p < funcs.size(); ++p) {
        const int64_t id = static_cast<int64_t>(p);
        procs.push_back(ProcessInfo{id / partitions, id % partitions, replicas, partitions, nullptr, nullptr});
    }
    return runProcesses(
        std::move(procs),
        [&](size_t p, const ProcessInfo& proc) { return callFunction(*funcs[p], std::move(args[p]), proc); },
        [](const ProcessInfo& proc) {
            return "in process (replica " + std::to_string(proc.replica) + ", partition " +
                   std::to_string(proc.partition) + ")";
        });
}

void registerCollectiveOps(HandlerMap& map)
{
    map["stablehlo.partition_id"] = colPartitionIdOp;
    map["stablehlo.replica_id"] = colReplicaIdOp;
    map["stablehlo.all_gather"] = colAllGatherOp;
    map["stablehlo.all_reduce"] = colAllReduceOp;
    map["stablehlo.reduce_scatter"] = colReduceScatterOp;
    map["stablehlo.all_to_all"] = colAllToAllOp;
    map["stablehlo.collective_permute"] = colCollectivePermuteOp;
    map["stablehlo.collective_broadcast"] = colCollectiveBroadcastOp;
    map["interpreter.run_parallel"] = colRunParallelOp;
}

} // namespace shardx::exec
