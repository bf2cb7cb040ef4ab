// JsonDocument: shardx's own JSON format for a whole module.
#include "core/io/JsonDocument.h"

#include <map>

#include "core/io/JsonAdapters.h"
#include "core/ir/SdyOps.h"
#include "core/support/JsonText.h"

using nlohmann::json;

namespace shardx::io {

namespace {

// ---- writing ------------------------------------------------------------------------------

class Writer {
public:
    /// Numbers every value and block (definition order) so that uses before definitions work.
    void number(const ir::Block& block)
    {
        m_blockIds.emplace(&block, static_cast<int64_t>(m_blockIds.size()));
        for (const auto& a : block.args())
            m_valueIds.emplace(a.get(), m_nextValue++);
        for (const auto& op : block.ops()) {
            for (const auto& r : op->results())
                m_valueIds.emplace(r.get(), m_nextValue++);
            for (const auto& region : op->regions())
                for (const auto& b : region->blocks())
                    number(*b);
        }
    }

    json block(const ir::Block& b) const
    {
        json j = json::object();
        j["id"] = m_blockIds.at(&b);
        if (!b.args().empty()) {
            json args = json::array();
            for (const auto& a : b.args()) {
                json arg{{"id", m_valueIds.at(a.get())}, {"type", a->type()}};
                if (!a->sourceName.empty())
                    arg["name"] = a->sourceName;
                if (a->loc())
                    arg["loc"] = attrToLoc(*a->loc());
                if (a->pos().isKnown())
                    arg["pos"] = posToJson(a->pos());
                args.push_back(std::move(arg));
            }
            j["args"] = std::move(args);
        }
        json ops = json::array();
        for (const auto& op : b.ops())
            ops.push_back(this->op(*op));
        j["ops"] = std::move(ops);
        return j;
    }

    json op(const ir::Op& o) const
    {
        json j{{"name", o.name()}};
        if (o.numOperands()) {
            json operands = json::array();
            for (const ir::Value* v : o.operands())
                operands.push_back(valueId(v));
            j["operands"] = std::move(operands);
        }
        if (o.numResults()) {
            json results = json::array();
            for (const auto& r : o.results()) {
                json result{{"id", m_valueIds.at(r.get())}, {"type", r->type()}};
                if (!r->sourceName.empty())
                    result["name"] = r->sourceName;
                results.push_back(std::move(result));
            }
            j["results"] = std::move(results);
        }
        if (!o.props().empty())
            j["props"] = ir::attrListToJson(o.props());
        if (!o.attrs().empty())
            j["attrs"] = ir::attrListToJson(o.attrs());
        if (o.opaqueSyntax())
            j["syntax"] = o.opaqueSyntax()->pieces;
        if (o.numRegions()) {
            json regions = json::array();
            for (const auto& region : o.regions()) {
                json blocks = json::array();
                for (const auto& b : region->blocks())
                    blocks.push_back(block(*b));
                regions.push_back(json{{"blocks", std::move(blocks)}});
            }
            j["regions"] = std::move(regions);
        }
        if (!o.successors().empty()) {
            json succ = json::array();
            for (const ir::Block* b : o.successors()) {
                auto it = m_blockIds.find(b);
                succ.push_back(it == m_blockIds.end() ? json() : json(it->second));
            }
            j["successors"] = std::move(succ);
        }
        if (o.loc)
            j["loc"] = attrToLoc(*o.loc);
        if (o.pos.isKnown())
            j["pos"] = posToJson(o.pos);
        return j;
    }

    /// Where the op or argument was read from (diagnostics, and MLIR's implicit file:line:col
    /// location of ops written without `loc(...)`).
    static json posToJson(const SourcePos& p) { return json{{"file", p.file}, {"line", p.line}, {"col", p.col}}; }

    /// A location attribute as a location object; any other attribute kind (unexpected here)
    /// as a wrapped attribute so that nothing is lost.
    static json attrToLoc(const ir::Attribute& a)
    {
        if (const auto* loc = a.as<ir::LocationAttr>())
            return ir::locationToJson(*loc);
        return json{{"kind", "attribute"}, {"attribute", ir::attributeToJson(a)}};
    }

private:
    json valueId(const ir::Value* v) const
    {
        auto it = m_valueIds.find(v);
        return it == m_valueIds.end() ? json() : json(it->second);
    }

