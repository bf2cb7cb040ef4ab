// JaxSharding: PartitionSpec and typed-form text.
#include "core/sharding/JaxSharding.h"

#include <cctype>

#include "core/sharding/TypeShape.h"

namespace shardx {

namespace {

std::string joined(const std::vector<std::string>& parts, const char* sep)
{
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i)
        out += (i ? sep : "") + parts[i];
    return out;
}

std::string pythonTuple(const std::vector<std::string>& items)
{
    return items.size() == 1 ? "(" + items[0] + ",)" : "(" + joined(items, ", ") + ")";
}

/// The notes every converter writes for what Shardy records and a framework's sharding cannot:
/// open dimensions with axes, priorities, explicitly replicated axes.
void noteShardyOnlyParts(const TensorSharding& s, const std::string& what, std::vector<std::string>& notes,
                         bool openWithoutAxesIsExpressible)
{
    for (int i = 0; i < s.rank(); ++i) {
        const DimSharding& d = s.dims[static_cast<size_t>(i)];
        if (!d.closed && (!d.axes.empty() || !openWithoutAxesIsExpressible))
            notes.push_back("dimension " + std::to_string(i) + " is open (" + d.toString() + "): " + what +
                            " cannot say that propagation may shard it further; written as closed");
        if (d.priority)
            notes.push_back("dimension " + std::to_string(i) + " has priority p" + std::to_string(*d.priority) +
                            ", which " + what + " does not carry");
    }
    if (!s.replicated.empty())
        notes.push_back("explicitly replicated " + axisListString(s.replicated) + ": " + what +
                        " replicates every axis it does not name, but cannot forbid sharding on them");
}

std::optional<std::string> unreducedKindProblem(const TensorSharding& s, const std::string& what)
{
    if (s.unreduced.empty() || s.unreducedKind == ReductionKind::Sum)
        return std::nullopt;
    return what + " has unreduced axes that are partial sums only, and this sharding's unreduced axes " +
           axisListString(s.unreduced) + " are reduced by " + reductionKindName(s.unreducedKind) + ".";
}

} // namespace

std::string pythonString(const std::string& s)
{
    std::string out = "'";
    for (char c : s) {
        if (c == '\'' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + "'";
}

std::string jaxDtypeName(const std::string& t)
{
    if (t == "i1")
        return "bool";
    if (t == "complex<f32>")
        return "c64";
    if (t == "complex<f64>")
        return "c128";
    if (t.size() > 2 && t.compare(0, 2, "ui") == 0 && std::isdigit(static_cast<unsigned char>(t[2])))
        return "u" + t.substr(2);
    if (t.size() > 2 && t.compare(0, 2, "si") == 0 && std::isdigit(static_cast<unsigned char>(t[2])))
        return "i" + t.substr(2);
    // f8E4M3FN -> f8_e4m3fn, f8E5M2FNUZ -> f8_e5m2fnuz (ml_dtypes names).
    if (t.size() > 2 && t.compare(0, 2, "f8") == 0 && t.size() > 2 && std::isupper(static_cast<unsigned char>(t[2]))) {
        std::string out = "f8_";
        for (size_t i = 2; i < t.size(); ++i)
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(t[i])));
        return out;
    }
    return t;
}

ConvertedSharding partitionSpecOf(const TensorSharding& s, const Mesh& mesh)
{
    ConvertedSharding out;
    out.meshText = jaxMeshText(mesh);
    if (const AxisRef* sub = firstSubAxis(s)) {
        out.explanation = subAxisExplanation(s, *sub, mesh, "A PartitionSpec");
        return out;
    }
    if (auto problem = unreducedKindProblem(s, "JAX")) {
        out.explanation = *problem;
        return out;
    }
    std::vector<std::string> entries;
    for (const DimSharding& d : s.dims) {
        std::vector<std::string> names;
        for (const AxisRef& a : d.axes)
            names.push_back(pythonString(a.name));
        if (names.empty())
            entries.push_back(d.closed ? "None" : "P.UNCONSTRAINED");
        else if (names.size() == 1)
            entries.push_back(names[0]);
        else
            entries.push_back("(" + joined(names, ", ") + ")");
    }
    if (!s.unreduced.empty()) {
        std::vector<std::string> names;
        for (const AxisRef& a : s.unreduced)
            names.push_back(pythonString(a.name));
        entries.push_back("unreduced={" + joined(names, ", ") + "}");
    }
    out.text = "P(" + joined(entries, ", ") + ")";
    noteShardyOnlyParts(s, "a PartitionSpec", out.notes, true);
    if (mesh.isMaximal())
        out.notes.push_back("the mesh is the single device " + std::to_string(mesh.deviceIds()[0]) +
                            ": JAX writes that as jax.sharding.SingleDeviceSharding(jax.devices()[" +
                            std::to_string(mesh.deviceIds()[0]) + "])");
    return out;
}

ConvertedSharding jaxTypeOf(const TensorSharding& s, const Mesh& mesh, const std::vector<int64_t>& shape,
                            const std::string& elementType)
{
    ConvertedSharding out;
    if (const AxisRef* sub = firstSubAxis(s)) {
        out.explanation = subAxisExplanation(s, *sub, mesh, "A JAX type");
        return out;
    }
    if (auto problem = unreducedKindProblem(s, "JAX")) {
        out.explanation = *problem;
        return out;
    }
    std::vector<std::string> dims;
    for (size_t i = 0; i < shape.size(); ++i) {
        std::string dim = shape[i] == kDynamicSize ? "?" : std::to_string(shape[i]);
        if (i < s.dims.size() && !s.dims[i].axes.empty()) {
            std::vector<std::string> names;
            for (const AxisRef& a : s.dims[i].axes)
                names.push_back(a.name);
            dim += "@" + (names.size() == 1 ? names[0] : "(" + joined(names, ",") + ")");
        }
        dims.push_back(dim);
    }
    out.text = jaxDtypeName(elementType) + "[" + joined(dims, ",") + "]";
    if (!s.unreduced.empty()) {
        std::vector<std::string> names;
        for (const AxisRef& a : s.unreduced)
            names.push_back(a.name);
        out.text += "{U:" + (names.size() == 1 ? names[0] : "(" + joined(names, ",") + ")") + "}";
    }
    for (int i = 0; i < s.rank(); ++i)
        if (!s.dims[static_cast<size_t>(i)].closed)
            out.notes.push_back("dimension " + std::to_string(i) + " is open: a type has no open dimensions " +
                                "(its Auto axes are the compiler's choice and not part of the type)");
    out.notes.push_back("as jax.typeof prints it when every mesh axis is Explicit; Auto axes are left out of the "
                        "type");
    return out;
}

std::string jaxMeshText(const Mesh& mesh)
{
    if (mesh.axes().empty())
        return {};
    std::vector<std::string> sizes, names, ids;
    for (const MeshAxis& a : mesh.axes()) {
        sizes.push_back(std::to_string(a.size));
        names.push_back(pythonString(a.name));
    }
    for (int64_t id : mesh.deviceIds())
        ids.push_back(std::to_string(id));
    std::string devices = "np.array(jax.devices())";
    if (!ids.empty())
        devices += "[[" + joined(ids, ", ") + "]]";
    return "jax.sharding.Mesh(" + devices + ".reshape(" + joined(sizes, ", ") + "), " + pythonTuple(names) + ")";
}

} // namespace shardx
