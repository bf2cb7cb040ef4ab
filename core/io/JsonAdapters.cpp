// nlohmann/json adapters for meshes, shardings, rules, types, attributes and locations.
#include "core/io/JsonAdapters.h"

#include <cmath>
#include <cstring>
#include <unordered_set>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/io/MlirReaderImpl.h"
#include "core/support/Arithmetic.h"
#include "core/support/StringUtil.h"

using nlohmann::json;

namespace shardx::io {

void JsonPathError::prependKey(const std::string& key)
{
    std::string escaped;
    for (char c : key) {
        if (c == '~')
            escaped += "~0";
        else if (c == '/')
            escaped += "~1";
        else
            escaped += c;
    }
    m_path = "/" + escaped + m_path;
}

void JsonPathError::prependIndex(size_t index) { m_path = "/" + std::to_string(index) + m_path; }

namespace {
thread_local int t_nesting = 0;
} // namespace

JsonNestingGuard::JsonNestingGuard() { ++t_nesting; }
JsonNestingGuard::~JsonNestingGuard() { --t_nesting; }
bool JsonNestingGuard::ok() const { return t_nesting <= kMaxNestingDepth; }

void JsonNestingGuard::check() const
{
    if (!ok())
        throw JsonPathError(message());
}

std::string JsonNestingGuard::message()
{
    return "nesting too deep (more than " + std::to_string(kMaxNestingDepth) +
           " levels of attributes, types, locations and ops)";
}

std::string jsonTypeName(const json& j)
{
    if (j.is_number_integer())
        return "integer";
    if (j.is_number_float())
        return "number";
    return j.type_name();
}

const json& requireField(const json& j, const char* key)
{
    if (!j.is_object() || !j.contains(key))
        throw JsonPathError(std::string("expected an object with \"") + key + "\"");
    return j.at(key);
}

int64_t readInt(const json& j)
{
    if (!j.is_number_integer())
        throw JsonPathError("expected an integer, got " + jsonTypeName(j));
    return j.get<int64_t>();
}

bool readBool(const json& j)
{
    if (!j.is_boolean())
        throw JsonPathError("expected true or false, got " + jsonTypeName(j));
    return j.get<bool>();
}

std::string readString(const json& j)
{
    if (!j.is_string())
        throw JsonPathError("expected a string, got " + jsonTypeName(j));
    return j.get<std::string>();
}

json doubleToJson(double v)
{
    if (std::isfinite(v))
        return v;
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    static const char* digits = "0123456789ABCDEF";
    std::string s = "0x";
    for (int shift = 60; shift >= 0; shift -= 4)
        s += digits[(bits >> shift) & 0xF];
    return s;
}

double readDouble(const json& j)
{
    if (j.is_number())
        return j.get<double>();
    if (j.is_string()) {
        std::string s = j.get<std::string>();
        if (s.size() == 18 && s[0] == '0' && s[1] == 'x') {
            uint64_t bits = 0;
            bool ok = true;
            for (size_t i = 2; i < s.size() && ok; ++i) {
                char c = s[i];
                int d = c >= '0' && c <= '9'   ? c - '0'
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10
                        : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                               : -1;
                ok = d >= 0;
                bits = (bits << 4) | static_cast<uint64_t>(d < 0 ? 0 : d);
            }
            if (ok) {
                double v = 0;
                std::memcpy(&v, &bits, sizeof v);
                return v;
            }
        }
    }
    throw JsonPathError("expected a number (or \"0x\" and 16 hex digits of a non-finite double), got " +
                        jsonTypeName(j));
}

std::vector<int64_t> readIntList(const json& j) { return readArray<int64_t>(j, readInt); }

std::string bytesToHex(const std::vector<uint8_t>& bytes)
{
    static const char* digits = "0123456789ABCDEF";
    std::string s;
    s.reserve(bytes.size() * 2);
    for (uint8_t b : bytes) {
        s += digits[b >> 4];
        s += digits[b & 0xF];
    }
    return s;
}

std::vector<uint8_t> hexToBytes(const json& j)
{
    std::string s = readString(j);
    auto nibble = [](char c) {
        return c >= '0' && c <= '9'   ? c - '0'
               : c >= 'A' && c <= 'F' ? c - 'A' + 10
               : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                      : -1;
    };
    if (s.size() % 2 != 0)
        throw JsonPathError("expected an even number of hex digits, got " + std::to_string(s.size()));
    std::vector<uint8_t> out(s.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) {
        int hi = nibble(s[2 * i]), lo = nibble(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            throw JsonPathError("expected hex digits, found '" + s.substr(2 * i, 2) + "' at offset " +
                                std::to_string(2 * i));
        out[i] = static_cast<uint8_t>(hi * 16 + lo);
    }
    return out;
}

} // namespace shardx::io

using namespace shardx::io;

namespace shardx {

namespace {

std::vector<AxisRef> readAxes(const json& j)
{
    return readArray<AxisRef>(j, [](const json& e) { return e.get<AxisRef>(); });
}

json axesToJson(const std::vector<AxisRef>& axes)
{
    json a = json::array();
    for (const AxisRef& r : axes)
        a.push_back(r);
    return a;
}

} // namespace

void to_json(json& j, const AxisRef& a)
{
    j = json{{"name", a.name}};
    if (a.sub) {
        j["pre"] = a.sub->preSize;
        j["size"] = a.sub->size;
    }
}

void from_json(const json& j, AxisRef& a)
{
    a = AxisRef(readField(j, "name", readString));
    bool hasPre = j.contains("pre"), hasSize = j.contains("size");
    if (hasPre != hasSize)
        throw JsonPathError(hasPre ? "expected an object with \"size\" (a sub-axis has both \"pre\" and \"size\")"
                                   : "expected an object with \"pre\" (a sub-axis has both \"pre\" and \"size\")");
    if (hasPre)
        a.sub = SubAxisInfo{readField(j, "pre", readInt), readField(j, "size", readInt)};
}

void to_json(json& j, const Mesh& m)
{
    json axes = json::array();
    for (const MeshAxis& a : m.axes())
        axes.push_back(json{{"name", a.name}, {"size", a.size}});
    j = json{{"axes", axes}};
    if (!m.deviceIds().empty())
        j["deviceIds"] = m.deviceIds();
}

void from_json(const json& j, Mesh& m)
{
    std::vector<MeshAxis> axes = readField(j, "axes", [](const json& a) {
        return readArray<MeshAxis>(a, [](const json& e) {
            return MeshAxis{readField(e, "name", readString), readField(e, "size", readInt)};
        });
    });
    std::vector<int64_t> ids;
    if (j.contains("deviceIds"))
        ids = readField(j, "deviceIds", readIntList);
    m = Mesh(std::move(axes), std::move(ids));
}

void to_json(json& j, const DimSharding& d)
{
    j = json{{"axes", axesToJson(d.axes)}, {"closed", d.closed}};
    if (d.priority)
        j["priority"] = *d.priority;
}

void from_json(const json& j, DimSharding& d)
{
    d = DimSharding{};
    d.axes = readField(j, "axes", readAxes);
    d.closed = readField(j, "closed", readBool);
    if (j.contains("priority"))
        d.priority = readField(j, "priority", readInt);
}

void to_json(json& j, const MeshRef& r)
{
    if (r.inlineMesh)
        j = json{{"inline", *r.inlineMesh}};
    else
        j = json{{"symbol", r.symbol}};
}

void from_json(const json& j, MeshRef& r)
{
    r = MeshRef{};
    if (j.is_object() && j.contains("inline"))
        r.inlineMesh = readField(j, "inline", [](const json& m) { return m.get<Mesh>(); });
    else if (j.is_object() && j.contains("symbol"))
        r.symbol = readField(j, "symbol", readString);
    else
        throw JsonPathError("expected an object with \"symbol\" or \"inline\"");
}

void to_json(json& j, const TensorSharding& s)
{
    json dims = json::array();
    for (const DimSharding& d : s.dims)
        dims.push_back(d);
    j = json{{"mesh", s.mesh}, {"dims", dims}};
    if (!s.replicated.empty())
        j["replicated"] = axesToJson(s.replicated);
    if (!s.unreduced.empty()) {
        j["unreduced"] = axesToJson(s.unreduced);
        j["unreducedKind"] = reductionKindName(s.unreducedKind);
    }
}

void from_json(const json& j, TensorSharding& s)
{
    s = TensorSharding{};
    s.mesh = readField(j, "mesh", [](const json& m) { return m.get<MeshRef>(); });
    s.dims = readField(j, "dims", [](const json& a) {
        return readArray<DimSharding>(a, [](const json& e) { return e.get<DimSharding>(); });
    });
    if (j.contains("replicated"))
        s.replicated = readField(j, "replicated", readAxes);
    if (j.contains("unreduced"))
        s.unreduced = readField(j, "unreduced", readAxes);
    if (j.contains("unreducedKind")) {
        s.unreducedKind = readField(j, "unreducedKind", [](const json& k) {
            std::string name = readString(k);
            for (ReductionKind r : {ReductionKind::Sum, ReductionKind::Max, ReductionKind::Min})
                if (name == reductionKindName(r))
                    return r;
            throw JsonPathError("expected \"sum\", \"max\" or \"min\", got \"" + name + "\"");
        });
    }
}

void to_json(json& j, const OpShardingRule& r)
{
    json factors = json::array();
    for (size_t f = 0; f < r.factorSizes.size(); ++f)
        factors.push_back(json{{"name", factorName(static_cast<int64_t>(f))}, {"size", r.factorSizes[f]}});
    j = json{{"factors", factors}, {"operands", r.operands}, {"results", r.results}};
    auto optional = [&](const char* key, const std::vector<int64_t>& v) {
        if (!v.empty())
            j[key] = v;
    };
    optional("reduction", r.reductionFactors);
    optional("needReplication", r.needReplicationFactors);
    optional("permutation", r.permutationFactors);
    optional("blocked", r.blockedPropagationFactors);
    if (r.isCustom)
        j["custom"] = true;
}

void from_json(const json& j, OpShardingRule& r)
{
    r = OpShardingRule{};
    r.factorSizes = readField(j, "factors", [](const json& a) {
        return readArray<int64_t>(a, [](const json& f) { return readField(f, "size", readInt); });
    });
    // Factor indices are not range-checked here: invalid rules are valid documents (the verifier
    // reports them, as it does for MLIR input).
    auto readMappings = [](const json& a) {
        return readArray<TensorFactorMapping>(
            a, [](const json& t) { return readArray<DimFactors>(t, [](const json& d) { return readIntList(d); }); });
    };
    r.operands = readField(j, "operands", readMappings);
    r.results = readField(j, "results", readMappings);
    auto optional = [&](const char* key, std::vector<int64_t>& out) {
        if (j.contains(key))
            out = readField(j, key, readIntList);
    };
    optional("reduction", r.reductionFactors);
    optional("needReplication", r.needReplicationFactors);
    optional("permutation", r.permutationFactors);
    optional("blocked", r.blockedPropagationFactors);
    if (j.contains("custom"))
        r.isCustom = readField(j, "custom", readBool);
}

} // namespace shardx

namespace shardx::ir {

namespace {

json typesToJson(const std::vector<Type>& types)
{
    json a = json::array();
    for (const Type& t : types)
        a.push_back(t);
    return a;
}

std::vector<Type> readTypes(const json& j)
{
    return readArray<Type>(j, [](const json& e) { return e.get<Type>(); });
}

/// `spelling` as the MLIR reader reads the type `kind` names (`tensor` for an element type, `scalar`,
/// `opaque`), unchanged when it prints it back; else a JsonPathError. A document may hold nothing that
/// its MLIR text could not (an element type `f31` verified, printed, and failed to read back).
std::string readTypeSpelling(const json& j, const char* kind)
{
    std::string spelling = readString(j);
    // Spellings checked on this thread (most documents use a handful), kept to a bounded number.
    thread_local std::unordered_set<std::string> t_checked;
    const std::string key = std::string(kind) + ":" + spelling;
    if (t_checked.count(key))
        return spelling;
    const bool element = std::strcmp(kind, "tensor") == 0;
    const bool opaque = std::strcmp(kind, "opaque") == 0;
    Type t;
    DiagnosticList diags;
    io::ReadOptions options;
    options.allowUnregisteredDialects = true;
    const bool read = io::parseType(element ? "tensor<" + spelling + ">" : spelling, t, diags, options);
    const bool same = read && (element ? t.isRankedTensor() && t.shape().empty() && t.elementType() == spelling
                                       : (t.kind() == Type::Kind::Opaque || t.kind() == Type::Kind::Scalar) &&
                                             t.name() == spelling && (t.kind() == Type::Kind::Opaque) == opaque);
    if (!same)
        throw JsonPathError(std::string("expected ") +
                            (element  ? "an element type"
                             : opaque ? "an opaque type"
                                      : "a scalar type") +
                            " as MLIR spells it, got \"" + spelling + "\"");
    if (t_checked.size() >= 4096)
        t_checked.clear();
    t_checked.insert(key);
    return spelling;
}

std::string stringFromBytes(const std::vector<uint8_t>& b) { return std::string(b.begin(), b.end()); }

/// Bytes per element of a numeric element type as the MLIR reader stores it (complex: both parts), 0 when
/// the type is not numeric.
int64_t storedElementBytes(const std::string& element)
{
    if (element.rfind("complex<", 0) == 0 && element.back() == '>')
        return 2 * storedElementBytes(element.substr(8, element.size() - 9));
    if (element == "index")
        return 8;
    if (!isIntegerElementType(element) && !isFloatElementType(element))
        return 0;
    const int width = elementBitWidth(element);
    return width > 0 ? (width + 7) / 8 : 0;
}

/// What is wrong with the data of a numeric (not i1, see denseI1DataProblem) `dense` of a static shape, empty
/// when nothing: one element (a splat) or one per element, as the MLIR reader stores them. A document may hold
/// nothing its MLIR text could not (8 bytes for 2^40 f32 elements printed as hex that does not read back).
std::string denseDataProblem(const DenseElementsAttr& dense)
{
    const Type& type = dense.type;
    if (!dense.strings.empty() || !type.isRankedTensor() || !type.hasStaticShape() || type.elementType() == "i1")
        return {};
    const int64_t bytes = storedElementBytes(type.elementType());
    if (bytes == 0)
        return {};
    const int64_t n = type.numElements();
    const std::optional<int64_t> all = checkedMul(n, bytes);
    const size_t size = dense.data.size();
    if (size == static_cast<size_t>(bytes) || (!dense.splat && all && size == static_cast<size_t>(*all)))
        return {};
    return std::to_string(size) + " bytes of " + type.elementType() + " data for " + std::to_string(n) +
           " elements (expected " + std::to_string(bytes) + " for a splat" +
           (dense.splat ? std::string()
            : all       ? " or " + std::to_string(*all)
                        : std::string(" or more than fit")) +
           ")";
}

json edgeNodeToJson(const EdgeNode& n) { return (n.isResult ? "result-" : "operand-") + std::to_string(n.index); }

EdgeNode edgeNodeFromJson(const json& j)
{
    std::string s = readString(j);
    EdgeNode n;
    std::string digits;
    if (s.rfind("result-", 0) == 0) {
        n.isResult = true;
        digits = s.substr(7);
    } else if (s.rfind("operand-", 0) == 0) {
        digits = s.substr(8);
    }
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 12)
        throw JsonPathError("expected \"operand-N\" or \"result-N\", got \"" + s + "\"");
    n.index = std::stoll(digits);
    return n;
}

struct ToJson {
    json operator()(const UnitAttr&) const { return json{{"kind", "unit"}}; }
    json operator()(const BoolAttr& a) const { return json{{"kind", "bool"}, {"value", a.value}}; }
    json operator()(const IntegerAttr& a) const
    {
        return json{{"kind", "integer"}, {"value", a.value}, {"type", a.type}};
    }
    json operator()(const FloatAttr& a) const
    {
        return json{{"kind", "float"}, {"value", doubleToJson(a.value)}, {"type", a.type}};
    }
    json operator()(const StringAttr& a) const
    {
        if (isValidUtf8(a.value))
            return json{{"kind", "string"}, {"value", a.value}};
        return json{{"kind", "string"}, {"hex", bytesToHex(std::vector<uint8_t>(a.value.begin(), a.value.end()))}};
    }
    json operator()(const TypeAttr& a) const { return json{{"kind", "type"}, {"type", a.type}}; }
    json operator()(const SymbolRefAttr& a) const { return json{{"kind", "symbol_ref"}, {"path", a.path}}; }
    json operator()(const ArrayAttr& a) const
    {
        json elems = json::array();
        for (const AttrPtr& e : a.elements)
            elems.push_back(e ? attributeToJson(*e) : json());
        return json{{"kind", "array"}, {"elements", elems}};
    }
    json operator()(const DenseArrayAttr& a) const
    {
        json j{{"kind", "dense_array"}, {"element", a.elementType}};
        if (!a.ints.empty())
            j["ints"] = a.ints;
        if (!a.floats.empty()) {
            json f = json::array();
            for (double d : a.floats)
                f.push_back(doubleToJson(d));
            j["floats"] = f;
        }
        return j;
    }
    json operator()(const DenseElementsAttr& a) const
    {
        json j{{"kind", "dense"}, {"type", a.type}, {"splat", a.splat}, {"data", bytesToHex(a.data)}};
        if (!a.strings.empty()) {
            json s = json::array();
            for (const std::string& str : a.strings)
                s.push_back(bytesToHex(std::vector<uint8_t>(str.begin(), str.end())));
            j["strings"] = s;
        }
        return j;
    }
    json operator()(const DenseResourceAttr& a) const
    {
        return json{{"kind", "dense_resource"}, {"name", a.name}, {"type", a.type}};
    }
    json operator()(const DictionaryAttr& a) const
    {
        return json{{"kind", "dictionary"}, {"entries", attrListToJson(a.entries)}};
    }
    json operator()(const OpaqueAttr& a) const
    {
        return json{{"kind", "opaque"}, {"dialect", a.dialect}, {"mnemonic", a.mnemonic}, {"body", a.body}};
    }
    json operator()(const MeshAttr& a) const
    {
        json j = a.mesh;
        j["kind"] = "mesh";
        return j;
    }
    template <typename T> json operator()(const Boxed<T>& a) const { return (*this)(a.get()); }
    json operator()(const ShardingAttr& a) const
    {
        json j = a.sharding;
        j["kind"] = "sharding";
        return j;
    }
    json operator()(const ShardingPerValueAttr& a) const
    {
        json s = json::array();
        for (const TensorSharding& t : a.value.shardings)
            s.push_back(t);
        return json{{"kind", "sharding_per_value"}, {"shardings", s}};
    }
    json operator()(const OpShardingRuleAttr& a) const
    {
        json j = a.rule;
        j["kind"] = "op_sharding_rule";
        return j;
    }
    json operator()(const ManualAxesAttr& a) const { return json{{"kind", "manual_axes"}, {"axes", a.axes}}; }
    json operator()(const AxisRefListAttr& a) const { return json{{"kind", "axis_ref_list"}, {"axes", a.axes}}; }
    json operator()(const ListOfAxisRefListsAttr& a) const
    {
        return json{{"kind", "list_of_axis_ref_lists"}, {"lists", a.lists}};
    }
    json operator()(const AllToAllParamListAttr& a) const
    {
        json params = json::array();
        for (const AllToAllParam& p : a.params)
            params.push_back(json{{"axes", p.axes}, {"srcDim", p.srcDim}, {"tgtDim", p.tgtDim}});
        return json{{"kind", "all_to_all_params"}, {"params", params}};
    }
    json operator()(const PropagationEdgesAttr& a) const
    {
        json steps = json::array();
        for (const PropagationEdgeStep& s : a.steps) {
            json entries = json::array();
            for (const PropagationEdgeEntry& e : s.entries) {
                json targets = json::array();
                for (const EdgeNode& t : e.targets)
                    targets.push_back(edgeNodeToJson(t));
                entries.push_back(json{{"axis", e.axis}, {"source", edgeNodeToJson(e.source)}, {"targets", targets}});
            }
            steps.push_back(json{{"step", s.step}, {"entries", entries}});
        }
        return json{{"kind", "propagation_edges"}, {"steps", steps}};
    }
    json operator()(const LocationAttr& a) const { return json{{"kind", "location"}, {"location", locationToJson(a)}}; }
};

std::shared_ptr<const LocationAttr> locPtrFromJson(const json& j)
{
    return std::make_shared<const LocationAttr>(locationFromJson(j));
}

AttrPtr attrFromKind(const std::string& kind, const json& j)
{
    if (kind == "unit")
        return makeAttr(UnitAttr{});
    if (kind == "bool")
        return makeAttr(BoolAttr{readField(j, "value", readBool)});
    if (kind == "integer")
        return makeAttr(IntegerAttr{readField(j, "value", readInt),
                                    readField(j, "type", [](const json& t) { return t.get<Type>(); })});
    if (kind == "float")
        return makeAttr(FloatAttr{readField(j, "value", readDouble),
                                  readField(j, "type", [](const json& t) { return t.get<Type>(); })});
    if (kind == "string") {
        if (j.contains("hex"))
            return makeAttr(StringAttr{stringFromBytes(readField(j, "hex", hexToBytes))});
        return makeAttr(StringAttr{readField(j, "value", readString)});
    }
    if (kind == "type")
        return makeAttr(TypeAttr{readField(j, "type", [](const json& t) { return t.get<Type>(); })});
    if (kind == "symbol_ref")
        return makeAttr(
            SymbolRefAttr{readField(j, "path", [](const json& p) { return readArray<std::string>(p, readString); })});
    if (kind == "array")
        return makeAttr(ArrayAttr{
            readField(j, "elements", [](const json& a) { return readArray<AttrPtr>(a, attributeFromJson); })});
    if (kind == "dense_array") {
        DenseArrayAttr a;
        a.elementType = readField(j, "element", [](const json& e) {
            // The element types MLIR's `array<T: ...>` takes.
            std::string t = readString(e);
            if (ir::isDenseArrayElementType(t))
                return t;
            throw JsonPathError("a dense array's element type is one of i1, i8, i16, i32, i64, f32, f64, not '" + t +
                                "'");
        });
        if (j.contains("ints"))
            a.ints = readField(j, "ints", readIntList);
        if (j.contains("floats"))
            a.floats = readField(j, "floats", [](const json& f) { return readArray<double>(f, readDouble); });
        return makeAttr(std::move(a));
    }
    if (kind == "dense") {
        DenseElementsAttr a;
        a.type = readField(j, "type", [](const json& t) { return t.get<Type>(); });
        a.splat = readField(j, "splat", readBool);
        a.data = readField(j, "data", hexToBytes);
        if (j.contains("strings"))
            a.strings = readField(j, "strings", [](const json& s) {
                return readArray<std::string>(s, [](const json& e) { return stringFromBytes(hexToBytes(e)); });
            });
        if (std::string why = denseI1DataProblem(a); !why.empty())
            throw JsonPathError("data: " + why);
        if (std::string why = denseDataProblem(a); !why.empty()) {
            JsonPathError e(why);
            e.prependKey("data");
            throw e;
        }
        return makeAttr(std::move(a));
    }
    if (kind == "dense_resource")
        return makeAttr(DenseResourceAttr{readField(j, "name", readString),
                                          readField(j, "type", [](const json& t) { return t.get<Type>(); })});
    if (kind == "dictionary")
        return makeAttr(DictionaryAttr{readField(j, "entries", attrListFromJson)});
    if (kind == "opaque") {
        AttrPtr a = io::detail::opaque(readField(j, "dialect", readString), readField(j, "mnemonic", readString),
                                       readField(j, "body", readString));
        // An opaque attribute is MLIR text kept as written: one whose text does not read back as
        // that attribute (a body that ends in '-' and so makes `->` of the closing '>', unbalanced
        // brackets or quotes) could never have been read from MLIR and would print a module that
        // does not read back.
        const std::string text = io::printAttribute(*a);
        DiagnosticList diags;
        io::ReadOptions syntaxOnly; // whether the dialect is known is not the document's to say
        syntaxOnly.allowUnregisteredDialects = true;
        AttrPtr again = io::parseAttribute(text, diags, syntaxOnly);
        if (!again || !(*again == *a)) {
            JsonPathError e("'" + text + "' does not read back as MLIR" +
                            (diags.all().empty() ? std::string() : ": " + diags.all().front().message));
            e.prependKey("body");
            throw e;
        }
        return a;
    }
    if (kind == "mesh")
        return makeAttr(MeshAttr{j.get<Mesh>()});
    if (kind == "sharding")
        return makeAttr(ShardingAttr{j.get<TensorSharding>()});
    if (kind == "sharding_per_value") {
        ShardingPerValue v;
        v.shardings = readField(j, "shardings", [](const json& a) {
            return readArray<TensorSharding>(a, [](const json& e) { return e.get<TensorSharding>(); });
        });
        return makeAttr(ShardingPerValueAttr{std::move(v)});
    }
    if (kind == "op_sharding_rule")
        return makeAttr(OpShardingRuleAttr{j.get<OpShardingRule>()});
    if (kind == "manual_axes")
        return makeAttr(
            ManualAxesAttr{readField(j, "axes", [](const json& a) { return readArray<std::string>(a, readString); })});
    if (kind == "axis_ref_list")
        return makeAttr(AxisRefListAttr{readField(j, "axes", readAxes)});
    if (kind == "list_of_axis_ref_lists")
        return makeAttr(ListOfAxisRefListsAttr{
            readField(j, "lists", [](const json& a) { return readArray<std::vector<AxisRef>>(a, readAxes); })});
    if (kind == "all_to_all_params") {
        AllToAllParamListAttr a;
        a.params = readField(j, "params", [](const json& arr) {
            return readArray<AllToAllParam>(arr, [](const json& p) {
                return AllToAllParam{readField(p, "axes", readAxes), readField(p, "srcDim", readInt),
                                     readField(p, "tgtDim", readInt)};
            });
        });
        return makeAttr(std::move(a));
    }
    if (kind == "propagation_edges") {
        PropagationEdgesAttr a;
        a.steps = readField(j, "steps", [](const json& arr) {
            return readArray<PropagationEdgeStep>(arr, [](const json& s) {
                PropagationEdgeStep step;
                step.step = readField(s, "step", readInt);
                step.entries = readField(s, "entries", [](const json& es) {
                    return readArray<PropagationEdgeEntry>(es, [](const json& e) {
                        PropagationEdgeEntry entry;
                        entry.axis = readField(e, "axis", [](const json& x) { return x.get<AxisRef>(); });
                        entry.source = readField(e, "source", edgeNodeFromJson);
                        entry.targets = readField(
                            e, "targets", [](const json& t) { return readArray<EdgeNode>(t, edgeNodeFromJson); });
                        return entry;
                    });
                });
                return step;
            });
        });
        return makeAttr(std::move(a));
    }
    if (kind == "location")
        return makeAttr(readField(j, "location", locationFromJson));
    throw JsonPathError("unknown attribute kind \"" + kind + "\"");
}

} // namespace

void to_json(json& j, const Type& t)
{
    switch (t.kind()) {
    case Type::Kind::None: j = nullptr; return;
    case Type::Kind::Tensor: {
        if (!t.isRankedTensor()) {
            j = json{{"kind", "unranked_tensor"}, {"element", t.elementType()}};
        } else {
            json shape = json::array();
            for (int64_t d : t.shape())
                shape.push_back(d == Type::kDynamic ? json("?") : json(d));
            j = json{{"kind", "tensor"}, {"shape", shape}, {"element", t.elementType()}};
        }
        if (t.encoding())
            j["encoding"] = attributeToJson(*t.encoding());
        return;
    }
    case Type::Kind::Token: j = json{{"kind", "token"}}; return;
    case Type::Kind::Tuple: j = json{{"kind", "tuple"}, {"elements", typesToJson(t.elements())}}; return;
    case Type::Kind::Scalar: j = json{{"kind", "scalar"}, {"name", t.name()}}; return;
    case Type::Kind::Function:
        j = json{{"kind", "function"}, {"inputs", typesToJson(t.elements())}, {"results", typesToJson(t.results())}};
        return;
    case Type::Kind::Opaque: j = json{{"kind", "opaque"}, {"spelling", t.name()}}; return;
    }
    j = nullptr;
}

void from_json(const json& j, Type& t)
{
    io::JsonNestingGuard nesting;
    nesting.check();
    if (j.is_null()) {
        t = Type();
        return;
    }
    std::string kind = readField(j, "kind", readString);
    if (kind == "tensor" || kind == "unranked_tensor") {
        std::string element = readField(j, "element", [](const json& e) { return readTypeSpelling(e, "tensor"); });
        if (kind == "unranked_tensor") {
            t = Type::unrankedTensor(element);
        } else {
            std::vector<int64_t> shape = readField(j, "shape", [](const json& a) {
                return readArray<int64_t>(a, [](const json& d) {
                    if (d.is_string() && d.get<std::string>() == "?")
                        return Type::kDynamic;
                    int64_t v = readInt(d);
                    if (v < 0)
                        throw JsonPathError("expected a dimension size >= 0 or \"?\", got " + std::to_string(v));
                    return v;
                });
            });
            t = Type::tensor(std::move(shape), element);
            if (t.hasElementCountOverflow()) {
                JsonPathError e("tensor type has more elements than fit in 64 bits");
                e.prependKey("shape");
                throw e;
            }
        }
        if (j.contains("encoding"))
            t.setEncoding(readField(j, "encoding", attributeFromJson));
    } else if (kind == "token") {
        t = Type::token();
    } else if (kind == "tuple") {
        t = Type::tuple(readField(j, "elements", readTypes));
    } else if (kind == "scalar") {
        t = Type::scalar(readField(j, "name", [](const json& e) { return readTypeSpelling(e, "scalar"); }));
    } else if (kind == "function") {
        t = Type::function(readField(j, "inputs", readTypes), readField(j, "results", readTypes));
    } else if (kind == "opaque") {
        t = Type::opaque(readField(j, "spelling", [](const json& e) { return readTypeSpelling(e, "opaque"); }));
    } else {
        JsonPathError e("unknown type kind \"" + kind +
                        "\" (expected tensor, unranked_tensor, token, tuple, scalar, function or opaque)");
        e.prependKey("kind");
        throw e;
    }
}

json locationToJson(const LocationAttr& loc)
{
    auto child = [&](size_t i) {
        return i < loc.children.size() && loc.children[i] ? locationToJson(*loc.children[i]) : json();
    };
    switch (loc.kind) {
    case LocationAttr::Kind::Unknown: return json{{"kind", "unknown"}};
    case LocationAttr::Kind::FileLineCol: {
        json j{{"kind", "file"}, {"file", loc.text}, {"line", loc.line}, {"col", loc.col}};
        if (loc.rangeEndLine() != loc.line || loc.rangeEndCol() != loc.col) {
            j["end_line"] = loc.rangeEndLine();
            j["end_col"] = loc.rangeEndCol();
        }
        return j;
    }
    case LocationAttr::Kind::Name: {
        json j{{"kind", "name"}, {"name", loc.text}};
        if (!loc.children.empty())
            j["child"] = child(0);
        return j;
    }
    case LocationAttr::Kind::CallSite: return json{{"kind", "callsite"}, {"callee", child(0)}, {"caller", child(1)}};
    case LocationAttr::Kind::Fused: {
        json parts = json::array();
        for (size_t i = 0; i < loc.children.size(); ++i)
            parts.push_back(child(i));
        json j{{"kind", "fused"}, {"locations", parts}};
        if (loc.metadata)
            j["metadata"] = attributeToJson(*loc.metadata);
        return j;
    }
    }
    return json{{"kind", "unknown"}};
}

/// A line or column number of a file location: 0 to 2^32 - 1, as MLIR's.
static uint32_t readLocationNumber(const json& j)
{
    const int64_t v = readInt(j);
    if (v < 0 || v > int64_t(UINT32_MAX))
        throw JsonPathError("expected a line or column number from 0 to 4294967295, got " + std::to_string(v));
    return static_cast<uint32_t>(v);
}

LocationAttr locationFromJson(const json& j)
{
    io::JsonNestingGuard nesting;
    nesting.check();
    LocationAttr loc;
    std::string kind = readField(j, "kind", readString);
    if (kind == "unknown") {
        loc.kind = LocationAttr::Kind::Unknown;
    } else if (kind == "file") {
        loc.kind = LocationAttr::Kind::FileLineCol;
        loc.text = readField(j, "file", readString);
        loc.line = readField(j, "line", readLocationNumber);
        loc.col = readField(j, "col", readLocationNumber);
        if (j.contains("end_line") || j.contains("end_col"))
            loc.setRangeEnd(readField(j, "end_line", readLocationNumber), readField(j, "end_col", readLocationNumber));
    } else if (kind == "name") {
        loc.kind = LocationAttr::Kind::Name;
        loc.text = readField(j, "name", readString);
        if (j.contains("child"))
            loc.children.push_back(readField(j, "child", locPtrFromJson));
    } else if (kind == "callsite") {
        loc.kind = LocationAttr::Kind::CallSite;
        loc.children.push_back(readField(j, "callee", locPtrFromJson));
        loc.children.push_back(readField(j, "caller", locPtrFromJson));
    } else if (kind == "fused") {
        loc.kind = LocationAttr::Kind::Fused;
        loc.children = readField(j, "locations", [](const json& a) {
            return readArray<std::shared_ptr<const LocationAttr>>(a, locPtrFromJson);
        });
        if (j.contains("metadata"))
            loc.metadata = readField(j, "metadata", attributeFromJson);
    } else {
        JsonPathError e("unknown location kind \"" + kind + "\" (expected unknown, file, name, callsite or fused)");
        e.prependKey("kind");
        throw e;
    }
    return loc;
}

json attributeToJson(const Attribute& attr) { return std::visit(ToJson{}, attr.payload()); }

AttrPtr attributeFromJson(const json& j)
{
    io::JsonNestingGuard nesting;
    nesting.check();
    std::string kind = readField(j, "kind", readString);
    return attrFromKind(kind, j);
}

json attrListToJson(const NamedAttrList& list)
{
    json j = json::object();
    for (const NamedAttribute& a : list)
        j[a.name] = a.value ? attributeToJson(*a.value) : json();
    return j;
}

NamedAttrList attrListFromJson(const json& j)
{
    if (!j.is_object())
        throw JsonPathError("expected an object of attributes, got " + jsonTypeName(j));
    NamedAttrList list;
    for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string& key = it.key();
        AttrPtr value = atKey(key.c_str(), [&] { return attributeFromJson(it.value()); });
        setAttr(list, key, std::move(value));
    }
    return list;
}

} // namespace shardx::ir
