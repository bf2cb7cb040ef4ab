// Tests of the transformer generator: the module it builds, its names, scopes and shardings per style.
#include <QtTest>

#include <map>

#include "core/generate/ModelGenerator.h"
#include "core/io/MlirPrinter.h"
#include "core/ir/Equivalence.h"
#include "tests/TestSupport.h"
#include "tests/io/IoTestSupport.h"

using namespace shardx;
using namespace shardx::generate;

namespace {

using testing::parseOk;

std::unique_ptr<ir::Module> build(const TransformerSpec& spec)
{
    auto m = generateTransformer(spec);
    if (!m) {
        qWarning("%s", m.error().message.c_str());
        return nullptr;
    }
    return std::move(*m);
}

/// Empty when `a` and `b` are equal, else the first line where they differ.
std::string firstDifference(const std::string& a, const std::string& b)
{
    size_t line = 1, i = 0;
    while (true) {
        size_t ea = a.find('\n', i), eb = b.find('\n', i);
        std::string la = a.substr(i, ea == std::string::npos ? std::string::npos : ea - i);
        std::string lb = b.substr(i, eb == std::string::npos ? std::string::npos : eb - i);
        if (la != lb || (ea == std::string::npos) != (eb == std::string::npos))
            return "line " + std::to_string(line) + ":\n  " + la + "\nvs\n  " + lb;
        if (ea == std::string::npos)
            return {};
        i = ea + 1;
        ++line;
    }
}

io::PrintOptions debugInfo(bool generic = false)
{
    io::PrintOptions o;
    o.printDebugInfo = true;
    o.genericForm = generic;
    return o;
}

/// Every value under `op` in program order (block arguments, then each op's results).
void collectValues(const ir::Op& op, std::vector<const ir::Value*>& out)
{
    for (const auto& r : op.results())
        out.push_back(r.get());
    for (const auto& region : op.regions())
        for (const auto& block : region->blocks()) {
            for (const auto& arg : block->args())
                out.push_back(arg.get());
            for (const auto& inner : block->ops())
                collectValues(*inner, out);
        }
}

const char* styleName(ShardingStyle s)
{
    switch (s) {
    case ShardingStyle::DataParallel: return "dp";
    case ShardingStyle::Fsdp: return "fsdp";
    case ShardingStyle::Megatron: return "megatron";
    case ShardingStyle::FsdpMegatron: return "fsdp+megatron";
    }
    return "?";
}

/// Specs covering every style, a few layer counts, meshes with and without the style's axes.
std::vector<TransformerSpec> specs()
{
    std::vector<TransformerSpec> out;
    for (ShardingStyle style :
         {ShardingStyle::DataParallel, ShardingStyle::Fsdp, ShardingStyle::Megatron, ShardingStyle::FsdpMegatron})
        for (int layers : {1, 2, 3}) {
            TransformerSpec s;
            s.style = style;
            s.layers = layers;
            out.push_back(s);
        }
    TransformerSpec small;
    small.layers = 2;
    small.hidden = 32;
    small.heads = 2;
    small.seq = 8;
    small.batch = 4;
    small.mesh = {{"data", 2}, {"tensor", 2}};
    for (ShardingStyle style : {ShardingStyle::Fsdp, ShardingStyle::FsdpMegatron}) {
        small.style = style;
        out.push_back(small);
    }
    small.mesh = {{"x", 4}};
    out.push_back(small);
    return out;
}

/// The top-level op names of `main` with their counts.
std::map<std::string, int> opCounts(const ir::Module& m)
{
    std::map<std::string, int> counts;
    for (const auto& op : m.findFunc("main")->region(0).front().ops())
        ++counts[op->name()];
    return counts;
}

std::string argSharding(const ir::Module& m, unsigned arg)
{
    const ir::Attribute* s = ir::funcArgAttr(*m.findFunc("main"), arg, "sdy.sharding");
    return s ? io::printAttribute(*s) : std::string("<none>");
}

std::string locName(const ir::AttrPtr& loc)
{
    const ir::LocationAttr* l = loc ? loc->as<ir::LocationAttr>() : nullptr;
    return l && l->kind == ir::LocationAttr::Kind::Name ? l->text : std::string("<not a name>");
}

} // namespace

