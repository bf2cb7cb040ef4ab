// MLIR text printer: prints an ir::Module from the IR exactly as mlir-opt / sdy_opt would.
#pragma once

#include <iosfwd>
#include <string>

#include "core/ir/Module.h"

namespace shardx::io {

struct PrintOptions {
    /// Print `loc(...)` locations (mlir-opt's -mlir-print-debuginfo).
    bool printDebugInfo = false;
    /// Print every op in the generic form.
    bool genericForm = false;
};

/// The whole module, `module {` ... `}` with a trailing newline.
std::string printModule(const ir::Module& module, const PrintOptions& options = {});
/// The same written to `out` as it is printed, a few hundred kilobytes at a time (the text of a large
/// module is never held whole). The stream's state tells whether writing failed.
void printModule(const ir::Module& module, const PrintOptions& options, std::ostream& out);
/// One attribute, free-standing (`#sdy.sharding<...>`, `dense<...>`, `[1, 2]`, `2 : i64`).
std::string printAttribute(const ir::Attribute& attr);
/// One type (`tensor<8xf32>`).
std::string printType(const ir::Type& type);

} // namespace shardx::io