    std::unordered_map<const ir::Value*, int64_t> m_valueIds;
    std::unordered_map<const ir::Block*, int64_t> m_blockIds;
    int64_t m_nextValue = 0;
};

// ---- reading ------------------------------------------------------------------------------

/// Path segments for error messages, kept while descending (the adapters add the inner part).
class PathStack {
public:
    void push(const std::string& key) { m_parts.push_back(escape(key)); }
    void push(size_t index) { m_parts.push_back(std::to_string(index)); }
    void pop() { m_parts.pop_back(); }
    std::string str() const
    {
        std::string s;
        for (const std::string& p : m_parts)
            s += "/" + p;
        return s;
    }

private:
    static std::string escape(const std::string& key)
    {
        std::string e;
        for (char c : key)
            e += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
        return e;
    }
    std::vector<std::string> m_parts;
};

/// A read error with its absolute path (the adapters' relative errors are rebased on it).
struct ReadError {
    std::string path;
    std::string message;
};

class Reader {
public:
    explicit Reader(ir::Module& module) : m_module(module) {}

    void readModule(const json& m)
    {
        requireObject(m);
        ir::Op& moduleOp = m_module.op();
        readOpAttributes(m, moduleOp);
        const json& body = field(m, "body");
        scoped("body", [&] { readBlock(body, moduleOp.region(0).front()); });
        if (m.contains("resources")) {
            scoped("resources", [&] {
                const json& r = m.at("resources");
                requireObject(r);
                for (auto it = r.begin(); it != r.end(); ++it)
                    m_module.resources[it.key()] = adapt(it.key(), [&] { return readString(it.value()); });
            });
        }
        resolve();
    }

private:
    // -- path-aware helpers --

    template <typename Fn> void scoped(const std::string& key, Fn&& fn)
    {
        m_path.push(key);
        fn();
        m_path.pop();
    }
    template <typename Fn> void scoped(size_t index, Fn&& fn)
    {
        m_path.push(index);
        fn();
        m_path.pop();
    }

    /// Runs an adapter on the member `key` of the current object and rebases its errors.
    template <typename Fn> auto adapt(const std::string& key, Fn&& fn) -> decltype(fn())
    {
        try {
            return fn();
        } catch (JsonPathError& e) {
            e.prependKey(key);
            throw ReadError{m_path.str() + e.path(), e.message()};
        }
    }

    [[noreturn]] void fail(const std::string& message) const { throw ReadError{m_path.str(), message}; }

    void requireObject(const json& j) const
    {
        if (!j.is_object())
            fail("expected an object, got " + jsonTypeName(j));
    }

    const json& field(const json& j, const char* key) const
    {
        if (!j.is_object() || !j.contains(key))
            fail(std::string("expected an object with \"") + key + "\"");
        return j.at(key);
    }

    const json& arrayField(const json& j, const char* key)
    {
        const json& a = field(j, key);
        if (!a.is_array()) {
            m_path.push(key);
            fail("expected an array, got " + jsonTypeName(a));
        }
        return a;
    }

    int64_t intField(const json& j, const char* key)
    {
        const json& v = field(j, key);
        return adapt(key, [&] { return readInt(v); });
    }

    // -- structure --

    void readOpAttributes(const json& j, ir::Op& op)
    {
        if (j.contains("props"))
            op.props() = adapt("props", [&] { return ir::attrListFromJson(j.at("props")); });
        if (j.contains("attrs"))
            op.attrs() = adapt("attrs", [&] { return ir::attrListFromJson(j.at("attrs")); });
        if (j.contains("loc"))
            op.loc = adapt("loc", [&] { return locFromJson(j.at("loc")); });
        if (j.contains("pos"))
            op.pos = adapt("pos", [&] { return posFromJson(j.at("pos")); });
    }

