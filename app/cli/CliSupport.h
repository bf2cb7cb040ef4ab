// The pieces every shardx-cli subcommand shares: arguments, reading and opening input files
// (split on `// -----` lines), propagating, writing output.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "core/io/SplitInput.h"
#include "core/session/Session.h"

namespace shardx::cli {

/// Command-line arguments of one subcommand: positional values and `--name value` options.
struct Args {
    std::vector<std::string> positional;
    std::map<std::string, std::string> options;
    std::string error;

    bool has(const std::string& k) const { return options.count(k) != 0; }
    std::string get(const std::string& k, const std::string& def = {}) const
    {
        auto it = options.find(k);
        return it == options.end() ? def : it->second;
    }
};

Args parseArgs(int argc, char** argv, int first, const std::vector<std::string>& valueOptions);

/// The objects kept until the process exits (see keepUntilExit): reachable from a static pointer, so
/// leak checkers count them as in use rather than lost.
std::vector<void*>& objectsKeptUntilExit();

/// Moves `value` to the heap, where it stays until the process exits and is never destroyed: a command
/// runs once and the process ends right after it, so tearing its programs down op by op (a tenth of a
/// second for 100k ops, the partitioned program as much again) would be time spent for nothing.
template <typename T> T& keepUntilExit(T value)
{
    T* kept = new T(std::move(value));
    objectsKeptUntilExit().push_back(kept);
    return *kept;
}

/// A session made fresh in `slot` (0 or 1) on each call and kept until the process exits: the one made
/// before in the slot is destroyed then (a command that opens the parts of a split file one by one
/// frees each part before the next), the last one never (keepUntilExit).
Session& freshSession(int slot = 0);

/// Writes `text` to `-o FILE` (stdout when absent or `-`); false, with the error printed, when it fails.
bool writeOutput(const Args& args, const std::string& text);
/// The same with the text written by `write` as it is made (a module printed as it goes).
bool writeOutput(const Args& args, const std::function<void(std::ostream&)>& write);

bool parseInt(const std::string& text, int64_t& out);

/// A file as shardx-cli reads it: MLIR text with `// -----` lines is cut into parts (as mlir-opt's
/// -split-input-file cuts it), each opened on its own; any other file is one part.
/// `--no-split-input-file` reads such a file whole (the markers are then comments).
struct InputFile {
    std::string path;
    std::string text;
    std::vector<io::InputPart> parts;
    bool split = false; ///< the file was cut on marker lines

    /// The file name diagnostics use.
    std::string name() const { return path == "-" ? std::string("<stdin>") : path; }
    /// How a part is named in messages: `FILE (part N, line L)`, or `FILE` for a file read whole.
    std::string partName(size_t index) const
    {
        if (!split)
            return path;
        return path + " (part " + std::to_string(index + 1) + ", line " + std::to_string(parts[index].firstLine) + ")";
    }
};

/// Reads `path` into `file`; prints the error and returns false when it cannot be read.
bool readInput(const std::string& path, const Args& args, InputFile& file);

/// Opens part `index` of `file` in `session`, printing every problem found (at lines of the whole
/// file); false when it did not open cleanly.
bool openPart(Session& session, const InputFile& file, size_t index, const Args& args);

/// Opens the one module a command works on: the whole file, or with `--part N` part N (1-based)
/// of a split file. A split file of several parts needs `--part`.
bool openVerified(Session& session, const std::string& path, const Args& args, const char* command);

/// Runs `strategy` in `session`, printing the diagnostics; false on failure. With `traceFile` the
/// trace is streamed there in the binary format instead of being kept in the session. With
/// `consumeSource` the open module is propagated without a copy (PropagationRequest::consumeSource):
/// for a command that then reads only the result.
bool propagate(Session& session, const std::string& strategy, bool record, const std::string& traceFile = {},
               bool consumeSource = false);

// Subcommands in their own files.
int cmdInterpret(int argc, char** argv); ///< CliRun.cpp
int cmdExplicit(int argc, char** argv);  ///< CliTyping.cpp
int cmdAnnotate(int argc, char** argv);  ///< CliTyping.cpp
int cmdValidate(int argc, char** argv);  ///< CliValidate.cpp

} // namespace shardx::cli
