// ShardingRules: the rule file reader (errors at JSON pointers), the mesh helper and rule application.
#include "core/annotate/ShardingRules.h"

#include <algorithm>
#include <numeric>
#include <set>

#include <nlohmann/json.hpp>

#include "core/sharding/JaxSharding.h"

namespace shardx::annotate {

using nlohmann::json;

std::string partitionSpecText(const PartitionSpec& spec)
{
    std::string s = "P(";
    for (size_t i = 0; i < spec.size(); ++i) {
        if (i)
            s += ", ";
        if (spec[i].empty())
            s += "None";
        else if (spec[i].size() == 1)
            s += pythonString(spec[i][0]);
        else {
            s += "(";
            for (size_t j = 0; j < spec[i].size(); ++j)
                s += (j ? ", " : "") + pythonString(spec[i][j]);
            s += ")";
        }
    }
    return s + ")";
}

const char* ruleKindName(ShardingRule::Kind k)
{
    switch (k) {
    case ShardingRule::Kind::Fsdp: return "fsdp";
    case ShardingRule::Kind::TreePath: return "tree_path";
    case ShardingRule::Kind::Policy: return "policy";
    case ShardingRule::Kind::Named: return "named";
    }
    return "?";
}

int64_t largestPowerOfTwoDivisor(int64_t n)
{
    if (n <= 0)
        return 1;
    int64_t p = 1;
    while (n % 2 == 0) {
        n /= 2;
        p *= 2;
    }
    return p;
}

Expected<Mesh> buildMesh(const MeshSpec& spec, int64_t deviceCount)
{
    if (spec.axisDims.size() != spec.axisNames.size())
        return Error{"mesh: axis_dims has " + std::to_string(spec.axisDims.size()) + " entries and axis_names " +
                         std::to_string(spec.axisNames.size()),
                     {}};
    int64_t known = 1;
    int inferred = -1;
    for (size_t i = 0; i < spec.axisDims.size(); ++i) {
        if (spec.axisDims[i] == -1) {
            if (inferred >= 0)
                return Error{"mesh: only one of axis_dims may be -1", {}};
            inferred = static_cast<int>(i);
        } else {
            known *= spec.axisDims[i];
        }
    }
    std::vector<MeshAxis> axes;
    for (size_t i = 0; i < spec.axisDims.size(); ++i)
        axes.push_back(MeshAxis{spec.axisNames[i], spec.axisDims[i]});
    if (inferred >= 0) {
        if (deviceCount <= 0)
            return Error{"mesh: axis_dims has -1, and no device count is known (the module has no "
                         "mhlo.num_partitions: give --devices N)",
                         {}};
        if (deviceCount % known != 0)
            return Error{"mesh: " + std::to_string(deviceCount) + " devices cannot be split into axes of " +
                             std::to_string(known) + " devices and one inferred axis (-1)",
                         {}};
        axes[static_cast<size_t>(inferred)].size = deviceCount / known;
    } else if (deviceCount > 0 && known != deviceCount) {
        return Error{"mesh: axis_dims multiply to " + std::to_string(known) + " devices, the module has " +
                         std::to_string(deviceCount),
                     {}};
    }
    return Mesh(std::move(axes));
}

std::string jsonPointerToken(const std::string& key)
{
    std::string out;
    for (char c : key) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

namespace {

/// A reading error at a JSON pointer.
struct RulesReadError {
    std::string pointer;
    std::string message;
};

[[noreturn]] void rulesFail(const std::string& pointer, const std::string& message)
{
    throw RulesReadError{pointer, message};
}

const json& rulesAt(const json& j, const std::string& key, const std::string& pointer)
{
    if (!j.contains(key))
        rulesFail(pointer, "missing \"" + key + "\"");
    return j.at(key);
}

int64_t rulesInt(const json& j, const std::string& pointer)
{
    if (!j.is_number_integer())
        rulesFail(pointer, "expected an integer, got " + j.dump());
    return j.get<int64_t>();
}

std::string rulesString(const json& j, const std::string& pointer)
{
    if (!j.is_string())
        rulesFail(pointer, "expected a string, got " + j.dump());
    return j.get<std::string>();
}

std::regex rulesRegex(const std::string& pattern, const std::string& pointer)
{
    try {
        return std::regex(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
        rulesFail(pointer, "invalid regular expression '" + pattern + "': " + e.what());
    }
}

/// A spec: a list with one entry per dimension: null, an axis name or a list of axis names.
PartitionSpec rulesSpec(const json& j, const std::string& pointer)
{
    if (!j.is_array())
        rulesFail(pointer, "expected a spec (a list with one entry per dimension: null, an axis name or a list of "
                           "axis names), got " +
                               j.dump());
    PartitionSpec spec;
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string p = pointer + "/" + std::to_string(i);
        const json& e = j[i];
        std::vector<std::string> axes;
        if (e.is_null()) {
        } else if (e.is_string()) {
            axes.push_back(e.get<std::string>());
        } else if (e.is_array()) {
            for (size_t k = 0; k < e.size(); ++k)
                axes.push_back(rulesString(e[k], p + "/" + std::to_string(k)));
        } else {
            rulesFail(p, "expected null, an axis name or a list of axis names, got " + e.dump());
        }
        spec.push_back(axes);
    }
    return spec;
}

void rulesCheckKeys(const json& j, const std::string& pointer, const std::vector<std::string>& allowed)
{
    for (auto it = j.begin(); it != j.end(); ++it)
        if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
            std::string list;
            for (const std::string& a : allowed)
                list += (list.empty() ? "" : ", ") + a;
            rulesFail(pointer + "/" + it.key(), "unknown key \"" + it.key() + "\" (expected: " + list + ")");
        }
}

ShardingRule rulesReadRule(const json& j, const std::string& pointer)
{
    if (!j.is_object())
        rulesFail(pointer, "expected a rule object with a \"kind\", got " + j.dump());
    ShardingRule r;
    r.pointer = pointer;
    const std::string kind = rulesString(rulesAt(j, "kind", pointer), pointer + "/kind");
    if (kind == "fsdp") {
        r.kind = ShardingRule::Kind::Fsdp;
        rulesCheckKeys(j, pointer, {"kind", "fsdp_axis_name", "fsdp_axis_size", "min_fsdp_size"});
        const json& name = rulesAt(j, "fsdp_axis_name", pointer);
        if (name.is_array()) {
            for (size_t i = 0; i < name.size(); ++i)
                r.fsdp.axisName.push_back(rulesString(name[i], pointer + "/fsdp_axis_name/" + std::to_string(i)));
        } else {
            r.fsdp.axisName.push_back(rulesString(name, pointer + "/fsdp_axis_name"));
        }
        if (j.contains("fsdp_axis_size") && !j.at("fsdp_axis_size").is_null()) {
            r.fsdp.axisSize = rulesInt(j.at("fsdp_axis_size"), pointer + "/fsdp_axis_size");
            if (*r.fsdp.axisSize < 1)
                rulesFail(pointer + "/fsdp_axis_size", "must be at least 1");
        }
        if (j.contains("min_fsdp_size"))
            r.fsdp.minSize = rulesInt(j.at("min_fsdp_size"), pointer + "/min_fsdp_size");
    } else if (kind == "tree_path") {
        r.kind = ShardingRule::Kind::TreePath;
        rulesCheckKeys(j, pointer, {"kind", "patterns", "strict"});
        const json& patterns = rulesAt(j, "patterns", pointer);
        if (!patterns.is_array())
            rulesFail(pointer + "/patterns", "expected a list of [regex, spec] pairs");
        for (size_t i = 0; i < patterns.size(); ++i) {
            const std::string p = pointer + "/patterns/" + std::to_string(i);
            if (!patterns[i].is_array() || patterns[i].size() != 2)
                rulesFail(p, "expected a [regex, spec] pair, got " + patterns[i].dump());
            TreePathRule::Pattern pat;
            pat.regex = rulesString(patterns[i][0], p + "/0");
            pat.compiled = rulesRegex(pat.regex, p + "/0");
            pat.spec = rulesSpec(patterns[i][1], p + "/1");
            r.treePath.patterns.push_back(std::move(pat));
        }
        if (j.contains("strict")) {
            if (!j.at("strict").is_boolean())
                rulesFail(pointer + "/strict", "expected true or false, got " + j.at("strict").dump());
            r.treePath.strict = j.at("strict").get<bool>();
        }
    } else if (kind == "policy") {
        r.kind = ShardingRule::Kind::Policy;
        rulesCheckKeys(j, pointer, {"kind", "policies"});
        const json& list = rulesAt(j, "policies", pointer);
        if (!list.is_array())
            rulesFail(pointer + "/policies", "expected a list of {\"if\": {...}, \"spec\": [...]} entries");
        for (size_t i = 0; i < list.size(); ++i) {
            const std::string p = pointer + "/policies/" + std::to_string(i);
            if (!list[i].is_object())
                rulesFail(p, "expected {\"if\": {...}, \"spec\": [...]}, got " + list[i].dump());
            rulesCheckKeys(list[i], p, {"if", "spec"});
            PolicyRule::Entry e;
            e.spec = rulesSpec(rulesAt(list[i], "spec", p), p + "/spec");
            if (list[i].contains("if")) {
                const json& c = list[i].at("if");
                const std::string cp = p + "/if";
                if (!c.is_object())
                    rulesFail(cp, "expected an object of conditions");
                rulesCheckKeys(c, cp, {"path", "rank", "shape", "dtype", "min_size"});
                if (c.contains("path")) {
                    e.when.path = rulesString(c.at("path"), cp + "/path");
                    e.when.pathRegex = rulesRegex(*e.when.path, cp + "/path");
                }
                if (c.contains("rank"))
                    e.when.rank = rulesInt(c.at("rank"), cp + "/rank");
                if (c.contains("shape")) {
                    const json& s = c.at("shape");
                    if (!s.is_array())
                        rulesFail(cp + "/shape", "expected a list of sizes (null: any)");
                    std::vector<std::optional<int64_t>> shape;
                    for (size_t k = 0; k < s.size(); ++k)
                        shape.push_back(s[k].is_null() ? std::nullopt
                                                       : std::optional<int64_t>(
                                                             rulesInt(s[k], cp + "/shape/" + std::to_string(k))));
                    e.when.shape = shape;
                }
                if (c.contains("dtype"))
                    e.when.dtype = rulesString(c.at("dtype"), cp + "/dtype");
                if (c.contains("min_size"))
                    e.when.minSize = rulesInt(c.at("min_size"), cp + "/min_size");
            }
            r.policy.entries.push_back(std::move(e));
        }
    } else if (kind == "named") {
        r.kind = ShardingRule::Kind::Named;
        rulesCheckKeys(j, pointer, {"kind", "annotations"});
        const json& map = rulesAt(j, "annotations", pointer);
        if (!map.is_object())
            rulesFail(pointer + "/annotations",
                      "expected an object mapping annotation names to specs ({\"hidden\": [\"data\", null]}), got " +
                          map.dump());
        for (auto it = map.begin(); it != map.end(); ++it) {
            const std::string p = pointer + "/annotations/" + jsonPointerToken(it.key());
            if (it.key().empty())
                rulesFail(p, "an annotation name must not be empty");
            r.named.entries.push_back(NamedRule::Entry{it.key(), rulesSpec(it.value(), p), p});
        }
    } else {
        rulesFail(pointer + "/kind", "unknown rule kind \"" + kind + "\" (expected fsdp, tree_path, policy or named)");
    }
    return r;
}

/// Line and column (1-based) of byte `offset` of `text`.
std::pair<int, int> rulesLineCol(std::string_view text, size_t offset)
{
    int line = 1, col = 1;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return {line, col};
}

} // namespace

Expected<RuleSet> parseRuleSet(std::string_view text, const std::string& fileName)
{
    json j;
    try {
        j = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        auto [line, col] = rulesLineCol(text, e.byte > 0 ? e.byte - 1 : 0);
        return Error{"invalid JSON: " + std::string(e.what()), SourcePos{fileName, line, col}};
    }
    try {
        if (!j.is_object())
            rulesFail("", "expected an object {\"mesh\": {...}, \"rules\": [...]}");
        rulesCheckKeys(j, "", {"mesh", "rules"});
        RuleSet set;
        const json& mesh = rulesAt(j, "mesh", "");
        if (!mesh.is_object())
            rulesFail("/mesh", "expected {\"axis_dims\": [...], \"axis_names\": [...]}");
        rulesCheckKeys(mesh, "/mesh", {"axis_dims", "axis_names", "mesh_axis_splitting"});
        const json& dims = rulesAt(mesh, "axis_dims", "/mesh");
        const json& names = rulesAt(mesh, "axis_names", "/mesh");
        if (!dims.is_array())
            rulesFail("/mesh/axis_dims", "expected a list of axis sizes (one may be -1)");
        if (!names.is_array())
            rulesFail("/mesh/axis_names", "expected a list of axis names");
        for (size_t i = 0; i < dims.size(); ++i) {
            const int64_t d = rulesInt(dims[i], "/mesh/axis_dims/" + std::to_string(i));
            if (d < 1 && d != -1)
                rulesFail("/mesh/axis_dims/" + std::to_string(i), "an axis size must be at least 1 (or -1: inferred)");
            set.mesh.axisDims.push_back(d);
        }
        std::set<std::string> seen;
        for (size_t i = 0; i < names.size(); ++i) {
            const std::string n = rulesString(names[i], "/mesh/axis_names/" + std::to_string(i));
            if (!seen.insert(n).second)
                rulesFail("/mesh/axis_names/" + std::to_string(i), "axis name \"" + n + "\" is given twice");
            set.mesh.axisNames.push_back(n);
        }
        if (set.mesh.axisDims.size() != set.mesh.axisNames.size())
            rulesFail("/mesh", "axis_dims has " + std::to_string(set.mesh.axisDims.size()) +
                                   " entries and axis_names " + std::to_string(set.mesh.axisNames.size()));
        if (std::count(set.mesh.axisDims.begin(), set.mesh.axisDims.end(), -1) > 1)
            rulesFail("/mesh/axis_dims", "only one axis size may be -1");
        if (mesh.contains("mesh_axis_splitting")) {
            if (!mesh.at("mesh_axis_splitting").is_boolean())
                rulesFail("/mesh/mesh_axis_splitting", "expected true or false");
            set.mesh.meshAxisSplitting = mesh.at("mesh_axis_splitting").get<bool>();
        }
        const json& rules = rulesAt(j, "rules", "");
        if (!rules.is_array())
            rulesFail("/rules", "expected a list of rules");
        for (size_t i = 0; i < rules.size(); ++i)
            set.rules.push_back(rulesReadRule(rules[i], "/rules/" + std::to_string(i)));
        // Every axis a rule names must be a mesh axis.
        auto checkAxis = [&](const std::string& axis, const std::string& pointer) {
            if (!seen.count(axis))
                rulesFail(pointer, "axis \"" + axis + "\" is not in mesh.axis_names");
        };
        for (size_t i = 0; i < set.rules.size(); ++i) {
            const ShardingRule& r = set.rules[i];
            const std::string p = "/rules/" + std::to_string(i);
            auto checkSpec = [&](const PartitionSpec& spec, const std::string& sp) {
                for (size_t d = 0; d < spec.size(); ++d)
                    for (size_t k = 0; k < spec[d].size(); ++k)
                        checkAxis(spec[d][k], sp + "/" + std::to_string(d) +
                                                  (rules[i].is_object() && spec[d].size() > 1 ? "/" + std::to_string(k)
                                                                                              : std::string()));
            };
            if (r.kind == ShardingRule::Kind::Fsdp)
                for (size_t k = 0; k < r.fsdp.axisName.size(); ++k)
                    checkAxis(r.fsdp.axisName[k],
                              p + "/fsdp_axis_name" + (r.fsdp.axisName.size() > 1 ? "/" + std::to_string(k) : ""));
            for (size_t k = 0; k < r.treePath.patterns.size(); ++k)
                checkSpec(r.treePath.patterns[k].spec, p + "/patterns/" + std::to_string(k) + "/1");
            for (size_t k = 0; k < r.policy.entries.size(); ++k)
                checkSpec(r.policy.entries[k].spec, p + "/policies/" + std::to_string(k) + "/spec");
            for (const NamedRule::Entry& e : r.named.entries)
                checkSpec(e.spec, e.pointer);
        }
        return set;
    } catch (const RulesReadError& e) {
        return Error{(e.pointer.empty() ? std::string("/") : e.pointer) + ": " + e.message, SourcePos{fileName, 0, 0}};
    }
}

namespace {

/// What is wrong with `spec` for `leaf` on `mesh`; empty when it fits.
std::string rulesSpecProblem(const PartitionSpec& spec, const Mesh& mesh, const Leaf& leaf)
{
    if (spec.size() > leaf.shape.size())
        return partitionSpecText(spec) + " has " + std::to_string(spec.size()) + " entries for a tensor of rank " +
               std::to_string(leaf.shape.size());
    std::set<std::string> used;
    for (size_t d = 0; d < spec.size(); ++d) {
        int64_t shards = 1;
        for (const std::string& a : spec[d]) {
            if (!mesh.hasAxis(a))
                return partitionSpecText(spec) + " names axis '" + a + "', which the mesh does not have";
            if (!used.insert(a).second)
                return partitionSpecText(spec) + " names axis '" + a + "' twice";
            shards *= *mesh.axisSize(a);
        }
        if (leaf.shape[d] >= 0 && leaf.shape[d] % shards != 0)
            return partitionSpecText(spec) + " splits dimension " + std::to_string(d) + " of size " +
                   std::to_string(leaf.shape[d]) + " into " + std::to_string(shards) +
                   " shards, which do not divide it";
    }
    return {};
}

int64_t rulesElementCount(const Leaf& leaf)
{
    int64_t n = 1;
    for (int64_t d : leaf.shape)
        n *= std::max<int64_t>(d, 0);
    return n;
}

/// Dimensions by decreasing size; equal sizes keep their order (a stable sort).
std::vector<size_t> rulesBySize(const Leaf& leaf)
{
    std::vector<size_t> order(leaf.shape.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return leaf.shape[a] > leaf.shape[b]; });
    return order;
}

bool rulesDtypeMatches(const std::string& wanted, const std::string& mlir)
{
    return wanted == mlir || wanted == jaxDtypeName(mlir) || (wanted == "float32" && mlir == "f32") ||
           (wanted == "bfloat16" && mlir == "bf16") || (wanted == "int32" && mlir == "i32");
}

} // namespace

