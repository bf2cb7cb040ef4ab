// AxisRef: sizes, printing and the relations / orders of SDY.md 1.2.
#include "core/mesh/AxisRef.h"

#include <algorithm>

#include "core/mesh/Mesh.h"
#include "core/support/StringUtil.h"

namespace shardx {

int64_t AxisRef::size(const Mesh& mesh) const
{
    if (sub)
        return sub->size;
    return mesh.axisSize(name).value_or(0);
}

int64_t AxisRef::nextPreSize(const Mesh& mesh) const
{
    if (sub)
        return sub->nextPreSize();
    return mesh.axisSize(name).value_or(0);
}

std::string AxisRef::toString() const
{
    std::string s = quoteString(name);
    if (sub)
        s += ":(" + std::to_string(sub->preSize) + ")" + std::to_string(sub->size);
    return s;
}

bool contains(const AxisRef& a, const AxisRef& b, const Mesh& mesh)
{
    (void)mesh;
    if (a.name != b.name)
        return false;
    if (!a.sub)
        return true;
    if (!b.sub)
        return false;
    return a.sub->preSize <= b.sub->preSize && a.sub->nextPreSize() >= b.sub->nextPreSize();
}

bool isPrefixOf(const AxisRef& a, const AxisRef& b, const Mesh& mesh)
{
    return contains(b, a, mesh) && a.preSize() == b.preSize();
}

bool isSuffixOf(const AxisRef& a, const AxisRef& b, const Mesh& mesh)
{
    return contains(b, a, mesh) && a.nextPreSize(mesh) == b.nextPreSize(mesh);
}

bool overlaps(const AxisRef& a, const AxisRef& b)
{
    if (a.name != b.name)
        return false;
    if (!a.sub || !b.sub)
        return true;
    return a.sub->preSize < b.sub->nextPreSize() && b.sub->preSize < a.sub->nextPreSize();
}

bool canCoexist(const AxisRef& a, const AxisRef& b)
{
    if (a.name != b.name || !a.sub || !b.sub)
        return true;
    // std::minmax would return references to temporaries here; compute by value.
    const int64_t lo = std::min(a.sub->preSize, b.sub->preSize);
    const int64_t hi = std::max(a.sub->preSize, b.sub->preSize);
    const int64_t loN = std::min(a.sub->nextPreSize(), b.sub->nextPreSize());
    const int64_t hiN = std::max(a.sub->nextPreSize(), b.sub->nextPreSize());
    if (lo <= 0 || loN <= 0)
        return false;
    if (loN > hi)
        return hi % lo == 0 && loN % hi == 0 && hiN % loN == 0;
    return hi % loN == 0;
}

std::optional<AxisRef> overlap(const AxisRef& a, const AxisRef& b)
{
    if (!overlaps(a, b))
        return std::nullopt;
    if (!a.sub)
        return b;
    if (!b.sub)
        return a;
    if (!canCoexist(a, b))
        return std::nullopt;
    int64_t hi = std::max(a.sub->preSize, b.sub->preSize);
    int64_t loN = std::min(a.sub->nextPreSize(), b.sub->nextPreSize());
    return AxisRef(a.name, hi, loN / hi);
}

std::optional<AxisRef> prefixWithoutOverlap(const AxisRef& a, const AxisRef& b)
{
    if (!overlaps(a, b))
        return a;
    if (!canCoexist(a, b))
        return std::nullopt;
    if (a.preSize() >= b.preSize())
        return std::nullopt;
    return AxisRef(a.name, a.preSize(), b.preSize() / a.preSize());
}

std::optional<AxisRef> suffixWithoutOverlap(const AxisRef& a, const AxisRef& b, const Mesh& mesh)
{
    if (!overlaps(a, b))
        return a;
    if (!canCoexist(a, b))
        return std::nullopt;
    int64_t nextA = a.nextPreSize(mesh);
    int64_t nextB = b.nextPreSize(mesh);
    if (nextA <= nextB || nextB <= 0)
        return std::nullopt;
    return AxisRef(a.name, nextB, nextA / nextB);
}

std::optional<AxisRef> greatestCommonPrefix(const AxisRef& a, const AxisRef& b, const Mesh& mesh)
{
    if (!canCoexist(a, b))
        return std::nullopt;
    if (isPrefixOf(a, b, mesh))
        return a;
    if (isPrefixOf(b, a, mesh))
        return b;
    return std::nullopt;
}

bool canMerge(const AxisRef& a, const AxisRef& b)
{
    return a.name == b.name && a.sub && b.sub && a.sub->nextPreSize() == b.sub->preSize;
}

AxisRef merge(const AxisRef& a, const AxisRef& b, const Mesh& mesh)
{
    int64_t size = a.size(mesh) * b.size(mesh);
    std::optional<int64_t> full = mesh.axisSize(a.name);
    if (a.preSize() == 1 && full && *full == size)
        return AxisRef(a.name);
    return AxisRef(a.name, a.preSize(), size);
}

bool lessIntraAxis(const AxisRef& a, const AxisRef& b)
{
    if (!a.sub && !b.sub)
        return false;
    if (!a.sub)
        return b.sub->preSize > 1;
    if (!b.sub)
        return a.sub->preSize == 1;
    if (a.sub->preSize != b.sub->preSize)
        return a.sub->preSize < b.sub->preSize;
    return a.sub->size < b.sub->size;
}

bool lessInMeshOrder(const AxisRef& a, const AxisRef& b, const Mesh& mesh)
{
    if (a.name != b.name) {
        int ia = mesh.axisIndex(a.name);
        int ib = mesh.axisIndex(b.name);
        if (ia != ib)
            return ia < ib;
        return a.name < b.name; // both unknown: any deterministic order
    }
    return lessIntraAxis(a, b);
}

bool lessByName(const AxisRef& a, const AxisRef& b)
{
    if (a.name != b.name)
        return a.name < b.name;
    return lessIntraAxis(a, b);
}

void addAxisOrMerge(std::vector<AxisRef>& list, const AxisRef& a, const Mesh& mesh)
{
    if (!list.empty() && canMerge(list.back(), a))
        list.back() = merge(list.back(), a, mesh);
    else
        list.push_back(a);
}

void addAxesOrMerge(std::vector<AxisRef>& list, const std::vector<AxisRef>& axes, const Mesh& mesh)
{
    for (const AxisRef& a : axes)
        addAxisOrMerge(list, a, mesh);
}

const AxisRef* removeSuffix(std::vector<AxisRef>& list, const std::vector<AxisRef>& axes, const Mesh& mesh)
{
    for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
        if (list.empty() || !isSuffixOf(*it, list.back(), mesh))
            return &*it;
        const AxisRef last = list.back();
        list.pop_back();
        if (!(last == *it))
            if (std::optional<AxisRef> rest = prefixWithoutOverlap(last, *it))
                list.push_back(*rest);
    }
    return nullptr;
}

