// ModuleAnnotator: tree paths from JAX's argument names, the rules' mesh in the module, shardings.
#include "core/annotate/ModuleAnnotator.h"

#include <set>

#include "core/annotate/HloSharding.h"

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

const std::string* annotateStringAttr(const ir::Attribute* a)
{
    const ir::StringAttr* s = a ? a->as<ir::StringAttr>() : nullptr;
    return s ? &s->value : nullptr;
}

/// The sharding a function argument (result) has: its sdy.sharding, else its mhlo.sharding with
/// the spec it stands for on `mesh`.
struct ExistingSharding {
    std::string text;
    bool isMhlo = false;
    std::optional<PartitionSpec> spec; ///< mhlo: the spec, when one gives it
    std::string specText;              ///< mhlo: `P(...)` or why there is none
};

ExistingSharding annotateExisting(const ir::Attribute* sdy, const ir::Attribute* mhlo, const Mesh& mesh, int rank)
{
    ExistingSharding e;
    if (sdy) {
        if (const ir::ShardingAttr* s = sdy->as<ir::ShardingAttr>())
            e.text = s->sharding.toString();
        return e;
    }
    const std::string* text = annotateStringAttr(mhlo);
    if (!text)
        return e;
    e.text = *text;
    e.isMhlo = true;
    Expected<HloSharding> parsed = parseHloSharding(*text);
    if (!parsed) {
        e.specText = "not read: " + parsed.error().message;
        return e;
    }
    Expected<PartitionSpec> spec = hloShardingToSpec(*parsed, mesh, rank);
    if (spec) {
        e.spec = *spec;
        e.specText = partitionSpecText(*spec);
    } else {
        e.specText = spec.error().message;
    }
    return e;
}

TensorSharding annotateSharding(const std::string& meshName, const PartitionSpec& spec, int rank)
{
    std::vector<std::vector<std::string>> dims(static_cast<size_t>(rank));
    for (size_t d = 0; d < spec.size() && d < dims.size(); ++d)
        dims[d] = spec[d];
    return ir::shardingOnAxes(meshName, dims);
}

/// `jit(f)`, `pjit(g)`, `jvp(h)`: transformation components of a JAX name stack, not user scopes.
bool annotateIsTransform(const std::string& part)
{
    const size_t open = part.find('(');
    return open != std::string::npos && open > 0 && part.back() == ')';
}

} // namespace

