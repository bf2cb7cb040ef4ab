// Collective semantics: result shardings and device-by-device movement, derived by hand.
#include <QtTest>

#include "core/partition/CollectiveSemantics.h"

using namespace shardx;

namespace {

AxisRef ax(const char* n) { return AxisRef(n); }
AxisRef sub(const char* n, int64_t pre, int64_t size) { return AxisRef(n, pre, size); }

TensorSharding sharding(std::vector<std::vector<AxisRef>> dims, std::vector<AxisRef> unreduced = {})
{
    TensorSharding s;
    s.mesh.symbol = "m";
    for (auto& d : dims)
        s.dims.push_back(DimSharding{std::move(d), true, std::nullopt});
    s.unreduced = std::move(unreduced);
    return s;
}

std::vector<std::vector<AxisRef>> dimAxes(const TensorSharding& s)
{
    std::vector<std::vector<AxisRef>> out;
    for (const DimSharding& d : s.dims)
        out.push_back(d.axes);
    return out;
}

/// "src->dst @offset+extent" lines, for compact comparisons.
QStringList transferLines(const CollectiveMovement& mv)
{
    QStringList out;
    for (const Transfer& t : mv.transfers) {
        QString line = QString("%1->%2 @").arg(t.srcDevice).arg(t.dstDevice);
        for (size_t i = 0; i < t.offset.size(); ++i)
            line += QString("%1%2+%3").arg(i ? "," : "").arg(t.offset[i]).arg(t.extent[i]);
        if (t.reduce)
            line += " reduce";
        out << line;
    }
    return out;
}

} // namespace

