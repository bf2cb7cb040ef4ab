// Rules (RulesInternal.h): stablehlo.custom_call by call target (SDY.md 4.12 "Custom calls").
#include <set>

#include "core/rules/RulesInternal.h"

namespace shardx::rules {

namespace {

const std::set<std::string>& pointwiseTargets()
{
    static const std::set<std::string> t = {"annotate_device_placement",
                                            "Cholesky",
                                            "CompactWyHelper",
                                            "InspectSharding",
                                            "InvertDiagBlocksLowerTriangular",
                                            "InvertDiagBlocksUpperTriangular",
                                            "LayoutConstraint",
                                            "mhlo.erf",
                                            "MoveToDevice",
                                            "MoveToHost",
                                            "X64SplitHigh",
                                            "X64SplitLow",
                                            "xla.megascale.provide_metadata",
                                            "_SPMDInternalOp_MultiPad",
                                            "_SPMDInternalOp_RotateRight",
                                            "_SPMDInternalOp_MultiRotate",
                                            "_SPMDInternalOp_MultiSlice",
                                            "_SPMDInternalOp_Wrap",
                                            "X64Combine"};
    return t;
}

const std::set<std::string>& noRuleTargets()
{
    static const std::set<std::string> t = {"sdy_testonly",
                                            "tpu_custom_call",
                                            "xla_python_cpu_callback",
                                            "xla_python_gpu_callback",
                                            "xla_ffi_python_cpu_callback",
                                            "xla_ffi_python_gpu_callback",
                                            "xla.debug.Log"};
    return t;
}

std::string targetOf(const ir::Op& op) { return stablehlo::customCallTarget(op).value_or(std::string()); }

bool usedByRngBitGenerator(const ir::Op& op)
{
    for (const auto& r : op.results())
        for (const ir::Use& u : r->uses())
            if (u.user && u.user->name() == "stablehlo.rng_bit_generator")
                return true;
    return false;
}

RuleResult batchThenMatrix(const RuleContext& c, const std::string& target)
{
    const Shape& in = c.operand(0);
    int64_t n = static_cast<int64_t>(in.size());
    if (n < 2)
        return RuleResult::invalid("custom call @" + target + ": operand rank must be >= 2");
    auto sz = [&](int64_t d) { return in[static_cast<size_t>(d)]; };
    OpShardingRuleBuilder b = c.builder();
    for (int64_t d = 0; d < n - 2; ++d)
        b.addFactorAllTensors(d, sz(d));
    const FactorKind nr = FactorKind::NeedReplication;
    if (target == "Eigh") {
        if (c.resultShapes.size() != 2)
            return RuleResult::invalid("custom call @Eigh expects 2 results");
        b.addFactor({n - 2}, {n - 2, kNullDim}, sz(n - 2));
        b.addFactor({n - 1}, {n - 1, n - 2}, sz(n - 1));
    } else if (target == "Qr" || target == "QrDecompositionBlock") {
        if (c.resultShapes.size() != 2 || c.result(1).size() < static_cast<size_t>(n - 1))
            return RuleResult::invalid("custom call @" + target + " expects 2 results");
        b.addFactor({n - 2}, {n - 2, kNullDim}, sz(n - 2), nr);
        b.addFactor({n - 1}, {n - 1, kNullDim}, sz(n - 1), nr);
        b.addFactor({kNullDim}, {kNullDim, n - 2}, c.result(1)[static_cast<size_t>(n - 2)], nr);
    } else { // ProductOfElementaryHouseholderReflectors
        if (c.operandShapes.size() != 2 || c.resultShapes.size() != 1 ||
            c.operand(1).size() < static_cast<size_t>(n - 1))
            return RuleResult::invalid("custom call @" + target + " expects 2 operands and 1 result");
        b.addFactor({n - 2, kNullDim}, {n - 2}, sz(n - 2), nr);
        b.addFactor({n - 1, kNullDim}, {n - 1}, sz(n - 1), nr);
        b.addFactor({kNullDim, n - 2}, {kNullDim}, c.operand(1)[static_cast<size_t>(n - 2)], nr);
    }
    return RuleResult::created(b.build());
}

bool isKnownTarget(const std::string& t)
{
    return pointwiseTargets().count(t) || t == "Eigh" || t == "Qr" || t == "QrDecompositionBlock" ||
           t == "ProductOfElementaryHouseholderReflectors" || t == "mhlo.topk" || t == "ApproxTopK" ||
           t == "PartialReduce";
}

} // namespace

std::optional<RuleResult> customCallWithoutRule(const ir::Op& op)
{
    const std::string target = targetOf(op);
    if (noRuleTargets().count(target))
        return RuleResult::none("custom call @" + target + " has no sharding rule by design");
    if (!isKnownTarget(target)) {
        RuleResult r;
        r.outcome = RuleOutcome::UnknownCustomCall;
        r.reason = "custom call @" + target + " is unknown to SDY sharding rule registry";
        return r;
    }
    return std::nullopt;
}

RuleResult customCallRule(const RuleContext& c)
{
    if (auto r = customCallWithoutRule(c.op))
        return *r;
    const std::string target = targetOf(c.op);
    if (target == "X64Combine" && usedByRngBitGenerator(c.op)) {
        OpShardingRuleBuilder b = c.builder();
        if (c.resultShapes.empty() || c.result(0).empty())
            return RuleResult::invalid("custom call @X64Combine: expected a ranked result");
        b.addFactorAllTensors(0, c.result(0)[0], FactorKind::NeedReplication, true);
        return RuleResult::created(b.build());
    }
    if (pointwiseTargets().count(target))
        return pointwiseRule(c);
    if (target == "Eigh" || target == "Qr" || target == "QrDecompositionBlock" ||
        target == "ProductOfElementaryHouseholderReflectors") {
        if (c.operandShapes.empty())
            return RuleResult::invalid("custom call @" + target + " expects an operand");
        return batchThenMatrix(c, target);
    }
    if (target == "mhlo.topk") {
        if (c.operandShapes.size() != 1 || c.resultShapes.size() != 2)
            return RuleResult::invalid("custom call @mhlo.topk expects 1 operand and 2 results");
        const Shape& in = c.operand(0);
        const Shape& out = c.result(0);
        if (in.size() != out.size())
            return RuleResult::invalid("custom call @mhlo.topk: ranks differ");
        OpShardingRuleBuilder b = c.builder();
        for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d) {
            size_t ud = static_cast<size_t>(d);
            if (in[ud] == out[ud])
                b.addFactorAllTensors(d, in[ud]);
            else
                b.addFactorAllTensors(d, in[ud], FactorKind::NeedReplication, true);
        }
        return RuleResult::created(b.build());
    }
    if (target == "ApproxTopK" || target == "PartialReduce") {
        if (c.operandShapes.size() != 4 || c.resultShapes.size() != 2)
            return RuleResult::invalid("custom call @" + target + " expects 4 operands and 2 results");
        const Shape& in = c.operand(0);
        const Shape& out = c.result(0);
        if (in.size() != out.size())
            return RuleResult::invalid("custom call @" + target + ": ranks differ");
        OpShardingRuleBuilder b = c.builder();
        for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d) {
            size_t ud = static_cast<size_t>(d);
            if (in[ud] == out[ud]) {
                b.addFactorAllTensors(d, in[ud]);
            } else {
                b.addFactor({d, d, kNullDim, kNullDim}, {kNullDim, kNullDim}, in[ud]);
                b.addFactor({kNullDim, kNullDim, kNullDim, kNullDim}, {d, d}, out[ud], FactorKind::NeedReplication,
                            true);
            }
        }
        return RuleResult::created(b.build());
    }
    RuleResult r;
    r.outcome = RuleOutcome::UnknownCustomCall;
    r.reason = "custom call @" + target + " is unknown to SDY sharding rule registry";
    return r;
}

} // namespace shardx::rules
