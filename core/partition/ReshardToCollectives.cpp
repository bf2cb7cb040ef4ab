// ReshardToCollectives: the `sdy-reshard-to-collectives` pass (PARTITION.md 3).
#include "core/partition/ReshardToCollectives.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"

namespace shardx {
namespace {

using AxisList = std::vector<AxisRef>;

// ---- the axis vocabulary of PARTITION.md 3.4, on one mesh --------------------------------------

class AxisMath {
public:
    explicit AxisMath(const Mesh& mesh) : m_mesh(mesh) {}

    int64_t fullSize(const std::string& name) const { return m_mesh.axisSize(name).value_or(1); }
    int64_t size(const AxisRef& a) const { return a.sub ? a.sub->size : fullSize(a.name); }
    static int64_t pre(const AxisRef& a) { return a.preSize(); }
    int64_t next(const AxisRef& a) const { return a.sub ? a.sub->nextPreSize() : fullSize(a.name); }
    int64_t size(const AxisList& list) const
    {
        int64_t p = 1;
        for (const AxisRef& a : list)
            p *= size(a);
        return p;
    }

    /// `name:(pre)size`, or the full axis when it covers all of it.
    AxisRef make(const std::string& name, int64_t pre, int64_t size) const
    {
        if (pre == 1 && size == fullSize(name))
            return AxisRef(name);
        return AxisRef(name, pre, size);
    }

    bool contains(const AxisRef& a, const AxisRef& b) const
    {
        if (a.name != b.name)
            return false;
        if (!a.sub)
            return true;
        if (!b.sub)
            return false;
        return pre(a) <= pre(b) && next(b) <= next(a);
    }
    bool overlaps(const AxisRef& a, const AxisRef& b) const
    {
        if (a.name != b.name)
            return false;
        if (!a.sub || !b.sub)
            return true;
        return pre(a) < next(b) && pre(b) < next(a);
    }
    bool coexist(const AxisRef& a, const AxisRef& b) const
    {
        if (a.name != b.name || !a.sub || !b.sub)
            return true;
        const int64_t p1 = std::min(pre(a), pre(b)), p2 = std::max(pre(a), pre(b));
        const int64_t n1 = std::min(next(a), next(b)), n2 = std::max(next(a), next(b));
        if (n1 > p2)
            return n1 % p2 == 0 && p2 % p1 == 0 && n2 % n1 == 0;
        return p2 % n1 == 0;
    }
    AxisRef overlapPart(const AxisRef& a, const AxisRef& b) const
    {
        if (!a.sub)
            return b;
        if (!b.sub)
            return a;
        const int64_t p2 = std::max(pre(a), pre(b));
        const int64_t n1 = std::min(next(a), next(b));
        return make(a.name, p2, n1 / p2);
    }
    /// The part of `a` strictly below `b`.
    std::optional<AxisRef> below(const AxisRef& a, const AxisRef& b) const
    {
        if (!coexist(a, b))
            return std::nullopt;
        if (!overlaps(a, b))
            return a;
        if (pre(a) >= pre(b))
            return std::nullopt;
        return make(a.name, pre(a), pre(b) / pre(a));
    }
    /// The part of `a` strictly above `b`.
    std::optional<AxisRef> above(const AxisRef& a, const AxisRef& b) const
    {
        if (!coexist(a, b))
            return std::nullopt;
        if (!overlaps(a, b))
            return a;
        if (next(a) <= next(b))
            return std::nullopt;
        return make(a.name, next(b), next(a) / next(b));
    }
    bool mergeable(const AxisRef& a, const AxisRef& b) const
    {
        return a.name == b.name && a.sub && b.sub && next(a) == pre(b);
    }
    /// Appends `a`, merged with the last element when they are adjacent sub-axes.
    void push(AxisList& list, const AxisRef& a) const
    {
        if (!list.empty() && mergeable(list.back(), a))
            list.back() = make(a.name, pre(list.back()), size(list.back()) * size(a));
        else
            list.push_back(a);
    }

