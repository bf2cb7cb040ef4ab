// OpRegistry: the table of known ops (dialect, inherent attributes, traits).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
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
    /// MLIR's `Elementwise` (or broadcasting element-wise) trait, plus the sdy ops that
    /// propagation treats alike (SDY.md 4.11). `stablehlo.bitcast_convert` is element-wise only
    /// when its operand and result shapes are equal, so it does not carry the trait.
    bool isElementwise = false;
    /// The op's sharding rule is the pointwise rule (SDY.md 4.12 "Pointwise rule").
    bool hasPointwiseRule = false;
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
    /// Every known op, sorted by name.
    const std::vector<OpInfo>& ops() const { return m_ops; }
    /// True if `attr` is an inherent attribute of op `opName`.
    bool isInherent(std::string_view opName, std::string_view attr) const;

private:
    OpRegistry();
    std::vector<OpInfo> m_ops;                                    ///< sorted by name
    std::unordered_map<std::string_view, const OpInfo*> m_byName; ///< views of m_ops names
};

} // namespace shardx::ir
