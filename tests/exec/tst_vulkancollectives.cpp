// tst_vulkancollectives.cpp - all_gather, all_reduce, reduce_scatter, all_to_all and collective_permute between
// 2 and 4 logical Vulkan devices through host staging, against CPU results written from the interpreter contract
// (conformance/README.md): gather in the group's listed order, reduce from the lowest id in increasing id order,
// all_to_all blocks concatenated in increasing sender id order, zeros for a device that is no permute target.
#include <QtTest>

#include <algorithm>

#include "core/exec/vulkan/Collectives.h"
#include "tests/exec/VulkanTestSupport.h"

using namespace shardx;
using namespace shardx::exec::vk;
using namespace shardx::testing;

namespace {

// Every device's operand is [kRows, kCols]; both divide by 2 and 4.
constexpr int64_t kRows = 4;
constexpr int64_t kCols = 8;

/// Device `id`'s operand: magnitudes spread over many orders, so that summation order changes f32 results.
std::vector<float> operandOf(int id)
{
    std::vector<float> v = randomFloats(kRows * kCols, -1, 1, 1000 + id);
    for (size_t i = 0; i < v.size(); ++i)
        v[i] *= (i + id) % 3 == 0 ? 1e7f : ((i + id) % 3 == 1 ? 1.0f : 1e-3f);
    return v;
}

} // namespace

class TestVulkanCollectives : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<Instance> m_instance;

    struct Fixture {
        std::unique_ptr<DeviceMesh> mesh;
        std::vector<std::unique_ptr<Buffer>> operands;
        std::vector<std::vector<float>> values;
    };

    /// A mesh of `n` logical devices (spread over the physical devices), each holding operandOf(id).
    Fixture makeFixture(int n)
    {
        Fixture f;
        MeshOptions options;
        options.logicalDevices = n;
        auto mesh = DeviceMesh::create(*m_instance, options);
        if (!mesh)
            qFatal("%s", mesh.error().message.c_str());
        f.mesh = std::move(*mesh);
        for (int id = 0; id < n; ++id) {
            f.values.push_back(operandOf(id));
            f.operands.push_back(deviceBuffer(f.mesh->device(id), f.values.back()));
        }
        return f;
    }

    /// Runs `combine` through staging into fresh buffers of `resultShape` and returns each device's result.
    std::vector<std::vector<float>>
    stage(Fixture& f, const Shape& resultShape,
          const std::function<Expected<std::vector<HostTensor>>(const std::vector<HostTensor>&)>& combine)
    {
        int n = f.mesh->size();
        std::vector<std::unique_ptr<Buffer>> results;
        std::vector<Buffer*> resultPtrs;
        std::vector<const Buffer*> operandPtrs;
        for (int id = 0; id < n; ++id) {
            results.push_back(resultBuffer<float>(f.mesh->device(id), size_t(elementCount(resultShape))));
            resultPtrs.push_back(results.back().get());
            operandPtrs.push_back(f.operands[id].get());
        }
        auto timing = runStagedCollective(*f.mesh, operandPtrs, DType::F32, std::vector<Shape>(n, {kRows, kCols}),
                                          combine, resultPtrs);
        if (!timing) {
            qWarning("%s", timing.error().message.c_str());
            return {};
        }
        qInfo("staging on %d devices: download %.3f ms, combine %.3f ms, upload %.3f ms", n, timing->downloadMs,
              timing->combineMs, timing->uploadMs);
        std::vector<std::vector<float>> out;
        for (int id = 0; id < n; ++id)
            out.push_back(readBack<float>(f.mesh->device(id), *results[id], size_t(elementCount(resultShape))));
        return out;
    }

    static void addGroupRows()
    {
        QTest::addColumn<int>("devices");
        QTest::addColumn<QList<QList<int>>>("groups");
        QTest::newRow("2 devices") << 2 << QList<QList<int>>{{0, 1}};
        QTest::newRow("2 devices, listed backwards") << 2 << QList<QList<int>>{{1, 0}};
        QTest::newRow("4 devices") << 4 << QList<QList<int>>{{0, 1, 2, 3}};
        QTest::newRow("4 devices, unsorted") << 4 << QList<QList<int>>{{3, 1, 2, 0}};
        QTest::newRow("4 devices, two groups") << 4 << QList<QList<int>>{{3, 1}, {2, 0}};
    }

    static DeviceGroups toGroups(const QList<QList<int>>& groups)
    {
        DeviceGroups g;
        for (const QList<int>& list : groups)
            g.push_back(std::vector<int64_t>(list.begin(), list.end()));
        return g;
    }

