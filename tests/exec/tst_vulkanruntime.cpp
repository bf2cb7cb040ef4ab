// tst_vulkanruntime.cpp - instance, device selection, logical devices sharing a physical device, transfers,
// lazily built pipelines, timestamps, and the error paths (no loader, no driver, impossible allocation, timeout).
#include <QtTest>

#include <cstdlib>
#include <numeric>

#include "core/exec/vulkan/DeviceMesh.h"
#include "core/exec/vulkan/Ops.h"
#include "tests/exec/VulkanTestSupport.h"

using namespace shardx;
using namespace shardx::exec::vk;
using namespace shardx::testing;

namespace {

/// Sets an environment variable for the life of the object, restoring the old value after.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : m_name(name)
    {
        m_had = qEnvironmentVariableIsSet(name);
        m_old = qgetenv(name);
        qputenv(name, value);
    }
    ~ScopedEnv()
    {
        if (m_had)
            qputenv(m_name, m_old);
        else
            qunsetenv(m_name);
    }

private:
    const char* m_name;
    bool m_had = false;
    QByteArray m_old;
};

bool contains(const std::string& text, const char* needle)
{
    if (text.find(needle) != std::string::npos)
        return true;
    qWarning("'%s' not in: %s", needle, text.c_str());
    return false;
}

} // namespace

