// Helpers shared by the io tests: files, the shared conformance folder and its units, parsing, op lookup.
#pragma once

#include <QtTest>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "core/io/MlirReader.h"
#include "core/ir/Module.h"

namespace shardx::testing {

/// The whole file (empty when it cannot be read).
inline std::string readFile(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// ../shared next to the source tree, or $SHARDX_SHARED_DIR.
inline std::filesystem::path sharedDir()
{
    if (const char* env = std::getenv("SHARDX_SHARED_DIR"))
        return std::filesystem::path(env);
    return std::filesystem::path(SHARDX_SOURCE_DIR).parent_path() / "shared";
}

/// Blanks every `//` comment outside strings as the conformance runner does (line numbers kept).
inline std::string blankComments(const std::string& text)
{
    std::string out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        bool inString = false;
        for (size_t i = 0; i < line.size(); ++i) {
            if (line[i] == '"' && (i == 0 || line[i - 1] != '\\'))
                inString = !inString;
            if (!inString && line.compare(i, 2, "//") == 0) {
                line.resize(i);
                break;
            }
        }
        out += line + '\n';
    }
    return out;
}

/// The lines of `text` without their line breaks (a last line without `\n` included).
inline std::vector<std::string> splitLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        lines.push_back(line);
    return lines;
}

/// The `// RUN:` lines of a lit test, each with its `\` continuation lines joined, without the `// RUN:`.
inline std::vector<std::string> runLines(const std::string& text)
{
    static const std::regex run(R"(^\s*//\s*RUN:(.*)$)");
    static const std::regex continuation(R"(^\s*//(.*)$)");
    std::vector<std::string> runs;
    bool continued = false;
    for (const std::string& line : splitLines(text)) {
        std::smatch m;
        std::string body;
        if (std::regex_match(line, m, run))
            body = m[1];
        else if (continued && std::regex_match(line, m, continuation))
            body = m[1];
        else {
            continued = false;
            continue;
        }
        const bool joinToPrevious = continued;
        continued = !body.empty() && body.back() == '\\';
        if (continued)
            body.pop_back();
        if (joinToPrevious)
            runs.back() += " " + body;
        else
            runs.push_back(body);
    }
    return runs;
}

/// True if a RUN line of `text` contains `flag` (written without dashes, e.g. "split-input-file").
inline bool runLinesMention(const std::string& text, const std::string& flag)
{
    const std::vector<std::string> runs = runLines(text);
    return std::any_of(runs.begin(), runs.end(),
                       [&](const std::string& r) { return r.find(flag) != std::string::npos; });
}

/// True if `text` expects an error or a warning (`expected-error` / `expected-warning`, as `-verify-diagnostics`).
inline bool expectsDiagnostics(const std::string& text)
{
    return text.find("expected-error") != std::string::npos || text.find("expected-warning") != std::string::npos;
}

/// One diagnostic a `-verify-diagnostics` test expects: its severity, the line it must land on, its text.
struct ExpectedDiagnostic {
    std::string severity; ///< "error" or "warning"
    int line = 0;
    std::string message;
};

/// The errors and warnings `text` expects, as the conformance runner reads them (notes and remarks are
/// left out): `expected-error {{...}}` names its own line, `@+N` / `@-N` a line relative to it,
/// `@above` / `@below` the line before / after it, `@N` line N.
inline std::vector<ExpectedDiagnostic> expectedDiagnostics(const std::string& text)
{
    static const std::regex re(
        R"(//\s*expected-(error|warning|remark|note)\s*(@([+-]\d+|above|below|\d+))?\s*\{\{(.*?)\}\})");
    std::vector<ExpectedDiagnostic> out;
    const std::vector<std::string> lines = splitLines(text);
    for (size_t i = 0; i < lines.size(); ++i) {
        const int here = static_cast<int>(i) + 1;
        for (std::sregex_iterator it(lines[i].begin(), lines[i].end(), re), end; it != end; ++it) {
            const std::smatch& m = *it;
            if (m[1] != "error" && m[1] != "warning")
                continue;
            const std::string where = m[3];
            int target = here;
            if (where == "above")
                target = here - 1;
            else if (where == "below")
                target = here + 1;
            else if (!where.empty() && (where[0] == '+' || where[0] == '-'))
                target = here + std::stoi(where);
            else if (!where.empty())
                target = std::stoi(where);
            out.push_back({m[1], target, m[4]});
        }
    }
    return out;
}

