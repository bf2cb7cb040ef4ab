// PartitionDiff: two partitions of one program compared tensor by tensor and collective by collective.
#include "core/partition/PartitionDiff.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/ir/FuncOps.h"
#include "core/ir/ShardingAccess.h"

namespace shardx {

namespace {

/// Structural differences listed before "... and N more".
constexpr size_t kMaxStructureNotes = 8;

/// One tensor of a side: a value of the propagated program (or a function result).
struct SideTensor {
    int value = -1;
    ir::Type type;
    const TensorSharding* sharding = nullptr;
};

/// The tensors of one side, by value index, and the function each argument and result belongs to.
struct SideTensors {
    std::unordered_map<int, SideTensor> byValue;
    /// Per function symbol: its argument and result value indices, in order.
    std::map<std::string, std::pair<std::vector<int>, std::vector<int>>> interface;
    std::vector<std::string> funcOrder;
};

SideTensors collectTensors(const PartitionDiffSide& side)
{
    SideTensors out;
    const ir::ProgramIds& ids = *side.ids;
    // Function results are values of the ProgramIds only: (func op index, result) -> value.
    std::map<std::pair<int, int>, int> results;
    for (size_t v = 0; v < ids.values().size(); ++v)
        if (ids.values()[v].funcResult >= 0)
            results[{ids.values()[v].func, ids.values()[v].funcResult}] = static_cast<int>(v);
    auto add = [&](ir::Value* v, const TensorSharding* s) {
        if (v && v->programId >= 0)
            out.byValue[v->programId] = SideTensor{v->programId, v->type(), s};
    };
    for (ir::Op* func : side.propagated->funcs()) {
        if (!func->numRegions() || func->region(0).empty())
            continue;
        const std::string name = ir::symbolName(*func);
        if (out.interface.count(name))
            continue;
        out.funcOrder.push_back(name);
        auto& [args, res] = out.interface[name];
        ir::Block& body = func->region(0).front();
        for (unsigned a = 0; a < body.numArgs(); ++a) {
            add(body.arg(a), ir::funcArgSharding(*func, a));
            args.push_back(body.arg(a)->programId);
        }
        func->walk([&](ir::Op* op) {
            if (op == func)
                return;
            for (unsigned r = 0; r < op->numResults(); ++r)
                add(op->result(r), ir::shardingOfValue(op->result(r)));
            for (unsigned ri = 0; ri < op->numRegions(); ++ri)
                for (const auto& block : op->region(ri).blocks())
                    for (unsigned a = 0; a < block->numArgs(); ++a)
                        add(block->arg(a), ir::shardingOfValue(block->arg(a)));
        });
        const ir::Type fn = ir::funcType(*func);
        for (size_t r = 0; r < fn.results().size(); ++r) {
            auto it = results.find({func->programId, static_cast<int>(r)});
            const int value = it == results.end() ? -1 : it->second;
            if (value >= 0)
                out.byValue[value] =
                    SideTensor{value, fn.results()[r], ir::funcResultSharding(*func, static_cast<unsigned>(r))};
            res.push_back(value);
        }
    }
    return out;
}

int64_t diffElementBytes(const std::string& elementType)
{
    const int bits = ir::elementBitWidth(elementType);
    return bits <= 0 ? 0 : (bits + 7) / 8;
}

/// Bytes of the local shard of `t` on every device (uneven dimensions rounded up: the padded
/// shard the per-device program holds); 0 for a tensor without a static shape.
int64_t localBytes(const ir::Module& module, const SideTensor& t)
{
    if (!t.type.isRankedTensor() || !t.type.hasStaticShape())
        return 0;
    std::vector<int64_t> shape = t.type.shape();
    const Mesh* mesh = t.sharding ? ir::meshOf(module, *t.sharding) : nullptr;
    for (size_t d = 0; mesh && d < shape.size() && d < t.sharding->dims.size(); ++d) {
        const int64_t n = axesProduct(t.sharding->dims[d].axes, *mesh);
        if (shape[d] > 0 && n > 1)
            shape[d] = (shape[d] + n - 1) / n;
    }
    int64_t elements = 1;
    for (int64_t d : shape)
        elements *= std::max<int64_t>(d, 0);
    return elements * diffElementBytes(t.type.elementType());
}

/// How `s` cuts a tensor: the mesh and the axes of every dimension and the unreduced axes;
/// `replicated` when it cuts nothing. Two shardings with the same key partition alike.
std::string layoutKey(const ir::Module& module, const TensorSharding* s)
{
    if (!s)
        return "replicated";
    bool cuts = !s->unreduced.empty();
    for (const DimSharding& d : s->dims)
        cuts = cuts || !d.axes.empty();
    if (!cuts)
        return "replicated";
    const Mesh* mesh = ir::meshOf(module, *s);
    std::string key = mesh ? mesh->toString() : s->mesh.toString();
    for (const DimSharding& d : s->dims)
        key += axisListString(d.axes);
    if (!s->unreduced.empty())
        key += std::string("unreduced=") + reductionKindName(s->unreducedKind) + axisListString(s->unreduced);
    return key;
}

std::string diffShardingText(const TensorSharding* s) { return s ? s->toString() : std::string("<no sharding>"); }

std::string meshText(const PartitionModel& m)
{
    if (m.meshName.empty() && m.mesh.axes().empty())
        return "no mesh (" + std::to_string(m.devices.size()) + " device)";
    return "@" + m.meshName + " " + m.mesh.toString() + " (" + std::to_string(m.devices.size()) + " devices)";
}

std::string axesText(const CollectiveInfo& c)
{
    std::string axes;
    for (const AxisRef& a : c.axes)
        axes += (axes.empty() ? "" : ",") + a.toString();
    return axes;
}

/// The id of the op a collective is for: its ProgramIds id when the index names that op in
/// `ids`, else the name the model gives it.
std::string collectiveOpId(const CollectiveInfo& c, const ir::ProgramIds& ids)
{
    if (c.opIndex >= 0 && static_cast<size_t>(c.opIndex) < ids.ops().size() &&
        ids.ops()[static_cast<size_t>(c.opIndex)].opName == c.opName)
        return ids.ops()[static_cast<size_t>(c.opIndex)].id;
    return c.op;
}

bool sameCollective(const CollectiveInfo& a, const CollectiveInfo& b)
{
    return a.shapeBefore == b.shapeBefore && a.shapeAfter == b.shapeAfter && a.elementType == b.elementType &&
           a.replicaGroups == b.replicaGroups && a.bytesSentPerDevice == b.bytesSentPerDevice &&
           a.payloadBytesPerDevice == b.payloadBytesPerDevice && a.from == b.from && a.to == b.to;
}

/// The user's ops of a side as (id, op name), in ProgramIds order: the ops the file holds,
/// also those a pass erased since (their ids stay), without what passes inserted.
std::vector<std::pair<std::string, std::string>> userOps(const ir::ProgramIds& ids)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const ir::ProgramOp& op : ids.ops())
        if (op.derivedFrom < 0)
            out.emplace_back(op.id, op.opName);
    return out;
}

