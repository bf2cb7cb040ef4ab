// -sdy-convert-global-to-local (PARTITION.md 7): the driver, the building blocks, functions,
// manual and named computations, constants and generic localization.
#include <algorithm>

#include "core/ir/FuncOps.h"
#include "core/ir/ProgramIds.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/ir/StablehloAttrs.h"
#include "core/partition/GlobalToLocalInternal.h"
#include "core/partition/LocalOps.h"

namespace shardx::partition {

Converter::Converter(ir::Module& module, const GlobalToLocalOptions& options, DiagnosticList& diags)
    : m_module(module), m_options(options), m_diags(diags), m_meshes(module)
{}

const TensorSharding* Converter::sharding(const ir::Value* v) const
{
    auto it = m_shardings.find(v);
    return it == m_shardings.end() ? nullptr : it->second;
}

const TensorSharding* Converter::operandSharding(const ir::Op& op, unsigned i) const
{
    auto it = m_inlinedUses.find({&op, i});
    if (it != m_inlinedUses.end())
        return it->second ? &*it->second : nullptr;
    return sharding(op.operand(i));
}

const Mesh* Converter::meshOf(const TensorSharding& s) const { return m_meshes(s); }

const std::optional<stablehlo::DotDimensionNumbers>& Converter::dotDimensionNumbers(const ir::Op& dotGeneral)
{
    // Read from the attribute's text: the layers of a model write the same few.
    const ir::Attribute* a = dotGeneral.attr(stablehlo::kDotDimensionNumbersAttr);
    const ir::OpaqueAttr* o = a ? a->as<ir::OpaqueAttr>() : nullptr;
    const std::string& body = o ? o->body : std::string();
    auto it = m_dotDims.find(body);
    if (it == m_dotDims.end())
        it = m_dotDims.emplace(body, stablehlo::dotDimensionNumbers(dotGeneral)).first;
    return it->second;
}

bool Converter::fullyReplicated(const TensorSharding* s) { return !s || !s->hasDimAxes(); }

std::optional<ir::Type> Converter::localType(const ir::Type& t, const TensorSharding* s, const ir::Op& at)
{
    if (!s || !t.isRankedTensor() || s->dims.empty() || !meshOf(*s))
        return t;
    const Mesh& mesh = *meshOf(*s);
    std::vector<int64_t> shape = t.shape();
    for (size_t i = 0; i < shape.size() && i < s->dims.size(); ++i) {
        if (shape[i] == ir::Type::kDynamic)
            continue;
        const int64_t n = axesProduct(s->dims[i].axes, mesh);
        if (n <= 0 || shape[i] % n != 0) {
            fail(at, "dimension " + std::to_string(i) + " of " + t.toString() + " (size " + std::to_string(shape[i]) +
                         ") is not divisible by its " + std::to_string(n) +
                         " shards; run -sdy-pad-for-divisibility first");
            return std::nullopt;
        }
        shape[i] /= n;
    }
    return t.withShape(shape);
}

ir::Op* Converter::create(ir::Builder& b, const std::string& name, const std::vector<ir::Value*>& operands,
                          const std::vector<ir::Type>& types,
                          const std::vector<std::pair<std::string, ir::AttrPtr>>& props)
{
    ir::Op* op = b.create(name, operands, types);
    for (const auto& [key, value] : props)
        op->setProp(key, value);
    return op;
}

ir::Value* Converter::reshape(ir::Builder& b, ir::Value* v, const std::vector<int64_t>& shape)
{
    return create(b, "stablehlo.reshape", {v}, {v->type().withShape(shape)}, {})->result(0);
}

ir::Value* Converter::transpose(ir::Builder& b, ir::Value* v, const std::vector<int64_t>& perm)
{
    std::vector<int64_t> shape;
    for (int64_t p : perm)
        shape.push_back(v->type().dim(static_cast<int>(p)));
    return create(b, "stablehlo.transpose", {v}, {v->type().withShape(shape)},
                  {{"permutation", ir::denseI64ArrayAttr(perm)}})
        ->result(0);
}

ir::Value* Converter::deviceId(ir::Builder& b) { return currentDeviceId(b, m_options.replicaCount > 1); }

ir::Value* Converter::offset(ir::Builder& b, const Mesh& mesh, const AxisList& axes, int64_t localSize)
{
    ir::Value* id = deviceId(b);
    const int64_t n = mesh.totalSize();
    std::vector<int64_t> table(static_cast<size_t>(n));
    for (int64_t dev = 0; dev < n; ++dev)
        table[static_cast<size_t>(dev)] = shardIndex(dev, mesh, axes) * localSize;
    ir::Value* t = i64Table(b, table);
    ir::Value* one = create(b, "stablehlo.dynamic_slice", {t, id}, {ir::Type::tensor({1}, "i64")},
                            {{"slice_sizes", ir::denseI64ArrayAttr({1})}})
                         ->result(0);
    return reshape(b, one, {});
}

ir::Value* Converter::sliceByAxes(ir::Builder& b, ir::Value* x, const Mesh& mesh, const std::vector<AxisList>& axes,
                                  const ir::Type& local)
{
    std::vector<ir::Value*> operands = {x};
    for (size_t i = 0; i < axes.size(); ++i)
        operands.push_back(axes[i].empty() ? i64Scalar(b, 0)
                                           : offset(b, mesh, axes[i], local.dim(static_cast<int>(i))));
    return create(b, "stablehlo.dynamic_slice", operands, {local},
                  {{"slice_sizes", ir::denseI64ArrayAttr(local.shape())}})
        ->result(0);
}

ir::AttrPtr Converter::replicaGroups(const Mesh& mesh, const MeshRef& ref, const AxisList& axes, int64_t& groupSize)
{
    groupSize = axesProduct(axes, mesh);
    const bool subAxes = std::any_of(axes.begin(), axes.end(), [](const AxisRef& a) { return a.isSubAxis(); });
    if (m_options.enableRgv3 && !subAxes) {
        std::string text = "#stablehlo.replica_group_mesh_axes<mesh = " + ref.toString() + ", axes = [";
        for (size_t i = 0; i < axes.size(); ++i)
            text += (i ? ", " : "") + std::string("#stablehlo.axis_ref<name = \"") + axes[i].name + "\">";
        return attr(text + "]>");
    }
    // The same axis list gives the same attribute (attributes are immutable and shared).
    for (const auto& [m, list, a] : m_groupAttrs)
        if (list == axes && m == mesh)
            return a;
    const std::vector<std::vector<int64_t>>& groups = m_groups.get(mesh, axes);
    std::vector<int64_t> flat;
    for (const auto& g : groups)
        flat.insert(flat.end(), g.begin(), g.end());
    ir::AttrPtr a = attr(i64DenseText(flat, {static_cast<int64_t>(groups.size()), groupSize}));
    m_groupAttrs.emplace_back(mesh, axes, a);
    return a;
}

ir::AttrPtr Converter::nextChannel()
{
    return attr("#stablehlo.channel_handle<handle = " + std::to_string(m_nextChannel++) + ", type = 1>");
}

void Converter::addReductionRegion(ir::Op& op, const std::string& elementType, ReductionKind kind)
{
    ir::Builder b;
    const ir::Type scalar = ir::Type::tensor({}, elementType);
    ir::Block& block = b.createBlock(*op.addRegion(), {scalar, scalar});
    const char* name = kind == ReductionKind::Max   ? "stablehlo.maximum"
                       : kind == ReductionKind::Min ? "stablehlo.minimum"
                                                    : "stablehlo.add";
    ir::Value* r = b.createValue(name, {block.arg(0), block.arg(1)}, scalar);
    b.create("stablehlo.return", {r}, {});
}

void Converter::replace(ir::Op* old, ir::Value* with)
{
    if (const TensorSharding* s = sharding(old->result(0)))
        m_shardings[with] = s;
    // The StableHLO collective that stands for an sdy one takes over its name (validation follows it).
    if (ir::ProgramIds* ids = m_module.programIdsIfBuilt(); ids && with->definingOp())
        ids->noteReplaced(*with, *old->result(0));
    old->result(0)->replaceAllUsesWith(with);
    old->dropAllReferences();
    old->erase();
}

bool Converter::localizeResults(ir::Op& op)
{
    for (unsigned i = 0; i < op.numResults(); ++i) {
        ir::Value* r = op.result(i);
        std::optional<ir::Type> t = localType(r->type(), sharding(r), op);
        if (!t)
            return false;
        r->setType(*t);
    }
    return true;
}

bool Converter::fail(const ir::Op& op, const std::string& message)
{
    m_diags.error(op.pos, message);
    return false;
}

bool Converter::checkReducedBy(ir::Op& op, const AxisList& axes, const Mesh& mesh, bool sorted)
{
    const ir::Value* r = op.result(0);
    const ir::Op* user = r->hasOneUse() ? r->uses().front().user : nullptr;
    const std::vector<AxisRef>* reduced =
        user && user->name() == "sdy.all_reduce" ? ir::collectiveAxisList(*user) : nullptr;
    const AxisList want = sorted ? sortAndMerge(axes, mesh) : axes;
    if (!reduced || *reduced != want)
        return fail(op, "this op contracts a dimension sharded on " + axisListString(axes) +
                            ": its only user must be an sdy.all_reduce over exactly those axes");
    return true;
}

// ---- functions, computations, constants --------------------------------------------------------

bool Converter::func(ir::Op* op)
{
    const ir::Type type = ir::funcType(*op);
    std::vector<ir::Type> inputs, results;
    for (unsigned i = 0; i < type.elements().size(); ++i) {
        std::optional<ir::Type> t = localType(type.elements()[i], ir::funcArgSharding(*op, i), *op);
        if (!t)
            return false;
        inputs.push_back(*t);
    }
    for (unsigned i = 0; i < type.results().size(); ++i) {
        std::optional<ir::Type> t = localType(type.results()[i], ir::funcResultSharding(*op, i), *op);
        if (!t)
            return false;
        results.push_back(*t);
    }
    ir::setFuncType(*op, ir::Type::function(inputs, results));
    if (op->numRegions() && !op->region(0).empty()) {
        ir::Block& entry = op->region(0).front();
        for (unsigned i = 0; i < entry.numArgs() && i < inputs.size(); ++i)
            entry.arg(i)->setType(inputs[i]);
    }
    return true;
}

bool Converter::manualComputation(ir::Op* op)
{
    if (!op->numRegions() || op->region(0).empty())
        return fail(*op, "sdy.manual_computation without a body");
    ir::Block& body = op->region(0).front();
    // The body is the per-device code already (for the manual axes): move it in place of the op.
    // The body's ops keep seeing the arguments' shardings (their view without the manual axes)
    // when they are converted after the inlining.
    for (unsigned i = 0; i < body.numArgs() && i < op->numOperands(); ++i) {
        const TensorSharding* s = sharding(body.arg(i));
        for (const ir::Use& u : body.arg(i)->uses())
            m_inlinedUses[{u.user, u.index}] = s ? std::optional<TensorSharding>(*s) : std::nullopt;
        body.arg(i)->replaceAllUsesWith(op->operand(i));
    }
    ir::Op* ret = body.terminator();
    if (!ret || ret->name() != "sdy.return" || ret->numOperands() != op->numResults())
        return fail(*op, "the body of this sdy.manual_computation does not end with an sdy.return of its results");
    ir::Block* block = op->parentBlock();
    while (body.ops().front().get() != ret) {
        std::unique_ptr<ir::Op> moved = body.remove(body.ops().front().get());
        block->insertBefore(op, std::move(moved));
    }
    // Likewise the users of the results keep seeing the out_shardings.
    for (unsigned i = 0; i < op->numResults(); ++i) {
        const TensorSharding* s = sharding(op->result(i));
        for (const ir::Use& u : op->result(i)->uses())
            m_inlinedUses[{u.user, u.index}] = s ? std::optional<TensorSharding>(*s) : std::nullopt;
        op->result(i)->replaceAllUsesWith(ret->operand(i));
    }
    ret->dropAllReferences();
    m_erased.insert(ret);
    ret->erase();
    op->dropAllReferences();
    op->erase();
    return true;
}

bool Converter::namedComputation(ir::Op* op)
{
    if (!localizeResults(*op))
        return false;
    if (!op->numRegions() || op->region(0).empty())
        return true;
    ir::Block& body = op->region(0).front();
    for (unsigned i = 0; i < body.numArgs(); ++i) {
        std::optional<ir::Type> t = localType(body.arg(i)->type(), sharding(body.arg(i)), *op);
        if (!t)
            return false;
        body.arg(i)->setType(*t);
    }
    return true;
}

namespace {

/// The axes of each dimension of `s` (none for a replicated value).
std::vector<AxisList> g2lDimAxes(const TensorSharding* s)
{
    std::vector<AxisList> axes;
    if (s)
        for (const DimSharding& d : s->dims)
            axes.push_back(d.axes);
    return axes;
}

} // namespace

// A while's loop-carried value i is one value with one sharding, the op's result sharding S_i: the operand and
// the body's return operand were resharded to S_i (insert-explicit-reshards, SDY.md 4.9), so each device enters
// and leaves an iteration with its S_i shard. Shardy leaves the cond and body arguments global (PARTITION.md
// 7.8.6: a sharded loop-carried value is not supported), which makes the local loop ill-typed. The passes before
// this one read those arguments as unsharded (ShardingAccess gives a while's block argument no sharding), so the
// ops of the regions expect the whole value: the arguments get their local type under S_i and are gathered back
// to the whole value at the start of each region. An sdy.all_slice of an argument to exactly S_i (the reshard the
// body's first use of the argument got) takes the local argument as it is instead of gathering and slicing.
bool Converter::whileLoop(ir::Op* op)
{
    if (!localizeResults(*op))
        return false;
    for (unsigned r = 0; r < op->numRegions(); ++r) {
        if (op->region(r).empty())
            continue;
        ir::Block& block = op->region(r).front();
        for (unsigned i = 0; i < block.numArgs() && i < op->numResults(); ++i) {
            const TensorSharding* s = sharding(op->result(i));
            ir::Value* arg = block.arg(i);
            if (fullyReplicated(s) || !arg->type().isRankedTensor())
                continue;
            const Mesh* mesh = meshOf(*s);
            if (!mesh)
                return fail(*op, "the mesh of the sharding of this while's result " + std::to_string(i) +
                                     " cannot be found");
            std::optional<ir::Type> local = localType(arg->type(), s, *op);
            if (!local)
                return false;
            arg->setType(*local);
            m_shardings[arg] = s;
            const std::vector<AxisList> axes = g2lDimAxes(s);
            std::vector<ir::Use> wholeUses;
            std::vector<ir::Op*> slices;
            for (const ir::Use& u : arg->uses()) {
                const TensorSharding* out = u.user->name() == "sdy.all_slice" ? ir::outSharding(*u.user) : nullptr;
                bool same = out && out->mesh == s->mesh && out->dims.size() == axes.size();
                for (size_t d = 0; same && d < axes.size(); ++d)
                    same = out->dims[d].axes == axes[d];
                if (same)
                    slices.push_back(u.user);
                else
                    wholeUses.push_back(u);
            }
            for (ir::Op* slice : slices) {
                slice->result(0)->replaceAllUsesWith(arg);
                slice->dropAllReferences();
                m_erased.insert(slice);
                slice->erase();
            }
            if (wholeUses.empty())
                continue;
            ir::Builder b;
            b.setInsertionPointToStart(block);
            b.setLocationOf(*op);
            std::vector<std::pair<ir::Op*, AxisList>> created;
            ir::Value* whole = gatherAxes(b, arg, *mesh, s->mesh, axes, &created);
            reportAdded(created, op, AddedCollective::Reason::LoopArgument, r, i, *mesh, s->toString(), "<replicated>");
            for (const ir::Use& u : wholeUses)
                u.user->setOperand(u.index, whole);
        }
    }
    return true;
}

void Converter::reportAdded(const std::vector<std::pair<ir::Op*, AxisList>>& created, ir::Op* owner,
                            AddedCollective::Reason reason, unsigned region, unsigned index, const Mesh& mesh,
                            const std::string& from, const std::string& to)
{
    if (!m_options.added)
        return;
    for (const auto& [gather, axes] : created) {
        AddedCollective c;
        c.op = gather;
        c.owner = owner;
        c.reason = reason;
        c.region = region;
        c.index = index;
        c.axes = axes;
        c.replicaGroups = m_groups.get(mesh, axes);
        c.from = from;
        c.to = to;
        m_options.added->push_back(std::move(c));
    }
}

// The value a branch of a case or if, or a while body, returns as result j of its op must be laid out as that
// result (its local type is the result's). Propagation gives an `if` no data-flow edges, so nothing reshards its
// branches' results: a branch may compute a sharded value the op returns unsharded (or the other way round).
// The value is made whole (all-gathered) where it is sharded and then sliced to the result's sharding. The
// predicate of a user's case or if is a scalar, the same on every device, so every device of a group runs the
// gather; the single-device ifs of -sdy-resolve-single-device-sharding return unsharded values to unsharded
// results and get nothing.
bool Converter::regionReturn(ir::Op* op)
{
    const ir::Op* parent = op->parentOp();
    if (!parent)
        return true;
    const std::string& name = parent->name();
    const bool whileBody = name == "stablehlo.while" && parent->numRegions() > 1 && !parent->region(1).empty() &&
                           op->parentBlock() == &parent->region(1).front();
    if (!whileBody && name != "stablehlo.case" && name != "stablehlo.if")
        return true;
    for (unsigned j = 0; j < op->numOperands() && j < parent->numResults(); ++j) {
        const TensorSharding* from = fullyReplicated(operandSharding(*op, j)) ? nullptr : operandSharding(*op, j);
        const TensorSharding* to = fullyReplicated(sharding(parent->result(j))) ? nullptr : sharding(parent->result(j));
        ir::Value* v = op->operand(j);
        if (!v->type().isRankedTensor() || (!from && !to) ||
            (from && to && from->mesh == to->mesh && g2lDimAxes(from) == g2lDimAxes(to)))
            continue;
        const Mesh* fromMesh = from ? meshOf(*from) : nullptr;
        const Mesh* toMesh = to ? meshOf(*to) : nullptr;
        if ((from && !fromMesh) || (to && !toMesh))
            return fail(*op, "the mesh of the sharding of operand " + std::to_string(j) +
                                 " or of the result it "
                                 "returns cannot be found");
        ir::Builder b;
        b.setInsertionPoint(*op);
        b.setLocationOf(*op);
        if (from) {
            std::vector<std::pair<ir::Op*, AxisList>> created;
            v = gatherAxes(b, v, *fromMesh, from->mesh, g2lDimAxes(from), &created);
            unsigned region = 0;
            while (region + 1 < parent->numRegions() && &parent->region(region) != op->parentBlock()->parentRegion())
                ++region;
            reportAdded(created, const_cast<ir::Op*>(parent), AddedCollective::Reason::RegionReturn, region, j,
                        *fromMesh, from->toString(), to ? to->toString() : std::string("<replicated>"));
        }
        if (to) {
            std::optional<ir::Type> local = localType(v->type(), to, *op);
            if (!local)
                return false;
            v = sliceByAxes(b, v, *toMesh, g2lDimAxes(to), *local);
        }
        op->setOperand(j, v);
    }
    return true;
}

bool Converter::constant(ir::Op* op)
{
    ir::Value* result = op->result(0);
    const ir::Type global = result->type();
    const TensorSharding* s = sharding(result);
    std::optional<ir::Type> local = localType(global, s, *op);
    if (!local)
        return false;
    const ir::Attribute* value = op->attr("value");
    const ir::DenseElementsAttr* dense = value ? std::get_if<ir::DenseElementsAttr>(&value->payload()) : nullptr;
    ir::Builder b;
    b.setInsertionPoint(*op);
    b.setLocationOf(*op);
    ir::Value* replacement = nullptr;
    if (*local == global) {
        replacement = b.createConstant(op->attrPtr("value"));
    } else if (dense && dense->splat) {
        ir::DenseElementsAttr localValue = *dense;
        localValue.type = *local;
        replacement = b.createConstant(ir::makeAttr(localValue));
    } else {
        const Mesh* mesh = meshOf(*s);
        if (!mesh)
            return fail(*op, "the mesh of this constant's sharding cannot be found");
        ir::Value* whole = b.createConstant(op->attrPtr("value"));
        std::vector<AxisList> axes;
        for (const DimSharding& d : s->dims)
            axes.push_back(d.axes);
        replacement = sliceByAxes(b, whole, *mesh, axes, *local);
    }
    replace(op, replacement);
    return true;
}

// ---- the driver ----------------------------------------------------------------------------------

bool Converter::convert(ir::Op* op)
{
    // The ops with a rewrite of their own, by interned name (one pointer comparison each: this runs
    // for every op of the program).
    using Handler = bool (Converter::*)(ir::Op*);
    static const std::vector<std::pair<ir::OperationName, Handler>> kHandlers = [] {
        std::vector<std::pair<ir::OperationName, Handler>> t;
        auto add = [&](const char* n, Handler h) { t.emplace_back(ir::OperationName(n), h); };
        add("func.func", &Converter::func);
        add("func.return", &Converter::keep);
        add("func.call", &Converter::localizeResultsOf);
        add("sdy.all_gather", &Converter::allGather);
        add("sdy.all_slice", &Converter::allSlice);
        add("sdy.all_reduce", &Converter::allReduce);
        add("sdy.reduce_scatter", &Converter::reduceScatter);
        add("sdy.all_to_all", &Converter::allToAll);
        add("sdy.collective_permute", &Converter::collectivePermute);
        add("sdy.constant", &Converter::constant);
        add("sdy.manual_computation", &Converter::manualComputation);
        add("sdy.named_computation", &Converter::namedComputation);
        add("stablehlo.while", &Converter::whileLoop);
        add("stablehlo.return", &Converter::regionReturn);
        add("sdy.return", &Converter::keep);
        add("stablehlo.dot", &Converter::dot);
        add("stablehlo.dot_general", &Converter::dot);
        add("stablehlo.convolution", &Converter::convolution);
        add("stablehlo.concatenate", &Converter::concatenate);
        add("stablehlo.slice", &Converter::slice);
        add("stablehlo.pad", &Converter::pad);
        add("stablehlo.iota", &Converter::iota);
        add("stablehlo.reduce_window", &Converter::windowed);
        add("stablehlo.select_and_scatter", &Converter::windowed);
        add("stablehlo.gather", &Converter::gather);
        add("stablehlo.scatter", &Converter::scatter);
        return t;
    }();
    const ir::OperationName opName = op->opName();
    for (const auto& [n, handler] : kHandlers)
        if (n == opName)
            return (this->*handler)(op);
    const std::string& name = op->name();
    if (name.rfind("sdy.", 0) == 0)
        return fail(*op, "'" + name +
                             "' has no per-device form: the partitioner passes before -sdy-convert-global-to-local "
                             "must have removed it");
    if (name.rfind("func.", 0) == 0)
        return fail(*op, "'" + name + "' has no per-device form");
    return localizeResults(*op);
}

bool Converter::run()
{
    if (m_options.replicaCount > 1 && m_options.partitionCount > 1)
        return fail(m_module.op(), "replica-count and partition-count cannot both be greater than 1");
    // Every op in pre-order, the sharding every value has before anything changes (the attributes that hold
    // them kept alive) and the largest channel handle.
    int64_t largestChannel = channelHandleOf(m_module.op());
    std::vector<ir::Op*> ops;
    auto keepAttrs = [&](const ir::Op& op) {
        for (const ir::NamedAttrList* list : {&op.props(), &op.attrs()})
            for (const ir::NamedAttribute& na : *list)
                m_keptAttrs.push_back(na.value);
    };
    for (const std::unique_ptr<ir::Op>& top : m_module.body().ops()) {
        if (top->name() == "sdy.mesh") {
            largestChannel = std::max(largestChannel, channelHandleOf(*top));
            continue;
        }
        top->walk([&](ir::Op* op) {
            ops.push_back(op);
            largestChannel = std::max(largestChannel, channelHandleOf(*op));
            bool kept = false;
            for (unsigned i = 0; i < op->numResults(); ++i)
                if (const TensorSharding* s = ir::shardingOfValue(op->result(i))) {
                    m_shardings[op->result(i)] = s;
                    if (!kept)
                        keepAttrs(*op);
                    kept = true;
                }
            if (op->name() == "func.func" && op->numRegions() && !op->region(0).empty()) {
                ir::Block& entry = op->region(0).front();
                for (unsigned i = 0; i < entry.numArgs(); ++i)
                    if (const TensorSharding* s = ir::funcArgSharding(*op, i)) {
                        m_shardings[entry.arg(i)] = s;
                        if (!kept)
                            keepAttrs(*op);
                        kept = true;
                    }
            }
            const bool manual = op->name() == "sdy.manual_computation";
            if ((manual || op->name() == "sdy.named_computation") && op->numRegions() && !op->region(0).empty()) {
                const ShardingPerValue* in = ir::inShardings(*op);
                ir::Block& body = op->region(0).front();
                static const std::vector<std::string> kNone;
                const std::vector<std::string>* manualAxes = manual ? ir::manualAxes(*op) : nullptr;
                for (unsigned i = 0; in && i < body.numArgs() && i < in->shardings.size(); ++i)
                    m_shardings[body.arg(i)] = &m_ownShardings.emplace_back(
                        withoutManualAxes(in->shardings[i], manualAxes ? *manualAxes : kNone));
            }
        });
    }
    m_nextChannel = largestChannel + 1;
    for (ir::Op* op : ops) {
        if (m_erased.count(op))
            continue; // erased by the rewrite of an op before it
        if (!convert(op))
            return false;
        // A converted op may be gone; an op created later at its address must not inherit them.
        auto it = m_inlinedUses.lower_bound({op, 0});
        while (it != m_inlinedUses.end() && it->first.first == op)
            it = m_inlinedUses.erase(it);
    }
    return true;
}

} // namespace shardx::partition

namespace shardx {

bool convertGlobalToLocal(ir::Module& module, const GlobalToLocalOptions& options, DiagnosticList& diags)
{
    partition::Converter converter(module, options, diags);
    return converter.run();
}

} // namespace shardx
