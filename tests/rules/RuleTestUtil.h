// Shared helpers of the rule tests: parse a function and compute the rule of one of its ops.
#pragma once

#include <QtTest>

#include <memory>
#include <string>

#include "core/io/MlirReader.h"
#include "core/ir/Module.h"
#include "core/rules/RuleRegistry.h"
#include "core/sharding/RuleVerifier.h"

namespace shardx::testutil {

/// A parsed module and the first op named `opName` in it.
struct ParsedOp {
    std::unique_ptr<ir::Module> module;
    ir::Op* op = nullptr;
    std::string error;
};

inline ParsedOp parseOp(const std::string& text, const std::string& opName)
{
    ParsedOp p;
    DiagnosticList diags;
    io::ReadOptions ro;
    ro.allowUnregisteredDialects = true;
    p.module = io::parseMlir(text, "test.mlir", diags, ro);
    if (!p.module) {
        p.error = diags.formatAll();
        return p;
    }
    p.module->op().walk([&](ir::Op* o) {
        if (!p.op && o->name() == opName)
            p.op = o;
    });
    if (!p.op)
        p.error = "no op " + opName;
    return p;
}

/// The printed rule of `opName` in `text` ("none: REASON" when there is none, "ERROR: ..."
/// when the rule does not verify against the op's types).
inline std::string ruleOf(const std::string& text, const std::string& opName, bool conservative = false)
{
    ParsedOp p = parseOp(text, opName);
    if (!p.op)
        return "PARSE: " + p.error;
    RuleOptions options;
    options.conservativePropagation = conservative;
    RuleResult r = computeOpShardingRule(*p.op, options);
    if (r.outcome != RuleOutcome::Created)
        return "none: " + r.reason;
    if (auto err = verifyOpShardingRule(*r.rule, ir::operandTypeShapes(*p.op), ir::resultTypeShapes(*p.op)))
        return "ERROR: " + *err + " in " + r.rule->toString();
    return r.rule->toString();
}

} // namespace shardx::testutil
