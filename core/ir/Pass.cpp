// Pass registry. Passes land here as their layers are implemented.
#include "core/ir/Pass.h"

namespace shardx::ir {

const std::vector<PassInfo>& registeredPasses()
{
    static const std::vector<PassInfo> passes = [] {
        std::vector<PassInfo> list;
        // No transformation passes yet: parsing, verification and printing are built in.
        return list;
    }();
    return passes;
}

const PassInfo* findPass(const std::string& name)
{
    for (const PassInfo& p : registeredPasses())
        if (p.name == name)
            return &p;
    return nullptr;
}

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
