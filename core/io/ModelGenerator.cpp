// ModelGenerator: a JAX-style transformer forward pass in StableHLO text with sdy shardings.
#include "core/io/ModelGenerator.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace shardx::io {

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

std::string dims(const std::vector<int64_t>& shape)
{
    std::string s = "tensor<";
    for (int64_t d : shape)
        s += std::to_string(d) + "x";
    return s + "f32>";
}

/// Writes one function body, numbering values and interning location names.
class Writer {
public:
    /// Emits `%N = text loc(#locK)` and returns "%N".
    std::string op(const std::string& text, const std::string& scope)
    {
        std::string name = "%" + std::to_string(m_next++);
        m_body << "    " << name << " = " << text << " loc(" << locRef(scope) << ")\n";
        return name;
    }
    void raw(const std::string& line) { m_body << line << "\n"; }
    std::string locRef(const std::string& scope)
    {
        auto it = m_locs.find(scope);
        if (it == m_locs.end())
            it = m_locs.emplace(scope, static_cast<int>(m_locs.size()) + 1).first;
        return "#loc" + std::to_string(it->second);
    }
    std::string body() const { return m_body.str(); }
    std::string locDefinitions() const
    {
        std::vector<std::pair<int, std::string>> byId;
        for (const auto& [scope, id] : m_locs)
            byId.emplace_back(id, scope);
        std::sort(byId.begin(), byId.end());
        std::string out;
        for (const auto& [id, scope] : byId)
            out += "#loc" + std::to_string(id) + " = loc(\"" + scope + "\")\n";
        return out;
    }

private:
    std::ostringstream m_body;
    int m_next = 0;
    std::map<std::string, int> m_locs;
};

struct Model {
    const TransformerSpec& spec;
    Writer w;
    std::string prefix = "jit(transformer)/jit(main)/";
    std::vector<std::string> batchAxes; // axes sharding the batch dimension
    bool hasTensor = false;
    bool hasFsdp = false;

    std::string shardingOf(const std::vector<std::vector<std::string>>& dimAxes) const
    {
        std::string s = "#sdy.sharding<@mesh, [";
        for (size_t d = 0; d < dimAxes.size(); ++d) {
            s += d ? ", {" : "{";
            for (size_t i = 0; i < dimAxes[d].size(); ++i)
                s += (i ? ", \"" : "\"") + dimAxes[d][i] + "\"";
            s += "}";
        }
        return s + "]>";
    }

    std::string constant(const std::string& value, const std::vector<int64_t>& shape, const std::string& scope)
    {
        std::string c = w.op("stablehlo.constant dense<" + value + "> : tensor<f32>", scope);
        if (shape.empty())
            return c;
        return w.op("stablehlo.broadcast_in_dim " + c + ", dims = [] : (tensor<f32>) -> " + dims(shape), scope);
    }

    std::string layerNorm(const std::string& x, const std::string& scale, const std::string& scope)
    {
        const auto& s = spec;
        std::vector<int64_t> full = {s.batch, s.seq, s.hidden}, red = {s.batch, s.seq};
        std::string zero = w.op("stablehlo.constant dense<0.000000e+00> : tensor<f32>", scope + "/reduce_sum");
        std::string sum =
            w.op("stablehlo.reduce(" + x + " init: " + zero + ") applies stablehlo.add across dimensions = [2] : (" +
                     dims(full) + ", tensor<f32>) -> " + dims(red),
                 scope + "/reduce_sum");
        std::string n = constant(std::to_string(s.hidden) + ".0", red, scope + "/div");
        std::string mean = w.op("stablehlo.divide " + sum + ", " + n + " : " + dims(red), scope + "/div");
        std::string meanB =
            w.op("stablehlo.broadcast_in_dim " + mean + ", dims = [0, 1] : (" + dims(red) + ") -> " + dims(full),
                 scope + "/sub");
        std::string xc = w.op("stablehlo.subtract " + x + ", " + meanB + " : " + dims(full), scope + "/sub");
        std::string sq = w.op("stablehlo.multiply " + xc + ", " + xc + " : " + dims(full), scope + "/square");
        std::string vsum =
            w.op("stablehlo.reduce(" + sq + " init: " + zero + ") applies stablehlo.add across dimensions = [2] : (" +
                     dims(full) + ", tensor<f32>) -> " + dims(red),
                 scope + "/reduce_sum");
        std::string var = w.op("stablehlo.divide " + vsum + ", " + n + " : " + dims(red), scope + "/div");
        std::string eps = constant("9.99999997E-7", red, scope + "/add");
        std::string ve = w.op("stablehlo.add " + var + ", " + eps + " : " + dims(red), scope + "/add");
        std::string rs = w.op("stablehlo.rsqrt " + ve + " : " + dims(red), scope + "/rsqrt");
        std::string rsB =
            w.op("stablehlo.broadcast_in_dim " + rs + ", dims = [0, 1] : (" + dims(red) + ") -> " + dims(full),
                 scope + "/mul");
        std::string norm = w.op("stablehlo.multiply " + xc + ", " + rsB + " : " + dims(full), scope + "/mul");
        std::string scB =
            w.op("stablehlo.broadcast_in_dim " + scale + ", dims = [2] : (" + dims({s.hidden}) + ") -> " + dims(full),
                 scope + "/mul");
        return w.op("stablehlo.multiply " + norm + ", " + scB + " : " + dims(full), scope + "/mul");
    }

