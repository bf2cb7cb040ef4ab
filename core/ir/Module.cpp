// Module: the top-level builtin.module op and func.func helpers.
#include "core/ir/Module.h"

#include <algorithm>

#include "core/ir/Clone.h"

namespace shardx::ir {

Module::Module() : m_op(std::make_unique<Op>("builtin.module")) { m_op->addRegion()->addBlock(); }

Module::~Module() = default;

std::unique_ptr<Module> Module::clone() const
{
    auto copy = std::make_unique<Module>();
    CloneMapping mapping;
    copy->m_op = cloneOp(*m_op, mapping, CloneIdentity::Same);
    copy->resources = resources;
    copy->fileName = fileName;
    if (m_ids)
        copy->m_ids = std::make_unique<ProgramIds>(*m_ids);
    return copy;
}

ProgramIds& Module::programIds()
{
    if (!m_ids)
        m_ids = std::make_unique<ProgramIds>(*this);
    return *m_ids;
}

std::string Module::symName() const { return symbolName(*m_op); }

Op* Module::findMeshOp(const std::string& name) const
{
    for (auto& op : body().ops())
        if (op->name() == "sdy.mesh" && symbolName(*op) == name)
            return op.get();
    return nullptr;
}

const Mesh* Module::findMesh(const std::string& name) const
{
    Op* op = findMeshOp(name);
    if (!op)
        return nullptr;
    const Attribute* a = op->attr("mesh");
    if (!a)
        return nullptr;
    const MeshAttr* m = a->as<MeshAttr>();
    return m ? &m->mesh : nullptr;
}

const Mesh* Module::resolveMesh(const MeshRef& ref) const
{
    if (ref.inlineMesh)
        return &*ref.inlineMesh;
    return findMesh(ref.symbol);
}

Op* Module::findFunc(const std::string& name) const
{
    for (auto& op : body().ops())
        if (op->name() == "func.func" && symbolName(*op) == name)
            return op.get();
    return nullptr;
}

std::vector<Op*> Module::funcs() const
{
    std::vector<Op*> out;
    for (auto& op : body().ops())
        if (op->name() == "func.func")
            out.push_back(op.get());
    return out;
}

std::vector<Op*> Module::meshes() const
{
    std::vector<Op*> out;
    for (auto& op : body().ops())
        if (op->name() == "sdy.mesh")
            out.push_back(op.get());
    return out;
}

std::string symbolName(const Op& op)
{
    const Attribute* a = op.attr("sym_name");
    if (!a)
        return {};
    const StringAttr* s = a->as<StringAttr>();
    return s ? s->value : std::string();
}

Type funcType(const Op& func)
{
    const Attribute* a = func.attr("function_type");
    if (!a)
        return {};
    const TypeAttr* t = a->as<TypeAttr>();
    return t ? t->type : Type();
}

static NamedAttrList entryOf(const Op& func, const char* key, unsigned i)
{
    const Attribute* a = func.attr(key);
    if (!a)
        return {};
    const ArrayAttr* arr = a->as<ArrayAttr>();
    if (!arr || i >= arr->elements.size() || !arr->elements[i])
        return {};
    const DictionaryAttr* d = arr->elements[i]->as<DictionaryAttr>();
    return d ? d->entries : NamedAttrList{};
}

NamedAttrList funcArgAttrs(const Op& func, unsigned i) { return entryOf(func, "arg_attrs", i); }
NamedAttrList funcResultAttrs(const Op& func, unsigned i) { return entryOf(func, "res_attrs", i); }

static size_t countOf(const Op& func, bool args)
{
    Type t = funcType(func);
    return args ? t.elements().size() : t.results().size();
}

static void updateEntry(Op& func, const char* key, bool args, unsigned i, const std::string& name, AttrPtr value)
{
    size_t n = std::max(countOf(func, args), static_cast<size_t>(i) + 1);
    std::vector<NamedAttrList> lists(n);
    for (unsigned k = 0; k < n; ++k)
        lists[k] = entryOf(func, key, k);
    if (value)
        setAttr(lists[i], name, std::move(value));
    else
        removeAttr(lists[i], name);
    bool anyNonEmpty = false;
    for (auto& l : lists)
        anyNonEmpty |= !l.empty();
    if (!anyNonEmpty) {
        func.removeAttribute(key);
        return;
    }
    ArrayAttr arr;
    for (auto& l : lists)
        arr.elements.push_back(makeAttr(DictionaryAttr{l}));
    func.setProp(key, makeAttr(std::move(arr)));
}

void setFuncArgAttr(Op& func, unsigned i, const std::string& name, AttrPtr value)
{
    updateEntry(func, "arg_attrs", true, i, name, std::move(value));
}

void setFuncResultAttr(Op& func, unsigned i, const std::string& name, AttrPtr value)
{
    updateEntry(func, "res_attrs", false, i, name, std::move(value));
}

void removeFuncArgAttr(Op& func, unsigned i, const std::string& name)
{
    updateEntry(func, "arg_attrs", true, i, name, nullptr);
}

void removeFuncResultAttr(Op& func, unsigned i, const std::string& name)
{
    updateEntry(func, "res_attrs", false, i, name, nullptr);
}

} // namespace shardx::ir
