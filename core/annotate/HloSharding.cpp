// HloSharding: a reader of XLA's sharding strings and the search for the PartitionSpec that gives one.
#include "core/annotate/HloSharding.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <numeric>

namespace shardx::annotate {

namespace {

/// A cursor over the text; errors name the offset.
struct HloReader {
    std::string_view text;
    size_t pos = 0;

    void skipSpaces()
    {
        while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos])))
            ++pos;
    }
    bool eat(std::string_view word)
    {
        skipSpaces();
        if (text.substr(pos, word.size()) != word)
            return false;
        pos += word.size();
        return true;
    }
    Error fail(const std::string& what) const
    {
        return Error{"'" + std::string(text) + "' at offset " + std::to_string(pos) + ": " + what, {}};
    }
    std::optional<int64_t> integer()
    {
        skipSpaces();
        size_t end = pos;
        while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])))
            ++end;
        if (end == pos || end - pos > 15)
            return std::nullopt;
        const int64_t v = std::stoll(std::string(text.substr(pos, end - pos)));
        pos = end;
        return v;
    }
    /// `[a,b,c]`
    std::optional<std::vector<int64_t>> bracketList()
    {
        if (!eat("["))
            return std::nullopt;
        std::vector<int64_t> out;
        if (eat("]"))
            return out;
        do {
            std::optional<int64_t> v = integer();
            if (!v)
                return std::nullopt;
            out.push_back(*v);
        } while (eat(","));
        if (!eat("]"))
            return std::nullopt;
        return out;
    }
};

int64_t hloProduct(const std::vector<int64_t>& v)
{
    return std::accumulate(v.begin(), v.end(), int64_t(1), std::multiplies<int64_t>());
}

/// The row-major elements of `ids` (shape `shape`) transposed by `perm` (output dimension j is
/// input dimension perm[j]).
std::vector<int64_t> hloTranspose(const std::vector<int64_t>& ids, const std::vector<int64_t>& shape,
                                  const std::vector<size_t>& perm)
{
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;)
        strides[i - 1] = strides[i] * shape[i];
    std::vector<int64_t> out;
    out.reserve(ids.size());
    std::vector<int64_t> index(perm.size(), 0);
    const int64_t n = hloProduct(shape);
    for (int64_t count = 0; count < n; ++count) {
        int64_t linear = 0;
        for (size_t j = 0; j < perm.size(); ++j)
            linear += index[j] * strides[perm[j]];
        out.push_back(ids[static_cast<size_t>(linear)]);
        for (size_t j = perm.size(); j-- > 0;) {
            if (++index[j] < shape[perm[j]])
                break;
            index[j] = 0;
        }
    }
    return out;
}

} // namespace

