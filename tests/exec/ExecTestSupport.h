// Helpers of the exec tests: parse a module, build tensors, read their elements.
#pragma once

#include <QtTest>

#include <memory>
#include <string>
#include <vector>

#include "core/exec/ReferenceExecutor.h"
#include "core/io/MlirReader.h"
#include "tests/TestSupport.h"

namespace shardx::testing {

/// Parses `text` as shardx-cli interpret reads a file (unknown dialects kept); null on error (warned).
inline std::unique_ptr<ir::Module> parseProgram(const std::string& text)
{
    DiagnosticList diags;
    io::ReadOptions options;
    options.allowUnregisteredDialects = true;
    options.keepUnknownOps = true;
    auto m = io::parseMlir(text, "test.mlir", diags, options);
    if (!m)
        qWarning("parse failed:\n%s", diags.formatAll().c_str());
    return m;
}

/// A tensor of element type `type` and `shape` holding `values` (row-major).
inline exec::Tensor tensorOf(const std::string& type, std::vector<int64_t> shape, const std::vector<double>& values)
{
    exec::Tensor t(*exec::elementTypeFromName(type), std::move(shape));
    for (size_t i = 0; i < values.size() && static_cast<int64_t>(i) < t.numElements(); ++i) {
        if (t.elementType().isFloat())
            t.setFloat(static_cast<int64_t>(i), values[i]);
        else
            t.setInt(static_cast<int64_t>(i), static_cast<int64_t>(values[i]));
    }
    return t;
}

/// The elements of `t` as doubles.
inline std::vector<double> valuesOf(const exec::Tensor& t)
{
    std::vector<double> v;
    for (int64_t i = 0; i < t.numElements(); ++i)
        v.push_back(t.getFloat(i));
    return v;
}

/// Runs @`func` of `text` on `args` with the reference executor; empty (and a warning) on error.
inline std::vector<exec::Tensor> runFunc(const std::string& text, const std::string& func,
                                         const std::vector<exec::Tensor>& args)
{
    auto m = parseProgram(text);
    if (!m)
        return {};
    exec::ReferenceExecutor ex;
    auto r = ex.runFunction(*m, func, args);
    if (!r) {
        qWarning("run failed: %s", r.error().format().c_str());
        return {};
    }
    return *r;
}

/// The first result of @f in `text`, as doubles.
inline std::vector<double> runValues(const std::string& text, const std::vector<exec::Tensor>& args = {})
{
    auto r = runFunc(text, "f", args);
    return r.empty() ? std::vector<double>{} : valuesOf(r[0]);
}

using Values = std::vector<double>;

} // namespace shardx::testing
