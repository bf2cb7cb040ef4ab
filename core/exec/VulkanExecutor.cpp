// VulkanExecutor: the reference interpreter drives; ops the Vulkan layer covers bit-exactly run as kernels.
#include "core/exec/VulkanExecutor.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "core/exec/Interpreter.h"
#include "core/exec/Timings.h"
#include "core/exec/vulkan/Device.h"
#include "core/exec/vulkan/DeviceMesh.h"
#include "core/exec/vulkan/Instance.h"
#include "core/exec/vulkan/Ops.h"
#include "core/ir/StablehloAttrs.h"

namespace shardx::exec {

namespace {

/// Ops that drive a program (or only name values) rather than compute on tensors.
bool vkeIsHostOp(const std::string& name)
{
    return name == "func.call" || name == "interpreter.run_parallel" || name == "stablehlo.while" ||
           name == "stablehlo.if" || name == "stablehlo.case" || name == "stablehlo.constant" ||
           name == "sdy.constant" || name == "stablehlo.partition_id" || name == "stablehlo.replica_id" ||
           name.rfind("check.", 0) == 0;
}

/// f16 and bf16: kept on the device widened to f32 words (every such value is one), computed on in f32 and rounded
/// back after each op that can leave the format (as the reference computes them: in float, one rounding per op).
bool vkeNarrowFloat(const ElementType& t) { return t.name == "bf16" || t.name == "f16"; }

/// How a type's elements sit in device words.
enum class VkeWords { Plain, Bool, Bf16, F16 };

VkeWords vkeWordsOf(const ElementType& t)
{
    return t.isBool()         ? VkeWords::Bool
           : t.name == "bf16" ? VkeWords::Bf16
           : t.name == "f16"  ? VkeWords::F16
                              : VkeWords::Plain;
}

/// Bytes per element on the device.
uint64_t vkeDeviceBytes(const ElementType& t) { return t.isBool() || vkeNarrowFloat(t) ? 4 : uint64_t(t.byteSize()); }

/// The device type holding `t`'s elements: i1 as U32 words (0 or 1), f16 and bf16 as F32 (vkeNarrowFloat); nullopt
/// for types without one.
std::optional<vk::DType> vkeDType(const ElementType& t)
{
    if (t.name == "f32" || vkeNarrowFloat(t))
        return vk::DType::F32;
    if (t.name == "i32")
        return vk::DType::I32;
    if (t.name == "ui32" || t.name == "i1")
        return vk::DType::U32;
    if (t.name == "i64")
        return vk::DType::I64;
    if (t.name == "f64")
        return vk::DType::F64;
    return std::nullopt;
}

/// Arithmetic kernels: f32, i32, ui32 (not i1).
bool vkeArith(const ElementType& t) { return t.name == "f32" || t.name == "i32" || t.name == "ui32"; }

std::optional<vk::UnaryOp> vkeUnary(const std::string& n, const ElementType& t)
{
    // On f16 and bf16 (f32 words) these give values of the format again: no rounding after them.
    const bool f32Words = t.name == "f32" || vkeNarrowFloat(t);
    const bool signedOrFloat = f32Words || t.name == "i32";
    if (n == "stablehlo.negate" && signedOrFloat)
        return vk::UnaryOp::Neg;
    if (n == "stablehlo.abs" && signedOrFloat)
        return vk::UnaryOp::Abs;
    if (n == "stablehlo.sign" && signedOrFloat)
        return vk::UnaryOp::Sign;
    if (n == "stablehlo.floor" && f32Words)
        return vk::UnaryOp::Floor;
    if (n == "stablehlo.ceil" && f32Words)
        return vk::UnaryOp::Ceil;
    if (n == "stablehlo.not" && (t.name == "i32" || t.name == "ui32"))
        return vk::UnaryOp::Not;
    return std::nullopt;
}

std::optional<vk::BinaryOp> vkeBinary(const std::string& n, const ElementType& t)
{
    const bool integer = t.name == "i32" || t.name == "ui32";
    if (vkeArith(t) || vkeNarrowFloat(t)) { // f16, bf16: rounded after (see runOnDevice)
        if (n == "stablehlo.add")
            return vk::BinaryOp::Add;
        if (n == "stablehlo.subtract")
            return vk::BinaryOp::Sub;
        if (n == "stablehlo.multiply")
            return vk::BinaryOp::Mul;
        if (n == "stablehlo.maximum")
            return vk::BinaryOp::Max;
        if (n == "stablehlo.minimum")
            return vk::BinaryOp::Min;
    }
    if (integer && n == "stablehlo.divide")
        return vk::BinaryOp::Div;
    if (integer && n == "stablehlo.remainder")
        return vk::BinaryOp::Rem;
    if (integer || t.name == "i1") {
        if (n == "stablehlo.and")
            return vk::BinaryOp::And;
        if (n == "stablehlo.or")
            return vk::BinaryOp::Or;
        if (n == "stablehlo.xor")
            return vk::BinaryOp::Xor;
    }
    return std::nullopt;
}

/// The reduction of a body `^bb(%a, %b): %r = OP %a, %b; return %r` (either operand order).
std::optional<vk::ReduceOp> vkeReduceBody(const ir::Op& op)
{
    if (op.numRegions() != 1 || op.region(0).blocks().size() != 1)
        return std::nullopt;
    const ir::Block& block = *op.region(0).blocks().front();
    if (block.numArgs() != 2 || block.ops().size() != 2)
        return std::nullopt;
    const ir::Op& body = *block.ops().front();
    const ir::Op& ret = *block.ops().back();
    if (body.numOperands() != 2 || ret.numOperands() != 1 || ret.operand(0) != body.result(0))
        return std::nullopt;
    const bool direct = body.operand(0) == block.arg(0) && body.operand(1) == block.arg(1);
    const bool swapped = body.operand(0) == block.arg(1) && body.operand(1) == block.arg(0);
    if (!direct && !swapped)
        return std::nullopt;
    const std::string& n = body.name();
    if (n == "stablehlo.add")
        return vk::ReduceOp::Sum;
    if (n == "stablehlo.multiply")
        return vk::ReduceOp::Prod;
    if (n == "stablehlo.maximum")
        return vk::ReduceOp::Max;
    if (n == "stablehlo.minimum")
        return vk::ReduceOp::Min;
    return std::nullopt;
}

std::optional<vk::CompareDirection> vkeDirection(const std::string& d)
{
    if (d == "EQ")
        return vk::CompareDirection::Eq;
    if (d == "NE")
        return vk::CompareDirection::Ne;
    if (d == "LT")
        return vk::CompareDirection::Lt;
    if (d == "LE")
        return vk::CompareDirection::Le;
    if (d == "GT")
        return vk::CompareDirection::Gt;
    if (d == "GE")
        return vk::CompareDirection::Ge;
    return std::nullopt;
}

/// The element bits of a scalar (i1 as a 0/1 word).
uint64_t vkeScalarBits(const Tensor& t)
{
    uint64_t bits = 0;
    if (t.elementType().isBool())
        return t.getInt(0) != 0 ? 1 : 0;
    if (vkeNarrowFloat(t.elementType())) {
        const float f = static_cast<float>(t.getFloat(0));
        uint32_t word;
        std::memcpy(&word, &f, 4);
        return word;
    }
    std::memcpy(&bits, t.bytes().data(), std::min<size_t>(sizeof bits, t.bytes().size()));
    return bits;
}

int64_t vkeTotal(const std::map<std::string, int64_t>& m)
{
    int64_t n = 0;
    for (const auto& [k, v] : m)
        n += v;
    return n;
}

std::string vkeShortName(const std::string& n) { return n.rfind("stablehlo.", 0) == 0 ? n.substr(10) : n; }

} // namespace

int64_t BackendStats::deviceCount() const { return vkeTotal(onDevice); }
int64_t BackendStats::fallbackCount() const { return vkeTotal(fallback); }

std::string BackendStats::summary() const
{
    std::ostringstream s;
    s << deviceCount() << " ops on vulkan, " << fallbackCount() << " on the CPU fallback";
    const char* sep = ": ";
    for (const auto& [k, v] : fallback) {
        s << sep << vkeShortName(k) << " (" << v << ")";
        sep = ", ";
    }
    s << "; " << vkeTotal(host) << " control/constant/check ops on the host";
    s << "; " << operandsOnDevice << " operands read where the op before left them, " << uploads << " uploads ("
      << uploadBytes << " B), " << downloads << " downloads (" << downloadBytes << " B)";
    return s.str();
}

/// Host <-> device traffic of an executor, over all its devices (shared with the tensors' storages, which may
/// outlive a run).
struct VkeTransfers {
    std::atomic<int64_t> uploads{0}, uploadBytes{0}, downloads{0}, downloadBytes{0}, onDevice{0};
};

/// A tensor's elements in a buffer of a logical device (i1 as U32 words). Holds what the buffer needs to stay
/// valid: its Device and the Instance under it (declared first, so destroyed last).
class VkeStorage final : public TensorStorage {
public:
    std::shared_ptr<vk::Instance> instance;
    std::shared_ptr<vk::Device> device;
    std::shared_ptr<vk::Buffer> buffer;
    std::shared_ptr<VkeTransfers> transfers;
    VkeWords words = VkeWords::Plain;

