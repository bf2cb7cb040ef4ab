// CommandBatch.h - kernel dispatches recorded for one submission to one Device.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/exec/vulkan/Buffer.h"
#include "core/exec/vulkan/KernelRegistry.h"

namespace shardx::exec::vk {

/// One kernel launch: its storage buffers (bindings 1..n, whole buffers), its parameter words (binding 0) and its
/// workgroup counts. `label` names it in timings (e.g. the StableHLO op it implements).
struct Dispatch {
    KernelId kernel = KernelId::Unary;
    std::vector<const Buffer*> buffers;
    std::vector<uint32_t> params;
    std::array<uint32_t, 3> groups = {1, 1, 1};
    std::string label;
};

/// Dispatches run in order, each one seeing every write of the ones before (a full compute barrier between
/// consecutive dispatches). Temporaries handed to `keep` live until the batch is destroyed.
class CommandBatch {
public:
    void add(Dispatch dispatch) { m_dispatches.push_back(std::move(dispatch)); }
    /// Keeps `buffer` alive as long as the batch (scratch space of multi-kernel ops such as the tiled dot).
    const Buffer* keep(std::unique_ptr<Buffer> buffer)
    {
        m_temporaries.push_back(std::move(buffer));
        return m_temporaries.back().get();
    }
    const std::vector<Dispatch>& dispatches() const { return m_dispatches; }
    bool empty() const { return m_dispatches.empty(); }

private:
    std::vector<Dispatch> m_dispatches;
    std::vector<std::unique_ptr<Buffer>> m_temporaries;
};

/// How long one dispatch ran on the device, from GPU timestamps.
struct DispatchTiming {
    std::string label;
    double ms = 0;
};

/// The outcome of a submitted batch.
struct BatchResult {
    bool hasTimestamps = false;          ///< false when the queue has no timestamp support
    std::vector<DispatchTiming> timings; ///< one per dispatch, in order (empty without timestamps)
    double wallMs = 0;                   ///< host time from submission to the fence
};

} // namespace shardx::exec::vk
