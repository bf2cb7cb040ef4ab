// libFuzzer harness: the MLIR text reader, the verifier, and the printer's round trips (custom form, generic
// form, with locations, and through the JSON document format). Printed text must read back and print the same.
#include <string>

#include "core/io/JsonDocument.h"
#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/ir/Verifier.h"
#include "tests/fuzz/FuzzSupport.h"

using namespace shardx;

namespace {

constexpr size_t kMaxInput = 256 * 1024;

/// Prints `module` with `print`, reads the text back with `read` and prints that again: the reading must
/// succeed and both prints must be the same text.
void checkRoundTrip(const ir::Module& module, const io::PrintOptions& print, const io::ReadOptions& read,
                    const char* form)
{
    const std::string first = io::printModule(module, print);
    DiagnosticList diags;
    auto again = io::parseMlir(first, "printed.mlir", diags, read);
    fuzz::require(again != nullptr, form, "printed text does not read back: " + diags.formatAll() + "\n" + first);
    const std::string second = io::printModule(*again, print);
    fuzz::require(first == second, form, fuzz::twoTexts(first, second));
}

/// The module through the JSON document format: written, read back, printed with locations as before.
void checkJsonRoundTrip(const ir::Module& module)
{
    io::PrintOptions print;
    print.genericForm = true;
    print.printDebugInfo = true;
    const std::string json = io::writeJsonDocument(module);
    DiagnosticList diags;
    auto again = io::parseJsonDocument(json, "printed.json", diags);
    fuzz::require(again != nullptr, "JSON round trip", "JSON document does not read back: " + diags.formatAll());
    const std::string first = io::printModule(module, print);
    const std::string second = io::printModule(*again, print);
    fuzz::require(first == second, "JSON round trip", fuzz::twoTexts(first, second));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size > kMaxInput)
        return -1;
    const std::string_view text = fuzz::asText(data, size);
    // MLIR's strictness first; a text with ops of unknown dialects is read again keeping them.
    io::ReadOptions read;
    DiagnosticList diags;
    auto module = io::parseMlir(text, "fuzz.mlir", diags, read);
    if (!module) {
        fuzz::require(diags.hasErrors(), "a text that does not read has an error");
        read.allowUnregisteredDialects = true;
        diags.clear();
        module = io::parseMlir(text, "fuzz.mlir", diags, read);
        if (!module) {
            fuzz::require(diags.hasErrors(), "a text that does not read has an error");
            return 0;
        }
    }
    DiagnosticList verifyDiags;
    const bool verified = ir::verifyModule(*module, verifyDiags, ir::VerifyScope::EveryOp);
    fuzz::require(verified || verifyDiags.hasErrors(), "a module that does not verify has an error");

    // The generic form holds any module that reads, verified or not (as mlir-opt prints what fails to verify).
    io::PrintOptions generic;
    generic.genericForm = true;
    checkRoundTrip(*module, generic, read, "generic form round trip");
    generic.printDebugInfo = true;
    checkRoundTrip(*module, generic, read, "generic form round trip with locations");
    checkJsonRoundTrip(*module);
    if (!verified)
        return 0;
    checkRoundTrip(*module, io::PrintOptions{}, read, "custom form round trip");
    io::PrintOptions withLocations;
    withLocations.printDebugInfo = true;
    checkRoundTrip(*module, withLocations, read, "custom form round trip with locations");
    return 0;
}
