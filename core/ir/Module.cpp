// Module: the top-level builtin.module op, its meshes and functions.
#include "core/ir/Module.h"

#include "core/ir/SdyOps.h"

#include "core/ir/Clone.h"

namespace shardx::ir {

Module::Module() : m_op(std::make_unique<Op>("builtin.module")) { m_op->addRegion()->addBlock(); }

Module::~Module()
{
    if (!m_op)
        return;
    // The whole program dies: its use lists need not be kept right op by op (which searches each
    // operand's list), so they are emptied at once first.
    releaseReferencesForTeardown(*m_op);
    // Then the innermost ops go first: an op destroyed after its regions were emptied does not walk
    // them again (an op and each block dropping references walk everything below them, once per
    // level of nesting).
    std::vector<Op*> withRegions;
    m_op->walkPostOrder([&](Op* op) {
        if (op->numRegions())
            withRegions.push_back(op);
    });
    for (Op* op : withRegions)
        for (const auto& region : op->regions())
            for (const auto& block : region->blocks())
                block->ops().clear();
}

std::unique_ptr<Module> Module::clone() const
{
    auto copy = std::make_unique<Module>();
    CloneMapping mapping;
    copy->m_op = cloneOp(*m_op, mapping, CloneIdentity::Same);
    copy->resources = resources;
    copy->fileName = fileName;
    if (m_ids)
        copy->m_ids = std::make_unique<ProgramIds>(*m_ids);
    return copy;
}

ProgramIds& Module::programIds()
{
    if (!m_ids)
        m_ids = std::make_unique<ProgramIds>(*this);
    return *m_ids;
}

std::string Module::symName() const { return symbolName(*m_op); }

Op* Module::findMeshOp(const std::string& name) const
{
    for (auto& op : body().ops())
        if (op->name() == "sdy.mesh" && symbolName(*op) == name)
            return op.get();
    return nullptr;
}

const Mesh* Module::findMesh(const std::string& name) const
{
    Op* op = findMeshOp(name);
    return op ? meshOpMesh(*op) : nullptr;
}

const Mesh* Module::resolveMesh(const MeshRef& ref) const
{
    if (ref.inlineMesh)
        return &*ref.inlineMesh;
    return findMesh(ref.symbol);
}

Op* Module::findFunc(const std::string& name) const
{
    for (auto& op : body().ops())
        if (op->name() == "func.func" && symbolName(*op) == name)
            return op.get();
    return nullptr;
}

Op* Module::findCallee(const Op& call) const
{
    const std::optional<std::string> callee = calleeName(call);
    return callee ? findFunc(*callee) : nullptr;
}

std::vector<Op*> Module::funcs() const
{
    std::vector<Op*> out;
    for (auto& op : body().ops())
        if (op->name() == "func.func")
            out.push_back(op.get());
    return out;
}

std::vector<Op*> Module::meshes() const
{
    std::vector<Op*> out;
    for (auto& op : body().ops())
        if (op->name() == "sdy.mesh")
            out.push_back(op.get());
    return out;
}

} // namespace shardx::ir
