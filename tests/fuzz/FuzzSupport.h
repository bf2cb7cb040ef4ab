// Helpers shared by the libFuzzer harnesses: input limits, invariant checks that abort, op counts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/ir/Module.h"

namespace shardx::fuzz {

/// The input as text (bytes kept as they are, NULs and invalid UTF-8 included).
inline std::string_view asText(const uint8_t* data, size_t size) { return {reinterpret_cast<const char*>(data), size}; }

/// Aborts (so that libFuzzer reports the input) when an invariant of the core does not hold.
/// `what` says which; `detail` is printed after it (for instance the two texts that differ).
inline void require(bool ok, const char* what, const std::string& detail = {})
{
    if (ok)
        return;
    // The detail may hold NULs (printed modules of inputs that do): written whole.
    std::fprintf(stderr, "\nshardx fuzz invariant broken: %s\n", what);
    std::fwrite(detail.data(), 1, detail.size(), stderr);
    std::fputc('\n', stderr);
    std::abort();
}

/// `a` and `b`, each under a heading, for require()'s detail.
inline std::string twoTexts(const std::string& a, const std::string& b)
{
    return "---- first:\n" + a + "\n---- second:\n" + b;
}

/// Every op of `module`, the builtin.module itself left out.
inline size_t countOps(const ir::Module& module)
{
    size_t n = 0;
    const_cast<ir::Op&>(module.op()).walk([&](ir::Op*) { ++n; });
    return n - 1;
}

} // namespace shardx::fuzz
