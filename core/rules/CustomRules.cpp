// CustomRules: parsing of einsum-like user rules, rules files, and their use on ops.
#include "core/rules/CustomRules.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/ir/StablehloAttrs.h"
#include "core/sharding/RuleVerifier.h"
#include "core/support/Arithmetic.h"
#include "core/support/JsonText.h"

namespace shardx {

namespace {

class RuleParser {
public:
    explicit RuleParser(const std::string& text) : m_s(text) {}

    Expected<CustomRuleSpec> parse()
    {
        CustomRuleSpec spec;
        spec.text = m_s;
        if (!parseTensors(spec, spec.operands))
            return m_error;
        skip();
        if (!consume("->"))
            return fail("expected '->'");
        if (!parseTensors(spec, spec.results))
            return m_error;
        skip();
        if (consume("{")) {
            if (!parseOptions(spec))
                return m_error;
        }
        skip();
        if (m_pos < m_s.size())
            return fail("unexpected '" + std::string(1, m_s[m_pos]) + "' after the rule");
        return spec;
    }

private:
    Error fail(const std::string& msg)
    {
        m_error = Error{msg, SourcePos{"", 1, static_cast<int>(m_pos) + 1}};
        return m_error;
    }
    void skip()
    {
        while (m_pos < m_s.size() && std::isspace(static_cast<unsigned char>(m_s[m_pos])))
            ++m_pos;
    }
    bool peek(char c)
    {
        skip();
        return m_pos < m_s.size() && m_s[m_pos] == c;
    }
    bool consume(const std::string& tok)
    {
        skip();
        if (m_s.compare(m_pos, tok.size(), tok) == 0) {
            m_pos += tok.size();
            return true;
        }
        return false;
    }
    bool atName() const { return m_pos < m_s.size() && std::isalpha(static_cast<unsigned char>(m_s[m_pos])); }
    std::string name()
    {
        size_t start = m_pos++;
        while (m_pos < m_s.size() && std::isdigit(static_cast<unsigned char>(m_s[m_pos])))
            ++m_pos;
        return m_s.substr(start, m_pos - start);
    }
    int64_t factorId(CustomRuleSpec& spec, const std::string& n, bool create)
    {
        auto it = std::find(spec.factorNames.begin(), spec.factorNames.end(), n);
        if (it != spec.factorNames.end())
            return it - spec.factorNames.begin();
        if (!create)
            return -1;
        spec.factorNames.push_back(n);
        return static_cast<int64_t>(spec.factorNames.size()) - 1;
    }

    /// dim := names | '(' names ')'; names separated by nothing or spaces.
    bool parseDim(CustomRuleSpec& spec, std::vector<int64_t>& dim)
    {
        skip();
        bool paren = consume("(");
        skip();
        while (atName()) {
            size_t at = m_pos;
            int64_t f = factorId(spec, name(), true);
            if (std::find(dim.begin(), dim.end(), f) != dim.end()) {
                m_pos = at;
                fail("factor '" + spec.factorNames[static_cast<size_t>(f)] + "' repeated in one dimension");
                return false;
            }
            dim.push_back(f);
            if (paren)
                skip();
        }
        if (dim.empty()) {
            fail("expected a factor name");
            return false;
        }
        if (paren && !consume(")")) {
            fail("expected ')' to close the compound dimension");
            return false;
        }
        return true;
    }

    bool parseTensors(CustomRuleSpec& spec, std::vector<std::vector<std::vector<int64_t>>>& tensors)
    {
        do {
            skip();
            char close;
            if (consume("("))
                close = ')';
            else if (consume("["))
                close = ']';
            else {
                fail("expected '(' to start a tensor");
                return false;
            }
            std::vector<std::vector<int64_t>> dims;
            if (!peek(close)) {
                do {
                    std::vector<int64_t> dim;
                    if (!parseDim(spec, dim))
                        return false;
                    dims.push_back(std::move(dim));
                } while (consume(","));
            }
            if (!consume(std::string(1, close))) {
                fail(std::string("expected '") + close + "'");
                return false;
            }
            tensors.push_back(std::move(dims));
        } while (consume(","));
        return true;
    }