    static SourcePos posFromJson(const json& j)
    {
        return SourcePos{j.at("file").get<std::string>(), j.at("line").get<int>(), j.at("col").get<int>()};
    }

    static ir::AttrPtr locFromJson(const json& j)
    {
        if (j.is_object() && j.contains("kind") && j.at("kind") == "attribute")
            return readField(j, "attribute", ir::attributeFromJson);
        return ir::makeAttr(ir::locationFromJson(j));
    }

    void readBlock(const json& j, ir::Block& block)
    {
        requireObject(j);
        if (j.contains("id")) {
            int64_t id = intField(j, "id");
            if (!m_blocks.emplace(id, &block).second) {
                m_path.push("id");
                fail("duplicate block id " + std::to_string(id));
            }
        }
        if (j.contains("args")) {
            const json& args = arrayField(j, "args");
            scoped("args", [&] {
                for (size_t i = 0; i < args.size(); ++i)
                    scoped(i, [&] {
                        const json& a = args.at(i);
                        requireObject(a);
                        ir::Type type = adapt("type", [&] { return field(a, "type").get<ir::Type>(); });
                        ir::Value* v = block.addArgument(std::move(type));
                        defineValue(intField(a, "id"), v);
                        if (a.contains("name"))
                            v->sourceName = adapt("name", [&] { return readString(a.at("name")); });
                        if (a.contains("loc"))
                            v->setLoc(adapt("loc", [&] { return locFromJson(a.at("loc")); }));
                        if (a.contains("pos"))
                            v->setPos(adapt("pos", [&] { return posFromJson(a.at("pos")); }));
                    });
            });
        }
        const json& ops = arrayField(j, "ops");
        scoped("ops", [&] {
            for (size_t i = 0; i < ops.size(); ++i)
                scoped(i, [&] { readOp(ops.at(i), block); });
        });
    }

    /// `"syntax"`: the text of an op kept as written, one piece more than it has operands.
    void readOpaqueSyntax(const json& j, ir::Op& op)
    {
        const json& pieces = arrayField(j, "syntax");
        const size_t operands = j.contains("operands") ? j.at("operands").size() : 0;
        auto syntax = std::make_shared<ir::OpaqueSyntax>();
        scoped("syntax", [&] {
            if (pieces.size() != operands + 1)
                fail("expected " + std::to_string(operands + 1) + " pieces of text (one more than the " +
                     std::to_string(operands) + " operands), got " + std::to_string(pieces.size()));
            for (size_t i = 0; i < pieces.size(); ++i)
                scoped(i, [&] { syntax->pieces.push_back(readString(pieces.at(i))); });
        });
        op.setOpaqueSyntax(std::move(syntax));
    }

    void readOp(const json& j, ir::Block& block)
    {
        JsonNestingGuard nesting;
        if (!nesting.ok())
            fail(JsonNestingGuard::message());
        requireObject(j);
        std::string name = adapt("name", [&] { return readString(field(j, "name")); });
        if (name.empty()) {
            m_path.push("name");
            fail("expected a non-empty op name");
        }
        ir::Op* op = block.push_back(std::make_unique<ir::Op>(name));
        readOpAttributes(j, *op);
        if (j.contains("operands")) {
            const json& operands = arrayField(j, "operands");
            m_path.push("operands");
            m_pendingOperands.push_back({op, &operands, m_path.str()});
            m_path.pop();
        }
        if (j.contains("syntax"))
            readOpaqueSyntax(j, *op);
        if (j.contains("results")) {
            const json& results = arrayField(j, "results");
            scoped("results", [&] {
                for (size_t i = 0; i < results.size(); ++i)
                    scoped(i, [&] {
                        const json& r = results.at(i);
                        requireObject(r);
                        ir::Type type = adapt("type", [&] { return field(r, "type").get<ir::Type>(); });
                        ir::Value* v = op->addResult(std::move(type));
                        defineValue(intField(r, "id"), v);
                        if (r.contains("name"))
                            v->sourceName = adapt("name", [&] { return readString(r.at("name")); });
                    });
            });
        }
        if (j.contains("regions")) {
            const json& regions = arrayField(j, "regions");
            scoped("regions", [&] {
                for (size_t i = 0; i < regions.size(); ++i)
                    scoped(i, [&] {
                        ir::Region* region = op->addRegion();
                        const json& blocks = arrayField(regions.at(i), "blocks");
                        scoped("blocks", [&] {
                            for (size_t b = 0; b < blocks.size(); ++b)
                                scoped(b, [&] { readBlock(blocks.at(b), *region->addBlock()); });
                        });
                    });
            });
        }
        if (j.contains("successors")) {
            const json& succ = arrayField(j, "successors");
            m_path.push("successors");
            m_pendingSuccessors.push_back({op, &succ, m_path.str()});
            m_path.pop();
        }
    }

