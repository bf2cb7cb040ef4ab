// Executor: the interface every back end (reference CPU interpreter, Vulkan) implements.
#pragma once

#include <string>
#include <vector>

#include "core/exec/Tensor.h"
#include "core/ir/Module.h"
#include "core/support/Diagnostic.h"
#include "core/support/Expected.h"

namespace shardx::exec {

/// What a run of a module's entry function with the interpreter conventions found.
struct InterpretReport {
    /// Every failed check (`check.expect_eq` and kin), in the order they ran.
    std::vector<Diagnostic> failures;
    /// Number of checks that ran.
    int64_t checksRun = 0;
    /// The entry function's results.
    std::vector<Tensor> results;

    bool passed() const { return failures.empty(); }
};

/// Runs functions of a module. Implementations are deterministic: the same module and inputs give
/// bitwise the same results.
class Executor {
public:
    virtual ~Executor() = default;

    /// Short name of the back end ("reference", "vulkan").
    virtual std::string name() const = 0;

    /// Runs function `func` of `module` as one process (replica 0, partition 0) on `args`; returns
    /// its results. An op the back end cannot run is an Error at the op's position.
    virtual Expected<std::vector<Tensor>> runFunction(const ir::Module& module, const std::string& func,
                                                      const std::vector<Tensor>& args) = 0;

    /// Runs a grid of processes concurrently, `programs[replica][partition]` naming each one's
    /// function, with collectives between them. `args` are the processes' arguments laid end to end
    /// in grid order (replica 0 partition 0, replica 0 partition 1, ...); the results likewise.
    virtual Expected<std::vector<Tensor>> runParallel(const ir::Module& module,
                                                      const std::vector<std::vector<std::string>>& programs,
                                                      const std::vector<Tensor>& args) = 0;

    /// Runs `entry` (no arguments) with the interpreter conventions of Shardy's executable tests:
    /// `interpreter.run_parallel` runs a grid, `check.*` ops record failures with their positions.
    /// An Error when it could not run to the end.
    virtual Expected<InterpretReport> interpret(const ir::Module& module, const std::string& entry = "main") = 0;
};

} // namespace shardx::exec