    /// A known factor name, or a list `[a, b]` of them, each handed to `each` (which reads
    /// what follows the name and returns false after a failure).
    template <typename Fn> bool parseFactorList(CustomRuleSpec& spec, Fn&& each)
    {
        bool list = consume("[");
        do {
            skip();
            if (!atName()) {
                fail("expected a factor name");
                return false;
            }
            size_t at = m_pos;
            std::string n = name();
            int64_t f = factorId(spec, n, false);
            if (f < 0) {
                m_pos = at;
                fail("unknown factor '" + n + "'");
                return false;
            }
            if (!each(f))
                return false;
        } while (list && consume(","));
        if (list && !consume("]")) {
            fail("expected ']'");
            return false;
        }
        return true;
    }

    bool parseNameList(CustomRuleSpec& spec, std::vector<int64_t>& out)
    {
        return parseFactorList(spec, [&](int64_t f) {
            out.push_back(f);
            return true;
        });
    }

    bool parseSizes(CustomRuleSpec& spec)
    {
        return parseFactorList(spec, [&](int64_t f) {
            if (!consume("=")) {
                fail("expected '=' after the factor name");
                return false;
            }
            skip();
            size_t start = m_pos;
            int64_t size = 0;
            while (m_pos < m_s.size() && std::isdigit(static_cast<unsigned char>(m_s[m_pos]))) {
                const std::optional<int64_t> shifted = checkedMul(size, 10);
                if (!shifted || *shifted > std::numeric_limits<int64_t>::max() - (m_s[m_pos] - '0')) {
                    m_pos = start;
                    fail("factor size does not fit in 64 bits");
                    return false;
                }
                size = *shifted + (m_s[m_pos++] - '0');
            }
            if (start == m_pos) {
                fail("expected a factor size");
                return false;
            }
            spec.explicitSizes[f] = size;
            return true;
        });
    }

    bool parseOptions(CustomRuleSpec& spec)
    {
        if (consume("}"))
            return true;
        do {
            skip();
            size_t at = m_pos;
            std::string key;
            while (m_pos < m_s.size() && (std::isalnum(static_cast<unsigned char>(m_s[m_pos])) || m_s[m_pos] == '_'))
                key += m_s[m_pos++];
            if (!consume(":")) {
                fail("expected ':' after '" + key + "'");
                return false;
            }
            bool ok;
            if (key == "reduction")
                ok = parseNameList(spec, spec.reduction);
            else if (key == "need_replication")
                ok = parseNameList(spec, spec.needReplication);
            else if (key == "permutation")
                ok = parseNameList(spec, spec.permutation);
            else if (key == "blocked" || key == "blocked_propagation")
                ok = parseNameList(spec, spec.blocked);
            else if (key == "sizes")
                ok = parseSizes(spec);
            else {
                m_pos = at;
                fail("unknown option '" + key +
                     "' (expected reduction, need_replication, permutation, blocked or sizes)");
                return false;
            }
            if (!ok)
                return false;
        } while (consume(","));
        if (!consume("}")) {
            fail("expected '}'");
            return false;
        }
        return true;
    }

