// GvWrap: the Graphviz context, mutex and locale guard, and the C API's `char*` wrappers.
#include "core/layout/GvWrap.h"

#include <charconv>
#include <cmath>
#include <deque>
#include <unordered_map>

#include <graphviz/gvplugin.h>

#ifdef SHARDX_GV_STATIC_PLUGINS
extern "C" {
extern gvplugin_library_t gvplugin_dot_layout_LTX_library;
extern gvplugin_library_t gvplugin_core_LTX_library;
}
#endif

namespace shardx::layout::gv {

namespace {

std::mutex& graphvizMutex()
{
    static std::mutex m;
    return m;
}

#ifdef SHARDX_GV_STATIC_PLUGINS
/// The plugins linked into the program (KDStateMachineEditor's graphviz_staticbuild.c): with
/// them no plugin configuration file is needed, whose absence makes Graphviz fail or crash.
lt_symlist_t kBuiltinPlugins[] = {
    {"gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library},
    {"gvplugin_core_LTX_library", &gvplugin_core_LTX_library},
    {nullptr, nullptr},
};
#endif

/// Object ids in creation order. Graphviz's default ids for named objects are the addresses of
/// their interned names, and dot visits subgraphs (clusters) in id order: with the default, the
/// same graph could come out differently from one run to the next.
struct SequentialIds {
    std::unordered_map<std::string, IDTYPE> byName;
    std::unordered_map<IDTYPE, const std::string*> names;
    std::deque<std::string> storage;
    IDTYPE nextNamed = 2;     // even: named
    IDTYPE nextAnonymous = 1; // odd: anonymous, as in Graphviz's own discipline
};

void* idOpen(Agraph_t*, Agdisc_t*) { return new SequentialIds; }

long idMap(void* state, int, char* name, IDTYPE* id, int create)
{
    auto* ids = static_cast<SequentialIds*>(state);
    if (!name) {
        *id = ids->nextAnonymous;
        ids->nextAnonymous += 2;
        return 1;
    }
    if (auto it = ids->byName.find(name); it != ids->byName.end()) {
        *id = it->second;
        return 1;
    }
    if (!create)
        return 0;
    const std::string& stored = ids->storage.emplace_back(name);
    *id = ids->nextNamed;
    ids->nextNamed += 2;
    ids->byName.emplace(stored, *id);
    ids->names.emplace(*id, &stored);
    return 1;
}

long idAlloc(void*, int, IDTYPE) { return 0; }
void idFree(void*, int, IDTYPE) {}

char* idPrint(void* state, int, IDTYPE id)
{
    auto* ids = static_cast<SequentialIds*>(state);
    auto it = ids->names.find(id);
    return it == ids->names.end() ? nullptr : const_cast<char*>(it->second->c_str());
}

void idClose(void* state) { delete static_cast<SequentialIds*>(state); }
void idRegister(void*, int, void*) {}

Agiddisc_t kSequentialIdDisc = {idOpen, idMap, idAlloc, idFree, idPrint, idClose, idRegister};
Agdisc_t kDiscipline = {&AgMemDisc, &kSequentialIdDisc, &AgIoDisc};

} // namespace

Lock::Lock() : m_lock(graphvizMutex())
{
    m_cLocale = newlocale(LC_NUMERIC_MASK, "C", static_cast<locale_t>(nullptr));
    if (m_cLocale)
        m_previous = uselocale(m_cLocale);
}

Lock::~Lock()
{
    if (m_cLocale) {
        uselocale(m_previous);
        freelocale(m_cLocale);
    }
}

GVC_t* Lock::context() const
{
    // Created under the mutex (the caller holds it), once per process.
    static GVC_t* context = nullptr;
    if (!context) {
#ifdef SHARDX_GV_STATIC_PLUGINS
        context = gvContextPlugins(kBuiltinPlugins, 0);
#else
        context = gvContext();
#endif
    }
    return context;
}

void set(void* object, const char* name, std::string_view value, const char* def)
{
    std::string v(value);
    agsafeset(object, const_cast<char*>(name), v.data(), const_cast<char*>(def));
}

std::string number(double value)
{
    if (!std::isfinite(value))
        value = 0;
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, 4);
    if (ec != std::errc())
        return "0";
    return std::string(buffer, end);
}

Agraph_t* openGraph(const char* name) { return agopen(const_cast<char*>(name), Agdirected, &kDiscipline); }

Agraph_t* subgraph(Agraph_t* parent, const std::string& name)
{
    std::string n = name;
    return agsubg(parent, n.data(), 1);
}

Agnode_t* node(Agraph_t* graph, const std::string& name)
{
    std::string n = name;
    return agnode(graph, n.data(), 1);
}

Agedge_t* edge(Agraph_t* graph, Agnode_t* tail, Agnode_t* head) { return agedge(graph, tail, head, nullptr, 1); }

std::string lastError()
{
    const char* e = aglasterr();
    return e ? std::string(e) : std::string();
}

} // namespace shardx::layout::gv
