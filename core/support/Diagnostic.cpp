// Diagnostics with file:line:col.
#include "core/support/Diagnostic.h"

#include "core/support/StringInterner.h"

namespace shardx {

namespace {

/// The process-wide table of file names (never destroyed: see StringInterner).
StringInterner& fileNameTable()
{
    static auto* table = new StringInterner;
    return *table;
}

} // namespace

FileName::FileName(std::string_view name)
{
    if (name.empty())
        return;
    m_name = fileNameTable().intern(name);
}

const char* severityName(Severity s)
{
    switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Remark: return "remark";
    case Severity::Note: return "note";
    }
    return "error";
}

static std::string formatOne(const Diagnostic& d)
{
    std::string out;
    if (d.pos.isKnown()) {
        out += d.pos.file.empty() ? std::string("<input>") : d.pos.file.str();
        out += ':' + std::to_string(d.pos.line) + ':' + std::to_string(d.pos.col) + ": ";
    } else if (!d.pos.file.empty()) {
        out += d.pos.file + ": ";
    }
    out += severityName(d.severity);
    out += ": ";
    out += d.message;
    return out;
}

std::string Diagnostic::format() const
{
    std::string out = formatOne(*this);
    for (const Diagnostic& n : notes) {
        out += '\n';
        out += formatOne(n);
    }
    return out;
}

void DiagnosticList::error(const SourcePos& pos, std::string message)
{
    m_diags.push_back(Diagnostic{Severity::Error, pos, std::move(message), {}});
}

void DiagnosticList::warning(const SourcePos& pos, std::string message)
{
    m_diags.push_back(Diagnostic{Severity::Warning, pos, std::move(message), {}});
}

void DiagnosticList::add(Diagnostic d) { m_diags.push_back(std::move(d)); }

bool DiagnosticList::hasErrors() const
{
    for (const Diagnostic& d : m_diags)
        if (d.severity == Severity::Error)
            return true;
    return false;
}

std::string DiagnosticList::formatAll() const
{
    std::string out;
    for (const Diagnostic& d : m_diags) {
        out += d.format();
        out += '\n';
    }
    return out;
}

} // namespace shardx
