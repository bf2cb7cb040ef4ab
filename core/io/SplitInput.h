// SplitInput: mlir-opt's -split-input-file (a file cut into parts on `// -----` lines) and its output joining.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace shardx::io {

/// The line that separates the parts of a split file, and the parts' outputs.
inline constexpr std::string_view kSplitMarker = "// -----";

/// One part of a split file.
struct InputPart {
    std::string_view text; ///< the part's text (a view into the whole file), marker lines excluded
    int firstLine = 1;     ///< 1-based line of the whole file on which `text` starts
};

/// True when `line` (without its line break) is a split marker: `// -----` with nothing else on
/// the line but blanks (spaces, tabs, a carriage return).
bool isSplitMarkerLine(std::string_view line);

/// Cuts `text` into the parts between split marker lines, in order. A text without marker lines
/// is one part (the whole text, first line 1); an empty text has no part (mlir-opt prints nothing
/// for it). Two markers in a row, or a marker on the first or the last line, give an empty part
/// (read as an empty module). Parse a part with `ReadOptions::firstLine = part.firstLine` so that
/// positions are lines of the whole file.
std::vector<InputPart> splitInputFile(std::string_view text);

/// True when `text` has at least one split marker line.
bool hasSplitMarker(std::string_view text);

/// What mlir-opt prints for a split file whose parts gave `modules` (each as io::printModule prints
/// it; empty for a part that failed): every module followed by the newline mlir-opt's driver
/// writes after a module, and `\n// -----\n` between two parts (so a failed part leaves its
/// marker lines, and the parts keep their places). One module alone is printed as mlir-opt
/// prints a file without -split-input-file.
std::string joinSplitOutputs(const std::vector<std::string>& modules);

} // namespace shardx::io
