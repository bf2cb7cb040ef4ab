// sdy-reshard-to-collectives (PARTITION.md 3): decompositions worked by hand, every decomposition
// checked step by step against the collectives' own semantics, and the pass on modules.
#include <QtTest>

#include <random>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/partition/CollectiveSemantics.h"
#include "core/partition/ReshardToCollectives.h"
#include "core/passes/PassRegistry.h"
#include "tests/TestSupport.h"

using namespace shardx;

namespace {

AxisRef ax(const char* n) { return AxisRef(n); }
AxisRef sub(const char* n, int64_t pre, int64_t size) { return AxisRef(n, pre, size); }

TensorSharding sharding(const char* mesh, std::vector<std::vector<AxisRef>> dims)
{
    TensorSharding s;
    s.mesh.symbol = mesh;
    for (auto& d : dims)
        s.dims.push_back(DimSharding{std::move(d), true, std::nullopt});
    return s;
}

/// One line per step: `all_to_all [{"x"}: 0->1] <@M, [{"y"}, {"x"}]>`.
QStringList lines(const ReshardPlan& plan)
{
    QStringList out;
    for (const ReshardStep& s : plan.steps)
        out << QString::fromStdString(s.toString() + " " + s.out.toString());
    return out;
}

QStringList plan(const Mesh& mesh, const TensorSharding& in, const TensorSharding& out, std::vector<int64_t> shape,
                 bool* twoRounds = nullptr)
{
    ReshardPlan p = planReshard(in, out, mesh, shape);
    if (twoRounds)
        *twoRounds = p.finishedInTwoRounds;
    return lines(p);
}

std::string runPass(const std::string& text, bool keepRedundant = false, std::string* diagnostics = nullptr)
{
    DiagnosticList diags;
    auto module = io::parseMlir(text, "test.mlir", diags);
    if (!module)
        return "<parse error> " + diags.formatAll();
    const PassInfo* info = findPass("sdy-reshard-to-collectives");
    if (!info)
        return "<no pass>";
    if (!info->run(*module, {{"keep-redundant-reshards", keepRedundant ? "true" : "false"}}, diags))
        return "<pass failed> " + diags.formatAll();
    if (diagnostics)
        *diagnostics = diags.formatAll();
    return io::printModule(*module);
}

using testing::has;

/// Random valid shardings of rank `rank` on `mesh`: every axis is cut into sub-axes at random
/// power-of-two boundaries and each piece goes to a random dimension or nowhere.
TensorSharding randomSharding(std::mt19937& rng, const Mesh& mesh, int rank)
{
    std::vector<std::vector<AxisRef>> dims(static_cast<size_t>(rank));
    std::vector<std::pair<int, AxisRef>> placed;
    for (const MeshAxis& axis : mesh.axes()) {
        int64_t pre = 1;
        while (pre < axis.size) {
            int64_t size = axis.size / pre;
            if (size > 2 && rng() % 2)
                size = 2; // cut a piece of 2 off
            const AxisRef piece = (pre == 1 && size == axis.size) ? AxisRef(axis.name) : AxisRef(axis.name, pre, size);
            const int dim = static_cast<int>(rng() % static_cast<unsigned>(rank + 1)) - 1;
            if (dim >= 0)
                placed.emplace_back(dim, piece);
            pre *= size;
        }
    }
    std::shuffle(placed.begin(), placed.end(), rng);
    // Pieces of one axis in one dimension keep their major-to-minor order (and merge when adjacent).
    std::stable_sort(placed.begin(), placed.end(), [](const auto& a, const auto& b) {
        if (a.first != b.first || a.second.name != b.second.name)
            return false;
        return a.second.preSize() < b.second.preSize();
    });
    for (const auto& [d, piece] : placed)
        addAxisOrMerge(dims[static_cast<size_t>(d)], piece, mesh);
    TensorSharding s;
    s.mesh.symbol = "m";
    for (auto& d : dims)
        s.dims.push_back(DimSharding{std::move(d), true, std::nullopt});
    return s;
}

std::vector<std::vector<AxisRef>> dimAxes(const TensorSharding& s)
{
    std::vector<std::vector<AxisRef>> out;
    for (const DimSharding& d : s.dims)
        out.push_back(d.axes);
    return out;
}

} // namespace

