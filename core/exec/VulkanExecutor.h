// VulkanExecutor: runs programs with the ops the Vulkan layer covers on a Vulkan device per logical device.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/exec/ReferenceExecutor.h"

namespace shardx::exec {

/// How many ops of each name ran where, over every run of one executor.
struct BackendStats {
    /// Ops computed by Vulkan kernels (precise, bit-exact modes).
    std::map<std::string, int64_t> onDevice;
    /// Compute ops the Vulkan layer does not cover (or not for these types or attributes): run by the
    /// reference interpreter's op implementations on the host.
    std::map<std::string, int64_t> fallback;
    /// What drives a program rather than computes on tensors: function calls, regions of control flow,
    /// interpreter.run_parallel, check.*, constants, partition_id / replica_id.
    std::map<std::string, int64_t> host;
    /// Operands of ops on the device found in the buffer an earlier op left them in (no transfer).
    int64_t operandsOnDevice = 0;
    /// Host -> device copies of operands (values computed on the host, arguments, constants) and their bytes.
    int64_t uploads = 0, uploadBytes = 0;
    /// Device -> host copies (values read on the host: by the CPU fallback, a collective, a check, the results).
    int64_t downloads = 0, downloadBytes = 0;

    int64_t deviceCount() const;
    int64_t fallbackCount() const;
    /// "12 ops on vulkan, 3 on the CPU fallback: gather (2), sort (1); 5 control/constant ops on the host; 20
    /// operands read where the op before left them, 4 uploads (64 B), 3 downloads (48 B)".
    std::string summary() const;
};

struct VulkanExecutorOptions {
    /// Physical devices as a comma list of indices into the instance's list ("0,2"). Empty: the
    /// `SHARDX_VK_DEVICES` environment variable, else every physical device.
    std::string deviceList;
    /// Enable the validation layer when it is installed.
    bool validation = false;
    /// Time kernels with GPU timestamps where the device has them (timings: RunHooks::timings); false, or a
    /// device without them: host timers around each submission.
    bool timestamps = true;
    /// Leave each op's result in its device buffer for the next op on that device (see VulkanExecutor). False
    /// (or the environment's `SHARDX_VK_KEEP_ON_DEVICE=0`): every result is downloaded at once and every operand
    /// uploaded, as a measure of what keeping values on the device saves.
    bool keepValuesOnDevice = true;
};

class VulkanExecutorImpl;

/// An Executor whose compute ops run on Vulkan: process p of a grid (p = replica * partitions +
/// partition; 0 outside a grid) runs on its own logical device, placed on physical device
/// `devices[p % devices.size()]` (several logical devices may share one). The reference interpreter
/// drives functions, control flow, grids and checks; each op the Vulkan layer covers in a bit-exact mode
/// (element-wise add/sub/mul/max/min/neg/abs/floor/ceil/sign, integer div/rem and bit ops, compare, select,
/// convert, reshape, transpose, broadcast_in_dim, slice, pad, concatenate, reverse, dynamic_slice,
/// dynamic_update_slice, iota, single-input reduce with an add/mul/max/min body, dot_general) runs its kernels on
/// the operands' buffers and leaves its result in a device buffer: consecutive ops on one device pass values with
/// no host round trip. A value is uploaded once when it comes from the host (an argument, a constant, the result
/// of a CPU-fallback op or of a collective) and downloaded only when the host reads it (the CPU fallback, a
/// collective through host staging, a check, an observer of intermediates, the run's results). Every other op runs on
/// the CPU fallback (the reference's implementation) and is counted in `stats()`, never silently. f32 divide, sqrt,
/// exp, log, tanh are not correctly rounded under Vulkan's precision rules and so stay on the fallback.
class VulkanExecutor : public ReferenceExecutor {
public:
    /// An error (no loader, no driver, bad device list) when Vulkan cannot be used.
    static Expected<std::unique_ptr<VulkanExecutor>> create(const VulkanExecutorOptions& options = {});
    ~VulkanExecutor() override;

    std::string name() const override { return "vulkan"; }
    /// Counts of the runs so far.
    BackendStats stats() const;
    /// Names of the physical devices in use, in order.
    std::vector<std::string> physicalDeviceNames() const;

private:
    VulkanExecutor() = default;
    std::unique_ptr<VulkanExecutorImpl> m_impl;
};

} // namespace shardx::exec
