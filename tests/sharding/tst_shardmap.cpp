// The shard map (ShardedLayout): per device its mesh coordinates, index ranges with padding,
// local shape, replicas and unreduced coordinates; every expected value worked out by hand.
#include <QtTest>

#include "core/sharding/LocalShape.h"
#include "tests/sharding/ShardingTestSupport.h"

using namespace shardx;
using shardx::testing::mesh;
using shardx::testing::sharding;
using V = std::vector<int64_t>;

namespace {

ShardedLayout layoutOf(const std::string& s, const Mesh& m, const V& shape)
{
    Expected<ShardedLayout> l = computeShardedLayout(sharding(s), m, shape);
    if (!l)
        qFatal("layout failed: %s", l.error().message.c_str());
    return l.value();
}

V ranges(const DeviceShard& d)
{
    V out;
    for (size_t i = 0; i < d.offset.size(); ++i)
        out.insert(out.end(), {d.begin(i), d.end(i)});
    return out;
}

} // namespace

class TestShardMap : public QObject {
    Q_OBJECT
private slots:
    /// Mesh ["x"=2, "y"=4] (devices 0..7 row-major: device = 4x + y), tensor 4x6x8 sharded
    /// [{"x"}, {}, {"y"}]: local 4/2 x 6 x 8/4 = 2x6x2; device 5 = (x=1, y=1) holds
    /// [2:4, 0:6, 2:4]; every device holds a different slice.
    void twoDimMeshThreeDimTensor()
    {
        ShardedLayout l = layoutOf(R"(<@m, [{"x"}, {}, {"y"}]>)", mesh(R"(<["x"=2, "y"=4]>)"), {4, 6, 8});
        QCOMPARE(l.localShape, (V{2, 6, 2}));
        QCOMPARE(l.shardsPerDim, (V{2, 1, 4}));
        const DeviceShard* d5 = l.shardOfDevice(5);
        QCOMPARE(d5->meshCoords, (V{1, 1}));
        QCOMPARE(d5->shardIndex, (V{1, 0, 1}));
        QCOMPARE(ranges(*d5), (V{2, 4, 0, 6, 2, 4}));
        QCOMPARE(l.sliceText(*d5), std::string("[2:4, 0:6, 2:4]"));
        QCOMPARE(ranges(*l.shardOfDevice(0)), (V{0, 2, 0, 6, 0, 2}));
        QCOMPARE(ranges(*l.shardOfDevice(7)), (V{2, 4, 0, 6, 6, 8}));
        QCOMPARE(l.replicationGroups.size(), size_t(8));
        QCOMPARE(l.replicasOf(5), V{5});
        QVERIFY(!l.holdsPadding(*d5));
    }
    /// [{"y"}, {}, {}] on the same mesh: "x" is unused, so devices (0, y) and (1, y) hold the same
    /// slice: device 1 = (0, 1) and device 5 = (1, 1) both hold [1:2, 0:6, 0:8] (local 1x6x8).
    void replicas()
    {
        ShardedLayout l = layoutOf(R"(<@m, [{"y"}, {}, {}]>)", mesh(R"(<["x"=2, "y"=4]>)"), {4, 6, 8});
        QCOMPARE(l.localShape, (V{1, 6, 8}));
        QCOMPARE(l.replicasOf(1), (V{1, 5}));
        QCOMPARE(l.replicasOf(6), (V{2, 6}));
        QCOMPARE(ranges(*l.shardOfDevice(5)), (V{1, 2, 0, 6, 0, 8}));
        QCOMPARE(l.replicationGroups, (std::vector<V>{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
        QCOMPARE(l.regionGroups, l.replicationGroups);
        QCOMPARE(l.shardOfDevice(5)->regionGroup, l.shardOfDevice(1)->regionGroup);
    }
    /// Mesh ["a"=2, "b"=2] with device_ids=[3, 1, 2, 0]: position p holds device ids[p], so
    /// device 3 = (0, 0), 1 = (0, 1), 2 = (1, 0), 0 = (1, 1). [{"a"}, {"b"}] on 4x4: device 0
    /// holds [2:4, 2:4], device 1 [0:2, 2:4], device 3 [0:2, 0:2].
    void deviceIds()
    {
        ShardedLayout l =
            layoutOf(R"(<@m, [{"a"}, {"b"}]>)", mesh(R"(<["a"=2, "b"=2], device_ids=[3, 1, 2, 0]>)"), {4, 4});
        QCOMPARE(l.devices[0].deviceId, 3);
        QCOMPARE(l.shardOfDevice(0)->meshCoords, (V{1, 1}));
        QCOMPARE(l.shardOfDevice(0)->position, 3);
        QCOMPARE(ranges(*l.shardOfDevice(0)), (V{2, 4, 2, 4}));
        QCOMPARE(ranges(*l.shardOfDevice(1)), (V{0, 2, 2, 4}));
        QCOMPARE(ranges(*l.shardOfDevice(2)), (V{2, 4, 0, 2}));
        QCOMPARE(ranges(*l.shardOfDevice(3)), (V{0, 2, 0, 2}));
    }
    /// Mesh ["x"=4, "y"=2] (device = 2x + y), tensor 2x16x8 sharded
    /// [{"x":(1)2}, {"x":(2)2}, {"y"}]: "x":(1)2 is x / 2, "x":(2)2 is x % 2. Device 5 = (x=2,
    /// y=1): shard (1, 0, 1) = [1:2, 0:8, 4:8]; device 6 = (3, 0): (1, 1, 0) = [1:2, 8:16, 0:4].
    void subAxes()
    {
        ShardedLayout l = layoutOf(R"(<@m, [{"x":(1)2}, {"x":(2)2}, {"y"}]>)", mesh(R"(<["x"=4, "y"=2]>)"), {2, 16, 8});
        QCOMPARE(l.localShape, (V{1, 8, 4}));
        QCOMPARE(l.shardOfDevice(5)->meshCoords, (V{2, 1}));
        QCOMPARE(l.shardOfDevice(5)->shardIndex, (V{1, 0, 1}));
        QCOMPARE(ranges(*l.shardOfDevice(5)), (V{1, 2, 0, 8, 4, 8}));
        QCOMPARE(ranges(*l.shardOfDevice(6)), (V{1, 2, 8, 16, 0, 4}));
        QCOMPARE(ranges(*l.shardOfDevice(3)), (V{0, 1, 8, 16, 4, 8}));
        QCOMPARE(l.replicationGroups.size(), size_t(8));
    }
    /// DOMAIN.md's uneven example: ["x"=8, "y"=2, "z"=3], [{"x"}, {"y"}, {"z"}] on 7x3x8. Local
    /// shape ceil: 1x2x3. The last x shard starts at 7 and holds nothing (1 padding); the last y
    /// shard holds [2:3] and 1 padding; the last z shard [6:8] and 1 padding. Device
    /// (7, 1, 2) is 7*6 + 1*3 + 2 = 47.
    void unevenPadding()
    {
        ShardedLayout l = layoutOf(R"(<@m, [{"x"}, {"y"}, {"z"}]>)", mesh(R"(<["x"=8, "y"=2, "z"=3]>)"), {7, 3, 8});
        QCOMPARE(l.localShape, (V{1, 2, 3}));
        QVERIFY(!l.isEven);
        const DeviceShard* last = l.shardOfDevice(47);
        QCOMPARE(last->meshCoords, (V{7, 1, 2}));
        QCOMPARE(ranges(*last), (V{7, 7, 2, 3, 6, 8}));
        QCOMPARE(l.paddingOf(*last, 0), 1);
        QCOMPARE(l.paddingOf(*last, 1), 1);
        QCOMPARE(l.paddingOf(*last, 2), 1);
        QCOMPARE(l.sliceText(*last), std::string("[7:7 (+1 padding), 2:3 (+1 padding), 6:8 (+1 padding)]"));
        const DeviceShard* first = l.shardOfDevice(0);
        QCOMPARE(l.sliceText(*first), std::string("[0:1, 0:2, 0:3]"));
        QVERIFY(!l.holdsPadding(*first));
        // Device (6, 0, 1) = 6*6 + 1 = 37: [6:7, 0:2, 3:6], no padding.
        QCOMPARE(ranges(*l.shardOfDevice(37)), (V{6, 7, 0, 2, 3, 6}));
        QVERIFY(!l.holdsPadding(*l.shardOfDevice(37)));
    }
    /// ["x"=2, "y"=2], [{"x"}, {}] unreduced={"y"} on 4x4: devices 0 = (0, 0) and 1 = (0, 1) hold
    /// the same region [0:2, 0:4] but different partial sums (y coordinate 0 and 1): one region
    /// group, two replication groups.
    void unreduced()
    {
        ShardedLayout l = layoutOf(R"(<@m, [{"x"}, {}], unreduced={"y"}>)", mesh(R"(<["x"=2, "y"=2]>)"), {4, 4});
        QCOMPARE(l.unreducedAxes.size(), size_t(1));
        QCOMPARE(l.unreducedAxes[0].name, std::string("y"));
        QCOMPARE(l.shardOfDevice(1)->unreducedIndex, V{1});
        QCOMPARE(l.shardOfDevice(0)->unreducedIndex, V{0});
        QCOMPARE(l.replicasOf(1), V{1});
        QCOMPARE(l.regionGroups, (std::vector<V>{{0, 1}, {2, 3}}));
        QCOMPARE(l.shardOfDevice(0)->regionGroup, l.shardOfDevice(1)->regionGroup);
        QVERIFY(l.shardOfDevice(0)->replicaGroup != l.shardOfDevice(1)->replicaGroup);
        QCOMPARE(ranges(*l.shardOfDevice(1)), (V{0, 2, 0, 4}));
    }
    /// A 4-D tensor on a 3-D mesh ["a"=2, "b"=2, "c"=2] with [{}, {"c", "a"}, {}, {"b"}]: dim 1
    /// has 4 shards indexed c * 2 + a, dim 3 has 2 indexed by b. Device 6 = (a=1, b=1, c=0):
    /// dim 1 shard 1 = [2:4] of 8, dim 3 shard 1 = [3:6] of 6.
    void threeDimMeshFourDimTensor()
    {
        ShardedLayout l =
            layoutOf(R"(<@m, [{}, {"c", "a"}, {}, {"b"}]>)", mesh(R"(<["a"=2, "b"=2, "c"=2]>)"), {2, 8, 3, 6});
        QCOMPARE(l.localShape, (V{2, 2, 3, 3}));
        QCOMPARE(l.shardOfDevice(6)->meshCoords, (V{1, 1, 0}));
        QCOMPARE(ranges(*l.shardOfDevice(6)), (V{0, 2, 2, 4, 0, 3, 3, 6}));
        // Device 1 = (0, 0, 1): dim 1 shard 1 * 2 + 0 = 2 -> [4:6].
        QCOMPARE(ranges(*l.shardOfDevice(1)), (V{0, 2, 4, 6, 0, 3, 0, 3}));
        QCOMPARE(l.replicationGroups.size(), size_t(8));
    }
    void scalar()
    {
        ShardedLayout l = layoutOf(R"(<@m, []>)", mesh(R"(<["x"=2]>)"), {});
        QCOMPARE(l.replicasOf(0), (V{0, 1}));
        QCOMPARE(l.sliceText(l.devices[0]), std::string("[]"));
    }
};

QTEST_APPLESS_MAIN(TestShardMap)
#include "tst_shardmap.moc"