    void fetch(std::vector<uint8_t>& out) const override
    {
        if (out.empty())
            return;
        Status st = Status::success();
        if (words == VkeWords::Bool) {
            std::vector<uint32_t> w(out.size());
            st = device->download(*buffer, w.data(), w.size() * 4);
            for (size_t i = 0; st && i < out.size(); ++i)
                out[i] = w[i] != 0 ? 1 : 0;
            transfers->downloadBytes += static_cast<int64_t>(w.size() * 4);
        } else if (words == VkeWords::Bf16 || words == VkeWords::F16) {
            // f32 words holding values of the format: converting back is exact.
            std::vector<float> w(out.size() / 2);
            st = device->download(*buffer, w.data(), w.size() * 4);
            for (size_t i = 0; st && i < w.size(); ++i) {
                const uint16_t h = words == VkeWords::Bf16 ? floatToBf16(w[i]) : floatToHalf(w[i]);
                std::memcpy(out.data() + 2 * i, &h, 2);
            }
            transfers->downloadBytes += static_cast<int64_t>(w.size() * 4);
        } else {
            st = device->download(*buffer, out.data(), out.size());
            transfers->downloadBytes += static_cast<int64_t>(out.size());
        }
        ++transfers->downloads;
        if (!st)
            throw std::runtime_error("vulkan: fetching a value from " + device->label() + ": " + st.error().message);
    }
};

/// The element type and shape of an op's result `i` (without making a host tensor of it).
struct VkeResultType {
    ElementType type;
    std::vector<int64_t> shape;
    int64_t count = 1;
};

/// The offload: one logical Vulkan device per process id, made on first use. Values an op computes stay in
/// their device buffers (tensors holding a VkeStorage); the next op on that device reads them there. They are
/// downloaded only when something reads them on the host: an op on the CPU fallback, a collective (which runs
/// through host staging), a check, the observer of validation's intermediates, the run's results.
class VulkanExecutorImpl final : public OpOffload {
public:
    std::shared_ptr<vk::Instance> instance;
    std::vector<uint32_t> physical;
    bool timestamps = true;
    bool keepOnDevice = true;
    std::shared_ptr<VkeTransfers> transfers = std::make_shared<VkeTransfers>();