class TestModelGenerator : public QObject {
    Q_OBJECT

private slots:
    void printingAndReadingBackKeepsNamesAndText()
    {
        // Printed with locations (as `shardx-cli generate` writes it) and read back: the same
        // text again, the same program and, in the custom form, the same value names.
        for (const TransformerSpec& spec : specs()) {
            auto built = build(spec);
            QVERIFY(built);
            for (bool generic : {false, true}) {
                const std::string text = io::printModule(*built, debugInfo(generic));
                auto back = parseOk(text);
                QVERIFY(back);
                const std::string diff = firstDifference(io::printModule(*back, debugInfo(generic)), text);
                QVERIFY2(diff.empty(), diff.c_str());
                std::string why;
                QVERIFY2(ir::modulesEquivalent(*built, *back, &why), why.c_str());
                if (generic)
                    continue; // the generic form numbers every value
                std::vector<const ir::Value*> a, b;
                collectValues(built->op(), a);
                collectValues(back->op(), b);
                QCOMPARE(a.size(), b.size());
                for (size_t i = 0; i < a.size(); ++i)
                    QCOMPARE(a[i]->sourceName, b[i]->sourceName);
            }
        }
    }

    void valuesAreNamedAsPrinted()
    {
        TransformerSpec spec;
        spec.layers = 1;
        auto m = build(spec);
        QVERIFY(m);
        const ir::Block& body = m->findFunc("main")->region(0).front();
        QCOMPARE(body.numArgs(), 9u);
        QCOMPARE(body.arg(0)->sourceName, std::string("arg0"));
        QCOMPARE(body.arg(8)->sourceName, std::string("arg8"));
        std::vector<std::string> names;
        for (const auto& op : body.ops())
            if (op->numResults())
                names.push_back(op->result(0)->sourceName);
        // ln1: %cst (zero), %0 = reduce, %cst_0 = 64.0, %1 = broadcast, ...
        QCOMPARE(names[0], std::string("cst"));
        QCOMPARE(names[1], std::string("0"));
        QCOMPARE(names[2], std::string("cst_0"));
        QCOMPARE(names[3], std::string("1"));
        // Values inside the reduce bodies are hidden by the compact form: no names.
        const ir::Op* reduce = body.ops().front()->nextInBlock();
        QCOMPARE(reduce->name(), std::string("stablehlo.reduce"));
        QVERIFY(reduce->region(0).front().arg(0)->sourceName.empty());
        QVERIFY(reduce->region(0).front().ops().front()->result(0)->sourceName.empty());
    }

    void opCountsPerLayer()
    {
        // Counted by hand from the model: per layer two layer norms (3 constants, 5 broadcasts,
        // 2 reduces, 2 divides, 1 subtract, 3 multiplies, 1 add, 1 rsqrt each), attention (6
        // dot_generals, 4 reshapes, 4 transposes, 3 constants, 3 broadcasts, 2 reduces, 1
        // multiply, 1 subtract, 1 exponential, 1 divide, the q constraint with megatron), the MLP
        // (2 dot_generals, 4 constants and broadcasts, 6 multiplies, 2 adds, 1 tanh) and the
        // residual (2 adds, 1 constraint).
        TransformerSpec spec;
        spec.layers = 2;
        for (ShardingStyle style : {ShardingStyle::FsdpMegatron, ShardingStyle::Fsdp}) {
            spec.style = style;
            auto m = build(spec);
            QVERIFY(m);
            const int constraints = style == ShardingStyle::FsdpMegatron ? 4 : 2;
            const std::map<std::string, int> expected = {
                {"func.return", 1},
                {"sdy.sharding_constraint", constraints},
                {"stablehlo.add", 12},
                {"stablehlo.broadcast_in_dim", 34},
                {"stablehlo.constant", 26},
                {"stablehlo.divide", 10},
                {"stablehlo.dot_general", 16},
                {"stablehlo.exponential", 2},
                {"stablehlo.multiply", 26},
                {"stablehlo.reduce", 12},
                {"stablehlo.reshape", 8},
                {"stablehlo.rsqrt", 4},
                {"stablehlo.subtract", 6},
                {"stablehlo.tanh", 2},
                {"stablehlo.transpose", 8},
            };
            QCOMPARE(opCounts(*m), expected);
            QCOMPARE(m->funcs().size(), size_t(1));
            QCOMPARE(m->meshes().size(), size_t(1));
        }
    }