    struct Fit {
        std::optional<AxisRef> part;
        std::optional<AxisRef> rest;
        int64_t capacity = 1;
    };
    /// Splits `a` against capacity `c`.
    Fit fit(const AxisRef& a, int64_t c) const
    {
        const int64_t s = size(a);
        if (c <= 1 || (c % s != 0 && s % c != 0))
            return {};
        if (c >= s)
            return Fit{a, std::nullopt, c / s};
        return Fit{make(a.name, pre(a), c), make(a.name, pre(a) * c, s / c), 1};
    }
    /// Sheds the axes of `removed` (last first) from the end of `list`.
    void trimBack(AxisList& list, const AxisList& removed) const
    {
        for (auto it = removed.rbegin(); it != removed.rend() && !list.empty(); ++it) {
            std::optional<AxisRef> rest = below(list.back(), *it);
            if (rest && rest->sub)
                list.back() = *rest;
            else
                list.pop_back();
        }
    }
    /// By name, then sub-axes of pre-size 1, the full axis, other sub-axes by (pre-size, size).
    static bool less(const AxisRef& a, const AxisRef& b)
    {
        if (a.name != b.name)
            return a.name < b.name;
        auto rank = [](const AxisRef& x) { return !x.sub ? 1 : (x.sub->preSize == 1 ? 0 : 2); };
        if (rank(a) != rank(b))
            return rank(a) < rank(b);
        if (!a.sub)
            return false;
        return std::make_pair(a.sub->preSize, a.sub->size) < std::make_pair(b.sub->preSize, b.sub->size);
    }
    /// Every axis of `list` cut at the boundaries of the (sorted) axes of `cuts`.
    AxisList decompose(const AxisList& list, const AxisList& cuts) const
    {
        AxisList out;
        for (const AxisRef& original : list) {
            std::optional<AxisRef> a = original;
            for (const AxisRef& r : cuts) {
                if (r.name != a->name || !overlaps(*a, r))
                    continue;
                if (!coexist(*a, r) || contains(r, *a))
                    break;
                if (std::optional<AxisRef> b = below(*a, r))
                    out.push_back(*b);
                out.push_back(overlapPart(*a, r));
                a = above(*a, r);
                if (!a)
                    break;
            }
            if (a)
                out.push_back(*a);
        }
        return out;
    }

private:
    const Mesh& m_mesh;
};

AxisList sorted(AxisList list)
{
    std::stable_sort(list.begin(), list.end(), AxisMath::less);
    return list;
}

bool inList(const AxisList& list, const AxisRef& a) { return std::find(list.begin(), list.end(), a) != list.end(); }

void eraseFrom(AxisList& list, const AxisRef& a)
{
    auto it = std::find(list.begin(), list.end(), a);
    if (it != list.end())
        list.erase(it);
}

// ---- the decomposition (PARTITION.md 3.5 - 3.10) -----------------------------------------------

class Planner {
public:
    Planner(const TensorSharding& in, const TensorSharding& out, const Mesh& mesh, const std::vector<int64_t>& shape)
        : m(mesh),
          m_shape(shape),
          m_rank(out.rank()),
          m_meshCur(in.mesh),
          m_meshOut(out.mesh),
          m_unreduced(out.unreduced),
          m_kind(out.unreducedKind)
    {
        m_src.resize(m_rank);
        m_dst.resize(m_rank);
        m_cur.resize(m_rank);
        m_cap.assign(m_rank, 1);
        AxisList inAll, outAll;
        for (int d = 0; d < m_rank; ++d) {
            if (d < in.rank())
                m_src[d] = in.dims[d].axes;
            m_dst[d] = out.dims[d].axes;
            m_cur[d] = m_src[d];
            inAll.insert(inAll.end(), m_src[d].begin(), m_src[d].end());
            outAll.insert(outAll.end(), m_dst[d].begin(), m_dst[d].end());
        }
        inAll = sorted(inAll);
        outAll = sorted(outAll);
        for (int d = 0; d < m_rank; ++d) {
            m_src[d] = m.decompose(m_src[d], outAll);
            m_dst[d] = m.decompose(m_dst[d], inAll);
            while (!m_src[d].empty() && !m_dst[d].empty() && m_src[d].front() == m_dst[d].front()) {
                m_src[d].erase(m_src[d].begin());
                m_dst[d].erase(m_dst[d].begin());
            }
            m_inUse.insert(m_inUse.end(), m_src[d].begin(), m_src[d].end());
        }
        rebuildPos();
    }

    ReshardPlan run()
    {
        for (int round = 0; round < 2 && !finished(); ++round) {
            sliceStep();
            permuteStep();
            allToAllStep(true);
            allToAllStep(false);
            gatherStep();
        }
        if (!finished())
            finishByGatherAndSlice();
        return std::move(m_plan);
    }

private:
    struct Pos {
        int dim = -1;
        int idx = 0;
    };