class TestReshardToCollectives : public QObject {
    Q_OBJECT

private slots:
    void reorderThenMove()
    {
        // [{"x","y"}, {}] -> [{"y"}, {"x"}]: "y" and "x" have the same size, so one permute puts "y"
        // first in dim 0, then "x" moves to dim 1.
        Mesh m({{"x", 2}, {"y", 2}, {"z", 2}});
        QCOMPARE(plan(m, sharding("M", {{ax("x"), ax("y")}, {}}), sharding("M", {{ax("y")}, {ax("x")}}), {8, 8}),
                 QStringList({R"(collective_permute <@M, [{"y", "x"}, {}]>)",
                              R"(all_to_all [{"x"}: 0->1] <@M, [{"y"}, {"x"}]>)"}));
    }

    void subAxisAllToAll()
    {
        // "x"=8 on dim 0 -> "x":(1)2 on dim 0 and "x":(2)4 on dim 1: the common major part stays.
        Mesh m({{"x", 8}});
        QCOMPARE(plan(m, sharding("M", {{ax("x")}, {}}), sharding("M", {{sub("x", 1, 2)}, {sub("x", 2, 4)}}), {16, 16}),
                 QStringList({R"(all_to_all [{"x":(2)4}: 0->1] <@M, [{"x":(1)2}, {"x":(2)4}]>)"}));
    }

    void deviceOrderAndAxisChange()
    {
        // The permute that changes axes also switches to the mesh with the other device order.
        Mesh m({{"x", 2}, {"y", 2}});
        QCOMPARE(plan(m, sharding("m", {{ax("x")}, {ax("y")}}), sharding("m_rev", {{ax("y")}, {}}), {8, 8}),
                 QStringList({R"(collective_permute <@m_rev, [{"y"}, {"x"}]>)",
                              R"(all_gather [{}, {"x"}] <@m_rev, [{"y"}, {}]>)"}));
        // From replicated: slice on the source mesh, then a pure device-order permute.
        QCOMPARE(
            plan(m, sharding("m", {{}, {}}), sharding("m_rev", {{ax("x")}, {}}), {8, 8}),
            QStringList({R"(all_slice [{"x"}, {}] <@m, [{"x"}, {}]>)", R"(collective_permute <@m_rev, [{"x"}, {}]>)"}));
    }

    void nonPowerOfTwoSliceThenMove()
    {
        // x=2, y=3: [{"y"}, {}] -> [{}, {"x", "y"}]. Dim 1 has room for 6: "x" is sliced in its final
        // place, then "y" joins it behind.
        Mesh m({{"x", 2}, {"y", 3}});
        QCOMPARE(plan(m, sharding("M", {{ax("y")}, {}}), sharding("M", {{}, {ax("x"), ax("y")}}), {12, 12}),
                 QStringList({R"(all_slice [{}, {"x"}] <@M, [{"y"}, {"x"}]>)",
                              R"(all_to_all [{"y"}: 0->1] <@M, [{}, {"x", "y"}]>)"}));
    }

    void piecesThroughAllThreeMoves()
    {
        // x=4, y=2: [{"x","y"}, {}] -> [{"y"}, {"x":(2)2}]: "x" is cut at 2; its minor half moves, its
        // major half is gathered.
        Mesh m({{"x", 4}, {"y", 2}});
        QCOMPARE(plan(m, sharding("M", {{ax("x"), ax("y")}, {}}), sharding("M", {{ax("y")}, {sub("x", 2, 2)}}), {8, 8}),
                 QStringList({R"(collective_permute <@M, [{"y", "x"}, {}]>)",
                              R"(all_to_all [{"x":(2)2}: 0->1] <@M, [{"y", "x":(1)2}, {"x":(2)2}]>)",
                              R"(all_gather [{"x":(1)2}, {}] <@M, [{"y"}, {"x":(2)2}]>)"}));
    }

    void droppedAxisGoesToTheFront()
    {
        // [{"x"}, {"y","z"}] -> [{"z","x"}, {}]: "y" is placed before "x" in dim 1 so that "x" can
        // leave by an all-to-all first and "y" is gathered last.
        Mesh m({{"x", 2}, {"y", 2}, {"z", 2}});
        QCOMPARE(
            plan(m, sharding("M", {{ax("x")}, {ax("y"), ax("z")}}), sharding("M", {{ax("z"), ax("x")}, {}}), {8, 8}),
            QStringList({R"(collective_permute <@M, [{"z"}, {"y", "x"}]>)",
                         R"(all_to_all [{"x"}: 1->0] <@M, [{"z", "x"}, {"y"}]>)",
                         R"(all_gather [{}, {"y"}] <@M, [{"z", "x"}, {}]>)"}));
    }

