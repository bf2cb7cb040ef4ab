// Interpreter: function and region evaluation, op dispatch and attribute helpers.
#include "core/exec/Interpreter.h"

#include <chrono>
#include <cmath>
#include <new>
#include <stdexcept>

#include "core/exec/Timings.h"
#include "core/ir/FuncOps.h"
#include "core/ir/StablehloAttrs.h"

namespace shardx::exec {

Tensor OpContext::result(unsigned i) const
{
    std::string error;
    auto t = zeroTensorOfType(op.result(i)->type(), error);
    if (!t)
        fail("result " + std::to_string(i) + ": " + error);
    return std::move(*t);
}

void OpContext::fail(const std::string& message) const
{
    throw ExecError{"'" + op.name() + "': " + message, interp.posOf(op)};
}

std::vector<int64_t> OpContext::ints(const char* name) const
{
    const ir::Attribute* a = op.attr(name);
    if (!a)
        fail(std::string("missing attribute '") + name + "'");
    auto v = stablehlo::intList(a);
    if (!v)
        fail(std::string("attribute '") + name + "' is not a list of integers");
    return *v;
}

std::vector<int64_t> OpContext::intsOr(const char* name, std::vector<int64_t> fallback) const
{
    return op.attr(name) ? ints(name) : fallback;
}

int64_t OpContext::integer(const char* name) const
{
    const ir::Attribute* a = op.attr(name);
    if (!a)
        fail(std::string("missing attribute '") + name + "'");
    auto v = stablehlo::intValue(a);
    if (!v)
        fail(std::string("attribute '") + name + "' is not an integer");
    return *v;
}

int64_t OpContext::integerOr(const char* name, int64_t fallback) const
{
    return op.attr(name) ? integer(name) : fallback;
}

std::vector<Tensor> OpContext::runRegion(unsigned i, std::vector<Tensor> args) const
{
    if (i >= op.numRegions())
        fail("missing region " + std::to_string(i));
    return interp.runRegion(op.region(i), std::move(args), &frame, proc);
}

Tensor scalarOf(const Tensor& t, int64_t i)
{
    Tensor s(t.elementType(), {});
    s.copyElement(0, t, i);
    return s;
}

Interpreter::Interpreter(const ir::Module& module) : m_module(module)
{
    registerElementwiseOps(m_handlers);
    registerShapeOps(m_handlers);
    registerIndexingOps(m_handlers);
    registerReductionOps(m_handlers);
    registerLinalgOps(m_handlers);
    registerControlOps(m_handlers);
    registerCollectiveOps(m_handlers);
    registerFftOps(m_handlers);
    registerManualOps(m_handlers);
}

SourcePos Interpreter::posOf(const ir::Op& op) const
{
    SourcePos p = op.pos;
    if (p.file.empty())
        p.file = m_module.fileName;
    return p;
}

std::vector<Tensor> Interpreter::callFunction(const ir::Op& func, std::vector<Tensor> args, const ProcessInfo& proc)
{
    if (func.numRegions() == 0 || func.region(0).empty())
        throw ExecError{"function @" + ir::symbolName(func) + " has no body", posOf(func)};
    return runRegion(func.region(0), std::move(args), nullptr, proc);
}

std::vector<Tensor> Interpreter::runRegion(const ir::Region& region, std::vector<Tensor> args, const Frame* parent,
                                           const ProcessInfo& proc)
{
    const ir::Op* owner = region.parentOp();
    if (region.blocks().size() != 1)
        throw ExecError{"regions of more than one block are not supported",
                        owner ? posOf(*owner) : SourcePos{m_module.fileName, 0, 0}};
    const ir::Block& block = *region.blocks().front();
    if (args.size() != block.numArgs())
        throw ExecError{"region takes " + std::to_string(block.numArgs()) + " arguments, got " +
                            std::to_string(args.size()),
                        owner ? posOf(*owner) : SourcePos{m_module.fileName, 0, 0}};
    // Timed: the ops of function bodies and of the control flow and manual computations in them (a manual
    // computation's on each device that runs its body), not those of a reduction's, sort's or scatter's body
    // (run per element, they are part of their op's time).
    bool timed = m_hooks.timings != nullptr;
    for (const ir::Op* o = owner; timed && o && o->name() != "func.func"; o = o->parentOp())
        timed = o->name() == "stablehlo.while" || o->name() == "stablehlo.if" || o->name() == "stablehlo.case" ||
                o->name() == "sdy.manual_computation";
    Frame frame;
    frame.parent = parent;
    for (unsigned i = 0; i < block.numArgs(); ++i) {
        const ir::Type& t = block.arg(i)->type();
        if (t.isRankedTensor() && (t.shape() != args[i].shape() || t.elementType() != args[i].elementType().name))
            throw ExecError{"argument " + std::to_string(i) + " has type " + args[i].typeString() + ", expected " +
                                t.toString(),
                            owner ? posOf(*owner) : SourcePos{m_module.fileName, 0, 0}};
        frame.values.emplace(block.arg(i), std::move(args[i]));
    }
    for (const auto& opPtr : block.ops()) {
        const ir::Op& op = *opPtr;
        const std::string& name = op.name();
        if (name == "func.return" || name == "stablehlo.return" || name == "sdy.return") {
            std::vector<Tensor> out;
            out.reserve(op.numOperands());
            for (ir::Value* v : op.operands()) {
                const Tensor* t = frame.find(v);
                if (!t)
                    throw ExecError{"'" + name + "': operand has no value", posOf(op)};
                out.push_back(*t);
            }
            return out;
        }
        if (m_hooks.cancel && m_hooks.cancel->load(std::memory_order_relaxed))
            throw ExecError{"cancelled", posOf(op)};
        const bool timeThis = timed && name != "stablehlo.while" && name != "stablehlo.if" &&
                              name != "stablehlo.case" && name != "func.call" && name != "interpreter.run_parallel" &&
                              name != "sdy.manual_computation";
        const auto start = timeThis ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
        std::vector<Tensor> results = evalOp(op, frame, proc);
        if (timeThis)
            m_hooks.timings->hostTime(
                timingProcess(proc), op, posOf(op),
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        if (results.size() != op.numResults())
            throw ExecError{"'" + name + "': produced " + std::to_string(results.size()) + " results, expected " +
                                std::to_string(op.numResults()),
                            posOf(op)};
        if (m_hooks.observer || m_hooks.fault)
            afterOp(op, proc, results);
        for (unsigned i = 0; i < op.numResults(); ++i)
            frame.values.insert_or_assign(op.result(i), std::move(results[i]));
    }
    throw ExecError{"block has no terminator", owner ? posOf(*owner) : SourcePos{m_module.fileName, 0, 0}};
}

std::vector<Tensor> Interpreter::evalOp(const ir::Op& op, const Frame& frame, const ProcessInfo& proc)
{
    auto it = m_handlers.find(op.name());
    if (it == m_handlers.end())
        throw ExecError{"op '" + op.name() + "' is not supported by the reference interpreter", posOf(op)};
    OpContext ctx{*this, op, {}, proc, frame};
    ctx.operands.reserve(op.numOperands());
    for (ir::Value* v : op.operands()) {
        const Tensor* t = frame.find(v);
        if (!t)
            throw ExecError{"'" + op.name() + "': operand " + std::to_string(ctx.operands.size()) +
                                " has no value (not a tensor, or defined later)",
                            posOf(op)};
        ctx.operands.push_back(t);
    }
    try {
        if (m_offload) {
            std::vector<Tensor> out;
            if (m_offload->run(ctx, out))
                return out;
        }
        // A handler (and a collective's peers, through it) reads host memory: operands kept on a device are
        // fetched here, on the thread that owns them. Control flow only passes its operands on (a loop's carried
        // values stay on the device).
        const std::string& n = op.name();
        if (n != "stablehlo.while" && n != "func.call" && n != "stablehlo.if" && n != "stablehlo.case")
            for (const Tensor* t : ctx.operands)
                t->fetch();
        return it->second(ctx);
    } catch (ExecError& e) {
        // Errors raised below the handler without a position (element kernels) are the op's.
        if (!e.pos.isKnown()) {
            e.pos = posOf(op);
            e.message = "'" + op.name() + "': " + e.message;
        }
        throw;
    } catch (const std::out_of_range& e) {
        throw ExecError{"'" + op.name() + "': " + e.what() + " (its attributes or types do not match its operands)",
                        posOf(op)};
    } catch (const std::bad_alloc&) {
        throw ExecError{"'" + op.name() + "': out of memory", posOf(op)};
    } catch (const std::exception& e) {
        throw ExecError{"'" + op.name() + "': " + e.what(), posOf(op)};
    }
}

namespace {

bool interpIsCollective(const std::string& name)
{
    return name == "stablehlo.all_gather" || name == "stablehlo.all_reduce" || name == "stablehlo.reduce_scatter" ||
           name == "stablehlo.all_to_all" || name == "stablehlo.collective_permute" ||
           name == "stablehlo.collective_broadcast";
}

/// The corruption of CollectiveFault: every element moved off its value, floats by 1 + |x| (at least 1 and at
/// least their own size, so that no tolerance hides it).
void interpCorrupt(Tensor& t)
{
    const ElementType& type = t.elementType();
    for (int64_t i = 0; i < t.numElements(); ++i) {
        if (type.isFloat())
            t.setFloat(i, t.getFloat(i) + 1.0 + std::fabs(t.getFloat(i)));
        else if (type.isBool())
            t.setInt(i, t.getInt(i) == 0 ? 1 : 0);
        else if (type.isInteger())
            t.setInt(i, t.getInt(i) + 1);
        else if (type.isComplex())
            t.setComplex(i, t.getComplex(i) + std::complex<double>(1.0, 0.0));
    }
}

} // namespace

void Interpreter::afterOp(const ir::Op& op, const ProcessInfo& proc, std::vector<Tensor>& results)
{
    const ir::Op* parent = op.parentOp();
    // A fault strikes the processes of the run (a grid's), not the body instances of a manual computation: those
    // are the devices of one op of a global program, whose process ids mean something else.
    if (m_hooks.fault && !proc.manual && interpIsCollective(op.name())) {
        const int64_t process = proc.replica * proc.numPartitions + proc.partition;
        if (process == m_hooks.fault->process) {
            bool strike = false;
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                strike = m_collectivesRun[process]++ == m_hooks.fault->collective;
                if (strike)
                    m_injected = InjectedFault{true, op.name(), posOf(op), process, &op};
            }
            if (strike)
                for (Tensor& t : results)
                    interpCorrupt(t);
        }
    }
    if (m_hooks.observer && parent && (proc.manual ? parent == proc.manual->op : parent->name() == "func.func"))
        m_hooks.observer->opEvaluated(op, proc, results);
}

InjectedFault Interpreter::injectedFault() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_injected;
}

