// PropagationDriver: one propagation pass over a module (SDY.md 4.8): func-result steps, the
// worklist fixpoint, sharding groups, rule attachment and removal.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/ir/Module.h"
#include "core/propagation/FactorPropagation.h"
#include "core/propagation/PropagationObserver.h"
#include "core/propagation/StepCache.h"
#include "core/rules/RuleRegistry.h"
#include "core/support/Diagnostic.h"
#include "core/support/PointerMap.h"

namespace shardx {

/// Factor propagation strategy of one run.
enum class FactorStrategy { Basic, Aggressive };

/// Direction of factor `f` of `op` with `rule` imposed by the op-priority heuristics.
using OpDirectionFn = std::function<PropagationDirection(const ir::Op& op, const OpShardingRule& rule, int64_t f)>;

/// Options shared by all propagation passes.
struct PropagationOptions {
    bool conservative = false;      ///< `conservative-propagation`
    bool keepShardingRules = false; ///< `keep-sharding-rules`
    PropagationObserver* observer = nullptr;
    /// When set (from any thread), the driver stops at the next op visit and reports an error.
    const std::atomic<bool>* cancel = nullptr;
};

/// True for element-wise ops in the sense of SDY.md 4.11.
bool isElementwiseOp(const ir::Op& op);

/// Runs propagation over one module. Usage: `prepare()`, any number of `run()`, `finish()`.
class PropagationDriver {
public:
    PropagationDriver(ir::Module& module, PropagationOptions options, DiagnosticList& diags);

    /// Checks shapes and builds/synchronises sharding groups. False after reporting errors.
    bool prepare();
    /// One complete run (func results, worklist fixpoint, func results).
    void run(FactorStrategy strategy, OpDirectionFn direction = {});
    /// End of the pass: removes non-custom sharding rules unless keep-sharding-rules.
    void finish();

    ir::Module& module() { return m_module; }
    /// True once the options' cancel flag was seen set: runs return at once and an error
    /// "propagation cancelled" was reported.
    bool cancelled() const { return m_cancelled; }
    /// The main function (the only one, or `@main`), or nullptr.
    ir::Op* mainFunc() const;

private:
    /// One tensor of a step: a value (possibly seen through a manual computation's view), or
    /// a function result attribute.
    struct StepTensor {
        enum class View { Plain, LocalAsGlobal, GlobalAsLocal };
        ir::Value* value = nullptr;
        ir::Op* func = nullptr; ///< for a function result attribute
        int funcResult = -1;
        View view = View::Plain;
        ir::Op* manualOp = nullptr; ///< for the manual views
        /// The sharding as presented to the factor propagation: `own` where the step computed it
        /// (a manual view, a new sharding), else `ref`, read in place from the IR (valid until the
        /// step stores a sharding).
        const TensorSharding* ref = nullptr;
        std::optional<TensorSharding> own;
        const TensorSharding* current() const { return own ? &*own : ref; }
    };
    StepTensor plainTensor(ir::Value* v) const;
    /// The mesh `ref` names (Module::resolveMesh, the last named mesh remembered).
    const Mesh* resolveMesh(const MeshRef& ref);
    /// Stores `s` for tensor `t`; returns the value to notify (nullptr: nothing stored).
    ir::Value* store(const StepTensor& t, const TensorSharding& s);
    /// Checks the cancel flag; on the first sight of it, clears the worklist and reports.
    bool stopRequested();
    // worklist
    void push(ir::Op* op);
    void queue(ir::Op* op);
    ir::Op* pop();
    void removeFromWorklist(ir::Op* op);
    void prefetchNext() const;
    void eraseDeadOp(ir::Op* op);
    // notifications
    void queueUsers(ir::Value* v, int depth = 0);
    void notifyChanged(ir::Value* v, ir::Op* current, bool inWorklist);
    void copyToGroup(ir::Value* v, ir::Op* current, bool inWorklist);
    // steps
    void visit(ir::Op* op);
    void funcResultSteps(ir::Op* func);
    bool propagateStep(StepKind kind, ir::Op* op, const OpShardingRule& rule, std::vector<StepTensor>& tensors,
                       int numOperands, const FactorDirectionFn& dir, bool elementwise, bool inWorklist,
                       const ir::AttrPtr& ruleAttr = {});
    /// The op's sharding rule (attached on first use), or nullptr; `keepAlive` owns it.
    const OpShardingRule* ruleOf(ir::Op* op, ir::AttrPtr& keepAlive);
    /// Sources of an `sdy.func_data_flow_edge` on `v` (call operands / callee returned value).
    std::vector<ir::Value*> funcEdgeSources(ir::Value* v);
    /// The `func.call` ops whose callee is `name`, in walk order (indexed once per run, so that
    /// notifications through returns and function edges do not walk the module each time).
    const std::vector<ir::Op*>& callsTo(const std::string& name);
    // groups
    void buildGroups();
    bool syncGroups();

    ir::Module& m_module;
    PropagationOptions m_options;
    DiagnosticList& m_diags;
    FactorStrategy m_strategy = FactorStrategy::Basic;
    OpDirectionFn m_direction;
    bool m_cancelled = false;

    /// The worklist, a stack: its bottom m_initial slots are the ops every run starts with (all of
    /// them, in reverse pre-order, each at its place given by m_orderIndex, or nullptr once
    /// removed), the slots above them the ops pushed since (m_inWorklist gives their slots). A run
    /// thus starts by copying m_order instead of adding 100k ops to a map, and the map holds only the
    /// few ops queued at a time.
    std::vector<ir::Op*> m_worklist;
    size_t m_initial = 0;
    PointerMap<ir::Op, size_t> m_inWorklist; ///< op above the initial slots -> its slot
    /// Every op in pre-order, made on the first run and kept for the others (the driver inserts no
    /// ops; an op it erases is left as nullptr), and each op's index there.
    std::vector<ir::Op*> m_order;
    PointerMap<ir::Op, uint32_t> m_orderIndex;
    bool m_orderBuilt = false;
    /// The slot of `op` among the initial slots, or SIZE_MAX if it is not there (any more).
    size_t initialSlot(const ir::Op* op) const;

    std::unordered_map<std::string, std::vector<ir::Op*>> m_callsByCallee;
    bool m_callsIndexed = false;

    std::unordered_map<const ir::Value*, int64_t> m_groupOf;
    std::map<int64_t, std::vector<ir::Value*>> m_groups;
    /// Group copies made during a step, reported to the observer after the step itself (the
    /// step caused them, 4.8): (group, from, to).
    std::vector<std::tuple<int64_t, ir::Value*, ir::Value*>> m_pendingGroupCopies;
    bool m_inStep = false;
    /// Factor propagation outcomes of this pass's steps, by their inputs.
    StepCache m_stepCache;
    std::vector<const TensorSharding*> m_stepShardings; ///< propagateStep()'s, kept for their capacity
    std::vector<PropagationDirection> m_stepDirections; ///< the same
    std::vector<StepTensor> m_opTensors;                ///< visit()'s tensors of an op, the same
    /// Rule classes by interned op name, and the rules of RuleNameClass::ShapesOnly ops by
    /// their operand shapes, a {-1} entry, then their result shapes.
    std::unordered_map<const std::string*, RuleNameClass> m_ruleClass;
    std::map<std::vector<std::vector<int64_t>>, ir::AttrPtr> m_shapeRules;
    const Mesh* m_lastMesh = nullptr;
    std::string m_lastMeshName;
};

} // namespace shardx
