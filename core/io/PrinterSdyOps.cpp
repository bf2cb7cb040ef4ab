// Printer (PrinterInternal.h): custom assembly forms of the sdy ops (SDY.md 2, 6.4).
#include "core/io/PrinterInternal.h"

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

void appendListOfLists(std::string& out, const ListOfAxisRefListsAttr& l)
{
    out += '[';
    for (size_t i = 0; i < l.lists.size(); ++i) {
        if (i)
            out += ", ";
        appendAxisListText(out, l.lists[i]);
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

const TensorSharding* shardingProp(const Op& op, const char* name)
{
    const Attribute* a = op.attr(name);
    const ShardingAttr* s = a ? a->as<ShardingAttr>() : nullptr;
    return s ? &s->sharding : nullptr;
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
        const Attribute* sym = op.attr("sym_name");
        const Attribute* mesh = op.attr("mesh");
        if (!sym || !sym->is<StringAttr>() || !mesh || !mesh->is<MeshAttr>())
            return false;
        out += "sdy.mesh ";
        appendSymbol(out, sym->as<StringAttr>()->value);
        out += " = " + mesh->as<MeshAttr>()->mesh.toString();
        appendAttrDict(op, {"sym_name", "mesh"});
        return true;
    }
    if ((name == "sharding_constraint" || name == "reshard") && singleValue()) {
        const TensorSharding* s = shardingProp(op, "sharding");
        if (!s)
            return false;
        out += op.name() + ' ';
        appendValue(op.operand(0));
        out += ' ' + s->toString();
        appendAttrDict(op, {"sharding"});
        resultType();
        return true;
    }
    if (name == "propagation_barrier" && singleValue()) {
        std::string dir;
        if (!enumKeyword(op.attr("allowed_direction"), dir))
            return false;
        out += op.name() + ' ';
        appendValue(op.operand(0));
        out += " allowed_direction=" + dir;
        appendAttrDict(op, {"allowed_direction"});
        resultType();
        return true;
    }
    if (name == "sharding_group" && nOps == 1 && nRes == 0) {
        int64_t id;
        if (!intValue(op.attr("group_id"), id))
            return false;
        out += "sdy.sharding_group ";
        appendValue(op.operand(0));
        out += " group_id=" + std::to_string(id);
        appendAttrDict(op, {"group_id"});
        out += " : ";
        appendType(out, op.operand(0)->type());
        return true;
    }
    if (name == "data_flow_edge" && singleValue()) {
        const Attribute* sa = op.attr("sharding");
        const TensorSharding* s = shardingProp(op, "sharding");
        if (sa && !s)
            return false;
        out += "sdy.data_flow_edge ";
        appendValue(op.operand(0));
        if (s)
            out += " sharding=" + s->toString();
        appendAttrDict(op, {"sharding"});
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
    const char* axesProp = nullptr;
    bool perDim = false;
    if (name == "all_gather")
        axesProp = "gathering_axes", perDim = true;
    else if (name == "all_slice")
        axesProp = "slicing_axes", perDim = true;
    else if (name == "reduce_scatter")
        axesProp = "reduce_scatter_axes", perDim = true;
    else if (name == "sharded_to_unreduced")
        axesProp = "axes", perDim = true;
    else if (name == "all_reduce")
        axesProp = "reduction_axes";
    else if (name == "replicated_to_unreduced")
        axesProp = "axes";
    else if (name == "all_to_all")
        axesProp = "params";
    else if (name == "collective_permute")
        axesProp = "";
    if (axesProp && singleValue()) {
        const TensorSharding* outSharding = shardingProp(op, "out_sharding");
        if (!outSharding)
            return false;
        std::string axesText;
        if (*axesProp) {
            const Attribute* a = op.attr(axesProp);
            if (!a)
                return false;
            if (name == "all_to_all") {
                auto* p = a->as<AllToAllParamListAttr>();
                if (!p)
                    return false;
                axesText = "[";
                for (size_t i = 0; i < p->params.size(); ++i) {
                    if (i)
                        axesText += ", ";
                    appendAxisListText(axesText, p->params[i].axes);
                    axesText += ": " + std::to_string(p->params[i].srcDim) + "->" + std::to_string(p->params[i].tgtDim);
                }
                axesText += ']';
            } else if (perDim) {
                auto* l = a->as<ListOfAxisRefListsAttr>();
                if (!l)
                    return false;
                appendListOfLists(axesText, *l);
            } else {
                auto* l = a->as<AxisRefListAttr>();
                if (!l)
                    return false;
                appendAxisListText(axesText, l->axes);
            }
        }
        std::string kind;
        const Attribute* k = op.attr("reduction_kind");
        if (k && !enumKeyword(k, kind))
            return false;
        out += op.name();
        if (!kind.empty() && kind != "sum")
            out += ' ' + kind;
        if (!axesText.empty())
            out += ' ' + axesText;
        out += ' ';
        appendValue(op.operand(0));
        out += " out_sharding=" + outSharding->toString();
        std::vector<std::string> elided{"out_sharding", "reduction_kind"};
        if (*axesProp)
            elided.emplace_back(axesProp);
        appendAttrDict(op, elided);
        resultType();
        return true;
    }

    if ((name == "manual_computation" || name == "named_computation") && op.numRegions() == 1) {
        const Region& body = op.region(0);
        if (body.blocks().size() != 1)
            return false;
        const Block& block = *body.blocks().front();
        const Attribute* in = op.attr("in_shardings");
        const Attribute* outS = op.attr("out_shardings");
        if ((in && !in->is<ShardingPerValueAttr>()) || (outS && !outS->is<ShardingPerValueAttr>()))
            return false;
        std::vector<std::string> elided{"in_shardings", "out_shardings"};
        out += op.name();
        if (name == "manual_computation") {
            const Attribute* axes = op.attr("manual_axes");
            if (!in || !outS || !axes || !axes->is<ManualAxesAttr>())
                return false;
            out += '(';
            appendValues(op.operands());
            out += ") in_shardings=";
            appendStrippedPerValue(out, in->as<ShardingPerValueAttr>()->value);
            out += " out_shardings=";
            appendStrippedPerValue(out, outS->as<ShardingPerValueAttr>()->value);
            out += " manual_axes={";
            const auto& names = axes->as<ManualAxesAttr>()->axes;
            for (size_t i = 0; i < names.size(); ++i) {
                if (i)
                    out += ", ";
                appendQuoted(out, names[i]);
            }
            out += '}';
            elided.emplace_back("manual_axes");
        } else {
            const Attribute* n = op.attr("name");
            if (!n || !n->is<StringAttr>())
                return false;
            out += '<';
            appendQuoted(out, n->as<StringAttr>()->value);
            out += ">(";
            appendValues(op.operands());
            out += ')';
            if (in) {
                out += " in_shardings=";
                appendStrippedPerValue(out, in->as<ShardingPerValueAttr>()->value);
            }
            if (outS) {
                out += " out_shardings=";
                appendStrippedPerValue(out, outS->as<ShardingPerValueAttr>()->value);
            }
            elided.emplace_back("name");
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