class TestCollectiveSemantics : public QObject {
    Q_OBJECT

private slots:
    void allGatherOneDimensionalMesh()
    {
        // x=4, tensor<8xf32> sharded [{"x"}]: device c holds [2c, 2c+2). Gathering x makes every
        // device fetch the three other 2-element pieces (8 bytes each).
        Mesh mesh({{"x", 4}});
        CollectiveParams p;
        p.kind = CollectiveKind::AllGather;
        p.perDimAxes = {{ax("x")}};
        auto mv = collectiveMovement(sharding({{ax("x")}}), p, mesh, {8}, 4);
        QVERIFY(mv.ok());
        QVERIFY(mv->result.dims[0].axes.empty());
        QCOMPARE(mv->groups, (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}}));
        QStringList expected = {"1->0 @2+2", "2->0 @4+2", "3->0 @6+2", "0->1 @0+2", "2->1 @4+2", "3->1 @6+2",
                                "0->2 @0+2", "1->2 @2+2", "3->2 @6+2", "0->3 @0+2", "1->3 @2+2", "2->3 @4+2"};
        QCOMPARE(transferLines(*mv), expected);
        QCOMPARE(mv->bytesReceived, (std::vector<int64_t>{24, 24, 24, 24}));
        QCOMPARE(mv->bytesSent, (std::vector<int64_t>{24, 24, 24, 24}));
        QCOMPARE(mv->totalBytes, int64_t(96));
    }

    void allGatherTwoDimensionalMeshStaysInsideGroups()
    {
        // x=2,y=2; tensor<4x4xf32> [{"x"}, {"y"}]; gather y on dim 1 -> [{"x"}, {}].
        // Positions (x,y): 0=(0,0) 1=(0,1) 2=(1,0) 3=(1,1). Groups differ only in y: {0,1}, {2,3}.
        // Device 0 holds rows 0-1 cols 0-1 and needs rows 0-1 cols 0-3: cols 2-3 come from device 1.
        Mesh mesh({{"x", 2}, {"y", 2}});
        CollectiveParams p;
        p.kind = CollectiveKind::AllGather;
        p.perDimAxes = {{}, {ax("y")}};
        auto mv = collectiveMovement(sharding({{ax("x")}, {ax("y")}}), p, mesh, {4, 4}, 4);
        QVERIFY(mv.ok());
        QCOMPARE(dimAxes(mv->result), (std::vector<std::vector<AxisRef>>{{ax("x")}, {}}));
        QCOMPARE(mv->groups, (std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}}));
        QStringList expected = {"1->0 @0+2,2+2", "0->1 @0+2,0+2", "3->2 @2+2,2+2", "2->3 @2+2,0+2"};
        QCOMPARE(transferLines(*mv), expected);
        QCOMPARE(mv->totalBytes, int64_t(4 * 16));
    }

    void allGatherOfMinorSubAxis()
    {
        // x=4 = "x":(1)2 (major) * "x":(2)2 (minor). tensor<8xf32> [{"x"}]: device c holds [2c, 2c+2).
        // Gathering the minor half leaves [{"x":(1)2}]: device c then holds [4*(c/2), +4).
        // Groups differ only in the minor coordinate c%2: {0,1}, {2,3}.
        Mesh mesh({{"x", 4}});
        CollectiveParams p;
        p.kind = CollectiveKind::AllGather;
        p.perDimAxes = {{sub("x", 2, 2)}};
        auto mv = collectiveMovement(sharding({{ax("x")}}), p, mesh, {8}, 4);
        QVERIFY(mv.ok());
        QCOMPARE(dimAxes(mv->result), (std::vector<std::vector<AxisRef>>{{sub("x", 1, 2)}}));
        QCOMPARE(mv->groups, (std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}}));
        QStringList expected = {"1->0 @2+2", "0->1 @0+2", "3->2 @6+2", "2->3 @4+2"};
        QCOMPARE(transferLines(*mv), expected);
    }

    void allGatherNeedsASuffix()
    {
        // Gathering "y" from [{"y", "x"}] is invalid: "y" is not the minor-most axis.
        Mesh mesh({{"x", 2}, {"y", 2}});
        CollectiveParams p;
        p.kind = CollectiveKind::AllGather;
        p.perDimAxes = {{ax("y")}};
        auto r = collectiveResultSharding(sharding({{ax("y"), ax("x")}}), p, mesh);
        QVERIFY(!r.ok());
        QVERIFY(r.error().message.find("\"y\"") != std::string::npos);
        // Gathering the minor half of x from {"z", "x"} keeps the major half (SDY.md 2.12).
        Mesh mesh2({{"z", 2}, {"x", 4}});
        p.perDimAxes = {{sub("x", 2, 2)}};
        auto r2 = collectiveResultSharding(sharding({{ax("z"), ax("x")}}), p, mesh2);
        QVERIFY(r2.ok());
        QCOMPARE(dimAxes(*r2), (std::vector<std::vector<AxisRef>>{{ax("z"), sub("x", 1, 2)}}));
    }

    void allSliceMovesNothing()
    {
        Mesh mesh({{"x", 4}});
        CollectiveParams p;
        p.kind = CollectiveKind::AllSlice;
        p.perDimAxes = {{sub("x", 1, 2)}};
        auto mv = collectiveMovement(sharding({{}}), p, mesh, {8}, 4);
        QVERIFY(mv.ok());
        QCOMPARE(dimAxes(mv->result), (std::vector<std::vector<AxisRef>>{{sub("x", 1, 2)}}));
        QVERIFY(mv->transfers.empty());
        QCOMPARE(mv->totalBytes, int64_t(0));
        // Appending the minor half to the major half merges into the full axis.
        p.perDimAxes = {{sub("x", 2, 2)}};
        auto r = collectiveResultSharding(sharding({{sub("x", 1, 2)}}), p, mesh);
        QVERIFY(r.ok());
        QCOMPARE(dimAxes(*r), (std::vector<std::vector<AxisRef>>{{ax("x")}}));
    }

    void allReduceExchangesPartials()
    {
        // x=2,y=2; tensor<4x4xf32> [{"x"}, {}] unreduced {"y"}. all_reduce {"y"}: groups {0,1},{2,3};
        // each device receives its partner's partial of its own rows (2x4 = 32 bytes).
        Mesh mesh({{"x", 2}, {"y", 2}});
        CollectiveParams p;
        p.kind = CollectiveKind::AllReduce;
        p.axes = {ax("y")};
        auto mv = collectiveMovement(sharding({{ax("x")}, {}}, {ax("y")}), p, mesh, {4, 4}, 4);
        QVERIFY(mv.ok());
        QVERIFY(mv->result.unreduced.empty());
        QStringList expected = {"1->0 @0+2,0+4 reduce", "0->1 @0+2,0+4 reduce", "3->2 @2+2,0+4 reduce",
                                "2->3 @2+2,0+4 reduce"};
        QCOMPARE(transferLines(*mv), expected);
        QCOMPARE(mv->totalBytes, int64_t(128));
    }

    void reduceScatterSendsOnlyTheReceiversPart()
    {
        // Same operand; reduce_scatter [{}, {"y"}] -> [{"x"}, {"y"}]: device 0 ends with rows 0-1 cols
        // 0-1 and receives device 1's partial of exactly that box (4 elements).
        Mesh mesh({{"x", 2}, {"y", 2}});
        CollectiveParams p;
        p.kind = CollectiveKind::ReduceScatter;
        p.perDimAxes = {{}, {ax("y")}};
        auto mv = collectiveMovement(sharding({{ax("x")}, {}}, {ax("y")}), p, mesh, {4, 4}, 4);
        QVERIFY(mv.ok());
        QCOMPARE(dimAxes(mv->result), (std::vector<std::vector<AxisRef>>{{ax("x")}, {ax("y")}}));
        QVERIFY(mv->result.unreduced.empty());
        QStringList expected = {"1->0 @0+2,0+2 reduce", "0->1 @0+2,2+2 reduce", "3->2 @2+2,0+2 reduce",
                                "2->3 @2+2,2+2 reduce"};
        QCOMPARE(transferLines(*mv), expected);
        QCOMPARE(mv->totalBytes, int64_t(64));
    }

    void allToAllSwapsBlocks()
    {
        // x=2; tensor<4x4xf32> [{"x"}, {}] -> all_to_all [{"x"}: 0->1] -> [{}, {"x"}].
        // Device 0 keeps rows 0-1 cols 0-1 and receives rows 2-3 cols 0-1 from device 1.
        Mesh mesh({{"x", 2}});
        CollectiveParams p;
        p.kind = CollectiveKind::AllToAll;
        p.allToAll = {AllToAllSpec{{ax("x")}, 0, 1}};
        auto mv = collectiveMovement(sharding({{ax("x")}, {}}), p, mesh, {4, 4}, 4);
        QVERIFY(mv.ok());
        QCOMPARE(dimAxes(mv->result), (std::vector<std::vector<AxisRef>>{{}, {ax("x")}}));
        QStringList expected = {"1->0 @2+2,0+2", "0->1 @0+2,2+2"};
        QCOMPARE(transferLines(*mv), expected);
        QCOMPARE(mv->totalBytes, int64_t(32));
    }

    void collectivePermuteSwapsDevices()
    {
        // x=2,y=2; tensor<4xf32> [{"x","y"}] -> [{"y","x"}]. Operand shard of (x,y) is 2x+y, result
        // shard is 2y+x: positions 1=(0,1) and 2=(1,0) swap their single elements; 0 and 3 keep theirs.
        Mesh mesh({{"x", 2}, {"y", 2}});
        CollectiveParams p;
        p.kind = CollectiveKind::CollectivePermute;
        p.permuteTarget = sharding({{ax("y"), ax("x")}});
        auto mv = collectiveMovement(sharding({{ax("x"), ax("y")}}), p, mesh, {4}, 4);
        QVERIFY(mv.ok());
        QStringList expected = {"2->1 @2+1", "1->2 @1+1"};
        QCOMPARE(transferLines(*mv), expected);
        QCOMPARE(mv->totalBytes, int64_t(8));
        // Changing the shard count of a dimension is not a permutation.
        p.permuteTarget = sharding({{ax("y")}});
        QVERIFY(!collectiveResultSharding(sharding({{ax("x"), ax("y")}}), p, mesh).ok());
    }

    void deviceIdsArePhysicalDevices()
    {
        // x=2 with device_ids=[1, 0]: position 0 is device 1 and holds [0, 2).
        Mesh mesh({{"x", 2}}, {1, 0});
        CollectiveParams p;
        p.kind = CollectiveKind::AllGather;
        p.perDimAxes = {{ax("x")}};
        auto mv = collectiveMovement(sharding({{ax("x")}}), p, mesh, {4}, 2);
        QVERIFY(mv.ok());
        QCOMPARE(mv->groups, (std::vector<std::vector<int64_t>>{{1, 0}}));
        QStringList expected = {"0->1 @2+2", "1->0 @0+2"};
        QCOMPARE(transferLines(*mv), expected);
        QCOMPARE(mv->totalBytes, int64_t(8));
    }

    void unevenShardsCountOnlyRealElements()
    {
        // x=4; tensor<7xf32> [{"x"}]: shards of 2, the last holds 1 element. Gathering sends 2+2+2+1
        // elements minus the receiver's own piece.
        Mesh mesh({{"x", 4}});
        CollectiveParams p;
        p.kind = CollectiveKind::AllGather;
        p.perDimAxes = {{ax("x")}};
        auto mv = collectiveMovement(sharding({{ax("x")}}), p, mesh, {7}, 4);
        QVERIFY(mv.ok());
        QCOMPARE(mv->bytesReceived, (std::vector<int64_t>{20, 20, 20, 24}));
    }

    void unreducedConversions()
    {
        Mesh mesh({{"x", 2}, {"y", 2}, {"z", 4}});
        CollectiveParams r2u;
        r2u.kind = CollectiveKind::ReplicatedToUnreduced;
        r2u.axes = {ax("z"), ax("y")};
        auto r = collectiveResultSharding(sharding({{ax("x")}, {}}), r2u, mesh);
        QVERIFY(r.ok());
        QCOMPARE(r->unreduced, (std::vector<AxisRef>{ax("y"), ax("z")})); // sorted in mesh order

        CollectiveParams s2u;
        s2u.kind = CollectiveKind::ShardedToUnreduced;
        s2u.perDimAxes = {{ax("y")}, {}};
        auto s = collectiveResultSharding(sharding({{ax("x"), ax("y")}, {ax("z")}}), s2u, mesh);
        QVERIFY(s.ok());
        QCOMPARE(dimAxes(*s), (std::vector<std::vector<AxisRef>>{{ax("x")}, {ax("z")}}));
        QCOMPARE(s->unreduced, (std::vector<AxisRef>{ax("y")}));
        auto mv = collectiveMovement(sharding({{ax("x"), ax("y")}, {ax("z")}}), s2u, mesh, {8, 8}, 4);
        QVERIFY(mv.ok());
        QVERIFY(mv->transfers.empty());
    }
};

QTEST_APPLESS_MAIN(TestCollectiveSemantics)
#include "tst_collectivesemantics.moc"
