// ModelGenerator: a JAX-style transformer forward pass with sdy shardings, built through ir::Builder.
#include "core/generate/ModelGenerator.h"

#include <algorithm>
#include <limits>
#include <map>
#include <sstream>

#include "core/ir/Builder.h"
#include "core/ir/ShardingAccess.h"
#include "core/ir/SsaNames.h"
#include "core/ir/StablehloAttrs.h"
#include "core/mesh/MeshVerifier.h"

namespace shardx::generate {

Expected<ShardingStyle> parseShardingStyle(const std::string& text)
{
    if (text == "dp")
        return ShardingStyle::DataParallel;
    if (text == "fsdp")
        return ShardingStyle::Fsdp;
    if (text == "megatron")
        return ShardingStyle::Megatron;
    if (text == "fsdp+megatron")
        return ShardingStyle::FsdpMegatron;
    return Error{"unknown sharding style '" + text + "' (expected dp, fsdp, megatron or fsdp+megatron)", {}};
}

Expected<std::vector<std::pair<std::string, int64_t>>> parseMeshSpec(const std::string& text)
{
    std::vector<std::pair<std::string, int64_t>> axes;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 >= item.size())
            return Error{"mesh axis '" + item + "' is not of the form name=size", {}};
        std::string name = item.substr(0, eq);
        int64_t size = 0;
        for (char c : item.substr(eq + 1)) {
            if (c < '0' || c > '9' || size > (int64_t(1) << 40))
                return Error{"mesh axis '" + item + "' has an invalid size", {}};
            size = size * 10 + (c - '0');
        }
        if (size < 1)
            return Error{"mesh axis '" + name + "' must have a size of at least 1", {}};
        for (const auto& a : axes)
            if (a.first == name)
                return Error{"mesh axis '" + name + "' appears twice", {}};
        axes.emplace_back(name, size);
    }
    if (axes.empty())
        return Error{"the mesh needs at least one axis", {}};
    return axes;
}

namespace {

using ir::Value;

ir::Type f32Tensor(const std::vector<int64_t>& shape) { return ir::Type::tensor(shape, "f32"); }

/// Builds the ops of the function body at the end of its block, each located at its JAX name
/// scope (one location attribute shared per scope, as the `#locN` aliases of JAX's text).
class TransformerBuilder {
public:
    TransformerBuilder(const TransformerSpec& spec, ir::Builder& b) : s(spec), m_b(b) {}

    const TransformerSpec& s;
    std::string prefix = "jit(transformer)/jit(main)/";
    std::vector<std::string> batchAxes; // axes sharding the batch dimension
    bool hasTensor = false;

    /// The name location of `scope`.
    ir::AttrPtr loc(const std::string& scope)
    {
        auto it = m_locs.find(scope);
        if (it == m_locs.end())
            it = m_locs.emplace(scope, ir::nameLoc(scope)).first;
        return it->second;
    }

