// The registry of every pass the tools run: names, options, and how each one runs.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/Module.h"
#include "core/support/Diagnostic.h"
#include "core/support/Expected.h"

namespace shardx {

class PropagationObserver;

/// Options of one pass invocation, `name=value` pairs as given on the command line.
using PassOptions = std::map<std::string, std::string>;

/// What a pass run gets besides its options.
struct PassContext {
    DiagnosticList& diags;
    /// Sees every propagation step of the passes that propagate (may be null).
    PropagationObserver* observer = nullptr;
    /// Set (from any thread) to stop a propagating pass early; it then reports an error.
    const std::atomic<bool>* cancel = nullptr;
};

/// A registered pass: its flag name (without the leading '-'), what it does, the options it
/// accepts, and the function that runs it (returns false after reporting errors).
struct PassInfo {
    std::string name;
    std::string description;
    std::vector<std::string> options;
    std::function<bool(ir::Module&, const PassOptions&, PassContext&)> body;
    /// The pass reports what it changes to the context's observer as propagation steps and
    /// stages. For any other pass, run() reports the whole pass as one stage.
    bool reportsSteps = false;

    bool run(ir::Module& module, const PassOptions& options, PassContext& context) const;
    /// The same without observer or cancellation.
    bool run(ir::Module& module, const PassOptions& options, DiagnosticList& diags) const;
};

/// Every pass the tools know, in a stable order.
const std::vector<PassInfo>& registeredPasses();
/// The pass named `name`, or nullptr.
const PassInfo* findPass(std::string_view name);
/// `-canonicalize, -sdy-...`: every registered pass, for error messages.
std::string knownPassList();

/// A propagation strategy users choose by name, and the pass that implements it.
struct PropagationStrategy {
    const char* name;        ///< `basic`, `aggressive`, `op-priority`, `user-priority`, `pipeline`
    const char* pass;        ///< its registered pass
    const char* description; ///< one line for help texts
};
/// Every strategy, in the order help texts list them.
const std::vector<PropagationStrategy>& propagationStrategies();
/// The strategy named `name`, or nullptr.
const PropagationStrategy* findPropagationStrategy(std::string_view name);
/// `basic|aggressive|op-priority|user-priority|pipeline`.
std::string propagationStrategyList();

/// One pass with its options, as a pass list or a command line names it.
struct PassInvocation {
    const PassInfo* pass = nullptr;
    PassOptions options;
};

/// Parses `-name`, `--name`, `name`, `-name=opt=value` or `-name=opt1=v1 opt2=v2` (the option
/// list may be quoted; an option without `=` means `=true`). Fails naming the known passes for
/// an unknown name, or the pass's known options for an unknown option.
Expected<PassInvocation> parsePassInvocation(const std::string& text);

/// Reads the options of one pass invocation into typed fields, reporting the first malformed
/// value (`invalid value 'x' for option name`) to the diagnostics.
class PassOptionReader {
public:
    PassOptionReader(const PassOptions& options, const ir::Module& module, DiagnosticList& diags)
        : m_options(options), m_module(module), m_diags(diags)
    {}

    /// `true`/`1` or `false`/`0`; `out` is left alone when the option is absent.
    PassOptionReader& flag(const std::string& name, bool& out);
    /// A decimal integer (an optional '-' and digits).
    PassOptionReader& integer(const std::string& name, int64_t& out);
    /// Any text.
    PassOptionReader& text(const std::string& name, std::string& out);
    /// One of `choices` (its text and the value it stands for).
    template <typename T>
    PassOptionReader& choice(const std::string& name, const std::vector<std::pair<std::string, T>>& choices, T& out)
    {
        auto it = m_options.find(name);
        if (it == m_options.end() || !m_ok)
            return *this;
        for (const auto& [text, value] : choices)
            if (text == it->second) {
                out = value;
                return *this;
            }
        fail(name, it->second);
        return *this;
    }
    bool ok() const { return m_ok; }

private:
    void fail(const std::string& name, const std::string& value);

    const PassOptions& m_options;
    const ir::Module& m_module;
    DiagnosticList& m_diags;
    bool m_ok = true;
};

} // namespace shardx
