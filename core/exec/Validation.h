// Validation: proves that the per-device programs compute what the unsharded program computes. The module is
// propagated, partitioned into the per-device program, the global program runs on the reference executor and
// the per-device programs on the chosen back end, and every result (optionally every intermediate) is gathered
// back shard by shard and compared under a tolerance per element type.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/exec/ReferenceExecutor.h"
#include "core/exec/Tensor.h"
#include "core/exec/Timings.h"
#include "core/ir/Module.h"
#include "core/support/Diagnostic.h"
#include "core/support/Expected.h"

namespace shardx::exec {

/// How far a per-device value may be from the global program's: an element passes when
/// |local - global| <= abs + rel * max|global|, the maximum taken over the whole value. The partitioned program
/// sums in another order (a dot_general with a sharded contracting dimension adds partial sums across devices),
/// so floats differ by rounding that follows the size of the terms summed, not of each result element (an
/// element that cancels to near zero keeps the rounding of its large terms); a wrong shard, a dropped or
/// duplicated partial sum or corrupted data is off by the value's own scale. Integers and booleans are exact.
struct Tolerance {
    double abs = 0;
    double rel = 0;
    bool exact() const { return abs == 0 && rel == 0; }
};
/// f64: about 1e4 ulps of relative error.
inline constexpr Tolerance kToleranceF64{1e-12, 1e-11};
/// f32: about 1e3 ulps of the value's scale (a 4-layer transformer's reordered sums stay near 1e-6).
inline constexpr Tolerance kToleranceF32{1e-5, 1e-4};
/// f16: 10 fraction bits (ulp 2^-10 ~ 1e-3); a few roundings of reordered sums.
inline constexpr Tolerance kToleranceF16{1e-3, 1e-2};
/// bf16: 7 fraction bits (ulp 2^-7 ~ 8e-3); a few roundings of reordered sums.
inline constexpr Tolerance kToleranceBf16{1e-2, 5e-2};
/// Integers, booleans: bit-exact.
inline constexpr Tolerance kToleranceExact{0, 0};
/// The tolerance of an element type (complex numbers: their component's).
Tolerance toleranceFor(const ElementType& type);

/// A fault validation must catch (test and diagnostics only).
enum class InjectedFaultKind {
    None,
    Collective, ///< corrupt one StableHLO collective's results on one device (see CollectiveFault)
    SwapShards, ///< give two devices each other's shard of the first argument that they hold differently
};

struct ValidationOptions {
    /// The propagation strategy (propagationStrategies()); empty: the module is propagated already.
    std::string strategy = "pipeline";
    /// Mesh sizes replacing the module's (`2x2`: every mesh with two axes gets these sizes in axis order;
    /// `data=2,model=2`: the named axes); device ids become the identity. Empty: the module's meshes.
    std::string mesh;
    std::string entry = "main";
    /// Inputs of the entry function: `inputs` when given (global shapes), else random from `seed` (argument i
    /// from seed + i, as `shardx-cli interpret --seed` makes them, floats scaled by 1/16 to [-0.25, 0.25)).
    uint64_t seed = 0;
    std::vector<Tensor> inputs;
    /// Compare every value of the per-device program that stands for a value of the global program, and name
    /// the first that diverges.
    bool intermediates = false;
    InjectedFaultKind fault = InjectedFaultKind::None;
    /// Collective fault: the device whose results are corrupted (-1: device 1, or 0 on one device) and which
    /// collective it runs (0-based, in program order).
    int64_t faultDevice = -1;
    int64_t faultCollective = 0;
    /// Called (on the validating thread) as each stage starts: `stage` says what runs (`partitioning`), `done`
    /// stages of `total` are behind it. Optional.
    std::function<void(const std::string& stage, int done, int total)> progress;
    /// When set and true, validation stops at the next stage or op with the Error kValidationCancelled.
    const std::atomic<bool>* cancel = nullptr;
    /// Time every op and collective of the per-device programs on the back end (ValidationReport::timings).
    bool timings = false;
};

/// The message of the Error validate() returns when ValidationOptions::cancel stopped it.
inline constexpr const char* kValidationCancelled = "validation cancelled";

/// One value compared: the global program's against every device's shard of it.
struct ValueComparison {
    enum class Kind { Argument, Intermediate, Result };
    Kind kind = Kind::Result;
    /// As users know it: `result 0`, `%arg1`, `%5`; an inserted collective after the value it moves
    /// (`%4.all_gather`).
    std::string name;
    std::string globalName; ///< the global program's value it is compared with (`%4`)
    /// That value's ProgramIds index in the module validated (the ids of `module` as given; for a result, the
    /// value returned); -1 where none.
    int globalValue = -1;
    std::string opName;    ///< the per-device program's op defining it (`stablehlo.all_gather`); empty for
                           ///< arguments and results
    SourcePos pos;         ///< where that op (or argument) is in the user's file
    std::string type;      ///< the global type, `tensor<16x64xf32>`
    std::string localType; ///< each device's, `tensor<8x16xf32>`
    std::string sharding;  ///< `<@mesh, [{"data"}, {}]>`, `<replicated>`
    int64_t order = 0;     ///< program order in the per-device program (arguments first, results last)
    int64_t elements = 0;  ///< elements compared, over every device
    double maxAbsError = 0;
    double maxRelError = 0; ///< over elements whose global value is not zero
    double nmse = 0;        ///< sum of squared errors / sum of squared global values (0 when both are 0)
    double scale = 0;       ///< the largest magnitude of the global value (what `tolerance.rel` scales)
    int64_t mismatches = 0; ///< elements outside the tolerance, over every device
    Tolerance tolerance;
    /// Devices whose shard is outside the tolerance (ascending).
    std::vector<int64_t> devices;
    /// Replication groups (device ids) whose members hold bitwise different data.
    std::vector<std::vector<int64_t>> replicaDisagreements;