LeafSharding applyRules(const RuleSet& rules, const Mesh& mesh, const Leaf& leaf)
{
    LeafSharding out;
    for (size_t i = 0; i < rules.rules.size(); ++i) {
        const ShardingRule& r = rules.rules[i];
        std::optional<PartitionSpec> spec;
        std::string how;
        // Named rules are for annotation sites, the other kinds for parameters.
        if ((r.kind == ShardingRule::Kind::Named) != leaf.annotation.has_value())
            continue;
        if (r.kind == ShardingRule::Kind::Named) {
            for (const NamedRule::Entry& e : r.named.entries)
                if (e.name == *leaf.annotation) {
                    spec = e.spec;
                    how = "annotation '" + e.name + "'";
                    break;
                }
        } else if (r.kind == ShardingRule::Kind::Fsdp) {
            if (leaf.shape.empty() || rulesElementCount(leaf) < r.fsdp.minSize)
                continue;
            std::optional<size_t> dim;
            if (r.fsdp.axisSize) {
                for (size_t d : rulesBySize(leaf))
                    if (leaf.shape[d] % *r.fsdp.axisSize == 0) {
                        dim = d;
                        break;
                    }
            } else {
                int64_t best = 0;
                for (size_t d : rulesBySize(leaf)) {
                    const int64_t p = largestPowerOfTwoDivisor(leaf.shape[d]);
                    if (p > best) {
                        best = p;
                        dim = d;
                    }
                }
            }
            if (!dim)
                continue;
            spec = PartitionSpec(*dim + 1);
            (*spec)[*dim] = r.fsdp.axisName;
            how = "dimension " + std::to_string(*dim);
        } else if (r.kind == ShardingRule::Kind::TreePath) {
            for (size_t k = 0; k < r.treePath.patterns.size() && !spec; ++k)
                if (std::regex_search(leaf.path, r.treePath.patterns[k].compiled)) {
                    spec = r.treePath.patterns[k].spec;
                    how = "pattern " + std::to_string(k) + " '" + r.treePath.patterns[k].regex + "'";
                }
            if (!spec && r.treePath.strict) {
                out.rule = static_cast<int>(i);
                out.error = "'" + leaf.path + "' matches no pattern of the strict tree_path rule " + r.pointer;
                return out;
            }
        } else {
            for (size_t k = 0; k < r.policy.entries.size() && !spec; ++k) {
                const PolicyRule::Condition& c = r.policy.entries[k].when;
                bool ok = true;
                ok = ok && (!c.pathRegex || std::regex_search(leaf.path, *c.pathRegex));
                ok = ok && (!c.rank || *c.rank == static_cast<int64_t>(leaf.shape.size()));
                if (ok && c.shape) {
                    ok = c.shape->size() == leaf.shape.size();
                    for (size_t d = 0; ok && d < leaf.shape.size(); ++d)
                        ok = !(*c.shape)[d] || *(*c.shape)[d] == leaf.shape[d];
                }
                ok = ok && (!c.dtype || rulesDtypeMatches(*c.dtype, leaf.elementType));
                ok = ok && (!c.minSize || rulesElementCount(leaf) >= *c.minSize);
                if (ok) {
                    spec = r.policy.entries[k].spec;
                    how = "entry " + std::to_string(k);
                }
            }
        }
        if (!spec)
            continue;
        out.rule = static_cast<int>(i);
        out.matched = std::string(ruleKindName(r.kind)) + " rule " + r.pointer + ": " + how;
        out.error = rulesSpecProblem(*spec, mesh, leaf);
        if (out.error.empty())
            out.spec = *spec;
        return out;
    }
    return out;
}

} // namespace shardx::annotate
