// RulesInternal: shared helpers of the per-family rule files (not a public API).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/Operation.h"
#include "core/ir/StablehloAttrs.h"
#include "core/rules/OpShardingRuleBuilder.h"
#include "core/rules/RuleRegistry.h"

namespace shardx::rules {

/// True when `v` holds `x`.
inline bool contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

using Shape = std::vector<int64_t>;

/// Inputs of one rule function.
struct RuleContext {
    const ir::Op& op;
    bool conservative = false;
    std::vector<Shape> operandShapes;
    std::vector<Shape> resultShapes;

    OpShardingRuleBuilder builder() const { return OpShardingRuleBuilder(operandShapes, resultShapes); }
    const Shape& operand(size_t i) const { return operandShapes[i]; }
    const Shape& result(size_t i) const { return resultShapes[i]; }
    const ir::Attribute* attr(const std::string& name) const { return op.attr(name); }
};

using RuleFn = RuleResult (*)(const RuleContext&);

/// Rule functions by family (each returns a RuleResult; Invalid with a reason on bad input).
// RulesElementwise.cpp
RuleResult pointwiseRule(const RuleContext& c);
RuleResult selectRule(const RuleContext& c);
RuleResult clampRule(const RuleContext& c);
RuleResult bitcastConvertRule(const RuleContext& c);
RuleResult batchNormInferenceRule(const RuleContext& c);
RuleResult broadcastInDimRule(const RuleContext& c);
RuleResult transposeRule(const RuleContext& c);
RuleResult choleskyRule(const RuleContext& c);
RuleResult reverseRule(const RuleContext& c);
RuleResult allGatherRule(const RuleContext& c);
RuleResult allToAllRule(const RuleContext& c);
RuleResult reduceScatterRule(const RuleContext& c);
RuleResult rngBitGeneratorRule(const RuleContext& c);

// RulesDot.cpp
RuleResult dotRule(const RuleContext& c);
RuleResult dotGeneralRule(const RuleContext& c);
RuleResult convolutionRule(const RuleContext& c);

// RulesReshape.cpp
RuleResult reshapeRule(const RuleContext& c);

// RulesGatherScatter.cpp
RuleResult gatherRule(const RuleContext& c);
RuleResult scatterRule(const RuleContext& c);

// RulesSlicing.cpp
RuleResult concatenateRule(const RuleContext& c);
RuleResult sliceRule(const RuleContext& c);
RuleResult dynamicSliceRule(const RuleContext& c);
RuleResult dynamicUpdateSliceRule(const RuleContext& c);
RuleResult padRule(const RuleContext& c);

// RulesReductions.cpp
RuleResult reduceRule(const RuleContext& c);
RuleResult reduceWindowRule(const RuleContext& c);
RuleResult selectAndScatterRule(const RuleContext& c);

// RulesSortFftSolve.cpp
RuleResult sortRule(const RuleContext& c);
RuleResult fftRule(const RuleContext& c);
RuleResult triangularSolveRule(const RuleContext& c);

// RulesCustomCall.cpp
RuleResult customCallRule(const RuleContext& c);
/// The outcome for a custom_call whose target has no rule (no-rule list or unknown), else nullopt.
std::optional<RuleResult> customCallWithoutRule(const ir::Op& op);

/// Reads a list-of-ints attribute; Invalid result text in `err` when absent and required.
std::optional<std::vector<int64_t>> intListAttr(const RuleContext& c, const std::string& name, int64_t count = 0);
/// Reads an integer attribute.
std::optional<int64_t> intAttr(const RuleContext& c, const std::string& name);
/// "dimension N out of range" style check.
bool inRange(int64_t d, const Shape& s);

} // namespace shardx::rules
