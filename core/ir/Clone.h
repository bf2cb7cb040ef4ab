// Deep copies of ops and modules.
#pragma once

#include <memory>

#include "core/ir/Operation.h"
#include "core/support/PointerMap.h"

namespace shardx::ir {

/// What a clone made of each value and block of the original.
struct CloneMapping {
    PointerMap<Value, Value*> values;
    PointerMap<Block, Block*> blocks;

    /// The clone of `v`, or `v` itself when it was not cloned (defined outside the copy).
    Value* lookup(Value* v) const
    {
        Value* const* c = values.find(v);
        return c ? *c : v;
    }
};

/// How a clone relates to its original.
enum class CloneIdentity {
    New,  ///< a new program entity: no source names, no program ids (a pass duplicating code)
    Same, ///< the same program (a module copy): source names and program ids are kept
};

/// Deep copy of `op`: operands (mapped through `mapping`, values defined outside the copy are
/// kept), results, props, attrs, location, regions with their blocks and arguments, and
/// successors. Every value and block of the copy is added to `mapping`.
std::unique_ptr<Op> cloneOp(const Op& op, CloneMapping& mapping, CloneIdentity identity = CloneIdentity::New);

} // namespace shardx::ir
