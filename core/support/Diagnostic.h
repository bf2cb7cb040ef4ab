// Diagnostics with file:line:col, and the DiagnosticList that collects them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace shardx {

/// A file name held once in the process (interned): the positions of every op and value of a
/// module share one, so a position is small whatever the path's length. Reads as a
/// `const std::string&`; two names compare as one pointer. The table only grows (a process opens
/// few files); it is safe to intern from several threads.
class FileName {
public:
    /// The empty name (needs no table: header-only users of SourcePos link no core object).
    FileName() = default;
    FileName(std::string_view name);
    FileName(const std::string& name) : FileName(std::string_view(name)) {}
    FileName(const char* name) : FileName(std::string_view(name)) {}

    const std::string& str() const { return m_name ? *m_name : emptyName(); }
    operator const std::string&() const { return str(); }
    bool empty() const { return !m_name; }
    size_t size() const { return str().size(); }
    const char* c_str() const { return str().c_str(); }

    bool operator==(const FileName& o) const { return m_name == o.m_name; }
    bool operator==(std::string_view s) const { return str() == s; }
    bool operator==(const std::string& s) const { return str() == s; }
    bool operator==(const char* s) const { return str() == s; }
    friend std::string operator+(const FileName& a, std::string_view b) { return a.str() + std::string(b); }
    friend std::string operator+(std::string_view a, const FileName& b) { return std::string(a) + b.str(); }

private:
    static const std::string& emptyName()
    {
        static const std::string empty;
        return empty;
    }
    const std::string* m_name = nullptr; ///< null for the empty name
};

/// A position in a source file. Lines and columns are 1-based; 0 means unknown.
struct SourcePos {
    FileName file;
    int line = 0;
    int col = 0;

    bool isKnown() const { return line > 0; }
};

enum class Severity { Error, Warning, Remark, Note };

/// One problem found in user input, printed as `FILE:LINE:COL: error: message`.
struct Diagnostic {
    Severity severity = Severity::Error;
    SourcePos pos;
    std::string message;
    std::vector<Diagnostic> notes; ///< attached notes, printed after the main line

    /// `FILE:LINE:COL: error: message` (and notes on their own lines).
    std::string format() const;
};

/// Collects diagnostics in the order they were reported.
class DiagnosticList {
public:
    void error(const SourcePos& pos, std::string message);
    void warning(const SourcePos& pos, std::string message);
    void add(Diagnostic d);

    bool hasErrors() const;
    bool empty() const { return m_diags.empty(); }
    const std::vector<Diagnostic>& all() const { return m_diags; }
    void clear() { m_diags.clear(); }
    /// Drops every diagnostic after the first `n` (what a speculative parse reported).
    void truncate(size_t n)
    {
        if (n < m_diags.size())
            m_diags.resize(n);
    }

    /// Every diagnostic formatted, one per line (notes included).
    std::string formatAll() const;

private:
    std::vector<Diagnostic> m_diags;
};

const char* severityName(Severity s);

} // namespace shardx
