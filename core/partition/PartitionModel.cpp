// PartitionModel: the partitioner run for users, with collectives, bytes, causes and memory.
#include "core/partition/PartitionModel.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "core/io/MlirPrinter.h"
#include "core/ir/FuncOps.h"
#include "core/ir/ProgramIds.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/ir/StablehloAttrs.h"
#include "core/mesh/DeviceLayout.h"
#include "core/partition/ExplicitReshards.h"
#include "core/partition/LocalOps.h"
#include "core/partition/PartitionPasses.h"
#include "core/partition/ReshardToCollectives.h"
#include "core/propagation/DataFlowEdgePasses.h"
#include "core/propagation/PipelineSteps.h"
#include "core/sharding/LocalShape.h"

namespace shardx {

const AxisLink& CostModel::link(const std::string& axis) const
{
    auto it = perAxis.find(axis);
    return it == perAxis.end() ? defaults : it->second;
}

namespace {

constexpr char kCauseAttr[] = "shardx.cause";

/// The ops partitioning inserts: the six sdy collectives first, then the rest.
const ir::OperationName* insertedOpNames()
{
    static const ir::OperationName kNames[] = {ir::OperationName("sdy.all_gather"),
                                               ir::OperationName("sdy.all_slice"),
                                               ir::OperationName("sdy.all_reduce"),
                                               ir::OperationName("sdy.reduce_scatter"),
                                               ir::OperationName("sdy.all_to_all"),
                                               ir::OperationName("sdy.collective_permute"),
                                               ir::OperationName("sdy.reshard"),
                                               ir::OperationName("sdy.sharded_to_unreduced"),
                                               ir::OperationName("sdy.replicated_to_unreduced")};
    return kNames;
}
constexpr int kCollectiveNames = 6, kInsertedNames = 9;
/// Names compared as interned pointers: the walks ask for every op of the module.
bool isCollectiveName(const ir::OperationName& n)
{
    const ir::OperationName* names = insertedOpNames();
    return std::find(names, names + kCollectiveNames, n) != names + kCollectiveNames;
}
bool isInserted(const ir::OperationName& n)
{
    const ir::OperationName* names = insertedOpNames();
    return std::find(names, names + kInsertedNames, n) != names + kInsertedNames;
}

/// Why an inserted reshard or collective is there.
struct Cause {
    ir::Op* op = nullptr; ///< the user's op that needs it
    std::string sentence;
    std::string from, to;
    int fromValue = -1, toValue = -1; ///< ProgramIds value indices of the two sides
};

std::string shardingText(const TensorSharding* s) { return s ? s->toString() : std::string("<replicated>"); }

int64_t elementBytes(const std::string& elementType)
{
    const int bits = ir::elementBitWidth(elementType);
    return bits <= 0 ? 0 : (bits + 7) / 8;
}

std::vector<int64_t> localShape(const ir::Module& module, const ir::Type& t, const TensorSharding* s)
{
    std::vector<int64_t> shape = t.isRankedTensor() ? t.shape() : std::vector<int64_t>{};
    const Mesh* mesh = s ? ir::meshOf(module, *s) : nullptr;
    for (size_t d = 0; mesh && d < shape.size() && d < s->dims.size(); ++d) {
        const int64_t n = axesProduct(s->dims[d].axes, *mesh);
        if (shape[d] > 0 && n > 1)
            shape[d] = (shape[d] + n - 1) / n;
    }
    return shape;
}

int64_t product(const std::vector<int64_t>& shape)
{
    int64_t p = 1;
    for (int64_t d : shape)
        p *= std::max<int64_t>(d, 0);
    return p;
}

class ModelBuilder {
public:
    ModelBuilder(ir::Module& module, const PartitionOptions& options) : m_module(module), m_options(options) {}

    /// Tags every inserted reshard or collective that has no cause yet with one.
    void tagCauses(const std::string& stage)
    {
        for (ir::Op* func : m_module.funcs())
            func->walk([&](ir::Op* op) {
                if (!isInserted(op->opName()) || op->attr(kCauseAttr))
                    return;
                m_causes.push_back(causeOf(op, stage));
                op->setDiscardable(kCauseAttr, ir::integerAttr(static_cast<int64_t>(m_causes.size() - 1), "i64"));
            });
    }

    /// Tags every sharding constraint: the user asked for that sharding there.
    void tagConstraints()
    {
        for (ir::Op* func : m_module.funcs())
            func->walk([&](ir::Op* op) {
                if (op->name() != "sdy.sharding_constraint")
                    return;
                Cause c;
                c.op = op;
                c.from = shardingText(ir::shardingOfValue(op->operand(0)));
                c.to = shardingText(ir::opSharding(*op));
                c.sentence = "the sharding constraint " + opDisplayName(op) + " asks for " + c.to +
                             " where the value is " + c.from;
                c.fromValue = valueId(op->operand(0));
                c.toValue = valueId(op->result(0));
                m_causes.push_back(c);
                op->setDiscardable(kCauseAttr, ir::integerAttr(static_cast<int64_t>(m_causes.size() - 1), "i64"));
            });
    }

