// ExplicitReshards (ExplicitReshards.h): the common axes of every factor of an op (SDY.md 3.8).
#include <algorithm>
#include <set>

#include "core/partition/ExplicitReshardsInternal.h"

namespace shardx::reshards {

namespace {

using AxisList = std::vector<AxisRef>;

bool contains(const std::vector<int64_t>& list, int64_t f)
{
    return std::find(list.begin(), list.end(), f) != list.end();
}

/// True if any axis of `a` overlaps any axis of `b`.
bool anyOverlap(const AxisList& a, const AxisList& b)
{
    for (const AxisRef& x : a)
        for (const AxisRef& y : b)
            if (overlaps(x, y))
                return true;
    return false;
}

/// `list` cut at the first axis overlapping an axis of `used` (a partially overlapping axis
/// keeps its non-overlapping prefix).
AxisList truncateAtOverlap(const AxisList& list, const AxisList& used)
{
    AxisList out;
    for (const AxisRef& a : list) {
        std::optional<AxisRef> kept = a;
        for (const AxisRef& u : used) {
            if (!kept || !overlaps(*kept, u))
                continue;
            kept = prefixWithoutOverlap(*kept, u);
            if (kept) {
                out.push_back(*kept);
                return out;
            }
        }
        if (!kept)
            return out;
        if (!(*kept == a)) {
            out.push_back(*kept);
            return out;
        }
        out.push_back(a);
    }
    return out;
}

int kindRank(const OpShardingRule& rule, int64_t f)
{
    if (contains(rule.needReplicationFactors, f))
        return 0;
    if (contains(rule.permutationFactors, f))
        return 1;
    if (contains(rule.reductionFactors, f))
        return 2;
    return 3;
}

bool alreadyCompatible(const FactorProblem& p, std::vector<AxisList>& common)
{
    const OpShardingRule& rule = *p.rule;
    const ShardingProjection& proj = *p.projection;
    std::vector<std::optional<AxisList>> seen(static_cast<size_t>(rule.numFactors()));
    for (int t = 0; t < proj.numTensors(); ++t)
        for (const auto& [f, fs] : proj.tensor(t).factors) {
            if (!fs.overflowAxes.empty())
                return false;
            auto& s = seen[static_cast<size_t>(f)];
            if (s && *s != fs.axes)
                return false;
            s = fs.axes;
        }
    std::vector<AxisRef> used;
    for (int64_t f = 0; f < rule.numFactors(); ++f) {
        const AxisList axes = seen[static_cast<size_t>(f)].value_or(AxisList{});
        if (!axes.empty() && contains(rule.needReplicationFactors, f))
            return false;
        if (anyOverlap(axes, used))
            return false;
        used.insert(used.end(), axes.begin(), axes.end());
        common[static_cast<size_t>(f)] = axes;
    }
    return true;
}

bool unarySpecialCase(const FactorProblem& p, std::vector<AxisList>& common)
{
    const OpShardingRule& rule = *p.rule;
    const ShardingProjection& proj = *p.projection;
    if (!rule.needReplicationFactors.empty())
        return false;
    std::vector<int> tensors;
    for (int t = 0; t < proj.numTensors(); ++t) {
        const TensorFactorMapping& m = t < proj.numOperands()
                                           ? rule.operands[static_cast<size_t>(t)]
                                           : rule.results[static_cast<size_t>(t - proj.numOperands())];
        if (m.empty())
            continue;
        for (const DimFactors& d : m)
            if (d.size() > 1)
                return false;
        tensors.push_back(t);
    }
    if (tensors.size() != 2)
        return false;
    auto key = [&](int t) {
        const TensorFactorShardings& tf = proj.tensor(t);
        bool noShardedPermutation = true;
        int64_t product = 1;
        for (const auto& [f, fs] : tf.factors) {
            if (contains(rule.permutationFactors, f) && !fs.axes.empty())
                noShardedPermutation = false;
            product *= axesProduct(fs.axes, *p.mesh);
        }
        return std::make_tuple(noShardedPermutation, p.tensorSizes[static_cast<size_t>(t)], product);
    };
    const int preferred = key(tensors[1]) > key(tensors[0]) ? tensors[1] : tensors[0];
    const int other = preferred == tensors[0] ? tensors[1] : tensors[0];
    AxisList used;
    for (const auto& [f, fs] : proj.tensor(preferred).factors) {
        common[static_cast<size_t>(f)] = fs.axes;
        used.insert(used.end(), fs.axes.begin(), fs.axes.end());
    }
    for (const auto& [f, fs] : proj.tensor(other).factors)
        if (!proj.tensor(preferred).hasFactor(f))
            common[static_cast<size_t>(f)] = truncateAtOverlap(fs.axes, used);
    return true;
}

struct Candidate {
    int64_t factor = 0;
    AxisList axes;
    int64_t sourceSize = 0;
    int kind = 0;
    int64_t growth = 1;
};

bool lessAxisLists(const AxisList& a, const AxisList& b)
{
    if (a.size() != b.size())
        return a.size() < b.size();
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i] == b[i])
            continue;
        if (a[i].name != b[i].name)
            return a[i].name < b[i].name;
        return lessIntraAxis(a[i], b[i]);
    }
    return false;
}

