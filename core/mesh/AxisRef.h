// AxisRef: a reference to a full mesh axis "x" or a sub-axis "x":(pre)size.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardx {

class Mesh;

/// Pre-size and size of a sub-axis `"x":(pre)size`.
struct SubAxisInfo {
    int64_t preSize = 1;
    int64_t size = 1;

    int64_t nextPreSize() const { return preSize * size; }
    bool operator==(const SubAxisInfo& o) const = default;
};

/// A full axis (`sub` empty) or a sub-axis of a named mesh axis.
struct AxisRef {
    std::string name;
    std::optional<SubAxisInfo> sub;

    AxisRef() = default;
    explicit AxisRef(std::string n) : name(std::move(n)) {}
    AxisRef(std::string n, int64_t pre, int64_t size) : name(std::move(n)), sub(SubAxisInfo{pre, size}) {}

    bool isSubAxis() const { return sub.has_value(); }
    bool operator==(const AxisRef& o) const = default;

    /// Size in `mesh` (the full axis size, or the sub-axis size). 0 if the name is unknown.
    int64_t size(const Mesh& mesh) const;
    /// Pre-size: 1 for a full axis.
    int64_t preSize() const { return sub ? sub->preSize : 1; }
    /// Next pre-size: the full axis size for a full axis.
    int64_t nextPreSize(const Mesh& mesh) const;

    /// `"x"` or `"x":(2)4`.
    std::string toString() const;
};

// Relations of SDY.md 1.2. All are false for different axis names.
bool contains(const AxisRef& a, const AxisRef& b, const Mesh& mesh);
bool isPrefixOf(const AxisRef& a, const AxisRef& b, const Mesh& mesh);
bool isSuffixOf(const AxisRef& a, const AxisRef& b, const Mesh& mesh);
bool overlaps(const AxisRef& a, const AxisRef& b);
bool canCoexist(const AxisRef& a, const AxisRef& b);
std::optional<AxisRef> overlap(const AxisRef& a, const AxisRef& b);
std::optional<AxisRef> prefixWithoutOverlap(const AxisRef& a, const AxisRef& b);
std::optional<AxisRef> suffixWithoutOverlap(const AxisRef& a, const AxisRef& b, const Mesh& mesh);
std::optional<AxisRef> greatestCommonPrefix(const AxisRef& a, const AxisRef& b, const Mesh& mesh);
bool canMerge(const AxisRef& a, const AxisRef& b);
/// Merge of two mergeable sub-axes; the full axis when the product equals its size.
AxisRef merge(const AxisRef& a, const AxisRef& b, const Mesh& mesh);

/// Mesh order (SDY.md 1.2): by axis position in the mesh, then intra-axis order.
bool lessInMeshOrder(const AxisRef& a, const AxisRef& b, const Mesh& mesh);
/// Intra-axis order for two refs of the same name.
bool lessIntraAxis(const AxisRef& a, const AxisRef& b);
/// Name order: by name string, then intra-axis order.
bool lessByName(const AxisRef& a, const AxisRef& b);

/// Sort in mesh order, then merge adjacent mergeable sub-axes.
std::vector<AxisRef> sortAndMerge(std::vector<AxisRef> list, const Mesh& mesh);
/// Append `a`, merging it with the last element when possible.
void addAxisOrMerge(std::vector<AxisRef>& list, const AxisRef& a, const Mesh& mesh);
/// `addAxisOrMerge` of every element of `axes`, in order.
void addAxesOrMerge(std::vector<AxisRef>& list, const std::vector<AxisRef>& axes, const Mesh& mesh);
/// Remove-suffix of SDY.md 2.12: takes `axes` off the end of `list`, last element first. Each
/// must be a suffix of `list`'s current last element, which is dropped when equal and otherwise
/// cut down to its prefix without overlap. Returns null on success, else the element of `axes`
/// that is not a suffix (with `list` reduced up to it).
const AxisRef* removeSuffix(std::vector<AxisRef>& list, const std::vector<AxisRef>& axes, const Mesh& mesh);
/// Set difference A \ B of axis lists (SDY.md 1.2).
std::vector<AxisRef> axisListDifference(const std::vector<AxisRef>& a, const std::vector<AxisRef>& b, const Mesh& mesh);
/// Product of the sizes of `axes` in `mesh`.
int64_t axesProduct(const std::vector<AxisRef>& axes, const Mesh& mesh);

} // namespace shardx
