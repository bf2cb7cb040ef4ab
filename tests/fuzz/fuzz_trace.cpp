// libFuzzer harness: the trace readers (JSON trace documents, and binary traces: input starting with the
// SHXTRACE magic). A trace that reads is stepped through, printed, explained, and written back in both
// formats, which must read again as the same trace; the binary reader's keyframe seeks must agree with the
// cursor.
#include <sstream>
#include <string>

#include "core/trace/Explain.h"
#include "core/trace/Trace.h"
#include "core/trace/TraceBinary.h"
#include "core/trace/TraceCursor.h"
#include "core/trace/TracePrinter.h"
#include "tests/fuzz/FuzzSupport.h"

using namespace shardx;

namespace {
constexpr size_t kMaxInput = 256 * 1024;
constexpr int kMaxExplained = 8;
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size > kMaxInput)
        return -1;
    const std::string_view text = fuzz::asText(data, size);
    Expected<Trace> trace = Error{"", {}};
    if (isBinaryTrace(text)) {
        // A file that opens may still fail to load; its partial readers must not crash either.
        Expected<TraceFile> file = TraceFile::fromBytes(text, "fuzz.trace");
        if (!file)
            return 0;
        (void)file->loadNames();
        for (size_t k : {size_t(0), file->numSteps() / 2, file->numSteps()})
            (void)file->stateAfter(k);
        trace = file->load();
    } else {
        trace = Trace::fromJson(std::string(text));
    }
    if (!trace)
        return 0;
    const size_t steps = trace->numSteps();
    TraceCursor cursor(*trace);
    cursor.seek(steps);
    const std::vector<int> last = cursor.state();
    cursor.seek(0);
    cursor.seek(steps / 2);
    cursor.seek(steps);
    fuzz::require(cursor.state() == last, "seeking back and forth gives the same final state");
    for (size_t v = 0; v < trace->values().size(); ++v)
        cursor.sharding(static_cast<int>(v));
    printTrace(*trace);
    const int explained = std::min(kMaxExplained, static_cast<int>(trace->values().size()));
    for (int v = 0; v < explained; ++v) {
        const ValueExplanation e = explainValue(*trace, v);
        explanationText(e);
        explanationJson(e).dump();
        traceOrigins(*trace, v);
    }
    const std::string json = trace->toJson();
    Expected<Trace> again = Trace::fromJson(json);
    fuzz::require(bool(again), "a written trace reads back", again ? std::string() : again.error().message);
    fuzz::require(*again == *trace, "trace JSON round trip", json);

    std::ostringstream binary;
    writeTraceBinary(*trace, binary);
    const std::string bytes = binary.str();
    Expected<TraceFile> file = TraceFile::fromBytes(bytes, "written.trace");
    fuzz::require(bool(file), "a written binary trace opens", file ? std::string() : file.error().message);
    Expected<Trace> fromBinary = file->load();
    fuzz::require(bool(fromBinary), "a written binary trace reads back",
                  fromBinary ? std::string() : fromBinary.error().message);
    fuzz::require(*fromBinary == *trace, "trace binary round trip", json);
    for (size_t k : {size_t(0), steps / 3, steps / 2, steps}) {
        cursor.seek(k);
        Expected<std::vector<int>> state = file->stateAfter(k);
        fuzz::require(state && *state == cursor.state(), "binary keyframe seek equals the cursor", json);
    }
    return 0;
}