private slots:
    void initTestCase()
    {
        QString skip;
        m_instance = createTestInstance(&skip);
        if (!m_instance && !skip.isEmpty())
            QSKIP(qPrintable(skip));
        QVERIFY(m_instance);
    }

    void cleanupTestCase()
    {
        if (m_instance)
            QVERIFY(noValidationErrors(*m_instance));
    }

    void allGather_data() { addGroupRows(); }
    void allGather()
    {
        QFETCH(int, devices);
        QFETCH(QList<QList<int>>, groups);
        DeviceGroups g = toGroups(groups);
        Fixture f = makeFixture(devices);
        int64_t size = int64_t(g[0].size());
        auto got = stage(f, {kRows, kCols * size},
                         [&](const std::vector<HostTensor>& in) { return collectives::allGather(in, g, 1); });
        QCOMPARE(int(got.size()), devices);
        for (const std::vector<int64_t>& group : g) {
            for (int64_t id : group) {
                for (int64_t r = 0; r < kRows; ++r)
                    for (int64_t c = 0; c < kCols * size; ++c)
                        QVERIFY(
                            sameBits(got[id][r * kCols * size + c], f.values[group[c / kCols]][r * kCols + c % kCols]));
            }
        }
    }

    void allReduce_data() { addGroupRows(); }
    void allReduce()
    {
        QFETCH(int, devices);
        QFETCH(QList<QList<int>>, groups);
        DeviceGroups g = toGroups(groups);
        Fixture f = makeFixture(devices);
        auto got =
            stage(f, {kRows, kCols}, [&](const std::vector<HostTensor>& in) { return collectives::allReduce(in, g); });
        QCOMPARE(int(got.size()), devices);
        bool orderMatters = false;
        for (const std::vector<int64_t>& group : g) {
            std::vector<int64_t> ids = group;
            std::sort(ids.begin(), ids.end());
            for (int64_t e = 0; e < kRows * kCols; ++e) {
                float acc = f.values[ids[0]][e];
                for (size_t k = 1; k < ids.size(); ++k)
                    acc = acc + f.values[ids[k]][e];
                float backwards = f.values[ids.back()][e];
                for (size_t k = ids.size() - 1; k-- > 0;)
                    backwards = backwards + f.values[ids[k]][e];
                orderMatters |= !sameBits(acc, backwards);
                for (int64_t id : group)
                    QVERIFY(sameBits(got[id][e], acc));
            }
        }
        // The data distinguishes the contract's order from the opposite one (when a group has more than 2).
        if (g[0].size() > 2)
            QVERIFY(orderMatters);
    }

    // all_reduce of i32 wraps around.
    void allReduceI32()
    {
        std::vector<HostTensor> in;
        for (int id = 0; id < 4; ++id) {
            HostTensor t = HostTensor::zeros(DType::I32, {3});
            t.as<int32_t>()[0] = INT32_MAX - id;
            t.as<int32_t>()[1] = -id;
            t.as<int32_t>()[2] = id * 1000;
            in.push_back(t);
        }
        auto out = collectives::allReduce(in, {{0, 1, 2, 3}});
        SHARDX_VK_VERIFY(out);
        uint32_t wrapped = 0;
        for (int id = 0; id < 4; ++id)
            wrapped += uint32_t(INT32_MAX - id);
        QCOMPARE((*out)[2].as<int32_t>()[0], int32_t(wrapped));
        QCOMPARE((*out)[2].as<int32_t>()[1], -6);
        QCOMPARE((*out)[2].as<int32_t>()[2], 6000);
        auto maxed = collectives::allReduce(in, {{0, 1}, {2, 3}}, ReduceOp::Max);
        SHARDX_VK_VERIFY(maxed);
        QCOMPARE((*maxed)[3].as<int32_t>()[2], 3000);
    }

    void reduceScatter_data() { addGroupRows(); }
    void reduceScatter()
    {
        QFETCH(int, devices);
        QFETCH(QList<QList<int>>, groups);
        DeviceGroups g = toGroups(groups);
        Fixture f = makeFixture(devices);
        int64_t n = int64_t(g[0].size());
        int64_t block = kRows / n;
        auto got = stage(f, {block, kCols},
                         [&](const std::vector<HostTensor>& in) { return collectives::reduceScatter(in, g, 0); });
        QCOMPARE(int(got.size()), devices);
        for (const std::vector<int64_t>& group : g) {
            std::vector<int64_t> ids = group;
            std::sort(ids.begin(), ids.end());
            for (size_t k = 0; k < group.size(); ++k) {
                for (int64_t r = 0; r < block; ++r) {
                    for (int64_t c = 0; c < kCols; ++c) {
                        int64_t e = (int64_t(k) * block + r) * kCols + c;
                        float acc = f.values[ids[0]][e];
                        for (size_t j = 1; j < ids.size(); ++j)
                            acc = acc + f.values[ids[j]][e];
                        QVERIFY(sameBits(got[group[k]][r * kCols + c], acc));
                    }
                }
            }
        }
    }

    void allToAll_data() { addGroupRows(); }
    void allToAll()
    {
        QFETCH(int, devices);
        QFETCH(QList<QList<int>>, groups);
        DeviceGroups g = toGroups(groups);
        Fixture f = makeFixture(devices);
        int64_t n = int64_t(g[0].size());
        int64_t width = kCols / n;
        // split along columns, concatenate along rows: [kRows * n, kCols / n]
        auto got = stage(f, {kRows * n, width},
                         [&](const std::vector<HostTensor>& in) { return collectives::allToAll(in, g, 1, 0); });
        QCOMPARE(int(got.size()), devices);
        for (const std::vector<int64_t>& group : g) {
            std::vector<int64_t> senders = group;
            std::sort(senders.begin(), senders.end());
            for (size_t k = 0; k < group.size(); ++k) {
                for (int64_t j = 0; j < n; ++j)
                    for (int64_t r = 0; r < kRows; ++r)
                        for (int64_t c = 0; c < width; ++c)
                            QVERIFY(sameBits(got[group[k]][(j * kRows + r) * width + c],
                                             f.values[senders[j]][r * kCols + int64_t(k) * width + c]));
            }
        }
    }

    void collectivePermute_data()
    {
        QTest::addColumn<int>("devices");
        QTest::addColumn<QList<int>>("pairs"); // source, target, source, target, ...
        QTest::newRow("2 devices, swap") << 2 << QList<int>{0, 1, 1, 0};
        QTest::newRow("4 devices, ring") << 4 << QList<int>{0, 1, 1, 2, 2, 3, 3, 0};
        QTest::newRow("4 devices, device 1 gets nothing") << 4 << QList<int>{0, 2, 2, 3, 3, 0};
    }
    void collectivePermute()
    {
        QFETCH(int, devices);
        QFETCH(QList<int>, pairs);
        std::vector<std::pair<int64_t, int64_t>> p;
        std::vector<int> sourceOf(devices, -1);
        for (int i = 0; i + 1 < pairs.size(); i += 2) {
            p.push_back({pairs[i], pairs[i + 1]});
            sourceOf[pairs[i + 1]] = pairs[i];
        }
        Fixture f = makeFixture(devices);
        auto got = stage(f, {kRows, kCols},
                         [&](const std::vector<HostTensor>& in) { return collectives::collectivePermute(in, p); });
        QCOMPARE(int(got.size()), devices);
        for (int id = 0; id < devices; ++id)
            for (int64_t e = 0; e < kRows * kCols; ++e)
                QVERIFY(sameBits(got[id][e], sourceOf[id] < 0 ? 0.0f : f.values[sourceOf[id]][e]));
    }

    // Bad groups and mismatched operands are errors, not wrong answers.
    void errors()
    {
        std::vector<HostTensor> in(4, HostTensor::zeros(DType::F32, {4, 8}));
        QVERIFY(!collectives::allGather(in, {{0, 1, 2}}, 0).ok());           // device 3 in no group
        QVERIFY(!collectives::allReduce(in, {{0, 1}, {1, 2, 3}}).ok());      // device 1 twice
        QVERIFY(!collectives::allReduce(in, {{0, 1, 2, 7}}).ok());           // no device 7
        QVERIFY(!collectives::reduceScatter(in, {{0, 1, 2}, {3}}, 1).ok());  // 8 columns in 3 blocks
        QVERIFY(!collectives::allToAll(in, {{0, 1, 2, 3}}, 2, 0).ok());      // no dimension 2
        QVERIFY(!collectives::collectivePermute(in, {{0, 1}, {2, 1}}).ok()); // two sources for one target
        in[2] = HostTensor::zeros(DType::F32, {4, 4});
        QVERIFY(!collectives::allGather(in, {{0, 1, 2, 3}}, 0).ok()); // shapes differ in a group
    }
};

QTEST_APPLESS_MAIN(TestVulkanCollectives)
#include "tst_vulkancollectives.moc"