void Interpreter::addCheckFailure(CheckFailure f)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_failures.push_back(std::move(f));
}

std::vector<CheckFailure> Interpreter::checkFailures() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_failures;
}

void Interpreter::countCheck()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    ++m_checks;
}

int64_t Interpreter::checksRun() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_checks;
}

// ---- Combiner ----------------------------------------------------------------------------------

Combiner::Combiner(const OpContext& ctx, unsigned region) : m_ctx(ctx), m_region(region)
{
    if (region >= ctx.op.numRegions() || ctx.op.region(region).blocks().size() != 1)
        ctx.fail("missing body region");
    const ir::Block& block = *ctx.op.region(region).blocks().front();
    m_arity = block.numArgs() / 2;
    // Fast path: ^bb(%a, %b): %r = OP %a, %b (or %b, %a); return %r.
    if (block.numArgs() != 2 || block.ops().size() != 2)
        return;
    const ir::Op& body = *block.ops().front();
    const ir::Op& ret = *block.ops().back();
    auto kind = binaryKindOf(body.name());
    if (!kind || body.numOperands() != 2 || ret.numOperands() != 1 || ret.operand(0) != body.result(0))
        return;
    if (body.operand(0) == block.arg(0) && body.operand(1) == block.arg(1)) {
        m_fast = kind;
    } else if (body.operand(0) == block.arg(1) && body.operand(1) == block.arg(0)) {
        m_fast = kind;
        m_swapped = true;
    }
}