    bool finished() const
    {
        for (int d = 0; d < m_rank; ++d)
            if (!m_src[d].empty() || !m_dst[d].empty())
                return false;
        return m_meshCur == m_meshOut;
    }

    std::optional<Pos> findPos(const AxisRef& a) const
    {
        for (const auto& [axis, p] : m_pos)
            if (axis == a)
                return p;
        return std::nullopt;
    }
    void rebuildPos()
    {
        m_pos.clear();
        for (int d = 0; d < m_rank; ++d)
            for (size_t i = 0; i < m_dst[d].size(); ++i)
                m_pos.emplace_back(m_dst[d][i], Pos{d, static_cast<int>(i)});
    }
    bool inUse(const AxisRef& a) const { return inList(m_inUse, a); }

    TensorSharding current() const
    {
        TensorSharding s;
        s.mesh = m_meshCur;
        for (int d = 0; d < m_rank; ++d)
            s.dims.push_back(DimSharding{m_cur[d], true, std::nullopt});
        s.unreduced = m_unreduced;
        s.unreducedKind = m_kind;
        return s;
    }
    void emit(ReshardStep step)
    {
        step.out = current();
        m_plan.steps.push_back(std::move(step));
    }
    static bool anyAxes(const std::vector<AxisList>& lists)
    {
        return std::any_of(lists.begin(), lists.end(), [](const AxisList& l) { return !l.empty(); });
    }

    /// Places axes of `poolFor(d)` into `src[d]` (at its front or end) while `cap[d]` allows.
    void distribute(const std::function<AxisList&(int)>& poolFor, bool front,
                    const std::function<void(const AxisRef&, int)>& onAdd)
    {
        AxisList pieces;
        for (int d = 0; d < m_rank; ++d) {
            AxisList& pool = poolFor(d);
            size_t insertAt = front ? 0 : m_src[d].size();
            size_t k = 0;
            while (k < pool.size() && m_cap[d] > 1) {
                AxisMath::Fit f = m.fit(pool[k], m_cap[d]);
                if (!f.part) {
                    ++k;
                    continue;
                }
                m_cap[d] = f.capacity;
                pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(k));
                m_src[d].insert(m_src[d].begin() + static_cast<std::ptrdiff_t>(insertAt), *f.part);
                ++insertAt;
                m_inUse.push_back(*f.part);
                if (onAdd)
                    onAdd(*f.part, d);
                if (f.rest) {
                    pieces.push_back(*f.part);
                    pool.insert(pool.begin(), *f.rest);
                }
            }
        }
        if (!pieces.empty()) {
            pieces = sorted(pieces);
            for (int d = 0; d < m_rank; ++d)
                m_dst[d] = m.decompose(m_dst[d], pieces);
        }
    }