    void meshAndModuleAttributes()
    {
        TransformerSpec spec;
        spec.mesh = {{"data", 2}, {"fsdp", 4}, {"tensor", 3}};
        auto m = build(spec);
        QVERIFY(m);
        const std::string text = io::printModule(*m);
        QVERIFY(testing::has(text, "module @jit_transformer attributes {mhlo.num_partitions = 24 : i32, "
                                   "mhlo.num_replicas = 1 : i32} {\n"
                                   "  sdy.mesh @mesh = <[\"data\"=2, \"fsdp\"=4, \"tensor\"=3]>\n"
                                   "  func.func public @main(%arg0: tensor<8x16x64xf32> {sdy.sharding = "
                                   "#sdy.sharding<@mesh, [{\"data\", \"fsdp\"}, {}, {}]>}"));
        QVERIFY(testing::has(text, ") -> (tensor<8x16x64xf32> {jax.result_info = \"\"}) {\n"));
        QVERIFY(testing::has(text, "    return %"));
    }

    void weightShardingsPerStyle()
    {
        // Arguments: x, then per layer ln1 scale, wq, wk, wv, wo, ln2 scale, wi, wo (MLP).
        struct Expect {
            ShardingStyle style;
            const char *x, *scale, *wq, *attnWo, *wi, *mlpWo;
        };
        const char* rep = "#sdy.sharding<@mesh, [{}, {}]>";
        const Expect cases[] = {
            {ShardingStyle::DataParallel, "[{\"data\", \"fsdp\"}, {}, {}]", "[{}]", rep, rep, rep, rep},
            {ShardingStyle::Fsdp, "[{\"data\", \"fsdp\"}, {}, {}]", "[{}]", "#sdy.sharding<@mesh, [{\"fsdp\"}, {}]>",
             "#sdy.sharding<@mesh, [{}, {\"fsdp\"}]>", "#sdy.sharding<@mesh, [{\"fsdp\"}, {}]>",
             "#sdy.sharding<@mesh, [{}, {\"fsdp\"}]>"},
            {ShardingStyle::Megatron, "[{\"data\"}, {}, {}]", "[{}]", "#sdy.sharding<@mesh, [{}, {\"tensor\"}]>",
             "#sdy.sharding<@mesh, [{\"tensor\"}, {}]>", "#sdy.sharding<@mesh, [{}, {\"tensor\"}]>",
             "#sdy.sharding<@mesh, [{\"tensor\"}, {}]>"},
            {ShardingStyle::FsdpMegatron, "[{\"data\", \"fsdp\"}, {}, {}]", "[{}]",
             "#sdy.sharding<@mesh, [{\"fsdp\"}, {\"tensor\"}]>", "#sdy.sharding<@mesh, [{\"tensor\"}, {\"fsdp\"}]>",
             "#sdy.sharding<@mesh, [{\"fsdp\"}, {\"tensor\"}]>", "#sdy.sharding<@mesh, [{\"tensor\"}, {\"fsdp\"}]>"},
        };
        for (const Expect& e : cases) {
            TransformerSpec spec;
            spec.layers = 2;
            spec.style = e.style;
            auto m = build(spec);
            QVERIFY(m);
            for (unsigned layer = 0; layer < 2; ++layer) {
                const unsigned a = 1 + 8 * layer;
                QCOMPARE(argSharding(*m, 0), std::string("#sdy.sharding<@mesh, ") + e.x + ">");
                QCOMPARE(argSharding(*m, a), std::string("#sdy.sharding<@mesh, ") + e.scale + ">");
                for (unsigned w = 1; w <= 3; ++w)
                    QCOMPARE(argSharding(*m, a + w), std::string(e.wq));
                QCOMPARE(argSharding(*m, a + 4), std::string(e.attnWo));
                QCOMPARE(argSharding(*m, a + 5), std::string("#sdy.sharding<@mesh, ") + e.scale + ">");
                QCOMPARE(argSharding(*m, a + 6), std::string(e.wi));
                QCOMPARE(argSharding(*m, a + 7), std::string(e.mlpWo));
            }
            // The residual constraint keeps the batch sharding of x.
            for (const auto& op : m->findFunc("main")->region(0).front().ops())
                if (op->name() == "sdy.sharding_constraint" && locName(op->loc).find("/residual/") != std::string::npos)
                    QCOMPARE(io::printAttribute(*op->attr("sharding")),
                             std::string("#sdy.sharding<@mesh, ") + e.x + ">");
        }
    }