    /// Describes every sdy collective of the (global) module.
    void collect(PartitionModel& model)
    {
        for (ir::Op* func : m_module.funcs())
            func->walk([&](ir::Op* op) {
                if (isCollectiveName(op->opName()))
                    model.collectives.push_back(describe(*op));
                else if (std::optional<CollectiveInfo> written = describeWritten(*op))
                    model.collectives.push_back(std::move(*written));
            });
    }

    /// The collectives convert-global-to-local made of its own (`added`, those still in the per-device program
    /// `local`): the gathers of while loops' carried values and of regions' return operands.
    void collectAdded(PartitionModel& model, const std::vector<AddedCollective>& added, ir::Module& local)
    {
        if (added.empty())
            return;
        // Which of the ops the list names the program still has (a later rewrite may have erased one).
        std::unordered_set<const ir::Op*> named, alive;
        for (const AddedCollective& c : added) {
            named.insert(c.op);
            named.insert(c.owner);
        }
        local.op().walk([&](ir::Op* op) {
            if (named.count(op))
                alive.insert(op);
        });
        for (const AddedCollective& c : added)
            if (alive.count(c.op) && alive.count(c.owner))
                model.collectives.push_back(describeAdded(c));
    }

    std::string opDisplayName(ir::Op* op)
    {
        if (!op)
            return {};
        const int idx = m_module.programIds().opOf(op);
        return idx < 0 ? op->name() : m_module.programIds().ops()[static_cast<size_t>(idx)].name;
    }

private:
    int valueId(ir::Value* v) { return v ? m_module.programIds().valueOf(v) : -1; }

    Cause causeOf(ir::Op* op, const std::string& stage)
    {
        // The chain of inserted ops this one belongs to: its root value and first real user.
        ir::Value* root = op->operand(0);
        while (root->definingOp() && isInserted(root->definingOp()->opName()))
            root = root->definingOp()->operand(0);
        ir::Op* producer = root->definingOp();
        ir::Op* consumer = nullptr;
        unsigned consumerOperand = 0;
        for (ir::Value* v = op->result(0); v && !consumer;) {
            if (v->uses().empty())
                break;
            const ir::Use& u = v->uses().front();
            if (isInserted(u.user->opName()))
                v = u.user->result(0);
            else {
                consumer = u.user;
                consumerOperand = u.index;
            }
        }
        Cause c;
        c.from = shardingText(ir::shardingOfValue(op->operand(0)));
        c.to = shardingText(ir::shardingOfValue(op->result(0)));
        c.fromValue = valueId(root);
        std::string rootName = "an argument";
        if (!root->isBlockArgument())
            rootName = opDisplayName(producer) + " (" + producer->name() + ")";
        else if (c.fromValue >= 0)
            rootName = "the argument " + m_module.programIds().values()[static_cast<size_t>(c.fromValue)].name;
        if (op->name() == "sdy.all_reduce" && producer && !isInserted(producer->opName())) {
            c.op = producer;
            c.fromValue = producer->numOperands() ? valueId(producer->operand(0)) : -1;
            if (producer->numOperands())
                c.from = shardingText(ir::shardingOfValue(producer->operand(0)));
            c.toValue = valueId(root);
            const std::vector<AxisRef>* axes = ir::collectiveAxisList(*op);
            c.sentence = opDisplayName(producer) + " (" + producer->name() +
                         ") contracts or reduces a dimension sharded on " +
                         axisListString(axes ? *axes : std::vector<AxisRef>{}) +
                         ": each device holds a partial result, summed across those axes";
            return c;
        }
        if (consumer && consumer->name() == "func.return") {
            ir::Op* func = consumer->parentOp();
            while (func && func->name() != "func.func")
                func = func->parentOp();
            if (func && consumer->parentOp() == func)
                c.toValue = m_module.programIds().funcResultOf(func, static_cast<int>(consumerOperand));
        } else if (consumer && consumer->numResults()) {
            c.toValue = valueId(consumer->result(0));
        }
        if (stage == "permutation" && consumer) {
            c.op = consumer;
            c.sentence = "operand " + std::to_string(consumerOperand) + " of " + opDisplayName(consumer) + " (" +
                         consumer->name() +
                         ") is sharded along a dimension it shifts, windows or reverses; shards would "
                         "need their neighbours' data, so that dimension is replicated around it";
            return c;
        }
        if (consumer && consumer->name() != "func.return") {
            c.op = consumer;
            c.sentence = "operand " + std::to_string(consumerOperand) + " of " + opDisplayName(consumer) + " (" +
                         consumer->name() + ") is " + c.from + " but the op needs " + c.to +
                         " to compute locally; it " + "comes from " + rootName;
            return c;
        }
        c.op = producer;
        c.sentence = consumer ? "the function returns " + rootName + " as " + c.to + " but it is computed as " + c.from
                              : rootName + " is computed as " + c.from + " but used as " + c.to;
        return c;
    }