bool isUserValue(const ir::ProgramIds& ids, int value)
{
    return value >= 0 && static_cast<size_t>(value) < ids.values().size() &&
           ids.values()[static_cast<size_t>(value)].derivedFrom < 0;
}

/// Adds a note, keeping at most kMaxStructureNotes (the rest are counted).
void note(std::vector<std::string>& notes, size_t& more, std::string text)
{
    if (notes.size() < kMaxStructureNotes)
        notes.push_back(std::move(text));
    else
        ++more;
}

/// Compares the two programs' ops and values as their files hold them (ProgramIds keeps what
/// passes erased since, so two strategies on one file compare equal); fills `diff.structure` and
/// returns true when they have the same ops (ids and op names) and the same values (ids, and
/// types where both still hold them).
bool compareStructure(const PartitionDiffSide& a, const PartitionDiffSide& b, const SideTensors& ta,
                      const SideTensors& tb, PartitionDiff& diff)
{
    size_t more = 0;
    const auto opsA = userOps(*a.ids), opsB = userOps(*b.ids);
    if (opsA != opsB) {
        size_t k = 0;
        while (k < opsA.size() && k < opsB.size() && opsA[k] == opsB[k])
            ++k;
        std::string first;
        if (k < opsA.size() && k < opsB.size())
            first = "A's " + opsA[k].first + " (" + opsA[k].second + ") where B has " + opsB[k].first + " (" +
                    opsB[k].second + ")";
        else if (k < opsA.size())
            first = "A's " + opsA[k].first + " (" + opsA[k].second + "), which B does not have";
        else
            first = "B's " + opsB[k].first + " (" + opsB[k].second + "), which A does not have";
        note(diff.structure, more,
             "the programs have different ops: A has " + std::to_string(opsA.size()) + ", B has " +
                 std::to_string(opsB.size()) + "; the first difference is " + first);
    }
    // The user's values: the same ids (erased ones included, as for ops), and the same types
    // where both programs still hold them.
    std::vector<std::string> valuesA, valuesB;
    for (const ir::ProgramValue& v : a.ids->values())
        if (v.derivedFrom < 0)
            valuesA.push_back(v.id);
    for (const ir::ProgramValue& v : b.ids->values())
        if (v.derivedFrom < 0)
            valuesB.push_back(v.id);
    if (valuesA != valuesB) {
        const std::set<std::string> setA(valuesA.begin(), valuesA.end()), setB(valuesB.begin(), valuesB.end());
        for (const std::string& id : valuesA)
            if (!setB.count(id))
                note(diff.structure, more, id + " is only in A");
        for (const std::string& id : valuesB)
            if (!setA.count(id))
                note(diff.structure, more, id + " is only in B");
    }
    std::unordered_map<std::string, const SideTensor*> byIdB;
    for (const auto& [v, t] : tb.byValue)
        if (isUserValue(*b.ids, v))
            byIdB[b.ids->values()[static_cast<size_t>(v)].id] = &t;
    std::vector<int> presentA;
    for (const auto& [v, t] : ta.byValue)
        if (isUserValue(*a.ids, v))
            presentA.push_back(v);
    std::sort(presentA.begin(), presentA.end());
    for (int v : presentA) {
        const std::string& id = a.ids->values()[static_cast<size_t>(v)].id;
        auto it = byIdB.find(id);
        if (it != byIdB.end() && !(it->second->type == ta.byValue.at(v).type))
            note(diff.structure, more,
                 id + " is " + ta.byValue.at(v).type.toString() + " in A and " + it->second->type.toString() + " in B");
    }
    if (more)
        diff.structure.push_back("... and " + std::to_string(more) + " more differences");
    return diff.structure.empty();
}

