// Pipeline sub-steps that rewrite shardings, meshes, symbols and rules (SDY.md 3.7).
#include "core/propagation/PipelineSteps.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "core/ir/Canonicalizer.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/propagation/ShardingWrites.h"
#include "core/rules/RuleRegistry.h"

namespace shardx {

using ir::Op;

namespace {

/// What forEachSharding() applies: `fn`, to the shardings `mayChange` (when given) lets through.
struct ShardingTransform {
    const std::function<bool(TensorSharding&)>& fn;
    const std::function<bool(const TensorSharding&)>& mayChange;
};

ir::AttrPtr transformAttr(const ir::AttrPtr& a, const ShardingTransform& t)
{
    if (!a)
        return nullptr;
    const std::function<bool(TensorSharding&)>& fn = t.fn;
    if (const auto* s = a->as<ir::ShardingAttr>()) {
        if (t.mayChange && !t.mayChange(s->sharding))
            return nullptr;
        TensorSharding copy = s->sharding;
        return fn(copy) ? ir::makeAttr(ir::ShardingAttr{std::move(copy)}) : nullptr;
    }
    if (const auto* l = a->as<ir::ShardingPerValueAttr>()) {
        if (t.mayChange && std::none_of(l->value.shardings.begin(), l->value.shardings.end(), t.mayChange))
            return nullptr;
        ShardingPerValue copy = l->value;
        bool any = false;
        for (TensorSharding& s : copy.shardings)
            any = fn(s) || any;
        return any ? ir::makeAttr(ir::ShardingPerValueAttr{std::move(copy)}) : nullptr;
    }
    if (const auto* arr = a->as<ir::ArrayAttr>()) {
        ir::ArrayAttr copy = *arr;
        bool any = false;
        for (ir::AttrPtr& e : copy.elements)
            if (ir::AttrPtr n = transformAttr(e, t)) {
                e = n;
                any = true;
            }
        return any ? ir::makeAttr(std::move(copy)) : nullptr;
    }
    if (const auto* d = a->as<ir::DictionaryAttr>()) {
        ir::DictionaryAttr copy = *d;
        bool any = false;
        for (ir::NamedAttribute& e : copy.entries)
            if (ir::AttrPtr n = transformAttr(e.value, t)) {
                e.value = n;
                any = true;
            }
        return any ? ir::makeAttr(std::move(copy)) : nullptr;
    }
    return nullptr;
}

/// True when it changed an entry.
bool transformList(ir::NamedAttrList& list, const ShardingTransform& t)
{
    bool any = false;
    for (ir::NamedAttribute& e : list)
        if (ir::AttrPtr n = transformAttr(e.value, t)) {
            e.value = n;
            any = true;
        }
    return any;
}

} // namespace

void forEachSharding(ir::Module& module, const std::function<bool(TensorSharding&)>& fn,
                     const std::function<bool(const TensorSharding&)>& mayChange)
{
    const ShardingTransform t{fn, mayChange};
    module.op().walk([&](Op* op) {
        if (transformList(op->props(), t) | transformList(op->attrs(), t))
            notifyShardingsWritten(*op);
    });
}

void symbolDce(ir::Module& module)
{
    // Only private functions can be removed: no walk when there is none.
    bool anyPrivate = false;
    for (Op* func : module.funcs())
        anyPrivate = anyPrivate || ir::isPrivateSymbol(*func);
    bool changed = anyPrivate;
    while (changed) {
        changed = false;
        // As MLIR's symbol DCE: any symbol reference keeps a function (calls, func.constant,
        // composite decompositions, custom_call called_computations, ...).
        std::set<std::string> used;
        std::function<void(const ir::Attribute&)> collect = [&](const ir::Attribute& a) {
            if (const auto* ref = a.as<ir::SymbolRefAttr>()) {
                if (!ref->path.empty())
                    used.insert(ref->path.front());
            } else if (const auto* arr = a.as<ir::ArrayAttr>()) {
                for (const auto& e : arr->elements)
                    if (e)
                        collect(*e);
            } else if (const auto* dict = a.as<ir::DictionaryAttr>()) {
                for (const ir::NamedAttribute& e : dict->entries)
                    if (e.value)
                        collect(*e.value);
            }
        };
        module.op().walk([&](Op* op) {
            for (const ir::NamedAttrList* list : {&op->props(), &op->attrs()})
                for (const ir::NamedAttribute& e : *list)
                    if (e.value)
                        collect(*e.value);
        });
        for (Op* func : module.funcs()) {
            if (ir::isPrivateSymbol(*func) && !used.count(ir::symbolName(*func))) {
                func->dropAllReferences();
                func->erase();
                changed = true;
            }
        }
    }
}

namespace {

bool isMeshSymbolChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' || c == '-';
}

/// `text` with every `@old` symbol reference (a whole name: not `@old_1`) renamed by `renames`; nullopt when
/// none is there.
std::optional<std::string> renameMeshSymbolsInText(const std::string& text,
                                                   const std::map<std::string, std::string>& renames)
{
    std::string out;
    bool changed = false;
    size_t i = 0;
    while (i < text.size()) {
        if (text[i] != '@') {
            out += text[i++];
            continue;
        }
        size_t end = i + 1;
        while (end < text.size() && isMeshSymbolChar(text[end]))
            ++end;
        auto it = renames.find(text.substr(i + 1, end - i - 1));
        if (it != renames.end()) {
            out += '@';
            out += it->second;
            changed = true;
        } else {
            out.append(text, i, end - i);
        }
        i = end;
    }
    if (!changed)
        return std::nullopt;
    return out;
}

/// `attr` with its symbol references to renamed meshes renamed (in symbol references, and in the text of
/// dialect attributes shardx keeps opaque, such as `#stablehlo.replica_group_mesh_axes<mesh = @m, ...>`);
/// nullptr when nothing in it changed.
ir::AttrPtr renameMeshSymbolsInAttr(const ir::AttrPtr& attr, const std::map<std::string, std::string>& renames)
{
    if (!attr)
        return nullptr;
    if (const auto* ref = attr->as<ir::SymbolRefAttr>()) {
        if (ref->path.empty())
            return nullptr;
        auto it = renames.find(ref->path.front());
        if (it == renames.end())
            return nullptr;
        ir::SymbolRefAttr renamed = *ref;
        renamed.path.front() = it->second;
        return ir::makeAttr(std::move(renamed));
    }
    if (const auto* opaque = attr->as<ir::OpaqueAttr>()) {
        std::optional<std::string> body = renameMeshSymbolsInText(opaque->body, renames);
        if (!body)
            return nullptr;
        ir::OpaqueAttr renamed = *opaque;
        renamed.body = std::move(*body);
        return ir::makeAttr(std::move(renamed));
    }
    if (const auto* array = attr->as<ir::ArrayAttr>()) {
        std::optional<ir::ArrayAttr> renamed;
        for (size_t i = 0; i < array->elements.size(); ++i) {
            if (ir::AttrPtr element = renameMeshSymbolsInAttr(array->elements[i], renames)) {
                if (!renamed)
                    renamed = *array;
                renamed->elements[i] = std::move(element);
            }
        }
        return renamed ? ir::makeAttr(std::move(*renamed)) : nullptr;
    }
    if (const auto* dict = attr->as<ir::DictionaryAttr>()) {
        std::optional<ir::DictionaryAttr> renamed;
        for (size_t i = 0; i < dict->entries.size(); ++i) {
            if (ir::AttrPtr value = renameMeshSymbolsInAttr(dict->entries[i].value, renames)) {
                if (!renamed)
                    renamed = *dict;
                renamed->entries[i].value = std::move(value);
            }
        }
        return renamed ? ir::makeAttr(std::move(*renamed)) : nullptr;
    }
    return nullptr;
}

void renameMeshSymbolsInList(ir::NamedAttrList& list, const std::map<std::string, std::string>& renames)
{
    for (ir::NamedAttribute& entry : list) {
        if (ir::AttrPtr renamed = renameMeshSymbolsInAttr(entry.value, renames))
            entry.value = std::move(renamed);
    }
}

} // namespace