    bool run(OpContext& ctx, std::vector<Tensor>& out) override
    {
        const std::string& name = ctx.op.name();
        TimingRecorder* timings = ctx.interp.hooks().timings;
        if (vkeIsHostOp(name)) {
            count(m_stats.host, name);
            if (timings)
                timings->ranOn(timingProcess(ctx.proc), ctx.op, "host");
            return false;
        }
        const bool ran = runOnDevice(ctx, out);
        count(ran ? m_stats.onDevice : m_stats.fallback, name);
        if (timings && !ran)
            timings->ranOn(timingProcess(ctx.proc), ctx.op, isTimedCollective(name) ? "host staging" : "cpu fallback");
        return ran;
    }

    BackendStats stats() const
    {
        BackendStats s;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            s = m_stats;
        }
        s.uploads = transfers->uploads;
        s.uploadBytes = transfers->uploadBytes;
        s.downloads = transfers->downloads;
        s.downloadBytes = transfers->downloadBytes;
        s.operandsOnDevice = transfers->onDevice;
        return s;
    }

private:
    void count(std::map<std::string, int64_t>& m, const std::string& name)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        ++m[name];
    }

    /// A logical device, created by the first op of its process that needs it.
    struct DeviceSlot {
        std::once_flag created;
        std::shared_ptr<vk::Device> device;
        std::string error;
    };

    std::shared_ptr<vk::Device> deviceFor(const OpContext& ctx)
    {
        const int64_t pid = ctx.proc.replica * ctx.proc.numPartitions + ctx.proc.partition;
        std::shared_ptr<DeviceSlot> slot;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            std::shared_ptr<DeviceSlot>& s = m_devices[pid];
            if (!s)
                s = std::make_shared<DeviceSlot>();
            slot = s;
        }
        // Outside the lock: the processes of a parallel run create their devices at the same time, where one
        // lock made them wait in line (a vkCreateDevice takes tens of milliseconds on a GPU driver).
        std::call_once(slot->created, [&] {
            const uint32_t phys = physical[static_cast<size_t>(pid) % physical.size()];
            vk::DeviceOptions options;
            options.timestamps = timestamps;
            options.label = "logical device " + std::to_string(pid);
            auto device = vk::Device::create(*instance, phys, options);
            if (device)
                slot->device = std::shared_ptr<vk::Device>(std::move(*device));
            else
                slot->error = device.error().message;
        });
        if (!slot->device)
            ctx.fail("vulkan: " + slot->error);
        return slot->device;
    }

    /// How the kernels of `device` are timed, as a sentence.
    std::string clockOf(const vk::Device& device) const
    {
        const vk::PhysicalDeviceInfo& info = device.physical();
        if (!timestamps)
            return "host timers around each submission (GPU timestamps turned off)";
        if (info.timestampValidBits == 0)
            return "host timers around each submission: the device's compute queue has no timestamps";
        char buf[96];
        std::snprintf(buf, sizeof buf, "GPU timestamps, %u valid bits, %.4g ns per tick", info.timestampValidBits,
                      static_cast<double>(info.timestampPeriodNs));
        return buf;
    }

    static VkeResultType resultType(const OpContext& ctx, unsigned i = 0)
    {
        const ir::Type& t = ctx.op.result(i)->type();
        auto et = t.isRankedTensor() ? elementTypeFromName(t.elementType()) : std::nullopt;
        if (!et || !t.hasStaticShape())
            ctx.fail("result " + std::to_string(i) + ": not a static tensor of a supported element type");
        VkeResultType r{*et, t.shape(), 1};
        r.count = elementCount(r.shape);
        return r;
    }

    /// One op's run on its device: its operands' buffers, its output buffers and its kernels.
    struct Run {
        VulkanExecutorImpl& impl;
        const OpContext& ctx;
        std::shared_ptr<vk::Device> deviceRef;
        vk::Device& device;
        std::vector<std::shared_ptr<vk::Buffer>> buffers; ///< uploads and outputs, alive until the run ends
        vk::CommandBatch batch;

        Run(VulkanExecutorImpl& i, const OpContext& c) : impl(i), ctx(c), deviceRef(i.deviceFor(c)), device(*deviceRef)
        {}

        void check(const Status& st)
        {
            if (!st)
                ctx.fail("vulkan: " + st.error().message);
        }
        std::shared_ptr<vk::Buffer> alloc(uint64_t bytes)
        {
            auto b = device.createBuffer(std::max<uint64_t>(bytes, 4));
            if (!b)
                ctx.fail("vulkan: " + b.error().message);
            buffers.push_back(std::shared_ptr<vk::Buffer>(std::move(*b)));
            return buffers.back();
        }
        std::shared_ptr<VkeStorage> storageOf(std::shared_ptr<vk::Buffer> buffer, VkeWords words)
        {
            auto s = std::make_shared<VkeStorage>();
            s->instance = impl.instance;
            s->device = deviceRef;
            s->buffer = std::move(buffer);
            s->transfers = impl.transfers;
            s->words = words;
            return s;
        }
        /// `t`'s elements on this device: its own buffer when it is kept here already, else uploaded (and kept
        /// with the tensor, so that the next op reading it finds it here).
        std::shared_ptr<vk::Buffer> inputBuffer(const Tensor& t)
        {
            const auto* s = impl.keepOnDevice ? dynamic_cast<const VkeStorage*>(t.storage().get()) : nullptr;
            if (s && s->device == deviceRef) {
                ++impl.transfers->onDevice;
                return s->buffer;
            }
            std::shared_ptr<vk::Buffer> b;
            if (t.elementType().isBool()) {
                std::vector<uint32_t> words(static_cast<size_t>(t.numElements()));
                for (int64_t i = 0; i < t.numElements(); ++i)
                    words[static_cast<size_t>(i)] = t.getInt(i) != 0 ? 1u : 0u;
                b = alloc(words.size() * 4);
                if (!words.empty())
                    check(device.upload(*b, words.data(), words.size() * 4));
                impl.transfers->uploadBytes += static_cast<int64_t>(words.size() * 4);
            } else if (vkeNarrowFloat(t.elementType())) {
                std::vector<float> words(static_cast<size_t>(t.numElements()));
                for (int64_t i = 0; i < t.numElements(); ++i)
                    words[static_cast<size_t>(i)] = static_cast<float>(t.getFloat(i));
                b = alloc(words.size() * 4);
                if (!words.empty())
                    check(device.upload(*b, words.data(), words.size() * 4));
                impl.transfers->uploadBytes += static_cast<int64_t>(words.size() * 4);
            } else {
                b = alloc(t.bytes().size());
                if (!t.bytes().empty())
                    check(device.upload(*b, t.bytes().data(), t.bytes().size()));
                impl.transfers->uploadBytes += static_cast<int64_t>(t.bytes().size());
            }
            ++impl.transfers->uploads;
            if (impl.keepOnDevice && !t.storage())
                t.attachStorage(storageOf(b, vkeWordsOf(t.elementType())));
            return b;
        }
        const vk::Buffer& upload(const Tensor& t) { return *inputBuffer(t); }
        const vk::Buffer& output(const VkeResultType& like)
        {
            return *alloc(vkeDeviceBytes(like.type) * uint64_t(like.count));
        }
        void submit()
        {
            TimingRecorder* timings = ctx.interp.hooks().timings;
            if (batch.empty()) {
                if (timings)
                    timings->deviceTime(timingProcess(ctx.proc), ctx.op, {}, TimeClock::Host);
                return;
            }
            auto r = device.submit(batch);
            if (!r)
                ctx.fail("vulkan: " + r.error().message);
            if (!timings)
                return;
            const int64_t process = timingProcess(ctx.proc);
            timings->describe(process, "vulkan: " + device.physical().describe() + " as " + device.label(),
                              impl.clockOf(device));
            std::vector<std::pair<std::string, double>> kernels;
            if (r->hasTimestamps) {
                for (const vk::DispatchTiming& t : r->timings)
                    kernels.emplace_back(t.label, t.ms);
                timings->deviceTime(process, ctx.op, kernels, TimeClock::Gpu);
            } else {
                // No timestamps: the host's time from submission to the fence, shared out evenly.
                const auto& ds = batch.dispatches();
                for (const vk::Dispatch& d : ds)
                    kernels.emplace_back(d.label, r->wallMs / static_cast<double>(ds.size()));
                timings->deviceTime(process, ctx.op, kernels, TimeClock::Host);
            }
        }
        /// The result tensor kept in `dst` (a buffer made by output() or an operand's).
        Tensor result(const VkeResultType& like, const std::shared_ptr<vk::Buffer>& dst)
        {
            Tensor t = Tensor::onStorage(like.type, like.shape, storageOf(dst, vkeWordsOf(like.type)));
            if (!impl.keepOnDevice) {
                try {
                    t.dropStorage(); // downloaded now, as each op's result was before values stayed on the device
                } catch (const std::exception& e) {
                    ctx.fail(e.what());
                }
            }
            return t;
        }
        Tensor result(const VkeResultType& like, const vk::Buffer& dst)
        {
            for (const auto& b : buffers)
                if (b.get() == &dst)
                    return result(like, b);
            ctx.fail("vulkan: internal error: an output buffer not made by this run");
        }
    };

    bool runOnDevice(OpContext& ctx, std::vector<Tensor>& out)
    {
        const ir::Op& op = ctx.op;
        const std::string& n = op.name();
        if (op.numResults() != 1 || ctx.numIn() == 0)
            return n == "stablehlo.iota" && op.numResults() == 1 ? runIota(ctx, out) : false;
        const ir::Type& resultIr = op.result(0)->type();
        if (!resultIr.isRankedTensor() || !resultIr.hasStaticShape() || !elementTypeFromName(resultIr.elementType()))
            return false;
        const VkeResultType result = resultType(ctx);
        const ElementType& rt = result.type;
        const ElementType& t0 = ctx.in(0).elementType();
        auto rd = vkeDType(rt);
        auto d0 = vkeDType(t0);
        if (!rd || !d0)
            return false;
        for (unsigned i = 0; i < ctx.numIn(); ++i)
            if (!vkeDType(ctx.in(i).elementType()))
                return false;
        const int64_t count = result.count;
        auto sameShapes = [&] {
            for (unsigned i = 0; i < ctx.numIn(); ++i)
                if (ctx.in(i).shape() != result.shape)
                    return false;
            return true;
        };
        auto finish = [&](Run& r, const vk::Buffer& dst) {
            r.submit();
            out.push_back(r.result(result, dst));
            return true;
        };

        if (auto u = vkeUnary(n, t0); u && ctx.numIn() == 1 && rt == t0) {
            Run r(*this, ctx);
            const vk::Buffer& a = r.upload(ctx.in(0));
            const vk::Buffer& dst = r.output(result);
            r.check(vk::ops::unary(r.batch, *u, *d0, a, dst, count));
            return finish(r, dst);
        }
        if (auto b = vkeBinary(n, t0);
            b && ctx.numIn() == 2 && rt == t0 && ctx.in(1).elementType() == t0 && sameShapes()) {
            Run r(*this, ctx);
            const vk::Buffer& a = r.upload(ctx.in(0));
            const vk::Buffer& c = r.upload(ctx.in(1));
            const vk::Buffer& dst = r.output(result);
            r.check(vk::ops::binary(r.batch, *b, *d0, a, c, dst, count));
            // f16, bf16: a sum, difference or product in f32 rounded to the format (maximum and minimum pick one).
            if (vkeNarrowFloat(rt) && *b != vk::BinaryOp::Max && *b != vk::BinaryOp::Min)
                r.check(vk::ops::unary(r.batch, rt.name == "bf16" ? vk::UnaryOp::RoundBf16 : vk::UnaryOp::RoundF16,
                                       vk::DType::F32, dst, dst, count));
            return finish(r, dst);
        }
        if (n == "stablehlo.compare") {
            const std::string type = stablehlo::enumKeyword(op.attr("compare_type"));
            auto dir = vkeDirection(stablehlo::enumKeyword(op.attr("comparison_direction")));
            if (!dir || type == "TOTALORDER" || ctx.numIn() != 2 || !(ctx.in(1).elementType() == t0) || !sameShapes() ||
                !(vkeArith(t0) || t0.isBool() || vkeNarrowFloat(t0)))
                return false;
            Run r(*this, ctx);
            const vk::Buffer& a = r.upload(ctx.in(0));
            const vk::Buffer& c = r.upload(ctx.in(1));
            const vk::Buffer& dst = r.output(result);
            r.check(vk::ops::compare(r.batch, *dir, *d0, a, c, dst, count));
            return finish(r, dst);
        }
        if (n == "stablehlo.select") {
            if (ctx.numIn() != 3 || !sameShapes() || !t0.isBool())
                return false;
            Run r(*this, ctx);
            const vk::Buffer& p = r.upload(ctx.in(0));
            const vk::Buffer& a = r.upload(ctx.in(1));
            const vk::Buffer& c = r.upload(ctx.in(2));
            const vk::Buffer& dst = r.output(result);
            r.check(vk::ops::select(r.batch, *rd, p, a, c, dst, count));
            return finish(r, dst);
        }
        if (n == "stablehlo.convert" && (vkeNarrowFloat(t0) || vkeNarrowFloat(rt))) {
            // Between f32, f16 and bf16 (all f32 words): to f32, or from a format to itself, the words are the
            // result; to f16 or bf16, one rounding of the f32 value, as the reference's. Integers to or from f16
            // and bf16 would round twice here (through f32): they stay on the CPU.
            const auto floatWords = [](const ElementType& t) { return t.name == "f32" || vkeNarrowFloat(t); };
            if (!floatWords(t0) || !floatWords(rt))
                return false;
            Run r(*this, ctx);
            std::shared_ptr<vk::Buffer> a = r.inputBuffer(ctx.in(0));
            if (!vkeNarrowFloat(rt) || rt == t0) {
                r.submit();
                out.push_back(r.result(result, a));
                return true;
            }
            const vk::Buffer& dst = r.output(result);
            r.check(vk::ops::unary(r.batch, rt.name == "bf16" ? vk::UnaryOp::RoundBf16 : vk::UnaryOp::RoundF16,
                                   vk::DType::F32, *a, dst, count));
            return finish(r, dst);
        }
        if (n == "stablehlo.convert") {
            if (!vkeArith(t0) || !vkeArith(rt))
                return false;
            Run r(*this, ctx);
            const vk::Buffer& a = r.upload(ctx.in(0));
            const vk::Buffer& dst = r.output(result);
            r.check(vk::ops::convert(r.batch, *d0, *rd, a, dst, count));
            return finish(r, dst);
        }
        // Data movement: any device type, result type = operand type.
        if (!(rt == t0))
            return n == "stablehlo.reduce" || n == "stablehlo.dot_general" ? runLinalg(ctx, out) : false;
        if (n == "stablehlo.reshape") {
            // Row-major elements do not move: the result is the operand's buffer under the new shape.
            Run r(*this, ctx);
            std::shared_ptr<vk::Buffer> a = r.inputBuffer(ctx.in(0));
            r.submit();
            out.push_back(r.result(result, a));
            return true;
        }
        if (n == "stablehlo.transpose") {
            Run r(*this, ctx);
            const vk::Buffer& a = r.upload(ctx.in(0));
            const vk::Buffer& dst = r.output(result);
            r.check(vk::ops::transpose(r.batch, *rd, a, ctx.in(0).shape(), ctx.ints("permutation"), dst));
            return finish(r, dst);
        }
        if (n == "stablehlo.broadcast_in_dim") {
            Run r(*this, ctx);
            const vk::Buffer& a = r.upload(ctx.in(0));
            const vk::Buffer& dst = r.output(result);
            r.check(vk::ops::broadcastInDim(r.batch, *rd, a, ctx.in(0).shape(), result.shape,
                                            ctx.ints("broadcast_dimensions"), dst));
            return finish(r, dst);
        }
        if (n == "stablehlo.slice") {
            Run r(*this, ctx);
            const vk::Buffer& a = r.upload(ctx.in(0));
            const vk::Buffer& dst = r.output(result);
            const auto start = ctx.ints("start_indices");
            r.check(vk::ops::slice(r.batch, *rd, a, ctx.in(0).shape(), start, ctx.ints("limit_indices"),
                                   ctx.intsOr("strides", std::vector<int64_t>(start.size(), 1)), dst));
            return finish(r, dst);
        }
        if (n == "stablehlo.pad" && ctx.numIn() == 2) {
            Run r(*this, ctx);
            const vk::Buffer& a = r.upload(ctx.in(0));
            const vk::Buffer& dst = r.output(result);
            r.check(vk::ops::pad(r.batch, *rd, a, ctx.in(0).shape(), ctx.ints("edge_padding_low"),
                                 ctx.ints("edge_padding_high"), ctx.ints("interior_padding"), vkeScalarBits(ctx.in(1)),
                                 dst));
            return finish(r, dst);
        }
        if (n == "stablehlo.concatenate") {
            for (unsigned i = 0; i < ctx.numIn(); ++i)
                if (!(ctx.in(i).elementType() == t0))
                    return false;
            Run r(*this, ctx);
            std::vector<const vk::Buffer*> srcs;
            std::vector<vk::Shape> shapes;
            for (unsigned i = 0; i < ctx.numIn(); ++i) {
                srcs.push_back(&r.upload(ctx.in(i)));
                shapes.push_back(ctx.in(i).shape());
            }
            const vk::Buffer& dst = r.output(result);
            r.check(vk::ops::concatenate(r.batch, *rd, srcs, shapes, ctx.integer("dimension"), dst));
            return finish(r, dst);
        }
        if (n == "stablehlo.reverse") {
            Run r(*this, ctx);
            const vk::Buffer& a = r.upload(ctx.in(0));
            const vk::Buffer& dst = r.output(result);
            r.check(vk::ops::reverse(r.batch, *rd, a, ctx.in(0).shape(), ctx.ints("dimensions"), dst));
            return finish(r, dst);
        }
        if (n == "stablehlo.dynamic_slice" || n == "stablehlo.dynamic_update_slice") {
            const bool update = n == "stablehlo.dynamic_update_slice";
            const unsigned first = update ? 2 : 1;
            std::vector<int64_t> start;
            for (unsigned i = first; i < ctx.numIn(); ++i) {
                if (ctx.in(i).numElements() != 1 || !ctx.in(i).elementType().isInteger())
                    return false;
                start.push_back(ctx.in(i).getInt(0)); // a scalar start index: read on the host
            }
            if (update && !(ctx.in(1).elementType() == t0))
                return false;
            Run r(*this, ctx);
            const vk::Buffer& a = r.upload(ctx.in(0));
            const vk::Buffer& dst = r.output(result);
            if (update) {
                const vk::Buffer& u = r.upload(ctx.in(1));
                r.check(
                    vk::ops::dynamicUpdateSlice(r.batch, *rd, a, ctx.in(0).shape(), u, ctx.in(1).shape(), start, dst));
            } else {
                // The sizes are the result type's, as the reference interpreter reads them: a per-device
                // program keeps the global slice_sizes attribute (convert-global-to-local does not adapt
                // it, PARTITION.md 7.5.6) while its types are local.
                r.check(vk::ops::dynamicSlice(r.batch, *rd, a, ctx.in(0).shape(), start, result.shape, dst));
            }
            return finish(r, dst);
        }
        return runLinalg(ctx, out);
    }

    bool runLinalg(OpContext& ctx, std::vector<Tensor>& out)
    {
        const std::string& n = ctx.op.name();
        const VkeResultType result = resultType(ctx);
        const ElementType& rt = result.type;
        if (n == "stablehlo.reduce") {
            auto red = vkeReduceBody(ctx.op);
            if (!red || ctx.numIn() != 2 || !vkeArith(rt) || !(ctx.in(0).elementType() == rt) ||
                !(ctx.in(1).elementType() == rt) || ctx.in(1).numElements() != 1)
                return false;
            Run r(*this, ctx);
            const vk::Buffer& a = r.upload(ctx.in(0));
            const vk::Buffer& dst = r.output(result);
            r.check(vk::ops::reduce(r.batch, *red, *vkeDType(rt), a, ctx.in(0).shape(), ctx.ints("dimensions"),
                                    static_cast<uint32_t>(vkeScalarBits(ctx.in(1))), dst));
            r.submit();
            out.push_back(r.result(result, dst));
            return true;
        }
        if (n == "stablehlo.dot_general") {
            // f32 and i32; f16 and bf16 (f32 words) rounded at each step as the reference does; f16 or bf16
            // operands into an f32 result (JAX's preferred_element_type) are the f32 dot of their exact values.
            const ElementType& l = ctx.in(0).elementType();
            const ElementType& rr = ctx.in(1).elementType();
            const bool sameType = l == rt && rr == rt && (rt.name == "f32" || rt.name == "i32" || vkeNarrowFloat(rt));
            const bool widenedIntoF32 =
                rt.name == "f32" && (l.name == "f32" || vkeNarrowFloat(l)) && (rr.name == "f32" || vkeNarrowFloat(rr));
            if (ctx.numIn() != 2 || !(sameType || widenedIntoF32))
                return false;
            std::string error;
            auto dn = stablehlo::dotDimensionNumbers(ctx.op, &error);
            if (!dn)
                return false;
            vk::DotDims dims{dn->lhsBatching, dn->rhsBatching, dn->lhsContracting, dn->rhsContracting};
            Run r(*this, ctx);
            const vk::Buffer& a = r.upload(ctx.in(0));
            const vk::Buffer& b = r.upload(ctx.in(1));
            const vk::Buffer& dst = r.output(result);
            const vk::ops::DotRounding rounding = rt.name == "bf16"  ? vk::ops::DotRounding::Bf16
                                                  : rt.name == "f16" ? vk::ops::DotRounding::F16
                                                                     : vk::ops::DotRounding::None;
            r.check(vk::ops::dotGeneral(r.batch, *vkeDType(rt), a, ctx.in(0).shape(), b, ctx.in(1).shape(), dims,
                                        vk::DotMode::Precise, dst, rounding));
            r.submit();
            out.push_back(r.result(result, dst));
            return true;
        }
        return false;
    }

    bool runIota(OpContext& ctx, std::vector<Tensor>& out)
    {
        const ir::Type& t = ctx.op.result(0)->type();
        if (!t.isRankedTensor() || !t.hasStaticShape() || !elementTypeFromName(t.elementType()))
            return false;
        const VkeResultType result = resultType(ctx);
        if (!vkeArith(result.type))
            return false;
        Run r(*this, ctx);
        const vk::Buffer& dst = r.output(result);
        r.check(vk::ops::iota(r.batch, *vkeDType(result.type), result.shape, ctx.integer("iota_dimension"), dst));
        r.submit();
        out.push_back(r.result(result, dst));
        return true;
    }

    mutable std::mutex m_mutex;
    BackendStats m_stats;
    std::map<int64_t, std::shared_ptr<DeviceSlot>> m_devices;
};