bool lessCandidate(const Candidate& a, const Candidate& b)
{
    if (a.sourceSize != b.sourceSize)
        return a.sourceSize < b.sourceSize;
    if (a.kind != b.kind)
        return a.kind < b.kind;
    if (a.growth != b.growth)
        return a.growth < b.growth;
    if (a.factor != b.factor)
        return a.factor < b.factor;
    return lessAxisLists(a.axes, b.axes);
}

int64_t growthOver(const AxisList& list, const AxisList& assigned, const Mesh& mesh)
{
    const int64_t base = axesProduct(assigned, mesh);
    const int64_t total = axesProduct(list, mesh);
    return base > 0 ? std::max<int64_t>(1, total / base) : total;
}

void heuristic(const FactorProblem& p, std::vector<AxisList>& common)
{
    const OpShardingRule& rule = *p.rule;
    const ShardingProjection& proj = *p.projection;
    const Mesh& mesh = *p.mesh;
    const size_t nf = static_cast<size_t>(rule.numFactors());

    std::vector<Candidate> cands;
    for (int t = 0; t < proj.numTensors(); ++t)
        for (const auto& [f, fs] : proj.tensor(t).factors)
            for (size_t k = 1; k <= fs.axes.size(); ++k) {
                AxisList l(fs.axes.begin(), fs.axes.begin() + static_cast<long>(k));
                bool dup = false;
                for (const Candidate& c : cands)
                    dup = dup || (c.factor == f && c.axes == l);
                if (!dup)
                    cands.push_back(Candidate{f, l, 0, kindRank(rule, f), 1});
            }
    for (Candidate& c : cands) {
        for (int t = 0; t < proj.numTensors(); ++t) {
            const FactorSharding* fs = proj.tensor(t).find(c.factor);
            if (fs && (fs->axes == c.axes || isStrictPrefix(c.axes, fs->axes, mesh)))
                c.sourceSize += p.tensorSizes[static_cast<size_t>(t)];
        }
        c.growth = axesProduct(c.axes, mesh);
    }

    // Dependencies: g immediately before f in some dimension.
    std::vector<std::set<int64_t>> dependsOn(nf);
    auto addDeps = [&](const std::vector<TensorFactorMapping>& maps) {
        for (const TensorFactorMapping& m : maps)
            for (const DimFactors& d : m)
                for (size_t j = 1; j < d.size(); ++j)
                    dependsOn[static_cast<size_t>(d[j])].insert(d[j - 1]);
    };
    addDeps(rule.operands);
    addDeps(rule.results);
    std::vector<bool> finished(nf, false);

    while (!cands.empty()) {
        int best = -1;
        for (size_t i = 0; i < cands.size(); ++i) {
            bool eligible = true;
            for (int64_t g : dependsOn[static_cast<size_t>(cands[i].factor)])
                eligible = eligible && finished[static_cast<size_t>(g)];
            if (!eligible)
                continue;
            if (best < 0 || lessCandidate(cands[static_cast<size_t>(best)], cands[i]))
                best = static_cast<int>(i);
        }
        if (best < 0)
            break;
        const Candidate chosen = cands[static_cast<size_t>(best)];
        const size_t f = static_cast<size_t>(chosen.factor);
        common[f] = chosen.axes;
        if (axesProduct(chosen.axes, mesh) >= rule.factorSizes[f])
            finished[f] = true;
        std::vector<Candidate> next;
        for (Candidate& c : cands) {
            if (c.factor == chosen.factor) {
                if (!isStrictPrefix(chosen.axes, c.axes, mesh))
                    continue;
                c.growth = growthOver(c.axes, chosen.axes, mesh);
                next.push_back(c);
                continue;
            }
            if (anyOverlap(c.axes, chosen.axes)) {
                c.axes = truncateAtOverlap(c.axes, chosen.axes);
                const AxisList& assigned = common[static_cast<size_t>(c.factor)];
                if (c.axes == assigned)
                    continue;
                c.growth = growthOver(c.axes, assigned, mesh);
            } else {
                c.growth = axesProduct(c.axes, mesh);
            }
            next.push_back(c);
        }
        cands = std::move(next);
    }

    // Need-replication factors give their axes to the batching factors.
    if (rule.needReplicationFactors.empty())
        return;
    std::vector<int> nonScalar;
    for (int t = 0; t < proj.numTensors(); ++t) {
        const TensorFactorMapping& m = t < proj.numOperands()
                                           ? rule.operands[static_cast<size_t>(t)]
                                           : rule.results[static_cast<size_t>(t - proj.numOperands())];
        if (!m.empty())
            nonScalar.push_back(t);
    }
    auto inAll = [&](int64_t f) {
        for (int t : nonScalar)
            if (!proj.tensor(t).hasFactor(f))
                return false;
        return true;
    };
    std::vector<int64_t> batching;
    for (int64_t f = 0; f < rule.numFactors(); ++f)
        if (kindRank(rule, f) == 3 && inAll(f))
            batching.push_back(f);
    for (int64_t nr : rule.needReplicationFactors) {
        AxisList axes = std::move(common[static_cast<size_t>(nr)]);
        common[static_cast<size_t>(nr)].clear();
        if (!inAll(nr))
            continue;
        size_t next = 0;
        for (int64_t b : batching) {
            if (next >= axes.size())
                break;
            AxisList& cur = common[static_cast<size_t>(b)];
            const int64_t n = rule.factorSizes[static_cast<size_t>(b)];
            const int64_t prod = axesProduct(cur, mesh);
            if (n == 0 || prod == 0 || n % prod != 0)
                continue;
            int64_t cap = n / prod;
            while (next < axes.size()) {
                const int64_t s = axes[next].size(mesh);
                if (s <= 0 || cap % s != 0)
                    break;
                addAxisOrMerge(cur, axes[next], mesh);
                cap /= s;
                ++next;
            }
        }
    }
}

} // namespace

std::vector<std::vector<AxisRef>> computeCommonAxes(const FactorProblem& problem)
{
    std::vector<AxisList> common(static_cast<size_t>(problem.rule->numFactors()));
    if (alreadyCompatible(problem, common))
        return common;
    common.assign(common.size(), AxisList{});
    if (unarySpecialCase(problem, common))
        return common;
    common.assign(common.size(), AxisList{});
    heuristic(problem, common);
    return common;
}

} // namespace shardx::reshards
