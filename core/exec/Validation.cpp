// Validation: propagate, partition, run the global program and the per-device programs, gather and compare.
#include "core/exec/Validation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/exec/TensorIo.h"
#include "core/exec/ValidationText.h"
#include "core/ir/FuncOps.h"
#include "core/ir/ProgramIds.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/ir/Verifier.h"
#include "core/mesh/DeviceLayout.h"
#include "core/partition/PartitionModel.h"
#include "core/passes/PassRegistry.h"
#include "core/sharding/LocalShape.h"

namespace shardx::exec {

Tolerance toleranceFor(const ElementType& type)
{
    if (type.isBool() || type.isInteger())
        return kToleranceExact;
    const int bits = type.isComplex() ? type.bits / 2 : type.bits;
    if (bits == 64)
        return kToleranceF64;
    if (bits == 16)
        return type.isBf16 ? kToleranceBf16 : kToleranceF16;
    return kToleranceF32;
}

std::optional<InjectedFaultKind> parseInjectedFault(const std::string& text)
{
    if (text == "none")
        return InjectedFaultKind::None;
    if (text == "collective")
        return InjectedFaultKind::Collective;
    if (text == "swap-shards")
        return InjectedFaultKind::SwapShards;
    return std::nullopt;
}

namespace {

// ---- mesh override ----------------------------------------------------------------------------------

/// Applies `spec` (`2x2` or `a=2,b=2`) to every mesh of `module` with axes; an error for a malformed spec
/// or one that fits no mesh.
Status valApplyMesh(ir::Module& module, const std::string& spec)
{
    std::vector<int64_t> sizes;
    std::map<std::string, int64_t> named;
    auto number = [](const std::string& s, int64_t& out) {
        if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
            return false;
        out = std::stoll(s);
        return out > 0;
    };
    const bool byName = spec.find('=') != std::string::npos;
    size_t start = 0;
    while (start <= spec.size()) {
        size_t end = spec.find(byName ? ',' : 'x', start);
        if (end == std::string::npos)
            end = spec.size();
        const std::string item = spec.substr(start, end - start);
        int64_t n = 0;
        if (byName) {
            const size_t eq = item.find('=');
            if (eq == std::string::npos || eq == 0 || !number(item.substr(eq + 1), n))
                return Error{"--mesh '" + spec + "': expected AXIS=SIZE,... or SIZExSIZE...", {}};
            named[item.substr(0, eq)] = n;
        } else {
            if (!number(item, n))
                return Error{"--mesh '" + spec + "': expected AXIS=SIZE,... or SIZExSIZE...", {}};
            sizes.push_back(n);
        }
        start = end + 1;
    }
    bool applied = false;
    for (ir::Op* meshOp : module.meshes()) {
        const Mesh* mesh = ir::meshOpMesh(*meshOp);
        if (!mesh || mesh->axes().empty())
            continue;
        std::vector<MeshAxis> axes = mesh->axes();
        if (byName) {
            bool any = false;
            for (MeshAxis& a : axes)
                if (auto it = named.find(a.name); it != named.end()) {
                    a.size = it->second;
                    any = true;
                }
            if (!any)
                continue;
        } else {
            if (axes.size() != sizes.size())
                continue;
            for (size_t i = 0; i < axes.size(); ++i)
                axes[i].size = sizes[i];
        }
        ir::setMeshOpMesh(*meshOp, Mesh(std::move(axes)));
        applied = true;
    }
    if (!applied)
        return Error{"--mesh '" + spec + "' fits no mesh of the module", {}};
    return {};
}

// ---- recording values ---------------------------------------------------------------------------------

/// Records the results of the ops directly in one function's body, per process, and (`devices` > 0) those
/// directly in the body of a manual computation in that body, per device that runs it.
class ValRecorder : public OpObserver {
public:
    ValRecorder(const ir::Op* func, size_t processes, size_t devices = 0)
        : m_func(func), m_values(processes), m_manual(devices)
    {}

    void opEvaluated(const ir::Op& op, const ProcessInfo& proc, const std::vector<Tensor>& results) override
    {
        std::unordered_map<const ir::Value*, Tensor>* into = nullptr;
        if (proc.manual) {
            // Each device of a manual computation writes only its own map (one thread per device).
            const ir::Op* mc = proc.manual->op;
            if (!proc.manual->parent && mc->parentOp() == m_func &&
                static_cast<size_t>(proc.partition) < m_manual.size())
                into = &m_manual[static_cast<size_t>(proc.partition)];
        } else if (op.parentOp() == m_func) {
            // Each process writes only its own map (one thread per process).
            const size_t p = static_cast<size_t>(proc.replica * proc.numPartitions + proc.partition);
            if (p < m_values.size())
                into = &m_values[p];
        }
        if (into)
            for (unsigned i = 0; i < op.numResults() && i < results.size(); ++i)
                (*into)[op.result(i)] = results[i];
    }

