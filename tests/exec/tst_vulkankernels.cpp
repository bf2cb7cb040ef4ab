// tst_vulkankernels.cpp - every Vulkan kernel against a straightforward CPU computation, under named tolerances.
#include <QtTest>

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <numeric>

#include "core/exec/vulkan/Ops.h"
#include "tests/exec/VulkanTestSupport.h"

using namespace shardx::exec::vk;
using namespace shardx::testing;

namespace {

// Tolerances: the Vulkan spec's "Precision and Operation of SPIR-V Instructions" for full-precision shaders.
// Correctly rounded (add, sub, mul, neg, abs, floor, ceil, sign, min, max, compare, conversions) and integer ops:
// exact. The rest, in units in the last place (ULP) or absolute error:
constexpr int64_t kDivUlps = 3;                    // x / y: 2.5 ULP
constexpr int64_t kSqrtUlps = 5;                   // sqrt: inherited from 1.0 / inversesqrt(x) (2 ULP + 2.5 ULP)
constexpr int64_t kRsqrtUlps = 8;                  // 1.0 / sqrt(x): the division's and sqrt's errors
constexpr int64_t kExpBaseUlps = 3;                // exp(x): 3 + 2 * |x| ULP
constexpr double kLogAbsNearOne = 1.0 / (1 << 21); // log(x), x in [0.5, 2]: absolute error 2^-21 ...
constexpr int64_t kLogUlps = 3;                    // ... elsewhere 3 ULP
constexpr double kTanhAbs = 1e-5; // tanh: inherited from sinh / cosh, i.e. from exp's error near |x| <= 4
// The tiled matmul may use FMA and its own order: relative to the sum of |a| * |b| over the contracted indices.
constexpr double kFastDotRel = 1e-5;

// Elements per test tensor: more than one 256-invocation workgroup and not a multiple of it.
constexpr size_t kCount = 1000;

/// Row-major index -> multi-index.
std::vector<int64_t> unflatten(int64_t i, const Shape& shape)
{
    std::vector<int64_t> idx(shape.size());
    for (int d = int(shape.size()) - 1; d >= 0; --d) {
        idx[d] = i % shape[d];
        i /= shape[d];
    }
    return idx;
}

int64_t flatten(const std::vector<int64_t>& idx, const Shape& shape)
{
    int64_t i = 0;
    for (size_t d = 0; d < shape.size(); ++d)
        i = i * shape[d] + idx[d];
    return i;
}

int64_t count(const Shape& s)
{
    int64_t n = 1;
    for (int64_t d : s)
        n *= d;
    return n;
}

} // namespace

class TestVulkanKernels : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<Instance> m_instance;
    std::unique_ptr<Device> m_device;
    /// One device per fast-matmul kernel choice (MatmulKernel), made on first use, kept to the end as m_device.
    std::unique_ptr<Device> m_matmulDevices[int(MatmulKernel::Storage) + 1];

    Device& dev() { return *m_device; }
    void run(CommandBatch& batch)
    {
        auto r = dev().submit(batch);
        if (!r)
            QFAIL(r.error().message.c_str());
    }