    void defineValue(int64_t id, ir::Value* v)
    {
        if (!m_values.emplace(id, v).second) {
            m_path.push("id");
            fail("duplicate value id " + std::to_string(id));
        }
    }

    /// Wires operands and successors once every value and block exists (uses may come first).
    void resolve()
    {
        resolveIds(m_pendingOperands, m_values, "value", [](ir::Op* op, ir::Value* v) { op->addOperand(v); });
        checkOperandsVisible();
        resolveIds(m_pendingSuccessors, m_blocks, "block", [](ir::Op* op, ir::Block* b) { op->addSuccessor(b); });
    }

    /// Resolves the ids of every pending list in `ids` (`what`: "value" or "block"), handing
    /// each object to `add` in order.
    template <class PendingList, class Map, class Add>
    static void resolveIds(const PendingList& pending, const Map& ids, const char* what, Add add)
    {
        for (const auto& p : pending) {
            for (size_t i = 0; i < p.list->size(); ++i) {
                const json& e = p.list->at(i);
                std::string where = p.path + "/" + std::to_string(i);
                if (!e.is_number_integer())
                    throw ReadError{where,
                                    std::string("expected a ") + what + " id (an integer), got " + jsonTypeName(e)};
                auto it = ids.find(e.get<int64_t>());
                if (it == ids.end())
                    throw ReadError{where, std::string("unknown ") + what + " id " + std::to_string(e.get<int64_t>())};
                add(p.op, it->second);
            }
        }
    }

    /// A document names operands by id, so it can name what MLIR text cannot: a value defined in
    /// another op's region or another function. Each operand must be defined in the user's block or
    /// in one around it (or, in a region of several blocks, in any block of a region around it), as
    /// SSA names are scoped in MLIR text. Order within a block is not checked: the MLIR reader takes
    /// forward references too, and dominance is a verifier's question.
    void checkOperandsVisible()
    {
        for (const Pending& p : m_pendingOperands) {
            const ir::Op* user = p.op;
            for (unsigned i = 0; i < user->numOperands(); ++i) {
                if (!operandInScope(user->operand(i), user))
                    throw ReadError{p.path + "/" + std::to_string(i),
                                    "value id " + std::to_string(p.list->at(i).get<int64_t>()) +
                                        " is not visible here: an operand must be defined in the same block as its "
                                        "use or in one around it"};
            }
        }
    }

    static bool operandInScope(const ir::Value* v, const ir::Op* user)
    {
        const ir::Block* defBlock = v->isBlockArgument() ? v->ownerBlock() : v->definingOp()->parentBlock();
        if (!defBlock)
            return false;
        for (const ir::Op* a = user; a; a = a->parentOp()) {
            const ir::Block* b = a->parentBlock();
            if (b == defBlock || (b && b->parentRegion() == defBlock->parentRegion()))
                return true;
        }
        return false;
    }

    struct Pending {
        ir::Op* op;
        const json* list;
        std::string path;
    };