/// Compares the tensors `pairs` (A value, B value) and fills the sharding changes.
void compareTensors(const PartitionDiffSide& a, const PartitionDiffSide& b, const SideTensors& ta,
                    const SideTensors& tb, const std::vector<std::pair<int, int>>& pairs, PartitionDiff& diff)
{
    for (const auto& [va, vb] : pairs) {
        const SideTensor& x = ta.byValue.at(va);
        const SideTensor& y = tb.byValue.at(vb);
        if (!x.type.isRankedTensor() || !y.type.isRankedTensor())
            continue;
        ++diff.matchedValues;
        const std::string sa = diffShardingText(x.sharding), sb = diffShardingText(y.sharding);
        const bool sameLayout = layoutKey(*a.propagated, x.sharding) == layoutKey(*b.propagated, y.sharding);
        if (sa == sb && sameLayout)
            continue;
        TensorShardingChange c;
        const ir::ProgramValue& pa = a.ids->values()[static_cast<size_t>(va)];
        const ir::ProgramValue& pb = b.ids->values()[static_cast<size_t>(vb)];
        c.id = pa.id;
        c.name = pa.name;
        if (pb.name != pa.name)
            c.nameB = pb.name;
        c.type = x.type.toString();
        c.shardingA = sa;
        c.shardingB = sb;
        c.bytesPerDeviceA = localBytes(*a.propagated, x);
        c.bytesPerDeviceB = localBytes(*b.propagated, y);
        c.notationOnly = sameLayout && c.bytesPerDeviceA == c.bytesPerDeviceB;
        (c.notationOnly ? diff.notationChanges : diff.shardingChanges).push_back(std::move(c));
    }
}

