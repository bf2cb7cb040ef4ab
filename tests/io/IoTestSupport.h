// Helpers shared by the reader tests: parse expecting success, find an op by name.
#pragma once

#include <QtTest>

#include <memory>
#include <string>

#include "core/io/MlirReader.h"
#include "core/ir/Module.h"

namespace shardx::testing {

/// Parses `text`, warning with the diagnostics when it fails.
inline std::unique_ptr<ir::Module> parseOk(const std::string& text, const io::ReadOptions& opts = {})
{
    DiagnosticList diags;
    auto m = io::parseMlir(text, "t.mlir", diags, opts);
    if (!m)
        qWarning("%s", diags.formatAll().c_str());
    return m;
}

/// The first op named `name` in a walk of the module, or nullptr.
inline ir::Op* firstOp(ir::Module& m, const std::string& name)
{
    ir::Op* found = nullptr;
    m.op().walk([&](ir::Op* op) {
        if (!found && op->name() == name)
            found = op;
    });
    return found;
}

} // namespace shardx::testing
