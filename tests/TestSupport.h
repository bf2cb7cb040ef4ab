// Helpers shared by every test layer.
#pragma once

#include <QtTest>

#include <string>

namespace shardx::testing {

/// True if `text` contains `needle`; otherwise warns with both, so a failing QVERIFY shows why.
inline bool has(const std::string& text, const std::string& needle)
{
    if (text.find(needle) != std::string::npos)
        return true;
    qWarning("missing: %s\nin:\n%s", needle.c_str(), text.c_str());
    return false;
}

} // namespace shardx::testing