/// The tensor pairs to compare: every user value by id (same structure), else each function's
/// arguments and results by position.
std::vector<std::pair<int, int>> matchTensors(const PartitionDiffSide& a, const PartitionDiffSide& b,
                                              const SideTensors& ta, const SideTensors& tb, bool sameStructure,
                                              PartitionDiff& diff)
{
    std::vector<std::pair<int, int>> pairs;
    if (sameStructure) {
        // Also the values passes made on both sides (`%cst.copy`, a constraint turned into a
        // reshard): named after the user's value, the same on both sides when made alike.
        std::unordered_map<std::string, int> byIdB;
        for (const auto& [v, t] : tb.byValue)
            byIdB[b.ids->values()[static_cast<size_t>(v)].id] = v;
        std::vector<int> valuesA;
        for (const auto& [v, t] : ta.byValue)
            valuesA.push_back(v);
        // Program order: a function's results (named before its body) after its values.
        std::sort(valuesA.begin(), valuesA.end(), [&](int x, int y) {
            const ir::ProgramValue &px = a.ids->values()[static_cast<size_t>(x)],
                                   &py = a.ids->values()[static_cast<size_t>(y)];
            return std::make_tuple(px.func, px.funcResult >= 0, x) < std::make_tuple(py.func, py.funcResult >= 0, y);
        });
        for (int v : valuesA)
            if (auto it = byIdB.find(a.ids->values()[static_cast<size_t>(v)].id); it != byIdB.end())
                pairs.emplace_back(v, it->second);
        return pairs;
    }
    for (const std::string& f : ta.funcOrder) {
        auto it = tb.interface.find(f);
        if (it == tb.interface.end()) {
            diff.structure.push_back("function @" + f + " is only in A");
            continue;
        }
        const auto& [argsA, resA] = ta.interface.at(f);
        const auto& [argsB, resB] = it->second;
        if (argsA.size() != argsB.size() || resA.size() != resB.size())
            diff.structure.push_back("@" + f + " takes " + std::to_string(argsA.size()) + " arguments and returns " +
                                     std::to_string(resA.size()) + " results in A, " + std::to_string(argsB.size()) +
                                     " and " + std::to_string(resB.size()) + " in B");
        for (size_t i = 0; i < argsA.size() && i < argsB.size(); ++i)
            if (argsA[i] >= 0 && argsB[i] >= 0)
                pairs.emplace_back(argsA[i], argsB[i]);
        for (size_t i = 0; i < resA.size() && i < resB.size(); ++i)
            if (resA[i] >= 0 && resB[i] >= 0)
                pairs.emplace_back(resA[i], resB[i]);
    }
    for (const std::string& f : tb.funcOrder)
        if (!ta.interface.count(f))
            diff.structure.push_back("function @" + f + " is only in B");
    return pairs;
}