    std::string matmul(const std::string& x, const std::string& wt, int64_t in, int64_t out, const std::string& scope)
    {
        const auto& s = spec;
        return w.op("stablehlo.dot_general " + x + ", " + wt + ", contracting_dims = [2] x [0] : (" +
                        dims({s.batch, s.seq, in}) + ", " + dims({in, out}) + ") -> " + dims({s.batch, s.seq, out}),
                    scope + "/dot_general");
    }

    std::string constraint(const std::string& v, const std::vector<int64_t>& shape,
                           const std::vector<std::vector<std::string>>& dimAxes, const std::string& scope)
    {
        std::string sh = shardingOf(dimAxes);
        sh = sh.substr(std::string("#sdy.sharding").size());
        return w.op("sdy.sharding_constraint " + v + " " + sh + " : " + dims(shape), scope + "/sharding_constraint");
    }

    std::string attention(const std::string& x, const std::vector<std::string>& p, const std::string& scope)
    {
        const auto& s = spec;
        const int64_t d = s.hidden / s.heads;
        std::vector<int64_t> bsh = {s.batch, s.seq, s.hidden}, bsad = {s.batch, s.seq, s.heads, d},
                             basd = {s.batch, s.heads, s.seq, d}, bass = {s.batch, s.heads, s.seq, s.seq},
                             bas = {s.batch, s.heads, s.seq};
        auto heads = [&](const std::string& v, const std::string& name) {
            std::string r = w.op("stablehlo.reshape " + v + " : (" + dims(bsh) + ") -> " + dims(bsad),
                                 scope + "/" + name + "/reshape");
            if (hasTensor && name == "q")
                r = constraint(r, bsad, {batchAxes, {}, {"tensor"}, {}}, scope + "/" + name);
            return w.op("stablehlo.transpose " + r + ", dims = [0, 2, 1, 3] : (" + dims(bsad) + ") -> " + dims(basd),
                        scope + "/" + name + "/transpose");
        };
        std::string q = heads(matmul(x, p[0], s.hidden, s.hidden, scope + "/q_proj"), "q");
        std::string k = heads(matmul(x, p[1], s.hidden, s.hidden, scope + "/k_proj"), "k");
        std::string v = heads(matmul(x, p[2], s.hidden, s.hidden, scope + "/v_proj"), "v");
        std::string scores = w.op("stablehlo.dot_general " + q + ", " + k +
                                      ", batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (" +
                                      dims(basd) + ", " + dims(basd) + ") -> " + dims(bass),
                                  scope + "/scores/dot_general");
        std::string scale = constant("0.125", bass, scope + "/scale");
        scores = w.op("stablehlo.multiply " + scores + ", " + scale + " : " + dims(bass), scope + "/scale");
        std::string ninf = w.op("stablehlo.constant dense<0xFF800000> : tensor<f32>", scope + "/softmax/reduce_max");
        std::string mx = w.op("stablehlo.reduce(" + scores + " init: " + ninf +
                                  ") applies stablehlo.maximum across dimensions = [3] : (" + dims(bass) +
                                  ", tensor<f32>) -> " + dims(bas),
                              scope + "/softmax/reduce_max");
        std::string mxB =
            w.op("stablehlo.broadcast_in_dim " + mx + ", dims = [0, 1, 2] : (" + dims(bas) + ") -> " + dims(bass),
                 scope + "/softmax/sub");
        std::string sh = w.op("stablehlo.subtract " + scores + ", " + mxB + " : " + dims(bass), scope + "/softmax/sub");
        std::string ex = w.op("stablehlo.exponential " + sh + " : " + dims(bass), scope + "/softmax/exp");
        std::string zero = w.op("stablehlo.constant dense<0.000000e+00> : tensor<f32>", scope + "/softmax/reduce_sum");
        std::string sm =
            w.op("stablehlo.reduce(" + ex + " init: " + zero + ") applies stablehlo.add across dimensions = [3] : (" +
                     dims(bass) + ", tensor<f32>) -> " + dims(bas),
                 scope + "/softmax/reduce_sum");
        std::string smB =
            w.op("stablehlo.broadcast_in_dim " + sm + ", dims = [0, 1, 2] : (" + dims(bas) + ") -> " + dims(bass),
                 scope + "/softmax/div");
        std::string probs = w.op("stablehlo.divide " + ex + ", " + smB + " : " + dims(bass), scope + "/softmax/div");
        std::string ctx = w.op("stablehlo.dot_general " + probs + ", " + v +
                                   ", batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (" + dims(bass) +
                                   ", " + dims(basd) + ") -> " + dims(basd),
                               scope + "/context/dot_general");
        ctx = w.op("stablehlo.transpose " + ctx + ", dims = [0, 2, 1, 3] : (" + dims(basd) + ") -> " + dims(bsad),
                   scope + "/context/transpose");
        ctx = w.op("stablehlo.reshape " + ctx + " : (" + dims(bsad) + ") -> " + dims(bsh), scope + "/context/reshape");
        return matmul(ctx, p[3], s.hidden, s.hidden, scope + "/o_proj");
    }

