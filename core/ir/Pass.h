// Pass: a named module transformation with string options, and the registry of passes.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/ir/Module.h"
#include "core/support/Diagnostic.h"

namespace shardx::ir {

/// Options of one pass invocation, `name=value` pairs as given on the command line.
using PassOptions = std::map<std::string, std::string>;

/// A registered pass: its flag name (without the leading '-'), what it does, the options it
/// accepts, and the function that runs it (returns false after reporting errors).
struct PassInfo {
    std::string name;
    std::string description;
    std::vector<std::string> options;
    std::function<bool(Module&, const PassOptions&, DiagnosticList&)> run;
};

/// Every pass the tools know, in a stable order (defined in core/passes/PassRegistry.cpp).
const std::vector<PassInfo>& registeredPasses();
/// The pass named `name`, or nullptr.
const PassInfo* findPass(const std::string& name);

/// Parses a boolean option value ("true"/"false"/"1"/"0"); false when malformed.
bool parseBoolOption(const std::string& text, bool& out);

} // namespace shardx::ir