void compareCollectives(const PartitionDiffSide& a, const PartitionDiffSide& b, PartitionDiff& diff)
{
    auto keyOf = [](const std::string& opId, const CollectiveInfo& c) {
        return opId + "\x1f" + c.opName + "\x1f" + c.kind + "\x1f" + axesText(c);
    };
    std::map<std::string, std::vector<size_t>> byKeyB;
    std::vector<std::string> opIdsB;
    for (size_t i = 0; i < b.model->collectives.size(); ++i) {
        const CollectiveInfo& c = b.model->collectives[i];
        opIdsB.push_back(collectiveOpId(c, *b.ids));
        byKeyB[keyOf(opIdsB.back(), c)].push_back(i);
    }
    std::map<std::string, size_t> usedB; // per key: how many of B's were matched
    std::vector<bool> matchedB(b.model->collectives.size(), false);
    for (size_t i = 0; i < a.model->collectives.size(); ++i) {
        const CollectiveInfo& c = a.model->collectives[i];
        DiffCollective x{collectiveOpId(c, *a.ids), i, c};
        const std::string key = keyOf(x.opId, c);
        auto it = byKeyB.find(key);
        size_t& used = usedB[key];
        if (it == byKeyB.end() || used >= it->second.size()) {
            diff.removed.push_back(std::move(x));
            continue;
        }
        const size_t j = it->second[used++];
        matchedB[j] = true;
        const CollectiveInfo& d = b.model->collectives[j];
        if (sameCollective(c, d))
            ++diff.unchangedCollectives;
        else
            diff.changed.push_back({std::move(x), DiffCollective{opIdsB[j], j, d}});
    }
    for (size_t j = 0; j < b.model->collectives.size(); ++j)
        if (!matchedB[j])
            diff.added.push_back(DiffCollective{opIdsB[j], j, b.model->collectives[j]});
}

void compareReplicated(const PartitionDiffSide& a, const PartitionDiffSide& b, PartitionDiff& diff)
{
    std::set<std::string> idsA, idsB;
    for (const ReplicatedTensor& r : a.replicated)
        idsA.insert(r.id);
    for (const ReplicatedTensor& r : b.replicated)
        idsB.insert(r.id);
    for (const ReplicatedTensor& r : b.replicated)
        if (!idsA.count(r.id))
            diff.replicatedGained.push_back(r);
    for (const ReplicatedTensor& r : a.replicated)
        if (!idsB.count(r.id))
            diff.replicatedLost.push_back(r);
}

} // namespace

bool PartitionDiff::identical() const
{
    return sameStructure && meshA == meshB && shardingChanges.empty() && removed.empty() && added.empty() &&
           changed.empty() && bytesSentPerDeviceA == bytesSentPerDeviceB && peakLiveBytesA == peakLiveBytesB &&
           replicatedGained.empty() && replicatedLost.empty();
}

PartitionDiff diffPartitions(const PartitionDiffSide& a, const PartitionDiffSide& b)
{
    PartitionDiff diff;
    diff.labelA = a.label;
    diff.labelB = b.label;
    if (!a.propagated || !a.ids || !a.model || !b.propagated || !b.ids || !b.model) {
        diff.sameStructure = false;
        diff.structure.push_back("a side has no program or no partition to compare");
        return diff;
    }
    diff.meshA = meshText(*a.model);
    diff.meshB = meshText(*b.model);
    const SideTensors ta = collectTensors(a), tb = collectTensors(b);
    diff.sameStructure = compareStructure(a, b, ta, tb, diff);
    compareTensors(a, b, ta, tb, matchTensors(a, b, ta, tb, diff.sameStructure, diff), diff);
    compareCollectives(a, b, diff);
    compareReplicated(a, b, diff);
    diff.collectivesA = a.model->collectives.size();
    diff.collectivesB = b.model->collectives.size();
    diff.bytesSentPerDeviceA = a.model->bytesSentPerDevice;
    diff.bytesSentPerDeviceB = b.model->bytesSentPerDevice;
    diff.secondsA = a.model->seconds;
    diff.secondsB = b.model->seconds;
    diff.peakLiveBytesA = a.model->devices.empty() ? 0 : a.model->devices.front().peakLiveBytes;
    diff.peakLiveBytesB = b.model->devices.empty() ? 0 : b.model->devices.front().peakLiveBytes;
    return diff;
}

