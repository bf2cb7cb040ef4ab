// -sdy-per-instruction-partitioning (PARTITION.md 9): selected ops are partitioned one by one into
// device-local code wrapped in an sdy.manual_computation; the rest of the program stays global.
#include <algorithm>
#include <cctype>
#include <set>

#include "core/ir/Builder.h"
#include "core/ir/Clone.h"
#include "core/ir/FuncOps.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/ir/StablehloAttrs.h"
#include "core/partition/ExplicitReshards.h"
#include "core/partition/LocalOps.h"
#include "core/partition/PartitionPasses.h"
#include "core/partition/ReshardToCollectives.h"

namespace shardx {
namespace {

std::string trimmed(const std::string& s)
{
    const size_t b = s.find_first_not_of(" \t\n");
    if (b == std::string::npos)
        return {};
    return s.substr(b, s.find_last_not_of(" \t\n") - b + 1);
}

/// The parsed `filter` option (PARTITION.md 9.1).
struct Filter {
    bool all = true; ///< the filter was empty
    int64_t low = -1, high = -1;
    std::vector<std::string> names;

    explicit Filter(std::string text)
    {
        text = trimmed(text);
        if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front())
            text = trimmed(text.substr(1, text.size() - 2));
        if (text.empty())
            return;
        all = false;
        size_t start = 0;
        while (start <= text.size()) {
            const size_t comma = std::min(text.find(',', start), text.size());
            const std::string token = trimmed(text.substr(start, comma - start));
            start = comma + 1;
            if (token.empty())
                continue;
            if (token.rfind("selectLow=", 0) == 0)
                parseBound(token.substr(10), low);
            else if (token.rfind("selectHigh=", 0) == 0)
                parseBound(token.substr(11), high);
            else
                names.push_back(token);
        }
    }

    bool selects(int64_t id, const std::string& opName) const
    {
        if (all)
            return true;
        if ((low >= 0 && id < low) || (high >= 0 && id > high))
            return false;
        if (names.empty())
            return true;
        return std::any_of(names.begin(), names.end(),
                           [&](const std::string& n) { return opName.find(n) != std::string::npos; });
    }

private:
    static void parseBound(const std::string& text, int64_t& out)
    {
        const std::string t = trimmed(text);
        size_t i = !t.empty() && t[0] == '-' ? 1 : 0;
        if (t.size() <= i || t.size() - i > 18)
            return; // unparsable numbers are ignored
        for (size_t k = i; k < t.size(); ++k)
            if (!std::isdigit(static_cast<unsigned char>(t[k])))
                return;
        out = std::stoll(t);
    }
};

bool isFullyReplicated(const TensorSharding& s) { return !s.hasDimAxes() && s.unreduced.empty(); }

/// The sharding of operand `i` / result `i` of `op` as the pass sees it.
const TensorSharding* operandSharding(const ir::Op& op, unsigned i) { return ir::shardingOfValue(op.operand(i)); }
const TensorSharding* resultSharding(const ir::Op& op, unsigned i) { return ir::shardingOfValue(op.result(i)); }

bool isCandidate(const ir::Op& op)
{
    static const std::set<std::string> kSkipped = {
        "sdy.data_flow_edge", "sdy.manual_computation",  "sdy.mesh",           "sdy.propagation_barrier",
        "sdy.return",         "sdy.sharding_constraint", "sdy.sharding_group", "func.return"};
    const std::string& n = op.name();
    if (kSkipped.count(n) || ir::isCollectiveOp(n))
        return false;
    if (n == "stablehlo.custom_call") {
        const std::optional<std::string> target = stablehlo::customCallTarget(op);
        if (target && (*target == "Sharding" || *target == "mhlo.sharding"))
            return false;
    }
    for (unsigned i = 0; i < op.numOperands(); ++i)
        if (const TensorSharding* s = operandSharding(op, i); s && !isFullyReplicated(*s))
            return true;
    for (unsigned i = 0; i < op.numResults(); ++i)
        if (const TensorSharding* s = resultSharding(op, i); s && !isFullyReplicated(*s))
            return true;
    return false;
}

class PerInstructionPartitioner {
public:
    PerInstructionPartitioner(ir::Module& module, const PerInstructionOptions& options, DiagnosticList& diags)
        : m_module(module), m_options(options), m_diags(diags)
    {}