    void swapOfAxesThatDoNotDivideTakesTwoRounds()
    {
        // x=2, y=3: swapping them needs an all-to-all, a permute in the second round, another move.
        Mesh m({{"x", 2}, {"y", 3}});
        bool twoRounds = false;
        QCOMPARE(
            plan(m, sharding("M", {{ax("x")}, {ax("y")}}), sharding("M", {{ax("y")}, {ax("x")}}), {12, 12}, &twoRounds),
            QStringList({R"(all_to_all [{"x"}: 0->1] <@M, [{}, {"y", "x"}]>)",
                         R"(collective_permute <@M, [{}, {"x", "y"}]>)",
                         R"(all_to_all [{"y"}: 1->0] <@M, [{"y"}, {"x"}]>)"}));
        QVERIFY(twoRounds);
    }

    void moreThanTwoRoundsFinishesCorrectly()
    {
        // A reshard two rounds do not finish (PARTITION.md 3.11): the plan still reaches the target.
        Mesh m({{"x", 3}, {"y", 2}, {"z", 2}});
        const TensorSharding target = sharding("M", {{ax("x"), ax("z")}, {}, {ax("y")}});
        ReshardPlan p = planReshard(sharding("M", {{}, {ax("y")}, {ax("x")}}), target, m, {24, 24, 12});
        QVERIFY(!p.finishedInTwoRounds);
        QVERIFY(!p.steps.empty());
        QCOMPARE(dimAxes(p.steps.back().out), dimAxes(target));
    }

    void everyPlanFollowsTheCollectivesSemantics()
    {
        // Random reshards on power-of-two meshes: each step's out sharding is what the collective
        // computes from the previous one, a permute keeps every dimension's shard count, the last
        // step reaches the target, and one or two rounds always suffice.
        const std::vector<Mesh> meshes = {Mesh({{"x", 2}, {"y", 2}, {"z", 2}, {"w", 2}}),
                                          Mesh({{"x", 4}, {"y", 2}, {"z", 4}}), Mesh({{"x", 8}, {"y", 4}}),
                                          Mesh({{"a", 16}})};
        std::mt19937 rng(7);
        int checked = 0, nonTrivial = 0;
        for (int i = 0; i < 3000; ++i) {
            const Mesh& mesh = meshes[static_cast<size_t>(i) % meshes.size()];
            const int rank = 1 + static_cast<int>(rng() % 3);
            const TensorSharding in = randomSharding(rng, mesh, rank);
            const TensorSharding out = randomSharding(rng, mesh, rank);
            const std::vector<int64_t> shape(static_cast<size_t>(rank), 256);
            const ReshardPlan p = planReshard(in, out, mesh, shape);
            const QString what = QString::fromStdString(in.toString() + " -> " + out.toString());
            QVERIFY2(p.finishedInTwoRounds, qPrintable(what));
            TensorSharding current = in;
            for (const ReshardStep& step : p.steps) {
                CollectiveParams params;
                switch (step.kind) {
                case ReshardStep::Kind::AllSlice:
                    params.kind = CollectiveKind::AllSlice;
                    params.perDimAxes = step.perDimAxes;
                    break;
                case ReshardStep::Kind::AllGather:
                    params.kind = CollectiveKind::AllGather;
                    params.perDimAxes = step.perDimAxes;
                    break;
                case ReshardStep::Kind::AllToAll:
                    params.kind = CollectiveKind::AllToAll;
                    params.allToAll = {AllToAllSpec{step.axes, step.srcDim, step.tgtDim}};
                    break;
                case ReshardStep::Kind::CollectivePermute:
                    params.kind = CollectiveKind::CollectivePermute;
                    params.permuteTarget = step.out;
                    for (int d = 0; d < rank; ++d)
                        QVERIFY2(axesProduct(current.dims[d].axes, mesh) == axesProduct(step.out.dims[d].axes, mesh),
                                 qPrintable(what));
                    break;
                }
                Expected<TensorSharding> next = collectiveResultSharding(current, params, mesh);
                QVERIFY2(next.ok(), qPrintable(what + " at " + QString::fromStdString(step.toString())));
                QVERIFY2(dimAxes(*next) == dimAxes(step.out),
                         qPrintable(what + ": " + QString::fromStdString(step.toString()) + " gives " +
                                    QString::fromStdString(next->toString()) + ", the plan says " +
                                    QString::fromStdString(step.out.toString())));
                current = step.out;
            }
            QVERIFY2(dimAxes(current) == dimAxes(out), qPrintable(what));
            ++checked;
            nonTrivial += p.steps.size() > 1;
        }
        QCOMPARE(checked, 3000);
        QVERIFY(nonTrivial > 500);
    }

