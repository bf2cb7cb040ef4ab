// Shardy shardings in other notations (GSPMD HloSharding, JAX PartitionSpec and types, DTensor
// placements), each expected text worked out by hand (the derivation is in the comment above it).
#include <QtTest>

#include "core/sharding/DTensorPlacements.h"
#include "core/sharding/HloShardingText.h"
#include "core/sharding/JaxSharding.h"
#include "tests/TestSupport.h"
#include "tests/sharding/ShardingTestSupport.h"

using namespace shardx;
using shardx::testing::has;
using shardx::testing::mesh;
using shardx::testing::sharding;
using V = std::vector<int64_t>;

namespace {

std::string hlo(const std::string& meshBody, const std::string& s)
{
    return hloShardingOf(sharding(s), mesh(meshBody)).text;
}
std::string spec(const std::string& meshBody, const std::string& s)
{
    return partitionSpecOf(sharding(s), mesh(meshBody)).text;
}
std::string placements(const std::string& meshBody, const std::string& s)
{
    return dtensorPlacementsOf(sharding(s), mesh(meshBody)).text;
}

const char* kXY = R"(<["x"=2, "y"=4]>)";

} // namespace

class TestShardingConversions : public QObject {
    Q_OBJECT
private slots:
    // ---- iota detection -------------------------------------------------------------------------
    void iotaDetection()
    {
        // [0..7]: one run of coefficient 1 -> <=[8].
        QCOMPARE(iotaOf({0, 1, 2, 3, 4, 5, 6, 7})->toString(), std::string("<=[8]"));
        // iota [2,4] transposed: minor dim (size 2, coefficient 4), major (4, 1) -> reshape by
        // decreasing coefficient [2, 4], the output's major dim is reshape dim 1: T(1,0).
        QCOMPARE(iotaOf({0, 4, 1, 5, 2, 6, 3, 7})->toString(), std::string("<=[2,4]T(1,0)"));
        QCOMPARE(iotaOf({0, 2, 1, 3})->toString(), std::string("<=[2,2]T(1,0)"));
        // (2, coeff 2) (2, coeff 4) (2, coeff 1) major to minor -> [2,2,2]T(1,0,2).
        QCOMPARE(iotaOf({0, 1, 4, 5, 2, 3, 6, 7})->toString(), std::string("<=[2,2,2]T(1,0,2)"));
        QVERIFY(!iotaOf({3, 1, 2, 0}));
        QVERIFY(!iotaOf({0, 2, 3, 1}));
        QVERIFY(!iotaOf({0, 1, 3, 2}));
        QCOMPARE(iotaOf({0})->toString(), std::string("<=[1]"));
    }