Expected<HloSharding> parseHloSharding(std::string_view text)
{
    HloReader r{text};
    HloSharding s;
    if (!r.eat("{"))
        return r.fail("expected '{'");
    r.skipSpaces();
    if (r.pos < text.size() && text[r.pos] == '{')
        return r.fail("a tuple sharding (one per tuple element) is not read");
    if (r.eat("replicated")) {
        s.kind = HloSharding::Kind::Replicated;
    } else if (r.eat("manual")) {
        s.kind = HloSharding::Kind::Manual;
    } else if (r.eat("maximal")) {
        s.kind = HloSharding::Kind::Maximal;
        if (!r.eat("device") || !r.eat("="))
            return r.fail("expected 'device=N'");
        std::optional<int64_t> d = r.integer();
        if (!d)
            return r.fail("expected a device number");
        s.device = *d;
    } else if (r.eat("devices")) {
        s.kind = HloSharding::Kind::Tiled;
        if (!r.eat("="))
            return r.fail("expected '='");
        std::optional<std::vector<int64_t>> dims = r.bracketList();
        if (!dims || dims->empty())
            return r.fail("expected the tile assignment's shape '[a,b,...]'");
        s.tileDims = *dims;
        for (int64_t d : s.tileDims)
            if (d < 1)
                return r.fail("a tile dimension must be at least 1");
        const int64_t n = hloProduct(s.tileDims);
        if (r.eat("<=")) {
            // An iota of `reshape` dims, transposed by T(...), read row-major.
            std::optional<std::vector<int64_t>> reshape = r.bracketList();
            if (!reshape || reshape->empty())
                return r.fail("expected the iota's shape '[n,...]'");
            if (hloProduct(*reshape) != n)
                return r.fail("the iota's " + std::to_string(hloProduct(*reshape)) + " devices do not fill " +
                              std::to_string(n) + " tiles");
            std::vector<size_t> perm(reshape->size());
            std::iota(perm.begin(), perm.end(), size_t(0));
            if (r.eat("T")) {
                if (!r.eat("("))
                    return r.fail("expected '(' after T");
                std::vector<size_t> given;
                do {
                    std::optional<int64_t> p = r.integer();
                    if (!p)
                        return r.fail("expected a dimension number");
                    given.push_back(static_cast<size_t>(*p));
                } while (r.eat(","));
                if (!r.eat(")"))
                    return r.fail("expected ')'");
                std::vector<size_t> sorted = given;
                std::sort(sorted.begin(), sorted.end());
                if (sorted != perm)
                    return r.fail("T(...) is not a permutation of the iota's dimensions");
                perm = given;
            }
            std::vector<int64_t> iota(static_cast<size_t>(n));
            std::iota(iota.begin(), iota.end(), int64_t(0));
            s.devices = hloTranspose(iota, *reshape, perm);
        } else {
            do {
                std::optional<int64_t> d = r.integer();
                if (!d)
                    return r.fail("expected a device number");
                s.devices.push_back(*d);
            } while (r.eat(","));
            if (static_cast<int64_t>(s.devices.size()) != n)
                return r.fail(std::to_string(s.devices.size()) + " devices listed for " + std::to_string(n) + " tiles");
        }
        if (r.eat("last_tile_dim_replicate")) {
            s.lastTileDimReplicate = true;
        } else if (r.eat("last_tile_dims")) {
            if (!r.eat("=") || !r.eat("{"))
                return r.fail("expected 'last_tile_dims={...}'");
            do {
                r.skipSpaces();
                size_t end = r.pos;
                while (end < text.size() && std::isalpha(static_cast<unsigned char>(text[end])))
                    ++end;
                if (end == r.pos)
                    return r.fail("expected a subgroup kind (replicated, manual)");
                s.lastTileDims.emplace_back(text.substr(r.pos, end - r.pos));
                r.pos = end;
            } while (r.eat(","));
            if (!r.eat("}"))
                return r.fail("expected '}'");
        }
    } else {
        return r.fail("expected replicated, maximal, manual or devices=[...]");
    }
    // metadata={...} and what follows it say nothing about the layout.
    if (r.eat("metadata")) {
        const size_t close = text.rfind('}');
        r.pos = close == std::string_view::npos ? text.size() : close;
    }
    if (!r.eat("}"))
        return r.fail("expected '}'");
    r.skipSpaces();
    if (r.pos != text.size())
        return r.fail("unexpected text after the sharding");
    return s;
}