    void sliceStep()
    {
        for (int d = 0; d < m_rank; ++d) {
            const int64_t s = m.size(m_src[d]), t = m.size(m_dst[d]);
            m_cap[d] = t / std::gcd(s, t);
        }
        std::vector<AxisList> sliced(m_rank);
        // Stage 1: pre-slice a source dimension for a later all-to-all.
        for (int s = 0; s < m_rank; ++s) {
            if (m_src[s].empty() || !m_dst[s].empty())
                continue;
            std::optional<Pos> p = findPos(m_src[s].back());
            if (!p)
                continue;
            const int t = p->dim;
            if (!m_src[t].empty())
                continue;
            const size_t j = static_cast<size_t>(p->idx) + 1;
            if (j >= m_dst[t].size() || inUse(m_dst[t][j]))
                continue;
            int64_t common = 1;
            size_t k = m_src[s].size(), n = j;
            while (k > 0 && n > 0 && m_src[s][k - 1] == m_dst[t][n - 1]) {
                common *= m.size(m_src[s][k - 1]);
                --k;
                --n;
            }
            bool outOfOrder = false;
            for (size_t i = 0; i < k; ++i)
                if (std::optional<Pos> q = findPos(m_src[s][i]); q && q->dim == t)
                    outOfOrder = true;
            if (outOfOrder)
                continue;
            AxisList take;
            for (size_t i = j; i < m_dst[t].size() && !inUse(m_dst[t][i]); ++i)
                take.push_back(m_dst[t][i]);
            const int64_t local = m.size(m_cur[s]) * m.size(take);
            if (m_shape[s] <= 0 || m_shape[s] % local != 0)
                continue;
            m_cap[t] /= common * m.size(take);
            for (const AxisRef& b : take) {
                m_src[s].push_back(b);
                m_inUse.push_back(b);
                m.push(sliced[s], b);
                m.push(m_cur[s], b);
            }
        }
        // Stage 2: slice in place.
        AxisList spare;
        for (int d = 0; d < m_rank; ++d) {
            size_t i = 0;
            while (i < m_dst[d].size()) {
                const AxisRef b = m_dst[d][i];
                if (inUse(b)) {
                    ++i;
                    continue;
                }
                AxisMath::Fit f = m.fit(b, m_cap[d]);
                if (!f.part) {
                    spare.push_back(b);
                    ++i;
                    continue;
                }
                m_cap[d] = f.capacity;
                m.push(sliced[d], *f.part);
                m.push(m_cur[d], *f.part);
                if (m_src[d].empty() && i == 0) {
                    m_dst[d].erase(m_dst[d].begin());
                } else {
                    m_src[d].push_back(*f.part);
                    m_inUse.push_back(*f.part);
                    m_dst[d][i] = *f.part;
                    ++i;
                }
                if (f.rest) {
                    m_dst[d].insert(m_dst[d].begin() + static_cast<std::ptrdiff_t>(i), *f.rest);
                    ++i;
                    spare.push_back(*f.rest);
                }
            }
        }
        // Stage 3: spill what did not fit into other dimensions.
        distribute([&](int) -> AxisList& { return spare; }, false,
                   [&](const AxisRef& p, int d) {
                       m.push(sliced[d], p);
                       m.push(m_cur[d], p);
                   });
        rebuildPos();
        if (anyAxes(sliced)) {
            ReshardStep step;
            step.kind = ReshardStep::Kind::AllSlice;
            step.perDimAxes = std::move(sliced);
            emit(std::move(step));
        }
    }

    bool wantPermute() const
    {
        std::optional<AxisRef> lastFree, lastDrop;
        auto divides = [&](const AxisRef& a, const AxisRef& b) {
            const int64_t x = m.size(a), y = m.size(b);
            return x % y == 0 || y % x == 0;
        };
        for (int d = 0; d < m_rank; ++d) {
            if (!m_src[d].empty() && !m_dst[d].empty() && divides(m_src[d].front(), m_dst[d].front()))
                return true;
            for (const AxisRef& b : m_dst[d])
                if (!inUse(b))
                    lastFree = b;
            int prevDim = -1, prevIdx = 0;
            std::vector<int> seen;
            for (const AxisRef& a : m_src[d]) {
                if (std::optional<Pos> p = findPos(a)) {
                    const bool wasSeen = std::find(seen.begin(), seen.end(), p->dim) != seen.end();
                    if ((p->dim == d || wasSeen) && (prevDim != p->dim || p->idx != prevIdx + 1))
                        return true;
                    seen.push_back(p->dim);
                    prevIdx = p->idx;
                    prevDim = p->dim;
                } else {
                    if (prevDim != -1 && m_dst[d].empty())
                        return true;
                    lastDrop = a;
                    prevDim = -1;
                }
            }
        }
        return lastFree && lastDrop && divides(*lastFree, *lastDrop);
    }