    /// An op with one result of `shape` located at `scope`.
    Value* op(const char* name, std::vector<Value*> operands, const std::vector<int64_t>& shape,
              const std::string& scope, ir::NamedAttrList attrs = {})
    {
        m_b.setLoc(loc(scope));
        return m_b.createValue(name, std::move(operands), f32Tensor(shape), std::move(attrs));
    }
    /// An element-wise op (the result has the type of the first operand).
    Value* elementwise(const char* name, std::vector<Value*> operands, const std::string& scope)
    {
        m_b.setLoc(loc(scope));
        ir::Type t = operands[0]->type();
        return m_b.createValue(name, std::move(operands), std::move(t));
    }
    Value* scalar(double value, const std::string& scope)
    {
        m_b.setLoc(loc(scope));
        return m_b.createConstant(ir::floatSplatAttr(f32Tensor({}), value));
    }
    /// A scalar constant, broadcast to `shape` unless that is a scalar too.
    Value* constant(double value, const std::vector<int64_t>& shape, const std::string& scope)
    {
        Value* c = scalar(value, scope);
        return shape.empty() ? c : broadcast(c, {}, shape, scope);
    }
    Value* broadcast(Value* x, std::vector<int64_t> dims, const std::vector<int64_t>& shape, const std::string& scope)
    {
        return op("stablehlo.broadcast_in_dim", {x}, shape, scope,
                  {{"broadcast_dimensions", ir::denseI64ArrayAttr(std::move(dims))}});
    }
    Value* reshape(Value* x, const std::vector<int64_t>& shape, const std::string& scope)
    {
        return op("stablehlo.reshape", {x}, shape, scope);
    }
    Value* transpose(Value* x, std::vector<int64_t> perm, const std::vector<int64_t>& shape, const std::string& scope)
    {
        return op("stablehlo.transpose", {x}, shape, scope,
                  {{stablehlo::kPermutationAttr, ir::denseI64ArrayAttr(std::move(perm))}});
    }
    Value* dot(Value* x, Value* y, const stablehlo::DotDimensionNumbers& dims, const std::vector<int64_t>& shape,
               const std::string& scope)
    {
        return op("stablehlo.dot_general", {x, y}, shape, scope,
                  {{stablehlo::kDotDimensionNumbersAttr, stablehlo::dotDimensionNumbersAttr(dims)}});
    }
    /// `stablehlo.reduce(x init: init) applies combiner across dimensions = [dim]`: the body is
    /// the combiner on two scalars, without locations, as the reader builds the compact form.
    Value* reduce(Value* x, Value* init, const char* combiner, int64_t dim, const std::vector<int64_t>& shape,
                  const std::string& scope)
    {
        ir::OperationState state("stablehlo.reduce");
        state.operands = {x, init};
        state.resultTypes = {f32Tensor(shape)};
        state.addAttribute("dimensions", ir::denseI64ArrayAttr({dim}));
        state.numRegions = 1;
        state.loc = loc(scope);
        ir::Op* r = m_b.create(std::move(state));
        ir::Builder::InsertionGuard guard(m_b);
        const ir::Type element = init->type();
        ir::Block& body = m_b.createBlock(r->region(0), {element, element});
        m_b.setLoc(nullptr);
        Value* combined = m_b.createValue(combiner, {body.arg(0), body.arg(1)}, element);
        m_b.create("stablehlo.return", {combined}, {});
        return r->result(0);
    }
    /// `x` (batch, seq, in) times `w` (in, out).
    Value* matmul(Value* x, Value* w, int64_t out, const std::string& scope)
    {
        return dot(x, w, {{}, {}, {2}, {0}}, {s.batch, s.seq, out}, scope + "/dot_general");
    }
    Value* constraint(Value* v, const std::vector<std::vector<std::string>>& dimAxes, const std::string& scope)
    {
        m_b.setLoc(loc(scope + "/sharding_constraint"));
        return m_b.createShardingConstraint(v, ir::shardingOnAxes("mesh", dimAxes));
    }

    Value* layerNorm(Value* x, Value* scale, const std::string& scope)
    {
        const std::vector<int64_t> full = {s.batch, s.seq, s.hidden}, red = {s.batch, s.seq};
        Value* zero = scalar(0.0, scope + "/reduce_sum");
        Value* sum = reduce(x, zero, "stablehlo.add", 2, red, scope + "/reduce_sum");
        Value* n = constant(static_cast<double>(s.hidden), red, scope + "/div");
        Value* mean = elementwise("stablehlo.divide", {sum, n}, scope + "/div");
        Value* meanB = broadcast(mean, {0, 1}, full, scope + "/sub");
        Value* xc = elementwise("stablehlo.subtract", {x, meanB}, scope + "/sub");
        Value* sq = elementwise("stablehlo.multiply", {xc, xc}, scope + "/square");
        Value* vsum = reduce(sq, zero, "stablehlo.add", 2, red, scope + "/reduce_sum");
        Value* var = elementwise("stablehlo.divide", {vsum, n}, scope + "/div");
        Value* eps = constant(9.99999997E-7, red, scope + "/add");
        Value* ve = elementwise("stablehlo.add", {var, eps}, scope + "/add");
        Value* rs = elementwise("stablehlo.rsqrt", {ve}, scope + "/rsqrt");
        Value* rsB = broadcast(rs, {0, 1}, full, scope + "/mul");
        Value* norm = elementwise("stablehlo.multiply", {xc, rsB}, scope + "/mul");
        Value* scB = broadcast(scale, {2}, full, scope + "/mul");
        return elementwise("stablehlo.multiply", {norm, scB}, scope + "/mul");
    }

