// Diagnostics with file:line:col, and the DiagnosticList that collects them.
#pragma once

#include <string>
#include <vector>

namespace shardx {

/// A position in a source file. Lines and columns are 1-based; 0 means unknown.
struct SourcePos {
    std::string file;
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
