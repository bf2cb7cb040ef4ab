// AxisTypes: axis types read from a module (as JAX writes shardings) and from the user.
#include "core/explicit/AxisTypes.h"

#include <algorithm>
#include <cctype>

#include "core/ir/ShardingAccess.h"
#include "core/support/StringUtil.h"

namespace shardx::explicit_ {

const char* axisTypeName(AxisType t)
{
    switch (t) {
    case AxisType::Auto: return "Auto";
    case AxisType::Explicit: return "Explicit";
    case AxisType::Manual: return "Manual";
    }
    return "?";
}

std::optional<AxisType> parseAxisType(std::string_view text)
{
    std::string lower;
    for (char c : text)
        lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "auto")
        return AxisType::Auto;
    if (lower == "explicit")
        return AxisType::Explicit;
    if (lower == "manual")
        return AxisType::Manual;
    return std::nullopt;
}

Expected<AxisTypeOverrides> parseAxisTypeOverrides(std::string_view text)
{
    AxisTypeOverrides out;
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        if (comma == std::string_view::npos)
            comma = text.size();
        const std::string_view piece = text.substr(start, comma - start);
        const size_t eq = piece.find('=');
        if (eq == std::string_view::npos || eq == 0)
            return Error{"'" + std::string(piece) + "' is not AXIS=TYPE (TYPE: auto, explicit or manual)", {}};
        const std::optional<AxisType> type = parseAxisType(piece.substr(eq + 1));
        if (!type)
            return Error{"unknown axis type '" + std::string(piece.substr(eq + 1)) + "' for axis '" +
                             std::string(piece.substr(0, eq)) + "' (expected auto, explicit or manual)",
                         {}};
        out[std::string(piece.substr(0, eq))] = *type;
        start = comma + 1;
    }
    return out;
}

std::optional<AxisType> MeshAxisTypes::typeOf(const std::string& axis) const
{
    for (size_t i = 0; i < axes.size(); ++i)
        if (axes[i] == axis)
            return types[i];
    return std::nullopt;
}

std::string MeshAxisTypes::toString(const Mesh& mesh) const
{
    std::string s = "AbstractMesh(";
    for (size_t i = 0; i < mesh.axes().size(); ++i)
        s += (i ? ", '" : "'") + mesh.axes()[i].name + "': " + std::to_string(mesh.axes()[i].size);
    s += ", axis_types=(";
    for (size_t i = 0; i < types.size(); ++i)
        s += (i ? ", " : "") + std::string(axisTypeName(types[i]));
    return s + (types.size() == 1 ? ",))" : "))");
}

namespace {

/// Every sharding of `module` that refers to the mesh symbol `meshName`.
std::vector<const TensorSharding*> axisTypesShardingsOn(const ir::Module& module, const std::string& meshName)
{
    std::vector<const TensorSharding*> out;
    auto add = [&](const TensorSharding* s) {
        if (s && !s->mesh.isInline() && s->mesh.symbol == meshName)
            out.push_back(s);
    };
    auto addAll = [&](const ShardingPerValue* list) {
        if (list)
            for (const TensorSharding& s : list->shardings)
                add(&s);
    };
    const_cast<ir::Op&>(module.op()).walk([&](ir::Op* op) {
        if (op->name() == "func.func") {
            const ir::Block& body = op->region(0).front();
            for (unsigned i = 0; i < body.numArgs(); ++i)
                add(ir::funcArgSharding(*op, i));
            const size_t results = ir::funcType(*op).results().size();
            for (unsigned i = 0; i < results; ++i)
                add(ir::funcResultSharding(*op, i));
            return;
        }
        add(ir::opSharding(*op));
        add(ir::outSharding(*op));
        addAll(ir::inShardings(*op));
        addAll(ir::outShardings(*op));
        addAll(ir::resultShardings(*op));
    });
    return out;
}

} // namespace

MeshAxisTypes readAxisTypes(const ir::Module& module, const std::string& meshName, const AxisTypeOverrides& overrides)
{
    MeshAxisTypes out;
    out.meshName = meshName;
    const Mesh* mesh = module.findMesh(meshName);
    if (!mesh)
        return out;
    const std::vector<const TensorSharding*> shardings = axisTypesShardingsOn(module, meshName);
    bool anyOpen = false;
    std::vector<std::string> replicated;
    for (const TensorSharding* s : shardings) {
        for (const DimSharding& d : s->dims)
            anyOpen = anyOpen || !d.closed;
        for (const AxisRef& a : s->replicated)
            replicated.push_back(a.name);
    }
    for (const MeshAxis& axis : mesh->axes()) {
        out.axes.push_back(axis.name);
        auto over = overrides.find(axis.name);
        if (over != overrides.end()) {
            out.types.push_back(over->second);
            out.sources.push_back("set by the user");
        } else if (!anyOpen) {
            out.types.push_back(AxisType::Explicit);
            out.sources.push_back("no sharding on the mesh has an open dimension (JAX writes every dimension closed "
                                  "when all axes are Explicit)");
        } else if (std::find(replicated.begin(), replicated.end(), axis.name) != replicated.end()) {
            out.types.push_back(AxisType::Explicit);
            out.sources.push_back("listed in a `replicated` set on a mesh with open dimensions (JAX lists the "
                                  "Explicit axes that do not shard a value there)");
        } else {
            out.types.push_back(AxisType::Auto);
            out.sources.push_back("a sharding on the mesh has an open dimension and the axis is in no `replicated` "
                                  "set (JAX leaves Auto axes open)");
        }
    }
    return out;
}

} // namespace shardx::explicit_