VulkanExecutor::~VulkanExecutor() = default;

Expected<std::unique_ptr<VulkanExecutor>> VulkanExecutor::create(const VulkanExecutorOptions& options)
{
    vk::InstanceOptions io;
    io.validation = options.validation && vk::Instance::validationLayerAvailable();
    auto instance = vk::Instance::create(io);
    if (!instance)
        return Error{"Vulkan is not available: " + instance.error().message, {}};
    auto impl = std::make_unique<VulkanExecutorImpl>();
    std::string list = options.deviceList;
    if (list.empty())
        if (const char* env = std::getenv("SHARDX_VK_DEVICES"))
            list = env;
    const size_t count = (*instance)->physicalDevices().size();
    if (!list.empty()) {
        auto parsed = vk::parseDeviceList(list, count);
        if (!parsed)
            return Error{"bad device list '" + list + "': " + parsed.error().message, {}};
        impl->physical = *parsed;
    } else {
        for (uint32_t i = 0; i < count; ++i)
            impl->physical.push_back(i);
    }
    if (impl->physical.empty())
        return Error{"no Vulkan physical device to use", {}};
    impl->instance = std::shared_ptr<vk::Instance>(std::move(*instance));
    impl->timestamps = options.timestamps;
    impl->keepOnDevice = options.keepValuesOnDevice;
    if (const char* env = std::getenv("SHARDX_VK_KEEP_ON_DEVICE"); env && std::string(env) == "0")
        impl->keepOnDevice = false;
    std::unique_ptr<VulkanExecutor> ex(new VulkanExecutor());
    ex->m_impl = std::move(impl);
    ex->setOffload(ex->m_impl.get());
    return ex;
}

BackendStats VulkanExecutor::stats() const { return m_impl->stats(); }

std::vector<std::string> VulkanExecutor::physicalDeviceNames() const
{
    std::vector<std::string> names;
    for (uint32_t i : m_impl->physical)
        names.push_back(m_impl->instance->physicalDevices()[i].describe());
    return names;
}

} // namespace shardx::exec
