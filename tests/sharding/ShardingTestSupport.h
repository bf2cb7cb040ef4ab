// Helpers of the sharding tests: shardings and meshes from their Shardy text.
#pragma once

#include <QtTest>

#include <string>

#include "core/io/MlirReader.h"
#include "core/mesh/Mesh.h"
#include "core/sharding/TensorSharding.h"

namespace shardx::testing {

/// The sharding `<@m, [...]>` (the body of `#sdy.sharding<...>`), or a fatal test error.
inline TensorSharding sharding(const std::string& body)
{
    DiagnosticList diags;
    ir::AttrPtr a = io::parseAttribute("#sdy.sharding" + body, diags);
    const ir::ShardingAttr* s = a ? a->as<ir::ShardingAttr>() : nullptr;
    if (!s)
        qFatal("bad sharding %s: %s", body.c_str(), diags.formatAll().c_str());
    return s->sharding;
}

/// The mesh `<["x"=2, ...], device_ids=[...]>` (the body of `#sdy.mesh<...>`).
inline Mesh mesh(const std::string& body)
{
    DiagnosticList diags;
    ir::AttrPtr a = io::parseAttribute("#sdy.mesh" + body, diags);
    const ir::MeshAttr* m = a ? a->as<ir::MeshAttr>() : nullptr;
    if (!m)
        qFatal("bad mesh %s: %s", body.c_str(), diags.formatAll().c_str());
    return m->mesh;
}

} // namespace shardx::testing