    bool run()
    {
        const Filter filter(m_options.filter);
        std::vector<ir::Op*> selected;
        int64_t id = 0;
        for (ir::Op* func : m_module.funcs()) {
            if (!func->numRegions() || func->region(0).empty())
                continue;
            for (const auto& block : func->region(0).blocks())
                for (const auto& op : block->ops())
                    if (isCandidate(*op) && filter.selects(id++, op->name()))
                        selected.push_back(op.get());
        }
        for (ir::Op* op : selected)
            if (!partition(*op))
                return false;
        return true;
    }

private:
    /// The mesh of `s` when it has axes or device ids, else nullptr.
    const Mesh* nonEmptyMesh(const TensorSharding* s) const
    {
        const Mesh* mesh = s ? ir::meshOf(m_module, *s) : nullptr;
        return mesh && (!mesh->axes().empty() || !mesh->allDeviceIds().empty()) ? mesh : nullptr;
    }

    /// The symbol of an sdy.mesh holding `mesh`: `ref`'s own symbol, or an existing mesh op with the
    /// same mesh (the first in the module), or a new `mesh` at the top of the module.
    std::string meshSymbol(const MeshRef& ref, const Mesh& mesh)
    {
        if (!ref.isInline())
            return ref.symbol;
        for (ir::Op* meshOp : m_module.meshes())
            if (const Mesh* m = ir::meshOpMesh(*meshOp); m && *m == mesh)
                return ir::symbolName(*meshOp);
        std::string name = "mesh";
        for (int k = 0; m_module.findMeshOp(name); ++k)
            name = "mesh_" + std::to_string(k);
        ir::Builder b(m_module);
        if (!m_module.body().empty())
            b.setInsertionPoint(*m_module.body().ops().front());
        b.createMesh(name, mesh);
        return name;
    }