    Value* attention(Value* x, const std::vector<Value*>& p, const std::string& scope)
    {
        const int64_t d = s.hidden / s.heads;
        const std::vector<int64_t> bsh = {s.batch, s.seq, s.hidden}, bsad = {s.batch, s.seq, s.heads, d},
                                   basd = {s.batch, s.heads, s.seq, d}, bass = {s.batch, s.heads, s.seq, s.seq},
                                   bas = {s.batch, s.heads, s.seq};
        auto heads = [&](Value* v, const std::string& name) {
            Value* r = reshape(v, bsad, scope + "/" + name + "/reshape");
            if (hasTensor && name == "q")
                r = constraint(r, {batchAxes, {}, {"tensor"}, {}}, scope + "/" + name);
            return transpose(r, {0, 2, 1, 3}, basd, scope + "/" + name + "/transpose");
        };
        Value* q = heads(matmul(x, p[0], s.hidden, scope + "/q_proj"), "q");
        Value* k = heads(matmul(x, p[1], s.hidden, scope + "/k_proj"), "k");
        Value* v = heads(matmul(x, p[2], s.hidden, scope + "/v_proj"), "v");
        Value* scores = dot(q, k, {{0, 1}, {0, 1}, {3}, {3}}, bass, scope + "/scores/dot_general");
        Value* scale = constant(0.125, bass, scope + "/scale");
        scores = elementwise("stablehlo.multiply", {scores, scale}, scope + "/scale");
        Value* ninf = scalar(-std::numeric_limits<double>::infinity(), scope + "/softmax/reduce_max");
        Value* mx = reduce(scores, ninf, "stablehlo.maximum", 3, bas, scope + "/softmax/reduce_max");
        Value* mxB = broadcast(mx, {0, 1, 2}, bass, scope + "/softmax/sub");
        Value* sh = elementwise("stablehlo.subtract", {scores, mxB}, scope + "/softmax/sub");
        Value* ex = elementwise("stablehlo.exponential", {sh}, scope + "/softmax/exp");
        Value* zero = scalar(0.0, scope + "/softmax/reduce_sum");
        Value* sm = reduce(ex, zero, "stablehlo.add", 3, bas, scope + "/softmax/reduce_sum");
        Value* smB = broadcast(sm, {0, 1, 2}, bass, scope + "/softmax/div");
        Value* probs = elementwise("stablehlo.divide", {ex, smB}, scope + "/softmax/div");
        Value* ctx = dot(probs, v, {{0, 1}, {0, 1}, {3}, {2}}, basd, scope + "/context/dot_general");
        ctx = transpose(ctx, {0, 2, 1, 3}, bsad, scope + "/context/transpose");
        ctx = reshape(ctx, bsh, scope + "/context/reshape");
        return matmul(ctx, p[3], s.hidden, scope + "/o_proj");
    }

    Value* mlp(Value* x, const std::vector<Value*>& p, const std::string& scope)
    {
        const int64_t f = 4 * s.hidden;
        const std::vector<int64_t> shp = {s.batch, s.seq, f};
        Value* h = matmul(x, p[0], f, scope + "/wi");
        const std::string g = scope + "/gelu";
        Value* h2 = elementwise("stablehlo.multiply", {h, h}, g + "/integer_pow");
        Value* h3 = elementwise("stablehlo.multiply", {h2, h}, g + "/integer_pow");
        Value* c1 = constant(4.471500e-02, shp, g + "/mul");
        Value* t1 = elementwise("stablehlo.multiply", {h3, c1}, g + "/mul");
        Value* t2 = elementwise("stablehlo.add", {h, t1}, g + "/add");
        Value* c2 = constant(0.797884583, shp, g + "/mul");
        Value* t3 = elementwise("stablehlo.multiply", {t2, c2}, g + "/mul");
        Value* t4 = elementwise("stablehlo.tanh", {t3}, g + "/tanh");
        Value* one = constant(1.0, shp, g + "/add");
        Value* t5 = elementwise("stablehlo.add", {t4, one}, g + "/add");
        Value* half = constant(0.5, shp, g + "/mul");
        Value* t6 = elementwise("stablehlo.multiply", {h, half}, g + "/mul");
        Value* act = elementwise("stablehlo.multiply", {t6, t5}, g + "/mul");
        return matmul(act, p[1], s.hidden, scope + "/wo");
    }

private:
    ir::Builder& m_b;
    std::map<std::string, ir::AttrPtr> m_locs;
};

/// Gives the function arguments and the results of the function's top-level ops the names the
/// printer prints for them (the values the compact reduce form hides stay unnamed, as the
/// reader leaves them).
void nameValuesAsPrinted(ir::Module& module, ir::Op& func)
{
    const ir::SsaNames names(module.op(), true);
    auto name = [&](Value* v) { v->sourceName = names.reference(v).substr(1); };
    ir::Block& body = ir::funcBody(func);
    for (const auto& arg : body.args())
        name(arg.get());
    for (const auto& op : body.ops())
        for (const auto& r : op->results())
            name(r.get());
}

} // namespace

