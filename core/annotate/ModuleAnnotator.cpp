// ModuleAnnotator: tree paths from JAX's argument names, the rules' mesh in the module, shardings.
#include "core/annotate/ModuleAnnotator.h"

#include "core/ir/Builder.h"
#include "core/ir/FuncOps.h"
#include "core/ir/ShardingAccess.h"
#include "core/ir/StablehloAttrs.h"

namespace shardx::annotate {

std::string treePathOfKeyString(const std::string& k)
{
    std::string out;
    std::string part;
    auto flush = [&]() {
        if (!part.empty())
            out += (out.empty() ? "" : "/") + part;
        part.clear();
    };
    for (size_t i = 0; i < k.size(); ++i) {
        const char c = k[i];
        if (c == '[' || c == '.') {
            flush();
        } else if (c == ']') {
            flush();
        } else if (c == '\'' || c == '"') {
            // A quoted key: everything up to the same quote.
            const size_t end = k.find(c, i + 1);
            part += k.substr(i + 1, (end == std::string::npos ? k.size() : end) - i - 1);
            i = end == std::string::npos ? k.size() : end;
        } else {
            part += c;
        }
    }
    flush();
    return out;
}

namespace {

/// The `loc` name of a function argument (`loc("params['w']")`, also inside a fused or call-site
/// location), or empty.
std::string annotateLocName(const ir::AttrPtr& loc)
{
    if (!loc)
        return {};
    const ir::LocationAttr* l = loc->as<ir::LocationAttr>();
    while (l) {
        if (l->kind == ir::LocationAttr::Kind::Name)
            return l->text;
        if (l->children.empty() || !l->children.front())
            return {};
        l = l->children.front().get();
    }
    return {};
}

} // namespace

AnnotateResult annotateModule(ir::Module& module, const RuleSet& rules, const AnnotateOptions& options)
{
    AnnotateResult out;
    const SourcePos modulePos = module.op().pos.isKnown() ? module.op().pos : SourcePos{module.fileName, 1, 1};
    int64_t devices = options.devices;
    if (devices <= 0)
        devices = stablehlo::intValue(module.op().attr("mhlo.num_partitions")).value_or(0);
    Expected<Mesh> mesh = buildMesh(rules.mesh, devices);
    if (!mesh) {
        out.diagnostics.error(modulePos, mesh.error().message);
        return out;
    }
    out.mesh = *mesh;
    // An sdy.mesh with the same axes, else a new one first in the module.
    for (ir::Op* m : module.meshes()) {
        const Mesh* existing = module.findMesh(ir::symbolName(*m));
        if (existing && existing->axes() == out.mesh.axes()) {
            out.meshName = ir::symbolName(*m);
            break;
        }
    }
    if (out.meshName.empty()) {
        std::string name = "mesh";
        for (int n = 1; module.findMesh(name) || module.findFunc(name); ++n)
            name = "mesh_" + std::to_string(n);
        ir::Builder b(module);
        if (!module.body().empty())
            b.setInsertionPoint(*module.body().ops().front());
        b.createMesh(name, out.mesh);
        out.meshName = name;
        out.meshAdded = true;
    }
    for (ir::Op* func : module.funcs()) {
        if (ir::isPrivateSymbol(*func) || func->numRegions() == 0 || func->region(0).empty())
            continue;
        const ir::Block& body = func->region(0).front();
        for (unsigned i = 0; i < body.numArgs(); ++i) {
            const ir::Value* arg = body.arg(i);
            ArgumentAnnotation a;
            a.func = "@" + ir::symbolName(*func);
            a.index = i;
            a.value = "%" + (arg->sourceName.empty() ? "arg" + std::to_string(i) : arg->sourceName);
            a.name = annotateLocName(arg->loc);
            a.path = a.name.empty() ? "arg" + std::to_string(i) : treePathOfKeyString(a.name);
            a.type = arg->type().toString();
            if (!arg->type().isRankedTensor()) {
                out.arguments.push_back(std::move(a));
                continue;
            }
            Leaf leaf{a.path, arg->type().shape(), arg->type().elementType()};
            a.result = applyRules(rules, out.mesh, leaf);
            if (!a.result.error.empty()) {
                out.diagnostics.error(arg->pos.isKnown() ? arg->pos : func->pos, "argument " + std::to_string(i) +
                                                                                     " of " + a.func + " ('" + a.path +
                                                                                     "'): " + a.result.error);
            } else {
                std::vector<std::vector<std::string>> dims(static_cast<size_t>(arg->type().rank()));
                for (size_t d = 0; d < a.result.spec.size() && d < dims.size(); ++d)
                    dims[d] = a.result.spec[d];
                const TensorSharding s = ir::shardingOnAxes(out.meshName, dims);
                ir::setFuncArgSharding(*func, i, s);
                a.sharding = s.toString();
            }
            out.arguments.push_back(std::move(a));
        }
    }
    return out;
}

std::string printAnnotations(const AnnotateResult& result)
{
    std::string s = "mesh @" + result.meshName + " = " + result.mesh.toString() +
                    (result.meshAdded ? " (added)\n" : " (the module's)\n");
    for (const ArgumentAnnotation& a : result.arguments) {
        s += a.func + " " + a.value + " " + a.path + " " + a.type + ": ";
        if (!a.result.error.empty())
            s += "error: " + a.result.error;
        else if (a.sharding.empty())
            s += "(no array)";
        else
            s += partitionSpecText(a.result.spec) + " " + a.sharding + " (" +
                 (a.result.rule < 0 ? std::string("no rule matched: replicated") : a.result.matched) + ")";
        s += "\n";
    }
    return s;
}

} // namespace shardx::annotate