    CollectiveInfo describe(ir::Op& op)
    {
        CollectiveInfo info;
        const std::string& n = op.name();
        info.kind = n.substr(4);
        std::replace(info.kind.begin(), info.kind.end(), '_', '-');
        const TensorSharding* in = ir::shardingOfValue(op.operand(0));
        const TensorSharding* out = ir::outSharding(op);
        const TensorSharding* meshSource = n == "sdy.reduce_scatter" ? in : out;
        const Mesh* mesh = meshSource ? ir::meshOf(m_module, *meshSource) : nullptr;
        if (const auto* perDim = ir::perDimCollectiveAxes(op))
            for (const auto& d : *perDim)
                info.axes.insert(info.axes.end(), d.begin(), d.end());
        if (const std::vector<AxisRef>* list = ir::collectiveAxisList(op))
            info.axes = *list;
        if (const auto* params = ir::allToAllParams(op))
            for (const ir::AllToAllParam& p : *params)
                info.axes.insert(info.axes.end(), p.axes.begin(), p.axes.end());
        const ir::Type& t = op.operand(0)->type();
        info.elementType = t.isRankedTensor() ? t.elementType() : std::string();
        info.shapeBefore = localShape(m_module, t, in);
        info.shapeAfter = localShape(m_module, op.result(0)->type(), out);
        info.payloadBytesPerDevice = product(info.shapeBefore) * elementBytes(info.elementType);
        info.from = shardingText(in);
        info.to = shardingText(out);
        if (mesh) {
            if (n == "sdy.collective_permute") {
                info.groupSize = 2;
                const Mesh* inMesh = in ? ir::meshOf(m_module, *in) : nullptr;
                if (in && out && inMesh)
                    if (auto pairs = partition::permutePairs(*in, *inMesh, *out, *mesh))
                        for (const auto& [source, target] : *pairs)
                            if (source != target)
                                info.replicaGroups.push_back({source, target});
            } else {
                info.replicaGroups = m_groups.get(*mesh, info.axes);
                info.groupSize =
                    info.replicaGroups.empty() ? 1 : static_cast<int64_t>(info.replicaGroups.front().size());
            }
        }
        const int64_t g = info.groupSize;
        const int64_t p = info.payloadBytesPerDevice;
        int64_t steps = 0;
        if (n == "sdy.all_reduce") {
            info.bytesSentPerDevice = g > 1 ? 2 * (g - 1) * p / g : 0;
            steps = 2 * (g - 1);
        } else if (n == "sdy.all_gather") {
            info.bytesSentPerDevice = (g - 1) * p; // (n-1)/n of the full result
            steps = g - 1;
        } else if (n == "sdy.reduce_scatter" || n == "sdy.all_to_all") {
            info.bytesSentPerDevice = g > 1 ? (g - 1) * p / g : 0;
            steps = g - 1;
        } else if (n == "sdy.collective_permute") {
            info.bytesSentPerDevice = p;
            steps = 1;
        }
        info.bytesReceivedPerDevice = info.bytesSentPerDevice;
        info.seconds = alphaBeta(info, steps);
        if (const ir::Attribute* a = op.attr(kCauseAttr))
            if (const ir::IntegerAttr* i = a->as<ir::IntegerAttr>())
                if (i->value >= 0 && static_cast<size_t>(i->value) < m_causes.size()) {
                    const Cause& c = m_causes[static_cast<size_t>(i->value)];
                    info.op = opDisplayName(c.op);
                    info.opName = c.op ? c.op->name() : std::string();
                    info.position = c.op ? c.op->pos : SourcePos{};
                    info.cause = c.sentence;
                    info.opIndex = c.op ? m_module.programIds().opOf(c.op) : -1;
                    info.fromSide = side(c.fromValue, c.from);
                    info.toSide = side(c.toValue, c.to);
                }
        return info;
    }

