// OpRegistry: the table of known ops (dialect, inherent attributes, traits).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace shardx::ir {

/// What the IR knows about one op name.
struct OpInfo {
    std::string name;                       ///< "stablehlo.add"
    std::vector<std::string> inherentAttrs; ///< attributes stored in Op::props
    bool isTerminator = false;
    bool isPure = false;            ///< no side effects: may be erased when unused
    bool isolatedFromAbove = false; ///< regions cannot see enclosing values
    bool hasCustomForm = false;     ///< has a pretty (non-generic) syntax
};

/// The data-driven table of known ops. Immutable singleton.
class OpRegistry {
public:
    static const OpRegistry& instance();

    /// Info of `name`, or nullptr for an op the table does not list.
    const OpInfo* lookup(std::string_view name) const;
    /// True for builtin, func, stablehlo, sdy and chlo.
    bool isRegisteredDialect(std::string_view dialect) const;
    /// True for a registered dialect whose op set the table does not list (chlo): any op
    /// name is accepted there. The others reject ops missing from the table, as MLIR does.
    bool allowsUnknownOps(std::string_view dialect) const;
    /// True if `attr` is an inherent attribute of op `opName`.
    bool isInherent(std::string_view opName, std::string_view attr) const;

private:
    OpRegistry();
    std::vector<OpInfo> m_ops; ///< sorted by name
};

} // namespace shardx::ir