    void performPermute()
    {
        AxisList spareOut;
        std::vector<AxisList> spareIn(m_rank);
        m_inUse.clear();
        for (int d = 0; d < m_rank; ++d) {
            m_cap[d] = m.size(m_src[d]);
            int64_t used = m_cap[d];
            m.trimBack(m_cur[d], m_src[d]);
            while (m_cap[d] > 1 && !m_dst[d].empty()) {
                AxisMath::Fit f = m.fit(m_dst[d].front(), m_cap[d]);
                if (!f.part)
                    break;
                m_cap[d] = f.capacity;
                m_dst[d].erase(m_dst[d].begin());
                m.push(m_cur[d], *f.part);
                if (f.rest)
                    m_dst[d].insert(m_dst[d].begin(), *f.rest);
            }
            spareOut.insert(spareOut.end(), m_dst[d].begin(), m_dst[d].end());
            used /= m_cap[d];
            AxisList keep, taken;
            for (const AxisRef& a : m_src[d])
                if (!findPos(a))
                    keep.push_back(a);
            while (used > 1 && !keep.empty()) {
                AxisMath::Fit f = m.fit(keep.front(), used);
                if (!f.part)
                    break;
                used = f.capacity;
                keep.erase(keep.begin());
                taken.push_back(*f.part);
                if (f.rest)
                    keep.insert(keep.begin(), *f.rest);
            }
            spareIn[d] = keep;
            spareIn[d].insert(spareIn[d].end(), taken.begin(), taken.end());
            m_src[d].clear();
        }
        distribute([&](int) -> AxisList& { return spareOut; }, false, nullptr);
        distribute([&](int d) -> AxisList& { return spareIn[d]; }, true, nullptr);
        AxisList leftovers;
        for (const AxisList& l : spareIn)
            leftovers.insert(leftovers.end(), l.begin(), l.end());
        distribute([&](int) -> AxisList& { return leftovers; }, true, nullptr);
        rebuildPos();
        for (int d = 0; d < m_rank; ++d)
            for (const AxisRef& a : m_src[d])
                m.push(m_cur[d], a);
    }

    void permuteStep()
    {
        const bool want = wantPermute();
        if (want)
            performPermute();
        if (want || !(m_meshCur == m_meshOut)) {
            m_meshCur = m_meshOut;
            ReshardStep step;
            step.kind = ReshardStep::Kind::CollectivePermute;
            emit(std::move(step));
        }
    }

    void allToAllStep(bool strict)
    {
        for (int s = 0; s < m_rank; ++s) {
            while (true) {
                size_t k = m_src[s].size();
                int t = -1;
                while (k > 0) {
                    std::optional<Pos> p = findPos(m_src[s][k - 1]);
                    if (!p || p->dim == s || (t != -1 && p->dim != t))
                        break;
                    t = p->dim;
                    --k;
                }
                if (k == m_src[s].size())
                    break;
                const AxisList suffix(m_src[s].begin() + static_cast<std::ptrdiff_t>(k), m_src[s].end());
                if (strict &&
                    (m_dst[t].size() < suffix.size() || !std::equal(suffix.begin(), suffix.end(), m_dst[t].begin())))
                    break;
                m.trimBack(m_cur[s], suffix);
                AxisList axes;
                m_src[s].resize(k);
                for (const AxisRef& a : suffix) {
                    m.push(axes, a);
                    m.push(m_cur[t], a);
                    eraseFrom(m_inUse, a);
                    if (m_src[t].empty() && !m_dst[t].empty() && m_dst[t].front() == a) {
                        m_dst[t].erase(m_dst[t].begin());
                    } else {
                        m_src[t].push_back(a);
                        m_inUse.push_back(a);
                    }
                }
                ReshardStep step;
                step.kind = ReshardStep::Kind::AllToAll;
                step.axes = std::move(axes);
                step.srcDim = s;
                step.tgtDim = t;
                emit(std::move(step));
            }
        }
    }

    void gatherStep()
    {
        std::vector<AxisList> gathered(m_rank);
        for (int d = 0; d < m_rank; ++d) {
            size_t k = m_src[d].size();
            while (k > 0 && !findPos(m_src[d][k - 1])) {
                eraseFrom(m_inUse, m_src[d][k - 1]);
                --k;
            }
            const AxisList tail(m_src[d].begin() + static_cast<std::ptrdiff_t>(k), m_src[d].end());
            for (const AxisRef& a : tail)
                m.push(gathered[d], a);
            m.trimBack(m_cur[d], tail);
            m_src[d].resize(k);
        }
        if (anyAxes(gathered)) {
            ReshardStep step;
            step.kind = ReshardStep::Kind::AllGather;
            step.perDimAxes = std::move(gathered);
            emit(std::move(step));
        }
    }

