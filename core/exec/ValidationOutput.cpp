// Validation: the report as JSON and as text (validate() itself is in Validation.cpp).
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/exec/Validation.h"
#include "core/exec/ValidationText.h"

namespace shardx::exec {

std::string valNumber(double v)
{
    if (std::isinf(v))
        return "inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

std::string valToleranceText(const Tolerance& t)
{
    return t.exact() ? std::string("exact") : valNumber(t.abs) + " + " + valNumber(t.rel) + "*max|x|";
}

std::string valDevicesText(const std::vector<int64_t>& ids)
{
    std::string s = "[";
    for (size_t i = 0; i < ids.size(); ++i)
        s += (i ? ", " : "") + std::to_string(ids[i]);
    return s + "]";
}

// ---- output -------------------------------------------------------------------------------------------

namespace {

const char* valKindName(ValueComparison::Kind k)
{
    switch (k) {
    case ValueComparison::Kind::Argument: return "argument";
    case ValueComparison::Kind::Intermediate: return "intermediate";
    case ValueComparison::Kind::Result: return "result";
    }
    return "";
}

std::string valPosText(const SourcePos& p)
{
    return p.isKnown() ? p.file + ":" + std::to_string(p.line) + ":" + std::to_string(p.col) : std::string();
}

nlohmann::json valRowJson(const ValueComparison& r)
{
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& g : r.replicaDisagreements)
        groups.push_back(g);
    return {{"kind", valKindName(r.kind)},
            {"name", r.name},
            {"global_name", r.globalName},
            {"op", r.opName},
            {"location", valPosText(r.pos)},
            {"type", r.type},
            {"local_type", r.localType},
            {"sharding", r.sharding},
            {"elements", r.elements},
            {"max_abs_error", std::isinf(r.maxAbsError) ? nlohmann::json("inf") : nlohmann::json(r.maxAbsError)},
            {"max_rel_error", std::isinf(r.maxRelError) ? nlohmann::json("inf") : nlohmann::json(r.maxRelError)},
            {"nmse", std::isinf(r.nmse) ? nlohmann::json("inf") : nlohmann::json(r.nmse)},
            {"tolerance", {{"abs", r.tolerance.abs}, {"rel", r.tolerance.rel}}},
            {"scale", r.scale},
            {"mismatches", r.mismatches},
            {"devices", r.devices},
            {"replica_disagreements", groups},
            {"match", r.matches()}};
}

} // namespace

nlohmann::json validationJson(const ValidationReport& report)
{
    nlohmann::json j;
    j["format"] = "shardx-validation";
    j["version"] = 1;
    j["verdict"] = report.matches() ? "match" : "mismatch";
    j["backend"] = report.backend;
    j["strategy"] = report.strategy;
    j["mesh"] = report.mesh;
    j["devices"] = report.devices;
    j["seed"] = report.seed;
    j["fault"] = report.fault;
    if (!report.fault.empty())
        j["fault_at"] = {
            {"op", report.faultOp}, {"location", valPosText(report.faultPos)}, {"device", report.faultDevice}};
    for (const char* key : {"arguments", "intermediates", "results"}) {
        const auto& list = std::string(key) == "arguments"       ? report.arguments
                           : std::string(key) == "intermediates" ? report.intermediates
                                                                 : report.results;
        j[key] = nlohmann::json::array();
        for (const ValueComparison& r : list)
            j[key].push_back(valRowJson(r));
    }
    j["skipped"] = report.skipped;
    if (report.firstDivergence) {
        const Divergence& d = *report.firstDivergence;
        j["first_divergence"] = {{"value", d.value},
                                 {"op", d.opName},
                                 {"location", valPosText(d.pos)},
                                 {"device", d.device},
                                 {"what", d.what}};
    } else {
        j["first_divergence"] = nullptr;
    }
    j["backend_summary"] = report.backendSummary;
    j["timings"] = report.timed ? timingsJson(report.timings) : nlohmann::json(nullptr);
    return j;
}

std::string validationText(const ValidationReport& report, size_t timingRows)
{
    std::string out = "mesh " + report.mesh + " (" + std::to_string(report.devices) + " devices), backend " +
                      report.backend + (report.strategy.empty() ? "" : ", strategy " + report.strategy) + ", seed " +
                      std::to_string(report.seed) + "\n";
    if (!report.fault.empty())
        out += "injected fault: " + report.fault + "\n";
    std::vector<const ValueComparison*> rows;
    for (const auto* list : {&report.arguments, &report.intermediates, &report.results})
        for (const ValueComparison& r : *list)
            rows.push_back(&r);
    size_t nameWidth = 5, typeWidth = 4, shardingWidth = 8;
    for (const ValueComparison* r : rows) {
        nameWidth = std::max(nameWidth, r->name.size());
        typeWidth = std::max(typeWidth, r->type.size());
        shardingWidth = std::max(shardingWidth, r->sharding.size());
    }
    auto pad = [](std::string s, size_t w) {
        if (s.size() < w)
            s.append(w - s.size(), ' ');
        return s;
    };
    out += pad("value", nameWidth) + "  " + pad("type", typeWidth) + "  " + pad("sharding", shardingWidth) +
           "  max abs err  max rel err  NMSE       tolerance              verdict\n";
    for (const ValueComparison* r : rows) {
        std::string verdict = r->matches() ? "match" : "MISMATCH";
        if (!r->devices.empty())
            verdict += " on devices " + valDevicesText(r->devices);
        for (const auto& g : r->replicaDisagreements)
            verdict += "; replicas " + valDevicesText(g) + " disagree";
        out += pad(r->name, nameWidth) + "  " + pad(r->type, typeWidth) + "  " + pad(r->sharding, shardingWidth) +
               "  " + pad(valNumber(r->maxAbsError), 11) + "  " + pad(valNumber(r->maxRelError), 11) + "  " +
               pad(valNumber(r->nmse), 9) + "  " + pad(valToleranceText(r->tolerance), 21) + "  " + verdict + "\n";
    }
    if (!report.skipped.empty())
        out += std::to_string(report.skipped.size()) + " values not compared (--json lists why)\n";
    if (!report.backendSummary.empty())
        out += report.backendSummary + "\n";
    if (report.timed)
        out += timingsText(report.timings, timingRows);
    const size_t compared = rows.size();
    if (report.matches()) {
        out += "verdict: match (" + std::to_string(compared) + (compared == 1 ? " value" : " values") +
               " compared on " + std::to_string(report.devices) + " devices)\n";
    } else {
        const Divergence& d = *report.firstDivergence;
        out += "verdict: MISMATCH: first divergence " + d.value + (d.opName.empty() ? "" : " (" + d.opName + ")") +
               (d.pos.isKnown() ? " at " + valPosText(d.pos) : "") + " on device " + std::to_string(d.device) + ": " +
               d.what + "\n";
    }
    return out;
}

} // namespace shardx::exec