std::string annotationNameOf(const ir::Op& op)
{
    if (const ir::Attribute* fa = op.attr("mhlo.frontend_attributes"))
        if (const ir::DictionaryAttr* d = fa->as<ir::DictionaryAttr>())
            if (const std::string* name = annotateStringAttr(ir::findAttr(d->entries, "sharding_annotation")))
                return *name;
    const std::string loc = annotateLocName(op.loc);
    if (loc.empty())
        return {};
    std::vector<std::string> parts;
    size_t begin = 0;
    for (size_t i = 0; i <= loc.size(); ++i)
        if (i == loc.size() || loc[i] == '/') {
            parts.push_back(loc.substr(begin, i - begin));
            begin = i + 1;
        }
    if (parts.size() == 1)
        return annotateIsTransform(parts[0]) ? std::string() : parts[0];
    // The last part is the op's own name (`sharding_constraint`); the one before, the innermost scope.
    for (size_t i = parts.size() - 1; i-- > 0;)
        if (!parts[i].empty())
            return annotateIsTransform(parts[i]) ? std::string() : parts[i];
    return {};
}

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
    // Results: a rule that matches decides; none (a strict one included) leaves them alone.
    RuleSet resultRules = rules;
    for (ShardingRule& r : resultRules.rules)
        r.treePath.strict = false;
    for (ir::Op* func : module.funcs()) {
        if (ir::isPrivateSymbol(*func) || func->numRegions() == 0 || func->region(0).empty())
            continue;
        const ir::Block& body = func->region(0).front();
        const std::vector<ir::Type> resultTypes = ir::funcType(*func).results();
        const unsigned numArgs = body.numArgs();
        for (unsigned k = 0; k < numArgs + resultTypes.size(); ++k) {
            const bool isResult = k >= numArgs;
            const unsigned i = isResult ? k - numArgs : k;
            ArgumentAnnotation a;
            a.func = "@" + ir::symbolName(*func);
            a.index = i;
            a.isResult = isResult;
            ir::Type type;
            SourcePos pos = func->pos;
            if (isResult) {
                type = resultTypes[i];
                a.value = "result " + std::to_string(i);
                if (const std::string* info = annotateStringAttr(ir::funcResultAttr(*func, i, "jax.result_info")))
                    a.name = *info;
                a.path = a.name.empty() ? "result" + std::to_string(i) : treePathOfKeyString(a.name);
            } else {
                const ir::Value* arg = body.arg(i);
                type = arg->type();
                if (arg->pos().isKnown())
                    pos = arg->pos();
                a.value = "%" + (arg->sourceName.empty() ? "arg" + std::to_string(i) : arg->sourceName);
                a.name = annotateLocName(arg->loc());
                a.path = a.name.empty() ? "arg" + std::to_string(i) : treePathOfKeyString(a.name);
            }
            a.type = type.toString();
            if (!type.isRankedTensor()) {
                if (!isResult)
                    out.arguments.push_back(std::move(a));
                continue;
            }
            const int rank = type.rank();
            const ExistingSharding existing = annotateExisting(
                isResult ? ir::funcResultAttr(*func, i, ir::kSdyShardingAttr)
                         : ir::funcArgAttr(*func, i, ir::kSdyShardingAttr),
                isResult ? ir::funcResultAttr(*func, i, "mhlo.sharding") : ir::funcArgAttr(*func, i, "mhlo.sharding"),
                out.mesh, rank);
            a.existing = existing.text;
            a.existingSpec = existing.specText;
            const std::string what =
                (isResult ? "result " : "argument ") + std::to_string(i) + " of " + a.func + " ('" + a.path + "')";
            auto write = [&](const TensorSharding& s) {
                if (isResult) {
                    ir::setFuncResultSharding(*func, i, s);
                    ir::removeFuncResultAttr(*func, i, "mhlo.sharding");
                } else {
                    ir::setFuncArgSharding(*func, i, s);
                    ir::removeFuncArgAttr(*func, i, "mhlo.sharding");
                }
                a.sharding = s.toString();
            };
            Leaf leaf{a.path, type.shape(), type.elementType(), std::nullopt};
            a.result = applyRules(isResult ? resultRules : rules, out.mesh, leaf);
            if (options.keepExisting && !existing.text.empty()) {
                a.kept = true;
                a.result.error.clear(); // the rules' verdict is not used
                if (existing.isMhlo && existing.spec)
                    write(annotateSharding(out.meshName, *existing.spec, rank));
                else if (existing.isMhlo)
                    out.diagnostics.warning(pos, what + " keeps its mhlo.sharding " + existing.text +
                                                     ", which shardx does not propagate: " + existing.specText);
                out.arguments.push_back(std::move(a));
                continue;
            }
            if (isResult && a.result.rule < 0) {
                if (!existing.text.empty())
                    out.arguments.push_back(std::move(a)); // shown: it keeps what it has
                continue;
            }
            if (!a.result.error.empty()) {
                out.diagnostics.error(pos, what + ": " + a.result.error);
                out.arguments.push_back(std::move(a));
                continue;
            }
            const TensorSharding s = annotateSharding(out.meshName, a.result.spec, rank);
            const std::string before =
                existing.isMhlo
                    ? (existing.spec ? annotateSharding(out.meshName, *existing.spec, rank).toString() : std::string())
                    : existing.text;
            if (!existing.text.empty() && before != s.toString())
                out.diagnostics.warning(
                    pos, what + ": the rules replace its " + (existing.isMhlo ? "mhlo.sharding " : "sdy.sharding ") +
                             existing.text + (existing.isMhlo ? " (" + existing.specText + ")" : std::string()) +
                             " with " + partitionSpecText(a.result.spec) + " (--keep-existing keeps it)");
            write(s);
            out.arguments.push_back(std::move(a));
        }
    }
    // Named sharding constraints, in program order, every function.
    std::set<std::string> namesSeen;
    for (ir::Op* func : module.funcs()) {
        const std::string funcName = "@" + ir::symbolName(*func);
        func->walk([&](ir::Op* op) {
            if (op->name() != "sdy.sharding_constraint" || op->numResults() != 1)
                return;
            AnnotationSite site;
            site.annotation = annotationNameOf(*op);
            if (site.annotation.empty())
                return;
            namesSeen.insert(site.annotation);
            const ir::Value* v = op->result(0);
            site.func = funcName;
            site.value = "%" + v->sourceName;
            site.path = annotateLocName(op->loc);
            site.type = v->type().toString();
            site.pos = op->pos;
            if (const TensorSharding* s = ir::opSharding(*op))
                site.existing = s->toString();
            if (v->type().isRankedTensor()) {
                Leaf leaf{site.path, v->type().shape(), v->type().elementType(), site.annotation};
                site.result = applyRules(rules, out.mesh, leaf);
                if (!site.result.error.empty()) {
                    out.diagnostics.error(op->pos.isKnown() ? op->pos : func->pos,
                                          "sharding constraint " + site.value + " of " + funcName + " (annotation '" +
                                              site.annotation + "'): " + site.result.error);
                } else if (site.result.rule >= 0) {
                    const TensorSharding s = annotateSharding(out.meshName, site.result.spec, v->type().rank());
                    ir::setOpSharding(*op, s);
                    site.sharding = s.toString();
                }
            }
            out.sites.push_back(std::move(site));
        });
    }
    for (const ShardingRule& r : rules.rules)
        for (const NamedRule::Entry& e : r.named.entries)
            if (!namesSeen.count(e.name))
                out.diagnostics.warning(modulePos, "named rule " + e.pointer +
                                                       ": no sharding constraint of the module "
                                                       "is annotated '" +
                                                       e.name + "'");
    return out;
}