    void passRewritesReshards()
    {
        const std::string out = runPass(R"(sdy.mesh @m = <["x"=2, "y"=2]>
func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  %0 = sdy.reshard %arg0 <@m, [{}, {"x"}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
})");
        QVERIFY2(
            has(out, R"(%0 = sdy.all_to_all [{"x"}: 0->1] %arg0 out_sharding=<@m, [{}, {"x"}]> : tensor<8x8xf32>)"),
            out.c_str());
        QVERIFY(!has(out, "sdy.reshard"));
    }

    void passKeepsWhatItCannotLower()
    {
        // A single-device mesh and meshes with different axes are left to later passes.
        const std::string out = runPass(R"(sdy.mesh @m = <["x"=2, "y"=2]>
sdy.mesh @m6 = <["x"=6]>
sdy.mesh @dev0 = <[], device_ids=[0]>
func.func @f(%arg0: tensor<12x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) -> (tensor<12x8xf32>, tensor<12x8xf32>) {
  %0 = sdy.reshard %arg0 <@dev0, [{}, {}]> : tensor<12x8xf32>
  %1 = sdy.reshard %arg0 <@m6, [{"x"}, {}]> : tensor<12x8xf32>
  return %0, %1 : tensor<12x8xf32>, tensor<12x8xf32>
})");
        QVERIFY2(has(out, "sdy.reshard %arg0 <@dev0, [{}, {}]>"), out.c_str());
        QVERIFY2(has(out, R"(sdy.reshard %arg0 <@m6, [{"x"}, {}]>)"), out.c_str());
    }

    void redundantReshardsGoUnlessKept()
    {
        const std::string text = R"(sdy.mesh @m = <["x"=2, "y"=2]>
func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {"y"}]>}) -> tensor<8x8xf32> {
  %0 = sdy.reshard %arg0 <@m, [{"x"}, {"y"}]> : tensor<8x8xf32>
  %1 = stablehlo.negate %0 : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
})";
        const std::string removed = runPass(text, false);
        QVERIFY2(!has(removed, "sdy.reshard") && has(removed, "stablehlo.negate %arg0"), removed.c_str());
        const std::string kept = runPass(text, true);
        QVERIFY2(has(kept, "sdy.reshard %arg0"), kept.c_str());
    }

    void chainStartsBehindPropagationBarriers()
    {
        // The barrier's operand has the sharding; the chain reads from it and the barrier stays.
        const std::string out = runPass(R"(sdy.mesh @m = <["x"=2, "y"=2]>
func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  %0 = sdy.propagation_barrier %arg0 allowed_direction=NONE : tensor<8x8xf32>
  %1 = sdy.reshard %0 <@m, [{}, {}]> : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
})");
        QVERIFY2(has(out, R"(sdy.all_gather [{"x"}, {}] %arg0 out_sharding=<@m, [{}, {}]>)"), out.c_str());
        QVERIFY2(has(out, "sdy.propagation_barrier"), out.c_str());
    }

    void moreThanTwoRoundsWarns()
    {
        std::string diags;
        const std::string out = runPass(R"(sdy.mesh @m = <["x"=3, "y"=2, "z"=2]>
func.func @f(%arg0: tensor<24x24x12xf32> {sdy.sharding = #sdy.sharding<@m, [{}, {"y"}, {"x"}]>}) -> tensor<24x24x12xf32> {
  %0 = sdy.reshard %arg0 <@m, [{"x", "z"}, {}, {"y"}]> : tensor<24x24x12xf32>
  return %0 : tensor<24x24x12xf32>
})",
                                        false, &diags);
        QVERIFY2(has(diags, "test.mlir:3:") && has(diags, "warning") && has(diags, "two rounds"), diags.c_str());
        QVERIFY2(has(out, R"(out_sharding=<@m, [{"x", "z"}, {}, {"y"}]>)"), out.c_str());
        QVERIFY(!has(out, "sdy.reshard"));
    }
};

QTEST_GUILESS_MAIN(TestReshardToCollectives)
#include "tst_reshardtocollectives.moc"