    /// Two rounds were not enough: gather everything, then slice to the target.
    void finishByGatherAndSlice()
    {
        m_plan.finishedInTwoRounds = false;
        if (anyAxes(m_cur)) {
            ReshardStep gather;
            gather.kind = ReshardStep::Kind::AllGather;
            gather.perDimAxes = m_cur;
            for (AxisList& l : m_cur)
                l.clear();
            emit(std::move(gather));
        }
        if (!(m_meshCur == m_meshOut)) {
            m_meshCur = m_meshOut;
            ReshardStep permute;
            permute.kind = ReshardStep::Kind::CollectivePermute;
            emit(std::move(permute));
        }
        ReshardStep slice;
        slice.kind = ReshardStep::Kind::AllSlice;
        for (int d = 0; d < m_rank; ++d) {
            m_cur[d] = m_target[d];
            slice.perDimAxes.push_back(m_target[d]);
        }
        if (anyAxes(slice.perDimAxes))
            emit(std::move(slice));
    }

public:
    std::vector<AxisList> m_target; ///< the target's axes per dimension, for the fallback

private:
    AxisMath m;
    std::vector<int64_t> m_shape;
    int m_rank;
    std::vector<AxisList> m_src, m_dst, m_cur;
    AxisList m_inUse;
    std::vector<std::pair<AxisRef, Pos>> m_pos;
    std::vector<int64_t> m_cap;
    MeshRef m_meshCur, m_meshOut;
    AxisList m_unreduced;
    ReductionKind m_kind;
    ReshardPlan m_plan;
};

// ---- the pass -----------------------------------------------------------------------------------

bool fullyReplicated(const TensorSharding* s) { return !s || (!s->hasDimAxes() && s->unreduced.empty()); }

/// Equivalence of PARTITION.md 3.1 (openness, priorities and replicated axes ignored).
bool equivalent(const TensorSharding* in, const TensorSharding& out)
{
    if (fullyReplicated(in) || fullyReplicated(&out))
        return fullyReplicated(in) && fullyReplicated(&out);
    if (!(in->mesh == out.mesh) || in->unreduced != out.unreduced || in->rank() != out.rank())
        return false;
    for (int d = 0; d < out.rank(); ++d)
        if (in->dims[d].axes != out.dims[d].axes)
            return false;
    return true;
}

std::unique_ptr<ir::Op> makeStep(const ReshardStep& step, ir::Value* in, const ir::Op& reshard)
{
    static const char* const names[] = {"sdy.all_slice", "sdy.collective_permute", "sdy.all_to_all", "sdy.all_gather"};
    auto op = std::make_unique<ir::Op>(names[static_cast<int>(step.kind)]);
    op->addOperand(in);
    op->addResult(reshard.result(0)->type());
    op->pos = reshard.pos;
    op->loc = reshard.loc;
    switch (step.kind) {
    case ReshardStep::Kind::AllSlice:
    case ReshardStep::Kind::AllGather: ir::setPerDimCollectiveAxes(*op, step.perDimAxes); break;
    case ReshardStep::Kind::AllToAll:
        ir::setAllToAllParams(*op, {ir::AllToAllParam{step.axes, step.srcDim, step.tgtDim}});
        break;
    case ReshardStep::Kind::CollectivePermute: break;
    }
    ir::setOutSharding(*op, step.out);
    // The partition model's note of why the reshard is there follows it onto its collectives.
    if (ir::AttrPtr cause = reshard.attrPtr("shardx.cause"))
        op->setDiscardable("shardx.cause", cause);
    return op;
}

void replaceAndErase(ir::Op* reshard, ir::Value* with)
{
    reshard->result(0)->replaceAllUsesWith(with);
    reshard->erase();
}

/// planReshard's answers by its arguments: the layers of a model reshard the same few shardings.
class ReshardPlanCache {
public:
    const ReshardPlan& get(const TensorSharding& in, const TensorSharding& out, const Mesh& mesh,
                           const std::vector<int64_t>& shape)
    {
        uint64_t h = hashSharding(in) * 31 + hashSharding(out);
        h = h * 31 + std::hash<const void*>{}(&mesh);
        for (int64_t n : shape)
            h = h * 31 + static_cast<uint64_t>(n);
        std::vector<Entry>& bucket = m_plans[h];
        for (const Entry& e : bucket)
            if (e.mesh == &mesh && e.shape == shape && e.in == in && e.out == out &&
                e.in.unreducedKind == in.unreducedKind && e.out.unreducedKind == out.unreducedKind)
                return e.plan;
        bucket.push_back(Entry{in, out, &mesh, shape, planReshard(in, out, mesh, shape)});
        return bucket.back().plan;
    }

private:
    struct Entry {
        TensorSharding in, out;
        const Mesh* mesh;
        std::vector<int64_t> shape;
        ReshardPlan plan;
    };
    std::unordered_map<uint64_t, std::vector<Entry>> m_plans;
};

void rewrite(ir::Module& module, ir::Op* reshard, const ReshardToCollectivesOptions& options, DiagnosticList& diags,
             ReshardPlanCache& plans)
{
    const TensorSharding* outS = ir::opSharding(*reshard);
    if (!outS || reshard->numOperands() != 1 || reshard->numResults() != 1)
        return;
    ir::Value* operand = reshard->operand(0);
    ir::Value* bypassed = operand;
    while (ir::Op* def = bypassed->definingOp()) {
        if (def->name() != "sdy.propagation_barrier" || def->numOperands() != 1)
            break;
        bypassed = def->operand(0);
    }
    const TensorSharding* inS = ir::shardingOfValue(bypassed);
    const Mesh* outMesh = ir::meshOf(module, *outS);
    const Mesh* inMesh = inS ? ir::meshOf(module, *inS) : nullptr;
    if (!outMesh || (inS && !inMesh))
        return;
    // PARTITION.md 3.2, in order.
    if (options.keepRedundantReshards && equivalent(inS, *outS))
        return;
    if ((inMesh && inMesh->isMaximal()) || outMesh->isMaximal())
        return;
    const bool outSharded = outS->hasDimAxes();
    const bool inSharded = inS && inS->hasDimAxes();
    if (!outSharded && !inSharded) {
        replaceAndErase(reshard, operand);
        return;
    }
    TensorSharding target = *outS;
    if (!outSharded) {
        target = TensorSharding::closedReplicated(inS->mesh, outS->rank());
    } else if (inS && !(inS->mesh == outS->mesh) && !inMesh->equalsIgnoringDeviceIds(*outMesh)) {
        return;
    }
    const TensorSharding source = inS ? *inS : TensorSharding::closedReplicated(outS->mesh, outS->rank());
    const ir::Type& type = reshard->result(0)->type();
    std::vector<int64_t> shape = type.isRankedTensor() ? type.shape() : std::vector<int64_t>{};
    if (static_cast<int>(shape.size()) != target.rank() || source.rank() != target.rank())
        return;
    const ReshardPlan& plan = plans.get(source, target, inMesh ? *inMesh : *outMesh, shape);
    ir::Value* v = bypassed;
    for (const ReshardStep& step : plan.steps) {
        ir::Op* op = reshard->parentBlock()->insertBefore(reshard, makeStep(step, v, *reshard));
        module.noteDerived(*op, *reshard, ir::Derivation::Reshard);
        v = op->result(0);
    }
    if (!plan.finishedInTwoRounds)
        diags.warning(reshard->pos,
                      "this reshard from " + source.toString() + " to " + target.toString() +
                          " needs more than two rounds of collectives; it is finished with an all-gather and an "
                          "all-slice (Shardy stops with an internal check here)");
    replaceAndErase(reshard, v);
}

} // namespace