    ir::Module& m_module;
    PathStack m_path;
    std::map<int64_t, ir::Value*> m_values;
    std::map<int64_t, ir::Block*> m_blocks;
    std::vector<Pending> m_pendingOperands;
    std::vector<Pending> m_pendingSuccessors;
};

} // namespace

json moduleToJson(const ir::Module& module)
{
    Writer w;
    const ir::Block& body = module.body();
    w.number(body);

    const ir::Op& moduleOp = module.op();
    json m = json::object();
    if (!moduleOp.props().empty())
        m["props"] = ir::attrListToJson(moduleOp.props());
    if (!moduleOp.attrs().empty())
        m["attrs"] = ir::attrListToJson(moduleOp.attrs());
    if (moduleOp.loc)
        m["loc"] = Writer::attrToLoc(*moduleOp.loc);
    if (moduleOp.pos.isKnown())
        m["pos"] = json{{"file", moduleOp.pos.file}, {"line", moduleOp.pos.line}, {"col", moduleOp.pos.col}};

    json meshes = json::array();
    for (const ir::Op* op : module.meshes()) {
        const Mesh* mesh = ir::meshOpMesh(*op);
        if (!mesh)
            continue;
        json entry = *mesh;
        entry["name"] = ir::symbolName(*op);
        meshes.push_back(std::move(entry));
    }
    if (!meshes.empty())
        m["meshes"] = std::move(meshes);

    m["body"] = w.block(body);
    if (!module.resources.empty())
        m["resources"] = module.resources;
    return json{{"format", "shardx"}, {"version", kJsonDocumentVersion}, {"module", std::move(m)}};
}

std::unique_ptr<ir::Module> moduleFromJson(const json& document, const std::string& fileName, DiagnosticList& diags)
{
    SourcePos filePos{fileName, 0, 0};
    auto report = [&](const std::string& path, const std::string& message) {
        diags.error(filePos, (path.empty() ? std::string("/") : path) + ": " + message);
    };
    try {
        if (!document.is_object()) {
            report("", "expected a shardx document (an object with \"format\", \"version\" and \"module\"), got " +
                           jsonTypeName(document));
            return nullptr;
        }
        if (!document.contains("format")) {
            report("", "expected an object with \"format\" (\"shardx\")");
            return nullptr;
        }
        const json& format = document.at("format");
        if (!format.is_string() || format.get<std::string>() != "shardx") {
            report("/format", "unknown document format " + format.dump() + " (expected \"shardx\")");
            return nullptr;
        }
        if (!document.contains("version")) {
            report("", "expected an object with \"version\"");
            return nullptr;
        }
        const json& version = document.at("version");
        if (!version.is_number_integer() || version.get<int64_t>() < 1) {
            report("/version", "expected a positive integer version, got " + version.dump());
            return nullptr;
        }
        if (version.get<int64_t>() > kJsonDocumentVersion) {
            report("/version", "document version " + version.dump() + " is newer than this shardx reads (" +
                                   std::to_string(kJsonDocumentVersion) + "); update shardx");
            return nullptr;
        }
        if (!document.contains("module")) {
            report("", "expected an object with \"module\"");
            return nullptr;
        }
        auto module = std::make_unique<ir::Module>();
        module->fileName = fileName;
        try {
            Reader reader(*module);
            try {
                reader.readModule(document.at("module"));
            } catch (ReadError& e) {
                report("/module" + e.path, e.message);
                return nullptr;
            }
        } catch (JsonPathError& e) {
            report("/module" + e.path(), e.message());
            return nullptr;
        }
        return module;
    } catch (const std::exception& e) {
        report("", std::string("unexpected error: ") + e.what());
    } catch (...) {
        report("", "unexpected error");
    }
    return nullptr;
}

std::unique_ptr<ir::Module> parseJsonDocument(std::string_view text, const std::string& fileName, DiagnosticList& diags,
                                              int firstLine)
{
    Expected<json> document = parseJsonText(text, fileName);
    if (!document) {
        SourcePos pos = document.error().pos;
        if (pos.line > 0)
            pos.line += firstLine - 1;
        diags.error(pos, "invalid JSON: " + document.error().message);
        return nullptr;
    }
    return moduleFromJson(*document, fileName, diags);
}

std::string writeJsonDocument(const ir::Module& module, int indent)
{
    return moduleToJson(module).dump(indent, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace shardx::io