class TestVulkanRuntime : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<Instance> m_instance;

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

    void physicalDevices()
    {
        const auto& devices = m_instance->physicalDevices();
        QVERIFY(!devices.empty());
        for (const PhysicalDeviceInfo& d : devices) {
            qInfo("Vulkan device: %s, timestamps %u bits, heap %llu MiB, storage binding %llu MiB",
                  d.describe().c_str(), d.timestampValidBits, (unsigned long long)(d.largestDeviceHeap >> 20),
                  (unsigned long long)(d.maxStorageBufferRange >> 20));
            QVERIFY(!d.name.empty());
            QVERIFY(d.largestDeviceHeap > 0);
        }
    }

    void deviceList()
    {
        auto ok = parseDeviceList("0", 1);
        SHARDX_VK_VERIFY(ok);
        QCOMPARE(*ok, std::vector<uint32_t>{0});
        auto several = parseDeviceList("2, 0,1", 3);
        SHARDX_VK_VERIFY(several);
        QCOMPARE(*several, (std::vector<uint32_t>{2, 0, 1}));
        QVERIFY(contains(parseDeviceList("0,0", 2).error().message, "listed twice"));
        QVERIFY(contains(parseDeviceList("3", 2).error().message, "there is no Vulkan device 3"));
        QVERIFY(contains(parseDeviceList("gpu0", 2).error().message, "not a device index"));
        QVERIFY(!parseDeviceList("", 2).ok());
    }

    // Four logical devices on one physical device, each with its own VkDevice and queue, driven concurrently from
    // four threads: every device computes on its own data and gets its own answer.
    void logicalDevicesShareOnePhysicalDevice()
    {
        MeshOptions options;
        options.logicalDevices = 4;
        options.logicalToPhysical = {0, 0, 0, 0};
        auto mesh = DeviceMesh::create(*m_instance, options);
        SHARDX_VK_VERIFY(mesh);
        QCOMPARE((*mesh)->size(), 4);
        for (int i = 0; i < 4; ++i)
            QCOMPARE((*mesh)->physicalOf(i), 0u);
        const int64_t n = 5000;
        std::vector<std::vector<int32_t>> results(4);
        Status s = (*mesh)->forEachDevice([&](int id) -> Status {
            Device& d = (*mesh)->device(id);
            std::vector<int32_t> x(n, id * 1000);
            auto a = d.createBuffer(n * 4);
            auto io = d.createBuffer(n * 4);
            auto sum = d.createBuffer(n * 4);
            if (!a || !io || !sum)
                return Error{"allocation failed", {}};
            SHARDX_VK_TRY(d.upload(**a, x.data(), n * 4));
            CommandBatch batch;
            SHARDX_VK_TRY(ops::iota(batch, DType::I32, {n}, 0, **io));
            SHARDX_VK_TRY(ops::binary(batch, BinaryOp::Add, DType::I32, **a, **io, **sum, n));
            auto r = d.submit(batch);
            if (!r)
                return r.error();
            results[id].resize(n);
            return d.download(**sum, results[id].data(), n * 4);
        });
        SHARDX_VK_VERIFY(s);
        for (int id = 0; id < 4; ++id)
            for (int64_t i = 0; i < n; ++i)
                QCOMPARE(results[id][i], int32_t(id * 1000 + i));
    }

    // SHARDX_VK_DEVICES picks the physical devices; logical devices spread over them round robin.
    void deviceSelectionFromEnvironment()
    {
        {
            ScopedEnv env("SHARDX_VK_DEVICES", "0");
            MeshOptions options;
            options.logicalDevices = 3;
            auto mesh = DeviceMesh::create(*m_instance, options);
            SHARDX_VK_VERIFY(mesh);
            for (int i = 0; i < 3; ++i)
                QCOMPARE((*mesh)->physicalOf(i), 0u);
        }
        {
            ScopedEnv env("SHARDX_VK_DEVICES", "9");
            MeshOptions options;
            auto mesh = DeviceMesh::create(*m_instance, options);
            QVERIFY(!mesh.ok());
            QVERIFY(contains(mesh.error().message, "SHARDX_VK_DEVICES"));
        }
        // An API argument wins over the environment.
        ScopedEnv env("SHARDX_VK_DEVICES", "9");
        MeshOptions options;
        options.logicalDevices = 2;
        options.physicalDevices = {0};
        auto mesh = DeviceMesh::create(*m_instance, options);
        SHARDX_VK_VERIFY(mesh);
        QVERIFY(!DeviceMesh::create(*m_instance, MeshOptions{2, {}, {0, 7}, {}}).ok());
    }

    // Bytes survive upload and download through the mapping and through staging buffers, at offsets.
    void transfers()
    {
        auto device = Device::create(*m_instance, 0);
        SHARDX_VK_VERIFY(device);
        Device& d = **device;
        std::vector<uint32_t> data(3000);
        std::iota(data.begin(), data.end(), 7u);
        for (MemoryKind kind : {MemoryKind::DeviceLocal, MemoryKind::HostVisible}) {
            for (TransferPath path : {TransferPath::Auto, TransferPath::Staged}) {
                auto b = d.createBuffer(data.size() * 4 + 64, kind);
                SHARDX_VK_VERIFY(b);
                SHARDX_VK_VERIFY(d.upload(**b, data.data(), data.size() * 4, 64, path));
                std::vector<uint32_t> back(data.size());
                SHARDX_VK_VERIFY(d.download(**b, back.data(), back.size() * 4, 64, path));
                QCOMPARE(back, data);
                // device-side copy to the front of another buffer
                auto c = d.createBuffer(data.size() * 4, kind);
                SHARDX_VK_VERIFY(c);
                SHARDX_VK_VERIFY(d.copy(**b, **c, data.size() * 4, 64, 0));
                std::vector<uint32_t> copied(data.size());
                SHARDX_VK_VERIFY(d.download(**c, copied.data(), copied.size() * 4, 0, path));
                QCOMPARE(copied, data);
                QVERIFY(contains(d.upload(**c, data.data(), data.size() * 4, 4, path).error().message, "overruns"));
            }
        }
    }

    // Pipelines are built on first use, once per device, and cached.
    void pipelinesAreLazyAndCached()
    {
        auto device = Device::create(*m_instance, 0);
        SHARDX_VK_VERIFY(device);
        Device& d = **device;
        QCOMPARE(d.pipelinesBuilt(), size_t(0));
        std::vector<float> x(100, 2.0f);
        auto a = deviceBuffer(d, x);
        auto out = resultBuffer<float>(d, 100);
        for (int round = 0; round < 2; ++round) {
            CommandBatch batch;
            SHARDX_VK_VERIFY(ops::unary(batch, UnaryOp::Sqrt, DType::F32, *a, *out, 100));
            SHARDX_VK_VERIFY(d.submit(batch));
            QCOMPARE(d.pipelinesBuilt(), size_t(1));
        }
        CommandBatch batch;
        SHARDX_VK_VERIFY(ops::binary(batch, BinaryOp::Add, DType::F32, *a, *out, *out, 100));
        SHARDX_VK_VERIFY(d.submit(batch));
        QCOMPARE(d.pipelinesBuilt(), size_t(2));
        auto other = Device::create(*m_instance, 0);
        SHARDX_VK_VERIFY(other);
        QCOMPARE((*other)->pipelinesBuilt(), size_t(0));
    }

    // Small buffers share device memory (MemoryPool): hundreds of them take a few allocations, each keeps its own
    // bytes while neighbours come and go, freed ranges are used again, and a large buffer has an allocation of its
    // own that goes with it.
    void smallBuffersShareMemory()
    {
        auto device = Device::create(*m_instance, 0);
        SHARDX_VK_VERIFY(device);
        Device& d = **device;
        auto fill = [](size_t i, size_t n) {
            std::vector<int32_t> v(n);
            for (size_t j = 0; j < n; ++j)
                v[j] = int32_t(i * 100003 + j);
            return v;
        };
        std::vector<std::unique_ptr<Buffer>> buffers;
        for (size_t i = 0; i < 300; ++i)
            buffers.push_back(deviceBuffer(d, fill(i, 1000 + i % 7)));
        const size_t after300 = d.memoryAllocations();
        QVERIFY2(after300 <= 4, qPrintable(QString::number(after300))); // blocks of device and staging memory
        for (size_t i = 0; i < buffers.size(); i += 2)
            buffers[i].reset();
        for (size_t i = 0; i < buffers.size(); i += 2)
            buffers[i] = deviceBuffer(d, fill(i + 1000, 1500));
        QCOMPARE(d.memoryAllocations(), after300); // the freed ranges held the new buffers
        for (size_t i = 0; i < buffers.size(); ++i) {
            const size_t n = i % 2 == 0 ? 1500 : 1000 + i % 7;
            QCOMPARE(readBack<int32_t>(d, *buffers[i], n), fill(i % 2 == 0 ? i + 1000 : i, n));
        }
        {
            std::vector<float> big(size_t(6) << 18, 1.5f); // 6 MiB: more than a pooled range
            auto large = deviceBuffer(d, big);
            QCOMPARE(d.memoryAllocations(), after300 + 1);
            QCOMPARE(readBack<float>(d, *large, big.size()), big);
        }
        QCOMPARE(d.memoryAllocations(), after300);
        buffers.clear();
        QVERIFY(d.memoryAllocations() <= after300);
    }

    // One timing per dispatch, labelled, when the queue has timestamps; none when switched off.
    void timestamps()
    {
        for (bool on : {true, false}) {
            DeviceOptions options;
            options.timestamps = on;
            auto device = Device::create(*m_instance, 0, options);
            SHARDX_VK_VERIFY(device);
            Device& d = **device;
            std::vector<float> x(4096, 1.5f);
            auto a = deviceBuffer(d, x);
            auto out = resultBuffer<float>(d, 4096);
            CommandBatch batch;
            SHARDX_VK_VERIFY(ops::unary(batch, UnaryOp::Exp, DType::F32, *a, *out, 4096));
            SHARDX_VK_VERIFY(ops::reduce(batch, ReduceOp::Sum, DType::F32, *out, {64, 64}, {1}, 0, *a));
            auto r = d.submit(batch);
            SHARDX_VK_VERIFY(r);
            QVERIFY(r->wallMs >= 0);
            bool expected = on && d.physical().timestampValidBits > 0;
            QCOMPARE(r->hasTimestamps, expected);
            if (expected) {
                QCOMPARE(r->timings.size(), size_t(2));
                QCOMPARE(r->timings[0].label, std::string("unary"));
                QCOMPARE(r->timings[1].label, std::string("reduce"));
                for (const DispatchTiming& t : r->timings)
                    QVERIFY(t.ms >= 0 && t.ms < 60000);
            } else {
                QVERIFY(r->timings.empty());
            }
        }
    }

    // Asking for more memory than the device has is an error value; the device stays usable.
    void impossibleAllocation()
    {
        auto device = Device::create(*m_instance, 0);
        SHARDX_VK_VERIFY(device);
        Device& d = **device;
        auto huge = d.createBuffer(uint64_t(1) << 50);
        QVERIFY(!huge.ok());
        QVERIFY(contains(huge.error().message, "out of device memory"));
        QVERIFY(!d.lost());
        auto small = d.createBuffer(1024);
        SHARDX_VK_VERIFY(small);
    }

    // A buffer past the device's storage-binding limit is refused at submission, before the driver sees it.
    void bindingLimit()
    {
        auto device = Device::create(*m_instance, 0);
        SHARDX_VK_VERIFY(device);
        Device& d = **device;
        uint64_t limit = d.physical().maxStorageBufferRange;
        if (limit >= (uint64_t(1) << 30))
            QSKIP("the storage-binding limit is 1 GiB or more; not worth allocating here");
        auto big = d.createBuffer(limit + 4);
        SHARDX_VK_VERIFY(big);
        auto small = d.createBuffer(16);
        SHARDX_VK_VERIFY(small);
        CommandBatch batch;
        batch.add(Dispatch{KernelId::Unary, {big->get(), small->get()}, {4, 0, 0}, {1, 1, 1}, "too big"});
        auto r = d.submit(batch);
        QVERIFY(!r.ok());
        QVERIFY(contains(r.error().message, "storage binding"));
        // Wrong buffer count, and a buffer of another device.
        CommandBatch wrong;
        wrong.add(Dispatch{KernelId::Unary, {small->get()}, {4, 0, 0}, {1, 1, 1}, "one buffer"});
        QVERIFY(contains(d.submit(wrong).error().message, "takes 2 buffers"));
        auto other = Device::create(*m_instance, 0);
        SHARDX_VK_VERIFY(other);
        auto foreign = (*other)->createBuffer(16);
        SHARDX_VK_VERIFY(foreign);
        CommandBatch mixed;
        mixed.add(Dispatch{KernelId::Unary, {small->get(), foreign->get()}, {4, 0, 0}, {1, 1, 1}, "mixed"});
        QVERIFY(contains(d.submit(mixed).error().message, "another device"));
        QVERIFY(!d.lost());
    }

    // A submission that outlives the fence timeout is an error, not a hang; the device is then unusable, and
    // destroying it (and its buffers) waits for the abandoned work instead of crashing.
    void fenceTimeout()
    {
        auto device = Device::create(*m_instance, 0);
        SHARDX_VK_VERIFY(device);
        Device& d = **device;
        const int64_t m = 64, k = 4096;
        std::vector<float> a = randomFloats(m * k, -1, 1, 5);
        // Uploaded under the default timeout: on a discrete GPU an upload goes through staging and waits too.
        auto lhs = deviceBuffer(d, a);
        auto out = resultBuffer<float>(d, m * m);
        d.setFenceTimeout(1); // certainly shorter than the work
        CommandBatch batch;
        SHARDX_VK_VERIFY(
            ops::dotGeneral(batch, DType::F32, *lhs, {m, k}, *lhs, {m, k}, {{}, {}, {1}, {1}}, DotMode::Precise, *out));
        auto r = d.submit(batch);
        QVERIFY(!r.ok());
        QVERIFY(contains(r.error().message, "did not finish"));
        QVERIFY(d.lost());
        CommandBatch again;
        SHARDX_VK_VERIFY(ops::unary(again, UnaryOp::Neg, DType::F32, *lhs, *out, 4));
        QVERIFY(contains(d.submit(again).error().message, "lost"));
        QVERIFY(!d.createBuffer(16).ok());
        std::vector<float> back(4);
        QVERIFY(!d.download(*out, back.data(), 16).ok());
        lhs.reset();
        out.reset();
        device->reset();
    }

    // SHARDX_VK_VALIDATION=1 turns the validation layer on where it is installed; without it, it stays off.
    void validationFromEnvironment()
    {
        {
            ScopedEnv env("SHARDX_VK_VALIDATION", "1");
            auto instance = Instance::create();
            SHARDX_VK_VERIFY(instance);
            QCOMPARE((*instance)->validationEnabled(), Instance::validationLayerAvailable());
        }
        ScopedEnv env("SHARDX_VK_VALIDATION", "0");
        auto instance = Instance::create();
        SHARDX_VK_VERIFY(instance);
        QVERIFY(!(*instance)->validationEnabled());
    }

    // Many batches in a row reuse the device's parameter buffer, growing it for a batch with many dispatches.
    void manyBatches()
    {
        auto device = Device::create(*m_instance, 0);
        SHARDX_VK_VERIFY(device);
        Device& d = **device;
        std::vector<int32_t> x(64, 1);
        auto a = deviceBuffer(d, x);
        auto out = resultBuffer<int32_t>(d, 64);
        for (int round = 0; round < 50; ++round) {
            CommandBatch batch;
            SHARDX_VK_VERIFY(ops::binary(batch, BinaryOp::Add, DType::I32, *a, *a, *out, 64));
            SHARDX_VK_VERIFY(d.submit(batch));
        }
        // 300 dispatches of one batch: out = a + a, then out = out + a 299 times.
        CommandBatch big;
        SHARDX_VK_VERIFY(ops::binary(big, BinaryOp::Add, DType::I32, *a, *a, *out, 64));
        for (int i = 1; i < 300; ++i)
            SHARDX_VK_VERIFY(ops::binary(big, BinaryOp::Add, DType::I32, *out, *a, *out, 64));
        SHARDX_VK_VERIFY(d.submit(big));
        QCOMPARE(readBack<int32_t>(d, *out, 64), std::vector<int32_t>(64, 301));
    }

    // No loader library: an error that says what to install.
    void noLoader()
    {
        InstanceOptions options;
        options.loaderPath = "/nonexistent/libvulkan.so.1";
        auto instance = Instance::create(options);
        QVERIFY(!instance.ok());
        QVERIFY(contains(instance.error().message, "no Vulkan loader"));
        QVERIFY(Instance::probe(options.loaderPath) == Instance::Availability::NoLoader);
    }

    // A loader with no driver (the driver list points nowhere): an error, not a crash.
    void noDriver()
    {
        ScopedEnv files("VK_DRIVER_FILES", "/nonexistent/shardx_icd.json");
        ScopedEnv legacy("VK_ICD_FILENAMES", "/nonexistent/shardx_icd.json");
        auto instance = Instance::create();
        QVERIFY(!instance.ok());
        const std::string& m = instance.error().message;
        QVERIFY2(m.find("VK_ERROR_INCOMPATIBLE_DRIVER") != std::string::npos ||
                     m.find("no Vulkan device") != std::string::npos,
                 m.c_str());
        QVERIFY(contains(m, "mesa-vulkan-drivers"));
    }
};

QTEST_APPLESS_MAIN(TestVulkanRuntime)
#include "tst_vulkanruntime.moc"
