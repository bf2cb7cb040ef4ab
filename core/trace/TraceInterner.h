// TraceInterner: pools equal shardings, rules, factor tables and decisions of a trace by content.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/propagation/FactorPropagation.h"
#include "core/rules/ShardingProjection.h"
#include "core/sharding/OpShardingRule.h"
#include "core/sharding/TensorSharding.h"
#include "core/trace/Trace.h"

namespace shardx {

/// Content hashes of the pooled kinds (stable within a process; never written out).
uint64_t traceHash(const AxisRef& a);
uint64_t traceHash(const TensorSharding& s);
uint64_t traceHash(const ShardingProjection& p);
uint64_t traceHash(const std::vector<FactorDecision>& d);
/// Hash of the rule's mappings (operands, then results) and factor sizes: equals the hash of
/// the TraceRule built from it.
uint64_t traceHash(const OpShardingRule& r);
uint64_t traceHash(const TraceRule& r);

/// Appends to the pools of a TraceData, returning the index of an equal entry when there is
/// one. Entries already in the pools when it is constructed are indexed too. The TraceData
/// must outlive the interner and its pools must not be changed behind its back.
class TraceInterner {
public:
    explicit TraceInterner(TraceData& data);

    int sharding(const TensorSharding& s);
    int rule(const OpShardingRule& r);
    int rule(const TraceRule& r);
    int tables(const ShardingProjection& p);
    int decisions(const std::vector<FactorDecision>& d);

private:
    TraceData* m_data;
    std::unordered_multimap<uint64_t, int> m_shardings, m_rules, m_tables, m_decisions;
};

} // namespace shardx