void liftInlinedMeshes(ir::Module& module)
{
    // De-duplicate identical mesh ops.
    std::vector<Op*> meshes = module.meshes();
    std::map<std::string, std::string> renames;
    std::vector<Op*> kept;
    for (Op* m : meshes) {
        const Mesh* mesh = ir::meshOpMesh(*m);
        auto it = std::find_if(kept.begin(), kept.end(), [&](Op* k) {
            const Mesh* km = ir::meshOpMesh(*k);
            return km && mesh && *km == *mesh;
        });
        if (it != kept.end()) {
            renames[ir::symbolName(*m)] = ir::symbolName(**it);
            m->erase();
        } else {
            kept.push_back(m);
        }
    }
    if (!renames.empty()) {
        auto renamed = [&](const TensorSharding& s) { return !s.mesh.isInline() && renames.count(s.mesh.symbol); };
        forEachSharding(
            module,
            [&](TensorSharding& s) {
                auto it = renames.find(s.mesh.symbol);
                if (s.mesh.isInline() || it == renames.end())
                    return false;
                s.mesh.symbol = it->second;
                return true;
            },
            renamed);
        // Other references to a removed mesh: collectives that name their mesh (JAX's shard_map writes
        // `replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, ...>`), symbol references.
        module.op().walk([&](Op* op) {
            renameMeshSymbolsInList(op->props(), renames);
            renameMeshSymbolsInList(op->attrs(), renames);
        });
    }
    // Give every inline mesh a symbol.
    forEachSharding(
        module,
        [&](TensorSharding& s) {
            if (!s.mesh.isInline())
                return false;
            const Mesh inlineMesh = *s.mesh.inlineMesh;
            for (Op* m : module.meshes())
                if (const Mesh* mm = ir::meshOpMesh(*m); mm && *mm == inlineMesh) {
                    s.mesh = MeshRef{ir::symbolName(*m), std::nullopt};
                    return true;
                }
            std::string name;
            if (inlineMesh.isMaximal()) {
                name = "maximal_mesh_" + std::to_string(inlineMesh.deviceIds().front());
            } else if (inlineMesh.isEmpty()) {
                name = "empty_mesh";
            } else {
                name = "mesh";
                for (int i = 0; module.findMeshOp(name) || module.findFunc(name); ++i)
                    name = "mesh_" + std::to_string(i);
            }
            auto op = std::make_unique<Op>("sdy.mesh");
            ir::setSymbolName(*op, name);
            ir::setMeshOpMesh(*op, inlineMesh);
            std::vector<Op*> all = module.meshes();
            if (all.empty())
                module.body().insertBefore(module.body().empty() ? nullptr : module.body().ops().front().get(),
                                           std::move(op));
            else
                module.body().insertAfter(all.back(), std::move(op));
            s.mesh = MeshRef{name, std::nullopt};
            return true;
        },
        [](const TensorSharding& s) { return s.mesh.isInline(); });
}

