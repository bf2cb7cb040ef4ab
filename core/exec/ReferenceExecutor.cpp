// ReferenceExecutor: entry points over the Interpreter; ExecError becomes shardx::Error here.
#include "core/exec/ReferenceExecutor.h"

#include "core/exec/Interpreter.h"
#include "core/ir/FuncOps.h"

namespace shardx::exec {

namespace {

Error refToError(const ExecError& e) { return Error{e.message, e.pos}; }

/// Results leave the executor as host tensors: a back end's device copies are fetched and let go (the caller
/// may outlive the executor, and device memory should not be held by results).
void refToHost(std::vector<Tensor>& tensors)
{
    for (Tensor& t : tensors)
        t.dropStorage();
}

const ir::Op* refFindFunc(const ir::Module& module, const std::string& name, Error& error)
{
    const ir::Op* f = module.findFunc(name);
    if (!f)
        error = Error{"no function @" + name + " to run", SourcePos{module.fileName, 0, 0}};
    return f;
}

} // namespace

Expected<std::vector<Tensor>> ReferenceExecutor::runFunction(const ir::Module& module, const std::string& func,
                                                             const std::vector<Tensor>& args)
{
    Error error;
    const ir::Op* f = refFindFunc(module, func, error);
    if (!f)
        return error;
    Interpreter interp(module);
    interp.setOffload(m_offload);
    interp.setHooks(m_hooks);
    Expected<std::vector<Tensor>> out = Error{};
    try {
        out = interp.callFunction(*f, args, ProcessInfo{});
        refToHost(*out);
    } catch (const ExecError& e) {
        out = refToError(e);
    } catch (const std::exception& e) {
        out = Error{e.what(), {}};
    }
    m_lastFault = interp.injectedFault();
    return out;
}

Expected<std::vector<Tensor>> ReferenceExecutor::runParallel(const ir::Module& module,
                                                             const std::vector<std::vector<std::string>>& programs,
                                                             const std::vector<Tensor>& args)
{
    if (programs.empty() || programs.front().empty())
        return Error{"an empty grid of programs", {}};
    const int64_t replicas = static_cast<int64_t>(programs.size());
    const int64_t partitions = static_cast<int64_t>(programs.front().size());
    std::vector<const ir::Op*> funcs;
    for (const auto& row : programs) {
        if (static_cast<int64_t>(row.size()) != partitions)
            return Error{"the rows of the grid differ in length", {}};
        for (const auto& name : row) {
            Error error;
            const ir::Op* f = refFindFunc(module, name, error);
            if (!f)
                return error;
            funcs.push_back(f);
        }
    }
    std::vector<std::vector<Tensor>> perProcess(funcs.size());
    size_t next = 0;
    for (size_t p = 0; p < funcs.size(); ++p) {
        const size_t n = ir::funcType(*funcs[p]).elements().size();
        if (next + n > args.size())
            return Error{"too few arguments for the grid's functions", {}};
        perProcess[p].assign(args.begin() + static_cast<std::ptrdiff_t>(next),
                             args.begin() + static_cast<std::ptrdiff_t>(next + n));
        next += n;
    }
    if (next != args.size())
        return Error{"more arguments than the grid's functions take", {}};
    Interpreter interp(module);
    interp.setOffload(m_offload);
    interp.setHooks(m_hooks);
    std::vector<std::vector<Tensor>> results;
    try {
        results = interp.runGrid(funcs, replicas, partitions, std::move(perProcess));
    } catch (const ExecError& e) {
        m_lastFault = interp.injectedFault();
        return refToError(e);
    } catch (const std::exception& e) {
        m_lastFault = interp.injectedFault();
        return Error{e.what(), {}};
    }
    m_lastFault = interp.injectedFault();
    std::vector<Tensor> out;
    try {
        for (auto& r : results) {
            refToHost(r);
            for (auto& t : r)
                out.push_back(std::move(t));
        }
    } catch (const std::exception& e) {
        return Error{std::string("fetching the results: ") + e.what(), {}};
    }
    return out;
}

Expected<InterpretReport> ReferenceExecutor::interpret(const ir::Module& module, const std::string& entry)
{
    Error error;
    const ir::Op* f = refFindFunc(module, entry, error);
    if (!f)
        return error;
    Interpreter interp(module);
    interp.setOffload(m_offload);
    interp.setHooks(m_hooks);
    if (!ir::funcType(*f).elements().empty())
        return Error{"@" + entry + " must take no arguments", interp.posOf(*f)};
    InterpretReport report;
    try {
        report.results = interp.callFunction(*f, {}, ProcessInfo{});
        refToHost(report.results);
    } catch (const ExecError& e) {
        return refToError(e);
    } catch (const std::exception& e) {
        return Error{e.what(), {}};
    }
    for (const CheckFailure& c : interp.checkFailures())
        report.failures.push_back(Diagnostic{Severity::Error, c.pos, c.message, {}});
    report.checksRun = interp.checksRun();
    return report;
}

} // namespace shardx::exec
