// shardx-cli explicit and annotate: JAX's explicit (typed) sharding mode and scalax-style rule-based
// annotation.
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/CliSupport.h"
#include "core/annotate/ModuleAnnotator.h"
#include "core/explicit/ExplicitComparison.h"
#include "core/explicit/ExplicitTyper.h"
#include "core/io/MlirPrinter.h"
#include "core/io/ModuleLoader.h"

#include <nlohmann/json.hpp>

namespace shardx::cli {

/// `explicit FILE [--axes X=explicit,Y=auto] [--mesh M] [--compare [--strategy S]] [--json]`: every
/// value's type in JAX's explicit sharding mode and every trace-time error.
int cmdExplicit(int argc, char** argv)
{
    Args args = parseArgs(argc, argv, 2, {"axes", "mesh", "strategy", "output", "o", "part"});
    const std::string strategy = args.get("strategy", "pipeline");
    if (!args.error.empty() || args.positional.size() != 1 || !findPropagationStrategy(strategy)) {
        std::cerr << "usage: shardx-cli explicit FILE [--axes X=explicit,Y=auto,Z=manual] [--mesh NAME] [--compare "
                     "[--strategy S]] [--json] [--part N] [-o FILE]\n";
        if (!args.error.empty())
            std::cerr << "shardx-cli explicit: error: " << args.error << "\n";
        return 2;
    }
    explicit_::ExplicitOptions options;
    if (args.has("axes")) {
        Expected<explicit_::AxisTypeOverrides> axes = explicit_::parseAxisTypeOverrides(args.get("axes"));
        if (!axes) {
            std::cerr << "shardx-cli explicit: error: --axes: " << axes.error().message << "\n";
            return 2;
        }
        options.axisTypes = *axes;
    }
    options.meshName = args.get("mesh");
    Session& session = freshSession();
    if (!openVerified(session, args.positional[0], args, "explicit"))
        return 1;
    if (!options.meshName.empty() && !session.sourceModule()->findMesh(options.meshName)) {
        std::cerr << "shardx-cli explicit: error: the module has no mesh @" << options.meshName << "\n";
        return 2;
    }
    options.ids = session.ids();
    const explicit_::ExplicitResult result = explicit_::typeModule(*session.sourceModule(), options);
    std::cerr << result.diagnostics.formatAll();
    std::vector<explicit_::TypeDifference> differences;
    if (args.has("compare")) {
        if (!propagate(session, strategy, false))
            return 1;
        differences = explicit_::compareWithPropagated(result, *session.module());
    }
    std::string out;
    if (args.has("json")) {
        nlohmann::json j;
        j["mesh"] = result.meshName;
        j["abstract_mesh"] = result.axisTypes.toString(result.mesh);
        j["axis_types"] = nlohmann::json::array();
        for (size_t i = 0; i < result.axisTypes.axes.size(); ++i)
            j["axis_types"].push_back({{"axis", result.axisTypes.axes[i]},
                                       {"type", explicit_::axisTypeName(result.axisTypes.types[i])},
                                       {"source", result.axisTypes.sources[i]}});
        j["values"] = nlohmann::json::array();
        for (const explicit_::TypedValue& v : result.values)
            j["values"].push_back({{"func", v.func},
                                   {"name", v.name},
                                   {"op", v.opName},
                                   {"type", v.type ? nlohmann::json(v.type->toString()) : nlohmann::json()},
                                   {"how", v.how},
                                   {"line", v.pos.line},
                                   {"col", v.pos.col}});
        j["errors"] = nlohmann::json::array();
        for (const Diagnostic& d : result.diagnostics.all())
            j["errors"].push_back({{"severity", severityName(d.severity)},
                                   {"file", d.pos.file},
                                   {"line", d.pos.line},
                                   {"col", d.pos.col},
                                   {"message", d.message}});
        if (args.has("compare")) {
            j["differences"] = nlohmann::json::array();
            for (const explicit_::TypeDifference& d : differences)
                j["differences"].push_back({{"func", d.func},
                                            {"name", d.name},
                                            {"type", d.type.toString()},
                                            {"propagated", d.concrete},
                                            {"sharding", d.sharding},
                                            {"more_specific", d.moreSpecific},
                                            {"reason", d.reason}});
        }
        out = j.dump(1) + "\n";
    } else {
        out = explicit_::printTypes(result);
        if (args.has("compare")) {
            out += differences.empty() ? "Shardy's propagation (" + strategy + ") agrees with every type\n"
                                       : "differences from Shardy's propagation (" + strategy + "):\n";
            for (const explicit_::TypeDifference& d : differences)
                out += d.func + " " + d.name + ": type " + d.type.toString() + ", propagated " + d.concrete + " (" +
                       d.sharding + "): " + d.reason + "\n";
        }
    }
    if (!writeOutput(args, out))
        return 1;
    return result.ok() ? 0 : 1;
}

/// `annotate FILE --rules RULES.json [--devices N] [--keep-existing] [--propagate [--strategy S]] [-o
/// FILE]`: shardings of the public functions' arguments (and results, and named sharding constraints)
/// from scalax-style rules.
int cmdAnnotate(int argc, char** argv)
{
    Args args = parseArgs(argc, argv, 2, {"rules", "devices", "strategy", "output", "o", "part"});
    const std::string strategy = args.get("strategy", "pipeline");
    int64_t devices = 0;
    const bool devicesOk = !args.has("devices") || (parseInt(args.get("devices"), devices) && devices > 0);
    if (!args.error.empty() || args.positional.size() != 1 || !args.has("rules") || !devicesOk ||
        !findPropagationStrategy(strategy)) {
        std::cerr << "usage: shardx-cli annotate FILE --rules RULES.json [--devices N] [--keep-existing] [--propagate "
                     "[--strategy S]] [-o FILE]\n";
        if (!devicesOk)
            std::cerr << "shardx-cli annotate: error: --devices expects a positive integer\n";
        return 2;
    }
    std::string rulesText;
    if (!io::readFileText(args.get("rules"), rulesText)) {
        std::cerr << args.get("rules") << ": error: cannot open rule file '" << args.get("rules") << "'\n";
        return 1;
    }
    Expected<annotate::RuleSet> rules = annotate::parseRuleSet(rulesText, args.get("rules"));
    if (!rules) {
        std::cerr << rules.error().format() << "\n";
        return 1;
    }
    Session& session = freshSession();
    if (!openVerified(session, args.positional[0], args, "annotate"))
        return 1;
    std::unique_ptr<ir::Module> module = session.sourceModule()->clone();
    annotate::AnnotateOptions options;
    options.devices = devices;
    options.keepExisting = args.has("keep-existing");
    const annotate::AnnotateResult result = annotate::annotateModule(*module, *rules, options);
    std::cerr << result.diagnostics.formatAll();
    if (!result.mesh.axes().empty())
        std::cerr << annotate::printAnnotations(result);
    if (!result.ok())
        return 1;
    io::PrintOptions print;
    print.printDebugInfo = true;
    std::string text = io::printModule(*module, print);
    if (args.has("propagate")) {
        Session annotated;
        if (!annotated.openText(text, session.path())) {
            std::cerr << annotated.diagnostics().formatAll();
            return 1;
        }
        if (!propagate(annotated, strategy, false))
            return 1;
        text = annotated.text();
    }
    return writeOutput(args, text) ? 0 : 1;
}

} // namespace shardx::cli