/// One part of an LLVM `split-file` input.
struct SplitFilePart {
    std::string name; ///< as written after the marker, e.g. "part1.mlir"
    std::string text;
};

/// The parts of an LLVM `split-file` input (without `--leading-lines`): a part starts after a marker line
/// `//--- NAME` (or `C--- NAME` with a one-character comment marker) and runs to the next marker or the end,
/// so its line numbers start at 1; the text before the first marker belongs to no part. Empty when `text`
/// has no marker.
inline std::vector<SplitFilePart> splitFileParts(const std::string& text)
{
    std::vector<SplitFilePart> parts;
    for (const std::string& line : splitLines(text)) {
        size_t nameStart = std::string::npos;
        if (line.rfind("//--- ", 0) == 0)
            nameStart = 6;
        else if (line.size() >= 5 && line.compare(1, 4, "--- ") == 0)
            nameStart = 5;
        if (nameStart != std::string::npos) {
            std::string name = line.substr(nameStart);
            name.erase(name.find_last_not_of(" \t\r") + 1);
            parts.push_back({name, {}});
        } else if (!parts.empty()) {
            parts.back().text += line + '\n';
        }
    }
    return parts;
}

/// The pieces `-split-input-file` cuts `text` into: the text between lines that start (after blanks) with
/// `// -----`. Each piece keeps the line numbers of `text` (the lines before it are left empty); the marker
/// lines belong to no piece. A text without markers is one piece, itself.
inline std::vector<std::string> splitInputFile(const std::string& text)
{
    std::vector<std::string> pieces(1);
    std::string before; // one '\n' per line already consumed
    for (const std::string& line : splitLines(text)) {
        const size_t first = line.find_first_not_of(" \t");
        if (first != std::string::npos && line.compare(first, 8, "// -----") == 0)
            pieces.push_back(before + '\n');
        else
            pieces.back() += line + '\n';
        before += '\n';
    }
    if (pieces.size() == 1)
        return {text};
    return pieces;
}

/// One unit of the shared conformance set: a file `cases/<group>/<name>.mlir`.
struct ConformanceUnit {
    std::filesystem::path file;
    std::string group;
    std::string text;
    /// For an execution unit, every flag its units.json recipe passes to the tool (`execution.combine[].passes`).
    std::vector<std::string> recipeFlags;
};

/// `sharedDir()/conformance`.
inline std::filesystem::path conformanceDir() { return sharedDir() / "conformance"; }

/// For each execution unit listed in `conformanceDir()/units.json`, keyed by its `file` ("cases/<group>/x.mlir"):
/// the flags of every tool run of its recipe. Empty when units.json is absent or unreadable.
inline std::map<std::string, std::vector<std::string>> executionRecipeFlags()
{
    std::map<std::string, std::vector<std::string>> flags;
    QFile f(QString::fromStdString((conformanceDir() / "units.json").string()));
    if (!f.open(QIODevice::ReadOnly))
        return flags;
    const QJsonArray units = QJsonDocument::fromJson(f.readAll()).object().value("units").toArray();
    for (const QJsonValue& u : units) {
        const QJsonObject unit = u.toObject();
        if (!unit.contains("execution"))
            continue;
        std::vector<std::string>& out = flags[unit.value("file").toString().toStdString()];
        for (const QJsonValue& piece : unit.value("execution").toObject().value("combine").toArray())
            for (const QJsonValue& pass : piece.toObject().value("passes").toArray())
                out.push_back(pass.toString().toStdString());
    }
    return flags;
}

/// Every `*.mlir` under `conformanceDir()/cases`, sorted by path, with its group (the folder under cases/)
/// and, for execution units, their recipe flags. Empty when the folder is absent.
inline std::vector<ConformanceUnit> conformanceUnits()
{
    const std::filesystem::path cases = conformanceDir() / "cases";
    std::vector<ConformanceUnit> units;
    if (!std::filesystem::is_directory(cases))
        return units;
    const auto recipes = executionRecipeFlags();
    for (const auto& e : std::filesystem::recursive_directory_iterator(cases)) {
        if (e.path().extension() != ".mlir")
            continue;
        ConformanceUnit u;
        u.file = e.path();
        u.group = std::filesystem::relative(e.path(), cases).begin()->string();
        u.text = readFile(e.path());
        const std::string key = std::filesystem::relative(e.path(), conformanceDir()).generic_string();
        if (auto it = recipes.find(key); it != recipes.end())
            u.recipeFlags = it->second;
        units.push_back(std::move(u));
    }
    std::sort(units.begin(), units.end(),
              [](const ConformanceUnit& a, const ConformanceUnit& b) { return a.file < b.file; });
    return units;
}