// ---- renderers ----------------------------------------------------------------------------------

namespace {

nlohmann::json collectiveJson(const DiffCollective& d)
{
    const CollectiveInfo& c = d.info;
    nlohmann::json axes = nlohmann::json::array();
    for (const AxisRef& a : c.axes)
        axes.push_back(a.isSubAxis() ? a.toString() : a.name);
    return {{"index", d.index},
            {"kind", c.kind},
            {"axes", axes},
            {"op", c.op},
            {"op_id", d.opId},
            {"op_name", c.opName},
            {"line", c.position.line},
            {"replica_groups", c.replicaGroups},
            {"shape_before", c.shapeBefore},
            {"shape_after", c.shapeAfter},
            {"element_type", c.elementType},
            {"payload_bytes_per_device", c.payloadBytesPerDevice},
            {"bytes_sent_per_device", c.bytesSentPerDevice},
            {"seconds", c.seconds},
            {"from", c.from},
            {"to", c.to},
            {"cause", c.cause}};
}

nlohmann::json changeJson(const TensorShardingChange& c)
{
    nlohmann::json j = {{"value", c.name},
                        {"id", c.id},
                        {"type", c.type},
                        {"a", c.shardingA},
                        {"b", c.shardingB},
                        {"bytes_per_device_a", c.bytesPerDeviceA},
                        {"bytes_per_device_b", c.bytesPerDeviceB}};
    if (!c.nameB.empty())
        j["value_b"] = c.nameB;
    return j;
}

nlohmann::json replicatedEntryJson(const ReplicatedTensor& r)
{
    return {{"value", r.displayName},
            {"id", r.id},
            {"sharding", r.sharding},
            {"bytes_per_device", r.bytesPerDevice},
            {"extra_bytes_per_device", r.extraBytesPerDevice},
            {"reasons", r.reasons}};
}

template <typename T> nlohmann::json delta(T a, T b) { return {{"a", a}, {"b", b}, {"delta", b - a}}; }

std::string signedBytes(int64_t d) { return (d > 0 ? "+" : "") + std::to_string(d) + " B"; }

std::string micros(double seconds)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g us", seconds * 1e6);
    return buf;
}

std::string shapeText(const std::vector<int64_t>& shape)
{
    std::string s;
    for (int64_t d : shape)
        s += (s.empty() ? "" : "x") + std::to_string(d);
    return s.empty() ? "scalar" : s;
}

/// `all-reduce over {"model"} (groups of 4) for %6 (stablehlo.dot_general) at line 12`.
std::string collectiveHead(const CollectiveInfo& c)
{
    std::string axes;
    for (const AxisRef& a : c.axes)
        axes += (axes.empty() ? "" : ", ") + a.toString();
    std::string s = c.kind + (c.kind == "collective-permute"
                                  ? " between " + std::to_string(c.replicaGroups.size()) + " device pairs"
                                  : " over {" + axes + "} (groups of " + std::to_string(c.groupSize) + ")");
    if (!c.op.empty())
        s += " for " + c.op + (c.op == c.opName ? std::string() : " (" + c.opName + ")");
    if (c.position.line > 0)
        s += " at line " + std::to_string(c.position.line);
    return s;
}

std::string collectiveCost(const CollectiveInfo& c)
{
    return std::to_string(c.payloadBytesPerDevice) + " B payload, " + std::to_string(c.bytesSentPerDevice) +
           " B sent per device, " + micros(c.seconds);
}

} // namespace

