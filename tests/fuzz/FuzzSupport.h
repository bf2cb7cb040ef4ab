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

/// The first line where `a` and `b` differ, with its number, for require()'s detail; says so when
/// the texts are equal.
inline std::string firstDifference(const std::string& a, const std::string& b)
{
    size_t line = 1, start = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        if (a[i] != b[i]) {
            auto lineAt = [&](const std::string& s) {
                const size_t end = s.find('\n', start);
                return s.substr(start, end == std::string::npos ? std::string::npos : end - start);
            };
            return "line " + std::to_string(line) + ":\n---- first:\n" + lineAt(a) + "\n---- second:\n" + lineAt(b);
        }
        if (a[i] == '\n') {
            ++line;
            start = i + 1;
        }
    }
    return a.size() == b.size() ? std::string("the texts are equal (a difference the text does not show)")
                                : "one text is a prefix of the other (" + std::to_string(a.size()) + " and " +
                                      std::to_string(b.size()) + " bytes)";
}

/// Every op of `module`, the builtin.module itself left out.
inline size_t countOps(const ir::Module& module)
{
    size_t n = 0;
    const_cast<ir::Op&>(module.op()).walk([&](ir::Op*) { ++n; });
    return n - 1;
}

} // namespace shardx::fuzz
