// Helpers of the validation tests (tst_validation on the reference back end, tst_vulkanvalidation on Vulkan): the
// programs validated (every sample with a mesh, a generated 4-layer transformer) and the checks of a report.
#pragma once

#include <QtTest>

#include <memory>
#include <string>
#include <vector>

#include "core/exec/Validation.h"
#include "core/generate/ModelGenerator.h"
#include "core/io/MlirReader.h"

namespace shardx::testing {

/// The samples/*.mlir files that declare a mesh (all of them are validated; none is left out).
inline QStringList samplesWithMesh()
{
    QDir dir(QStringLiteral(SHARDX_SOURCE_DIR "/samples"));
    QStringList out;
    for (const QString& name : dir.entryList({"*.mlir"}, QDir::Files, QDir::Name)) {
        QFile f(dir.filePath(name));
        if (f.open(QIODevice::ReadOnly) && f.readAll().contains("sdy.mesh"))
            out << name;
    }
    return out;
}

/// Reads a sample as shardx-cli reads a file.
inline std::unique_ptr<ir::Module> readSample(const QString& name)
{
    QFile f(QStringLiteral(SHARDX_SOURCE_DIR "/samples/") + name);
    if (!f.open(QIODevice::ReadOnly))
        return nullptr;
    const std::string text = f.readAll().toStdString();
    DiagnosticList diags;
    auto m = io::parseMlir(text, ("samples/" + name).toStdString(), diags);
    if (!m)
        qWarning("%s", diags.formatAll().c_str());
    return m;
}

/// A 4-layer decoder stack, small enough to run fast on lavapipe, on a data x tensor mesh (megatron style).
inline std::unique_ptr<ir::Module> smallTransformer(int64_t data, int64_t tensor)
{
    generate::TransformerSpec spec;
    spec.layers = 4;
    spec.hidden = 32;
    spec.heads = 4;
    spec.seq = 8;
    spec.batch = 4;
    spec.mesh = {{"data", data}, {"tensor", tensor}};
    spec.style = generate::ShardingStyle::Megatron;
    auto m = generate::generateTransformer(spec);
    if (!m) {
        qWarning("%s", m.error().message.c_str());
        return nullptr;
    }
    return std::move(*m);
}

/// Every row of `report` as one line each, for failure messages.
inline QByteArray reportText(const exec::ValidationReport& report)
{
    return QByteArray::fromStdString(exec::validationText(report));
}

} // namespace shardx::testing