    // ---- GSPMD HloSharding ------------------------------------------------------------------------
    void hloTiled()
    {
        // Device array [2,4] over (x, y). Dim 0 takes y, dim 1 takes x: transpose (1,0), tile [4,2].
        QCOMPARE(hlo(kXY, R"(<@m, [{"y"}, {"x"}]>)"), std::string("{devices=[4,2]<=[2,4]T(1,0)}"));
        // Dim 0 takes x, dim 1 nothing, y replicated: tile [2,1] + 4, order (x, y) = identity.
        QCOMPARE(hlo(kXY, R"(<@m, [{"x"}, {}]>)"), std::string("{devices=[2,1,4]<=[8] last_tile_dim_replicate}"));
        // Dim 1 takes y, x replicated: tile [1,4] + 2, order (y, x).
        QCOMPARE(hlo(kXY, R"(<@m, [{}, {"y"}]>)"),
                 std::string("{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"));
        QCOMPARE(hlo(kXY, R"(<@m, [{"x", "y"}]>)"), std::string("{devices=[8]<=[8]}"));
        QCOMPARE(hlo(kXY, R"(<@m, [{"y", "x"}]>)"), std::string("{devices=[8]<=[2,4]T(1,0)}"));
        // Open and closed dims tile alike; the open one is noted.
        ConvertedSharding open = hloShardingOf(sharding(R"(<@m, [{"x", ?}, {?}]>)"), mesh(kXY));
        QCOMPARE(open.text, std::string("{devices=[2,1,4]<=[8] last_tile_dim_replicate}"));
        QCOMPARE(open.notes.size(), size_t(2));
    }
    void hloReplicatedAndMaximal()
    {
        QCOMPARE(hlo(kXY, R"(<@m, [{}, {}]>)"), std::string("{replicated}"));
        QCOMPARE(hlo(kXY, R"(<@m, [{}, {}], replicated={"x"}>)"), std::string("{replicated}"));
        QCOMPARE(hlo(kXY, R"(<@m, []>)"), std::string("{replicated}"));
        QCOMPARE(hlo(R"(<[], device_ids=[3]>)", R"(<@m, [{}]>)"), std::string("{maximal device=3}"));
        QCOMPARE(hlo(R"(<[]>)", R"(<@m, [{}]>)"), std::string("{replicated}"));
        QCOMPARE(hlo(R"(<["x"=1]>)", R"(<@m, [{"x"}]>)"), std::string("{replicated}"));
    }
    void hloSubAxes()
    {
        // "x"=8 used as "x":(2)2: the axis splits into (1)2, (2)2, (4)2; dim 0 takes the middle
        // one, the outer two are replicated: transpose (1,0,2) of [2,2,2]. Shard 0 is held by the
        // devices whose (x / 2) % 2 is 0: 0, 1, 4, 5.
        HloTileAssignment t = hloTileAssignmentOf(sharding(R"(<@m, [{"x":(2)2}]>)"), mesh(R"(<["x"=8]>)"));
        QCOMPARE(t.dims, (V{2, 4}));
        QCOMPARE(t.devices, (V{0, 1, 4, 5, 2, 3, 6, 7}));
        QCOMPARE(hloShardingText(t), std::string("{devices=[2,4]<=[2,2,2]T(1,0,2) last_tile_dim_replicate}"));
        // samples/reshape_subaxes.mlir: ["x"=4, "y"=2] as (x:(1)2, x:(2)2, y), all in order.
        QCOMPARE(hlo(R"(<["x"=4, "y"=2]>)", R"(<@m, [{"x":(1)2}, {"x":(2)2}, {"y"}]>)"),
                 std::string("{devices=[2,2,2]<=[8]}"));
        // The minor half first: tile (i, j) is x = 2j + i: devices 0, 2, 1, 3.
        QCOMPARE(hlo(R"(<["x"=4]>)", R"(<@m, [{"x":(2)2}, {"x":(1)2}]>)"), std::string("{devices=[2,2]<=[2,2]T(1,0)}"));
    }
    void hloDeviceIds()
    {
        const char* perm = R"(<["a"=2, "b"=2], device_ids=[3, 1, 2, 0]>)";
        // The device array is [[3, 1], [2, 0]]: no iota.
        QCOMPARE(hlo(perm, R"(<@m, [{"a"}, {"b"}]>)"), std::string("{devices=[2,2]3,1,2,0}"));
        // Transposed: [[3, 2], [1, 0]].
        QCOMPARE(hlo(perm, R"(<@m, [{"b"}, {"a"}]>)"), std::string("{devices=[2,2]3,2,1,0}"));
        // "b" replicated: groups {3, 1} and {2, 0}, sorted as XLA keeps them.
        QCOMPARE(hlo(perm, R"(<@m, [{"a"}, {}]>)"), std::string("{devices=[2,1,2]1,3,0,2 last_tile_dim_replicate}"));
        // device_ids [0, 2, 1, 3] are iota [2,2] transposed: printed as one, the list in a note.
        ConvertedSharding c =
            hloShardingOf(sharding(R"(<@m, [{"a"}, {"b"}]>)"), mesh(R"(<["a"=2, "b"=2], device_ids=[0, 2, 1, 3]>)"));
        QCOMPARE(c.text, std::string("{devices=[2,2]<=[2,2]T(1,0)}"));
        QCOMPARE(c.notes.size(), size_t(1));
        QVERIFY(has(c.notes[0], "{devices=[2,2]0,2,1,3}"));
    }
    void hloUnreduced()
    {
        // Dim 0 takes x, the unreduced subgroup y: tile [2, 4], order (x, y).
        QCOMPARE(hlo(kXY, R"(<@m, [{"x"}], unreduced={"y"}>)"),
                 std::string("{devices=[2,4]<=[8] last_tile_dims={unreduced}}"));
        // ["x"=2, "y"=2, "z"=2], dim 0 x, unreduced z, y replicated: order (x, z, y), tile
        // (i, u, r) is device 4i + 2r + u: 0,2,1,3,4,6,5,7 = <=[2,2,2]T(0,2,1).
        QCOMPARE(hlo(R"(<["x"=2, "y"=2, "z"=2]>)", R"(<@m, [{"x"}], unreduced={"z"}>)"),
                 std::string("{devices=[2,2,2]<=[2,2,2]T(0,2,1) last_tile_dims={unreduced, replicated}}"));
        QCOMPARE(hlo(R"(<["x"=2]>)", R"(<@m, [{}], unreduced={"x"}>)"), std::string("{unreduced}"));
        QVERIFY(!hloShardingOf(sharding(R"(<@m, [{}], unreduced=max{"x"}>)"), mesh(R"(<["x"=2]>)")).isExpressible());
    }