/// One text of a unit that the reader parses on its own, as the conformance runner hands it on.
struct UnitPiece {
    std::string name; ///< file name for diagnostics: the unit's, or `UNIT/PART` for a split-file part
    std::string text; ///< raw (comments not blanked)
    io::ReadOptions options;
    bool expectsDiagnostics = false; ///< the piece holds an `expected-error` or `expected-warning`
};

/// The pieces of `unit` the reader parses separately. A unit with split-file markers gives one piece per
/// part: `part1.mlir` goes to the tool, so it allows unregistered dialects when the unit's RUN lines or its
/// recipe pass `-allow-unregistered-dialect`; the other parts (`part2.mlir`) go to the interpreter, which
/// reads ops of any dialect, so they always allow them. A unit without markers is one piece, allowing
/// unregistered dialects when its RUN lines say so. When the RUN lines pass `-split-input-file`, each piece
/// is further cut at `// -----` lines (see splitInputFile).
inline std::vector<UnitPiece> unitPieces(const ConformanceUnit& unit)
{
    const std::string fileName = unit.file.filename().string();
    const bool runAllows = runLinesMention(unit.text, "allow-unregistered-dialect");
    const bool recipeAllows = std::any_of(unit.recipeFlags.begin(), unit.recipeFlags.end(), [](const std::string& f) {
        return f.find("allow-unregistered-dialect") != std::string::npos;
    });
    std::vector<UnitPiece> whole;
    const std::vector<SplitFilePart> parts = splitFileParts(unit.text);
    if (parts.empty()) {
        UnitPiece p;
        p.name = fileName;
        p.text = unit.text;
        p.options.allowUnregisteredDialects = runAllows;
        whole.push_back(std::move(p));
    }
    for (const SplitFilePart& part : parts) {
        UnitPiece p;
        p.name = fileName + "/" + part.name;
        p.text = part.text;
        p.options.allowUnregisteredDialects = part.name == "part1.mlir" ? runAllows || recipeAllows : true;
        whole.push_back(std::move(p));
    }
    const bool split = runLinesMention(unit.text, "split-input-file");
    std::vector<UnitPiece> pieces;
    for (UnitPiece& w : whole) {
        for (std::string& text : split ? splitInputFile(w.text) : std::vector<std::string>{w.text}) {
            UnitPiece p = w;
            p.text = std::move(text);
            p.expectsDiagnostics = testing::expectsDiagnostics(p.text);
            pieces.push_back(std::move(p));
        }
    }
    return pieces;
}

/// A piece of a shared conformance unit that expects no diagnostic but does not parse because the reader
/// lacks something (not because of how the tests cut the unit), with what is missing.
struct KnownReaderGap {
    const char* piece; ///< UnitPiece::name
    const char* reason;
};

/// The reader gaps the corpus tests tolerate. Each of them fails when a listed piece parses, so that the
/// entry is removed with the fix.
inline const std::vector<KnownReaderGap>& knownReaderGaps()
{
    static const std::vector<KnownReaderGap> gaps = {
        {"execution__convert_global_to_local__stablehlo_slice__000__run1.mlir/part2.mlir",
         "`check.expect_eq %a, %b : T` (line 39 of part2, 66 of the unit): the reader has no custom form for ops "
         "of the `check` dialect, which the interpreter contract accepts"},
    };
    return gaps;
}

/// Floors of the units per group whose every piece parses (see unitPieces; comments blanked), measured on the
/// shared set with the reader of commit 80c281e. A group below its floor means the reader regressed; raise a
/// floor when the reader gets better.
constexpr int kParsedUnitsIr = 210;
constexpr int kParsedUnitsPropagation = 198;
constexpr int kParsedUnitsPropagationDebugging = 16;
constexpr int kParsedUnitsExportReshards = 190;
constexpr int kParsedUnitsPartition = 134;
constexpr int kParsedUnitsExecution = 51;

