// libFuzzer harness: propagation through the Session API on modules of bounded size (under 64 KiB of text and
// 2,000 ops). A module that opens and verifies is propagated (the strategy picked by a hash of the input); the
// trace is stepped, queried, explained and written, and must read back as the same trace; the result must
// print as MLIR that reads back.
#include <string>

#include "core/io/MlirReader.h"
#include "core/session/Session.h"
#include "tests/fuzz/FuzzSupport.h"

using namespace shardx;

namespace {

constexpr size_t kMaxInput = 64 * 1024;
constexpr size_t kMaxOps = 2000;
constexpr int kMaxQueried = 16;

/// basic, aggressive, op-priority, user-priority, pipeline (the pipeline for half of the inputs).
const std::string& strategyFor(std::string_view text)
{
    static const std::string kStrategies[] = {"basic", "aggressive", "op-priority", "user-priority", "pipeline"};
    uint32_t hash = 2166136261u;
    for (char c : text)
        hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
    return kStrategies[std::min<size_t>(hash % 8, 4)];
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size > kMaxInput)
        return -1;
    const std::string_view text = fuzz::asText(data, size);
    Session session;
    OpenOptions open;
    open.allowUnregisteredDialects = true;
    if (!session.openText(text, "fuzz.mlir", open))
        return 0;
    if (fuzz::countOps(*session.sourceModule()) > kMaxOps)
        return -1;
    PropagationRequest request;
    request.strategy = strategyFor(text);
    const PropagationResult result = session.propagate(request);
    if (!result.ok) {
        fuzz::require(result.diagnostics.hasErrors(), "a failed propagation has an error");
        return 0;
    }
    const Trace* trace = session.trace();
    fuzz::require(trace != nullptr, "a recorded propagation has a trace");
    const size_t steps = session.numSteps();
    session.seek(0);
    session.seek(steps / 2);
    session.seek(steps);
    const ir::ProgramIds* ids = session.ids();
    fuzz::require(ids != nullptr, "a propagated module has ids");
    const int values = std::min(kMaxQueried, static_cast<int>(trace->values().size()));
    for (int v = 0; v < values; ++v) {
        session.shardingAt(v);
        if (Expected<ValueExplanation> e = session.explain(v))
            explanationText(*e);
        session.origins(v);
    }
    const int ops = std::min(kMaxQueried, static_cast<int>(trace->ops().size()));
    for (int op = 0; op < ops; ++op)
        if (Expected<OpFactorTable> table = session.factorTable(op, steps / 2))
            table->text();

    Expected<Trace> again = Trace::fromJson(trace->toJson());
    fuzz::require(bool(again), "a recorded trace reads back", again ? std::string() : again.error().message);
    fuzz::require(*again == *trace, "trace JSON round trip", fuzz::firstDifference(trace->toJson(), again->toJson()));
    session.text(Session::Format::Json);
    const std::string mlir = session.text(Session::Format::Mlir);
    // Read back as the session read the input: with viewer tolerance, which keeps an op in a custom
    // form shardx does not know (`check.expect_eq %a, %b : ...`) as written and prints it so.
    io::ReadOptions read;
    read.allowUnregisteredDialects = true;
    read.keepUnknownOps = !open.strict;
    DiagnosticList diags;
    fuzz::require(io::parseMlir(mlir, "propagated.mlir", diags, read) != nullptr, "the propagated module reads back",
                  diags.formatAll() + "\n" + mlir);
    return 0;
}