Expected<PartitionSpec> hloShardingToSpec(const HloSharding& s, const Mesh& mesh, int rank)
{
    if (s.kind == HloSharding::Kind::Replicated)
        return PartitionSpec{};
    if (s.kind == HloSharding::Kind::Maximal)
        return Error{"all of it on device " + std::to_string(s.device) + " (maximal): no PartitionSpec gives that", {}};
    if (s.kind == HloSharding::Kind::Manual)
        return Error{"manual (shard_map) sharding: no PartitionSpec gives that", {}};
    size_t subgroups = s.lastTileDimReplicate ? 1 : s.lastTileDims.size();
    for (const std::string& k : s.lastTileDims)
        if (k != "replicated")
            return Error{"a '" + k + "' subgroup (last_tile_dims): no PartitionSpec gives that", {}};
    if (s.tileDims.size() != static_cast<size_t>(rank) + subgroups)
        return Error{"the tile assignment has " + std::to_string(s.tileDims.size()) +
                         " dimensions for a tensor of rank " + std::to_string(rank) +
                         (subgroups ? " and " + std::to_string(subgroups) + " replicated subgroup dimension(s)" : ""),
                     {}};
    const std::vector<MeshAxis>& axes = mesh.axes();
    std::vector<int64_t> axisSizes;
    for (const MeshAxis& a : axes)
        axisSizes.push_back(a.size);
    const int64_t meshDevices = hloProduct(axisSizes);
    if (static_cast<int64_t>(s.devices.size()) != meshDevices)
        return Error{"it spans " + std::to_string(s.devices.size()) + " devices, the mesh " + mesh.toString() + " " +
                         std::to_string(meshDevices),
                     {}};
    std::vector<int64_t> meshIds = mesh.deviceIds();
    if (meshIds.empty()) {
        meshIds.resize(static_cast<size_t>(meshDevices));
        std::iota(meshIds.begin(), meshIds.end(), int64_t(0));
    }
    // Depth-first over the tensor dimensions: an ordered choice of unused axes (size 1 never) whose
    // sizes multiply to the dimension's tile count; then the unused axes replicate, in any order.
    std::vector<std::vector<size_t>> chosen(static_cast<size_t>(rank));
    std::vector<bool> used(axes.size(), false);
    std::optional<PartitionSpec> found;
    std::function<void(size_t, std::vector<size_t>&)> replicated;
    replicated = [&](size_t unusedLeft, std::vector<size_t>& perm) {
        if (found)
            return;
        if (unusedLeft == 0) {
            if (hloTranspose(meshIds, axisSizes, perm) == s.devices) {
                PartitionSpec spec(static_cast<size_t>(rank));
                for (size_t d = 0; d < chosen.size(); ++d)
                    for (size_t a : chosen[d])
                        spec[d].push_back(axes[a].name);
                while (!spec.empty() && spec.back().empty())
                    spec.pop_back();
                found = spec;
            }
            return;
        }
        for (size_t a = 0; a < axes.size(); ++a)
            if (!used[a]) {
                used[a] = true;
                perm.push_back(a);
                replicated(unusedLeft - 1, perm);
                perm.pop_back();
                used[a] = false;
            }
    };
    std::function<void(size_t, int64_t)> dimension;
    dimension = [&](size_t d, int64_t left) {
        if (found)
            return;
        if (d == static_cast<size_t>(rank)) {
            std::vector<size_t> perm;
            for (const std::vector<size_t>& c : chosen)
                perm.insert(perm.end(), c.begin(), c.end());
            replicated(axes.size() - perm.size(), perm);
            return;
        }
        if (left == 1) {
            dimension(d + 1, d + 1 < static_cast<size_t>(rank) ? s.tileDims[d + 1] : 1);
            return;
        }
        for (size_t a = 0; a < axes.size(); ++a)
            if (!used[a] && axisSizes[a] > 1 && left % axisSizes[a] == 0) {
                used[a] = true;
                chosen[d].push_back(a);
                dimension(d, left / axisSizes[a]);
                chosen[d].pop_back();
                used[a] = false;
            }
    };
    std::vector<size_t> none;
    if (rank == 0)
        replicated(axes.size(), none);
    else
        dimension(0, s.tileDims[0]);
    if (!found) {
        std::string dims;
        for (int d = 0; d < rank; ++d)
            dims += (d ? "x" : "") + std::to_string(s.tileDims[static_cast<size_t>(d)]);
        return Error{"no PartitionSpec on " + mesh.toString() + " gives it (" + dims + " tiles in this device order)",
                     {}};
    }
    return *found;
}

} // namespace shardx::annotate
