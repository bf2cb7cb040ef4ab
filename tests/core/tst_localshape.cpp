// Tests of DeviceLayout (device <-> mesh coordinates) and LocalShape (per-device shards).
#include <QtTest>

#include "core/mesh/DeviceLayout.h"
#include "core/sharding/LocalShape.h"

using namespace shardx;
using V = std::vector<int64_t>;

namespace {

TensorSharding shard(std::vector<std::vector<AxisRef>> dims, std::vector<AxisRef> unreduced = {})
{
    TensorSharding s;
    s.mesh = MeshRef{"m", std::nullopt};
    for (auto& d : dims)
        s.dims.push_back(DimSharding{std::move(d), true, std::nullopt});
    s.unreduced = std::move(unreduced);
    return s;
}

ShardedLayout layoutOf(const TensorSharding& s, const Mesh& m, const V& shape)
{
    Expected<ShardedLayout> l = computeShardedLayout(s, m, shape);
    if (!l)
        qFatal("layout failed: %s", l.error().message.c_str());
    return l.value();
}

} // namespace

class TestLocalShape : public QObject {
    Q_OBJECT
private slots:
    void deviceLayoutIota()
    {
        Mesh m({{"a", 2}, {"b", 3}});
        DeviceLayout l(m);
        QCOMPARE(l.numDevices(), 6);
        QCOMPARE(l.coordsOf(4), (V{1, 1}));
        QCOMPARE(l.coordsOf(2), (V{0, 2}));
        QCOMPARE(l.positionOfCoords({1, 2}), 5);
        QCOMPARE(l.deviceAt(5), 5);
        QCOMPARE(*l.coordsOfDevice(3), (V{1, 0}));
        QVERIFY(!l.coordsOfDevice(6));
    }
    void deviceLayoutPermuted()
    {
        Mesh m({{"a", 2}, {"b", 2}}, {3, 1, 2, 0});
        DeviceLayout l(m);
        QCOMPARE(l.deviceIds(), (V{3, 1, 2, 0}));
        QCOMPARE(l.deviceAt(0), 3);
        QCOMPARE(*l.positionOf(0), 3);
        QCOMPARE(*l.coordsOfDevice(0), (V{1, 1}));
        QCOMPARE(*l.coordsOfDevice(3), (V{0, 0}));
        QCOMPARE(*l.coordsOfDevice(1), (V{0, 1}));
    }
    void deviceLayoutMaximalAndEmpty()
    {
        DeviceLayout maximal(Mesh({}, {5}));
        QCOMPARE(maximal.numDevices(), 1);
        QCOMPARE(maximal.deviceAt(0), 5);
        DeviceLayout empty{Mesh()};
        QCOMPARE(empty.numDevices(), 1);
        QCOMPARE(empty.deviceAt(0), 0);
        QCOMPARE(empty.coordsOf(0), V{});
    }
    void subAxisCoords()
    {
        Mesh m({{"x", 8}});
        DeviceLayout l(m);
        // "x":(pre)k of an axis of size n: (x / (n / (pre * k))) % k (pre-size on the major side)
        QCOMPARE(l.axisCoord(5, AxisRef("x", 2, 4)), 1);
        QCOMPARE(l.axisCoord(7, AxisRef("x", 2, 4)), 3);
        QCOMPARE(l.axisCoord(1, AxisRef("x", 2, 4)), 1);
        QCOMPARE(l.axisCoord(5, AxisRef("x", 1, 2)), 1);
        QCOMPARE(l.axisCoord(3, AxisRef("x", 1, 2)), 0);
        QCOMPARE(l.axisCoord(6, AxisRef("x", 4, 2)), 0);
        QCOMPARE(l.axisCoord(6, AxisRef("x", 1, 4)), 3);
        QCOMPARE(l.axisCoord(6, AxisRef("x")), 6);
        // ["x":(1)2, "x":(2)4] indexes like "x"
        for (int p = 0; p < 8; ++p)
            QCOMPARE(l.indexAlong(p, {AxisRef("x", 1, 2), AxisRef("x", 2, 4)}), p);
        // minor part first: (6 % 2) * 4 + 6 / 2
        QCOMPARE(l.indexAlong(6, {AxisRef("x", 4, 2), AxisRef("x", 1, 4)}), 0 * 4 + 3);
        QCOMPARE(l.indexAlong(5, {AxisRef("x", 4, 2), AxisRef("x", 1, 4)}), 1 * 4 + 2);
    }
    void oneDim()
    {
        Mesh m({{"x", 4}});
        ShardedLayout l = layoutOf(shard({{AxisRef("x")}}), m, {8});
        QCOMPARE(l.shardsPerDim, V{4});
        QCOMPARE(l.localShape, V{2});
        QVERIFY(l.isEven);
        QCOMPARE(l.devices.size(), size_t(4));
        for (int p = 0; p < 4; ++p) {
            QCOMPARE(l.devices[p].deviceId, p);
            QCOMPARE(l.devices[p].shardIndex, V{p});
            QCOMPARE(l.devices[p].offset, V{2 * p});
            QCOMPARE(l.devices[p].validExtent, V{2});
        }
        QCOMPARE(l.replicationGroups.size(), size_t(4));
    }
    void twoDimReplicated()
    {
        Mesh m({{"a", 2}, {"b", 2}});
        ShardedLayout l = layoutOf(shard({{AxisRef("a")}, {}}), m, {8, 6});
        QCOMPARE(l.shardsPerDim, (V{2, 1}));
        QCOMPARE(l.localShape, (V{4, 6}));
        QCOMPARE(l.devices[1].shardIndex, (V{0, 0}));
        QCOMPARE(l.devices[2].shardIndex, (V{1, 0}));
        QCOMPARE(l.devices[3].offset, (V{4, 0}));
        QCOMPARE(l.replicationGroups, (std::vector<V>{{0, 1}, {2, 3}}));
        QCOMPARE(l.devices[3].replicaGroup, 1);
        // two axes on one dimension: major "b", minor "a"
        ShardedLayout l2 = layoutOf(shard({{AxisRef("b"), AxisRef("a")}, {}}), m, {8, 6});
        QCOMPARE(l2.localShape, (V{2, 6}));
        // device 1 = (a=0, b=1) -> 1*2 + 0 = 2 ; device 2 = (a=1, b=0) -> 1
        QCOMPARE(l2.devices[1].shardIndex, (V{2, 0}));
        QCOMPARE(l2.devices[2].shardIndex, (V{1, 0}));
        QCOMPARE(l2.devices[2].offset, (V{2, 0}));
    }
    void subAxisSharding()
    {
        Mesh m({{"x", 8}});
        ShardedLayout l = layoutOf(shard({{AxisRef("x", 2, 4)}}), m, {8});
        QCOMPARE(l.localShape, V{2});
        QCOMPARE(l.devices[5].shardIndex, V{1});
        QCOMPARE(l.devices[5].offset, V{2});
        QCOMPARE(l.replicationGroups, (std::vector<V>{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
        ShardedLayout major = layoutOf(shard({{AxisRef("x", 1, 2)}}), m, {8});
        QCOMPARE(major.localShape, V{4});
        QCOMPARE(major.replicationGroups, (std::vector<V>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
        // "y" then "x" on a 16-element dim (x=4, y=2): index = y*4 + x
        Mesh m2({{"x", 4}, {"y", 2}});
        ShardedLayout l2 = layoutOf(shard({{AxisRef("y"), AxisRef("x")}}), m2, {16});
        QCOMPARE(l2.devices[1].shardIndex, V{4}); // x=0, y=1
        QCOMPARE(l2.devices[2].shardIndex, V{1}); // x=1, y=0
        QCOMPARE(l2.devices[7].shardIndex, V{7});
    }
    void nonDivisible()
    {
        Mesh m({{"x", 4}});
        ShardedLayout l = layoutOf(shard({{AxisRef("x")}}), m, {10});
        QVERIFY(!l.isEven);
        QCOMPARE(l.localShape, V{3});
        QCOMPARE(l.devices[3].offset, V{9});
        QCOMPARE(l.devices[3].validExtent, V{1});
        QCOMPARE(l.devices[2].validExtent, V{3});
        ShardedLayout l5 = layoutOf(shard({{AxisRef("x")}}), m, {5});
        QCOMPARE(l5.localShape, V{2});
        QCOMPARE(l5.devices[2].validExtent, V{1});
        QCOMPARE(l5.devices[3].offset, V{6});
        QCOMPARE(l5.devices[3].validExtent, V{0});
        QCOMPARE(localShapeOf(shard({{AxisRef("x")}}), m, {7}), V{2});
    }
    void permutedDeviceIds()
    {
        Mesh m({{"a", 2}, {"b", 2}}, {3, 1, 2, 0});
        ShardedLayout l = layoutOf(shard({{AxisRef("a"), AxisRef("b")}}), m, {4});
        QCOMPARE(l.devices[0].deviceId, 3);
        QCOMPARE(l.shardOfDevice(3)->shardIndex, V{0});
        QCOMPARE(l.shardOfDevice(0)->shardIndex, V{3});
        QCOMPARE(l.shardOfDevice(0)->offset, V{3});
        QCOMPARE(l.shardOfDevice(1)->shardIndex, V{1});
        QVERIFY(!l.shardOfDevice(9));
        ShardedLayout r = layoutOf(shard({{AxisRef("b")}}), m, {4});
        QCOMPARE(r.replicationGroups, (std::vector<V>{{3, 2}, {1, 0}}));
    }
    void unreducedGroups()
    {
        Mesh m({{"a", 2}, {"b", 2}});
        ShardedLayout l = layoutOf(shard({{AxisRef("a")}}, {AxisRef("b")}), m, {4});
        QCOMPARE(l.replicationGroups.size(), size_t(4));
        QCOMPARE(l.regionGroups, (std::vector<V>{{0, 1}, {2, 3}}));
        QCOMPARE(l.devices[1].unreducedIndex, V{1});
    }
    void dynamicAndErrors()
    {
        Mesh m({{"x", 2}});
        ShardedLayout l = layoutOf(shard({{AxisRef("x")}, {}}), m, {kDynamicSize, 4});
        QCOMPARE(l.localShape, (V{kDynamicSize, 4}));
        QCOMPARE(l.devices[1].offset[0], kDynamicSize);
        QVERIFY(!computeShardedLayout(shard({{AxisRef("x")}}), m, {4, 4}));
        QVERIFY(!computeShardedLayout(shard({{AxisRef("z")}}), m, {4}));
    }
    void manualLocalShapes()
    {
        Mesh m({{"a", 2}, {"b", 2}});
        V local = manualLocalShape({16, 32}, shard({{AxisRef("a"), AxisRef("b")}, {}}), m, {"a"});
        QCOMPARE(local, (V{8, 32}));
        local = manualLocalShape({16, 32}, shard({{AxisRef("a"), AxisRef("b")}, {AxisRef("b", 1, 1)}}), m, {"a", "b"});
        QCOMPARE(local[0], 4);
        QCOMPARE(manualLocalShape({kDynamicSize, 32}, shard({{AxisRef("a")}, {}}), m, {"a"}), (V{kDynamicSize, 32}));
        // A shape of another rank than the sharding is returned unchanged.
        QCOMPARE(manualLocalShape({16}, shard({}), m, {"a"}), (V{16}));
    }
};

QTEST_APPLESS_MAIN(TestLocalShape)
#include "tst_localshape.moc"
