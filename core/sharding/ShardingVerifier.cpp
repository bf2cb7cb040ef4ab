// Tensor sharding verification (SDY.md 1.2-1.5).
#include "core/sharding/ShardingVerifier.h"

#include <algorithm>
#include <map>

namespace shardx {

std::optional<std::string> verifySubAxis(const AxisRef& axis, const Mesh& mesh)
{
    if (!axis.sub)
        return std::nullopt;
    const int64_t pre = axis.sub->preSize;
    const int64_t size = axis.sub->size;
    const int64_t full = mesh.axisSize(axis.name).value_or(0);
    if (pre < 1)
        return "sub-axis pre-size must be at least 1: " + axis.toString();
    if (size <= 1)
        return "sub-axis size must be greater than 1: " + axis.toString();
    if (full <= 0 || full % (pre * size) != 0)
        return "sub-axis next pre-size " + std::to_string(pre * size) + " doesn't divide the size of the full axis " +
               std::to_string(full) + ": " + axis.toString();
    if (size == full)
        return "sub-axis size is equal to the full axis size: " + axis.toString();
    return std::nullopt;
}

std::optional<std::string> verifyAxisList(const std::vector<AxisRef>& axes, const Mesh& mesh,
                                          std::vector<AxisRef>& seen)
{
    const AxisRef* prev = nullptr;
    for (const AxisRef& a : axes) {
        if (!mesh.hasAxis(a.name))
            return "unknown axis name: " + quoteString(a.name);
        if (std::find(seen.begin(), seen.end(), a) != seen.end())
            return "duplicate axis ref: " + a.toString();
        seen.push_back(a);
        if (prev && prev->sub && a.sub && canMerge(*prev, a))
            return "two consecutive sub-axes can be merged: " + prev->toString() + ", " + a.toString();
        prev = &a;
    }
    return std::nullopt;
}

std::optional<std::string> verifyAxesOrdered(const std::vector<AxisRef>& axes, const Mesh& mesh,
                                             const std::string& what)
{
    for (size_t i = 1; i < axes.size(); ++i)
        if (lessInMeshOrder(axes[i], axes[i - 1], mesh))
            return what + " axes are not ordered w.r.t. mesh";
    return std::nullopt;
}

std::optional<std::string> verifySubAxesOfAxisName(const std::vector<AxisRef>& used, const Mesh& mesh)
{
    // Group by axis name in mesh order for a deterministic first error.
    std::map<int, std::vector<AxisRef>> subs;
    std::map<int, bool> fullUsed;
    for (const AxisRef& a : used) {
        int idx = mesh.axisIndex(a.name);
        if (a.sub)
            subs[idx].push_back(a);
        else
            fullUsed[idx] = true;
    }
    for (auto& [idx, list] : subs) {
        if (fullUsed.count(idx))
            return "both sub-axis and full-axis are used for axis name: " + quoteString(list.front().name);
        std::stable_sort(list.begin(), list.end(), lessIntraAxis);
        const AxisRef* prev = nullptr;
        for (const AxisRef& a : list) {
            if (auto err = verifySubAxis(a, mesh))
                return err;
            if (prev && prev->sub->nextPreSize() > a.sub->preSize)
                return "overlapping sub-axes: " + prev->toString() + ", " + a.toString();
            prev = &a;
        }
    }
    return std::nullopt;
}

std::optional<std::string> verifyDimPriority(const DimSharding& d, int64_t dim)
{
    if (!d.priority)
        return std::nullopt;
    if (*d.priority < 0)
        return "dim " + std::to_string(dim) + " has a negative priority";
    if (d.closed && d.axes.empty())
        return "dim " + std::to_string(dim) + " is empty and closed but has a priority";
    return std::nullopt;
}

std::vector<AxisRef> allAxesOf(const TensorSharding& s)
{
    std::vector<AxisRef> all;
    for (const DimSharding& d : s.dims)
        all.insert(all.end(), d.axes.begin(), d.axes.end());
    all.insert(all.end(), s.replicated.begin(), s.replicated.end());
    all.insert(all.end(), s.unreduced.begin(), s.unreduced.end());
    return all;
}

static bool rank0NoExtra(const TensorSharding& s)
{
    return s.dims.empty() && s.replicated.empty() && s.unreduced.empty();
}

std::optional<std::string> verifyTensorSharding(const TensorSharding& s, const TypeShape* type, const Mesh& mesh,
                                                const std::vector<std::string>& manualAxes)
{
    // 2. maximal mesh, or a value without a type and no dimension axes.
    if (mesh.isMaximal() || (!type && !s.hasDimAxes())) {
        if (!rank0NoExtra(s))
            return std::string("a maximal sharding can only have a sharding with rank 0 and no replicated or "
                               "unreduced axes");
        return std::nullopt;
    }
    if (!type)
        return std::string("a sharding of an op without results must be on a maximal mesh or have no "
                           "dimension axes");
    const TypeShape* t = type;
    // 3. a one-element tuple stands for its element.
    if (t->kind == TypeShape::Kind::Tuple) {
        if (t->elements.size() != 1)
            return "can only have a sharding on a tuple of size 1, got size " + std::to_string(t->elements.size());
        t = &t->elements[0];
    }
    // 4. non-shaped types.
    if (!t->isTensor()) {
        if (!rank0NoExtra(s))
            return std::string("non-shaped tensors can only have a sharding with rank 0 and no replicated or "
                               "unreduced axes");
        return std::nullopt;
    }
    // 5. unranked.
    if (!t->isRanked())
        return std::string("only ranked tensors can have a sharding");
    // 6. rank.
    if (s.rank() != t->rank())
        return "sharding doesn't match tensor rank: " + std::to_string(s.rank()) + " != " + std::to_string(t->rank());
    // 7. dimensions.
    std::vector<AxisRef> seen;
    for (int i = 0; i < s.rank(); ++i) {
        if (auto err = verifyDimPriority(s.dims[i], i))
            return err;
        if (auto err = verifyAxisList(s.dims[i].axes, mesh, seen))
            return err;
    }
    // 8, 9. replicated and unreduced.
    if (auto err = verifyAxesOrdered(s.replicated, mesh, "replicated"))
        return err;
    if (auto err = verifyAxisList(s.replicated, mesh, seen))
        return err;
    if (auto err = verifyAxesOrdered(s.unreduced, mesh, "unreduced"))
        return err;
    if (auto err = verifyAxisList(s.unreduced, mesh, seen))
        return err;
    // 10. sub-axes per axis name.
    if (auto err = verifySubAxesOfAxisName(seen, mesh))
        return err;
    // 11. axes bound by enclosing manual computations.
    for (const AxisRef& a : seen)
        if (std::find(manualAxes.begin(), manualAxes.end(), a.name) != manualAxes.end())
            return "operates on axis " + quoteString(a.name) +
                   " which is already bound by a parent sdy.manual_computation op";
    return std::nullopt;
}

std::optional<std::string> verifyTensorSharding(const TensorSharding& s, const TypeShape* type,
                                                const MeshLookup& lookup, const std::vector<std::string>& manualAxes)
{
    const Mesh* mesh = s.mesh.isInline() ? &*s.mesh.inlineMesh : (lookup ? lookup(s.mesh) : nullptr);
    if (!mesh)
        return "unknown mesh: " + symbolRefString(s.mesh.symbol);
    return verifyTensorSharding(s, type, *mesh, manualAxes);
}

bool isEquivalent(const TensorSharding* s1, const TensorSharding* s2, bool ignoreUnreduced)
{
    auto isTrivial = [&](const TensorSharding* s) {
        return !s || (!s->hasDimAxes() && (ignoreUnreduced || s->unreduced.empty()));
    };
    if (isTrivial(s1))
        return isTrivial(s2);
    if (!s2)
        return false;
    if (!(s1->mesh == s2->mesh))
        return false;
    if (!ignoreUnreduced &&
        (s1->unreduced != s2->unreduced || (!s1->unreduced.empty() && s1->unreducedKind != s2->unreducedKind)))
        return false;
    if (s1->rank() != s2->rank())
        return false;
    for (int i = 0; i < s1->rank(); ++i)
        if (s1->dims[i].axes != s2->dims[i].axes)
            return false;
    return true;
}

} // namespace shardx
