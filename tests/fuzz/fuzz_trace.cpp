// libFuzzer harness: the trace reader (JSON trace documents). A trace that reads is stepped through, printed,
// explained, and written back, which must read again as the same trace.
#include <string>

#include "core/trace/Explain.h"
#include "core/trace/Trace.h"
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
    Expected<Trace> trace = Trace::fromJson(std::string(fuzz::asText(data, size)));
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
    return 0;
}