    const std::string& m_s;
    size_t m_pos = 0;
    Error m_error;
};

} // namespace

Expected<CustomRuleSpec> parseCustomRule(const std::string& text) { return RuleParser(text).parse(); }

Expected<OpShardingRule> instantiateCustomRule(const CustomRuleSpec& spec,
                                               const std::vector<std::vector<int64_t>>& operandShapes,
                                               const std::vector<std::vector<int64_t>>& resultShapes)
{
    auto err = [](std::string m) { return Error{std::move(m), {}}; };
    if (spec.operands.size() != operandShapes.size())
        return err("the rule has " + std::to_string(spec.operands.size()) + " operand(s), the op has " +
                   std::to_string(operandShapes.size()));
    if (spec.results.size() != resultShapes.size())
        return err("the rule has " + std::to_string(spec.results.size()) + " result(s), the op has " +
                   std::to_string(resultShapes.size()));
    struct DimRef {
        const std::vector<int64_t>* factors;
        int64_t size;
        std::string where;
    };
    std::vector<DimRef> dimRefs;
    for (int side = 0; side < 2; ++side) {
        const auto& tensors = side == 0 ? spec.operands : spec.results;
        const auto& shapes = side == 0 ? operandShapes : resultShapes;
        for (size_t t = 0; t < tensors.size(); ++t) {
            std::string where = std::string(side == 0 ? "operand " : "result ") + std::to_string(t);
            if (tensors[t].size() != shapes[t].size())
                return err(where + " has rank " + std::to_string(shapes[t].size()) + " but the rule gives " +
                           std::to_string(tensors[t].size()) + " dimension(s)");
            for (size_t d = 0; d < tensors[t].size(); ++d)
                dimRefs.push_back({&tensors[t][d], shapes[t][d], where + " dim " + std::to_string(d)});
        }
    }
    const size_t n = spec.factorNames.size();
    std::vector<int64_t> sizes(n, -1);
    for (const auto& [f, s] : spec.explicitSizes)
        sizes[static_cast<size_t>(f)] = s;
    bool changed = true;
    while (changed) {
        changed = false;
        for (const DimRef& d : dimRefs) {
            int64_t known = 1, unknown = -1, numUnknown = 0;
            for (int64_t f : *d.factors) {
                if (sizes[static_cast<size_t>(f)] < 0) {
                    unknown = f;
                    ++numUnknown;
                } else {
                    known = saturatingMul(known, sizes[static_cast<size_t>(f)]);
                }
            }
            if (numUnknown == 1) {
                if (known == 0 || d.size % known != 0)
                    return err(d.where + ": size " + std::to_string(d.size) + " is not divisible by the known factors");
                sizes[static_cast<size_t>(unknown)] = d.size / known;
                changed = true;
            }
        }
    }
    for (size_t f = 0; f < n; ++f)
        if (sizes[f] < 0)
            return err("cannot infer the size of factor '" + spec.factorNames[f] + "' (give it in `sizes`)");
    for (const DimRef& d : dimRefs) {
        std::optional<int64_t> prod = 1;
        for (int64_t f : *d.factors)
            prod = prod ? checkedMul(*prod, sizes[static_cast<size_t>(f)]) : std::nullopt;
        if (!prod)
            return err(d.where + ": factor sizes multiply to more than fits in 64 bits, the dimension has " +
                       std::to_string(d.size));
        if (*prod != d.size)
            return err(d.where + ": factor sizes multiply to " + std::to_string(*prod) + ", the dimension has " +
                       std::to_string(d.size));
    }
    OpShardingRule rule;
    rule.factorSizes = sizes;
    for (const auto& t : spec.operands)
        rule.operands.push_back(t);
    for (const auto& t : spec.results)
        rule.results.push_back(t);
    auto sorted = [](std::vector<int64_t> v) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
        return v;
    };
    rule.reductionFactors = sorted(spec.reduction);
    rule.needReplicationFactors = sorted(spec.needReplication);
    rule.permutationFactors = sorted(spec.permutation);
    rule.blockedPropagationFactors = sorted(spec.blocked);
    rule.isCustom = true;
    std::vector<TypeShape> opShapes, resShapes;
    for (const auto& s : operandShapes)
        opShapes.push_back(TypeShape::ranked(s));
    for (const auto& s : resultShapes)
        resShapes.push_back(TypeShape::ranked(s));
    if (auto verr = verifyOpShardingRule(rule, opShapes, resShapes))
        return err(*verr);
    return rule;
}

Status CustomRuleSet::add(const std::string& key, const std::string& ruleText, const std::string& origin)
{
    auto spec = parseCustomRule(ruleText);
    if (!spec)
        return spec.error();
    spec->key = key;
    spec->origin = origin;
    m_rules[key] = std::move(*spec);
    return Status::success();
}