    // ---- JAX PartitionSpec ------------------------------------------------------------------------
    void partitionSpec()
    {
        const char* m3 = R"(<["data"=2, "fsdp"=2, "tensor"=2]>)";
        QCOMPARE(spec(m3, R"(<@m, [{"data"}, {"fsdp", "tensor"}, {}]>)"),
                 std::string("P('data', ('fsdp', 'tensor'), None)"));
        QCOMPARE(spec(kXY, R"(<@m, [{"x"}, {?}]>)"), std::string("P('x', P.UNCONSTRAINED)"));
        QCOMPARE(spec(kXY, R"(<@m, [{"x"}, {}], unreduced={"y"}>)"), std::string("P('x', None, unreduced={'y'})"));
        QCOMPARE(spec(kXY, R"(<@m, []>)"), std::string("P()"));
        QCOMPARE(spec(kXY, R"(<@m, [{"y", "x"}]>)"), std::string("P(('y', 'x'))"));
        // Open with axes: written closed, noted.
        ConvertedSharding open = partitionSpecOf(sharding(R"(<@m, [{"x", ?}, {}]>)"), mesh(kXY));
        QCOMPARE(open.text, std::string("P('x', None)"));
        QCOMPARE(open.notes.size(), size_t(1));
        QVERIFY(has(open.notes[0], "open"));
        ConvertedSharding repl = partitionSpecOf(sharding(R"(<@m, [{"x"}, {}], replicated={"y"}>)"), mesh(kXY));
        QCOMPARE(repl.text, std::string("P('x', None)"));
        QVERIFY(has(repl.notes.at(0), "replicated {\"y\"}"));
    }
    void partitionSpecSubAxesAndDeviceIds()
    {
        ConvertedSharding sub =
            partitionSpecOf(sharding(R"(<@m, [{"x":(1)2}, {"x":(2)2}, {"y"}]>)"), mesh(R"(<["x"=4, "y"=2]>)"));
        QVERIFY(!sub.isExpressible());
        QVERIFY(has(sub.explanation, "sub-axis \"x\":(1)2 (in dimension 0)"));
        QVERIFY(has(sub.explanation, "x0=2, x1=2"));
        // The spec does not depend on the device order; the mesh does.
        ConvertedSharding perm =
            partitionSpecOf(sharding(R"(<@m, [{"a"}, {"b"}]>)"), mesh(R"(<["a"=2, "b"=2], device_ids=[3, 1, 2, 0]>)"));
        QCOMPARE(perm.text, std::string("P('a', 'b')"));
        QCOMPARE(perm.meshText,
                 std::string("jax.sharding.Mesh(np.array(jax.devices())[[3, 1, 2, 0]].reshape(2, 2), ('a', 'b'))"));
        QCOMPARE(jaxMeshText(mesh(kXY)), std::string("jax.sharding.Mesh(np.array(jax.devices()).reshape(2, 4), ('x', "
                                                     "'y'))"));
        QVERIFY(!partitionSpecOf(sharding(R"(<@m, [{}], unreduced=min{"x"}>)"), mesh(kXY)).isExpressible());
    }

