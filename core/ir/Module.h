// Module: a top-level `builtin.module` op with its body, resources and source name.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/ir/FuncOps.h"
#include "core/ir/Operation.h"

namespace shardx::ir {

/// A parsed program. Owns the `builtin.module` op; top-level ops (sdy.mesh, func.func)
/// are in its single block.
class Module {
public:
    Module();

    Op& op() { return *m_op; }
    const Op& op() const { return *m_op; }
    Block& body() { return m_op->region(0).front(); }
    const Block& body() const { return m_op->region(0).front(); }

    /// `module @name` (empty when unnamed).
    std::string symName() const;

    /// The `sdy.mesh` op named `name`, or nullptr.
    Op* findMeshOp(const std::string& name) const;
    /// The mesh named `name` (via its sdy.mesh op), or nullptr.
    const Mesh* findMesh(const std::string& name) const;
    /// The mesh a sharding refers to (inline or by symbol), or nullptr.
    const Mesh* resolveMesh(const MeshRef& ref) const;
    /// The top-level `func.func` named `name`, or nullptr.
    Op* findFunc(const std::string& name) const;
    /// The top-level `func.func` that `call` (a func.call) calls, or nullptr (also when its
    /// `callee` is unreadable).
    Op* findCallee(const Op& call) const;
    /// Every top-level `func.func`, in order.
    std::vector<Op*> funcs() const;
    /// Every top-level `sdy.mesh`, in order.
    std::vector<Op*> meshes() const;

    /// Blobs of `{-# dialect_resources: { builtin: { name: "0x..." } } #-}`, by key.
    std::map<std::string, std::string> resources;
    /// File the module was read from (for diagnostics).
    std::string fileName;

private:
    std::unique_ptr<Op> m_op;
};

} // namespace shardx::ir
