// FuncOps: typed accessors of the attributes of func.func, func.call and other symbol ops.
#include "core/ir/FuncOps.h"

#include <algorithm>

namespace shardx::ir {

namespace {

const DictionaryAttr* entryDict(const Op& func, const char* key, unsigned i)
{
    const Attribute* a = func.attr(key);
    const ArrayAttr* arr = a ? a->as<ArrayAttr>() : nullptr;
    if (!arr || i >= arr->elements.size() || !arr->elements[i])
        return nullptr;
    return arr->elements[i]->as<DictionaryAttr>();
}

NamedAttrList entryOf(const Op& func, const char* key, unsigned i)
{
    const DictionaryAttr* d = entryDict(func, key, i);
    return d ? d->entries : NamedAttrList{};
}

size_t countOf(const Op& func, bool args)
{
    Type t = funcType(func);
    return args ? t.elements().size() : t.results().size();
}

/// Writes `lists` as the array `key`, or removes it when every dictionary is empty.
void writeEntries(Op& func, const char* key, const std::vector<NamedAttrList>& lists)
{
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

void updateEntry(Op& func, const char* key, bool args, unsigned i, const std::string& name, AttrPtr value)
{
    size_t n = std::max(countOf(func, args), static_cast<size_t>(i) + 1);
    std::vector<NamedAttrList> lists(n);
    for (unsigned k = 0; k < n; ++k)
        lists[k] = entryOf(func, key, k);
    if (value)
        setAttr(lists[i], name, std::move(value));
    else
        removeAttr(lists[i], name);
    writeEntries(func, key, lists);
}

/// updateEntry removing `name` at every index in turn, in one rewrite.
void removeFromEveryEntry(Op& func, const char* key, bool args, const std::string& name)
{
    const size_t n = countOf(func, args);
    if (n == 0)
        return;
    std::vector<NamedAttrList> lists(n);
    for (unsigned k = 0; k < n; ++k) {
        lists[k] = entryOf(func, key, k);
        removeAttr(lists[k], name);
    }
    writeEntries(func, key, lists);
}

} // namespace

std::string symbolName(const Op& op)
{
    const Attribute* a = op.attr(kSymNameAttr);
    const StringAttr* s = a ? a->as<StringAttr>() : nullptr;
    return s ? s->value : std::string();
}

void setSymbolName(Op& op, const std::string& name) { op.setProp(kSymNameAttr, makeAttr(StringAttr{name})); }

std::optional<std::string> symbolVisibility(const Op& op)
{
    const Attribute* a = op.attr(kSymVisibilityAttr);
    const StringAttr* s = a ? a->as<StringAttr>() : nullptr;
    return s ? std::optional<std::string>(s->value) : std::nullopt;
}

void setSymbolVisibility(Op& op, const std::string& visibility)
{
    op.setProp(kSymVisibilityAttr, makeAttr(StringAttr{visibility}));
}

bool isPrivateSymbol(const Op& op) { return symbolVisibility(op) == "private"; }

Type funcType(const Op& func)
{
    const Attribute* a = func.attr(kFunctionTypeAttr);
    const TypeAttr* t = a ? a->as<TypeAttr>() : nullptr;
    return t ? t->type : Type();
}

void setFuncType(Op& func, Type type) { func.setProp(kFunctionTypeAttr, makeAttr(TypeAttr{std::move(type)})); }

NamedAttrList funcArgAttrs(const Op& func, unsigned i) { return entryOf(func, kArgAttrsAttr, i); }
NamedAttrList funcResultAttrs(const Op& func, unsigned i) { return entryOf(func, kResAttrsAttr, i); }

void setFuncArgAttr(Op& func, unsigned i, const std::string& name, AttrPtr value)
{
    updateEntry(func, kArgAttrsAttr, true, i, name, std::move(value));
}

void setFuncResultAttr(Op& func, unsigned i, const std::string& name, AttrPtr value)
{
    updateEntry(func, kResAttrsAttr, false, i, name, std::move(value));
}

void removeFuncArgAttr(Op& func, unsigned i, const std::string& name)
{
    updateEntry(func, kArgAttrsAttr, true, i, name, nullptr);
}

void removeFuncResultAttr(Op& func, unsigned i, const std::string& name)
{
    updateEntry(func, kResAttrsAttr, false, i, name, nullptr);
}

void removeEveryFuncArgAttr(Op& func, const std::string& name)
{
    removeFromEveryEntry(func, kArgAttrsAttr, true, name);
}

void removeEveryFuncResultAttr(Op& func, const std::string& name)
{
    removeFromEveryEntry(func, kResAttrsAttr, false, name);
}

const Attribute* funcArgAttr(const Op& func, unsigned i, std::string_view name)
{
    const DictionaryAttr* d = entryDict(func, kArgAttrsAttr, i);
    return d ? findAttr(d->entries, name) : nullptr;
}

const Attribute* funcResultAttr(const Op& func, unsigned i, std::string_view name)
{
    const DictionaryAttr* d = entryDict(func, kResAttrsAttr, i);
    return d ? findAttr(d->entries, name) : nullptr;
}

const SymbolRefAttr* calleeRef(const Op& call)
{
    const Attribute* a = call.attr(kCalleeAttr);
    const SymbolRefAttr* ref = a ? a->as<SymbolRefAttr>() : nullptr;
    return ref && !ref->path.empty() ? ref : nullptr;
}

std::optional<std::string> calleeName(const Op& call)
{
    const SymbolRefAttr* ref = calleeRef(call);
    return ref ? std::optional<std::string>(ref->path.back()) : std::nullopt;
}

void setCalleeName(Op& call, const std::string& name) { call.setProp(kCalleeAttr, makeAttr(SymbolRefAttr{{name}})); }

} // namespace shardx::ir
