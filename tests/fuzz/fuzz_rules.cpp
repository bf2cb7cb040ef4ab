// libFuzzer harness: custom rule files (JSON or `KEY: RULE` text) and einsum-like rules. A file that loads is
// applied to the ops of a fixed module (rules attached as `sdy.sharding_rule` must verify and print back); the
// first line, read as one rule, is instantiated for shapes its factors fit.
#include <memory>
#include <string>
#include <vector>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/ir/Verifier.h"
#include "core/rules/CustomRules.h"
#include "core/rules/PopulateRulesPass.h"
#include "tests/fuzz/FuzzSupport.h"

using namespace shardx;

namespace {

constexpr size_t kMaxInput = 64 * 1024;

/// Ops that user rules name: StableHLO ops with registry rules, custom calls of one and two results, a scalar,
/// a dynamic shape and a tensor of 2^40 elements.
constexpr const char* kModule = R"(sdy.mesh @mesh = <["a"=2, "b"=4]>
func.func @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<f32>, %arg3: tensor<?x4xf32>) -> tensor<8x32xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %1 = stablehlo.add %0, %0 : tensor<8x32xf32>
  %2 = stablehlo.custom_call @my_kernel(%arg0) : (tensor<8x16xf32>) -> tensor<128xf32>
  %3:2 = stablehlo.custom_call @two(%arg0, %arg1) : (tensor<8x16xf32>, tensor<16x32xf32>) -> (tensor<8x32xf32>, tensor<4x2x16xf32>)
  %4 = stablehlo.transpose %1, dims = [1, 0] : (tensor<8x32xf32>) -> tensor<32x8xf32>
  %5 = stablehlo.reshape %4 : (tensor<32x8xf32>) -> tensor<256xf32>
  %6 = stablehlo.negate %arg2 : tensor<f32>
  %7 = stablehlo.custom_call @big(%arg2) : (tensor<f32>) -> tensor<1048576x1048576xf32>
  %8 = stablehlo.custom_call @dyn(%arg3) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<8x32xf32>
}
)";

const ir::Module& fixedModule()
{
    static const std::unique_ptr<ir::Module> module = [] {
        DiagnosticList diags;
        auto m = io::parseMlir(kModule, "rules.mlir", diags);
        fuzz::require(m != nullptr, "the fixed module reads", diags.formatAll());
        return m;
    }();
    return *module;
}

/// Instantiates `spec` for shapes its factors fit: each factor's size is its explicit size or 1 + (its
/// index mod 4), each dimension the product of its factors; then once more with every dimension 6.
void instantiate(const CustomRuleSpec& spec)
{
    auto shapesOf = [&](const std::vector<std::vector<std::vector<int64_t>>>& tensors, bool fitted) {
        std::vector<std::vector<int64_t>> shapes;
        for (const auto& tensor : tensors) {
            std::vector<int64_t> shape;
            for (const auto& dim : tensor) {
                int64_t size = 1;
                for (int64_t f : dim) {
                    auto it = spec.explicitSizes.find(f);
                    const int64_t factor = it != spec.explicitSizes.end() ? it->second : 1 + f % 4;
                    size = factor > 0 && size < (int64_t(1) << 40) / factor ? size * factor : size;
                }
                shape.push_back(fitted ? size : 6);
            }
            shapes.push_back(std::move(shape));
        }
        return shapes;
    };
    for (bool fitted : {true, false}) {
        Expected<OpShardingRule> rule =
            instantiateCustomRule(spec, shapesOf(spec.operands, fitted), shapesOf(spec.results, fitted));
        if (rule)
            fuzz::require(rule->isCustom, "an instantiated user rule is marked custom");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size > kMaxInput)
        return -1;
    const std::string text(fuzz::asText(data, size));
    const std::string firstLine = text.substr(0, text.find('\n'));
    if (Expected<CustomRuleSpec> spec = parseCustomRule(firstLine))
        instantiate(*spec);

    const size_t first = text.find_first_not_of(" \t\r\n");
    const bool json = first != std::string::npos && (text[first] == '{' || text[first] == '[');
    Expected<CustomRuleSet> rules =
        json ? CustomRuleSet::fromJson(text, "fuzz.json") : CustomRuleSet::fromText(text, "fuzz.rules");
    if (!rules)
        return 0;
    std::unique_ptr<ir::Module> module = fixedModule().clone();
    RuleOptions options;
    options.customRules = &*rules;
    DiagnosticList diags;
    populateOpShardingRules(*module, options, diags);
    DiagnosticList verifyDiags;
    fuzz::require(ir::verifyModule(*module, verifyDiags, ir::VerifyScope::EveryOp), "rules that were attached verify",
                  verifyDiags.formatAll());
    const std::string printed = io::printModule(*module);
    DiagnosticList readDiags;
    auto again = io::parseMlir(printed, "printed.mlir", readDiags);
    fuzz::require(again != nullptr, "attached rules read back", readDiags.formatAll() + "\n" + printed);
    fuzz::require(io::printModule(*again) == printed, "attached rules print back");
    return 0;
}
