// StepCache: what factor propagation made of one step's inputs, kept for the next step with equal
// inputs (a transformer's layers repeat the same ops with the same shardings, and the op-priority
// rounds visit every op again).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/ir/Attribute.h"
#include "core/mesh/Mesh.h"
#include "core/propagation/FactorPropagation.h"
#include "core/propagation/PropagationObserver.h"
#include "core/sharding/OpShardingRule.h"
#include "core/sharding/TensorSharding.h"

namespace shardx {

/// The result of the factor propagation of one step. It depends only on the inputs a
/// StepCache::Key names: the factor table is projected from the shardings, the rule and the mesh;
/// the factor propagation is a function of the table, the rule, the mesh and the factor
/// directions; back-projection adds the mesh name.
struct StepOutcome {
    /// `before`, `after` and `decisions` filled (the latter two only where an observer asked for
    /// them); the fields that name the op, its values and the changes are set per step.
    PropagationStep record;
    std::vector<char> updated;                 ///< per tensor (operands first): factor propagation expanded it
    std::vector<TensorSharding> backProjected; ///< per tensor: its new sharding where updated
};

/// Outcomes by their inputs, compared by content.
class StepCache {
public:
    /// The inputs of one step's factor propagation.
    struct Key {
        const OpShardingRule* rule = nullptr;
        /// The attribute holding `rule`, if any: an entry made with it keeps it, and a later key
        /// with the same rule address is then known to hold the same rule.
        const ir::AttrPtr* ruleAttr = nullptr;
        const Mesh* mesh = nullptr; ///< the common mesh (one module: compared as a pointer)
        const std::string* meshName = nullptr;
        const std::vector<const TensorSharding*>* shardings = nullptr; ///< operands first; null: missing
        const std::vector<PropagationDirection>* directions = nullptr; ///< per factor
        bool aggressive = false;
        bool conservative = false;
        bool elementwise = false;
    };

    static uint64_t hashOf(const Key& key);
    /// The outcome stored for `key` (its hash `hash`), or nullptr.
    StepOutcome* find(const Key& key, uint64_t hash);
    /// Stores `outcome` for `key`; the reference stays valid until the next insert().
    StepOutcome& insert(const Key& key, uint64_t hash, StepOutcome outcome);
    void clear();
    size_t size() const { return m_size; }

private:
    struct Entry {
        OpShardingRule rule;
        ir::AttrPtr ruleAttr; ///< keeps the address `ruleAddress` valid (null: compared by content)
        const OpShardingRule* ruleAddress = nullptr;
        const Mesh* mesh = nullptr;
        std::string meshName;
        std::vector<std::optional<TensorSharding>> shardings;
        std::vector<PropagationDirection> directions;
        bool aggressive = false;
        bool conservative = false;
        bool elementwise = false;
        StepOutcome outcome;
    };
    static bool matches(const Entry& e, const Key& key);

    std::unordered_map<uint64_t, std::vector<std::unique_ptr<Entry>>> m_entries;
    size_t m_size = 0;
};

} // namespace shardx