std::string ReshardStep::toString() const
{
    auto perDim = [&] {
        std::string s = "[";
        for (size_t d = 0; d < perDimAxes.size(); ++d)
            s += (d ? ", " : "") + axisListString(perDimAxes[d]);
        return s + "]";
    };
    switch (kind) {
    case Kind::AllSlice: return "all_slice " + perDim();
    case Kind::AllGather: return "all_gather " + perDim();
    case Kind::CollectivePermute: return "collective_permute";
    case Kind::AllToAll:
        return "all_to_all [" + axisListString(axes) + ": " + std::to_string(srcDim) + "->" + std::to_string(tgtDim) +
               "]";
    }
    return {};
}

ReshardPlan planReshard(const TensorSharding& in, const TensorSharding& out, const Mesh& mesh,
                        const std::vector<int64_t>& shape)
{
    Planner planner(in, out, mesh, shape);
    for (const DimSharding& d : out.dims)
        planner.m_target.push_back(d.axes);
    return planner.run();
}

bool reshardToCollectives(ir::Module& module, const ReshardToCollectivesOptions& options, DiagnosticList& diags)
{
    std::vector<ir::Op*> reshards;
    for (ir::Op* func : module.funcs())
        func->walk([&](ir::Op* op) {
            if (op->name() == "sdy.reshard")
                reshards.push_back(op);
        });
    ReshardPlanCache plans;
    for (ir::Op* reshard : reshards)
        rewrite(module, reshard, options, diags, plans);
    return !diags.hasErrors();
}

} // namespace shardx