    void scopesAreJaxNameLocations()
    {
        TransformerSpec spec;
        spec.layers = 2;
        auto m = build(spec);
        QVERIFY(m);
        const ir::Op* func = m->findFunc("main");
        const ir::Block& body = func->region(0).front();
        QCOMPARE(locName(body.arg(0)->loc()), std::string("x"));
        QCOMPARE(locName(body.arg(1)->loc()), std::string("params/layer_0/ln1/scale"));
        QCOMPARE(locName(body.arg(10)->loc()), std::string("params/layer_1/attn/wq"));
        QCOMPARE(locName(body.arg(16)->loc()), std::string("params/layer_1/mlp/wo"));
        std::map<std::string, int> scopes;
        for (const auto& op : body.ops())
            ++scopes[locName(op->loc)];
        const std::string p = "jit(transformer)/jit(main)/";
        QCOMPARE(scopes[p + "return"], 1);
        QCOMPARE(scopes[p + "layer_1/attn/softmax/reduce_max"], 2); // the -inf constant and the reduce
        QCOMPARE(scopes[p + "layer_0/attn/q/sharding_constraint"], 1);
        QCOMPARE(scopes[p + "layer_1/residual/sharding_constraint"], 1);
        QCOMPARE(scopes[p + "layer_0/mlp/wi/dot_general"], 1);
        QCOMPARE(scopes[p + "layer_0/ln2/reduce_sum"], 3); // the zero and the two reduces
        for (const auto& [scope, count] : scopes)
            QVERIFY2(scope.rfind(p + "layer_", 0) == 0 || scope == p + "return", scope.c_str());
        // Ops at one scope share one location attribute, as the `#locN` aliases of JAX's text.
        const ir::Op* first = body.ops().front().get();
        QCOMPARE(first->loc.get(), first->nextInBlock()->loc.get());
        // Reduce bodies have no location of their own (the reader gives the compact form none).
        QVERIFY(!first->nextInBlock()->region(0).front().ops().front()->loc);
    }

    void invalidSpecsAreErrors()
    {
        TransformerSpec spec;
        spec.hidden = 30;
        auto r = generateTransformer(spec);
        QVERIFY(!r);
        QVERIFY(testing::has(r.error().message, "divisible"));
        spec = {};
        spec.layers = 0;
        QVERIFY(!generateTransformer(spec));
        spec = {};
        spec.mesh = {{"data", 2}, {"data", 2}};
        r = generateTransformer(spec);
        QVERIFY(!r);
        QVERIFY(testing::has(r.error().message, "invalid mesh"));
        spec.mesh = {};
        QVERIFY(!generateTransformer(spec));
    }

    void meshSpecsAndStyles()
    {
        auto mesh = parseMeshSpec("data=2,fsdp=4,tensor=4");
        QVERIFY(mesh);
        const std::vector<std::pair<std::string, int64_t>> expected = {{"data", 2}, {"fsdp", 4}, {"tensor", 4}};
        QCOMPARE(*mesh, expected);
        QVERIFY(testing::has(parseMeshSpec("data=0").error().message, "at least 1"));
        QVERIFY(testing::has(parseMeshSpec("data").error().message, "name=size"));
        QVERIFY(testing::has(parseMeshSpec("a=2,a=2").error().message, "twice"));
        QVERIFY(!parseMeshSpec(""));
        for (ShardingStyle s :
             {ShardingStyle::DataParallel, ShardingStyle::Fsdp, ShardingStyle::Megatron, ShardingStyle::FsdpMegatron})
            QCOMPARE(*parseShardingStyle(styleName(s)), s);
        QVERIFY(testing::has(parseShardingStyle("zero3").error().message, "unknown sharding style"));
    }
};

QTEST_APPLESS_MAIN(TestModelGenerator)
#include "tst_modelgenerator.moc"