    const Tensor* find(size_t process, const ir::Value* v) const
    {
        auto it = m_values[process].find(v);
        return it == m_values[process].end() ? nullptr : &it->second;
    }
    /// Device `device`'s value of `v`, a value in the body of a manual computation (null: none ran there).
    const Tensor* findManual(int64_t device, const ir::Value* v) const
    {
        if (device < 0 || static_cast<size_t>(device) >= m_manual.size())
            return nullptr;
        auto it = m_manual[static_cast<size_t>(device)].find(v);
        return it == m_manual[static_cast<size_t>(device)].end() ? nullptr : &it->second;
    }

private:
    const ir::Op* m_func;
    std::vector<std::unordered_map<const ir::Value*, Tensor>> m_values;
    std::vector<std::unordered_map<const ir::Value*, Tensor>> m_manual;
};

// ---- comparing ------------------------------------------------------------------------------------------

std::string valShardingText(const TensorSharding* s) { return s ? s->toString() : std::string("<replicated>"); }

/// The layout of a value of `shape` with `sharding` (null: replicated) on `mesh`.
Expected<ShardedLayout> valLayout(const TensorSharding* sharding, const Mesh& mesh, const std::vector<int64_t>& shape)
{
    if (sharding)
        return computeShardedLayout(*sharding, mesh, shape);
    TensorSharding replicated;
    replicated.dims.resize(shape.size());
    return computeShardedLayout(replicated, mesh, shape);
}

/// Calls f(localIndex, globalIndex) for every real (not padding) element `shard` holds.
template <typename F>
void valForEachElement(const ShardedLayout& layout, const DeviceShard* shard, const Tensor& local, const Tensor& global,
                       F&& f)
{
    const size_t rank = layout.globalShape.size();
    std::vector<int64_t> extent(rank), offset(rank, 0);
    for (size_t d = 0; d < rank; ++d) {
        extent[d] = shard ? shard->validExtent[d] : layout.globalShape[d];
        offset[d] = shard ? shard->offset[d] : 0;
        if (extent[d] <= 0)
            return;
    }
    std::vector<int64_t> idx(rank, 0), g(rank, 0);
    do {
        for (size_t d = 0; d < rank; ++d)
            g[d] = idx[d] + offset[d];
        f(local.linearIndex(idx), global.linearIndex(g));
    } while (nextIndex(idx, extent));
}

/// The shard device `shard` holds of `global` (padding zero).
Tensor valExtractShard(const ShardedLayout& layout, const DeviceShard* shard, const Tensor& global)
{
    Tensor local(global.elementType(), shard ? layout.localShape : global.shape());
    valForEachElement(layout, shard, local, global, [&](int64_t li, int64_t gi) { local.copyElement(li, global, gi); });
    return local;
}

/// Compares element `li` of `local` with element `gi` of `global` (same element type) under `bound`; counts it in
/// `row` (elements, max errors) and the NMSE sums. True when it is within the bound.
bool valCompareElement(const Tensor& local, int64_t li, const Tensor& global, int64_t gi, double bound,
                       ValueComparison& row, double& sumSqErr, double& sumSqRef)
{
    const ElementType& et = global.elementType();
    ++row.elements;
    double err = 0, ref = 0;
    bool ok = true;
    if (et.isFloat()) {
        const double a = local.getFloat(li), b = global.getFloat(gi);
        if (std::isnan(a) || std::isnan(b)) {
            ok = std::isnan(a) && std::isnan(b);
            err = ok ? 0 : std::numeric_limits<double>::infinity();
        } else if (std::isinf(a) || std::isinf(b)) {
            ok = a == b;
            err = ok ? 0 : std::numeric_limits<double>::infinity();
        } else {
            err = std::fabs(a - b);
            ok = err <= bound;
        }
        ref = std::fabs(b);
    } else if (et.isComplex()) {
        const std::complex<double> a = local.getComplex(li), b = global.getComplex(gi);
        err = std::abs(a - b);
        ref = std::abs(b);
        ok = err <= bound;
    } else {
        const int64_t a = local.getInt(li), b = global.getInt(gi);
        ok = a == b;
        err = ok ? 0 : std::fabs(static_cast<double>(a) - static_cast<double>(b));
        ref = std::fabs(static_cast<double>(b));
    }
    row.maxAbsError = std::max(row.maxAbsError, err);
    if (ref > 0)
        row.maxRelError = std::max(row.maxRelError, err / ref);
    sumSqErr += err * err;
    sumSqRef += ref * ref;
    return ok;
}

/// The largest finite magnitude of `t`'s elements (0 for integers and booleans).
double valScaleOf(const Tensor& t)
{
    const ElementType& et = t.elementType();
    double scale = 0;
    for (int64_t i = 0; i < t.numElements(); ++i) {
        const double m = et.isFloat() ? std::fabs(t.getFloat(i)) : et.isComplex() ? std::abs(t.getComplex(i)) : 0;
        if (std::isfinite(m))
            scale = std::max(scale, m);
    }
    return scale;
}

/// Compares every device's shard (`perDevice[id]`) of a value with the global program's `global`; fills the
/// statistics of `row`. An error text when the shapes do not correspond (the value is then not compared).
std::string valCompare(const Tensor& global, const TensorSharding* sharding, const Mesh& mesh,
                       const std::vector<const Tensor*>& perDevice, ValueComparison& row)
{
    Expected<ShardedLayout> layout = valLayout(sharding, mesh, global.shape());
    if (!layout)
        return layout.error().message;
    if (!layout->unreducedAxes.empty())
        return "a partial value (unreduced axes)";
    row.type = global.typeString();
    row.sharding = valShardingText(sharding);
    row.tolerance = toleranceFor(global.elementType());
    const ElementType& et = global.elementType();
    // The bound scales with the value's largest magnitude, not each element's: a reordered sum's rounding
    // error follows the size of its terms, and an element that cancels to near zero keeps it.
    const double scale = valScaleOf(global);
    const double bound = row.tolerance.abs + row.tolerance.rel * scale;
    row.scale = scale;
    double sumSqErr = 0, sumSqRef = 0;
    for (size_t d = 0; d < perDevice.size(); ++d) {
        const Tensor* local = perDevice[d];
        const DeviceShard* shard = layout->shardOfDevice(static_cast<int64_t>(d));
        if (!local)
            return "device " + std::to_string(d) + " has no value";
        const std::vector<int64_t>& expect = shard ? layout->localShape : global.shape();
        if (!(local->elementType() == et) || local->shape() != expect)
            return "device " + std::to_string(d) + " holds " + local->typeString() + ", the sharding gives " +
                   Tensor(et, expect).typeString();
        row.localType = local->typeString();
        int64_t bad = 0;
        valForEachElement(*layout, shard, *local, global, [&](int64_t li, int64_t gi) {
            if (!valCompareElement(*local, li, global, gi, bound, row, sumSqErr, sumSqRef))
                ++bad;
        });
        row.mismatches += bad;
        if (bad)
            row.devices.push_back(static_cast<int64_t>(d));
    }
    row.nmse = sumSqRef > 0 ? sumSqErr / sumSqRef : (sumSqErr > 0 ? std::numeric_limits<double>::infinity() : 0.0);
    // Replicas run the same program on the same data: they must agree bit for bit.
    const size_t bytes = static_cast<size_t>(et.byteSize());
    for (const std::vector<int64_t>& group : layout->replicationGroups) {
        if (group.size() < 2)
            continue;
        const size_t first = static_cast<size_t>(group.front());
        const DeviceShard* shard = layout->shardOfDevice(group.front());
        bool agree = true;
        for (size_t k = 1; k < group.size() && agree; ++k) {
            const Tensor& a = *perDevice[first];
            const Tensor& b = *perDevice[static_cast<size_t>(group[k])];
            valForEachElement(*layout, shard, a, global, [&](int64_t li, int64_t) {
                if (agree && std::memcmp(a.bytes().data() + static_cast<size_t>(li) * bytes,
                                         b.bytes().data() + static_cast<size_t>(li) * bytes, bytes) != 0)
                    agree = false;
            });
        }
        if (!agree)
            row.replicaDisagreements.push_back(group);
    }
    return {};
}

/// Compares a value of a manual computation's body per device: device d's value in the per-device program
/// (`perDevice[d]`) against the global run's body instance that stands for it (`instance[d]`), element by element.
/// An error text when they do not correspond (the value is then not compared).
std::string valCompareManual(const std::vector<const Tensor*>& instance, const std::vector<const Tensor*>& perDevice,
                             ValueComparison& row)
{
    double scale = 0;
    for (size_t d = 0; d < instance.size(); ++d) {
        if (!instance[d] || !perDevice[d])
            return "device " + std::to_string(d) + " has no value";
        if (!instance[d]->sameShapeAndType(*perDevice[d]))
            return "device " + std::to_string(d) + " holds " + perDevice[d]->typeString() + ", the body " +
                   instance[d]->typeString() + " (split along free axes too)";
        scale = std::max(scale, valScaleOf(*instance[d]));
    }
    if (instance.empty())
        return "no device";
    row.type = row.localType = instance.front()->typeString();
    row.tolerance = toleranceFor(instance.front()->elementType());
    row.scale = scale;
    const double bound = row.tolerance.abs + row.tolerance.rel * scale;
    double sumSqErr = 0, sumSqRef = 0;
    for (size_t d = 0; d < instance.size(); ++d) {
        int64_t bad = 0;
        for (int64_t i = 0; i < instance[d]->numElements(); ++i)
            if (!valCompareElement(*perDevice[d], i, *instance[d], i, bound, row, sumSqErr, sumSqRef))
                ++bad;
        row.mismatches += bad;
        if (bad)
            row.devices.push_back(static_cast<int64_t>(d));
    }
    row.nmse = sumSqRef > 0 ? sumSqErr / sumSqRef : (sumSqErr > 0 ? std::numeric_limits<double>::infinity() : 0.0);
    return {};
}

/// For each device 0..numDevices-1, the device whose body instance of the manual computation `mc` stands for it in
/// a run of the global program: the one with its coordinates along the manual axes and 0 along the others (the
/// devices that differ along free axes hold the same data). -1 where the mesh does not say.
std::vector<int64_t> valManualInstances(const ir::Module& module, const ir::Op& mc, int64_t numDevices)
{
    std::vector<int64_t> out(static_cast<size_t>(numDevices), -1);
    const Mesh* mesh = nullptr;
    for (const ShardingPerValue* list : {ir::inShardings(mc), ir::outShardings(mc)})
        for (size_t i = 0; list && !mesh && i < list->shardings.size(); ++i)
            if (const Mesh* m = ir::meshOf(module, list->shardings[i]); m && !m->axes().empty())
                mesh = m;
    const std::vector<std::string>* manual = ir::manualAxes(mc);
    if (!mesh || !manual)
        return out;
    const DeviceLayout layout(*mesh);
    for (int64_t d = 0; d < numDevices; ++d) {
        std::optional<std::vector<int64_t>> coords = layout.coordsOfDevice(d);
        if (!coords)
            continue;
        for (size_t a = 0; a < coords->size(); ++a)
            if (std::find(manual->begin(), manual->end(), mesh->axes()[a].name) == manual->end())
                (*coords)[a] = 0;
        out[static_cast<size_t>(d)] = layout.deviceAt(layout.positionOfCoords(*coords));
    }
    return out;
}

/// What a divergence of `row` is, in a few words, and the device to name.
Divergence valDivergenceOf(const ValueComparison& row)
{
    Divergence d;
    d.value = row.name;
    d.globalValue = row.globalValue;
    d.opName = row.opName;
    d.pos = row.pos;
    if (!row.devices.empty()) {
        d.device = row.devices.front();
        d.what = std::to_string(row.mismatches) + " elements outside the tolerance (" +
                 valToleranceText(row.tolerance) + ") on devices " + valDevicesText(row.devices) + ", max abs error " +
                 valNumber(row.maxAbsError);
    } else if (!row.replicaDisagreements.empty()) {
        d.device = row.replicaDisagreements.front().back();
        d.what = "replicas " + valDevicesText(row.replicaDisagreements.front()) + " hold different data";
    }
    return d;
}

/// Seeded float inputs are randomTensor's multiples of 1/16 in [-4, 4) times this: multiples of 1/256 in
/// [-0.25, 0.25), exact in every float format. Deep programs (a transformer's stacked matmuls, without a
/// trained model's small weights) then keep values near 1, where exp, tanh and divide are well conditioned: with
/// inputs in [-4, 4) a 4-layer stack reaches magnitudes of 1e4 before its softmax, whose exp turns the
/// last-bit differences of reordered sums into errors no tolerance can tell from a wrong shard.
constexpr double kValInputScale = 1.0 / 16.0;

// ---- the run ------------------------------------------------------------------------------------------

bool valIsDataMovement(const std::string& name)
{
    return name == "sdy.all_gather" || name == "sdy.all_slice" || name == "sdy.all_to_all" ||
           name == "sdy.collective_permute" || name == "sdy.all_reduce" || name == "sdy.reduce_scatter" ||
           name == "sdy.reshard";
}

/// What validation knows of a value of the program before convert-global-to-local.
struct ValGlobalInfo {
    int logical = -1; ///< ProgramIds index of the global program's value it stands for
    const TensorSharding* sharding = nullptr;
    bool partial = false; ///< a partial result, reduced by a following all_reduce / reduce_scatter
    std::string why;      ///< when partial
};

/// A seeded input: randomTensor's, floats scaled by kValInputScale.
Tensor valSeededInput(const ElementType& type, const std::vector<int64_t>& shape, uint64_t seed)
{
    Tensor t = randomTensor(type, shape, seed);
    if (type.isFloat())
        for (int64_t i = 0; i < t.numElements(); ++i)
            t.setFloat(i, t.getFloat(i) * kValInputScale);
    return t;
}

SourcePos valPos(const ir::Module& module, SourcePos p)
{
    if (p.file.empty())
        p.file = module.fileName;
    return p;
}

} // namespace

namespace {
/// The diagnostics as one message, without the trailing newline.
std::string valDiagText(const DiagnosticList& diags)
{
    std::string s = diags.formatAll();
    while (!s.empty() && s.back() == '\n')
        s.pop_back();
    return s;
}
} // namespace

Expected<ValidationReport> validate(const ir::Module& module, ReferenceExecutor& backend,
                                    const ValidationOptions& options)
{
    // Stages: propagation (when asked), partitioning, the global program, the per-device programs, comparing.
    const int stages = (options.strategy.empty() ? 0 : 1) + 4;
    int stagesDone = 0;
    auto cancelled = [&] { return options.cancel && options.cancel->load(std::memory_order_relaxed); };
    auto stage = [&](const char* what) {
        if (options.progress)
            options.progress(what, stagesDone, stages);
        ++stagesDone;
        return !cancelled();
    };
    const Error cancelError{kValidationCancelled, {}};
    ValidationReport report;
    report.backend = backend.name();
    report.strategy = options.strategy;
    report.seed = options.seed;
    std::unique_ptr<ir::Module> work = module.clone();
    DiagnosticList diags;
    ir::VerifyOptions verify;
    verify.allowUnknownOps = true;
    if (!options.mesh.empty()) {
        if (Status st = valApplyMesh(*work, options.mesh); !st)
            return st.error();
        if (!ir::verifyModule(*work, diags, verify))
            return Error{"the module does not verify with --mesh " + options.mesh + ":\n" + valDiagText(diags), {}};
    }
    if (!options.strategy.empty()) {
        if (!stage("propagating"))
            return cancelError;
        const PropagationStrategy* strategy = findPropagationStrategy(options.strategy);
        if (!strategy)
            return Error{"unknown strategy '" + options.strategy + "' (" + propagationStrategyList() + ")", {}};
        const PassInfo* pass = findPass(strategy->pass);
        if (!pass || !pass->run(*work, {}, diags) || diags.hasErrors() || !ir::verifyModule(*work, diags, verify))
            return Error{"propagation (" + options.strategy + ") failed:\n" + valDiagText(diags), {}};
    }
    ir::ProgramIds& ids = work->programIds();
    const size_t userValues = ids.values().size(); // the values of the global program (named now)

    // The mesh the devices are counted on: the first with axes (as buildPartitionModel lists them).
    const Mesh* deviceMesh = nullptr;
    for (ir::Op* meshOp : work->meshes())
        if (const Mesh* m = ir::meshOpMesh(*meshOp); m && !m->axes().empty() && !m->isMaximal()) {
            deviceMesh = m;
            break;
        }
    if (!deviceMesh)
        return Error{"the module has no mesh: there is nothing to partition", SourcePos{module.fileName, 0, 0}};
    const int64_t numDevices = deviceMesh->totalSize();
    {
        std::vector<int64_t> idsSorted = deviceMesh->allDeviceIds();
        std::sort(idsSorted.begin(), idsSorted.end());
        for (int64_t i = 0; i < numDevices; ++i)
            if (idsSorted[static_cast<size_t>(i)] != i)
                return Error{"the mesh's device ids are not 0.." + std::to_string(numDevices - 1), {}};
    }
    report.mesh = deviceMesh->toString();
    report.devices = numDevices;

    if (!stage("partitioning"))
        return cancelError;
    PartitionOptions partitionOptions;
    partitionOptions.partitionCount = numDevices;
    partitionOptions.shards = ShardListing::None;
    partitionOptions.keepGlobalProgram = true;
    Expected<PartitionModel> model = buildPartitionModel(*work, partitionOptions);
    if (!model)
        return Error{"partitioning failed: " + model.error().message, model.error().pos};
    const ir::Module& pre = *model->global;
    const ir::Module& local = *model->local;

    const ir::Op* globalFunc = work->findFunc(options.entry);
    const ir::Op* preFunc = pre.findFunc(options.entry);
    const ir::Op* localFunc = local.findFunc(options.entry);
    if (!globalFunc || !preFunc || !localFunc)
        return Error{"no function @" + options.entry + " to validate", SourcePos{module.fileName, 0, 0}};
    const ir::Type fnType = ir::funcType(*globalFunc);
    const size_t numArgs = fnType.elements().size();

    // Inputs.
    std::vector<Tensor> inputs;
    if (!options.inputs.empty() && options.inputs.size() != numArgs)
        return Error{"@" + options.entry + " takes " + std::to_string(numArgs) + " arguments, " +
                         std::to_string(options.inputs.size()) + " inputs given",
                     {}};
    for (size_t i = 0; i < numArgs; ++i) {
        std::string error;
        auto zero = zeroTensorOfType(fnType.elements()[i], error);
        if (!zero)
            return Error{"argument " + std::to_string(i) + " of @" + options.entry + ": " + error, globalFunc->pos};
        if (options.inputs.empty()) {
            inputs.push_back(valSeededInput(zero->elementType(), zero->shape(), options.seed + i));
        } else {
            if (!options.inputs[i].sameShapeAndType(*zero))
                return Error{"input " + std::to_string(i) + " is " + options.inputs[i].typeString() + ", argument " +
                                 std::to_string(i) + " of @" + options.entry + " is " + zero->typeString(),
                             {}};
            inputs.push_back(options.inputs[i]);
        }
    }

    // The global program, on the reference executor.
    if (!stage("running the global program"))
        return cancelError;
    ReferenceExecutor reference;
    ValRecorder globalValues(globalFunc, 1, static_cast<size_t>(numDevices));
    reference.setHooks(RunHooks{options.intermediates ? &globalValues : nullptr, std::nullopt, options.cancel});
    Expected<std::vector<Tensor>> globalResults = reference.runFunction(*work, options.entry, inputs);
    if (cancelled())
        return cancelError;
    if (!globalResults)
        return Error{"the global program did not run: " + globalResults.error().message, globalResults.error().pos};
    std::unordered_map<int, const Tensor*> globalById;
    if (options.intermediates) {
        for (const auto& op : globalFunc->region(0).front().ops())
            for (unsigned r = 0; r < op->numResults(); ++r)
                if (const Tensor* t = globalValues.find(0, op->result(r)); t && op->result(r)->programId >= 0)
                    globalById[op->result(r)->programId] = t;
        const ir::Block& body = globalFunc->region(0).front();
        for (unsigned a = 0; a < body.numArgs(); ++a)
            if (body.arg(a)->programId >= 0)
                globalById[body.arg(a)->programId] = &inputs[a];
    }

    // Each device's arguments: its shard of every input, under the argument's sharding.
    auto meshFor = [&](const TensorSharding* s) -> const Mesh& {
        const Mesh* m = s ? ir::meshOf(pre, *s) : nullptr;
        return m ? *m : *deviceMesh;
    };
    std::vector<std::vector<Tensor>> deviceArgs(static_cast<size_t>(numDevices));
    for (size_t i = 0; i < numArgs; ++i) {
        const TensorSharding* s = ir::funcArgSharding(*preFunc, static_cast<unsigned>(i));
        Expected<ShardedLayout> layout = valLayout(s, meshFor(s), inputs[i].shape());
        if (!layout)
            return Error{"argument " + std::to_string(i) + ": " + layout.error().message, {}};
        for (int64_t d = 0; d < numDevices; ++d)
            deviceArgs[static_cast<size_t>(d)].push_back(valExtractShard(*layout, layout->shardOfDevice(d), inputs[i]));
    }
    if (options.fault == InjectedFaultKind::SwapShards) {
        bool swapped = false;
        for (size_t i = 0; i < numArgs && !swapped; ++i) {
            const TensorSharding* s = ir::funcArgSharding(*preFunc, static_cast<unsigned>(i));
            Expected<ShardedLayout> layout = valLayout(s, meshFor(s), inputs[i].shape());
            if (!layout || layout->replicationGroups.size() < 2)
                continue;
            const int64_t a = layout->replicationGroups[0].front(), b = layout->replicationGroups[1].front();
            if (deviceArgs[static_cast<size_t>(a)][i].bytes() == deviceArgs[static_cast<size_t>(b)][i].bytes())
                continue; // the two shards hold the same numbers: swapping them changes nothing
            std::swap(deviceArgs[static_cast<size_t>(a)][i], deviceArgs[static_cast<size_t>(b)][i]);
            const ir::Value* arg = localFunc->region(0).front().arg(static_cast<unsigned>(i));
            const std::string name =
                arg->programId >= 0 ? ids.values()[static_cast<size_t>(arg->programId)].name : std::string("argument");
            report.faultDevice = std::min(a, b);
            report.fault = "swap-shards: devices " + std::to_string(a) + " and " + std::to_string(b) +
                           " hold each other's shard of " + name + " (argument " + std::to_string(i) + ")";
            swapped = true;
        }
        if (!swapped)
            return Error{"--inject-fault swap-shards: no argument is sharded so that two devices hold different "
                         "data",
                         {}};
    }
    std::vector<Tensor> flatArgs;
    for (auto& row : deviceArgs)
        for (auto& t : row)
            flatArgs.push_back(t);

    // The per-device programs, on the back end.
    if (!stage("running the per-device programs"))
        return cancelError;
    ValRecorder localValues(localFunc, static_cast<size_t>(numDevices));
    TimingRecorder timings;
    timings.setDefault(backend.name(), "cpu");
    RunHooks hooks;
    hooks.cancel = options.cancel;
    hooks.meshSource = &pre; // replica groups named by mesh axes (JAX's shard_map collectives) find their mesh
    if (options.timings)
        hooks.timings = &timings;
    if (options.intermediates)
        hooks.observer = &localValues;
    if (options.fault == InjectedFaultKind::Collective) {
        const int64_t device = options.faultDevice >= 0 ? options.faultDevice : (numDevices > 1 ? 1 : 0);
        if (device >= numDevices)
            return Error{"--inject-fault collective: there is no device " + std::to_string(device) + " (the mesh has " +
                             std::to_string(numDevices) + ")",
                         {}};
        hooks.fault = CollectiveFault{device, options.faultCollective};
    }
    backend.setHooks(hooks);
    Expected<std::vector<Tensor>> localResults = backend.runParallel(
        local, {std::vector<std::string>(static_cast<size_t>(numDevices), options.entry)}, flatArgs);
    backend.setHooks(RunHooks{});
    const InjectedFault struck = backend.lastInjectedFault();
    if (cancelled())
        return cancelError;
    if (options.timings) {
        report.timed = true;
        report.timings = timings.result();
        for (DeviceTimings& d : report.timings)
            for (OpTiming& t : d.ops)
                t.pos = valPos(module, t.pos);
    }
    if (!localResults)
        return Error{"the per-device program did not run: " + localResults.error().message, localResults.error().pos};
    if (options.fault == InjectedFaultKind::Collective) {
        if (!struck.struck)
            return Error{"--inject-fault collective: device " + std::to_string(hooks.fault->process) +
                             " ran fewer than " + std::to_string(options.faultCollective + 1) +
                             " collectives (the per-device program has nothing to corrupt)",
                         {}};
        const SourcePos p = valPos(module, struck.pos);
        report.faultOp = struck.opName;
        report.faultPos = p;
        report.faultDevice = struck.process;
        report.fault = "collective: the results of " + struck.opName + " (collective " +
                       std::to_string(options.faultCollective) + " of device " + std::to_string(struck.process) +
                       (p.isKnown() ? ", " + p.file + ":" + std::to_string(p.line) + ":" + std::to_string(p.col) : "") +
                       ") corrupted on device " + std::to_string(struck.process);
    }

    if (!stage("comparing"))
        return cancelError;
    // What each value of the program before convert-global-to-local stands for.
    std::unordered_map<int, ValGlobalInfo> info;
    const ir::Block& preBody = preFunc->region(0).front();
    for (unsigned a = 0; a < preBody.numArgs(); ++a)
        if (int pid = preBody.arg(a)->programId; pid >= 0)
            info[pid] = ValGlobalInfo{pid, ir::funcArgSharding(*preFunc, a), false, {}};
    for (const auto& opPtr : preBody.ops()) {
        const ir::Op& op = *opPtr;
        for (unsigned r = 0; r < op.numResults(); ++r) {
            const ir::Value* v = op.result(r);
            if (v->programId < 0)
                continue;
            ValGlobalInfo g;
            g.sharding = ir::shardingOfValue(v);
            if (valIsDataMovement(op.name())) {
                // Moves (or reduces the partial sums of) its operand: the same global value.
                const int from = op.operand(0)->programId;
                auto it = info.find(from);
                g.logical = it != info.end() ? it->second.logical : -1;
            } else if (static_cast<size_t>(v->programId) < userValues && op.name() != "sdy.sharded_to_unreduced" &&
                       op.name() != "sdy.replicated_to_unreduced") {
                g.logical = v->programId;
            }
            for (const ir::Use& u : v->uses())
                if (u.user->name() == "sdy.all_reduce" || u.user->name() == "sdy.reduce_scatter") {
                    g.partial = true;
                    g.why = "a partial result, reduced across devices by the " + u.user->name() + " after it";
                }
            info[v->programId] = g;
        }
    }

    // Comparisons.
    auto perDevice = [&](auto&& get) {
        std::vector<const Tensor*> out(static_cast<size_t>(numDevices));
        for (int64_t d = 0; d < numDevices; ++d)
            out[static_cast<size_t>(d)] = get(static_cast<size_t>(d));
        return out;
    };
    const ir::Block& localBody = localFunc->region(0).front();
    const int64_t numOps = static_cast<int64_t>(localBody.ops().size());
    const size_t numResults = localResults->size() / static_cast<size_t>(numDevices);
    auto nameOf = [&](int pid) {
        return pid >= 0 && static_cast<size_t>(pid) < ids.values().size() ? ids.values()[static_cast<size_t>(pid)].name
                                                                          : std::string("?");
    };
    const ir::ProgramIds* localIds = model->local->programIdsIfBuilt();
    auto localNameOf = [&](int pid) {
        return localIds && pid >= 0 && static_cast<size_t>(pid) < localIds->values().size()
                   ? localIds->values()[static_cast<size_t>(pid)].name
                   : nameOf(pid);
    };

    // The values in the bodies of the manual computations of the global program (JAX's shard_map): the global run
    // has them per device (ValRecorder::findManual), as the per-device program does once the body is inlined.
    struct ValManualValue {
        const ir::Value* value = nullptr; ///< in the global program run
        const ir::Op* computation = nullptr;
    };
    std::unordered_map<int, ValManualValue> manualById;
    std::unordered_map<const ir::Op*, std::vector<int64_t>> manualInstances;
    // The partial values among them in the program before convert-global-to-local (an op contracting a dimension
    // split along a free axis, before the all_reduce the partitioner adds), with why.
    std::unordered_map<int, std::string> manualPartial;
    auto forEachManualBodyValue = [](const ir::Op& func, auto&& f) {
        for (const auto& opPtr : func.region(0).front().ops())
            if (opPtr->name() == "sdy.manual_computation" && opPtr->numRegions() == 1 && !opPtr->region(0).empty())
                for (const auto& inner : opPtr->region(0).front().ops())
                    for (unsigned r = 0; r < inner->numResults(); ++r)
                        if (inner->result(r)->programId >= 0)
                            f(*opPtr, *inner->result(r));
    };
    if (options.intermediates) {
        forEachManualBodyValue(*globalFunc, [&](const ir::Op& mc, const ir::Value& v) {
            if (!manualInstances.count(&mc))
                manualInstances[&mc] = valManualInstances(*work, mc, numDevices);
            manualById[v.programId] = ValManualValue{&v, &mc};
        });
        forEachManualBodyValue(*preFunc, [&](const ir::Op&, const ir::Value& v) {
            for (const ir::Use& u : v.uses())
                if (u.user->name() == "sdy.all_reduce" || u.user->name() == "sdy.reduce_scatter")
                    manualPartial[v.programId] =
                        "a partial result, reduced across devices by the " + u.user->name() + " after it";
            if (const TensorSharding* sh = ir::shardingOfValue(&v); sh && !sh->unreduced.empty())
                manualPartial[v.programId] = "a partial value (unreduced axes)";
        });
    }

    if (options.intermediates) {
        for (unsigned a = 0; a < localBody.numArgs(); ++a) {
            ValueComparison row;
            row.kind = ValueComparison::Kind::Argument;
            row.order = a;
            const ir::Value* arg = localBody.arg(a);
            row.name = row.globalName = arg->programId >= 0 ? nameOf(arg->programId) : "%arg" + std::to_string(a);
            row.globalValue =
                arg->programId >= 0 && static_cast<size_t>(arg->programId) < userValues ? arg->programId : -1;
            row.pos = valPos(module, arg->pos().isKnown() ? arg->pos() : globalFunc->pos);
            const TensorSharding* s = ir::funcArgSharding(*preFunc, a);
            const std::string why =
                valCompare(inputs[a], s, meshFor(s), perDevice([&](size_t d) { return &deviceArgs[d][a]; }), row);
            if (!why.empty())
                report.skipped.push_back(row.name + ": " + why);
            else
                report.arguments.push_back(std::move(row));
        }
        int64_t position = 0;
        for (const auto& opPtr : localBody.ops()) {
            const ir::Op& op = *opPtr;
            ++position;
            for (unsigned r = 0; r < op.numResults(); ++r) {
                const ir::Value* v = op.result(r);
                if (v->programId < 0)
                    continue;
                auto it = info.find(v->programId);
                if (auto m = manualById.find(v->programId); it == info.end() && m != manualById.end()) {
                    // A value of a manual computation's body: compared per device.
                    if (auto partial = manualPartial.find(v->programId); partial != manualPartial.end()) {
                        report.skipped.push_back(localNameOf(v->programId) + ": " + partial->second);
                        continue;
                    }
                    const std::vector<int64_t>& instanceOf = manualInstances[m->second.computation];
                    ValueComparison row;
                    row.kind = ValueComparison::Kind::Intermediate;
                    row.order = static_cast<int64_t>(numArgs) + position;
                    row.name = localNameOf(v->programId);
                    row.globalName = nameOf(v->programId);
                    row.globalValue = static_cast<size_t>(v->programId) < userValues ? v->programId : -1;
                    row.opName = op.name();
                    row.pos = valPos(module, op.pos);
                    const SourcePos mp = valPos(module, m->second.computation->pos);
                    row.sharding = "per device (body of the sdy.manual_computation at " + std::to_string(mp.line) +
                                   ":" + std::to_string(mp.col) + ")";
                    const std::string why = valCompareManual(
                        perDevice([&](size_t d) { return globalValues.findManual(instanceOf[d], m->second.value); }),
                        perDevice([&](size_t d) { return localValues.find(d, v); }), row);
                    if (!why.empty())
                        report.skipped.push_back(row.name + ": " + why);
                    else
                        report.intermediates.push_back(std::move(row));
                    continue;
                }
                if (it == info.end() || it->second.logical < 0)
                    continue; // made by the partitioner (offsets, masks): no global counterpart
                const std::string name = localNameOf(v->programId);
                if (it->second.partial) {
                    report.skipped.push_back(name + ": " + it->second.why);
                    continue;
                }
                auto g = globalById.find(it->second.logical);
                if (g == globalById.end())
                    continue;
                ValueComparison row;
                row.kind = ValueComparison::Kind::Intermediate;
                row.order = static_cast<int64_t>(numArgs) + position;
                row.name = name;
                row.globalName = nameOf(it->second.logical);
                row.globalValue = it->second.logical;
                row.opName = op.name();
                row.pos = valPos(module, op.pos);
                const TensorSharding* s = it->second.sharding;
                const std::string why = valCompare(*g->second, s, meshFor(s),
                                                   perDevice([&](size_t d) { return localValues.find(d, v); }), row);
                if (!why.empty())
                    report.skipped.push_back(name + ": " + why);
                else
                    report.intermediates.push_back(std::move(row));
            }
        }
    }
    for (size_t r = 0; r < numResults && r < globalResults->size(); ++r) {
        ValueComparison row;
        row.kind = ValueComparison::Kind::Result;
        row.order = static_cast<int64_t>(numArgs) + numOps + 1 + static_cast<int64_t>(r);
        row.name = row.globalName = "result " + std::to_string(r);
        // Where the user's program computes it: the op defining the returned value.
        const ir::Op& ret = *globalFunc->region(0).front().ops().back();
        const ir::Value* returned = r < ret.numOperands() ? ret.operand(static_cast<unsigned>(r)) : nullptr;
        const ir::Op* def = returned ? returned->definingOp() : nullptr;
        row.globalValue = returned && returned->programId >= 0 && static_cast<size_t>(returned->programId) < userValues
                              ? returned->programId
                              : -1;
        row.pos = valPos(module, def ? def->pos : globalFunc->pos);
        row.opName = def ? def->name() : std::string();
        const TensorSharding* s = ir::funcResultSharding(*preFunc, static_cast<unsigned>(r));
        const std::string why =
            valCompare((*globalResults)[r], s, meshFor(s),
                       perDevice([&](size_t d) { return &(*localResults)[d * numResults + r]; }), row);
        if (!why.empty())
            return Error{"result " + std::to_string(r) + " cannot be compared: " + why, {}};
        report.results.push_back(std::move(row));
    }

    // The first divergence in program order.
    const ValueComparison* first = nullptr;
    for (const auto* list : {&report.arguments, &report.intermediates, &report.results})
        for (const ValueComparison& row : *list)
            if (!row.matches() && (!first || row.order < first->order))
                first = &row;
    if (first)
        report.firstDivergence = valDivergenceOf(*first);
    return report;
}

} // namespace shardx::exec