    /// A StableHLO collective the program itself holds (a psum or all_gather in the body of a shard_map, which
    /// JAX writes with its replica groups): it runs on every device as written, its operand's type already the
    /// local one. nullopt for any other op.
    std::optional<CollectiveInfo> describeWritten(ir::Op& op)
    {
        static const std::pair<const char*, const char*> kKinds[] = {
            {"stablehlo.all_reduce", "all-reduce"},
            {"stablehlo.all_gather", "all-gather"},
            {"stablehlo.reduce_scatter", "reduce-scatter"},
            {"stablehlo.all_to_all", "all-to-all"},
            {"stablehlo.collective_permute", "collective-permute"}};
        const std::string& n = op.name();
        const auto kind =
            std::find_if(std::begin(kKinds), std::end(kKinds), [&n](const auto& k) { return n == k.first; });
        if (kind == std::end(kKinds) || op.numOperands() == 0 || op.numResults() == 0)
            return std::nullopt;
        CollectiveInfo info;
        info.kind = kind->second;
        const bool permute = n == "stablehlo.collective_permute";
        const ir::Attribute* groups = op.attr(permute ? "source_target_pairs" : "replica_groups");
        const ir::OpaqueAttr* meshAxes = groups ? groups->as<ir::OpaqueAttr>() : nullptr;
        if (meshAxes && meshAxes->mnemonic == "replica_group_mesh_axes") {
            if (auto parsed = stablehlo::parseReplicaGroupMeshAxes(*meshAxes))
                if (const Mesh* mesh = m_module.findMesh(parsed->mesh)) {
                    info.axes = parsed->axes;
                    info.replicaGroups = m_groups.get(*mesh, info.axes);
                }
        } else if (const auto* dense = groups ? groups->as<ir::DenseElementsAttr>() : nullptr;
                   dense && dense->type.rank() == 2) {
            if (auto flat = stablehlo::intList(groups)) {
                const int64_t cols = dense->type.dim(1);
                for (int64_t r = 0; cols > 0 && r < dense->type.dim(0); ++r) {
                    std::vector<int64_t> row;
                    for (int64_t c = 0; c < cols; ++c)
                        if (const int64_t id = (*flat)[static_cast<size_t>(r * cols + c)]; id >= 0)
                            row.push_back(id); // -1 pads an uneven group
                    if (!row.empty() && !(permute && row.size() == 2 && row[0] == row[1]))
                        info.replicaGroups.push_back(std::move(row));
                }
            }
        }
        info.groupSize =
            permute ? 2 : (info.replicaGroups.empty() ? 1 : static_cast<int64_t>(info.replicaGroups.front().size()));
        const ir::Type& in = op.operand(0)->type();
        const ir::Type& out = op.result(0)->type();
        info.elementType = in.isRankedTensor() ? in.elementType() : std::string();
        info.shapeBefore = in.isRankedTensor() ? in.shape() : std::vector<int64_t>{};
        info.shapeAfter = out.isRankedTensor() ? out.shape() : std::vector<int64_t>{};
        const int64_t g = info.groupSize, p = product(info.shapeBefore) * elementBytes(info.elementType);
        info.payloadBytesPerDevice = p;
        int64_t steps = 0;
        if (n == "stablehlo.all_reduce") {
            info.bytesSentPerDevice = g > 1 ? 2 * (g - 1) * p / g : 0;
            steps = 2 * (g - 1);
        } else if (n == "stablehlo.all_gather") {
            info.bytesSentPerDevice = (g - 1) * p;
            steps = g - 1;
        } else if (permute) {
            info.bytesSentPerDevice = info.replicaGroups.empty() ? 0 : p;
            steps = 1;
        } else {
            info.bytesSentPerDevice = g > 1 ? (g - 1) * p / g : 0;
            steps = g - 1;
        }
        info.bytesReceivedPerDevice = info.bytesSentPerDevice;
        info.seconds = alphaBeta(info, steps);
        info.op = opDisplayName(&op);
        info.opName = n;
        info.position = op.pos;
        info.opIndex = m_module.programIds().opOf(&op);
        const ir::Op* manual = op.parentOp();
        while (manual && manual->name() != "sdy.manual_computation")
            manual = manual->parentOp();
        info.cause = manual ? "written in the program, in the body of the manual computation (shard_map) " +
                                  opDisplayName(const_cast<ir::Op*>(manual))
                            : std::string("written in the program");
        return info;
    }

    CauseSide side(int value, const std::string& sharding)
    {
        CauseSide s;
        s.value = value;
        s.sharding = sharding;
        const auto& values = m_module.programIds().values();
        if (value >= 0 && static_cast<size_t>(value) < values.size())
            s.name = values[static_cast<size_t>(value)].name;
        return s;
    }

    /// The alpha-beta time of `info` in `steps` ring steps: the slowest axis it crosses sets both terms.
    double alphaBeta(const CollectiveInfo& info, int64_t steps) const
    {
        double latency = 0, bandwidth = 0;
        for (const AxisRef& a : info.axes) {
            const AxisLink& l = m_options.cost.link(a.name);
            latency = std::max(latency, l.latencySeconds);
            bandwidth = bandwidth == 0 ? l.bandwidthBytesPerSecond : std::min(bandwidth, l.bandwidthBytesPerSecond);
        }
        if (info.axes.empty()) {
            latency = m_options.cost.defaults.latencySeconds;
            bandwidth = m_options.cost.defaults.bandwidthBytesPerSecond;
        }
        return static_cast<double>(steps) * latency +
               (bandwidth > 0 ? static_cast<double>(info.bytesSentPerDevice) / bandwidth : 0.0);
    }

    CollectiveInfo describeAdded(const AddedCollective& c)
    {
        CollectiveInfo info;
        info.kind = "all-gather";
        info.axes = c.axes;
        info.replicaGroups = c.replicaGroups;
        info.groupSize = c.replicaGroups.empty() ? 1 : static_cast<int64_t>(c.replicaGroups.front().size());
        const ir::Type& in = c.op->operand(0)->type();
        info.elementType = in.isRankedTensor() ? in.elementType() : std::string();
        info.shapeBefore = in.isRankedTensor() ? in.shape() : std::vector<int64_t>{};
        const ir::Type& out = c.op->result(0)->type();
        info.shapeAfter = out.isRankedTensor() ? out.shape() : std::vector<int64_t>{};
        info.payloadBytesPerDevice = product(info.shapeBefore) * elementBytes(info.elementType);
        info.bytesSentPerDevice = (info.groupSize - 1) * info.payloadBytesPerDevice;
        info.bytesReceivedPerDevice = info.bytesSentPerDevice;
        info.seconds = alphaBeta(info, info.groupSize - 1);
        info.from = c.from;
        info.to = c.to;
        info.op = opDisplayName(c.owner);
        info.opName = c.owner->name();
        info.position = c.owner->pos;
        info.opIndex = m_module.programIds().opOf(c.owner);
        const std::string owner = info.op + " (" + info.opName + ")";
        const std::string axes = axisListString(c.axes);
        const bool loop = c.owner->name() == "stablehlo.while";
        if (c.reason == AddedCollective::Reason::LoopArgument) {
            ir::Value* arg = c.region < c.owner->numRegions() && !c.owner->region(c.region).empty() &&
                                     c.index < c.owner->region(c.region).front().numArgs()
                                 ? c.owner->region(c.region).front().arg(c.index)
                                 : nullptr;
            const int argId = valueId(arg);
            const std::string argName = argId >= 0 ? m_module.programIds().values()[static_cast<size_t>(argId)].name
                                                   : "its carried value " + std::to_string(c.index);
            info.cause = "the while loop " + owner + " carries " + argName + " as " + c.from + ", but the ops of its " +
                         (c.region == 0 ? "condition" : "body") + " read it whole: the loop needs it gathered over " +
                         axes +
                         " at the start of every iteration (convert-global-to-local; Shardy leaves loop-carried "
                         "values global)";
            info.fromSide = side(argId, c.from);
            info.toSide = side(argId, c.to);
        } else {
            const int resultId = c.index < c.owner->numResults() ? valueId(c.owner->result(c.index)) : -1;
            info.cause = (loop ? "the body of the while loop " + owner + " returns operand " + std::to_string(c.index) +
                                     " as " + c.from + " but the loop carries it as " + c.to +
                                     ": the loop needs it gathered over " + axes + " at the end of every iteration"
                               : "a branch of " + owner + " returns operand " + std::to_string(c.index) + " as " +
                                     c.from + " but the op's result is " + c.to + ": it is gathered over " + axes +
                                     " before the branch returns") +
                         " (convert-global-to-local)";
            info.fromSide = side(-1, c.from);
            info.toSide = side(resultId, c.to);
        }
        return info;
    }

