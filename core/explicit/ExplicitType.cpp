// ExplicitType: printing and axis bookkeeping of explicit-mode types.
#include "core/explicit/ExplicitType.h"

#include <algorithm>

#include "core/sharding/JaxSharding.h"

namespace shardx::explicit_ {

bool TypeSharding::isReplicated() const
{
    return unreduced.empty() && reduced.empty() &&
           std::all_of(dims.begin(), dims.end(), [](const DimAxes& d) { return d.empty(); });
}

std::vector<std::string> TypeSharding::usedAxes() const
{
    std::vector<std::string> out;
    for (const DimAxes& d : dims)
        out.insert(out.end(), d.begin(), d.end());
    out.insert(out.end(), unreduced.begin(), unreduced.end());
    out.insert(out.end(), reduced.begin(), reduced.end());
    return out;
}

std::string TypeSharding::repeatedAxis() const
{
    const std::vector<std::string> used = usedAxes();
    for (size_t i = 0; i < used.size(); ++i)
        for (size_t j = i + 1; j < used.size(); ++j)
            if (used[i] == used[j])
                return used[i];
    return {};
}

std::string dimAxesString(const DimAxes& axes)
{
    if (axes.size() == 1)
        return axes.front();
    std::string s = "(";
    for (size_t i = 0; i < axes.size(); ++i)
        s += (i ? "," : "") + axes[i];
    return s + ")";
}

std::string ExplicitType::toString() const
{
    std::string s = jaxDtypeName(elementType) + "[";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i)
            s += ",";
        s += shape[i] < 0 ? std::string("?") : std::to_string(shape[i]);
        if (i < sharding.dims.size() && !sharding.dims[i].empty())
            s += "@" + dimAxesString(sharding.dims[i]);
    }
    s += "]";
    if (!sharding.unreduced.empty())
        s += "{U:" + dimAxesString(sharding.unreduced) + "}";
    if (!sharding.reduced.empty())
        s += "{R:" + dimAxesString(sharding.reduced) + "}";
    return s;
}

ExplicitType unshardedType(std::string elementType, std::vector<int64_t> shape)
{
    ExplicitType t;
    t.elementType = std::move(elementType);
    t.sharding.dims.resize(shape.size());
    t.shape = std::move(shape);
    return t;
}

} // namespace shardx::explicit_
