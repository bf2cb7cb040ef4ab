// A large generated MLIR module, shared by the reader test and the parse benchmark (no Qt here).
#pragma once

#include <cstddef>
#include <string>

namespace shardx::testing {

/// MLIR text of at least `minBytes` bytes: `sdy.mesh @m` and `func.func @f(%arg0)` whose body is a chain of
/// `stablehlo.add`s (`%vK = %v(K-1) + %arg0`, each with a sharding and a location) ending in a return of the
/// last. `adds`, when given, receives the number of adds.
inline std::string chainedAddModule(size_t minBytes, int* adds = nullptr)
{
    std::string text =
        "sdy.mesh @m = <[\"a\"=2, \"b\"=2]>\nfunc.func @f(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {\n";
    text += "  %v0 = stablehlo.add %arg0, %arg0 : tensor<8x8xf32>\n";
    int i = 1;
    while (text.size() < minBytes) {
        text += "  %v" + std::to_string(i) + " = stablehlo.add %v" + std::to_string(i - 1) +
                ", %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@m, [{\"a\", ?}, {\"b\"}p1]>]>} : tensor<8x8xf32> "
                "loc(\"x\")\n";
        ++i;
    }
    text += "  return %v" + std::to_string(i - 1) + " : tensor<8x8xf32>\n}\n";
    if (adds)
        *adds = i;
    return text;
}

} // namespace shardx::testing