void Combiner::combine(std::vector<Tensor*>& accs, int64_t ia, const std::vector<const Tensor*>& xs, int64_t ix) const
{
    if (m_fast) {
        if (m_swapped)
            applyBinary(*m_fast, *xs[0], ix, *accs[0], ia, *accs[0], ia);
        else
            applyBinary(*m_fast, *accs[0], ia, *xs[0], ix, *accs[0], ia);
        return;
    }
    std::vector<Tensor> args;
    args.reserve(accs.size() + xs.size());
    for (Tensor* a : accs)
        args.push_back(scalarOf(*a, ia));
    for (const Tensor* x : xs)
        args.push_back(scalarOf(*x, ix));
    std::vector<Tensor> out = m_ctx.runRegion(m_region, std::move(args));
    if (out.size() != accs.size())
        m_ctx.fail("body returns " + std::to_string(out.size()) + " values, expected " + std::to_string(accs.size()));
    for (size_t k = 0; k < accs.size(); ++k) {
        if (out[k].numElements() != 1 || !(out[k].elementType() == accs[k]->elementType()))
            m_ctx.fail("body returns " + out[k].typeString() + ", expected a scalar of " + accs[k]->elementType().name);
        accs[k]->copyElement(ia, out[k], 0);
    }
}

} // namespace shardx::exec
