// Value, Op, Block and Region: ownership, use lists and program positions.
#include "core/ir/Operation.h"

#include <algorithm>
#include <cassert>

#include "core/support/StringInterner.h"

namespace shardx::ir {

// ---- OperationName ----------------------------------------------------------------------

namespace {

/// The process-wide table of op names (never destroyed: see StringInterner).
StringInterner& opNameTable()
{
    static StringInterner* table = new StringInterner;
    return *table;
}

const std::string* emptyOpName()
{
    static const std::string* empty = opNameTable().intern({});
    return empty;
}

} // namespace

OperationName::OperationName() : m_name(emptyOpName()) {}

OperationName::OperationName(std::string_view name) : m_name(opNameTable().intern(name)) {}

// ---- Value ------------------------------------------------------------------------------

const ValueSource Value::kNoSource;

void Value::replaceAllUsesWith(Value* other)
{
    if (other == this)
        return;
    std::vector<Use> uses = m_uses;
    for (const Use& u : uses)
        u.user->setOperand(u.index, other);
}

// ---- Region -----------------------------------------------------------------------------

Block& Region::front()
{
    if (m_blocks.empty())
        addBlock();
    return *m_blocks.front();
}

Block* Region::addBlock()
{
    m_blocks.push_back(std::make_unique<Block>(this));
    return m_blocks.back().get();
}

// ---- Block ------------------------------------------------------------------------------

Block::~Block()
{
    // Drop every reference first so that values can be destroyed in any order; last op first,
    // so that each removed use is at the back of its value's use list.
    for (auto it = m_ops.rbegin(); it != m_ops.rend(); ++it)
        (*it)->dropAllReferences();
    m_ops.clear();
}

Op* Block::parentOp() const { return m_parent ? m_parent->parentOp() : nullptr; }

Value* Block::addArgument(Type type)
{
    m_args.push_back(std::make_unique<Value>(std::move(type), this, static_cast<unsigned>(m_args.size())));
    return m_args.back().get();
}

void Block::eraseArgument(unsigned i)
{
    assert(i < m_args.size() && m_args[i]->useEmpty());
    m_args.erase(m_args.begin() + i);
    for (unsigned k = i; k < m_args.size(); ++k)
        m_args[k]->setIndex(k);
}

Op* Block::push_back(std::unique_ptr<Op> op) { return insertBefore(nullptr, std::move(op)); }

Op* Block::insertBefore(Op* before, std::unique_ptr<Op> op)
{
    Op* raw = op.get();
    OpList::iterator pos = before ? before->m_self : m_ops.end();
    raw->m_self = m_ops.insert(pos, std::move(op));
    raw->m_parent = this;
    return raw;
}

Op* Block::insertAfter(Op* after, std::unique_ptr<Op> op)
{
    assert(after && after->m_parent == this);
    Op* next = after->nextInBlock();
    return insertBefore(next, std::move(op));
}

Op* insertAtDefinition(Value& v, std::unique_ptr<Op> op)
{
    if (Op* def = v.definingOp()) {
        if (op->pos.line == 0)
            op->pos = def->pos;
        return def->parentBlock()->insertAfter(def, std::move(op));
    }
    Block* b = v.ownerBlock();
    return b->insertBefore(b->empty() ? nullptr : b->ops().front().get(), std::move(op));
}

std::unique_ptr<Op> Block::remove(Op* op)
{
    assert(op->m_parent == this);
    std::unique_ptr<Op> owned = std::move(*op->m_self);
    m_ops.erase(op->m_self);
    op->m_parent = nullptr;
    op->m_self = {};
    return owned;
}

// ---- Op ---------------------------------------------------------------------------------

Op::~Op() { dropAllReferences(); }

std::string Op::dialect() const
{
    size_t dot = name().find('.');
    return dot == std::string::npos ? std::string() : name().substr(0, dot);
}

void removeUseOf(Value* v, Op* user, unsigned index)
{
    if (!v)
        return;
    // Search from the back: uses are appended in creation order and programs are torn down
    // (and mostly edited) from the end, so the use is almost always near the back.
    auto& uses = v->m_uses;
    for (size_t i = uses.size(); i-- > 0;) {
        if (uses[i].user == user && uses[i].index == index) {
            uses.erase(uses.begin() + static_cast<std::ptrdiff_t>(i));
            return;
        }
    }
}

void Op::addOperand(Value* v)
{
    unsigned idx = numOperands();
    m_operands.push_back(v);
    if (v)
        v->m_uses.push_back(Use{this, idx});
}

void Op::setOperand(unsigned i, Value* v)
{
    assert(i < m_operands.size());
    if (m_operands[i] == v)
        return;
    removeUseOf(m_operands[i], this, i);
    m_operands[i] = v;
    if (v)
        v->m_uses.push_back(Use{this, i});
}

void Op::setOperands(const std::vector<Value*>& vs)
{
    for (unsigned i = 0; i < m_operands.size(); ++i)
        removeUseOf(m_operands[i], this, i);
    m_operands.clear();
    for (Value* v : vs)
        addOperand(v);
}

void Op::eraseOperand(unsigned i)
{
    assert(i < m_operands.size());
    std::vector<Value*> vs = m_operands;
    vs.erase(vs.begin() + i);
    setOperands(vs);
}

const OpExtras Op::kNoExtras;

void Op::dropAllReferences()
{
    const auto& regionList = regions();
    for (auto r = regionList.rbegin(); r != regionList.rend(); ++r)
        for (auto b = (*r)->blocks().rbegin(); b != (*r)->blocks().rend(); ++b)
            for (auto op = (*b)->ops().rbegin(); op != (*b)->ops().rend(); ++op)
                (*op)->dropAllReferences();
    for (unsigned i = static_cast<unsigned>(m_operands.size()); i-- > 0;)
        removeUseOf(m_operands[i], this, i);
    m_operands.clear();
}

Value* Op::addResult(Type type)
{
    m_results.push_back(std::make_unique<Value>(std::move(type), this, numResults()));
    return m_results.back().get();
}

void Op::eraseResult(unsigned i)
{
    assert(i < m_results.size() && m_results[i]->useEmpty());
    m_results.erase(m_results.begin() + i);
    for (unsigned k = i; k < m_results.size(); ++k) {
        Value* v = m_results[k].get();
        unsigned old = v->index();
        v->setIndex(k);
        (void)old;
    }
}

const Attribute* Op::attr(std::string_view name) const
{
    if (const Attribute* a = findAttr(m_props, name))
        return a;
    return findAttr(m_attrs, name);
}

const AttrPtr* Op::findInterned(const AttrName& name) const
{
    for (const NamedAttrList* list : {&m_props, &m_attrs})
        for (const NamedAttribute& na : *list)
            if (na.name == name)
                return &na.value;
    return nullptr;
}

AttrPtr Op::attrPtr(std::string_view name) const
{
    for (const NamedAttrList* list : {&m_props, &m_attrs})
        for (const NamedAttribute& na : *list)
            if (na.name == name)
                return na.value;
    return nullptr;
}

bool Op::removeAttribute(std::string_view name)
{
    bool a = removeAttr(m_props, name);
    bool b = removeAttr(m_attrs, name);
    return a || b;
}

Region* Op::addRegion()
{
    auto& regionList = extras().regions;
    regionList.push_back(std::make_unique<Region>(this));
    return regionList.back().get();
}

Op* Op::parentOp() const { return m_parent ? m_parent->parentOp() : nullptr; }

bool Op::isProperAncestorOf(const Op* other) const
{
    for (const Op* p = other; p; p = p->parentOp())
        if (p == this)
            return true;
    return false;
}

Op* Op::nextInBlock() const
{
    if (!m_parent)
        return nullptr;
    auto it = m_self;
    ++it;
    return it == m_parent->m_ops.end() ? nullptr : it->get();
}

Op* Op::prevInBlock() const
{
    if (!m_parent || m_self == m_parent->m_ops.begin())
        return nullptr;
    auto it = m_self;
    --it;
    return it->get();
}

bool Op::isBeforeInBlock(const Op* other) const
{
    if (!m_parent || other->m_parent != m_parent || other == this)
        return false;
    for (Op* p = nextInBlock(); p; p = p->nextInBlock())
        if (p == other)
            return true;
    return false;
}

void Op::erase()
{
    assert(m_parent);
    dropAllReferences();
    m_parent->remove(this); // destroys `this` when the returned owner goes out of scope
}

void Op::walk(const std::function<void(Op*)>& fn) { walk<const std::function<void(Op*)>&>(fn); }

void Op::walkPreOrder(const std::function<bool(Op*)>& fn) { walkPreOrder<const std::function<bool(Op*)>&>(fn); }

void Op::walkPostOrder(const std::function<void(Op*)>& fn) { walkPostOrder<const std::function<void(Op*)>&>(fn); }

void releaseReferencesForTeardown(Op& root)
{
    root.walkPreOrder([](Op* op) {
        op->m_operands.clear();
        for (auto& v : op->m_results)
            v->m_uses.clear();
        for (auto& r : op->regions())
            for (auto& b : r->blocks())
                for (auto& arg : b->m_args)
                    arg->m_uses.clear();
        return true;
    });
}

std::vector<TypeShape> operandTypeShapes(const Op& op)
{
    std::vector<TypeShape> out;
    out.reserve(op.numOperands());
    for (const Value* v : op.operands())
        out.push_back(v->type().typeShape());
    return out;
}

std::vector<TypeShape> resultTypeShapes(const Op& op)
{
    std::vector<TypeShape> out;
    out.reserve(op.numResults());
    for (const auto& v : op.results())
        out.push_back(v->type().typeShape());
    return out;
}

} // namespace shardx::ir
