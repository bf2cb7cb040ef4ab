// StablehloAttrs: StableHLO attribute values (dimension numbers, enums, int lists) and typed op accessors.
#include "core/ir/StablehloAttrs.h"

#include <cctype>
#include <map>

namespace shardx::stablehlo {

namespace {

/// A tiny cursor over a normalized attribute body.
class BodyLexer {
public:
    explicit BodyLexer(const std::string& s) : m_s(s) {}

    void skipSpace()
    {
        while (m_pos < m_s.size() && std::isspace(static_cast<unsigned char>(m_s[m_pos])))
            ++m_pos;
    }
    bool atEnd()
    {
        skipSpace();
        return m_pos >= m_s.size();
    }
    bool consume(char c)
    {
        skipSpace();
        if (m_pos < m_s.size() && m_s[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }
    bool consume(const std::string& word)
    {
        skipSpace();
        if (m_s.compare(m_pos, word.size(), word) == 0) {
            m_pos += word.size();
            return true;
        }
        return false;
    }
    std::string identifier()
    {
        skipSpace();
        size_t start = m_pos;
        while (m_pos < m_s.size() && (std::isalnum(static_cast<unsigned char>(m_s[m_pos])) || m_s[m_pos] == '_'))
            ++m_pos;
        return m_s.substr(start, m_pos - start);
    }
    std::optional<int64_t> integer()
    {
        skipSpace();
        size_t start = m_pos;
        if (m_pos < m_s.size() && m_s[m_pos] == '-')
            ++m_pos;
        size_t digits = m_pos;
        while (m_pos < m_s.size() && std::isdigit(static_cast<unsigned char>(m_s[m_pos])))
            ++m_pos;
        if (m_pos == digits) {
            m_pos = start;
            return std::nullopt;
        }
        return std::stoll(m_s.substr(start, m_pos - start));
    }
    size_t pos() const { return m_pos; }

private:
    const std::string& m_s;
    size_t m_pos = 0;
};

/// A parsed `key = [ints]` / `key = int` entry list.
using KeyValues = std::map<std::string, std::vector<int64_t>>;

std::optional<KeyValues> parseKeyValues(const std::string& body, std::string* error)
{
    KeyValues out;
    BodyLexer lex(body);
    auto fail = [&](const std::string& what) -> std::optional<KeyValues> {
        if (error)
            *error = what + " at offset " + std::to_string(lex.pos()) + " in '" + body + "'";
        return std::nullopt;
    };
    lex.consume("raw");
    while (!lex.atEnd()) {
        std::string key = lex.identifier();
        if (key.empty())
            return fail("expected a field name");
        if (!lex.consume('='))
            return fail("expected '=' after '" + key + "'");
        std::vector<int64_t> values;
        if (lex.consume('[')) {
            if (!lex.consume(']')) {
                do {
                    auto v = lex.integer();
                    if (!v)
                        return fail("expected an integer");
                    values.push_back(*v);
                } while (lex.consume(','));
                if (!lex.consume(']'))
                    return fail("expected ']'");
            }
        } else {
            auto v = lex.integer();
            if (!v)
                return fail("expected an integer or a list");
            values.push_back(*v);
        }
        out[key] = std::move(values);
        if (!lex.consume(','))
            break;
    }
    if (!lex.atEnd())
        return fail("unexpected text");
    return out;
}

std::vector<int64_t> listOf(const KeyValues& kv, const char* key)
{
    auto it = kv.find(key);
    return it == kv.end() ? std::vector<int64_t>{} : it->second;
}

int64_t intOf(const KeyValues& kv, const char* key, int64_t dflt = 0)
{
    auto it = kv.find(key);
    return it == kv.end() || it->second.empty() ? dflt : it->second.front();
}

/// One `[b, 0, 1, f]` group of the compact conv form: role letter or spatial index per dim.
bool parseConvGroup(BodyLexer& lex, char a, char b, int64_t& dimA, int64_t& dimB, std::vector<int64_t>& spatial)
{
    if (!lex.consume('['))
        return false;
    std::map<int64_t, int64_t> spatialByIndex;
    int64_t dim = 0;
    bool foundA = false, foundB = false;
    if (!lex.consume(']')) {
        do {
            lex.skipSpace();
            if (auto n = lex.integer()) {
                spatialByIndex[*n] = dim;
            } else {
                std::string id = lex.identifier();
                if (id.size() != 1)
                    return false;
                if (id[0] == a) {
                    dimA = dim;
                    foundA = true;
                } else if (id[0] == b) {
                    dimB = dim;
                    foundB = true;
                } else {
                    return false;
                }
            }
            ++dim;
        } while (lex.consume(','));
        if (!lex.consume(']'))
            return false;
    }
    spatial.clear();
    for (int64_t i = 0; i < static_cast<int64_t>(spatialByIndex.size()); ++i) {
        auto it = spatialByIndex.find(i);
        if (it == spatialByIndex.end())
            return false;
        spatial.push_back(it->second);
    }
    return foundA && foundB;
}

} // namespace

std::optional<DotDimensionNumbers> parseDotDimensionNumbers(const std::string& body, std::string* error)
{
    auto kv = parseKeyValues(body, error);
    if (!kv)
        return std::nullopt;
    DotDimensionNumbers d;
    d.lhsBatching = listOf(*kv, "lhs_batching_dimensions");
    d.rhsBatching = listOf(*kv, "rhs_batching_dimensions");
    d.lhsContracting = listOf(*kv, "lhs_contracting_dimensions");
    d.rhsContracting = listOf(*kv, "rhs_contracting_dimensions");
    if (d.lhsBatching.size() != d.rhsBatching.size() || d.lhsContracting.size() != d.rhsContracting.size()) {
        if (error)
            *error = "lhs and rhs dimension lists differ in length";
        return std::nullopt;
    }
    return d;
}

namespace {

/// Appends `name = [a, b]` to an attribute body as MLIR's printStruct does: separated by ", ",
/// nothing for an empty list.
void appendDimsField(std::string& body, const char* name, const std::vector<int64_t>& list)
{
    if (list.empty())
        return;
    body += body.empty() ? "" : ", ";
    body += std::string(name) + " = [";
    for (size_t i = 0; i < list.size(); ++i)
        body += (i ? ", " : "") + std::to_string(list[i]);
    body += "]";
}

} // namespace

ir::AttrPtr dotDimensionNumbersAttr(const DotDimensionNumbers& dims)
{
    std::string body;
    appendDimsField(body, "lhs_batching_dimensions", dims.lhsBatching);
    appendDimsField(body, "rhs_batching_dimensions", dims.rhsBatching);
    appendDimsField(body, "lhs_contracting_dimensions", dims.lhsContracting);
    appendDimsField(body, "rhs_contracting_dimensions", dims.rhsContracting);
    return ir::makeAttr(ir::OpaqueAttr{"stablehlo", "dot", body});
}

ir::AttrPtr gatherDimensionNumbersAttr(const GatherDimensionNumbers& dims)
{
    std::string body;
    appendDimsField(body, "offset_dims", dims.offsetDims);
    appendDimsField(body, "collapsed_slice_dims", dims.collapsedSliceDims);
    appendDimsField(body, "operand_batching_dims", dims.operandBatchingDims);
    appendDimsField(body, "start_indices_batching_dims", dims.startIndicesBatchingDims);
    appendDimsField(body, "start_index_map", dims.startIndexMap);
    body += (body.empty() ? "" : ", ") + std::string("index_vector_dim = ") + std::to_string(dims.indexVectorDim);
    return ir::makeAttr(ir::OpaqueAttr{"stablehlo", "gather", body});
}

ir::AttrPtr scatterDimensionNumbersAttr(const ScatterDimensionNumbers& dims)
{
    std::string body;
    appendDimsField(body, "update_window_dims", dims.updateWindowDims);
    appendDimsField(body, "inserted_window_dims", dims.insertedWindowDims);
    appendDimsField(body, "input_batching_dims", dims.inputBatchingDims);
    appendDimsField(body, "scatter_indices_batching_dims", dims.scatterIndicesBatchingDims);
    appendDimsField(body, "scatter_dims_to_operand_dims", dims.scatterDimsToOperandDims);
    body += (body.empty() ? "" : ", ") + std::string("index_vector_dim = ") + std::to_string(dims.indexVectorDim);
    return ir::makeAttr(ir::OpaqueAttr{"stablehlo", "scatter", body});
}

std::optional<GatherDimensionNumbers> parseGatherDimensionNumbers(const std::string& body, std::string* error)
{
    auto kv = parseKeyValues(body, error);
    if (!kv)
        return std::nullopt;
    GatherDimensionNumbers g;
    g.offsetDims = listOf(*kv, "offset_dims");
    g.collapsedSliceDims = listOf(*kv, "collapsed_slice_dims");
    g.operandBatchingDims = listOf(*kv, "operand_batching_dims");
    g.startIndicesBatchingDims = listOf(*kv, "start_indices_batching_dims");
    g.startIndexMap = listOf(*kv, "start_index_map");
    g.indexVectorDim = intOf(*kv, "index_vector_dim");
    return g;
}

std::optional<ScatterDimensionNumbers> parseScatterDimensionNumbers(const std::string& body, std::string* error)
{
    auto kv = parseKeyValues(body, error);
    if (!kv)
        return std::nullopt;
    ScatterDimensionNumbers s;
    s.updateWindowDims = listOf(*kv, "update_window_dims");
    s.insertedWindowDims = listOf(*kv, "inserted_window_dims");
    s.inputBatchingDims = listOf(*kv, "input_batching_dims");
    s.scatterIndicesBatchingDims = listOf(*kv, "scatter_indices_batching_dims");
    s.scatterDimsToOperandDims = listOf(*kv, "scatter_dims_to_operand_dims");
    s.indexVectorDim = intOf(*kv, "index_vector_dim");
    return s;
}

std::optional<ConvDimensionNumbers> parseConvDimensionNumbers(const std::string& body, std::string* error)
{
    ConvDimensionNumbers c;
    BodyLexer lex(body);
    lex.skipSpace();
    if (!lex.consume("raw") && lex.consume('[')) {
        BodyLexer g(body);
        if (parseConvGroup(g, 'b', 'f', c.inputBatch, c.inputFeature, c.inputSpatial) && g.consume('x') &&
            parseConvGroup(g, 'i', 'o', c.kernelInputFeature, c.kernelOutputFeature, c.kernelSpatial) &&
            g.consume("->") && parseConvGroup(g, 'b', 'f', c.outputBatch, c.outputFeature, c.outputSpatial) &&
            g.atEnd())
            return c;
        if (error)
            *error = "malformed convolution dimension numbers '" + body + "'";
        return std::nullopt;
    }
    auto kv = parseKeyValues(body, error);
    if (!kv)
        return std::nullopt;
    c.inputBatch = intOf(*kv, "input_batch_dimension");
    c.inputFeature = intOf(*kv, "input_feature_dimension");
    c.inputSpatial = listOf(*kv, "input_spatial_dimensions");
    c.kernelInputFeature = intOf(*kv, "kernel_input_feature_dimension");
    c.kernelOutputFeature = intOf(*kv, "kernel_output_feature_dimension");
    c.kernelSpatial = listOf(*kv, "kernel_spatial_dimensions");
    c.outputBatch = intOf(*kv, "output_batch_dimension");
    c.outputFeature = intOf(*kv, "output_feature_dimension");
    c.outputSpatial = listOf(*kv, "output_spatial_dimensions");
    return c;
}

std::string enumKeyword(const ir::Attribute* attr)
{
    if (!attr)
        return {};
    if (const auto* o = attr->as<ir::OpaqueAttr>()) {
        const std::string& b = o->body;
        size_t end = b.find_last_not_of(" >");
        if (end == std::string::npos)
            return {};
        size_t start = b.find_last_of(' ', end);
        return b.substr(start == std::string::npos ? 0 : start + 1,
                        end - (start == std::string::npos ? 0 : start + 1) + 1);
    }
    if (const auto* s = attr->as<ir::StringAttr>())
        return s->value;
    return {};
}

std::optional<std::vector<int64_t>> intList(const ir::Attribute* attr, int64_t expectedCount)
{
    if (!attr)
        return std::nullopt;
    if (const auto* da = attr->as<ir::DenseArrayAttr>())
        return da->ints;
    if (const auto* arr = attr->as<ir::ArrayAttr>()) {
        std::vector<int64_t> out;
        for (const auto& e : arr->elements) {
            auto v = intValue(e.get());
            if (!v)
                return std::nullopt;
            out.push_back(*v);
        }
        return out;
    }
    if (const auto* de = attr->as<ir::DenseElementsAttr>()) {
        const std::string& et = de->type.elementType();
        if (!ir::isIntegerElementType(et))
            return std::nullopt;
        int bits = ir::elementBitWidth(et);
        size_t bytes = bits <= 8 ? 1 : static_cast<size_t>(bits / 8);
        if (bytes == 0 || de->data.size() % bytes != 0)
            return std::nullopt;
        std::vector<int64_t> out;
        bool isUnsigned = ir::isUnsignedElementType(et);
        for (size_t off = 0; off + bytes <= de->data.size(); off += bytes) {
            uint64_t raw = 0;
            for (size_t b = 0; b < bytes; ++b)
                raw |= static_cast<uint64_t>(de->data[off + b]) << (8 * b);
            int64_t v;
            if (bytes < 8 && !isUnsigned && bits > 1 && (raw >> (bytes * 8 - 1)) & 1)
                v = static_cast<int64_t>(raw | (~uint64_t(0) << (bytes * 8)));
            else
                v = static_cast<int64_t>(raw);
            out.push_back(v);
        }
        int64_t count = de->type.isRankedTensor() ? de->type.numElements() : -1;
        if (de->splat || out.size() == 1) {
            int64_t n = expectedCount > 0 ? expectedCount : (count > 0 ? count : 1);
            if (n > ir::kMaxSplatListLength)
                return std::nullopt;
            if (!out.empty())
                out.assign(static_cast<size_t>(n), out.front());
        }
        return out;
    }
    return std::nullopt;
}

std::optional<int64_t> intValue(const ir::Attribute* attr)
{
    if (!attr)
        return std::nullopt;
    if (const auto* i = attr->as<ir::IntegerAttr>())
        return i->value;
    if (const auto* b = attr->as<ir::BoolAttr>())
        return b->value ? 1 : 0;
    return std::nullopt;
}

std::optional<bool> boolValue(const ir::Attribute* attr)
{
    if (!attr)
        return std::nullopt;
    if (const auto* b = attr->as<ir::BoolAttr>())
        return b->value;
    if (attr->is<ir::UnitAttr>())
        return true;
    if (const auto* i = attr->as<ir::IntegerAttr>())
        return i->value != 0;
    return std::nullopt;
}

std::optional<std::string> stringValue(const ir::Attribute* attr)
{
    if (!attr)
        return std::nullopt;
    if (const auto* s = attr->as<ir::StringAttr>())
        return s->value;
    return std::nullopt;
}

namespace {

/// The body of OpaqueAttr `name` of `op` (empty when absent or of another kind).
std::string opaqueBody(const ir::Op& op, const char* name)
{
    const ir::Attribute* a = op.attr(name);
    const ir::OpaqueAttr* o = a ? a->as<ir::OpaqueAttr>() : nullptr;
    return o ? o->body : std::string();
}

} // namespace

std::optional<DotDimensionNumbers> dotDimensionNumbers(const ir::Op& dotGeneral, std::string* error)
{
    return parseDotDimensionNumbers(opaqueBody(dotGeneral, kDotDimensionNumbersAttr), error);
}

std::optional<ConvDimensionNumbers> convDimensionNumbers(const ir::Op& convolution, std::string* error)
{
    return parseConvDimensionNumbers(opaqueBody(convolution, kDimensionNumbersAttr), error);
}

std::optional<GatherDimensionNumbers> gatherDimensionNumbers(const ir::Op& gather, std::string* error)
{
    return parseGatherDimensionNumbers(opaqueBody(gather, kDimensionNumbersAttr), error);
}

std::optional<ScatterDimensionNumbers> scatterDimensionNumbers(const ir::Op& scatter, std::string* error)
{
    return parseScatterDimensionNumbers(opaqueBody(scatter, kScatterDimensionNumbersAttr), error);
}

std::optional<std::vector<int64_t>> transposePermutation(const ir::Op& transpose)
{
    return intList(transpose.attr(kPermutationAttr));
}

std::optional<std::string> customCallTarget(const ir::Op& customCall)
{
    if (customCall.name() != "stablehlo.custom_call")
        return std::nullopt;
    return stringValue(customCall.attr(kCallTargetNameAttr));
}

namespace {

/// The value of `key = ...` in `text` from `from` on: the text after `=` up to the next `,` or `>` at the same
/// nesting depth (`<`/`[` open a level), trimmed; empty when the key is not there.
std::string meshAxesField(const std::string& text, const std::string& key, size_t from = 0)
{
    for (size_t at = text.find(key, from); at != std::string::npos; at = text.find(key, at + 1)) {
        const bool startsWord =
            at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
        size_t eq = at + key.size();
        while (eq < text.size() && text[eq] == ' ')
            ++eq;
        if (!startsWord || eq >= text.size() || text[eq] != '=')
            continue;
        size_t end = eq + 1;
        int depth = 0;
        for (; end < text.size(); ++end) {
            const char c = text[end];
            if (c == '<' || c == '[')
                ++depth;
            else if ((c == '>' || c == ']') && depth-- == 0)
                break;
            else if (c == ',' && depth == 0)
                break;
        }
        std::string v = text.substr(eq + 1, end - eq - 1);
        v.erase(0, v.find_first_not_of(' '));
        v.erase(v.find_last_not_of(' ') + 1);
        return v;
    }
    return {};
}

} // namespace

std::optional<ReplicaGroupMeshAxes> parseReplicaGroupMeshAxes(const ir::OpaqueAttr& o, std::string* error)
{
    auto fail = [error](std::string message) {
        if (error)
            *error = std::move(message);
        return std::nullopt;
    };
    ReplicaGroupMeshAxes out;
    const std::string meshText = meshAxesField(o.body, "mesh");
    if (meshText.size() < 2 || meshText[0] != '@')
        return fail("expected a mesh symbol (mesh = @name) in " + o.body);
    out.mesh = meshText.substr(1);
    if (out.mesh.size() >= 2 && out.mesh.front() == '"' && out.mesh.back() == '"')
        out.mesh = out.mesh.substr(1, out.mesh.size() - 2);
    const std::string list = meshAxesField(o.body, "axes");
    for (size_t at = list.find("axis_ref<"); at != std::string::npos; at = list.find("axis_ref<", at + 1)) {
        const size_t open = at + std::string("axis_ref").size();
        size_t close = open + 1;
        for (int depth = 0; close < list.size(); ++close) {
            if (list[close] == '<')
                ++depth;
            else if (list[close] == '>' && depth-- == 0)
                break;
        }
        const std::string ref = list.substr(open + 1, close - open - 1);
        std::string axisName = meshAxesField(ref, "name");
        if (axisName.size() < 2 || axisName.front() != '"' || axisName.back() != '"')
            return fail("an axis_ref without a quoted name: " + ref);
        axisName = axisName.substr(1, axisName.size() - 2);
        const std::string pre = meshAxesField(ref, "pre_size"), size = meshAxesField(ref, "size");
        if (pre.empty() != size.empty() || (pre.empty() && ref.find(',') != std::string::npos))
            return fail("an axis_ref shardx does not read: " + ref);
        try {
            out.axes.push_back(pre.empty() ? AxisRef(axisName) : AxisRef(axisName, std::stoll(pre), std::stoll(size)));
        } catch (...) {
            return fail("an axis_ref shardx does not read: " + ref);
        }
    }
    if (out.axes.empty())
        return fail("no axes in " + o.body);
    return out;
}

} // namespace shardx::stablehlo
