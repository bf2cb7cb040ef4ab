// Deep copies of ops: regions, blocks, successors and forward references mapped to the copy.
#include "core/ir/Clone.h"

namespace shardx::ir {

namespace {

void copyValueIdentity(const Value& from, Value& to, CloneIdentity identity)
{
    to.setLoc(from.loc());
    to.setPos(from.pos());
    if (identity == CloneIdentity::Same) {
        to.sourceName = from.sourceName;
        to.programId = from.programId;
    }
}

std::unique_ptr<Op> cloneShallow(const Op& op, CloneMapping& mapping, CloneIdentity identity)
{
    auto c = std::make_unique<Op>(op.name());
    for (Value* v : op.operands())
        c->addOperand(mapping.lookup(v));
    for (const auto& r : op.results()) {
        Value* nr = c->addResult(r->type());
        copyValueIdentity(*r, *nr, identity);
        mapping.values.insert(r.get(), nr);
    }
    c->props() = op.props();
    c->attrs() = op.attrs();
    c->pos = op.pos;
    c->loc = op.loc;
    c->setOpaqueSyntax(op.opaqueSyntax());
    if (identity == CloneIdentity::Same)
        c->programId = op.programId;
    for (const auto& region : op.regions()) {
        Region* nr = c->addRegion();
        // Every block first, so that successors and arguments of later blocks resolve.
        for (const auto& block : region->blocks()) {
            Block* nb = nr->addBlock();
            mapping.blocks.insert(block.get(), nb);
            for (const auto& a : block->args()) {
                Value* na = nb->addArgument(a->type());
                copyValueIdentity(*a, *na, identity);
                mapping.values.insert(a.get(), na);
            }
        }
        for (size_t b = 0; b < region->blocks().size(); ++b)
            for (const auto& child : region->blocks()[b]->ops())
                nr->blocks()[b]->push_back(cloneShallow(*child, mapping, identity));
    }
    for (Block* s : op.successors()) {
        Block* const* ns = mapping.blocks.find(s);
        c->addSuccessor(ns ? *ns : s);
    }
    return c;
}

/// Operands that referred forward (graph regions) were cloned before their definition: map them now.
void remapForwardOperands(Op& op, const CloneMapping& mapping)
{
    for (unsigned i = 0; i < op.numOperands(); ++i) {
        Value* v = op.operand(i);
        Value* m = mapping.lookup(v);
        if (m != v)
            op.setOperand(i, m);
    }
    for (const auto& region : op.regions())
        for (const auto& block : region->blocks())
            for (const auto& child : block->ops())
                remapForwardOperands(*child, mapping);
}

} // namespace

std::unique_ptr<Op> cloneOp(const Op& op, CloneMapping& mapping, CloneIdentity identity)
{
    std::unique_ptr<Op> c = cloneShallow(op, mapping, identity);
    remapForwardOperands(*c, mapping);
    return c;
}

} // namespace shardx::ir