    std::string mlp(const std::string& x, const std::vector<std::string>& p, const std::string& scope)
    {
        const auto& s = spec;
        const int64_t f = 4 * s.hidden;
        std::vector<int64_t> shp = {s.batch, s.seq, f};
        std::string h = matmul(x, p[0], s.hidden, f, scope + "/wi");
        std::string g = scope + "/gelu";
        std::string h2 = w.op("stablehlo.multiply " + h + ", " + h + " : " + dims(shp), g + "/integer_pow");
        std::string h3 = w.op("stablehlo.multiply " + h2 + ", " + h + " : " + dims(shp), g + "/integer_pow");
        std::string c1 = constant("4.471500e-02", shp, g + "/mul");
        std::string t1 = w.op("stablehlo.multiply " + h3 + ", " + c1 + " : " + dims(shp), g + "/mul");
        std::string t2 = w.op("stablehlo.add " + h + ", " + t1 + " : " + dims(shp), g + "/add");
        std::string c2 = constant("0.797884583", shp, g + "/mul");
        std::string t3 = w.op("stablehlo.multiply " + t2 + ", " + c2 + " : " + dims(shp), g + "/mul");
        std::string t4 = w.op("stablehlo.tanh " + t3 + " : " + dims(shp), g + "/tanh");
        std::string one = constant("1.000000e+00", shp, g + "/add");
        std::string t5 = w.op("stablehlo.add " + t4 + ", " + one + " : " + dims(shp), g + "/add");
        std::string half = constant("5.000000e-01", shp, g + "/mul");
        std::string t6 = w.op("stablehlo.multiply " + h + ", " + half + " : " + dims(shp), g + "/mul");
        std::string act = w.op("stablehlo.multiply " + t6 + ", " + t5 + " : " + dims(shp), g + "/mul");
        return matmul(act, p[1], f, s.hidden, scope + "/wo");
    }
};

} // namespace

