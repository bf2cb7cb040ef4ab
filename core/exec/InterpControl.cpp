// Interpreter: calls, control flow (if, case, while), identity custom calls and the check.* ops.
#include <cmath>
#include <iostream>

#include "core/exec/Interpreter.h"
#include "core/ir/FuncOps.h"
#include "core/ir/StablehloAttrs.h"

namespace shardx::exec {

namespace {

std::vector<Tensor> ctlCallOp(OpContext& ctx)
{
    const ir::Op* callee = ctx.interp.module().findCallee(ctx.op);
    if (!callee) {
        auto name = ir::calleeName(ctx.op);
        ctx.fail("no function @" + (name ? *name : std::string("?")) + " to call");
    }
    std::vector<Tensor> args;
    for (unsigned i = 0; i < ctx.numIn(); ++i)
        args.push_back(ctx.in(i));
    try {
        return ctx.interp.callFunction(*callee, std::move(args), ctx.proc);
    } catch (ExecError& e) {
        // Name the call site too: the callee's op is where it failed, the call is how it got there.
        if (!e.pos.isKnown())
            e.pos = ctx.interp.posOf(ctx.op);
        throw;
    }
}

std::vector<Tensor> ctlIfOp(OpContext& ctx)
{
    const bool pred = ctx.in(0).getInt(0) != 0;
    return ctx.runRegion(pred ? 0 : 1, {});
}

std::vector<Tensor> ctlCaseOp(OpContext& ctx)
{
    int64_t index = ctx.in(0).getInt(0);
    const int64_t n = ctx.op.numRegions();
    if (n == 0)
        ctx.fail("case without branches");
    if (index < 0 || index >= n)
        index = n - 1; // out of range: the last branch, as StableHLO defines it
    return ctx.runRegion(static_cast<unsigned>(index), {});
}

std::vector<Tensor> ctlWhileOp(OpContext& ctx)
{
    std::vector<Tensor> values;
    for (unsigned i = 0; i < ctx.numIn(); ++i)
        values.push_back(ctx.in(i));
    for (;;) {
        auto cond = ctx.runRegion(0, values);
        if (cond.size() != 1 || cond[0].numElements() != 1)
            ctx.fail("condition must return one i1 scalar");
        if (cond[0].getInt(0) == 0)
            return values;
        values = ctx.runRegion(1, std::move(values));
        if (values.size() != ctx.numIn())
            ctx.fail("body returns " + std::to_string(values.size()) + " values, expected " +
                     std::to_string(ctx.numIn()));
    }
}

std::vector<Tensor> ctlCustomCallOp(OpContext& ctx)
{
    const std::string target = stablehlo::customCallTarget(ctx.op).value_or("");
    // Sharding annotations are identities on the data.
    if ((target == "Sharding" || target == "SPMDFullToShardShape" || target == "SPMDShardToFullShape" ||
         target.rfind("xla.sdy.", 0) == 0) &&
        ctx.numIn() == 1 && ctx.op.numResults() == 1) {
        Tensor out = ctx.result(0);
        if (out.shape() == ctx.in(0).shape() && out.elementType() == ctx.in(0).elementType())
            return {ctx.in(0)};
    }
    ctx.fail("custom_call @" + target + " cannot be run by the reference interpreter");
}

/// First element where `a` and `b` differ as values (-1 if none); `tolerance` < 0 compares exactly.
int64_t ctlFirstDifference(const Tensor& a, const Tensor& b, double tolerance)
{
    for (int64_t i = 0; i < a.numElements(); ++i) {
        const ElementType& t = a.elementType();
        bool equal;
        if (t.isFloat()) {
            const double x = a.getFloat(i), y = b.getFloat(i);
            if (tolerance < 0)
                equal = x == y;
            else
                equal = (std::isnan(x) && std::isnan(y)) || x == y || std::fabs(x - y) <= tolerance;
        } else if (t.isComplex()) {
            const auto x = a.getComplex(i), y = b.getComplex(i);
            equal = tolerance < 0 ? x == y : std::abs(x - y) <= tolerance;
        } else {
            equal = a.getInt(i) == b.getInt(i);
        }
        if (!equal)
            return i;
    }
    return -1;
}

std::string ctlIndexText(const Tensor& t, int64_t i)
{
    std::string s = "[";
    const auto strides = rowMajorStrides(t.shape());
    for (size_t d = 0; d < strides.size(); ++d) {
        if (d)
            s += ", ";
        s += std::to_string((i / strides[d]) % t.shape()[d]);
    }
    return s + "]";
}

/// check.expect_eq / expect_almost_eq and their `_const` forms (expected value in attribute `value`).
std::vector<Tensor> ctlCheckOp(OpContext& ctx)
{
    const std::string& name = ctx.op.name();
    const bool isConst = name.size() > 6 && name.compare(name.size() - 6, 6, "_const") == 0;
    const bool almost = name.find("almost") != std::string::npos || name.find("close") != std::string::npos;
    ctx.interp.countCheck();
    if (ctx.numIn() != (isConst ? 1u : 2u))
        ctx.fail(std::string("expects ") + (isConst ? "one operand" : "two operands"));
    const Tensor& a = ctx.in(0);
    Tensor expectedConst;
    if (isConst) {
        const ir::Attribute* v = ctx.op.attr("value");
        const auto* dense = v ? v->as<ir::DenseElementsAttr>() : nullptr;
        if (!dense)
            ctx.fail("missing attribute 'value'");
        std::string error;
        auto t = tensorFromDense(*dense, error);
        if (!t)
            ctx.fail(error);
        expectedConst = std::move(*t);
    }
    const Tensor& b = isConst ? expectedConst : ctx.in(1);
    double tolerance = -1.0;
    if (almost) {
        tolerance = 1e-4;
        if (const ir::Attribute* tol = ctx.op.attr("tolerance"))
            if (const auto* f = tol->as<ir::FloatAttr>())
                tolerance = f->value;
    }
    std::string message;
    if (!a.sameShapeAndType(b)) {
        message = "check failed: " + a.typeString() + " and " + b.typeString() + " differ in type";
    } else {
        const int64_t i = ctlFirstDifference(a, b, tolerance);
        if (i >= 0) {
            int64_t count = 0;
            for (int64_t j = i; j < a.numElements(); ++j)
                count += ctlFirstDifference(scalarOf(a, j), scalarOf(b, j), tolerance) >= 0;
            message = "check failed: " + std::to_string(count) + " of " + std::to_string(a.numElements()) +
                      " elements differ; first at " + ctlIndexText(a, i) + ": " + a.elementString(i) + " vs " +
                      b.elementString(i) + "\n  got:      " + a.toString() + "\n  expected: " + b.toString();
        }
    }
    if (!message.empty())
        ctx.interp.addCheckFailure({ctx.interp.posOf(ctx.op), "'" + name + "' " + message});
    return {};
}

/// create_token / after_all: a token (they only order side effects, which run in program order here).
std::vector<Tensor> ctlTokenOp(OpContext& ctx) { return {ctx.result(0)}; }

std::vector<Tensor> ctlPrintOp(OpContext& ctx)
{
    for (unsigned i = 0; i < ctx.numIn(); ++i)
        std::cout << ctx.in(i).typeString() << " " << ctx.in(i).toString(1 << 20) << "\n";
    return {};
}

} // namespace

void registerControlOps(HandlerMap& map)
{
    map["func.call"] = ctlCallOp;
    map["call"] = ctlCallOp;
    map["stablehlo.if"] = ctlIfOp;
    map["stablehlo.case"] = ctlCaseOp;
    map["stablehlo.while"] = ctlWhileOp;
    map["stablehlo.custom_call"] = ctlCustomCallOp;
    for (const char* n : {"check.expect_eq", "check.expect_eq_const", "check.expect_almost_eq",
                          "check.expect_almost_eq_const", "check.expect_close"})
        map[n] = ctlCheckOp;
    map["interpreter.print"] = ctlPrintOp;
    map["stablehlo.create_token"] = ctlTokenOp;
    map["stablehlo.after_all"] = ctlTokenOp;
}

} // namespace shardx::exec