    bool matches() const { return mismatches == 0 && replicaDisagreements.empty(); }
};

/// The first value (in program order) whose per-device data differ from the global program's.
struct Divergence {
    std::string value;    ///< its name
    int globalValue = -1; ///< ValueComparison::globalValue of the value
    std::string opName;   ///< the op that computed it (`stablehlo.all_gather`), empty for an argument or result
    SourcePos pos;
    int64_t device = -1;
    std::string what; ///< `max abs error 1 (tolerance 1e-05 + 0.0001*|x|)`, `replicas [0, 4] disagree`
};

struct ValidationReport {
    std::string backend;  ///< `reference`, `vulkan`
    std::string strategy; ///< empty when the module was propagated already
    std::string mesh;     ///< `<["data"=2, "model"=2]>`
    int64_t devices = 0;
    uint64_t seed = 0;
    std::vector<ValueComparison> arguments;     ///< with intermediates only
    std::vector<ValueComparison> intermediates; ///< with intermediates only, program order
    std::vector<ValueComparison> results;
    /// Values of the per-device program not compared, and why (`%5: a partial sum, reduced by %5.all_reduce`).
    std::vector<std::string> skipped;
    std::optional<Divergence> firstDivergence;
    /// The fault injected, as a sentence (empty: none).
    std::string fault;
    /// Where it was injected: the collective corrupted (its op and position in the per-device program; empty
    /// for swap-shards) and the device (swap-shards: the first of the two).
    std::string faultOp;
    SourcePos faultPos;
    int64_t faultDevice = -1;
    /// Where the back end ran the ops (the Vulkan back end's summary), empty for the reference.
    std::string backendSummary;
    /// With ValidationOptions::timings: each device's op and collective times in the per-device run.
    bool timed = false;
    std::vector<DeviceTimings> timings;

    bool matches() const { return !firstDivergence; }
};

/// Validates `module`'s entry function on `backend` (see the file comment). `module` is not changed. An Error
/// when it could not run: propagation or partitioning failed, an op cannot run, inputs of the wrong type.
Expected<ValidationReport> validate(const ir::Module& module, ReferenceExecutor& backend,
                                    const ValidationOptions& options);

/// `{"format": "shardx-validation", "version": 1, "verdict": "match", ...}`; `"timings"`: timingsJson of the
/// report's timings, null when they were not asked for.
nlohmann::json validationJson(const ValidationReport& report);
/// A table per value (with timings: a table per device, its `timingRows` slowest ops) and a verdict line.
std::string validationText(const ValidationReport& report, size_t timingRows = 20);

/// Parses `collective` / `swap-shards` / `none`.
std::optional<InjectedFaultKind> parseInjectedFault(const std::string& text);

} // namespace shardx::exec