std::vector<AxisRef> sortAndMerge(std::vector<AxisRef> list, const Mesh& mesh)
{
    std::stable_sort(list.begin(), list.end(),
                     [&](const AxisRef& x, const AxisRef& y) { return lessInMeshOrder(x, y, mesh); });
    std::vector<AxisRef> out;
    out.reserve(list.size());
    for (const AxisRef& a : list)
        addAxisOrMerge(out, a, mesh);
    return out;
}

std::vector<AxisRef> axisListDifference(const std::vector<AxisRef>& a, const std::vector<AxisRef>& b, const Mesh& mesh)
{
    std::vector<AxisRef> sortedB = b;
    std::stable_sort(sortedB.begin(), sortedB.end(),
                     [&](const AxisRef& x, const AxisRef& y) { return lessInMeshOrder(x, y, mesh); });
    std::vector<AxisRef> out;
    for (const AxisRef& axis : a) {
        AxisRef cur = axis;
        while (true) {
            auto it = std::find_if(sortedB.begin(), sortedB.end(), [&](const AxisRef& x) { return overlaps(cur, x); });
            if (it == sortedB.end()) {
                out.push_back(cur);
                break;
            }
            if (std::optional<AxisRef> prefix = prefixWithoutOverlap(cur, *it))
                out.push_back(*prefix);
            std::optional<AxisRef> suffix = suffixWithoutOverlap(cur, *it, mesh);
            if (!suffix)
                break;
            cur = *suffix;
        }
    }
    return out;
}

int64_t axesProduct(const std::vector<AxisRef>& axes, const Mesh& mesh)
{
    int64_t p = 1;
    for (const AxisRef& a : axes)
        p *= a.size(mesh);
    return p;
}

} // namespace shardx