    ir::Module& m_module;
    const PartitionOptions& m_options;
    std::vector<Cause> m_causes;
    partition::ReplicaGroupCache m_groups;
};

/// The largest sum of live tensor bytes along each function's body (values die after their last
/// use in the same block; nested regions count with their op).
int64_t peakLiveBytes(const ir::Module& module)
{
    int64_t peak = 0;
    auto bytesOf = [](const ir::Value* v) {
        const ir::Type& t = v->type();
        return t.isRankedTensor() && t.hasStaticShape() ? t.numElements() * elementBytes(t.elementType()) : 0;
    };
    for (ir::Op* func : module.funcs()) {
        if (!func->numRegions() || func->region(0).empty())
            continue;
        const ir::Block& body = func->region(0).front();
        std::unordered_map<const ir::Op*, size_t> index;
        index.reserve(body.ops().size());
        size_t i = 0;
        for (const auto& op : body.ops())
            index[op.get()] = i++;
        auto lastUse = [&](const ir::Value* v) {
            size_t last = 0;
            for (const ir::Use& u : v->uses()) {
                const ir::Op* user = u.user;
                while (user && user->parentBlock() != &body)
                    user = user->parentOp();
                if (user && index.count(user))
                    last = std::max(last, index[user]);
            }
            return last;
        };
        std::vector<int64_t> freed(i + 1, 0);
        int64_t live = 0;
        for (unsigned a = 0; a < body.numArgs(); ++a) {
            live += bytesOf(body.arg(a));
            freed[lastUse(body.arg(a))] += bytesOf(body.arg(a));
        }
        peak = std::max(peak, live);
        size_t k = 0;
        for (const auto& op : body.ops()) {
            for (unsigned r = 0; r < op->numResults(); ++r) {
                live += bytesOf(op->result(r));
                freed[std::max(k, lastUse(op->result(r)))] += bytesOf(op->result(r));
            }
            peak = std::max(peak, live);
            live -= freed[k];
            ++k;
        }
    }
    return peak;
}

/// One tensor to list the shards of: its value index, type and sharding (null: replicated).
struct ListedTensor {
    int value = -1;
    std::string name;
    ir::Type type;
    const TensorSharding* sharding = nullptr;
};

/// The tensors `listing` asks for, read from the module before any pass changes it.
std::vector<ListedTensor> listedTensors(ir::Module& module, ShardListing listing)
{
    std::vector<ListedTensor> out;
    if (listing == ShardListing::None)
        return out;
    ir::ProgramIds& ids = module.programIds();
    // The entry function's tensors by their names; another function's with its name in front (`@relu:%arg0`), as
    // every function has its own %arg0 and results.
    const ir::Op* entry = module.findFunc("main");
    if (!entry && !module.funcs().empty())
        entry = module.funcs().front();
    std::string prefix;
    auto add = [&](int value, const ir::Type& type, const TensorSharding* s) {
        if (value < 0 || !type.isRankedTensor() || !type.hasStaticShape())
            return;
        out.push_back({value, prefix + ids.values()[static_cast<size_t>(value)].name, type, s});
    };
    for (ir::Op* func : module.funcs()) {
        if (!func->numRegions() || func->region(0).empty())
            continue;
        prefix = func == entry ? std::string() : "@" + ir::symbolName(*func) + ":";
        ir::Block& body = func->region(0).front();
        for (unsigned a = 0; a < body.numArgs(); ++a)
            add(ids.valueOf(body.arg(a)), body.arg(a)->type(), ir::funcArgSharding(*func, a));
        if (listing == ShardListing::All)
            func->walk([&](ir::Op* op) {
                if (op == func || op->name() == "sdy.mesh")
                    return;
                for (unsigned r = 0; r < op->numResults(); ++r)
                    add(ids.valueOf(op->result(r)), op->result(r)->type(), ir::shardingOfValue(op->result(r)));
            });
        const ir::Type fn = ir::funcType(*func);
        for (size_t r = 0; r < fn.results().size(); ++r)
            add(ids.funcResultOf(func, static_cast<int>(r)), fn.results()[r],
                ir::funcResultSharding(*func, static_cast<unsigned>(r)));
    }
    return out;
}

/// What one device holds of a tensor: the per-device part of a TensorShardInfo.
struct DevicePiece {
    std::vector<int64_t> localShape;
    std::vector<std::pair<int64_t, int64_t>> ranges;
    int64_t paddingElements = 0;
    std::string slice;
};

/// Adds each listed tensor's shard to every device of `model` (whose mesh is set). Tensors of one
/// shape and sharding (the layers of a model) have the same pieces: each layout is computed once,
/// and the per-device pieces are copied to every tensor that has it.
void addShards(const ir::Module& module, const std::vector<ListedTensor>& tensors, PartitionModel& model)
{
    // Key: the mesh the layout is computed on, the sharding as text (every field of it) and the shape.
    std::unordered_map<std::string, std::optional<std::vector<DevicePiece>>> layouts;
    std::string key;
    for (DeviceInfo& d : model.devices)
        d.shards.reserve(d.shards.size() + tensors.size());
    for (const ListedTensor& t : tensors) {
        const Mesh* mesh = t.sharding ? ir::meshOf(module, *t.sharding) : nullptr;
        const std::vector<int64_t>& shape = t.type.shape();
        const std::string sharding = shardingText(t.sharding); // the same on every device
        key.clear();
        key += std::to_string(reinterpret_cast<uintptr_t>(mesh));
        key += mesh ? sharding : std::string("<replicated>");
        for (int64_t n : shape)
            key += "x" + std::to_string(n);
        auto [it, fresh] = layouts.try_emplace(key);
        if (fresh) {
            TensorSharding replicated;
            replicated.dims.resize(shape.size());
            Expected<ShardedLayout> layout =
                computeShardedLayout(mesh ? *t.sharding : replicated, mesh ? *mesh : model.mesh, shape);
            if (layout) {
                std::vector<DevicePiece>& pieces = it->second.emplace();
                pieces.reserve(model.devices.size());
                for (const DeviceInfo& d : model.devices) {
                    const DeviceShard* shard = layout->shardOfDevice(d.id);
                    DevicePiece piece;
                    piece.localShape = layout->localShape;
                    if (shard) {
                        int64_t real = 1;
                        for (size_t dim = 0; dim < shape.size(); ++dim) {
                            piece.ranges.emplace_back(shard->begin(dim), shard->end(dim));
                            real *= shard->validExtent[dim];
                        }
                        piece.paddingElements = product(layout->localShape) - real;
                        piece.slice = layout->sliceText(*shard);
                    } else {
                        // A device outside the tensor's mesh (another mesh of the module) holds all of it.
                        piece.slice = "[";
                        for (int64_t n : shape) {
                            piece.ranges.emplace_back(0, n);
                            piece.slice += (piece.ranges.size() > 1 ? ", 0:" : "0:") + std::to_string(n);
                        }
                        piece.slice += "]";
                        piece.localShape = shape;
                    }
                    pieces.push_back(std::move(piece));
                }
            }
        }
        if (!it->second)
            continue;
        for (size_t i = 0; i < model.devices.size(); ++i) {
            const DevicePiece& piece = (*it->second)[i];
            TensorShardInfo info;
            info.value = t.value;
            info.name = t.name;
            info.sharding = sharding;
            info.globalShape = shape;
            info.localShape = piece.localShape;
            info.ranges = piece.ranges;
            info.paddingElements = piece.paddingElements;
            info.slice = piece.slice;
            model.devices[i].shards.push_back(std::move(info));
        }
    }
}

/// "what: <first error's message>" at the first error's position, so that it prints as one diagnostic
/// (`file:line:col: error: what: message`); any other diagnostics follow on their own lines.
Error passError(const DiagnosticList& diags, const std::string& what)
{
    Error e;
    e.message = what;
    const std::vector<Diagnostic>& all = diags.all();
    auto first =
        std::find_if(all.begin(), all.end(), [](const Diagnostic& d) { return d.severity == Severity::Error; });
    if (first == all.end())
        first = all.begin();
    if (first == all.end())
        return e;
    e.message += ": " + first->message;
    e.pos = first->pos;
    for (const Diagnostic& n : first->notes)
        e.message += "\n" + n.format();
    for (auto it = all.begin(); it != all.end(); ++it)
        if (it != first)
            e.message += "\n" + it->format();
    return e;
}

} // namespace

Expected<PartitionModel> buildPartitionModel(const ir::Module& propagated, const PartitionOptions& options)
{
    std::unique_ptr<ir::Module> m = propagated.clone();
    m->programIds(); // the user's names, kept through the passes
    // The listed tensors' types and shardings, copied: the passes rewrite the attributes.
    std::vector<ListedTensor> listed = listedTensors(*m, options.shards);
    std::vector<TensorSharding> listedShardings;
    listedShardings.reserve(listed.size());
    for (ListedTensor& t : listed) {
        listedShardings.push_back(t.sharding ? *t.sharding : TensorSharding{});
        t.sharding = t.sharding ? &listedShardings.back() : nullptr;
    }
    DiagnosticList diags;
    ModelBuilder builder(*m, options);
    // What the propagation strategies leave besides the export pipeline's output.
    sinkDataFlowEdges(*m);
    builder.tagConstraints();
    removeShardingGroups(*m);
    shardingConstraintToReshard(*m);
    closeShardings(*m);
    builder.tagCauses("reshard");
    PermutationFreeOps permutationFree;
    ExplicitReshardsOptions reshards;
    reshards.fullVersion = true;
    reshards.permutationFree = &permutationFree;
    if (!insertExplicitReshards(*m, reshards, diags))
        return passError(diags, "inserting explicit reshards failed");
    builder.tagCauses("reshard");
    PermutationFactorOptions permutation;
    permutation.counts = {options.replicaCount, options.partitionCount};
    // Replication, not halo exchange: the model lists and counts the sdy collectives, and a halo
    // exchange's collective_permutes are StableHLO ops inside a manual computation that it would
    // neither see nor explain (nor would the reversed meshes of a reverse be the devices' mesh).
    permutation.enableHaloExchange = false;
    permutation.permutationFree = &permutationFree;
    if (!resolvePermutationFactors(*m, permutation, diags))
        return passError(diags, "resolving permutation factors failed");
    builder.tagCauses("permutation");
    if (!reshardToCollectives(*m, ReshardToCollectivesOptions{}, diags))
        return passError(diags, "lowering reshards to collectives failed");
    PartitionModel model;
    builder.collect(model);
    if (!padForDivisibility(*m, diags))
        return passError(diags, "padding for divisibility failed");
    DeviceCountOptions counts{options.replicaCount, options.partitionCount};
    if (!resolveSingleDeviceSharding(*m, counts, diags))
        return passError(diags, "resolving single-device shardings failed");
    GlobalToLocalOptions local;
    local.replicaCount = options.replicaCount;
    local.partitionCount = options.partitionCount;
    // The mesh the devices are listed for: the first with axes.
    for (ir::Op* meshOp : m->meshes())
        if (const Mesh* mesh = ir::meshOpMesh(*meshOp); mesh && !mesh->axes().empty() && !mesh->isMaximal()) {
            model.mesh = *mesh;
            model.meshName = ir::symbolName(*meshOp);
            break;
        }
    if (options.keepGlobalProgram) {
        // Every value gets its id now, so that the collectives convert-global-to-local makes take over
        // the ids of the sdy collectives they replace.
        m->programIds().nameAll(*m);
        model.global = m->clone();
    }
    std::vector<AddedCollective> added;
    local.added = &added;
    if (!convertGlobalToLocal(*m, local, diags))
        return passError(diags, "converting to the per-device program failed");
    builder.collectAdded(model, added, *m);
    dropShardingAndMesh(*m, kCauseAttr);
    model.local = std::move(m);
    const int64_t peak = peakLiveBytes(*model.local);
    DeviceLayout layout(model.mesh);
    for (int64_t pos = 0; pos < layout.numDevices(); ++pos)
        model.devices.push_back(DeviceInfo{layout.deviceAt(pos), layout.coordsOf(pos), peak, {}});
    addShards(propagated, listed, model);
    for (const CollectiveInfo& c : model.collectives) {
        model.bytesSentPerDevice += c.bytesSentPerDevice;
        model.seconds += c.seconds;
    }
    return model;
}

namespace {
nlohmann::json sideJson(const CauseSide& s)
{
    return {{"value", s.name}, {"sharding", s.sharding}, {"steps", s.steps}, {"origins", s.origins}};
}
} // namespace

nlohmann::json partitionJson(const PartitionModel& model)
{
    nlohmann::json j;
    j["format"] = "shardx-partition";
    j["version"] = 1;
    nlohmann::json mesh;
    mesh["name"] = model.meshName;
    mesh["axes"] = nlohmann::json::array();
    for (const MeshAxis& a : model.mesh.axes())
        mesh["axes"].push_back({{"name", a.name}, {"size", a.size}});
    mesh["device_ids"] = model.mesh.allDeviceIds();
    j["mesh"] = mesh;
    j["devices"] = nlohmann::json::array();
    for (const DeviceInfo& d : model.devices) {
        nlohmann::json shards = nlohmann::json::array();
        for (const TensorShardInfo& t : d.shards) {
            nlohmann::json ranges = nlohmann::json::array();
            for (const auto& [b, e] : t.ranges)
                ranges.push_back({b, e});
            shards.push_back({{"value", t.name},
                              {"sharding", t.sharding},
                              {"global_shape", t.globalShape},
                              {"local_shape", t.localShape},
                              {"ranges", ranges},
                              {"padding_elements", t.paddingElements},
                              {"slice", t.slice}});
        }
        j["devices"].push_back(
            {{"id", d.id}, {"coords", d.coords}, {"peak_live_bytes", d.peakLiveBytes}, {"shards", shards}});
    }
    j["collectives"] = nlohmann::json::array();
    for (const CollectiveInfo& c : model.collectives) {
        nlohmann::json axes = nlohmann::json::array();
        for (const AxisRef& a : c.axes)
            axes.push_back(a.isSubAxis() ? a.toString() : a.name);
        j["collectives"].push_back({{"kind", c.kind},
                                    {"axes", axes},
                                    {"replica_groups", c.replicaGroups},
                                    {"shape_before", c.shapeBefore},
                                    {"shape_after", c.shapeAfter},
                                    {"element_type", c.elementType},
                                    {"group_size", c.groupSize},
                                    {"payload_bytes_per_device", c.payloadBytesPerDevice},
                                    {"bytes_sent_per_device", c.bytesSentPerDevice},
                                    {"bytes_received_per_device", c.bytesReceivedPerDevice},
                                    {"seconds", c.seconds},
                                    {"op", c.op},
                                    {"op_name", c.opName},
                                    {"line", c.position.line},
                                    {"from", c.from},
                                    {"to", c.to},
                                    {"cause", c.cause},
                                    {"cause_from", sideJson(c.fromSide)},
                                    {"cause_to", sideJson(c.toSide)},
                                    {"cause_step", c.causeStep}});
    }
    j["replicated"] = nlohmann::json::array();
    j["bytes_sent_per_device"] = model.bytesSentPerDevice;
    j["seconds"] = model.seconds;
    j["program"] = model.local ? io::printModule(*model.local) : std::string();
    return j;
}

std::string partitionText(const PartitionModel& model, bool withProgram)
{
    std::string out;
    char buf[256];
    out += "mesh @" + model.meshName + " " + model.mesh.toString() + ": " + std::to_string(model.devices.size()) +
           " devices\n";
    if (model.collectives.empty())
        out += "no collectives: every device computes its shard on its own\n";
    for (size_t i = 0; i < model.collectives.size(); ++i) {
        const CollectiveInfo& c = model.collectives[i];
        std::string axes;
        for (const AxisRef& a : c.axes)
            axes += (axes.empty() ? "" : ", ") + a.toString();
        std::string over = "over {" + axes + "} (groups of " + std::to_string(c.groupSize) + ")";
        if (c.kind == "collective-permute") {
            over = "between " + std::to_string(c.replicaGroups.size()) + " device pairs (";
            for (size_t k = 0; k < c.replicaGroups.size() && k < 4; ++k)
                over += (k ? ", " : "") + std::to_string(c.replicaGroups[k].front()) + "->" +
                        std::to_string(c.replicaGroups[k].back());
            over += c.replicaGroups.size() > 4 ? ", ...)" : ")";
        }
        std::snprintf(buf, sizeof buf, "#%zu %s %s: %lld B payload, %lld B sent per device, %.3g us\n", i + 1,
                      c.kind.c_str(), over.c_str(), static_cast<long long>(c.payloadBytesPerDevice),
                      static_cast<long long>(c.bytesSentPerDevice), c.seconds * 1e6);
        out += buf;
        if (!c.op.empty())
            out += "   for " + c.op + " (" + c.opName + ")" +
                   (c.position.line > 0 ? " at line " + std::to_string(c.position.line) : std::string()) + "\n";
        if (!c.cause.empty())
            out += "   why: " + c.cause + "\n";
        for (const CauseSide* side : {&c.fromSide, &c.toSide}) {
            if (side->name.empty() || (side->steps.empty() && side->origins.empty()))
                continue;
            out += side == &c.fromSide ? "   from " + side->sharding + " of " + side->name
                                       : "   to " + side->sharding + " for " + side->name;
            if (!side->origins.empty()) {
                out += "; its axes came from";
                for (size_t k = 0; k < side->origins.size(); ++k)
                    out += (k ? ", " : " ") + side->origins[k];
            }
            if (!side->steps.empty()) {
                out += side->steps.size() == 1 ? ", step" : ", steps";
                for (size_t k = 0; k < side->steps.size() && k < 8; ++k)
                    out += (k ? ", #" : " #") + std::to_string(side->steps[k]);
                if (side->steps.size() > 8)
                    out += ", ...";
            }
            out += "\n";
        }
    }
    std::snprintf(buf, sizeof buf, "total: %lld B sent per device, %.3g us of collectives\n",
                  static_cast<long long>(model.bytesSentPerDevice), model.seconds * 1e6);
    out += buf;
    if (!model.devices.empty())
        out += "peak live memory per device: " + std::to_string(model.devices.front().peakLiveBytes) + " B\n";
    if (!model.devices.empty() && !model.devices.front().shards.empty()) {
        out += "\nshards per device (global index ranges [begin:end) of each tensor):\n";
        for (const DeviceInfo& d : model.devices) {
            std::string coords;
            for (int64_t c : d.coords)
                coords += (coords.empty() ? "" : ",") + std::to_string(c);
            out += "  device " + std::to_string(d.id) + " (" + coords + "):";
            size_t k = 0;
            for (const TensorShardInfo& t : d.shards) {
                if (k++ == 12) {
                    out += " ... (" + std::to_string(d.shards.size()) + " tensors, --json lists all)";
                    break;
                }
                out += (k > 1 ? ", " : " ") + t.name + " " + t.slice;
            }
            out += "\n";
        }
    }
    if (withProgram && model.local)
        out += "\nper-device program (every device runs it; partition_id selects its shard):\n" +
               io::printModule(*model.local);
    return out;
}

} // namespace shardx
