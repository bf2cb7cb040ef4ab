// Printer (PrinterInternal.h): custom assembly forms of the sdy ops (SDY.md 2, 6.4).
#include "core/io/PrinterInternal.h"
#include "core/ir/SdyOps.h"
#include "core/ir/ShardingAccess.h"

namespace shardx::io::detail {

using namespace ir;

namespace {

void appendAxisRefText(std::string& out, const AxisRef& a)
{
    appendQuoted(out, a.name);
    if (a.sub)
        out += ":(" + std::to_string(a.sub->preSize) + ")" + std::to_string(a.sub->size);
}

void appendAxisListText(std::string& out, const std::vector<AxisRef>& axes)
{
    out += '{';
    for (size_t i = 0; i < axes.size(); ++i) {
        if (i)
            out += ", ";
        appendAxisRefText(out, axes[i]);
    }
    out += '}';
}

void appendListOfLists(std::string& out, const std::vector<std::vector<AxisRef>>& lists)
{
    out += '[';
    for (size_t i = 0; i < lists.size(); ++i) {
        if (i)
            out += ", ";
        appendAxisListText(out, lists[i]);
    }
    out += ']';
}

/// `[<@m, [...]>, ...]` (stripped shardings).
void appendStrippedPerValue(std::string& out, const ShardingPerValue& v)
{
    out += '[';
    for (size_t i = 0; i < v.shardings.size(); ++i) {
        if (i)
            out += ", ";
        out += v.shardings[i].toString();
    }
    out += ']';
}

} // namespace

bool Printer::printSdyOp(const Op& op)
{
    const std::string name = op.name().substr(4);
    const unsigned nOps = op.numOperands();
    const unsigned nRes = op.numResults();
    auto singleValue = [&] { return nOps == 1 && nRes == 1 && op.numRegions() == 0; };
    auto resultType = [&] {
        out += " : ";
        appendType(out, op.result(0)->type());
    };

    if (name == "mesh" && nOps == 0 && nRes == 0 && op.numRegions() == 0) {
        const Attribute* sym = op.attr(kSymNameAttr);
        const Mesh* mesh = meshOpMesh(op);
        if (!sym || !sym->is<StringAttr>() || !mesh)
            return false;
        out += "sdy.mesh ";
        appendSymbol(out, symbolName(op));
        out += " = " + mesh->toString();
        appendAttrDict(op, {kSymNameAttr, kMeshAttr});
        return true;
    }
    if ((name == "sharding_constraint" || name == "reshard") && singleValue()) {
        const TensorSharding* s = opSharding(op);
        if (!s)
            return false;
        out += op.name() + ' ';
        appendValue(op.operand(0));
        out += ' ' + s->toString();
        appendAttrDict(op, {kShardingAttr});
        resultType();
        return true;
    }
    if (name == "propagation_barrier" && singleValue()) {
        const std::optional<PropagationDirection> dir = barrierDirection(op);
        if (!dir)
            return false;
        out += op.name() + ' ';
        appendValue(op.operand(0));
        out += std::string(" allowed_direction=") + directionName(*dir);
        appendAttrDict(op, {kAllowedDirectionAttr});
        resultType();
        return true;
    }
    if (name == "sharding_group" && nOps == 1 && nRes == 0) {
        const std::optional<int64_t> id = shardingGroupId(op);
        if (!id)
            return false;
        out += "sdy.sharding_group ";
        appendValue(op.operand(0));
        out += " group_id=" + std::to_string(*id);
        appendAttrDict(op, {kGroupIdAttr});
        out += " : ";
        appendType(out, op.operand(0)->type());
        return true;
    }
    if (name == "data_flow_edge" && singleValue()) {
        const TensorSharding* s = opSharding(op);
        if (op.attr(kShardingAttr) && !s)
            return false;
        out += "sdy.data_flow_edge ";
        appendValue(op.operand(0));
        if (s)
            out += " sharding=" + s->toString();
        appendAttrDict(op, {kShardingAttr});
        resultType();
        return true;
    }
    if (name == "func_data_flow_edge" && singleValue()) {
        out += "sdy.func_data_flow_edge ";
        appendValue(op.operand(0));
        appendAttrDict(op, {});
        resultType();
        return true;
    }
    if (name == "constant" && nOps == 0 && nRes == 1 && op.numRegions() == 0) {
        const Attribute* v = op.attr("value");
        if (!v || !v->is<DenseElementsAttr>() || v->as<DenseElementsAttr>()->type != op.result(0)->type())
            return false;
        out += "sdy.constant";
        appendAttrDict(op, {"value"});
        out += ' ';
        appendAttribute(out, *v);
        return true;
    }

    // Collectives: `sdy.op [kind] <axes> %x out_sharding=<...> {attrs} : T`.
    const char* axesAttr = collectiveAxesAttrName(op.name());
    if (axesAttr && singleValue()) {
        const TensorSharding* outS = outSharding(op);
        if (!outS)
            return false;
        std::string axesText;
        if (name == "all_to_all") {
            const std::vector<AllToAllParam>* params = allToAllParams(op);
            if (!params)
                return false;
            axesText = "[";
            for (size_t i = 0; i < params->size(); ++i) {
                if (i)
                    axesText += ", ";
                appendAxisListText(axesText, (*params)[i].axes);
                axesText += ": " + std::to_string((*params)[i].srcDim) + "->" + std::to_string((*params)[i].tgtDim);
            }
            axesText += ']';
        } else if (hasPerDimAxes(op.name())) {
            const std::vector<std::vector<AxisRef>>* lists = perDimCollectiveAxes(op);
            if (!lists)
                return false;
            appendListOfLists(axesText, *lists);
        } else if (*axesAttr) {
            const std::vector<AxisRef>* axes = collectiveAxisList(op);
            if (!axes)
                return false;
            appendAxisListText(axesText, *axes);
        }
        const std::optional<ReductionKind> kind = reductionKindOf(op);
        if (!kind && op.attr(kReductionKindAttr))
            return false;
        out += op.name();
        if (kind && *kind != ReductionKind::Sum)
            out += std::string(" ") + reductionKindName(*kind);
        if (!axesText.empty())
            out += ' ' + axesText;
        out += ' ';
        appendValue(op.operand(0));
        out += " out_sharding=" + outS->toString();
        std::vector<std::string> elided{kOutShardingAttr, kReductionKindAttr};
        if (*axesAttr)
            elided.emplace_back(axesAttr);
        appendAttrDict(op, elided);
        resultType();
        return true;
    }

    if ((name == "manual_computation" || name == "named_computation") && op.numRegions() == 1) {
        const Region& body = op.region(0);
        if (body.blocks().size() != 1)
            return false;
        const Block& block = *body.blocks().front();
        const ShardingPerValue* in = inShardings(op);
        const ShardingPerValue* outS = outShardings(op);
        if ((!in && op.attr(kInShardingsAttr)) || (!outS && op.attr(kOutShardingsAttr)))
            return false;
        std::vector<std::string> elided{kInShardingsAttr, kOutShardingsAttr};
        out += op.name();
        if (name == "manual_computation") {
            const std::vector<std::string>* axes = manualAxes(op);
            if (!in || !outS || !axes)
                return false;
            out += '(';
            appendValues(op.operands());
            out += ") in_shardings=";
            appendStrippedPerValue(out, *in);
            out += " out_shardings=";
            appendStrippedPerValue(out, *outS);
            out += " manual_axes={";
            const std::vector<std::string>& names = *axes;
            for (size_t i = 0; i < names.size(); ++i) {
                if (i)
                    out += ", ";
                appendQuoted(out, names[i]);
            }
            out += '}';
            elided.emplace_back(kManualAxesAttr);
        } else {
            const std::optional<std::string> computation = computationName(op);
            if (!computation)
                return false;
            out += '<';
            appendQuoted(out, *computation);
            out += ">(";
            appendValues(op.operands());
            out += ')';
            if (in) {
                out += " in_shardings=";
                appendStrippedPerValue(out, *in);
            }
            if (outS) {
                out += " out_shardings=";
                appendStrippedPerValue(out, *outS);
            }
            elided.emplace_back(kComputationNameAttr);
        }
        out += " (";
        for (unsigned i = 0; i < block.numArgs(); ++i) {
            if (i)
                out += ", ";
            appendBlockArgDecl(block.arg(i));
        }
        out += ") ";
        appendRegion(body, false);
        appendAttrDict(op, elided);
        out += " : ";
        appendFunctionalType(op);
        return true;
    }
    if (name == "return" && nRes == 0 && op.numRegions() == 0) {
        out += "sdy.return";
        appendAttrDict(op, {});
        if (nOps) {
            out += ' ';
            appendValues(op.operands());
            out += " : ";
            appendValueTypes(op.operands());
        }
        return true;
    }
    return false;
}

} // namespace shardx::io::detail
