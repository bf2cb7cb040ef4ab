// Module: a top-level `builtin.module` op with its body, resources and source name.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/ir/FuncOps.h"
#include "core/ir/Operation.h"
#include "core/ir/ProgramIds.h"

namespace shardx::ir {

/// A parsed program. Owns the `builtin.module` op; top-level ops (sdy.mesh, func.func)
/// are in its single block.
class Module {
public:
    Module();
    ~Module();
    Module(const Module&) = delete;
    Module& operator=(const Module&) = delete;

    /// A deep copy: the same program, so values and ops keep their source names and program
    /// ids, and the copy gets its own copy of the ProgramIds (names of what passes insert into
    /// one copy do not appear in the other).
    std::unique_ptr<Module> clone() const;

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

    /// The names users know for this module's values and ops; built on first use.
    ProgramIds& programIds();
    /// The ProgramIds when they were built, else nullptr.
    ProgramIds* programIdsIfBuilt() { return m_ids.get(); }
    /// Tells the ProgramIds (when built) that a pass inserted `inserted` for the user's `from`,
    /// so that it is named after it (see ProgramIds::noteDerived). Call after the insertion.
    template <typename T, typename F> void noteDerived(T& inserted, const F& from, Derivation how)
    {
        if (m_ids)
            m_ids->noteDerived(inserted, from, how);
    }
    /// `replacement` takes over the identity of `original` (ProgramIds::noteReplaced).
    template <typename T> void noteReplaced(T& replacement, T& original)
    {
        if (m_ids)
            m_ids->noteReplaced(replacement, original);
    }
    /// A function made again under an earlier one's symbol (ProgramIds::noteRestored).
    void noteRestored(Op& func)
    {
        if (m_ids)
            m_ids->noteRestored(func);
    }
    /// The same for a copy of `original` with its structure (ProgramIds::noteCloned).
    void noteCloned(const Op& original, Op& clone)
    {
        if (m_ids)
            m_ids->noteCloned(original, clone);
    }

    /// Blobs of `{-# dialect_resources: { builtin: { name: "0x..." } } #-}`, by key.
    std::map<std::string, std::string> resources;
    /// File the module was read from (for diagnostics).
    std::string fileName;

private:
    std::unique_ptr<Op> m_op;
    std::unique_ptr<ProgramIds> m_ids;
};

} // namespace shardx::ir