std::string printAnnotations(const AnnotateResult& result)
{
    std::string s = "mesh @" + result.meshName + " = " + result.mesh.toString() +
                    (result.meshAdded ? " (added)\n" : " (the module's)\n");
    for (const ArgumentAnnotation& a : result.arguments) {
        s += a.func + " " + a.value + " " + a.path + " " + a.type + ": ";
        if (a.kept)
            s += "kept" + (a.sharding.empty() ? std::string() : " as " + a.sharding);
        else if (!a.result.error.empty())
            s += "error: " + a.result.error;
        else if (a.sharding.empty())
            s += a.isResult ? "no rule matched: left as it is" : "(no array)";
        else
            s += partitionSpecText(a.result.spec) + " " + a.sharding + " (" +
                 (a.result.rule < 0 ? std::string("no rule matched: replicated") : a.result.matched) + ")";
        if (!a.existing.empty()) {
            const std::string had =
                (a.existing[0] == '{' ? "mhlo.sharding " : "sdy.sharding ") + a.existing +
                (a.existingSpec.empty() ? std::string()
                                        : (a.existingSpec.rfind("P(", 0) == 0 ? " = " : ": ") + a.existingSpec);
            s += a.kept ? " (" + had + ")" : "; had " + had;
        }
        s += "\n";
    }
    for (const AnnotationSite& site : result.sites) {
        s += site.func + " " + site.value + " annotation '" + site.annotation + "' " + site.type + ": ";
        if (!site.result.error.empty())
            s += "error: " + site.result.error;
        else if (site.sharding.empty())
            s += "no named rule: kept " + (site.existing.empty() ? std::string("(none)") : site.existing);
        else
            s += partitionSpecText(site.result.spec) + " " + site.sharding + " (" + site.result.matched + ")";
        s += "\n";
    }
    return s;
}

} // namespace shardx::annotate