Expected<std::string> generateTransformer(const TransformerSpec& spec)
{
    if (spec.layers < 1 || spec.hidden < 1 || spec.heads < 1 || spec.seq < 1 || spec.batch < 1)
        return Error{"layers, hidden, heads, seq and batch must all be at least 1", {}};
    if (spec.hidden % spec.heads != 0)
        return Error{"hidden (" + std::to_string(spec.hidden) + ") must be divisible by heads (" +
                         std::to_string(spec.heads) + ")",
                     {}};
    if (spec.mesh.empty())
        return Error{"the mesh needs at least one axis", {}};

    Model m{spec, {}};
    auto has = [&](const char* name) {
        for (const auto& a : spec.mesh)
            if (a.first == name)
                return true;
        return false;
    };
    const bool fsdpStyle = spec.style == ShardingStyle::Fsdp || spec.style == ShardingStyle::FsdpMegatron;
    const bool megatron = spec.style == ShardingStyle::Megatron || spec.style == ShardingStyle::FsdpMegatron;
    m.hasFsdp = fsdpStyle && has("fsdp");
    m.hasTensor = megatron && has("tensor");
    if (has("data"))
        m.batchAxes.push_back("data");
    if ((fsdpStyle || spec.style == ShardingStyle::DataParallel) && has("fsdp"))
        m.batchAxes.push_back("fsdp");
    const std::vector<std::string> none;
    const std::vector<std::string> fsdp = m.hasFsdp ? std::vector<std::string>{"fsdp"} : none;
    const std::vector<std::string> tensor = m.hasTensor ? std::vector<std::string>{"tensor"} : none;

    // Arguments: x, then per layer ln1 scale, wq, wk, wv, wo, ln2 scale, wi, wo2.
    struct Arg {
        std::string name;
        std::vector<int64_t> shape;
        std::vector<std::vector<std::string>> sharding;
    };
    std::vector<Arg> args;
    args.push_back({"x", {spec.batch, spec.seq, spec.hidden}, {m.batchAxes, {}, {}}});
    const int64_t h = spec.hidden, f = 4 * spec.hidden;
    for (int l = 0; l < spec.layers; ++l) {
        std::string p = "params/layer_" + std::to_string(l) + "/";
        args.push_back({p + "ln1/scale", {h}, {none}});
        for (const char* n : {"attn/wq", "attn/wk", "attn/wv"})
            args.push_back({p + n, {h, h}, {fsdp, tensor}});
        args.push_back({p + "attn/wo", {h, h}, {tensor, fsdp}});
        args.push_back({p + "ln2/scale", {h}, {none}});
        args.push_back({p + "mlp/wi", {h, f}, {fsdp, tensor}});
        args.push_back({p + "mlp/wo", {f, h}, {tensor, fsdp}});
    }

    int64_t devices = 1;
    for (const auto& a : spec.mesh)
        devices *= a.second;
    std::ostringstream out;
    out << "module @jit_transformer attributes {mhlo.num_partitions = " << devices
        << " : i32, mhlo.num_replicas = 1 : i32} {\n";
    out << "  sdy.mesh @mesh = <[";
    for (size_t i = 0; i < spec.mesh.size(); ++i)
        out << (i ? ", \"" : "\"") << spec.mesh[i].first << "\"=" << spec.mesh[i].second;
    out << "]>\n";
    out << "  func.func public @main(";
    for (size_t i = 0; i < args.size(); ++i) {
        out << (i ? ", " : "") << "%arg" << i << ": " << dims(args[i].shape)
            << " {sdy.sharding = " << m.shardingOf(args[i].sharding) << "} loc(" << m.w.locRef(args[i].name) << ")";
    }
    out << ") -> (" << dims({spec.batch, spec.seq, h}) << " {jax.result_info = \"\"}) {\n";

    std::string x = "%arg0";
    size_t a = 1;
    for (int l = 0; l < spec.layers; ++l) {
        std::string scope = m.prefix + "layer_" + std::to_string(l);
        std::string ln1 = "%arg" + std::to_string(a);
        std::vector<std::string> attn = {"%arg" + std::to_string(a + 1), "%arg" + std::to_string(a + 2),
                                         "%arg" + std::to_string(a + 3), "%arg" + std::to_string(a + 4)};
        std::string ln2 = "%arg" + std::to_string(a + 5);
        std::vector<std::string> mlpw = {"%arg" + std::to_string(a + 6), "%arg" + std::to_string(a + 7)};
        a += 8;
        std::string y = m.layerNorm(x, ln1, scope + "/ln1");
        std::string att = m.attention(y, attn, scope + "/attn");
        std::string r1 = m.w.op("stablehlo.add " + x + ", " + att + " : " + dims({spec.batch, spec.seq, h}),
                                scope + "/residual/add");
        std::string y2 = m.layerNorm(r1, ln2, scope + "/ln2");
        std::string ff = m.mlp(y2, mlpw, scope + "/mlp");
        x = m.w.op("stablehlo.add " + r1 + ", " + ff + " : " + dims({spec.batch, spec.seq, h}),
                   scope + "/residual/add");
        x = m.constraint(x, {spec.batch, spec.seq, h}, {m.batchAxes, {}, {}}, scope + "/residual");
    }
    out << m.w.body();
    out << "    return " << x << " : " << dims({spec.batch, spec.seq, h}) << " loc(" << m.w.locRef(m.prefix + "return")
        << ")\n";
    out << "  }\n}\n";
    out << m.w.locDefinitions();
    return out.str();
}

} // namespace shardx::io
