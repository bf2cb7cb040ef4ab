// ConvertedSharding: shared helpers of the notation converters.
#include "core/sharding/ConvertedSharding.h"

#include <algorithm>

namespace shardx {

const AxisRef* firstSubAxis(const TensorSharding& sharding)
{
    for (const DimSharding& d : sharding.dims)
        for (const AxisRef& a : d.axes)
            if (a.isSubAxis())
                return &a;
    for (const auto* list : {&sharding.replicated, &sharding.unreduced})
        for (const AxisRef& a : *list)
            if (a.isSubAxis())
                return &a;
    return nullptr;
}

std::string subAxisExplanation(const TensorSharding& sharding, const AxisRef& sub, const Mesh& mesh,
                               const std::string& what)
{
    std::string where = "its replicated or unreduced axes";
    for (int i = 0; i < sharding.rank(); ++i) {
        const auto& axes = sharding.dims[static_cast<size_t>(i)].axes;
        if (std::find(axes.begin(), axes.end(), sub) != axes.end())
            where = "dimension " + std::to_string(i);
    }
    const int64_t full = mesh.axisSize(sub.name).value_or(0);
    std::string text = what + " names whole mesh axes only, and this sharding uses the sub-axis " + sub.toString() +
                       " (in " + where + "): the part of size " + std::to_string(sub.sub->size) + " of axis \"" +
                       sub.name + "\" (size " + std::to_string(full) + ") after a major part of size " +
                       std::to_string(sub.sub->preSize) + ".";
    // The mesh that makes the sub-axes whole: axis x split at every pre-size the sharding uses.
    std::vector<int64_t> cuts{1, full};
    for (const DimSharding& d : sharding.dims)
        for (const AxisRef& a : d.axes)
            if (a.name == sub.name && a.sub)
                cuts.insert(cuts.end(), {a.sub->preSize, a.sub->nextPreSize()});
    for (const auto* list : {&sharding.replicated, &sharding.unreduced})
        for (const AxisRef& a : *list)
            if (a.name == sub.name && a.sub)
                cuts.insert(cuts.end(), {a.sub->preSize, a.sub->nextPreSize()});
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    if (full > 0 && cuts.size() > 2) {
        std::string parts;
        for (size_t i = 0; i + 1 < cuts.size(); ++i)
            parts += (i ? ", " : "") + sub.name + std::to_string(i) + "=" + std::to_string(cuts[i + 1] / cuts[i]);
        text += " Build the mesh with \"" + sub.name + "\" split into " + parts +
                " (major to minor, the same devices in the same order) and shard on those axes instead.";
    }
    return text;
}

} // namespace shardx