    // ---- JAX typed form ---------------------------------------------------------------------------
    void typedForm()
    {
        const Mesh m = mesh(kXY);
        QCOMPARE(jaxTypeOf(sharding(R"(<@m, [{"x"}, {}]>)"), m, {8, 4}, "f32").text, std::string("f32[8@x,4]"));
        QCOMPARE(jaxTypeOf(sharding(R"(<@m, [{"x", "y"}, {}]>)"), m, {8, 4}, "f32").text,
                 std::string("f32[8@(x,y),4]"));
        QCOMPARE(jaxTypeOf(sharding(R"(<@m, [{"x"}, {}], unreduced={"y"}>)"), m, {8, 4}, "f32").text,
                 std::string("f32[8@x,4]{U:y}"));
        QCOMPARE(jaxTypeOf(sharding(R"(<@m, [{}, {"y"}]>)"), m, {4, 4}, "i32").text, std::string("i32[4,4@y]"));
        QCOMPARE(jaxTypeOf(sharding(R"(<@m, []>)"), m, {}, "bf16").text, std::string("bf16[]"));
        QVERIFY(!jaxTypeOf(sharding(R"(<@m, [{"x":(1)2}]>)"), mesh(R"(<["x"=4]>)"), {8}, "f32").isExpressible());
        QCOMPARE(jaxDtypeName("i1"), std::string("bool"));
        QCOMPARE(jaxDtypeName("ui8"), std::string("u8"));
        QCOMPARE(jaxDtypeName("complex<f32>"), std::string("c64"));
        QCOMPARE(jaxDtypeName("f8E4M3FN"), std::string("f8_e4m3fn"));
        QCOMPARE(jaxDtypeName("f16"), std::string("f16"));
    }

    // ---- PyTorch DTensor --------------------------------------------------------------------------
    void dtensor()
    {
        QCOMPARE(placements(kXY, R"(<@m, [{"x"}, {}]>)"), std::string("[Shard(0), Replicate()]"));
        QCOMPARE(placements(kXY, R"(<@m, [{"y"}, {"x"}]>)"), std::string("[Shard(1), Shard(0)]"));
        // In mesh order: DTensor's default left-to-right split.
        QCOMPARE(placements(kXY, R"(<@m, [{"x", "y"}]>)"), std::string("[Shard(0), Shard(0)]"));
        QCOMPARE(placements(kXY, R"(<@m, [{}, {}]>)"), std::string("[Replicate(), Replicate()]"));
        QCOMPARE(placements(kXY, R"(<@m, [{"x"}], unreduced={"y"}>)"), std::string("[Shard(0), Partial()]"));
        QCOMPARE(placements(kXY, R"(<@m, [{}], unreduced=max{"x"}>)"), std::string("[Partial(\"max\"), Replicate()]"));
    }
    void dtensorStrided()
    {
        // {"y", "x"}: block = y * 2 + x. DTensor splits by x (mesh dim 0) first: each of the 4
        // blocks y will take is split in 2 for x, so x is _StridedShard(0, split_factor=4).
        ConvertedSharding c = dtensorPlacementsOf(sharding(R"(<@m, [{"y", "x"}]>)"), mesh(kXY));
        QCOMPARE(c.text, std::string("[_StridedShard(0, split_factor=4), Shard(0)]"));
        QCOMPARE(c.notes.size(), size_t(1));
        QVERIFY(has(c.notes[0], "not in mesh order"));
        // Three axes ["a","b","c"] = 2, 3, 5, dim {"c", "a", "b"}: a is preceded by c (later mesh
        // dim): factor 5; b is preceded by c and a, only c is later: 5; c: Shard.
        QCOMPARE(placements(R"(<["a"=2, "b"=3, "c"=5]>)", R"(<@m, [{"c", "a", "b"}]>)"),
                 std::string("[_StridedShard(0, split_factor=5), _StridedShard(0, split_factor=5), Shard(0)]"));
    }
    void dtensorSubAxesAndMesh()
    {
        ConvertedSharding sub = dtensorPlacementsOf(sharding(R"(<@m, [{"x":(2)2}]>)"), mesh(R"(<["x"=8]>)"));
        QVERIFY(!sub.isExpressible());
        QVERIFY(has(sub.explanation, "x0=2, x1=2, x2=2"));
        QCOMPARE(dtensorMeshText(mesh(kXY)), std::string("init_device_mesh(\"cuda\", (2, 4), mesh_dim_names=(\"x\", "
                                                         "\"y\"))"));
        QCOMPARE(dtensorMeshText(mesh(R"(<["a"=2, "b"=2], device_ids=[3, 1, 2, 0]>)")),
                 std::string("DeviceMesh(\"cuda\", torch.tensor([3, 1, 2, 0]).reshape(2, 2), mesh_dim_names=(\"a\", "
                             "\"b\"))"));
        QCOMPARE(placements(R"(<["a"=2, "b"=2], device_ids=[3, 1, 2, 0]>)", R"(<@m, [{"b"}, {"a"}]>)"),
                 std::string("[Shard(1), Shard(0)]"));
    }
};

QTEST_APPLESS_MAIN(TestShardingConversions)
#include "tst_shardingconversions.moc"
