// ReferenceExecutor: the CPU oracle, StableHLO's semantics op by op (conformance README's evaluation orders).
#pragma once

#include "core/exec/Executor.h"
#include "core/exec/Interpreter.h"

namespace shardx::exec {

/// Runs programs on the host, one thread per process of a grid, in the evaluation orders of
/// StableHLO's reference interpreter (f32 math in float without fused multiply-add; dot_general and
/// convolution summed from zero over the contracting indices in row-major order; reduce folded from
/// its init value in row-major order), so that results are bit-exact and reproducible.
class ReferenceExecutor : public Executor {
public:
    std::string name() const override { return "reference"; }
    Expected<std::vector<Tensor>> runFunction(const ir::Module& module, const std::string& func,
                                              const std::vector<Tensor>& args) override;
    Expected<std::vector<Tensor>> runParallel(const ir::Module& module,
                                              const std::vector<std::vector<std::string>>& programs,
                                              const std::vector<Tensor>& args) override;
    Expected<InterpretReport> interpret(const ir::Module& module, const std::string& entry = "main") override;

    /// Observer and fault injection for every run from now on (validation; see RunHooks). Off by default.
    void setHooks(const RunHooks& hooks) { m_hooks = hooks; }
    /// Where the hooks' fault struck in the last run (struck false when it did not).
    const InjectedFault& lastInjectedFault() const { return m_lastFault; }

protected:
    /// Back ends that run ops elsewhere reuse this driver (functions, regions, grids, checks) and hand
    /// every interpreter they create this offload (null: every op on the host).
    void setOffload(OpOffload* offload) { m_offload = offload; }

private:
    OpOffload* m_offload = nullptr;
    RunHooks m_hooks;
    InjectedFault m_lastFault;
};

} // namespace shardx::exec
