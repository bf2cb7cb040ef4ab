// Trace (Trace.h): the versioned JSON form (`{"format": "shardx-trace", "version": 3, ...}`), written and read back.
#include <map>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/io/JsonAdapters.h"
#include "core/support/JsonText.h"
#include "core/trace/Trace.h"
#include "core/trace/TracePoolJson.h"

namespace shardx {

using io::JsonPathError;
using nlohmann::json;

namespace {

// Steps are the bulk of a trace: their fields are written only when they differ from the
// default, and read back with the default where absent.

/// Sets `o[key] = v` unless `v == def`.
template <typename T, typename D> void put(json& o, const char* key, const T& v, const D& def)
{
    if (!(v == def))
        o[key] = v;
}

/// `j[key]` read with `read`, or `def` where absent; `j` must be an object.
template <typename T, typename Fn> T optField(const json& j, const char* key, Fn&& read, T def)
{
    auto it = j.find(key);
    if (it == j.end())
        return def;
    return io::atKey(key, [&] { return static_cast<T>(read(*it)); });
}

void requireObject(const json& j)
{
    if (!j.is_object())
        throw JsonPathError("expected an object, got " + io::jsonTypeName(j));
}

json axesJson(const std::vector<AxisRef>& axes)
{
    json j = json::array();
    for (const AxisRef& a : axes)
        j.push_back(axisKeyText(a));
    return j;
}

AxisRef readAxis(const json& j)
{
    std::optional<AxisRef> a = parseAxisKeyText(io::readString(j));
    if (!a)
        throw JsonPathError("invalid axis reference '" + j.get<std::string>() + "'");
    return *a;
}

std::vector<AxisRef> readAxes(const json& j) { return io::readArray<AxisRef>(j, readAxis); }

json shardingJson(const TensorSharding& s)
{
    json j;
    to_json(j, s);
    return j;
}

TensorSharding readSharding(const json& j)
{
    TensorSharding s;
    from_json(j, s);
    return s;
}

json tableJson(const TensorFactorShardings& t)
{
    json factors = json::array();
    for (const auto& [f, fs] : t.factors)
        factors.push_back({{"factor", f},
                           {"axes", axesJson(fs.axes)},
                           {"overflow", axesJson(fs.overflowAxes)},
                           {"closed", fs.closed},
                           {"minorMost", fs.minorMost}});
    return {{"factors", factors},
            {"replicated", axesJson(t.replicated)},
            {"unreduced", axesJson(t.unreduced)},
            {"unreducedKind", reductionKindName(t.unreducedKind)},
            {"hasSharding", t.hasSharding}};
}

TensorFactorShardings readTable(const json& j)
{
    TensorFactorShardings t;
    for (const FactorSharding& dummy :
         io::readArray<FactorSharding>(io::requireField(j, "factors"), [&](const json& e) {
             FactorSharding fs;
             const int64_t f = io::readField(e, "factor", io::readInt);
             fs.axes = io::readField(e, "axes", readAxes);
             fs.overflowAxes = io::readField(e, "overflow", readAxes);
             fs.closed = io::readField(e, "closed", io::readBool);
             fs.minorMost = io::readField(e, "minorMost", io::readBool);
             t.factors[f] = fs;
             return fs;
         }))
        (void)dummy;
    t.replicated = io::readField(j, "replicated", readAxes);
    t.unreduced = io::readField(j, "unreduced", readAxes);
    const std::string kind = io::readField(j, "unreducedKind", io::readString);
    t.unreducedKind = parseReductionKind(kind).value_or(ReductionKind::Sum);
    t.hasSharding = io::readField(j, "hasSharding", io::readBool);
    return t;
}

json projectionJson(const ShardingProjection& p)
{
    json ops = json::array(), res = json::array();
    for (const auto& t : p.operands)
        ops.push_back(tableJson(t));
    for (const auto& t : p.results)
        res.push_back(tableJson(t));
    return {{"operands", ops}, {"results", res}};
}

ShardingProjection readProjection(const json& j)
{
    ShardingProjection p;
    p.operands =
        io::readField(j, "operands", [](const json& a) { return io::readArray<TensorFactorShardings>(a, readTable); });
    p.results =
        io::readField(j, "results", [](const json& a) { return io::readArray<TensorFactorShardings>(a, readTable); });
    return p;
}

json optAxis(const std::optional<AxisRef>& a) { return a ? json(axisKeyText(*a)) : json(nullptr); }
std::optional<AxisRef> readOptAxis(const json& j)
{
    return j.is_null() ? std::nullopt : std::optional<AxisRef>(readAxis(j));
}

json decisionJson(const FactorDecision& d)
{
    json tr = json::array();
    for (const AxisTruncation& t : d.truncations)
        tr.push_back({{"axis", axisKeyText(t.axis)},
                      {"replacedBy", optAxis(t.replacedBy)},
                      {"reason", truncationReasonName(t.reason)},
                      {"tensor", t.tensor},
                      {"otherFactor", t.otherFactor}});
    return {{"factor", d.factor},
            {"direction", directionName(d.direction)},
            {"compatible", axesJson(d.compatible)},
            {"result", axesJson(d.result)},
            {"truncations", tr},
            {"expandedTensors", d.expandedTensors},
            {"sourceTensor", d.sourceTensor},
            {"sourceSize", d.sourceSize},
            {"order", d.order}};
}

template <typename E, int N> E readEnum(const json& j, const char* (*name)(E))
{
    const std::string s = io::readString(j);
    for (int i = 0; i < N; ++i)
        if (s == name(static_cast<E>(i)))
            return static_cast<E>(i);
    throw JsonPathError("unknown value '" + s + "'");
}

FactorDecision readDecision(const json& j)
{
    FactorDecision d;
    d.factor = io::readField(j, "factor", io::readInt);
    d.direction = io::readField(j, "direction",
                                [](const json& e) { return readEnum<PropagationDirection, 4>(e, directionName); });
    d.compatible = io::readField(j, "compatible", readAxes);
    d.result = io::readField(j, "result", readAxes);
    d.truncations = io::readField(j, "truncations", [](const json& a) {
        return io::readArray<AxisTruncation>(a, [](const json& e) {
            AxisTruncation t;
            t.axis = io::readField(e, "axis", readAxis);
            t.replacedBy = io::readField(e, "replacedBy", readOptAxis);
            t.reason = io::readField(
                e, "reason", [](const json& r) { return readEnum<TruncationReason, 7>(r, truncationReasonName); });
            t.tensor = static_cast<int>(io::readField(e, "tensor", io::readInt));
            t.otherFactor = io::readField(e, "otherFactor", io::readInt);
            return t;
        });
    });
    d.expandedTensors = io::readField(j, "expandedTensors", [](const json& a) {
        std::vector<int> out;
        for (int64_t v : io::readIntList(a))
            out.push_back(static_cast<int>(v));
        return out;
    });
    d.sourceTensor = static_cast<int>(io::readField(j, "sourceTensor", io::readInt));
    d.sourceSize = io::readField(j, "sourceSize", io::readInt);
    d.order = static_cast<int>(io::readField(j, "order", io::readInt));
    return d;
}

json traceDecisionJson(const TraceDecision& d)
{
    json o = {{"kind", decisionKindName(d.kind)}};
    if (d.axis)
        o["axis"] = axisKeyText(*d.axis);
    if (d.replacedBy)
        o["replacedBy"] = axisKeyText(*d.replacedBy);
    put(o, "culpritTensor", d.culpritTensor, -1);
    put(o, "otherFactor", d.otherFactor, -1);
    put(o, "sourceTensor", d.sourceTensor, -1);
    put(o, "sourceSize", d.sourceSize, -1);
    put(o, "runnerUpSize", d.runnerUpSize, -1);
    return o;
}

DecisionKind readDecisionKind(const json& j)
{
    std::optional<DecisionKind> k = decisionKindFromName(io::readString(j));
    if (!k)
        throw JsonPathError("unknown decision kind '" + j.get<std::string>() + "'");
    return *k;
}

TraceDecision readTraceDecision(const json& j)
{
    requireObject(j);
    TraceDecision d;
    d.kind = io::readField(j, "kind", readDecisionKind);
    d.axis = optField(j, "axis", readOptAxis, std::optional<AxisRef>());
    d.replacedBy = optField(j, "replacedBy", readOptAxis, std::optional<AxisRef>());
    d.culpritTensor = optField(j, "culpritTensor", io::readInt, -1);
    d.otherFactor = optField(j, "otherFactor", io::readInt, int64_t(-1));
    d.sourceTensor = optField(j, "sourceTensor", io::readInt, -1);
    d.sourceSize = optField(j, "sourceSize", io::readInt, int64_t(-1));
    d.runnerUpSize = optField(j, "runnerUpSize", io::readInt, int64_t(-1));
    return d;
}

std::vector<int> readInts(const json& j)
{
    std::vector<int> out;
    for (int64_t v : io::readIntList(j))
        out.push_back(static_cast<int>(v));
    return out;
}

json ruleJson(const TraceRule& r)
{
    json mappings = json::array();
    for (const TensorFactorMapping& m : r.mappings)
        mappings.push_back(m);
    return {{"mappings", mappings}, {"factorSizes", r.factorSizes}};
}

TraceRule readRule(const json& j)
{
    TraceRule r;
    r.mappings = io::readField(j, "mappings", [](const json& a) {
        return io::readArray<TensorFactorMapping>(a, [](const json& m) {
            return io::readArray<DimFactors>(m, [](const json& d) { return io::readIntList(d); });
        });
    });
    r.factorSizes = io::readField(j, "factorSizes", io::readIntList);
    return r;
}

json decisionSetJson(const std::vector<FactorDecision>& ds)
{
    json out = json::array();
    for (const FactorDecision& d : ds)
        out.push_back(decisionJson(d));
    return out;
}

json factorChangesJson(const std::vector<TraceFactorChange>& fs)
{
    json factors = json::array();
    for (const TraceFactorChange& f : fs) {
        json fo = {{"dim", f.dim}, {"factor", f.factor}, {"after", axesJson(f.after)}};
        if (!f.before.empty())
            fo["before"] = axesJson(f.before);
        if (!f.sources.empty())
            fo["sources"] = f.sources;
        if (!f.targets.empty())
            fo["targets"] = f.targets;
        fo["decision"] = traceDecisionJson(f.decision);
        factors.push_back(std::move(fo));
    }
    return factors;
}

std::vector<TraceFactorChange> readFactorChanges(const json& fa)
{
    return io::readArray<TraceFactorChange>(fa, [](const json& fe) {
        requireObject(fe);
        TraceFactorChange f;
        f.dim = static_cast<int>(io::readField(fe, "dim", io::readInt));
        f.factor = io::readField(fe, "factor", io::readInt);
        f.before = optField(fe, "before", readAxes, std::vector<AxisRef>());
        f.after = io::readField(fe, "after", readAxes);
        f.sources = optField(fe, "sources", readInts, std::vector<int>());
        f.targets = optField(fe, "targets", readInts, std::vector<int>());
        f.decision = io::readField(fe, "decision", readTraceDecision);
        return f;
    });
}

json stepJson(const TraceStep& s)
{
    json o = {{"kind", traceStepKindName(s.kind)}};
    put(o, "node", s.node, -1);
    put(o, "op", s.op, -1);
    put(o, "funcResult", s.funcResult, -1);
    put(o, "mesh", s.meshName, std::string());
    put(o, "aggressive", s.aggressive, false);
    put(o, "round", s.round, -1);
    put(o, "userPriority", s.userPriority, int64_t(-1));
    put(o, "group", s.group, int64_t(-1));
    put(o, "note", s.note, std::string());
    put(o, "numOperands", s.numOperands, 0);
    if (!s.tensorValues.empty())
        o["tensorValues"] = s.tensorValues;
    put(o, "rule", s.rule, -1);
    put(o, "before", s.before, -1);
    put(o, "after", s.after, -1);
    put(o, "decisions", s.decisions, -1);
    if (s.changes.empty())
        return o;
    json changes = json::array();
    for (const TraceChange& c : s.changes) {
        json co = {{"value", c.value}};
        put(co, "tensor", c.tensor, -1);
        put(co, "before", c.before, -1);
        put(co, "after", c.after, -1);
        if (c.kind != DecisionKind::CompatiblePrefix)
            co["kind"] = decisionKindName(c.kind);
        put(co, "factors", c.factors, -1);
        changes.push_back(std::move(co));
    }
    o["changes"] = std::move(changes);
    return o;
}

/// Reads `j[key]` as an index in [-1, size) (-1 where absent), path-annotated.
int readIndex(const json& j, const char* key, size_t size)
{
    const int64_t v = optField(j, key, io::readInt, int64_t(-1));
    if (v < -1 || v >= static_cast<int64_t>(size)) {
        JsonPathError e("index " + std::to_string(v) + " out of range [-1, " + std::to_string(size) + ")");
        e.prependKey(key);
        throw e;
    }
    return static_cast<int>(v);
}

/// Sizes of the tables a step refers to.
struct TraceSizes {
    size_t values = 0, ops = 0, nodes = 0, shardings = 0, rules = 0, tables = 0, decisionSets = 0, factorChangeSets = 0;
};

TraceStep readStep(const json& j, const TraceSizes& n)
{
    requireObject(j);
    const size_t numValues = n.values;
    TraceStep s;
    s.kind = io::readField(j, "kind", [](const json& e) { return readEnum<TraceStepKind, 11>(e, traceStepKindName); });
    s.node = readIndex(j, "node", n.nodes);
    s.op = readIndex(j, "op", n.ops);
    s.funcResult = optField(j, "funcResult", io::readInt, -1);
    s.meshName = optField(j, "mesh", io::readString, std::string());
    s.aggressive = optField(j, "aggressive", io::readBool, false);
    s.round = optField(j, "round", io::readInt, -1);
    s.userPriority = optField(j, "userPriority", io::readInt, int64_t(-1));
    s.group = optField(j, "group", io::readInt, int64_t(-1));
    s.note = optField(j, "note", io::readString, std::string());
    s.numOperands = optField(j, "numOperands", io::readInt, 0);
    s.tensorValues = optField(j, "tensorValues", readInts, std::vector<int>());
    for (size_t i = 0; i < s.tensorValues.size(); ++i)
        if (s.tensorValues[i] < -1 || s.tensorValues[i] >= static_cast<int>(numValues)) {
            JsonPathError e("value index " + std::to_string(s.tensorValues[i]) + " out of range");
            e.prependIndex(i);
            e.prependKey("tensorValues");
            throw e;
        }
    s.rule = readIndex(j, "rule", n.rules);
    s.before = readIndex(j, "before", n.tables);
    s.after = readIndex(j, "after", n.tables);
    s.decisions = readIndex(j, "decisions", n.decisionSets);
    s.changes = optField(
        j, "changes",
        [&](const json& a) {
            return io::readArray<TraceChange>(a, [&](const json& e) {
                requireObject(e);
                TraceChange c;
                c.value = static_cast<int>(io::readField(e, "value", io::readInt));
                if (c.value < -1 || c.value >= static_cast<int>(numValues)) {
                    JsonPathError err("value index " + std::to_string(c.value) + " out of range");
                    err.prependKey("value");
                    throw err;
                }
                c.tensor = optField(e, "tensor", io::readInt, -1);
                c.before = readIndex(e, "before", n.shardings);
                c.after = readIndex(e, "after", n.shardings);
                c.kind = optField(e, "kind", readDecisionKind, DecisionKind::CompatiblePrefix);
                c.factors = readIndex(e, "factors", n.factorChangeSets);
                return c;
            });
        },
        std::vector<TraceChange>());
    return s;
}

} // namespace

namespace {

/// Writes `"key": [` then one compact element per line, then `]`.
template <typename C, typename Fn>
void writeArray(std::ostream& out, const char* key, const C& items, Fn&& toJson, bool last = false)
{
    out << " \"" << key << "\": [";
    bool first = true;
    for (const auto& item : items) {
        out << (first ? "\n  " : ",\n  ") << toJson(item).dump();
        first = false;
    }
    out << (first ? "]" : "\n ]") << (last ? "\n" : ",\n");
}

} // namespace

void Trace::writeJson(std::ostream& out) const
{
    out << "{\n \"format\": \"shardx-trace\",\n \"version\": " << kFormatVersion
        << ",\n \"keyframeInterval\": " << m_interval << ",\n";
    writeArray(out, "values", m_data.values, [&](const TraceValue& v) {
        json o = {{"id", v.id}, {"name", v.displayName}};
        if (v.scope >= 0)
            o["scope"] = m_data.scopeName(v.scope);
        if (v.op >= 0)
            o["op"] = v.op;
        if (v.derivedFrom >= 0)
            o["from"] = v.derivedFrom;
        return o;
    });
    writeArray(out, "ops", m_data.ops, [&](const TraceOp& op) {
        json o = {{"id", op.id}, {"name", op.name}};
        if (!op.displayName.empty())
            o["display"] = op.displayName;
        if (op.scope >= 0)
            o["scope"] = m_data.scopeName(op.scope);
        return o;
    });
    writeArray(out, "nodes", m_data.nodes, [](const TraceNode& n) {
        return json{
            {"kind", traceNodeKindName(n.kind)}, {"parent", n.parent},  {"label", n.label}, {"number", n.number},
            {"firstStep", n.firstStep},          {"endStep", n.endStep}};
    });
    writeArray(out, "shardings", m_data.shardings, shardingJson);
    writeArray(out, "rules", m_data.rules, ruleJson);
    writeArray(out, "tables", m_data.tables, projectionJson);
    writeArray(out, "decisionSets", m_data.decisionSets, decisionSetJson);
    writeArray(out, "factorChangeSets", m_data.factorChangeSets, factorChangesJson);
    out << " \"initial\": " << json(m_data.initial).dump() << ",\n";
    writeArray(out, "steps", m_data.steps, stepJson, true);
    out << "}\n";
}

size_t tracePoolSize(const TraceData& d, TracePool p)
{
    switch (p) {
    case TracePool::Shardings: return d.shardings.size();
    case TracePool::Rules: return d.rules.size();
    case TracePool::Tables: return d.tables.size();
    case TracePool::DecisionSets: return d.decisionSets.size();
    case TracePool::FactorChangeSets: return d.factorChangeSets.size();
    }
    return 0;
}

std::string tracePoolEntryJson(const TraceData& d, TracePool p, size_t i)
{
    switch (p) {
    case TracePool::Shardings: return shardingJson(d.shardings[i]).dump();
    case TracePool::Rules: return ruleJson(d.rules[i]).dump();
    case TracePool::Tables: return projectionJson(d.tables[i]).dump();
    case TracePool::DecisionSets: return decisionSetJson(d.decisionSets[i]).dump();
    case TracePool::FactorChangeSets: return factorChangesJson(d.factorChangeSets[i]).dump();
    }
    return {};
}

Status appendTracePoolEntry(TraceData& d, TracePool p, std::string_view text)
{
    Expected<json> parsed = parseJsonText(std::string(text), "");
    if (!parsed)
        return Error{"invalid JSON: " + parsed.error().message, {}};
    try {
        const json& j = *parsed;
        switch (p) {
        case TracePool::Shardings: d.shardings.push_back(readSharding(j)); break;
        case TracePool::Rules: d.rules.push_back(readRule(j)); break;
        case TracePool::Tables: d.tables.push_back(readProjection(j)); break;
        case TracePool::DecisionSets: d.decisionSets.push_back(io::readArray<FactorDecision>(j, readDecision)); break;
        case TracePool::FactorChangeSets: d.factorChangeSets.push_back(readFactorChanges(j)); break;
        }
    } catch (const JsonPathError& e) {
        return Error{(e.path().empty() ? std::string("/") : e.path()) + ": " + e.message(), {}};
    } catch (const std::exception& e) {
        return Error{std::string("invalid entry: ") + e.what(), {}};
    }
    return Status::success();
}

std::string Trace::toJson() const
{
    std::ostringstream out;
    writeJson(out);
    return out.str();
}

Expected<Trace> Trace::fromJson(const std::string& text)
{
    Expected<json> parsed = parseJsonText(text, "");
    if (!parsed)
        return Error{"invalid JSON: line " + std::to_string(parsed.error().pos.line) + ", column " +
                         std::to_string(parsed.error().pos.col) + ": " + parsed.error().message,
                     {}};
    json doc = std::move(*parsed);
    try {
        if (!doc.is_object())
            throw JsonPathError("expected an object, got " + io::jsonTypeName(doc));
        if (io::readField(doc, "format", io::readString) != "shardx-trace") {
            JsonPathError e("not a shardx trace (format must be \"shardx-trace\")");
            e.prependKey("format");
            throw e;
        }
        const int64_t version = io::readField(doc, "version", io::readInt);
        if (version != kFormatVersion) {
            JsonPathError e("unsupported trace version " + std::to_string(version));
            e.prependKey("version");
            throw e;
        }
        TraceData d;
        const int interval = static_cast<int>(io::readField(doc, "keyframeInterval", io::readInt));
        // Scopes are written out by name and pooled again in first-seen order.
        std::map<std::string, int> scopeIds;
        auto scopeId = [&](const std::string& name) {
            if (name.empty())
                return -1;
            auto [it, added] = scopeIds.emplace(name, static_cast<int>(d.scopes.size()));
            if (added)
                d.scopes.push_back(name);
            return it->second;
        };
        d.values = io::readField(doc, "values", [&](const json& a) {
            return io::readArray<TraceValue>(a, [&](const json& e) {
                requireObject(e);
                return TraceValue{io::readField(e, "id", io::readString), io::readField(e, "name", io::readString),
                                  scopeId(optField(e, "scope", io::readString, std::string())),
                                  static_cast<int>(optField(e, "op", io::readInt, int64_t(-1))),
                                  static_cast<int>(optField(e, "from", io::readInt, int64_t(-1)))};
            });
        });
        d.ops = io::readField(doc, "ops", [&](const json& a) {
            return io::readArray<TraceOp>(a, [&](const json& e) {
                requireObject(e);
                return TraceOp{io::readField(e, "id", io::readString), io::readField(e, "name", io::readString),
                               scopeId(optField(e, "scope", io::readString, std::string())),
                               optField(e, "display", io::readString, std::string())};
            });
        });
        d.nodes = io::readField(doc, "nodes", [](const json& a) {
            return io::readArray<TraceNode>(a, [](const json& e) {
                TraceNode n;
                n.kind = io::readField(e, "kind",
                                       [](const json& k) { return readEnum<TraceNodeKind, 5>(k, traceNodeKindName); });
                n.parent = static_cast<int>(io::readField(e, "parent", io::readInt));
                n.label = io::readField(e, "label", io::readString);
                n.number = io::readField(e, "number", io::readInt);
                n.firstStep = static_cast<int>(io::readField(e, "firstStep", io::readInt));
                n.endStep = static_cast<int>(io::readField(e, "endStep", io::readInt));
                return n;
            });
        });
        // Nodes open before the nodes inside them: a parent comes first (a cycle would never end).
        for (size_t i = 0; i < d.nodes.size(); ++i)
            if (d.nodes[i].parent < -1 || d.nodes[i].parent >= static_cast<int>(i)) {
                JsonPathError e("parent " + std::to_string(d.nodes[i].parent) + " of node " + std::to_string(i) +
                                " must be -1 or an earlier node");
                e.prependKey("parent");
                e.prependIndex(i);
                e.prependKey("nodes");
                throw e;
            }
        d.shardings = io::readField(doc, "shardings",
                                    [](const json& a) { return io::readArray<TensorSharding>(a, readSharding); });
        d.rules = io::readField(doc, "rules", [](const json& a) { return io::readArray<TraceRule>(a, readRule); });
        d.tables = io::readField(doc, "tables",
                                 [](const json& a) { return io::readArray<ShardingProjection>(a, readProjection); });
        d.decisionSets = io::readField(doc, "decisionSets", [](const json& a) {
            return io::readArray<std::vector<FactorDecision>>(
                a, [](const json& ds) { return io::readArray<FactorDecision>(ds, readDecision); });
        });
        d.factorChangeSets = io::readField(doc, "factorChangeSets", [](const json& a) {
            return io::readArray<std::vector<TraceFactorChange>>(a, readFactorChanges);
        });
        const TraceSizes sizes{d.values.size(), d.ops.size(),    d.nodes.size(),        d.shardings.size(),
                               d.rules.size(),  d.tables.size(), d.decisionSets.size(), d.factorChangeSets.size()};
        d.initial = io::readField(doc, "initial", [&](const json& a) {
            if (!a.is_array())
                throw JsonPathError("expected an array, got " + io::jsonTypeName(a));
            std::vector<int> out(a.size(), -1);
            for (size_t i = 0; i < a.size(); ++i)
                try {
                    const int64_t v = io::readInt(a[i]);
                    if (v < -1 || v >= static_cast<int64_t>(sizes.shardings))
                        throw JsonPathError("sharding id " + std::to_string(v) + " out of range");
                    out[i] = static_cast<int>(v);
                } catch (JsonPathError& e) {
                    e.prependIndex(i);
                    throw;
                }
            return out;
        });
        if (d.initial.size() != d.values.size()) {
            JsonPathError e("expected " + std::to_string(d.values.size()) + " initial shardings (one per value)");
            e.prependKey("initial");
            throw e;
        }
        d.steps = io::readField(doc, "steps", [&](const json& a) {
            return io::readArray<TraceStep>(a, [&](const json& e) { return readStep(e, sizes); });
        });
        if (Status st = validate(d); !st)
            return Error{"/" + st.error().message, {}};
        return Trace(std::move(d), interval);
    } catch (const JsonPathError& e) {
        return Error{(e.path().empty() ? std::string("/") : e.path()) + ": " + e.message(), {}};
    }
}

} // namespace shardx
