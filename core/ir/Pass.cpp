// Pass helpers. The registry itself (registeredPasses, findPass) is defined in
// core/passes/PassRegistry.cpp, above every layer that contributes passes.
#include "core/ir/Pass.h"

namespace shardx::ir {

bool parseBoolOption(const std::string& text, bool& out)
{
    if (text == "true" || text == "1") {
        out = true;
        return true;
    }
    if (text == "false" || text == "0") {
        out = false;
        return true;
    }
    return false;
}

} // namespace shardx::ir
