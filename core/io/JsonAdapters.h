// nlohmann/json adapters for meshes, shardings, rules, types, attributes and locations.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/ir/Attribute.h"
#include "core/ir/Type.h"
#include "core/mesh/AxisRef.h"
#include "core/mesh/Mesh.h"
#include "core/sharding/OpShardingRule.h"
#include "core/sharding/TensorSharding.h"

namespace shardx::io {

/// A problem in a JSON document at a JSON-pointer path (`/module/body/ops/3/attrs`).
/// Thrown by the `from_json` adapters below, which build the path from the innermost
/// element outwards (each level prepends its key or index). Never leaves the public
/// document API (JsonDocument.h), which turns it into a Diagnostic.
class JsonPathError : public std::exception {
public:
    explicit JsonPathError(std::string message) : m_message(std::move(message)) {}

    /// The JSON pointer of the offending element ("" for the root).
    const std::string& path() const { return m_path; }
    const std::string& message() const { return m_message; }
    /// Prepends `/key` (escaped as RFC 6901 requires).
    void prependKey(const std::string& key);
    /// Prepends `/index`.
    void prependIndex(size_t index);
    const char* what() const noexcept override { return m_message.c_str(); }

private:
    std::string m_path;
    std::string m_message;
};

/// Name of a JSON value's type for messages: "object", "array", "string", "integer"...
std::string jsonTypeName(const nlohmann::json& j);

// ---- checked readers (throw JsonPathError with the path relative to `j`) -----------------

/// `j[key]` of an object; "expected an object with \"key\"" when `j` is no object or lacks it.
const nlohmann::json& requireField(const nlohmann::json& j, const char* key);
int64_t readInt(const nlohmann::json& j);
bool readBool(const nlohmann::json& j);
std::string readString(const nlohmann::json& j);
/// A finite double as a JSON number, a non-finite one as "0x" + the 16 hex digits of its bits.
double readDouble(const nlohmann::json& j);
nlohmann::json doubleToJson(double v);
std::vector<int64_t> readIntList(const nlohmann::json& j);
/// Bytes as upper-case hex digits (no 0x), and back.
std::string bytesToHex(const std::vector<uint8_t>& bytes);
std::vector<uint8_t> hexToBytes(const nlohmann::json& j);

/// Runs `fn()` and prepends `key` to the path of any JsonPathError it throws.
template <typename Fn> auto atKey(const char* key, Fn&& fn) -> decltype(fn())
{
    try {
        return fn();
    } catch (JsonPathError& e) {
        e.prependKey(key);
        throw;
    }
}

/// Reads `j[key]` with `read` (required field), path-annotated.
template <typename Fn> auto readField(const nlohmann::json& j, const char* key, Fn&& read)
{
    const nlohmann::json& v = requireField(j, key);
    return atKey(key, [&] { return read(v); });
}

/// Reads every element of the array `j` with `read`, path-annotated with the index.
template <typename T, typename Fn> std::vector<T> readArray(const nlohmann::json& j, Fn&& read)
{
    if (!j.is_array())
        throw JsonPathError("expected an array, got " + jsonTypeName(j));
    std::vector<T> out;
    out.reserve(j.size());
    for (size_t i = 0; i < j.size(); ++i) {
        try {
            out.push_back(read(j.at(i)));
        } catch (JsonPathError& e) {
            e.prependIndex(i);
            throw;
        }
    }
    return out;
}

} // namespace shardx::io

namespace shardx {

/// `{"name": "x"}` or `{"name": "x", "pre": 2, "size": 2}` for a sub-axis.
void to_json(nlohmann::json& j, const AxisRef& a);
void from_json(const nlohmann::json& j, AxisRef& a);
/// `{"axes": [{"name": "data", "size": 2}, ...], "deviceIds": [...]}` (ids only when given).
void to_json(nlohmann::json& j, const Mesh& m);
void from_json(const nlohmann::json& j, Mesh& m);
/// `{"axes": [...], "closed": true, "priority": 1}` (priority only when set).
void to_json(nlohmann::json& j, const DimSharding& d);
void from_json(const nlohmann::json& j, DimSharding& d);
/// `{"symbol": "mesh"}` or `{"inline": <mesh>}`.
void to_json(nlohmann::json& j, const MeshRef& r);
void from_json(const nlohmann::json& j, MeshRef& r);
/// `{"mesh": <ref>, "dims": [...], "replicated": [...], "unreduced": [...], "unreducedKind": "sum"}`.
void to_json(nlohmann::json& j, const TensorSharding& s);
void from_json(const nlohmann::json& j, TensorSharding& s);
/// `{"factors": [{"name": "i", "size": 8}, ...], "operands": [[[0], [2]], ...], "results": ...,
/// "reduction": [...], "needReplication": [...], "permutation": [...], "blocked": [...], "custom": false}`.
void to_json(nlohmann::json& j, const OpShardingRule& r);
void from_json(const nlohmann::json& j, OpShardingRule& r);

} // namespace shardx

namespace shardx::ir {

/// Structured type: `{"kind": "tensor", "shape": [8, "?"], "element": "f32"}`, `{"kind": "token"}`,
/// `{"kind": "tuple", "elements": [...]}`, `{"kind": "scalar", "name": "f32"}`,
/// `{"kind": "function", "inputs": [...], "results": [...]}`, `{"kind": "opaque", "spelling": "!a.b"}`,
/// `{"kind": "unranked_tensor", "element": "f32"}`; null for no type.
void to_json(nlohmann::json& j, const Type& t);
void from_json(const nlohmann::json& j, Type& t);

/// `{"kind": "unknown"}`, `{"kind": "file", "file": "a.py", "line": 3, "col": 1}` (a range adds
/// `"end_line"` and `"end_col"`, both required together),
/// `{"kind": "name", "name": "jit(f)/add", "child": <loc>}`, `{"kind": "callsite", "callee": <loc>,
/// "caller": <loc>}`, `{"kind": "fused", "locations": [...], "metadata": <attr>}`.
nlohmann::json locationToJson(const LocationAttr& loc);
LocationAttr locationFromJson(const nlohmann::json& j);

/// Any attribute as `{"kind": "<kind>", ...}`: unit, bool, integer, float, string, type, symbol_ref,
/// array, dense_array, dense, dense_resource, dictionary, opaque, mesh, sharding,
/// sharding_per_value, op_sharding_rule, manual_axes, axis_ref_list, list_of_axis_ref_lists,
/// all_to_all_params, propagation_edges, location. A dense elements attribute is
/// `{"kind": "dense", "type": <type>, "splat": bool, "data": "0A00..."}`: the hex digits of its
/// elements' little-endian bytes (one element when `splat`), i1 one byte 00 or 01 per element (not
/// MLIR's bit-packed form); string elements go to `"strings"` instead, each hex-encoded.
nlohmann::json attributeToJson(const Attribute& attr);
/// Reads an attribute written by attributeToJson; throws io::JsonPathError on bad input.
AttrPtr attributeFromJson(const nlohmann::json& j);
/// A sorted attribute list as a JSON object `{name: <attr>, ...}`, and back.
nlohmann::json attrListToJson(const NamedAttrList& list);
NamedAttrList attrListFromJson(const nlohmann::json& j);

} // namespace shardx::ir
