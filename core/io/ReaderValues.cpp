// Parser (MlirReaderImpl.h): SSA scopes, value definitions, forward references and operand uses.
#include "core/io/MlirReaderImpl.h"

namespace shardx::io::detail {

void Parser::pushScope(bool isolated)
{
    m_scopes.emplace_back();
    m_scopes.back().isolated = isolated;
}

void Parser::popScope()
{
    Scope s = std::move(m_scopes.back());
    m_scopes.pop_back();
    for (auto& [label, p] : s.pendingLabels)
        error(p, "reference to an undefined block '" + label + "'");
    for (auto& [name, ref] : s.forwardRefs) {
        if (s.isolated || m_scopes.empty())
            error(ref.second, "use of undeclared SSA value name '%" + std::string(name) + "'");
        Scope& parent = m_scopes.back();
        auto it = parent.forwardRefs.find(name);
        if (it == parent.forwardRefs.end()) {
            parent.forwardRefs.emplace(name, ref);
            continue;
        }
        Op* into = it->second.first;
        while (into->numResults() < ref.first->numResults())
            into->addResult(Type());
        for (unsigned i = 0; i < ref.first->numResults(); ++i)
            ref.first->result(i)->replaceAllUsesWith(into->result(i));
    }
}

Value* Parser::resolve(const OperandRef& ref, const Type* type)
{
    for (size_t i = m_scopes.size(); i-- > 0;) {
        Scope& s = m_scopes[i];
        if (const DefinedValues* defined = s.values.find(ref.name)) {
            if (ref.index >= defined->size())
                error(posOf(ref.offset), "reference to invalid result number " + std::to_string(ref.index) + " of '%" +
                                             std::string(ref.name) + "'");
            Value* v = (*defined)[ref.index];
            if (type && !type->isNone() && v->type().isNone())
                v->setType(*type); // a result of an op kept as written takes the type its first use names
            if (type && !type->isNone() && !v->type().isNone() && v->type() != *type)
                error(posOf(ref.offset), "use of value '%" + std::string(ref.name) +
                                             "' expects different type than prior uses: '" + type->toString() +
                                             "' vs '" + v->type().toString() + "'");
            return v;
        }
        if (s.isolated)
            break;
    }
    Scope& s = m_scopes.back();
    auto it = s.forwardRefs.find(std::string(ref.name));
    Op* ph;
    if (it == s.forwardRefs.end()) {
        m_placeholders.push_back(std::make_unique<Op>("<placeholder>"));
        ph = m_placeholders.back().get();
        s.forwardRefs.emplace(std::string(ref.name), std::make_pair(ph, posOf(ref.offset)));
    } else {
        ph = it->second.first;
    }
    while (ph->numResults() <= ref.index)
        ph->addResult(Type());
    Value* v = ph->result(ref.index);
    if (type && v->type().isNone())
        v->setType(*type);
    return v;
}

void Parser::defineValues(const ResultDef& def, Value* const* values, size_t count)
{
    for (size_t i = m_scopes.size(); i-- > 0;) {
        if (m_scopes[i].values.find(def.name))
            error(posOf(def.offset), "redefinition of SSA value '%" + std::string(def.name) + "'");
        if (m_scopes[i].isolated)
            break;
    }
    Scope& s = m_scopes.back();
    auto it = s.forwardRefs.empty() ? s.forwardRefs.end() : s.forwardRefs.find(std::string(def.name));
    if (it != s.forwardRefs.end()) {
        Op* ph = it->second.first;
        if (ph->numResults() > count)
            error(it->second.second, "reference to invalid result number of '%" + std::string(def.name) + "'");
        for (unsigned i = 0; i < ph->numResults(); ++i)
            ph->result(i)->replaceAllUsesWith(values[i]);
        s.forwardRefs.erase(it);
    }
    DefinedValues defined;
    if (count == 1) {
        values[0]->sourceName = def.name;
        defined.one = values[0];
    } else {
        for (size_t i = 0; i < count; ++i)
            values[i]->sourceName = std::string(def.name) + "#" + std::to_string(i);
        defined.many.assign(values, values + count);
    }
    s.values.insert(def.name, std::move(defined));
}

OperandRef Parser::parseOperandRef()
{
    if (!at(Kind::PercentId))
        errorExpected("SSA operand");
    OperandRef r;
    r.offset = m_tok.begin;
    r.name = m_tok.text.substr(1);
    size_t end = m_tok.end;
    std::string_view src = m_lex.source();
    if (end < src.size() && src[end] == '#') {
        size_t i = end + 1;
        uint64_t v = 0;
        while (i < src.size() && src[i] >= '0' && src[i] <= '9') {
            v = v * 10 + static_cast<uint64_t>(src[i] - '0');
            if (v > 1000000000)
                error(posOf(end), "result number too large");
            ++i;
        }
        if (i == end + 1)
            error(posOf(end), "expected result number after '#'");
        r.index = static_cast<unsigned>(v);
        resetTo(i);
        return r;
    }
    next();
    return r;
}

std::vector<OperandRef> Parser::parseOperandRefs()
{
    std::vector<OperandRef> refs;
    if (!at(Kind::PercentId))
        return refs;
    refs.push_back(parseOperandRef());
    while (at(Kind::Comma) && peek().kind == Kind::PercentId) {
        next();
        refs.push_back(parseOperandRef());
    }
    return refs;
}

void Parser::addOperands(Op& op, const std::vector<OperandRef>& refs, const std::vector<Type>& types,
                         const SourcePos& p)
{
    if (refs.size() != types.size())
        error(p, std::to_string(refs.size()) + " operands present, but expected " + std::to_string(types.size()));
    op.reserveOperands(op.numOperands() + static_cast<unsigned>(refs.size()));
    for (size_t i = 0; i < refs.size(); ++i)
        op.addOperand(resolve(refs[i], &types[i]));
}

} // namespace shardx::io::detail