nlohmann::json partitionDiffJson(const PartitionDiff& diff)
{
    nlohmann::json j;
    j["format"] = "shardx-partition-diff";
    j["version"] = 1;
    j["a"] = {{"label", diff.labelA}, {"mesh", diff.meshA}};
    j["b"] = {{"label", diff.labelB}, {"mesh", diff.meshB}};
    j["identical"] = diff.identical();
    j["same_structure"] = diff.sameStructure;
    j["structure"] = diff.structure;
    j["matched_tensors"] = diff.matchedValues;
    j["sharding_changes"] = nlohmann::json::array();
    for (const TensorShardingChange& c : diff.shardingChanges)
        j["sharding_changes"].push_back(changeJson(c));
    j["notation_changes"] = nlohmann::json::array();
    for (const TensorShardingChange& c : diff.notationChanges)
        j["notation_changes"].push_back(changeJson(c));
    nlohmann::json collectives;
    collectives["removed"] = nlohmann::json::array();
    for (const DiffCollective& c : diff.removed)
        collectives["removed"].push_back(collectiveJson(c));
    collectives["added"] = nlohmann::json::array();
    for (const DiffCollective& c : diff.added)
        collectives["added"].push_back(collectiveJson(c));
    collectives["changed"] = nlohmann::json::array();
    for (const ChangedCollective& c : diff.changed)
        collectives["changed"].push_back({{"a", collectiveJson(c.a)}, {"b", collectiveJson(c.b)}});
    collectives["unchanged"] = diff.unchangedCollectives;
    collectives["count"] =
        delta<int64_t>(static_cast<int64_t>(diff.collectivesA), static_cast<int64_t>(diff.collectivesB));
    j["collectives"] = collectives;
    j["bytes_sent_per_device"] = delta(diff.bytesSentPerDeviceA, diff.bytesSentPerDeviceB);
    j["seconds"] = delta(diff.secondsA, diff.secondsB);
    j["peak_live_bytes_per_device"] = delta(diff.peakLiveBytesA, diff.peakLiveBytesB);
    nlohmann::json replicated;
    replicated["gained"] = nlohmann::json::array();
    for (const ReplicatedTensor& r : diff.replicatedGained)
        replicated["gained"].push_back(replicatedEntryJson(r));
    replicated["lost"] = nlohmann::json::array();
    for (const ReplicatedTensor& r : diff.replicatedLost)
        replicated["lost"].push_back(replicatedEntryJson(r));
    j["replicated"] = replicated;
    return j;
}