    bool partition(ir::Op& op)
    {
        // 1. The common mesh of the operand and result shardings.
        const Mesh* mesh = nullptr;
        MeshRef meshRef;
        auto consider = [&](const TensorSharding* s) {
            const Mesh* m = nonEmptyMesh(s);
            if (!m)
                return true;
            if (!mesh) {
                mesh = m;
                meshRef = s->mesh;
                return true;
            }
            return *m == *mesh;
        };
        for (unsigned i = 0; i < op.numOperands(); ++i)
            if (!consider(operandSharding(op, i)))
                return fail(op, "its operands and results are sharded on different meshes");
        for (unsigned i = 0; i < op.numResults(); ++i)
            if (!consider(resultSharding(op, i)))
                return fail(op, "its operands and results are sharded on different meshes");
        if (!mesh)
            return fail(op, "none of its operands and results is sharded on a mesh with axes");
        const Mesh meshCopy = *mesh;
        MeshRef symbol;
        symbol.symbol = meshSymbol(meshRef, meshCopy);

        // 2. Shardings, on the mesh symbol; results lose their unreduced axes.
        auto shardingFor = [&](const TensorSharding* s, const ir::Type& t, bool result) {
            TensorSharding out = s && nonEmptyMesh(s) ? *s : TensorSharding::closedReplicated(symbol, t.rank());
            out.mesh = symbol;
            if (result)
                out.unreduced.clear();
            return out;
        };
        ShardingPerValue in, out;
        for (unsigned i = 0; i < op.numOperands(); ++i)
            in.shardings.push_back(shardingFor(operandSharding(op, i), op.operand(i)->type(), false));
        for (unsigned i = 0; i < op.numResults(); ++i)
            out.shardings.push_back(shardingFor(resultSharding(op, i), op.result(i)->type(), true));

        // 3. Manual axes: every axis in use, in first-appearance order.
        std::vector<std::string> manualAxes;
        auto addAxes = [&](const std::vector<AxisRef>& axes) {
            for (const AxisRef& a : axes)
                if (std::find(manualAxes.begin(), manualAxes.end(), a.name) == manualAxes.end())
                    manualAxes.push_back(a.name);
        };
        for (const ShardingPerValue* list : {&in, &out})
            for (const TensorSharding& s : list->shardings) {
                for (const DimSharding& d : s.dims)
                    addAxes(d.axes);
                addAxes(s.replicated);
                addAxes(s.unreduced);
            }

        // 4. Padded types; a reshard pads operand and result to one type.
        std::vector<ir::Type> inTypes, outTypes;
        for (unsigned i = 0; i < op.numOperands(); ++i)
            inTypes.push_back(partition::paddedType(op.operand(i)->type(), &in.shardings[i], &meshCopy));
        for (unsigned i = 0; i < op.numResults(); ++i)
            outTypes.push_back(partition::paddedType(op.result(i)->type(), &out.shardings[i], &meshCopy));
        if (op.name() == "sdy.reshard" && inTypes[0].isRankedTensor() && inTypes[0].rank() == outTypes[0].rank()) {
            std::vector<int64_t> shape = inTypes[0].shape();
            for (size_t d = 0; d < shape.size(); ++d)
                shape[d] = std::max(shape[d], outTypes[0].shape()[d]);
            inTypes[0] = outTypes[0] = inTypes[0].withShape(shape);
        }
        ir::Builder b;
        b.setInsertionPoint(op);
        b.setLocationOf(op);
        std::vector<ir::Value*> operands;
        for (unsigned i = 0; i < op.numOperands(); ++i) {
            ir::Value* v = op.operand(i);
            if (inTypes[i] != v->type()) {
                ir::Value* zero = partition::zeros(b, ir::Type::tensor({}, v->type().elementType()));
                v = partition::padHigh(b, v, zero, inTypes[i], &in.shardings[i]);
            }
            operands.push_back(v);
        }

        // 5. Outline into a function of a scratch module and partition it there.
        Expected<std::unique_ptr<ir::Module>> local = partitionAlone(op, in, out, inTypes, outTypes);
        if (!local)
            return fail(op, local.error().message);
        ir::Op* func = (*local)->findFunc("outlined");
        ir::Block& body = func->region(0).front();

        // 6. The manual computation, holding the partitioned body.
        ir::OperationState state("sdy.manual_computation");
        state.operands = operands;
        state.resultTypes = outTypes;
        state.numRegions = 1;
        ir::Op* manual = b.create(std::move(state));
        ir::setInShardings(*manual, in);
        ir::setOutShardings(*manual, out);
        ir::setManualAxes(*manual, manualAxes);
        std::vector<ir::Type> argTypes;
        for (unsigned i = 0; i < body.numArgs(); ++i)
            argTypes.push_back(body.arg(i)->type());
        ir::Builder inner;
        ir::Block& block = inner.createBlock(manual->region(0), argTypes);
        for (unsigned i = 0; i < body.numArgs(); ++i)
            body.arg(i)->replaceAllUsesWith(block.arg(i));
        while (!body.empty()) {
            ir::Op* first = body.ops().front().get();
            std::unique_ptr<ir::Op> moved = body.remove(first);
            if (moved->name() == "func.return")
                moved->setName("sdy.return");
            block.push_back(std::move(moved));
        }

        // 7. Results that grew are trimmed back; 8. the op goes.
        b.setInsertionPointAfter(*manual);
        for (unsigned i = 0; i < op.numResults(); ++i) {
            ir::Value* r = manual->result(i);
            const ir::Type& original = op.result(i)->type();
            if (original != outTypes[i])
                r = partition::trim(b, r, original.shape(), &out.shardings[i]);
            op.result(i)->replaceAllUsesWith(r);
        }
        op.dropAllReferences();
        op.erase();
        return true;
    }