Expected<std::unique_ptr<ir::Module>> generateTransformer(const TransformerSpec& spec)
{
    if (spec.layers < 1 || spec.hidden < 1 || spec.heads < 1 || spec.seq < 1 || spec.batch < 1)
        return Error{"layers, hidden, heads, seq and batch must all be at least 1", {}};
    if (spec.hidden % spec.heads != 0)
        return Error{"hidden (" + std::to_string(spec.hidden) + ") must be divisible by heads (" +
                         std::to_string(spec.heads) + ")",
                     {}};
    if (spec.mesh.empty())
        return Error{"the mesh needs at least one axis", {}};
    std::vector<MeshAxis> meshAxes;
    for (const auto& [name, size] : spec.mesh)
        meshAxes.push_back({name, size});
    if (auto problem = verifyMesh(meshAxes, {}))
        return Error{"invalid mesh: " + *problem, {}};

    auto has = [&](const char* name) {
        return std::any_of(spec.mesh.begin(), spec.mesh.end(), [&](const auto& a) { return a.first == name; });
    };
    const bool fsdpStyle = spec.style == ShardingStyle::Fsdp || spec.style == ShardingStyle::FsdpMegatron;
    const bool megatron = spec.style == ShardingStyle::Megatron || spec.style == ShardingStyle::FsdpMegatron;
    std::vector<std::string> batchAxes;
    if (has("data"))
        batchAxes.push_back("data");
    if ((fsdpStyle || spec.style == ShardingStyle::DataParallel) && has("fsdp"))
        batchAxes.push_back("fsdp");
    const std::vector<std::string> none;
    const std::vector<std::string> fsdp = fsdpStyle && has("fsdp") ? std::vector<std::string>{"fsdp"} : none;
    const std::vector<std::string> tensor = megatron && has("tensor") ? std::vector<std::string>{"tensor"} : none;

    // Arguments: x, then per layer ln1 scale, wq, wk, wv, wo, ln2 scale, wi, wo2.
    const int64_t h = spec.hidden, f = 4 * spec.hidden;
    ir::FuncSignature sig;
    sig.name = "main";
    sig.visibility = "public";
    auto addArg = [&](const std::string& name, const std::vector<int64_t>& shape,
                      const std::vector<std::vector<std::string>>& dimAxes) {
        ir::NamedAttrList attrs = {{ir::kSdyShardingAttr, ir::shardingAttr(ir::shardingOnAxes("mesh", dimAxes))}};
        sig.arguments.push_back({f32Tensor(shape), std::move(attrs), ir::nameLoc(name)});
    };
    addArg("x", {spec.batch, spec.seq, h}, {batchAxes, {}, {}});
    for (int l = 0; l < spec.layers; ++l) {
        const std::string p = "params/layer_" + std::to_string(l) + "/";
        addArg(p + "ln1/scale", {h}, {none});
        for (const char* n : {"attn/wq", "attn/wk", "attn/wv"})
            addArg(p + n, {h, h}, {fsdp, tensor});
        addArg(p + "attn/wo", {h, h}, {tensor, fsdp});
        addArg(p + "ln2/scale", {h}, {none});
        addArg(p + "mlp/wi", {h, f}, {fsdp, tensor});
        addArg(p + "mlp/wo", {f, h}, {tensor, fsdp});
    }
    sig.results.push_back({f32Tensor({spec.batch, spec.seq, h}), {{"jax.result_info", ir::stringAttr("")}}});

    auto module = std::make_unique<ir::Module>();
    int64_t devices = 1;
    for (const auto& a : spec.mesh)
        devices *= a.second;
    ir::setSymbolName(module->op(), "jit_transformer");
    module->op().setDiscardable("mhlo.num_partitions", ir::integerAttr(devices, "i32"));
    module->op().setDiscardable("mhlo.num_replicas", ir::integerAttr(1, "i32"));
    ir::Builder b(*module);
    b.createMesh("mesh", Mesh(std::move(meshAxes)));
    ir::Op* func = b.createFunc(sig);
    ir::Block& body = ir::funcBody(*func);
    b.setInsertionPointToEnd(body);

    TransformerBuilder m(spec, b);
    m.batchAxes = batchAxes;
    m.hasTensor = !tensor.empty();
    Value* x = body.arg(0);
    unsigned a = 1;
    for (int l = 0; l < spec.layers; ++l, a += 8) {
        const std::string scope = m.prefix + "layer_" + std::to_string(l);
        Value* ln1 = body.arg(a);
        const std::vector<Value*> attn = {body.arg(a + 1), body.arg(a + 2), body.arg(a + 3), body.arg(a + 4)};
        Value* ln2 = body.arg(a + 5);
        const std::vector<Value*> mlpw = {body.arg(a + 6), body.arg(a + 7)};
        Value* y = m.layerNorm(x, ln1, scope + "/ln1");
        Value* att = m.attention(y, attn, scope + "/attn");
        Value* r1 = m.elementwise("stablehlo.add", {x, att}, scope + "/residual/add");
        Value* y2 = m.layerNorm(r1, ln2, scope + "/ln2");
        Value* ff = m.mlp(y2, mlpw, scope + "/mlp");
        x = m.elementwise("stablehlo.add", {r1, ff}, scope + "/residual/add");
        x = m.constraint(x, {batchAxes, {}, {}}, scope + "/residual");
    }
    b.setLoc(m.loc(m.prefix + "return"));
    b.createReturn({x});
    nameValuesAsPrinted(*module, *func);
    return module;
}

} // namespace shardx::generate