std::string partitionDiffText(const PartitionDiff& diff)
{
    std::string out = "A: " + diff.labelA + "\nB: " + diff.labelB + "\n";
    out += diff.meshA == diff.meshB ? "mesh: " + diff.meshA + " on both sides\n"
                                    : "mesh: A " + diff.meshA + ", B " + diff.meshB + "\n";
    if (diff.sameStructure)
        out +=
            "program: the same ops on both sides; " + std::to_string(diff.matchedValues) + " tensors matched by id\n";
    else {
        out += "program: A and B DIFFER IN STRUCTURE; only function arguments and results are matched (by "
               "position), " +
               std::to_string(diff.matchedValues) + " tensors:\n";
        for (const std::string& s : diff.structure)
            out += "  - " + s + "\n";
    }
    if (diff.identical()) {
        out += "no differences: both partitions run the same " + std::to_string(diff.collectivesA) + " collectives (" +
               std::to_string(diff.bytesSentPerDeviceA) + " B sent per device) with the same peak live memory (" +
               std::to_string(diff.peakLiveBytesA) + " B per device)\n";
        if (!diff.notationChanges.empty())
            out += "(" + std::to_string(diff.notationChanges.size()) +
                   " tensors differ only in notation: open or closed dimensions, priorities, replicated axes)\n";
        return out;
    }

    out += "\nsharding changes (" + std::to_string(diff.shardingChanges.size()) +
           (diff.shardingChanges.size() == 1 ? " tensor" : " tensors") + ", bytes of each device's shard):\n";
    if (diff.shardingChanges.empty())
        out += "  none\n";
    for (const TensorShardingChange& c : diff.shardingChanges)
        out += "  " + c.name + (c.nameB.empty() ? "" : " (B: " + c.nameB + ")") + " " + c.type + ": " + c.shardingA +
               " -> " + c.shardingB + ", " + std::to_string(c.bytesPerDeviceA) + " -> " +
               std::to_string(c.bytesPerDeviceB) + " B per device\n";
    if (!diff.notationChanges.empty())
        out += "  (" + std::to_string(diff.notationChanges.size()) +
               " more differ only in notation: open or closed dimensions, priorities, replicated axes)\n";

    out += "\ncollectives: " + std::to_string(diff.collectivesA) + " -> " + std::to_string(diff.collectivesB) + " (" +
           std::to_string(diff.removed.size()) + " removed, " + std::to_string(diff.added.size()) + " added, " +
           std::to_string(diff.changed.size()) + " changed, " + std::to_string(diff.unchangedCollectives) +
           " unchanged)\n";
    for (const DiffCollective& c : diff.removed) {
        out += "  - " + collectiveHead(c.info) + ": " + collectiveCost(c.info) + "\n";
        if (!c.info.cause.empty())
            out += "      why (A): " + c.info.cause + "\n";
    }
    for (const DiffCollective& c : diff.added) {
        out += "  + " + collectiveHead(c.info) + ": " + collectiveCost(c.info) + "\n";
        if (!c.info.cause.empty())
            out += "      why (B): " + c.info.cause + "\n";
    }
    for (const ChangedCollective& c : diff.changed) {
        const CollectiveInfo &x = c.a.info, &y = c.b.info;
        out += "  ~ " + collectiveHead(x) + ": " + std::to_string(x.bytesSentPerDevice) + " -> " +
               std::to_string(y.bytesSentPerDevice) + " B sent per device (local " + shapeText(x.shapeBefore) + " -> " +
               shapeText(y.shapeBefore) + ", payload " + std::to_string(x.payloadBytesPerDevice) + " -> " +
               std::to_string(y.payloadBytesPerDevice) + " B)\n";
        if (x.from != y.from || x.to != y.to)
            out += "      converts " + x.from + " -> " + x.to + " in A, " + y.from + " -> " + y.to + " in B\n";
        if (x.replicaGroups != y.replicaGroups)
            out += "      its replica groups differ\n";
    }

    out += "\ntotals per device (A -> B):\n";
    out += "  bytes sent:       " + std::to_string(diff.bytesSentPerDeviceA) + " -> " +
           std::to_string(diff.bytesSentPerDeviceB) + " B (" +
           signedBytes(diff.bytesSentPerDeviceB - diff.bytesSentPerDeviceA) + ")\n";
    const double dt = diff.secondsB - diff.secondsA;
    out += "  collective time:  " + micros(diff.secondsA) + " -> " + micros(diff.secondsB) + " (" +
           (dt > 0 ? "+" : "") + micros(dt) + ")\n";
    out += "  peak live memory: " + std::to_string(diff.peakLiveBytesA) + " -> " + std::to_string(diff.peakLiveBytesB) +
           " B (" + signedBytes(diff.peakLiveBytesB - diff.peakLiveBytesA) + ")\n";

    out += "\nwhy replicated: " + std::to_string(diff.replicatedGained.size()) + " gained, " +
           std::to_string(diff.replicatedLost.size()) + " lost\n";
    auto listReplicated = [&](const std::vector<ReplicatedTensor>& list, const char* sign, const char* side) {
        for (const ReplicatedTensor& r : list) {
            out += std::string("  ") + sign + " " + r.displayName + " (" + r.id + "): " + r.sharding + " in " + side +
                   ", " + std::to_string(r.extraBytesPerDevice) + " B more per device than an even split\n";
            for (const std::string& reason : r.reasons)
                out += "      - " + reason + "\n";
        }
    };
    listReplicated(diff.replicatedGained, "+", "B");
    listReplicated(diff.replicatedLost, "-", "A");
    return out;
}

} // namespace shardx
