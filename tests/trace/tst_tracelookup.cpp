// Trace lookup: finding a trace's values by the names users know (ids, printed names, loc scopes).
#include <QtTest>

#include "core/trace/Explain.h"
#include "core/trace/Trace.h"
#include "tests/trace/TraceTestSupport.h"

using namespace shardx;

namespace {

Trace record(const std::string& text, const std::string& strategy)
{
    return testing::recordTrace(text, strategy, 0, false);
}

/// The id of the value `query` finds, or the error message prefixed with "error: ".
std::string lookup(const Trace& t, const std::string& query)
{
    Expected<int> v = findTraceValue(t, query);
    if (!v.ok())
        return "error: " + v.error().message;
    return t.values()[static_cast<size_t>(*v)].id;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Lookup module: two functions, name scopes on args and ops, two results.
const char* kLookup = R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}]>} loc("inputs/x"),
                %arg1: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = stablehlo.negate %arg0 : tensor<8xf32> loc("layer1/neg")
  %1 = stablehlo.abs %0 : tensor<8xf32> loc("layer2/neg")
  %2 = stablehlo.add %1, %arg1 : tensor<8xf32> loc("model/layer1/sum")
  return %2, %0 : tensor<8xf32>, tensor<8xf32>
}
func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8xf32> loc("other")
  return %0 : tensor<8xf32>
}
)";

} // namespace

class TestTraceLookup : public QObject {
    Q_OBJECT
private slots:
    // ---- findTraceValue -----------------------------------------------------------------------

    void findEveryQueryForm()
    {
        Trace t = record(kLookup, "basic");
        // Trace ids are the names the file gives, after their function: `@main:%arg0`,
        // `@main:%1`, and `@main:result1` for function results.
        QCOMPARE(lookup(t, "@main:%arg0"), std::string("@main:%arg0"));
        QCOMPARE(lookup(t, "@main:%1"), std::string("@main:%1"));
        QCOMPARE(lookup(t, "@main:result1"), std::string("@main:result1"));
        QCOMPARE(lookup(t, "@f:%0"), std::string("@f:%0"));
        // @func:argN, @func:resultN.
        QCOMPARE(lookup(t, "@main:arg1"), std::string("@main:%arg1"));
        QCOMPARE(lookup(t, "@f:arg0"), std::string("@f:%arg0"));
        QCOMPARE(lookup(t, "@main:result0"), std::string("@main:result0"));
        QCOMPARE(lookup(t, "@f:result0"), std::string("@f:result0"));
        // A name alone when it is unique (%2 is only in @main), else after its function.
        QCOMPARE(lookup(t, "%2"), std::string("@main:%2"));
        QCOMPARE(lookup(t, "@main:2"), std::string("@main:%2"));
        QVERIFY2(has(lookup(t, "%0"), "matches 2 values"), lookup(t, "%0").c_str());
        // loc name scopes: exact (ops and arguments) and suffix.
        QCOMPARE(lookup(t, "layer2/neg"), std::string("@main:%1"));
        QCOMPARE(lookup(t, "inputs/x"), std::string("@main:%arg0"));
        QCOMPARE(lookup(t, "other"), std::string("@f:%0"));
        QCOMPARE(lookup(t, "model/layer1/sum"), std::string("@main:%2"));
        QCOMPARE(lookup(t, "layer1/sum"), std::string("@main:%2"));
        QCOMPARE(lookup(t, "sum"), std::string("@main:%2"));
        QCOMPARE(lookup(t, "x"), std::string("@main:%arg0"));
    }

    void findErrors()
    {
        Trace t = record(kLookup, "basic");
        // Ambiguous suffix: "neg" ends layer1/neg and layer2/neg; the error names both.
        const std::string amb = lookup(t, "neg");
        QVERIFY2(has(amb, "error: 'neg' matches 2 values"), amb.c_str());
        QVERIFY2(has(amb, "@main:%0") && has(amb, "@main:%1"), amb.c_str());
        // Unknown printed name and unknown id.
        const std::string unknown = lookup(t, "@main:%9");
        QVERIFY2(has(unknown, "error: no value '@main:%9'"), unknown.c_str());
        QVERIFY2(has(lookup(t, "@nowhere:%arg0"), "no value '@nowhere:%arg0'"), lookup(t, "@nowhere:%arg0").c_str());
        QVERIFY2(has(lookup(t, "layer3"), "no value 'layer3'"), lookup(t, "layer3").c_str());
    }

    void findUnknownNamesCandidates()
    {
        // The header promises the candidates in the unknown case too: for @f, the values of @f.
        Trace t = record(kLookup, "basic");
        const std::string unknownF = lookup(t, "@f:%5");
        QVERIFY2(has(unknownF, "no value '@f:%5'"), unknownF.c_str());
        QVERIFY2(has(unknownF, "@f:%arg0") && has(unknownF, "@f:%0"), unknownF.c_str());
    }

    void findScopeSuffixIsPathSuffix()
    {
        // A suffix of a name scope is a trailing run of its '/'-separated components: "neg" and
        // "layer2/neg" are suffixes of "layer2/neg", "ayer2/neg" and "g" are not scopes at all.
        Trace t = record(kLookup, "basic");
        QVERIFY2(has(lookup(t, "ayer2/neg"), "error: no value"), lookup(t, "ayer2/neg").c_str());
        QVERIFY2(has(lookup(t, "her"), "error: no value"), lookup(t, "her").c_str());
    }

    void findEmptyQuery()
    {
        // The empty query names nothing, even where exactly one value has a scope.
        Trace one = record(R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8xf32> loc("only")
  return %0 : tensor<8xf32>
}
)",
                           "basic");
        QCOMPARE(lookup(one, "only"), std::string("@main:%0"));
        QVERIFY2(has(lookup(one, ""), "error:"), lookup(one, "").c_str());
    }

    void findAmbiguousPrintedName()
    {
        // Sibling regions may reuse names: %3 and %arg1 are in both manual computations. Their
        // ids are qualified by the op holding the region, and the bare name is ambiguous.
        Trace t = record(R"(sdy.mesh @mesh = <["a"=2]>
func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}]>}) -> tensor<8xf32> {
  %0 = stablehlo.negate %arg0 : tensor<8xf32>
  %1 = sdy.manual_computation(%0) in_shardings=[<@mesh, [{?}]>] out_shardings=[<@mesh, [{?}]>] manual_axes={} (%arg1: tensor<8xf32>) {
    %3 = stablehlo.abs %arg1 : tensor<8xf32>
    sdy.return %3 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  %2 = sdy.manual_computation(%1) in_shardings=[<@mesh, [{?}]>] out_shardings=[<@mesh, [{?}]>] manual_axes={} (%arg1: tensor<8xf32>) {
    %3 = stablehlo.abs %arg1 : tensor<8xf32>
    sdy.return %3 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %2 : tensor<8xf32>
}
)",
                         "basic");
        const std::string amb = lookup(t, "@main:%3");
        QVERIFY2(has(amb, "matches 2 values") && has(amb, "@main:%1/%3") && has(amb, "@main:%2/%3"), amb.c_str());
        QCOMPARE(lookup(t, "@main:%2/%3"), std::string("@main:%2/%3"));
        QCOMPARE(lookup(t, "@main:%1/%arg1"), std::string("@main:%1/%arg1"));
        QVERIFY2(has(lookup(t, "%arg1"), "matches 2 values"), lookup(t, "%arg1").c_str());
        QCOMPARE(lookup(t, "@main:%1"), std::string("@main:%1"));
    }
};

QTEST_APPLESS_MAIN(TestTraceLookup)
#include "tst_tracelookup.moc"