void removeSizeOneAxes(ir::Module& module)
{
    bool any = false;
    for (Op* m : module.meshes())
        if (const Mesh* mesh = ir::meshOpMesh(*m))
            for (const MeshAxis& a : mesh->axes())
                any = any || a.size == 1;
    if (!any)
        return;
    forEachSharding(module, [&](TensorSharding& s) {
        const Mesh* mesh = module.resolveMesh(s.mesh);
        if (!mesh)
            return false;
        auto isOne = [&](const AxisRef& a) { return a.size(*mesh) == 1; };
        bool changed = false;
        for (DimSharding& d : s.dims) {
            const size_t before = d.axes.size();
            d.axes.erase(std::remove_if(d.axes.begin(), d.axes.end(), isOne), d.axes.end());
            if (d.axes.size() != before) {
                changed = true;
                if (d.axes.empty() && d.closed)
                    d.priority.reset();
            }
        }
        for (std::vector<AxisRef>* list : {&s.replicated, &s.unreduced}) {
            const size_t before = list->size();
            list->erase(std::remove_if(list->begin(), list->end(), isOne), list->end());
            changed = changed || list->size() != before;
        }
        return changed;
    });
}

void propagateShardingFromFuncToCall(ir::Module& module)
{
    static const ir::OperationName kCall("func.call");
    module.op().walk([&](Op* call) {
        if (call->opName() != kCall || call->attr(ir::kSdyShardingAttr))
            return;
        Op* callee = module.findCallee(*call);
        if (!callee)
            return;
        std::vector<std::optional<TensorSharding>> results;
        std::optional<MeshRef> mesh;
        for (unsigned i = 0; i < call->numResults(); ++i) {
            const TensorSharding* s = ir::funcResultSharding(*callee, i);
            results.push_back(s ? std::optional<TensorSharding>(*s) : std::nullopt);
            if (s && !mesh)
                mesh = s->mesh;
        }
        if (!mesh)
            return;
        ShardingPerValue list;
        for (unsigned i = 0; i < call->numResults(); ++i) {
            const ir::Type& t = call->result(i)->type();
            list.shardings.push_back(results[i] ? *results[i]
                                                : TensorSharding::open(*mesh, t.isRankedTensor() ? t.rank() : 0));
        }
        ir::setResultShardings(*call, std::move(list));
        notifyShardingsWritten(*call);
    });
}

void removeShardingGroups(ir::Module& module)
{
    static const ir::OperationName kGroup("sdy.sharding_group");
    std::vector<Op*> groups;
    module.op().walk([&](Op* op) {
        if (op->opName() == kGroup)
            groups.push_back(op);
    });
    for (Op* g : groups) {
        g->dropAllReferences();
        g->erase();
    }
}