private slots:
    void initTestCase()
    {
        QString skip;
        m_instance = createTestInstance(&skip);
        if (!m_instance && !skip.isEmpty())
            QSKIP(qPrintable(skip));
        QVERIFY(m_instance);
        auto device = Device::create(*m_instance, 0);
        SHARDX_VK_VERIFY(device);
        m_device = std::move(*device);
        qInfo("Vulkan device: %s, validation %s", m_device->physical().describe().c_str(),
              m_instance->validationEnabled() ? "on" : "off (layer not installed)");
    }

    void cleanupTestCase()
    {
        for (std::unique_ptr<Device>& d : m_matmulDevices)
            d.reset();
        m_device.reset();
        if (m_instance)
            QVERIFY(noValidationErrors(*m_instance));
    }

    // Each f32 unary op over a range where it is defined, against <cmath> in f32.
    void unaryF32()
    {
        struct Case {
            const char* name;
            UnaryOp op;
            float lo, hi;
            std::function<float(float)> ref;
        };
        const std::vector<Case> cases = {
            {"neg", UnaryOp::Neg, -100, 100, [](float x) { return -x; }},
            {"abs", UnaryOp::Abs, -100, 100, [](float x) { return std::fabs(x); }},
            {"exp", UnaryOp::Exp, -4, 4, [](float x) { return std::exp(x); }},
            {"log", UnaryOp::Log, 0.01f, 100, [](float x) { return std::log(x); }},
            {"tanh", UnaryOp::Tanh, -4, 4, [](float x) { return std::tanh(x); }},
            {"sqrt", UnaryOp::Sqrt, 0, 1000, [](float x) { return std::sqrt(x); }},
            {"rsqrt", UnaryOp::Rsqrt, 0.01f, 1000, [](float x) { return 1.0f / std::sqrt(x); }},
            {"floor", UnaryOp::Floor, -100, 100, [](float x) { return std::floor(x); }},
            {"ceil", UnaryOp::Ceil, -100, 100, [](float x) { return std::ceil(x); }},
            {"sign", UnaryOp::Sign, -2, 2, [](float x) { return x > 0 ? 1.0f : (x < 0 ? -1.0f : x); }},
        };
        uint32_t seed = 1;
        for (const Case& c : cases) {
            std::vector<float> in = randomFloats(kCount, c.lo, c.hi, seed++);
            in[0] = c.lo;
            auto a = deviceBuffer(dev(), in);
            auto out = resultBuffer<float>(dev(), kCount);
            CommandBatch batch;
            SHARDX_VK_VERIFY(ops::unary(batch, c.op, DType::F32, *a, *out, kCount));
            run(batch);
            std::vector<float> got = readBack<float>(dev(), *out, kCount);
            for (size_t i = 0; i < kCount; ++i) {
                float want = c.ref(in[i]);
                bool ok = false;
                switch (c.op) {
                case UnaryOp::Exp:
                    ok = ulpDistance(got[i], want) <= kExpBaseUlps + 2 * int64_t(std::ceil(std::fabs(in[i])));
                    break;
                case UnaryOp::Log:
                    ok = (in[i] >= 0.5f && in[i] <= 2.0f) ? std::fabs(got[i] - want) <= kLogAbsNearOne
                                                          : ulpDistance(got[i], want) <= kLogUlps;
                    break;
                case UnaryOp::Tanh: ok = std::fabs(got[i] - want) <= kTanhAbs; break;
                case UnaryOp::Sqrt: ok = ulpDistance(got[i], want) <= kSqrtUlps; break;
                case UnaryOp::Rsqrt: ok = ulpDistance(got[i], want) <= kRsqrtUlps; break;
                default: ok = sameBits(got[i], want); break;
                }
                if (!ok)
                    QFAIL(qPrintable(QString("%1(%2) = %3, expected %4 (element %5)")
                                         .arg(c.name)
                                         .arg(double(in[i]), 0, 'g', 9)
                                         .arg(double(got[i]), 0, 'g', 9)
                                         .arg(double(want), 0, 'g', 9)
                                         .arg(i)));
            }
        }
    }

    void unaryIntegers()
    {
        std::vector<int32_t> in = randomInts(kCount, -1000000, 1000000, 7);
        in[0] = INT_MIN;
        in[1] = 0;
        auto a = deviceBuffer(dev(), in);
        struct Case {
            UnaryOp op;
            std::function<int32_t(int32_t)> ref;
        };
        const std::vector<Case> cases = {
            {UnaryOp::Neg, [](int32_t x) { return int32_t(0u - uint32_t(x)); }},
            {UnaryOp::Abs, [](int32_t x) { return x < 0 ? int32_t(0u - uint32_t(x)) : x; }},
            {UnaryOp::Sign, [](int32_t x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }},
            {UnaryOp::Not, [](int32_t x) { return ~x; }},
        };
        for (const Case& c : cases) {
            auto out = resultBuffer<int32_t>(dev(), kCount);
            CommandBatch batch;
            SHARDX_VK_VERIFY(ops::unary(batch, c.op, DType::I32, *a, *out, kCount));
            run(batch);
            std::vector<int32_t> got = readBack<int32_t>(dev(), *out, kCount);
            for (size_t i = 0; i < kCount; ++i)
                QCOMPARE(got[i], c.ref(in[i]));
        }
    }

    // convert: f32 -> i32 truncates toward zero, i32 / u32 -> f32 rounds to nearest (exact).
    void convert()
    {
        std::vector<float> f = randomFloats(kCount, -1e6f, 1e6f, 11);
        std::vector<int32_t> i = randomInts(kCount, INT_MIN, INT_MAX, 12);
        std::vector<uint32_t> u(kCount);
        for (size_t k = 0; k < kCount; ++k)
            u[k] = uint32_t(i[k]);
        auto fb = deviceBuffer(dev(), f);
        auto ib = deviceBuffer(dev(), i);
        auto ub = deviceBuffer(dev(), u);
        auto f2i = resultBuffer<int32_t>(dev(), kCount);
        auto i2f = resultBuffer<float>(dev(), kCount);
        auto u2f = resultBuffer<float>(dev(), kCount);
        auto f2u = resultBuffer<uint32_t>(dev(), kCount);
        CommandBatch batch;
        SHARDX_VK_VERIFY(ops::convert(batch, DType::F32, DType::I32, *fb, *f2i, kCount));
        SHARDX_VK_VERIFY(ops::convert(batch, DType::I32, DType::F32, *ib, *i2f, kCount));
        SHARDX_VK_VERIFY(ops::convert(batch, DType::U32, DType::F32, *ub, *u2f, kCount));
        SHARDX_VK_VERIFY(ops::convert(batch, DType::F32, DType::U32, *fb, *f2u, kCount));
        run(batch);
        auto gotF2i = readBack<int32_t>(dev(), *f2i, kCount);
        auto gotI2f = readBack<float>(dev(), *i2f, kCount);
        auto gotU2f = readBack<float>(dev(), *u2f, kCount);
        auto gotF2u = readBack<uint32_t>(dev(), *f2u, kCount);
        for (size_t k = 0; k < kCount; ++k) {
            QCOMPARE(gotF2i[k], int32_t(f[k]));
            QVERIFY(sameBits(gotI2f[k], float(i[k])));
            QVERIFY(sameBits(gotU2f[k], float(u[k])));
            QCOMPARE(gotF2u[k], f[k] <= 0 ? 0u : uint32_t(f[k]));
        }
    }

    void binaryF32()
    {
        std::vector<float> x = randomFloats(kCount, -50, 50, 21);
        std::vector<float> y = randomFloats(kCount, -50, 50, 22);
        y[3] = x[3]; // max / min of equal values
        auto a = deviceBuffer(dev(), x);
        auto b = deviceBuffer(dev(), y);
        struct Case {
            const char* name;
            BinaryOp op;
            int64_t ulps;
            std::function<float(float, float)> ref;
        };
        const std::vector<Case> cases = {
            {"add", BinaryOp::Add, 0, [](float p, float q) { return p + q; }},
            {"sub", BinaryOp::Sub, 0, [](float p, float q) { return p - q; }},
            {"mul", BinaryOp::Mul, 0, [](float p, float q) { return p * q; }},
            {"div", BinaryOp::Div, kDivUlps, [](float p, float q) { return p / q; }},
            {"max", BinaryOp::Max, 0, [](float p, float q) { return std::max(p, q); }},
            {"min", BinaryOp::Min, 0, [](float p, float q) { return std::min(p, q); }},
        };
        for (const Case& c : cases) {
            auto out = resultBuffer<float>(dev(), kCount);
            CommandBatch batch;
            SHARDX_VK_VERIFY(ops::binary(batch, c.op, DType::F32, *a, *b, *out, kCount));
            run(batch);
            std::vector<float> got = readBack<float>(dev(), *out, kCount);
            for (size_t i = 0; i < kCount; ++i) {
                float want = c.ref(x[i], y[i]);
                if (ulpDistance(got[i], want) > c.ulps)
                    QFAIL(qPrintable(
                        QString("%1(%2, %3) = %4, expected %5").arg(c.name).arg(x[i]).arg(y[i]).arg(got[i]).arg(want)));
            }
        }
    }

    // Integer ops wrap; x / 0 = -1, x % 0 = x, INT_MIN / -1 = INT_MIN (XLA's semantics).
    void binaryIntegers()
    {
        std::vector<int32_t> x = randomInts(kCount, -100000, 100000, 31);
        std::vector<int32_t> y = randomInts(kCount, -300, 300, 32);
        x[0] = INT_MIN, y[0] = -1;
        x[1] = 17, y[1] = 0;
        x[2] = INT_MAX, y[2] = 2;
        auto a = deviceBuffer(dev(), x);
        auto b = deviceBuffer(dev(), y);
        auto wrap = [](int64_t v) { return int32_t(uint32_t(uint64_t(v))); };
        struct Case {
            BinaryOp op;
            std::function<int32_t(int32_t, int32_t)> ref;
        };
        const std::vector<Case> cases = {
            {BinaryOp::Add, [&](int32_t p, int32_t q) { return wrap(int64_t(p) + q); }},
            {BinaryOp::Sub, [&](int32_t p, int32_t q) { return wrap(int64_t(p) - q); }},
            {BinaryOp::Mul, [&](int32_t p, int32_t q) { return wrap(int64_t(p) * q); }},
            {BinaryOp::Div, [&](int32_t p, int32_t q) { return q == 0 ? -1 : wrap(int64_t(p) / q); }},
            {BinaryOp::Rem, [&](int32_t p, int32_t q) { return q == 0 ? p : wrap(int64_t(p) % q); }},
            {BinaryOp::Max, [](int32_t p, int32_t q) { return std::max(p, q); }},
            {BinaryOp::Min, [](int32_t p, int32_t q) { return std::min(p, q); }},
            {BinaryOp::And, [](int32_t p, int32_t q) { return p & q; }},
            {BinaryOp::Or, [](int32_t p, int32_t q) { return p | q; }},
            {BinaryOp::Xor, [](int32_t p, int32_t q) { return p ^ q; }},
        };
        for (const Case& c : cases) {
            auto out = resultBuffer<int32_t>(dev(), kCount);
            CommandBatch batch;
            SHARDX_VK_VERIFY(ops::binary(batch, c.op, DType::I32, *a, *b, *out, kCount));
            run(batch);
            std::vector<int32_t> got = readBack<int32_t>(dev(), *out, kCount);
            for (size_t i = 0; i < kCount; ++i)
                QCOMPARE(got[i], c.ref(x[i], y[i]));
        }
        // u32: division by zero gives all ones.
        std::vector<uint32_t> ux = {7, 100, 0xffffffffu, 5}, uy = {0, 7, 2, 9};
        auto ua = deviceBuffer(dev(), ux);
        auto ub = deviceBuffer(dev(), uy);
        auto uout = resultBuffer<uint32_t>(dev(), 4);
        CommandBatch batch;
        SHARDX_VK_VERIFY(ops::binary(batch, BinaryOp::Div, DType::U32, *ua, *ub, *uout, 4));
        run(batch);
        QCOMPARE(readBack<uint32_t>(dev(), *uout, 4), (std::vector<uint32_t>{0xffffffffu, 14, 0x7fffffffu, 0}));
        // f32 has no remainder or bitwise ops.
        CommandBatch bad;
        QVERIFY(!ops::binary(bad, BinaryOp::Rem, DType::F32, *ua, *ub, *uout, 4).ok());
    }

    void compareAndSelect()
    {
        std::vector<float> x = randomFloats(kCount, -3, 3, 41);
        std::vector<float> y = randomFloats(kCount, -3, 3, 42);
        for (size_t i = 0; i < kCount; i += 5)
            y[i] = x[i];
        std::vector<int32_t> xi(kCount), yi(kCount);
        for (size_t i = 0; i < kCount; ++i) {
            xi[i] = int32_t(std::floor(x[i]));
            yi[i] = int32_t(std::floor(y[i]));
        }
        auto a = deviceBuffer(dev(), x);
        auto b = deviceBuffer(dev(), y);
        auto ai = deviceBuffer(dev(), xi);
        auto bi = deviceBuffer(dev(), yi);
        const std::vector<std::pair<CompareDirection, std::function<bool(double, double)>>> dirs = {
            {CompareDirection::Eq, [](double p, double q) { return p == q; }},
            {CompareDirection::Ne, [](double p, double q) { return p != q; }},
            {CompareDirection::Lt, [](double p, double q) { return p < q; }},
            {CompareDirection::Le, [](double p, double q) { return p <= q; }},
            {CompareDirection::Gt, [](double p, double q) { return p > q; }},
            {CompareDirection::Ge, [](double p, double q) { return p >= q; }},
        };
        for (const auto& [dir, ref] : dirs) {
            auto outF = resultBuffer<uint32_t>(dev(), kCount);
            auto outI = resultBuffer<uint32_t>(dev(), kCount);
            auto sel = resultBuffer<float>(dev(), kCount);
            CommandBatch batch;
            SHARDX_VK_VERIFY(ops::compare(batch, dir, DType::F32, *a, *b, *outF, kCount));
            SHARDX_VK_VERIFY(ops::compare(batch, dir, DType::I32, *ai, *bi, *outI, kCount));
            // select reads the compare's result within the same batch (barrier between dispatches).
            SHARDX_VK_VERIFY(ops::select(batch, DType::F32, *outF, *a, *b, *sel, kCount));
            run(batch);
            auto gotF = readBack<uint32_t>(dev(), *outF, kCount);
            auto gotI = readBack<uint32_t>(dev(), *outI, kCount);
            auto gotSel = readBack<float>(dev(), *sel, kCount);
            for (size_t i = 0; i < kCount; ++i) {
                QCOMPARE(gotF[i], ref(x[i], y[i]) ? 1u : 0u);
                QCOMPARE(gotI[i], ref(xi[i], yi[i]) ? 1u : 0u);
                QVERIFY(sameBits(gotSel[i], ref(x[i], y[i]) ? x[i] : y[i]));
            }
        }
        // select of 64-bit elements.
        std::vector<int64_t> big1 = {1ll << 40, -5, 7}, big2 = {3, 1ll << 50, -(1ll << 33)};
        std::vector<uint32_t> pred = {0, 1, 0};
        auto p = deviceBuffer(dev(), pred);
        auto t = deviceBuffer(dev(), big1);
        auto f = deviceBuffer(dev(), big2);
        auto out = resultBuffer<int64_t>(dev(), 3);
        CommandBatch batch;
        SHARDX_VK_VERIFY(ops::select(batch, DType::I64, *p, *t, *f, *out, 3));
        run(batch);
        QCOMPARE(readBack<int64_t>(dev(), *out, 3), (std::vector<int64_t>{3, -5, -(1ll << 33)}));
    }

    // transpose of rank 3 and rank 6 (any permutation works through strides).
    void transpose_data()
    {
        QTest::addColumn<QList<qint64>>("shape");
        QTest::addColumn<QList<qint64>>("perm");
        QTest::newRow("rank2") << QList<qint64>{37, 19} << QList<qint64>{1, 0};
        QTest::newRow("rank3") << QList<qint64>{4, 5, 6} << QList<qint64>{2, 0, 1};
        QTest::newRow("rank6") << QList<qint64>{2, 3, 2, 4, 3, 2} << QList<qint64>{5, 3, 0, 4, 1, 2};
    }
    void transpose()
    {
        QFETCH(QList<qint64>, shape);
        QFETCH(QList<qint64>, perm);
        Shape s(shape.begin(), shape.end());
        std::vector<int64_t> p(perm.begin(), perm.end());
        std::vector<int32_t> in(count(s));
        std::iota(in.begin(), in.end(), 0);
        Shape outShape;
        for (int64_t d : p)
            outShape.push_back(s[d]);
        auto a = deviceBuffer(dev(), in);
        auto out = resultBuffer<int32_t>(dev(), in.size());
        CommandBatch batch;
        SHARDX_VK_VERIFY(ops::transpose(batch, DType::I32, *a, s, p, *out));
        run(batch);
        auto got = readBack<int32_t>(dev(), *out, in.size());
        for (int64_t i = 0; i < count(outShape); ++i) {
            std::vector<int64_t> o = unflatten(i, outShape), src(s.size());
            for (size_t d = 0; d < p.size(); ++d)
                src[p[d]] = o[d];
            QCOMPARE(got[i], in[flatten(src, s)]);
        }
    }

    void broadcastInDim()
    {
        // [3] -> [2, 3, 4] along dimension 1; [1, 4] -> [3, 4] (size-1 dimension expands); scalar -> [5].
        struct Case {
            Shape src, dst;
            std::vector<int64_t> dims;
        };
        const std::vector<Case> cases = {
            {{3}, {2, 3, 4}, {1}}, {{1, 4}, {3, 4}, {0, 1}}, {{}, {5}, {}}, {{4, 3}, {3, 2, 4}, {2, 0}}};
        for (const Case& c : cases) {
            std::vector<float> in = randomFloats(count(c.src), -1, 1, 51);
            auto a = deviceBuffer(dev(), in);
            auto out = resultBuffer<float>(dev(), count(c.dst));
            CommandBatch batch;
            SHARDX_VK_VERIFY(ops::broadcastInDim(batch, DType::F32, *a, c.src, c.dst, c.dims, *out));
            run(batch);
            auto got = readBack<float>(dev(), *out, count(c.dst));
            for (int64_t i = 0; i < count(c.dst); ++i) {
                std::vector<int64_t> o = unflatten(i, c.dst), src(c.src.size());
                for (size_t k = 0; k < c.dims.size(); ++k)
                    src[k] = c.src[k] == 1 ? 0 : o[c.dims[k]];
                QVERIFY(sameBits(got[i], in[flatten(src, c.src)]));
            }
        }
    }

    void sliceAndPad()
    {
        Shape s = {7, 9};
        std::vector<int32_t> in(count(s));
        std::iota(in.begin(), in.end(), 100);
        auto a = deviceBuffer(dev(), in);
        // slice [1:7:2, 2:9:3] -> [3, 3]
        auto sl = resultBuffer<int32_t>(dev(), 9);
        // pad lo {2, -1}, hi {-1, 3}, interior {1, 2}: dims 2 + 13 - 1 = 14 and -1 + 25 + 3 = 27.
        Shape padShape = {14, 27};
        auto pd = resultBuffer<int32_t>(dev(), count(padShape));
        CommandBatch batch;
        SHARDX_VK_VERIFY(ops::slice(batch, DType::I32, *a, s, {1, 2}, {7, 9}, {2, 3}, *sl));
        SHARDX_VK_VERIFY(ops::pad(batch, DType::I32, *a, s, {2, -1}, {-1, 3}, {1, 2}, uint32_t(-7), *pd));
        run(batch);
        auto gotSlice = readBack<int32_t>(dev(), *sl, 9);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                QCOMPARE(gotSlice[r * 3 + c], in[(1 + 2 * r) * 9 + (2 + 3 * c)]);
        auto gotPad = readBack<int32_t>(dev(), *pd, count(padShape));
        // CPU pad: place each source element, everything else is the pad value.
        std::vector<int32_t> want(count(padShape), -7);
        for (int64_t r = 0; r < 7; ++r) {
            for (int64_t c = 0; c < 9; ++c) {
                int64_t pr = 2 + r * 2, pc = -1 + c * 3;
                if (pr >= 0 && pr < 14 && pc >= 0 && pc < 27)
                    want[pr * 27 + pc] = in[r * 9 + c];
            }
        }
        QCOMPARE(gotPad, want);
    }

    void concatenateReverseDynamic()
    {
        Shape s1 = {3, 2, 4}, s2 = {3, 5, 4}, s3 = {3, 1, 4};
        std::vector<float> x1 = randomFloats(count(s1), -1, 1, 61), x2 = randomFloats(count(s2), -1, 1, 62),
                           x3 = randomFloats(count(s3), -1, 1, 63);
        auto b1 = deviceBuffer(dev(), x1), b2 = deviceBuffer(dev(), x2), b3 = deviceBuffer(dev(), x3);
        Shape cat = {3, 8, 4};
        auto out = resultBuffer<float>(dev(), count(cat));
        auto rev = resultBuffer<float>(dev(), count(s2));
        auto ds = resultBuffer<float>(dev(), 3 * 2 * 2);
        auto dus = resultBuffer<float>(dev(), count(s2));
        CommandBatch batch;
        SHARDX_VK_VERIFY(ops::concatenate(batch, DType::F32, {b1.get(), b2.get(), b3.get()}, {s1, s2, s3}, 1, *out));
        SHARDX_VK_VERIFY(ops::reverse(batch, DType::F32, *b2, s2, {0, 2}, *rev));
        // Start indices {5, 4, -3} clamp to {0, 3, 0}.
        SHARDX_VK_VERIFY(ops::dynamicSlice(batch, DType::F32, *b2, s2, {5, 4, -3}, {3, 2, 2}, *ds));
        // Update [3, 1, 4] at {0, 9, 0} clamps to {0, 4, 0}.
        SHARDX_VK_VERIFY(ops::dynamicUpdateSlice(batch, DType::F32, *b2, s2, *b3, s3, {0, 9, 0}, *dus));
        run(batch);
        auto got = readBack<float>(dev(), *out, count(cat));
        for (int64_t i = 0; i < count(cat); ++i) {
            std::vector<int64_t> o = unflatten(i, cat);
            float want = o[1] < 2
                             ? x1[flatten({o[0], o[1], o[2]}, s1)]
                             : (o[1] < 7 ? x2[flatten({o[0], o[1] - 2, o[2]}, s2)] : x3[flatten({o[0], 0, o[2]}, s3)]);
            QVERIFY(sameBits(got[i], want));
        }
        auto gotRev = readBack<float>(dev(), *rev, count(s2));
        for (int64_t i = 0; i < count(s2); ++i) {
            std::vector<int64_t> o = unflatten(i, s2);
            QVERIFY(sameBits(gotRev[i], x2[flatten({2 - o[0], o[1], 3 - o[2]}, s2)]));
        }
        auto gotDs = readBack<float>(dev(), *ds, 12);
        for (int64_t i = 0; i < 12; ++i) {
            std::vector<int64_t> o = unflatten(i, {3, 2, 2});
            QVERIFY(sameBits(gotDs[i], x2[flatten({o[0], o[1] + 3, o[2]}, s2)]));
        }
        auto gotDus = readBack<float>(dev(), *dus, count(s2));
        for (int64_t i = 0; i < count(s2); ++i) {
            std::vector<int64_t> o = unflatten(i, s2);
            float want = o[1] == 4 ? x3[flatten({o[0], 0, o[2]}, s3)] : x2[i];
            QVERIFY(sameBits(gotDus[i], want));
        }
    }

    // 64-bit elements move through the same copy kernel, two words each.
    void stridedCopy64()
    {
        Shape s = {3, 4};
        std::vector<double> in(12);
        for (int i = 0; i < 12; ++i)
            in[i] = 1e300 / (i + 1);
        auto a = deviceBuffer(dev(), in);
        auto t = resultBuffer<double>(dev(), 12);
        auto p = resultBuffer<double>(dev(), 4 * 6);
        CommandBatch batch;
        SHARDX_VK_VERIFY(ops::transpose(batch, DType::F64, *a, s, {1, 0}, *t));
        double padValue = -2.5;
        SHARDX_VK_VERIFY(
            ops::pad(batch, DType::F64, *a, s, {1, 1}, {0, 1}, {0, 0}, std::bit_cast<uint64_t>(padValue), *p));
        run(batch);
        auto gotT = readBack<double>(dev(), *t, 12);
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 3; ++c)
                QCOMPARE(gotT[r * 3 + c], in[c * 4 + r]);
        auto gotP = readBack<double>(dev(), *p, 24);
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 6; ++c)
                QCOMPARE(gotP[r * 6 + c], (r >= 1 && c >= 1 && c <= 4) ? in[(r - 1) * 4 + (c - 1)] : padValue);
    }

    // reduce folds from the init value over the reduced elements in row-major order: the CPU loop below is that
    // order, so f32 sums must agree bit for bit.
    void reduce()
    {
        Shape s = {4, 5, 6};
        std::vector<float> in = randomFloats(count(s), -10, 10, 71);
        std::vector<int32_t> ini = randomInts(count(s), -1000, 1000, 72);
        auto a = deviceBuffer(dev(), in);
        auto ai = deviceBuffer(dev(), ini);
        struct Case {
            ReduceOp op;
            std::vector<int64_t> dims;
            float init;
        };
        const std::vector<Case> cases = {{ReduceOp::Sum, {0, 2}, 0.5f},    {ReduceOp::Sum, {1}, 0.0f},
                                         {ReduceOp::Max, {2}, -INFINITY},  {ReduceOp::Min, {0}, INFINITY},
                                         {ReduceOp::Sum, {0, 1, 2}, 0.0f}, {ReduceOp::Prod, {1}, 1.0f}};
        for (const Case& c : cases) {
            Shape kept;
            for (int64_t d = 0; d < 3; ++d)
                if (std::find(c.dims.begin(), c.dims.end(), d) == c.dims.end())
                    kept.push_back(s[d]);
            int64_t outCount = count(kept);
            auto out = resultBuffer<float>(dev(), outCount);
            auto outI = resultBuffer<int32_t>(dev(), outCount);
            CommandBatch batch;
            SHARDX_VK_VERIFY(
                ops::reduce(batch, c.op, DType::F32, *a, s, c.dims, std::bit_cast<uint32_t>(c.init), *out));
            int32_t initI =
                c.op == ReduceOp::Max ? INT_MIN : (c.op == ReduceOp::Min ? INT_MAX : (c.op == ReduceOp::Prod ? 1 : 3));
            SHARDX_VK_VERIFY(ops::reduce(batch, c.op, DType::I32, *ai, s, c.dims, uint32_t(initI), *outI));
            run(batch);
            auto got = readBack<float>(dev(), *out, outCount);
            auto gotI = readBack<int32_t>(dev(), *outI, outCount);
            std::vector<float> want(outCount, c.init);
            std::vector<int32_t> wantI(outCount, initI);
            // Walking the input in row-major order visits each output's reduced elements in row-major order.
            for (int64_t i = 0; i < count(s); ++i) {
                std::vector<int64_t> idx = unflatten(i, s), k;
                for (int64_t d = 0; d < 3; ++d)
                    if (std::find(c.dims.begin(), c.dims.end(), d) == c.dims.end())
                        k.push_back(idx[d]);
                int64_t o = flatten(k, kept);
                float x = in[i];
                int32_t xi = ini[i];
                switch (c.op) {
                case ReduceOp::Sum: want[o] = want[o] + x, wantI[o] = int32_t(uint32_t(wantI[o]) + uint32_t(xi)); break;
                case ReduceOp::Prod:
                    want[o] = want[o] * x, wantI[o] = int32_t(uint32_t(wantI[o]) * uint32_t(xi));
                    break;
                case ReduceOp::Max: want[o] = std::max(want[o], x), wantI[o] = std::max(wantI[o], xi); break;
                case ReduceOp::Min: want[o] = std::min(want[o], x), wantI[o] = std::min(wantI[o], xi); break;
                }
            }
            for (int64_t o = 0; o < outCount; ++o) {
                if (!sameBits(got[o], want[o]))
                    QFAIL(qPrintable(QString("reduce output %1: %2, expected %3")
                                         .arg(o)
                                         .arg(got[o], 0, 'g', 9)
                                         .arg(want[o], 0, 'g', 9)));
                QCOMPARE(gotI[o], wantI[o]);
            }
        }
    }

    void iota()
    {
        Shape s = {3, 70, 5};
        for (int64_t dim = 0; dim < 3; ++dim) {
            auto outF = resultBuffer<float>(dev(), count(s));
            auto outI = resultBuffer<int32_t>(dev(), count(s));
            CommandBatch batch;
            SHARDX_VK_VERIFY(ops::iota(batch, DType::F32, s, dim, *outF));
            SHARDX_VK_VERIFY(ops::iota(batch, DType::I32, s, dim, *outI));
            run(batch);
            auto gotF = readBack<float>(dev(), *outF, count(s));
            auto gotI = readBack<int32_t>(dev(), *outI, count(s));
            for (int64_t i = 0; i < count(s); ++i) {
                int64_t v = unflatten(i, s)[dim];
                QCOMPARE(gotI[i], int32_t(v));
                QCOMPARE(gotF[i], float(v));
            }
        }
    }

    // dot_general in precise mode: each output summed from zero over the contracting indices in row-major order,
    // no FMA. The CPU loop does exactly that in f32 (GCC in ISO C++ mode does not contract a * b + c), so the
    // results must be bit-identical.
    void dotGeneralPrecise_data()
    {
        QTest::addColumn<QList<qint64>>("lhsShape");
        QTest::addColumn<QList<qint64>>("rhsShape");
        QTest::addColumn<QList<qint64>>("lhsBatch");
        QTest::addColumn<QList<qint64>>("rhsBatch");
        QTest::addColumn<QList<qint64>>("lhsContract");
        QTest::addColumn<QList<qint64>>("rhsContract");
        QTest::newRow("matmul") << QList<qint64>{13, 29} << QList<qint64>{29, 11} << QList<qint64>{} << QList<qint64>{}
                                << QList<qint64>{1} << QList<qint64>{0};
        QTest::newRow("matmul, multiples of 4") << QList<qint64>{12, 16} << QList<qint64>{16, 8} << QList<qint64>{}
                                                << QList<qint64>{} << QList<qint64>{1} << QList<qint64>{0};
        QTest::newRow("batched") << QList<qint64>{2, 5, 7} << QList<qint64>{2, 7, 3} << QList<qint64>{0}
                                 << QList<qint64>{0} << QList<qint64>{2} << QList<qint64>{1};
        // Two contracting dimensions listed out of order, batch dimension in the middle of rhs.
        QTest::newRow("general") << QList<qint64>{3, 4, 5, 2} << QList<qint64>{5, 2, 6, 4} << QList<qint64>{3}
                                 << QList<qint64>{1} << QList<qint64>{2, 1} << QList<qint64>{0, 3};
    }
    void dotGeneralPrecise()
    {
        QFETCH(QList<qint64>, lhsShape);
        QFETCH(QList<qint64>, rhsShape);
        QFETCH(QList<qint64>, lhsBatch);
        QFETCH(QList<qint64>, rhsBatch);
        QFETCH(QList<qint64>, lhsContract);
        QFETCH(QList<qint64>, rhsContract);
        Shape ls(lhsShape.begin(), lhsShape.end()), rs(rhsShape.begin(), rhsShape.end());
        DotDims dims{{lhsBatch.begin(), lhsBatch.end()},
                     {rhsBatch.begin(), rhsBatch.end()},
                     {lhsContract.begin(), lhsContract.end()},
                     {rhsContract.begin(), rhsContract.end()}};
        std::vector<float> l = randomFloats(count(ls), -1, 1, 81), r = randomFloats(count(rs), -1, 1, 82);
        std::vector<int32_t> li = randomInts(count(ls), -50, 50, 83), ri = randomInts(count(rs), -50, 50, 84);

        // Result shape and the CPU evaluation, written from the definition.
        auto isIn = [](const std::vector<int64_t>& v, int64_t d) {
            return std::find(v.begin(), v.end(), d) != v.end();
        };
        std::vector<int64_t> lFree, rFree;
        for (int64_t d = 0; d < int64_t(ls.size()); ++d)
            if (!isIn(dims.lhsBatch, d) && !isIn(dims.lhsContracting, d))
                lFree.push_back(d);
        for (int64_t d = 0; d < int64_t(rs.size()); ++d)
            if (!isIn(dims.rhsBatch, d) && !isIn(dims.rhsContracting, d))
                rFree.push_back(d);
        Shape res, cShape;
        for (int64_t d : dims.lhsBatch)
            res.push_back(ls[d]);
        for (int64_t d : lFree)
            res.push_back(ls[d]);
        for (int64_t d : rFree)
            res.push_back(rs[d]);
        for (int64_t d : dims.lhsContracting)
            cShape.push_back(ls[d]);
        std::vector<float> want(count(res));
        std::vector<int32_t> wantI(count(res));
        for (int64_t i = 0; i < count(res); ++i) {
            std::vector<int64_t> o = unflatten(i, res);
            std::vector<int64_t> lIdx(ls.size()), rIdx(rs.size());
            size_t at = 0;
            for (size_t b = 0; b < dims.lhsBatch.size(); ++b, ++at)
                lIdx[dims.lhsBatch[b]] = rIdx[dims.rhsBatch[b]] = o[at];
            for (int64_t d : lFree)
                lIdx[d] = o[at++];
            for (int64_t d : rFree)
                rIdx[d] = o[at++];
            float acc = 0.0f;
            int32_t accI = 0;
            for (int64_t c = 0; c < count(cShape); ++c) {
                std::vector<int64_t> ci = unflatten(c, cShape);
                for (size_t k = 0; k < ci.size(); ++k)
                    lIdx[dims.lhsContracting[k]] = rIdx[dims.rhsContracting[k]] = ci[k];
                float prod = l[flatten(lIdx, ls)] * r[flatten(rIdx, rs)];
                acc = acc + prod;
                accI += li[flatten(lIdx, ls)] * ri[flatten(rIdx, rs)];
            }
            want[i] = acc;
            wantI[i] = accI;
        }

        auto lb = deviceBuffer(dev(), l), rb = deviceBuffer(dev(), r);
        auto lib = deviceBuffer(dev(), li), rib = deviceBuffer(dev(), ri);
        auto out = resultBuffer<float>(dev(), want.size());
        auto outI = resultBuffer<int32_t>(dev(), want.size());
        auto outFast = resultBuffer<float>(dev(), want.size());
        CommandBatch batch;
        SHARDX_VK_VERIFY(ops::dotGeneral(batch, DType::F32, *lb, ls, *rb, rs, dims, DotMode::Precise, *out));
        SHARDX_VK_VERIFY(ops::dotGeneral(batch, DType::I32, *lib, ls, *rib, rs, dims, DotMode::Precise, *outI));
        SHARDX_VK_VERIFY(ops::dotGeneral(batch, DType::F32, *lb, ls, *rb, rs, dims, DotMode::Fast, *outFast));
        // The same two precise dispatches again through the storage-buffer kernel (the texel-buffer one is chosen
        // where the device has texel buffers): both must give the reference's bits.
        auto outStorage = resultBuffer<float>(dev(), want.size());
        auto outStorageI = resultBuffer<int32_t>(dev(), want.size());
        Dispatch storage = batch.dispatches()[0], storageI = batch.dispatches()[1];
        storage.kernel = storageI.kernel = KernelId::DotPrecise;
        storage.buffers[2] = outStorage.get();
        storageI.buffers[2] = outStorageI.get();
        batch.add(storage);
        batch.add(storageI);
        run(batch);
        auto got = readBack<float>(dev(), *out, want.size());
        auto gotI = readBack<int32_t>(dev(), *outI, want.size());
        auto gotFast = readBack<float>(dev(), *outFast, want.size());
        QCOMPARE(readBack<int32_t>(dev(), *outStorageI, want.size()), wantI);
        auto gotStorage = readBack<float>(dev(), *outStorage, want.size());
        for (size_t i = 0; i < want.size(); ++i)
            QVERIFY(sameBits(gotStorage[i], want[i]));
        double absBound = kFastDotRel * double(count(cShape)); // |a|, |b| <= 1
        for (size_t i = 0; i < want.size(); ++i) {
            if (!sameBits(got[i], want[i]))
                QFAIL(qPrintable(QString("precise dot output %1: %2, expected %3")
                                     .arg(i)
                                     .arg(got[i], 0, 'g', 9)
                                     .arg(want[i], 0, 'g', 9)));
            QCOMPARE(gotI[i], wantI[i]);
            if (std::fabs(double(gotFast[i]) - want[i]) > absBound)
                QFAIL(qPrintable(QString("fast dot output %1: %2, expected %3").arg(i).arg(gotFast[i]).arg(want[i])));
        }
    }

    // The fast kernels on sizes that are not multiples of their tiles, batched, each forced through the device's
    // MatmulKernel option: K or N not a multiple of 4 always takes the storage-buffer kernel; multiples of 4 the
    // texel-buffer one (where the device has texel buffers) or the shared-memory one. Auto picks by device type.
    void matmulTiled_data()
    {
        QTest::addColumn<int>("B");
        QTest::addColumn<int>("M");
        QTest::addColumn<int>("N");
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("choice");
        QTest::addColumn<QString>("kernel");
        const int storage = int(MatmulKernel::Storage), texel = int(MatmulKernel::Texel),
                  shared = int(MatmulKernel::Shared), automatic = int(MatmulKernel::Auto);
        QTest::newRow("storage buffers") << 2 << 70 << 33 << 17 << storage << "matmul_tiled";
        QTest::newRow("auto, K not a multiple of 4") << 1 << 9 << 12 << 6 << automatic << "matmul_tiled";
        QTest::newRow("shared memory, N not a multiple of 4") << 1 << 9 << 6 << 8 << shared << "matmul_tiled";
        QTest::newRow("auto, by device type") << 1 << 20 << 36 << 16 << automatic << "auto";
        QTest::newRow("texel buffers") << 2 << 135 << 68 << 20 << texel << "matmul_texel";
        QTest::newRow("texel buffers, one row") << 1 << 1 << 4 << 8 << texel << "matmul_texel";
        // Two row tiles and two column tiles, both partial; K a multiple of 4 but not of the 8-deep slices.
        QTest::newRow("shared memory, partial tiles") << 2 << 135 << 132 << 20 << shared << "matmul_shared";
        QTest::newRow("shared memory, one row") << 1 << 1 << 4 << 8 << shared << "matmul_shared";
        QTest::newRow("shared memory, K = 4") << 1 << 3 << 8 << 4 << shared << "matmul_shared";
        QTest::newRow("shared memory, long K") << 1 << 64 << 64 << 260 << shared << "matmul_shared";
        const int shared16 = int(MatmulKernel::Shared16);
        QTest::newRow("16-deep, partial tiles") << 2 << 135 << 132 << 20 << shared16 << "matmul_shared16";
        QTest::newRow("16-deep, one row") << 1 << 1 << 4 << 8 << shared16 << "matmul_shared16";
        QTest::newRow("16-deep, K = 4") << 1 << 3 << 8 << 4 << shared16 << "matmul_shared16";
        QTest::newRow("16-deep, long K") << 1 << 64 << 64 << 260 << shared16 << "matmul_shared16";
        // The other tile shapes: partial tiles in both directions, one row, K = 4 and a long K for each.
        const std::pair<MatmulKernel, const char*> shapes[] = {
            {MatmulKernel::Shared128x256, "matmul_shared_128x256"},
            {MatmulKernel::Shared256x128, "matmul_shared_256x128"},
            {MatmulKernel::Shared64x64, "matmul_shared_64x64"},
            {MatmulKernel::Shared128t128, "matmul_shared_128t128"},
        };
        for (const auto& [choice, name] : shapes) {
            const std::string n = name;
            QTest::newRow((n + ", partial tiles").c_str()) << 2 << 270 << 264 << 20 << int(choice) << name;
            QTest::newRow((n + ", one row").c_str()) << 1 << 1 << 4 << 8 << int(choice) << name;
            QTest::newRow((n + ", K = 4").c_str()) << 1 << 3 << 8 << 4 << int(choice) << name;
            QTest::newRow((n + ", long K").c_str()) << 1 << 72 << 68 << 260 << int(choice) << name;
        }
    }
    void matmulTiled()
    {
        QFETCH(int, B);
        QFETCH(int, M);
        QFETCH(int, N);
        QFETCH(int, K);
        QFETCH(int, choice);
        QFETCH(QString, kernel);
        std::unique_ptr<Device>& slot = m_matmulDevices[choice];
        if (!slot) {
            DeviceOptions options;
            options.matmul = MatmulKernel(choice);
            auto created = Device::create(*m_instance, 0, options);
            SHARDX_VK_VERIFY(created);
            slot = std::move(*created);
        }
        Device& device = *slot;
        if (kernel == "auto") // a GPU takes the 64 x 64 tiles for a product this small
            kernel = device.physical().type == VK_PHYSICAL_DEVICE_TYPE_CPU ? "matmul_texel" : "matmul_shared_64x64";
        if (kernel == "matmul_texel" && device.physical().maxTexelBufferElements == 0)
            kernel = "matmul_tiled";
        std::vector<float> a = randomFloats(size_t(B) * M * K, -1, 1, 91),
                           b = randomFloats(size_t(B) * K * N, -1, 1, 92);
        auto ab = deviceBuffer(device, a), bb = deviceBuffer(device, b);
        auto cb = resultBuffer<float>(device, size_t(B) * M * N);
        CommandBatch batch;
        SHARDX_VK_VERIFY(ops::matmulTiled(batch, *ab, *bb, *cb, B, M, N, K));
        QCOMPARE(QString::fromStdString(batch.dispatches().back().label), kernel);
        auto submitted = device.submit(batch);
        SHARDX_VK_VERIFY(submitted);
        auto got = readBack<float>(device, *cb, size_t(B) * M * N);
        for (int64_t z = 0; z < B; ++z) {
            for (int64_t i = 0; i < M; ++i) {
                for (int64_t j = 0; j < N; ++j) {
                    double want = 0;
                    for (int64_t k = 0; k < K; ++k)
                        want += double(a[(z * M + i) * K + k]) * b[(z * K + k) * N + j];
                    if (std::fabs(got[(z * M + i) * N + j] - want) > kFastDotRel * K)
                        QFAIL(qPrintable(QString("C[%1][%2][%3] = %4, expected %5")
                                             .arg(z)
                                             .arg(i)
                                             .arg(j)
                                             .arg(got[(z * M + i) * N + j])
                                             .arg(want)));
                }
            }
        }
    }

    // The f16 matmul on matrix units: where the device lacks cooperative matrices the op is an error that says so
    // (lavapipe); where it has them, a batched product with partial 128 x 128 tiles against a double-precision
    // product of the same half inputs (f32 accumulation of exact f16 products).
    void matmulCoopF16_data()
    {
        QTest::addColumn<int>("how");
        QTest::newRow("fragments from the buffers") << int(ops::CoopMatmul::Direct);
        QTest::newRow("staged in shared memory") << int(ops::CoopMatmul::Staged);
    }
    void matmulCoopF16()
    {
        QFETCH(int, how);
        const int64_t B = 2, M = 144, N = 208, K = 48;
        std::vector<float> a = randomFloats(size_t(B * M * K), -1, 1, 93),
                           b = randomFloats(size_t(B * K * N), -1, 1, 94);
        std::vector<uint16_t> ah(a.size()), bh(b.size());
        for (size_t i = 0; i < a.size(); ++i)
            ah[i] = shardx::floatToHalf(a[i]);
        for (size_t i = 0; i < b.size(); ++i)
            bh[i] = shardx::floatToHalf(b[i]);
        auto ab = deviceBuffer(dev(), ah), bb = deviceBuffer(dev(), bh);
        auto cb = resultBuffer<float>(dev(), size_t(B * M * N));
        CommandBatch batch;
        QVERIFY(!ops::matmulCoopF16(batch, *ab, *bb, *cb, B, M, N, 40).ok()); // K not a multiple of 16
        shardx::Status recorded = ops::matmulCoopF16(batch, *ab, *bb, *cb, B, M, N, K, ops::CoopMatmul(how));
        if (!dev().cooperativeMatrixF16()) {
            QVERIFY(!recorded.ok());
            QVERIFY2(recorded.error().message.find("VK_NV_cooperative_matrix") != std::string::npos,
                     recorded.error().message.c_str());
            QSKIP("no f16 cooperative matrices on this device: the error was checked, the kernel cannot run");
        }
        SHARDX_VK_VERIFY(recorded);
        auto submitted = dev().submit(batch);
        SHARDX_VK_VERIFY(submitted);
        auto got = readBack<float>(dev(), *cb, size_t(B * M * N));
        for (int64_t z = 0; z < B; ++z)
            for (int64_t i = 0; i < M; ++i)
                for (int64_t j = 0; j < N; ++j) {
                    double want = 0;
                    for (int64_t k = 0; k < K; ++k)
                        want += double(shardx::halfToFloat(ah[size_t((z * M + i) * K + k)])) *
                                shardx::halfToFloat(bh[size_t((z * K + k) * N + j)]);
                    const float g = got[size_t((z * M + i) * N + j)];
                    if (std::fabs(g - want) > kFastDotRel * K)
                        QFAIL(qPrintable(
                            QString("C[%1][%2][%3] = %4, expected %5").arg(z).arg(i).arg(j).arg(g).arg(want)));
                }
    }

    // Shape errors come back as errors before anything is recorded.
    void shapeErrors()
    {
        std::vector<float> x(4, 1.0f);
        auto a = deviceBuffer(dev(), x);
        auto out = resultBuffer<float>(dev(), 4);
        CommandBatch batch;
        QVERIFY(!ops::unary(batch, UnaryOp::Neg, DType::F32, *a, *out, 5).ok()); // buffer too small
        QVERIFY(!ops::transpose(batch, DType::F32, *a, {2, 2}, {0, 0}, *out).ok());
        QVERIFY(!ops::broadcastInDim(batch, DType::F32, *a, {4}, {3, 2}, {1}, *out).ok());
        QVERIFY(!ops::slice(batch, DType::F32, *a, {4}, {3}, {2}, {1}, *out).ok());
        QVERIFY(!ops::reduce(batch, ReduceOp::Sum, DType::I64, *a, {4}, {0}, 0, *out).ok());
        QVERIFY(
            !ops::dotGeneral(batch, DType::F32, *a, {2, 2}, *a, {2, 2}, {{}, {}, {1}, {1, 0}}, DotMode::Precise, *out)
                 .ok());
        QVERIFY(batch.empty());
    }
};

QTEST_APPLESS_MAIN(TestVulkanKernels)
#include "tst_vulkankernels.moc"
