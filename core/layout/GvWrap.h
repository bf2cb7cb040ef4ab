// GvWrap: the one place that talks to Graphviz's C API: the process's context, its mutex, the
// "C" numeric locale, and `char*` wrappers (Graphviz 2.42 takes non-const strings).
#pragma once

#include <locale.h>

#include <mutex>
#include <string>
#include <string_view>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

namespace shardx::layout::gv {

/// While alive, the calling thread holds the Graphviz mutex and reads numbers in the "C"
/// locale. Every cgraph/gvc call happens under one (cgraph is not thread-safe, not even for
/// reads: its dictionaries reorder themselves on lookup).
class Lock {
public:
    Lock();
    ~Lock();
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;

    /// The process's one context, created on first use with the dot layout plugin linked in
    /// (no plugin configuration file is read when the plugins could be linked). It lives until
    /// the process exits.
    GVC_t* context() const;

private:
    std::unique_lock<std::mutex> m_lock;
    /// Graphviz reads attributes with atof(): a German locale would read "0.5" as 0. The locale is
    /// set for this thread only (uselocale), so the UI thread's locale is never touched.
    locale_t m_cLocale = nullptr;
    locale_t m_previous = nullptr;
};

/// Sets attribute `name` of a graph, node or edge, declaring it (default `def`) when needed:
/// agsafeset always works, contrary to agset.
void set(void* object, const char* name, std::string_view value, const char* def = "");
/// A number as Graphviz reads it ("0.25"), independent of any locale.
std::string number(double value);

Agraph_t* openGraph(const char* name);
Agraph_t* subgraph(Agraph_t* parent, const std::string& name);
/// Creates node `name` in `graph` (and every graph above it).
Agnode_t* node(Agraph_t* graph, const std::string& name);
Agedge_t* edge(Agraph_t* graph, Agnode_t* tail, Agnode_t* head);
/// Graphviz's last error message (empty when none).
std::string lastError();

} // namespace shardx::layout::gv