Expected<CustomRuleSet> CustomRuleSet::fromJson(const std::string& text, const std::string& fileName)
{
    Expected<nlohmann::json> parsed = parseJsonText(text, fileName);
    if (!parsed)
        return Error{"invalid JSON in rules file: " + parsed.error().message, parsed.error().pos};
    nlohmann::json& doc = *parsed;
    const nlohmann::json* list = &doc;
    if (doc.is_object()) {
        if (!doc.contains("rules") || !doc["rules"].is_array())
            return Error{"rules file must have a \"rules\" array", SourcePos{fileName, 1, 1}};
        list = &doc["rules"];
    }
    if (!list->is_array())
        return Error{"rules file must be an object with \"rules\" or an array", SourcePos{fileName, 1, 1}};
    CustomRuleSet set;
    size_t index = 0;
    for (const nlohmann::json& entry : *list) {
        ++index;
        std::string label = "rule " + std::to_string(index);
        if (!entry.is_object())
            return Error{fileName + ": " + label + ": expected an object", SourcePos{fileName, 0, 0}};
        std::string key;
        if (entry.contains("op") && entry["op"].is_string())
            key = entry["op"].get<std::string>();
        else if (entry.contains("custom_call") && entry["custom_call"].is_string())
            key = "@" + entry["custom_call"].get<std::string>();
        else
            return Error{fileName + ": " + label + ": needs an \"op\" or \"custom_call\" string",
                         SourcePos{fileName, 0, 0}};
        label += " ('" + key + "')";
        if (!entry.contains("rule") || !entry["rule"].is_string())
            return Error{fileName + ": " + label + ": needs a \"rule\" string", SourcePos{fileName, 0, 0}};
        Status st = set.add(key, entry["rule"].get<std::string>(), fileName + ": " + label);
        if (!st)
            return Error{fileName + ": " + label + ": column " + std::to_string(st.error().pos.col) + ": " +
                             st.error().message,
                         SourcePos{fileName, 0, 0}};
    }
    return set;
}

Expected<CustomRuleSet> CustomRuleSet::fromText(const std::string& text, const std::string& fileName)
{
    CustomRuleSet set;
    std::istringstream in(text);
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        size_t first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] == '#')
            continue;
        size_t colon = line.find(": ", first);
        if (colon == std::string::npos)
            return Error{"expected 'KEY: RULE'", SourcePos{fileName, lineNo, static_cast<int>(first) + 1}};
        std::string key = line.substr(first, colon - first);
        while (!key.empty() && std::isspace(static_cast<unsigned char>(key.back())))
            key.pop_back();
        size_t ruleStart = colon + 2;
        std::string rule = line.substr(ruleStart);
        while (!rule.empty() && (rule.back() == '\r' || std::isspace(static_cast<unsigned char>(rule.back()))))
            rule.pop_back();
        Status st = set.add(key, rule, fileName + ":" + std::to_string(lineNo));
        if (!st)
            return Error{"rule for '" + key + "': " + st.error().message,
                         SourcePos{fileName, lineNo, static_cast<int>(ruleStart) + st.error().pos.col}};
    }
    return set;
}

Expected<CustomRuleSet> CustomRuleSet::loadFile(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        return Error{"cannot open rules file '" + path + "'", SourcePos{path, 0, 0}};
    std::stringstream ss;
    ss << f.rdbuf();
    std::string text = ss.str();
    size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && (text[first] == '{' || text[first] == '['))
        return fromJson(text, path);
    return fromText(text, path);
}

const CustomRuleSpec* CustomRuleSet::find(const ir::Op& op) const
{
    const std::string target = stablehlo::customCallTarget(op).value_or(std::string());
    if (!target.empty())
        if (auto it = m_rules.find("@" + target); it != m_rules.end())
            return &it->second;
    auto it = m_rules.find(op.name());
    return it == m_rules.end() ? nullptr : &it->second;
}

std::optional<RuleResult> CustomRuleSet::apply(const ir::Op& op) const
{
    const CustomRuleSpec* spec = find(op);
    if (!spec)
        return std::nullopt;
    std::vector<std::vector<int64_t>> ops, res;
    for (const ir::Value* v : op.operands()) {
        if (!v->type().isRankedTensor() || !v->type().hasStaticShape())
            return RuleResult::invalid(spec->origin + ": operand types must be statically shaped tensors");
        ops.push_back(v->type().shape());
    }
    for (const auto& r : op.results()) {
        if (!r->type().isRankedTensor() || !r->type().hasStaticShape())
            return RuleResult::invalid(spec->origin + ": result types must be statically shaped tensors");
        res.push_back(r->type().shape());
    }
    auto rule = instantiateCustomRule(*spec, ops, res);
    if (!rule)
        return RuleResult::invalid("user rule " + spec->origin + " ('" + spec->text + "'): " + rule.error().message);
    return RuleResult::created(std::move(*rule));
}

} // namespace shardx