void shardingConstraintToReshard(ir::Module& module)
{
    static const ir::OperationName kConstraint("sdy.sharding_constraint");
    module.op().walk([&](Op* op) {
        if (op->opName() == kConstraint)
            op->setName("sdy.reshard");
    });
}

void closeShardings(ir::Module& module)
{
    forEachSharding(
        module,
        [](TensorSharding& s) {
            bool changed = !s.replicated.empty();
            s.replicated.clear();
            for (DimSharding& d : s.dims) {
                changed = changed || !d.closed;
                d.closed = true;
            }
            return changed;
        },
        [](const TensorSharding& s) {
            return !s.replicated.empty() ||
                   std::any_of(s.dims.begin(), s.dims.end(), [](const DimSharding& d) { return !d.closed; });
        });
}

void dropShardingRules(ir::Module& module)
{
    module.op().walk([&](Op* op) {
        const ir::Attribute* a = op->attr(kShardingRuleAttrName);
        const ir::OpShardingRuleAttr* r = a ? a->as<ir::OpShardingRuleAttr>() : nullptr;
        if (r && !r->rule.isCustom)
            op->removeAttribute(kShardingRuleAttrName);
    });
}

namespace {

/// MLIR's greedy rewrite driver restricted to `apply` (a pattern list with a label filter), plus
/// the removal of trivially dead ops, to a fixed point on every function. `mayApply`: the ops
/// `apply` may rewrite (a function with none of them and no dead op is left as it is).
void runRestrictedCanonicalizer(ir::Module& module, const std::function<bool(const Op&)>& mayApply,
                                const std::function<void(Op&, ir::Rewriter&)>& apply)
{
    for (Op* func : module.funcs()) {
        if (!func->numRegions() || func->region(0).empty())
            continue;
        ir::Rewriter rw;
        rw.module = &module;
        std::vector<Op*> order;
        bool anyWork = false;
        func->walkPostOrder([&](Op* o) {
            if (o == func)
                return;
            order.push_back(o);
            anyWork = anyWork || mayApply(*o) || ir::isTriviallyDead(*o);
        });
        // Nothing dead and nothing to rewrite: the driver would visit every op and change none.
        if (!anyWork)
            continue;
        for (auto it = order.rbegin(); it != order.rend(); ++it)
            rw.enqueue(*it);
        int budget = 1000000;
        while (Op* op = rw.pop()) {
            if (--budget < 0)
                break;
            if (ir::isTriviallyDead(*op)) {
                // Values reading their sharding through a dead edge read their own afterwards.
                if (op->name() == "sdy.data_flow_edge")
                    notifyModuleRewritten();
                notifyOpsErasing(*op);
                rw.eraseOp(op);
            } else {
                apply(*op, rw);
            }
        }
    }
}

} // namespace

void canonicalizeCollectives(ir::Module& module)
{
    static const ir::OperationName kCollectives[] = {
        ir::OperationName("sdy.all_gather"), ir::OperationName("sdy.all_slice"),
        ir::OperationName("sdy.all_reduce"), ir::OperationName("sdy.reduce_scatter"),
        ir::OperationName("sdy.all_to_all"), ir::OperationName("sdy.collective_permute")};
    auto isCollective = [](const Op& op) {
        const ir::OperationName n = op.opName();
        return std::find(std::begin(kCollectives), std::end(kCollectives), n) != std::end(kCollectives);
    };
    const auto& patterns = ir::sdyCanonicalizationPatterns();
    runRestrictedCanonicalizer(module, isCollective, [&](Op& op, ir::Rewriter& rw) {
        if (!isCollective(op))
            return;
        auto it = patterns.find(op.name());
        if (it == patterns.end())
            return;
        for (const ir::CanonicalizationPattern& p : it->second)
            if (p(op, rw)) {
                // A pattern may insert, replace and erase ops: the module is compared whole.
                notifyModuleRewritten();
                break;
            }
    });
}

void canonicalizeReshards(ir::Module& module)
{
    static const ir::OperationName kReshard("sdy.reshard");
    runRestrictedCanonicalizer(
        module, [](const Op& op) { return op.opName() == kReshard; },
        [](Op& op, ir::Rewriter& rw) { ir::foldReshardOfReshard(op, rw); });
}

void inlineMeshes(ir::Module& module)
{
    forEachSharding(module, [&](TensorSharding& s) {
        if (s.mesh.isInline())
            return false;
        const Mesh* mesh = module.findMesh(s.mesh.symbol);
        if (!mesh)
            return false;
        s.mesh.inlineMesh = *mesh;
        s.mesh.symbol.clear();
        return true;
    });
    for (Op* mesh : module.meshes())
        mesh->erase();
}

} // namespace shardx
