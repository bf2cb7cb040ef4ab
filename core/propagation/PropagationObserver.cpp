// Stage names and ObserverFanOut (one observer slot shared by several observers).
#include "core/propagation/PropagationObserver.h"

#include <algorithm>

namespace shardx {

const char* stageKindName(StageKind k)
{
    switch (k) {
    case StageKind::Import: return "import";
    case StageKind::Export: return "export";
    case StageKind::Pass: return "pass";
    }
    return "?";
}

ObserverFanOut::ObserverFanOut(std::vector<PropagationObserver*> targets) : m_targets(std::move(targets))
{
    m_targets.erase(std::remove(m_targets.begin(), m_targets.end(), nullptr), m_targets.end());
}

void ObserverFanOut::passBegin(const std::string& passName, const std::string& strategy)
{
    for (PropagationObserver* o : m_targets)
        o->passBegin(passName, strategy);
}

void ObserverFanOut::passEnd(const std::string& passName)
{
    for (PropagationObserver* o : m_targets)
        o->passEnd(passName);
}

void ObserverFanOut::userPriorityBegin(int64_t priority)
{
    for (PropagationObserver* o : m_targets)
        o->userPriorityBegin(priority);
}

void ObserverFanOut::opPriorityRoundBegin(int level)
{
    for (PropagationObserver* o : m_targets)
        o->opPriorityRoundBegin(level);
}

void ObserverFanOut::runBegin(const std::string& strategy)
{
    for (PropagationObserver* o : m_targets)
        o->runBegin(strategy);
}

void ObserverFanOut::shardingGroupSync(int64_t groupId, bool conflict, const std::vector<ir::Value*>& members)
{
    for (PropagationObserver* o : m_targets)
        o->shardingGroupSync(groupId, conflict, members);
}

void ObserverFanOut::stageBegin(const std::string& name, StageKind kind)
{
    for (PropagationObserver* o : m_targets)
        o->stageBegin(name, kind);
}

void ObserverFanOut::stageEnd()
{
    for (PropagationObserver* o : m_targets)
        o->stageEnd();
}

void ObserverFanOut::shardingGroupCopy(int64_t groupId, ir::Value* from, ir::Value* to)
{
    for (PropagationObserver* o : m_targets)
        o->shardingGroupCopy(groupId, from, to);
}

void ObserverFanOut::opErased(ir::Op* op)
{
    for (PropagationObserver* o : m_targets)
        o->opErased(op);
}

void ObserverFanOut::opSkipped(ir::Op* op, const std::string& reason)
{
    for (PropagationObserver* o : m_targets)
        o->opSkipped(op, reason);
}

void ObserverFanOut::step(const PropagationStep& step)
{
    for (PropagationObserver* o : m_targets)
        o->step(step);
}

} // namespace shardx