/// The floors above by group name.
inline const std::map<std::string, int>& parsedUnitFloors()
{
    static const std::map<std::string, int> floors = {
        {"ir", kParsedUnitsIr},
        {"propagation", kParsedUnitsPropagation},
        {"propagation_debugging", kParsedUnitsPropagationDebugging},
        {"export_reshards", kParsedUnitsExportReshards},
        {"partition", kParsedUnitsPartition},
        {"execution", kParsedUnitsExecution},
    };
    return floors;
}

/// Parses every piece of `units` with its comments blanked, as the conformance runner hands it to the tool,
/// and calls `onParsed` with each module that reads without errors. Returns the problems found, one line each:
/// a piece that expects no diagnostic yet does not parse (with the reader's first error), unless it is a known
/// reader gap; a known gap that parses now; a group of parsedUnitFloors() whose count of units with every
/// piece parsed is below its floor. `summary`, when given, receives the counts (per group for parsed units).
inline QStringList parseConformanceUnits(const std::vector<ConformanceUnit>& units,
                                         const std::function<void(const UnitPiece&, ir::Module&)>& onParsed,
                                         std::string* summary = nullptr)
{
    QStringList problems;
    std::map<std::string, int> total, parsed;
    int pieces = 0, piecesExpectingDiagnostics = 0, openGaps = 0;
    for (const ConformanceUnit& unit : units) {
        ++total[unit.group];
        bool allParsed = true;
        for (const UnitPiece& piece : unitPieces(unit)) {
            ++pieces;
            piecesExpectingDiagnostics += piece.expectsDiagnostics ? 1 : 0;
            DiagnosticList diags;
            auto m = io::parseMlir(blankComments(piece.text), piece.name, diags, piece.options);
            const bool ok = m && !diags.hasErrors();
            const auto& gaps = knownReaderGaps();
            const bool knownGap =
                std::any_of(gaps.begin(), gaps.end(), [&](const KnownReaderGap& g) { return piece.name == g.piece; });
            if (ok && knownGap)
                problems << QString::fromStdString(piece.name + ": listed as a known reader gap but parses");
            else if (!ok && knownGap)
                ++openGaps;
            else if (!ok && !piece.expectsDiagnostics)
                problems << QString::fromStdString(
                    piece.name + ": expects no diagnostic but does not parse: " +
                    (diags.all().empty() ? std::string("(no diagnostic)") : diags.all().front().format()));
            allParsed = allParsed && ok;
            if (ok && onParsed)
                onParsed(piece, *m);
        }
        if (allParsed)
            ++parsed[unit.group];
    }
    std::string counts;
    for (const auto& [group, n] : total)
        counts += (counts.empty() ? "" : ", ") + group + " " + std::to_string(parsed[group]) + "/" + std::to_string(n);
    for (const auto& [group, floor] : parsedUnitFloors())
        if (parsed[group] < floor)
            problems << QString::fromStdString("group " + group + ": " + std::to_string(parsed[group]) +
                                               " units parse, below the floor of " + std::to_string(floor));
    if (summary)
        *summary = std::to_string(units.size()) + " units, " + std::to_string(pieces) + " pieces (" +
                   std::to_string(piecesExpectingDiagnostics) +
                   " expect diagnostics); units with every piece parsed: " + counts +
                   "; known reader gaps still open: " + std::to_string(openGaps);
    return problems;
}

/// Parses `text`, warning with the diagnostics when it fails.
inline std::unique_ptr<ir::Module> parseOk(const std::string& text, const io::ReadOptions& opts = {})
{
    DiagnosticList diags;
    auto m = io::parseMlir(text, "t.mlir", diags, opts);
    if (!m)
        qWarning("%s", diags.formatAll().c_str());
    return m;
}

/// Parses `text` expecting failure; returns the first diagnostic (a note "<no error>" when it parsed).
inline Diagnostic parseFail(const std::string& text)
{
    DiagnosticList diags;
    auto m = io::parseMlir(text, "t.mlir", diags);
    if (m || diags.all().empty())
        return Diagnostic{Severity::Note, {}, "<no error>", {}};
    return diags.all().front();
}

/// The first op named `name` in a walk of the module, or nullptr.
inline ir::Op* firstOp(ir::Module& m, const std::string& name)
{
    ir::Op* found = nullptr;
    m.op().walk([&](ir::Op* op) {
        if (!found && op->name() == name)
            found = op;
    });
    return found;
}

} // namespace shardx::testing
