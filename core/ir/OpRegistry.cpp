// OpRegistry: the known-op table.
#include "core/ir/OpRegistry.h"

#include <algorithm>

namespace shardx::ir {

namespace {

enum : unsigned {
    kTerm = 1,
    kPure = 2,
    kIsolated = 4,
    kCustom = 8,
    kElementwise = 16,
    kPointwiseRule = 32,
};

struct Row {
    const char* name;
    unsigned traits;
    std::vector<std::string> inherent;
};

std::vector<Row> rows()
{
    std::vector<Row> r = {
        {"builtin.module", kIsolated | kCustom, {"sym_name", "sym_visibility"}},
        {"builtin.unrealized_conversion_cast", kPure, {}},
        {"func.func",
         kIsolated | kCustom,
         {"sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs", "no_inline"}},
        {"func.call", kCustom, {"callee", "arg_attrs", "res_attrs", "no_inline"}},
        {"func.call_indirect", kCustom, {"arg_attrs", "res_attrs"}},
        {"func.constant", kPure | kCustom, {"value"}},
        {"func.return", kTerm | kPure | kCustom, {}},
        {"sdy.mesh", kCustom, {"sym_name", "mesh"}},
        {"sdy.sharding_constraint", kCustom | kElementwise | kPointwiseRule, {"sharding"}},
        {"sdy.reshard", kPure | kCustom | kElementwise, {"sharding"}},
        {"sdy.manual_computation", kIsolated | kCustom, {"in_shardings", "out_shardings", "manual_axes"}},
        {"sdy.sharding_group", kCustom, {"group_id"}},
        {"sdy.constant", kPure | kCustom, {"value"}},
        {"sdy.data_flow_edge", kCustom, {"sharding"}},
        {"sdy.func_data_flow_edge", kCustom, {}},
        {"sdy.propagation_barrier", kPure | kCustom | kElementwise, {"allowed_direction"}},
        {"sdy.named_computation", kIsolated | kCustom, {"name", "in_shardings", "out_shardings"}},
        {"sdy.return", kTerm | kPure | kCustom, {}},
        {"sdy.all_gather", kCustom, {"gathering_axes", "out_sharding"}},
        {"sdy.all_slice", kCustom, {"slicing_axes", "out_sharding"}},
        {"sdy.all_reduce", kCustom, {"reduction_axes", "out_sharding", "reduction_kind"}},
        {"sdy.reduce_scatter", kCustom, {"reduce_scatter_axes", "out_sharding", "reduction_kind"}},
        {"sdy.all_to_all", kCustom, {"params", "out_sharding"}},
        {"sdy.collective_permute", kCustom, {"out_sharding"}},
        {"sdy.sharded_to_unreduced", kCustom, {"axes", "out_sharding"}},
        {"sdy.replicated_to_unreduced", kCustom, {"axes", "out_sharding"}},
        {"stablehlo.return", kTerm | kPure | kCustom, {}},
        {"stablehlo.compare",
         kPure | kCustom | kElementwise | kPointwiseRule,
         {"comparison_direction", "compare_type"}},
        {"stablehlo.constant", kPure | kCustom, {"value"}},
        {"stablehlo.iota", kPure | kCustom, {"iota_dimension"}},
        {"stablehlo.transpose", kPure | kCustom, {"permutation"}},
        {"stablehlo.broadcast_in_dim", kPure | kCustom, {"broadcast_dimensions"}},
        {"stablehlo.slice", kPure | kCustom, {"start_indices", "limit_indices", "strides"}},
        {"stablehlo.dynamic_slice", kPure | kCustom, {"slice_sizes"}},
        {"stablehlo.concatenate", kPure | kCustom, {"dimension"}},
        {"stablehlo.pad", kPure | kCustom, {"edge_padding_low", "edge_padding_high", "interior_padding"}},
        {"stablehlo.reverse", kPure | kCustom, {"dimensions"}},
        {"stablehlo.dot", kPure | kCustom, {"precision_config"}},
        {"stablehlo.dot_general", kPure | kCustom, {"dot_dimension_numbers", "precision_config", "algorithm"}},
        {"stablehlo.convolution",
         kPure | kCustom,
         {"window_strides", "padding", "lhs_dilation", "rhs_dilation", "window_reversal", "dimension_numbers",
          "feature_group_count", "batch_group_count", "precision_config"}},
        {"stablehlo.custom_call",
         kCustom,
         {"call_target_name", "has_side_effect", "backend_config", "api_version", "called_computations",
          "operand_layouts", "result_layouts", "output_operand_aliases", "custom_call_schedule"}},
        {"stablehlo.fft", kPure | kCustom, {"fft_type", "fft_length"}},
        {"stablehlo.cholesky", kPure | kCustom, {"lower"}},
        {"stablehlo.get_dimension_size", kPure | kCustom, {"dimension"}},
        {"stablehlo.rng_bit_generator", kPure | kCustom, {"rng_algorithm"}},
        {"stablehlo.reduce_precision",
         kPure | kCustom | kElementwise | kPointwiseRule,
         {"exponent_bits", "mantissa_bits"}},
        {"stablehlo.get_tuple_element", kPure | kCustom, {"index"}},
        {"stablehlo.composite", kCustom, {"name", "composite_attributes", "decomposition", "version"}},
        {"stablehlo.reduce", kPure | kCustom, {"dimensions"}},
        {"stablehlo.while", kCustom, {}},
        {"stablehlo.partition_id", kCustom, {}},
        {"stablehlo.replica_id", kCustom, {}},
        // Custom-form stablehlo ops without inherent attributes (but the few listed).
        {"abs", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"add", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"and", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"atan2", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"cbrt", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"ceil", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"complex", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"convert", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"cosine", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"count_leading_zeros", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"divide", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"exponential", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"exponential_minus_one", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"floor", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"imag", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"is_finite", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"log", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"log_plus_one", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"logistic", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"maximum", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"minimum", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"multiply", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"negate", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"not", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"or", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"popcnt", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"power", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"real", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"remainder", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"round_nearest_afz", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"round_nearest_even", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"rsqrt", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"shift_left", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"shift_right_arithmetic", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"shift_right_logical", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"sign", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"sine", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"sqrt", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"subtract", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"tan", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"tanh", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"xor", kPure | kCustom | kElementwise | kPointwiseRule, {}},
        {"reshape", kPure | kCustom, {}},
        {"bitcast_convert", kPure | kCustom, {}},
        {"clamp", kPure | kCustom | kElementwise, {}},
        {"select", kPure | kCustom | kElementwise, {}},
        {"dynamic_update_slice", kPure | kCustom, {}},
        {"tuple", kPure | kCustom, {}},
        {"create_token", kCustom, {}},
        {"after_all", kCustom, {}},
        {"optimization_barrier", kCustom, {}},
        {"broadcast", kPure | kCustom, {"broadcast_sizes"}},
        {"dynamic_reshape", kPure | kCustom, {}},
        {"dynamic_broadcast_in_dim",
         kPure | kCustom,
         {"broadcast_dimensions", "known_expanding_dimensions", "known_nonexpanding_dimensions"}},
        {"dynamic_iota", kPure | kCustom, {"iota_dimension"}},
        {"dynamic_pad", kPure | kCustom, {}},
        {"set_dimension_size", kPure | kCustom, {}},
        {"uniform_quantize", kPure | kCustom | kElementwise, {}},
        {"uniform_dequantize", kPure | kCustom | kElementwise, {}},
        {"rng", kCustom, {"rng_distribution"}},
        {"real_dynamic_slice", kPure | kCustom, {}},
        // Generic-form stablehlo ops with inherent attributes.
        {"stablehlo.gather", kPure, {"dimension_numbers", "slice_sizes", "indices_are_sorted"}},
        {"stablehlo.dynamic_gather", kPure, {"dimension_numbers", "indices_are_sorted"}},
        {"stablehlo.scatter", kPure, {"scatter_dimension_numbers", "indices_are_sorted", "unique_indices"}},
        {"stablehlo.sort", kPure, {"dimension", "is_stable"}},
        {"stablehlo.case", 0, {}},
        {"stablehlo.if", 0, {}},
        {"stablehlo.map", kPure, {"dimensions"}},
        {"stablehlo.reduce_window",
         kPure,
         {"window_dimensions", "window_strides", "base_dilations", "window_dilations", "padding"}},
        {"stablehlo.select_and_scatter", kPure, {"window_dimensions", "window_strides", "padding"}},
        {"stablehlo.all_gather", 0, {"all_gather_dim", "replica_groups", "channel_handle", "use_global_device_ids"}},
        {"stablehlo.all_reduce", kPointwiseRule, {"replica_groups", "channel_handle", "use_global_device_ids"}},
        {"stablehlo.reduce_scatter",
         0,
         {"scatter_dimension", "replica_groups", "channel_handle", "use_global_device_ids"}},
        {"stablehlo.all_to_all",
         0,
         {"split_dimension", "concat_dimension", "split_count", "replica_groups", "channel_handle"}},
        {"stablehlo.collective_permute", kPointwiseRule, {"source_target_pairs", "channel_handle"}},
        // Deprecated (not in the spec) but still in the dialect; generic form only.
        {"stablehlo.cross-replica-sum", kPure | kPointwiseRule, {"replica_groups"}},
        {"stablehlo.collective_broadcast", kPointwiseRule, {"replica_groups", "channel_handle"}},
        {"stablehlo.triangular_solve", kPure, {"left_side", "lower", "unit_diagonal", "transpose_a"}},
        {"stablehlo.batch_norm_inference", kPure, {"epsilon", "feature_index"}},
        {"stablehlo.batch_norm_training", kPure, {"epsilon", "feature_index"}},
        {"stablehlo.batch_norm_grad", kPure, {"epsilon", "feature_index"}},
        {"stablehlo.infeed", 0, {"infeed_config", "layout"}},
        {"stablehlo.outfeed", 0, {"outfeed_config"}},
        {"stablehlo.send", 0, {"channel_handle", "is_host_transfer", "source_target_pairs"}},
        {"stablehlo.recv", 0, {"channel_handle", "is_host_transfer", "source_target_pairs"}},
        {"stablehlo.torch_index_select", kPure, {"dim", "batch_dims"}},
        {"stablehlo.einsum", kPure | kCustom, {"einsum_config"}},
        {"stablehlo.unary_einsum", kPure | kCustom, {"einsum_config"}},
        {"stablehlo.dynamic_conv",
         kPure,
         {"window_strides", "lhs_dilation", "rhs_dilation", "window_reversal", "dimension_numbers",
          "feature_group_count", "batch_group_count", "precision_config"}},
    };
    return r;
}

} // namespace

OpRegistry::OpRegistry()
{
    for (const Row& row : rows()) {
        OpInfo info;
        std::string n = row.name;
        if (n.find('.') == std::string::npos)
            n = "stablehlo." + n;
        info.name = n;
        info.inherentAttrs = row.inherent;
        info.isTerminator = row.traits & kTerm;
        info.isPure = row.traits & kPure;
        info.isolatedFromAbove = row.traits & kIsolated;
        info.hasCustomForm = row.traits & kCustom;
        info.isElementwise = row.traits & kElementwise;
        info.hasPointwiseRule = row.traits & kPointwiseRule;
        m_ops.push_back(std::move(info));
    }
    std::sort(m_ops.begin(), m_ops.end(), [](const OpInfo& a, const OpInfo& b) { return a.name < b.name; });
    for (const OpInfo& info : m_ops)
        m_byName.emplace(info.name, &info);
}

const OpRegistry& OpRegistry::instance()
{
    static const OpRegistry reg;
    return reg;
}

const OpInfo* OpRegistry::lookup(std::string_view name) const
{
    auto it = m_byName.find(name);
    return it == m_byName.end() ? nullptr : it->second;
}

bool OpRegistry::isRegisteredDialect(std::string_view d) const
{
    return d == "builtin" || d == "func" || d == "stablehlo" || d == "sdy" || d == "chlo";
}

bool OpRegistry::allowsUnknownOps(std::string_view d) const { return d == "chlo"; }

bool OpRegistry::isInherent(std::string_view opName, std::string_view attr) const
{
    const OpInfo* info = lookup(opName);
    if (!info)
        return false;
    return std::find(info->inherentAttrs.begin(), info->inherentAttrs.end(), attr) != info->inherentAttrs.end();
}

} // namespace shardx::ir
