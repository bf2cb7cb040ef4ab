// StablehloForms: tables of the simple functional-type StableHLO op forms.
#include "core/io/StablehloForms.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace shardx::io::detail {

namespace {

bool inList(const char* const* begin, const char* const* end, const std::string& name)
{
    if (name.rfind("stablehlo.", 0) != 0)
        return false;
    const char* shortName = name.c_str() + 10;
    return std::any_of(begin, end, [&](const char* o) { return std::strcmp(o, shortName) == 0; });
}

} // namespace

const KeywordForm* keywordFormOf(const std::string& name)
{
    static const std::vector<KeywordForm> forms = {
        {"stablehlo.broadcast", "sizes", "broadcast_sizes", FormValue::I64List},
        {"stablehlo.dynamic_broadcast_in_dim", "dims", "broadcast_dimensions", FormValue::I64List},
        {"stablehlo.dynamic_iota", "dim", "iota_dimension", FormValue::I64},
        {"stablehlo.set_dimension_size", "dim", "dimension", FormValue::I64},
        {"stablehlo.rng",
         "distribution",
         "rng_distribution",
         FormValue::Enum,
         "rng_distribution",
         {"UNIFORM", "NORMAL"}},
        {"stablehlo.einsum", "config", "einsum_config", FormValue::String},
        {"stablehlo.unary_einsum", "config", "einsum_config", FormValue::String},
    };
    for (const KeywordForm& f : forms)
        if (name == f.op)
            return &f;
    return nullptr;
}

bool isOperandsOnlyFunctionalForm(const std::string& name)
{
    static const char* const kOps[] = {"dynamic_pad", "dynamic_reshape", "real_dynamic_slice", "uniform_dequantize",
                                       "uniform_quantize"};
    return inList(std::begin(kOps), std::end(kOps), name);
}

bool requiresFunctionalType(const std::string& name)
{
    // Ops whose StableHLO assembly format ends in `functional-type(operands, results)`.
    static const char* const kOps[] = {"bitcast_convert",
                                       "broadcast",
                                       "broadcast_in_dim",
                                       "compare",
                                       "concatenate",
                                       "dot",
                                       "dot_general",
                                       "dynamic_broadcast_in_dim",
                                       "dynamic_iota",
                                       "dynamic_pad",
                                       "dynamic_reshape",
                                       "dynamic_slice",
                                       "dynamic_update_slice",
                                       "einsum",
                                       "fft",
                                       "get_dimension_size",
                                       "is_finite",
                                       "pad",
                                       "real_dynamic_slice",
                                       "reshape",
                                       "rng",
                                       "rng_bit_generator",
                                       "set_dimension_size",
                                       "slice",
                                       "transpose",
                                       "unary_einsum",
                                       "uniform_dequantize",
                                       "uniform_quantize"};
    return inList(std::begin(kOps), std::end(kOps), name);
}

} // namespace shardx::io::detail