    /// The op alone in a private function `@outlined` of a module holding copies of every mesh,
    /// run through the sub-pipeline of PARTITION.md 1.2.1.
    Expected<std::unique_ptr<ir::Module>> partitionAlone(const ir::Op& op, const ShardingPerValue& in,
                                                         const ShardingPerValue& out,
                                                         const std::vector<ir::Type>& inTypes,
                                                         const std::vector<ir::Type>& outTypes)
    {
        auto scratch = std::make_unique<ir::Module>();
        ir::Builder b(*scratch);
        for (ir::Op* meshOp : m_module.meshes())
            if (const Mesh* m = ir::meshOpMesh(*meshOp))
                b.createMesh(ir::symbolName(*meshOp), *m);
        ir::FuncSignature sig;
        sig.name = "outlined";
        sig.visibility = "private";
        for (size_t i = 0; i < inTypes.size(); ++i)
            sig.arguments.push_back({inTypes[i], {{"sdy.sharding", ir::shardingAttr(in.shardings[i])}}, nullptr});
        for (size_t i = 0; i < outTypes.size(); ++i)
            sig.results.push_back({outTypes[i], {{"sdy.sharding", ir::shardingAttr(out.shardings[i])}}});
        ir::Op* func = b.createFunc(sig);
        ir::Block& body = ir::funcBody(*func);
        ir::CloneMapping mapping;
        std::unique_ptr<ir::Op> clone = ir::cloneOp(op, mapping);
        // Operand by operand: `add %a, %a` reads two arguments, as the outlined function has.
        for (unsigned i = 0; i < clone->numOperands(); ++i)
            clone->setOperand(i, body.arg(i));
        ir::Op* c = body.push_back(std::move(clone));
        // A result that grew: the clone computes the padded result.
        for (unsigned i = 0; i < c->numResults(); ++i) {
            const ir::Type original = c->result(i)->type();
            if (original == outTypes[i])
                continue;
            c->result(i)->setType(outTypes[i]);
            if (c->name() == "stablehlo.slice" || c->name() == "stablehlo.pad") {
                const char* attrName = c->name() == "stablehlo.slice" ? "limit_indices" : "edge_padding_high";
                std::vector<int64_t> v =
                    stablehlo::intList(c->attr(attrName), original.rank()).value_or(std::vector<int64_t>{});
                for (size_t d = 0; d < v.size(); ++d)
                    v[d] += outTypes[i].dim(static_cast<int>(d)) - original.dim(static_cast<int>(d));
                c->setProp(attrName, ir::denseI64ArrayAttr(v));
            }
        }
        if (c->name() == "sdy.reshard")
            ir::setOpSharding(*c, out.shardings[0]);
        else if (c->numResults())
            ir::setResultShardings(*c, out);
        ir::Builder rb(body);
        std::vector<ir::Value*> results;
        for (unsigned i = 0; i < c->numResults(); ++i)
            results.push_back(c->result(i));
        rb.createReturn(results);

        DiagnosticList diags;
        PermutationFactorOptions permutation;
        permutation.enableHaloExchange = m_options.enableHaloExchange;
        permutation.counts = m_options.counts;
        GlobalToLocalOptions local;
        local.replicaCount = m_options.counts.replicaCount;
        local.partitionCount = m_options.counts.partitionCount;
        if (!resolvePermutationFactors(*scratch, permutation, diags) ||
            !insertExplicitReshards(*scratch, ExplicitReshardsOptions{true}, diags) ||
            !reshardToCollectives(*scratch, ReshardToCollectivesOptions{}, diags) ||
            !padForDivisibility(*scratch, diags) || !convertGlobalToLocal(*scratch, local, diags))
            return Error{"partitioning it alone failed" + (diags.empty() ? std::string() : ": " + diags.formatAll()),
                         {}};
        dropShardingAndMesh(*scratch);
        return scratch;
    }

    bool fail(const ir::Op& op, const std::string& why)
    {
        m_diags.error(op.pos, "-sdy-per-instruction-partitioning cannot partition this " + op.name() + ": " + why);
        return false;
    }

    ir::Module& m_module;
    const PerInstructionOptions& m_options;
    DiagnosticList& m_diags;
};

} // namespace

bool perInstructionPartitioning(ir::Module& module, const PerInstructionOptions& options, DiagnosticList& diags)
{
    return PerInstructionPartitioner(module, options, diags).run();
}

} // namespace shardx
