// libFuzzer harness: the shardx JSON document reader. A document that reads is written back, and that must
// read again and write the same; its MLIR text (generic form, with locations) must read back.
#include <string>

#include "core/io/JsonDocument.h"
#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/ir/Verifier.h"
#include "tests/fuzz/FuzzSupport.h"

using namespace shardx;

namespace {
constexpr size_t kMaxInput = 256 * 1024;
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size > kMaxInput)
        return -1;
    DiagnosticList diags;
    auto module = io::parseJsonDocument(fuzz::asText(data, size), "fuzz.json", diags);
    if (!module) {
        fuzz::require(diags.hasErrors(), "a document that does not read has an error");
        return 0;
    }
    DiagnosticList verifyDiags;
    const bool verified = ir::verifyModule(*module, verifyDiags, ir::VerifyScope::EveryOp);
    fuzz::require(verified || verifyDiags.hasErrors(), "a module that does not verify has an error");

    const std::string first = io::writeJsonDocument(*module);
    DiagnosticList againDiags;
    auto again = io::parseJsonDocument(first, "written.json", againDiags);
    fuzz::require(again != nullptr, "a written document reads back", againDiags.formatAll() + "\n" + first);
    const std::string second = io::writeJsonDocument(*again);
    fuzz::require(first == second, "JSON round trip", fuzz::twoTexts(first, second));

    io::PrintOptions print;
    print.genericForm = true;
    print.printDebugInfo = true;
    const std::string mlir = io::printModule(*module, print);
    if (!verified)
        return 0;
    io::ReadOptions read;
    read.allowUnregisteredDialects = true;
    DiagnosticList mlirDiags;
    auto fromMlir = io::parseMlir(mlir, "converted.mlir", mlirDiags, read);
    fuzz::require(fromMlir != nullptr, "a verified document's MLIR text reads back",
                  mlirDiags.formatAll() + "\n" + mlir);
    const std::string mlirAgain = io::printModule(*fromMlir, print);
    fuzz::require(mlir == mlirAgain, "JSON to MLIR round trip", fuzz::twoTexts(mlir, mlirAgain));
    return 0;
}
