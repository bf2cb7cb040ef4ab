// StablehloAttrs: StableHLO attribute values (dimension numbers, enums, int lists) and typed op accessors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/Attribute.h"
#include "core/ir/Operation.h"
#include "core/mesh/AxisRef.h"

namespace shardx::stablehlo {

/// `#stablehlo.replica_group_mesh_axes<mesh = @m, axes = [#stablehlo.axis_ref<name = "x">, ...]>` (the
/// replica groups JAX writes for a collective in shard_map: the groups of those axes of mesh @m).
struct ReplicaGroupMeshAxes {
    std::string mesh; ///< without '@'
    std::vector<AxisRef> axes;
};
/// Reads it; nullopt (and a message in `error`) when it is malformed. A sub-axis is
/// `#stablehlo.axis_ref<name = "x", pre_size = 2, size = 2>`.
std::optional<ReplicaGroupMeshAxes> parseReplicaGroupMeshAxes(const ir::OpaqueAttr& attr, std::string* error = nullptr);

/// `#stablehlo.dot<lhs_batching_dimensions = [0], ...>`.
struct DotDimensionNumbers {
    std::vector<int64_t> lhsBatching, rhsBatching, lhsContracting, rhsContracting;
};

/// `#stablehlo.gather<offset_dims = [..], collapsed_slice_dims = [..], ...>`.
struct GatherDimensionNumbers {
    std::vector<int64_t> offsetDims, collapsedSliceDims, operandBatchingDims, startIndicesBatchingDims, startIndexMap;
    int64_t indexVectorDim = 0;
};

/// `#stablehlo.scatter<update_window_dims = [..], inserted_window_dims = [..], ...>`.
struct ScatterDimensionNumbers {
    std::vector<int64_t> updateWindowDims, insertedWindowDims, inputBatchingDims, scatterIndicesBatchingDims,
        scatterDimsToOperandDims;
    int64_t indexVectorDim = 0;
};

/// `#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>` (or the `raw` key form).
struct ConvDimensionNumbers {
    int64_t inputBatch = 0, inputFeature = 0;
    std::vector<int64_t> inputSpatial;
    int64_t kernelInputFeature = 0, kernelOutputFeature = 0;
    std::vector<int64_t> kernelSpatial;
    int64_t outputBatch = 0, outputFeature = 0;
    std::vector<int64_t> outputSpatial;
};

/// Parse the body (text between the outer `<` `>`) of each attribute. The error string
/// says what was wrong.
std::optional<DotDimensionNumbers> parseDotDimensionNumbers(const std::string& body, std::string* error = nullptr);
std::optional<GatherDimensionNumbers> parseGatherDimensionNumbers(const std::string& body,
                                                                  std::string* error = nullptr);
std::optional<ScatterDimensionNumbers> parseScatterDimensionNumbers(const std::string& body,
                                                                    std::string* error = nullptr);
std::optional<ConvDimensionNumbers> parseConvDimensionNumbers(const std::string& body, std::string* error = nullptr);

/// `#stablehlo.dot<...>` of `dims` as the reader stores it: an OpaqueAttr whose body lists the
/// four fields in order, leaving out those with an empty list.
ir::AttrPtr dotDimensionNumbersAttr(const DotDimensionNumbers& dims);
/// `#stablehlo.gather<...>` of `dims` as the reader stores it: the fields in MLIR's order, those
/// with an empty list left out, `index_vector_dim` always written.
ir::AttrPtr gatherDimensionNumbersAttr(const GatherDimensionNumbers& dims);
/// `#stablehlo.scatter<...>` of `dims`, written the same way.
ir::AttrPtr scatterDimensionNumbersAttr(const ScatterDimensionNumbers& dims);

/// Keyword of an enum attribute `#stablehlo<transpose TRANSPOSE>` -> "TRANSPOSE" (the last
/// word of the body), or of a string attribute; empty if absent.
std::string enumKeyword(const ir::Attribute* attr);

/// Integers of an attribute: DenseArrayAttr ints, ArrayAttr of IntegerAttr, or a
/// DenseElementsAttr of an integer type (splat expanded to `expectedCount` when > 0, else to its element
/// count; nullopt past ir::kMaxSplatListLength).
std::optional<std::vector<int64_t>> intList(const ir::Attribute* attr, int64_t expectedCount = 0);
/// Integer value of an IntegerAttr (or BoolAttr), or nullopt.
std::optional<int64_t> intValue(const ir::Attribute* attr);
/// Boolean value of a BoolAttr (or UnitAttr = true), or nullopt.
std::optional<bool> boolValue(const ir::Attribute* attr);
/// String value of a StringAttr, or nullopt.
std::optional<std::string> stringValue(const ir::Attribute* attr);

// ---- typed accessors of stablehlo ops ---------------------------------------------------------

// Attribute names, for code that needs the name itself (printers).
inline constexpr char kCallTargetNameAttr[] = "call_target_name";                   ///< custom_call
inline constexpr char kDotDimensionNumbersAttr[] = "dot_dimension_numbers";         ///< dot_general
inline constexpr char kDimensionNumbersAttr[] = "dimension_numbers";                ///< convolution, gather
inline constexpr char kScatterDimensionNumbersAttr[] = "scatter_dimension_numbers"; ///< scatter
inline constexpr char kPermutationAttr[] = "permutation";                           ///< transpose

// The dimension numbers of an op parse the body of its OpaqueAttr as the parsers above do; an
// absent attribute (or one of another kind) reads as the empty body. nullopt (and `error`)
// when the body is malformed.

/// `dot_dimension_numbers` of stablehlo.dot_general.
std::optional<DotDimensionNumbers> dotDimensionNumbers(const ir::Op& dotGeneral, std::string* error = nullptr);
/// `dimension_numbers` of stablehlo.convolution.
std::optional<ConvDimensionNumbers> convDimensionNumbers(const ir::Op& convolution, std::string* error = nullptr);
/// `dimension_numbers` of stablehlo.gather.
std::optional<GatherDimensionNumbers> gatherDimensionNumbers(const ir::Op& gather, std::string* error = nullptr);
/// `scatter_dimension_numbers` of stablehlo.scatter.
std::optional<ScatterDimensionNumbers> scatterDimensionNumbers(const ir::Op& scatter, std::string* error = nullptr);
/// `permutation` of stablehlo.transpose (as intList reads it), or nullopt when absent or
/// malformed.
std::optional<std::vector<int64_t>> transposePermutation(const ir::Op& transpose);
/// `call_target_name` of stablehlo.custom_call (a StringAttr); nullopt for another op, or when
/// absent or not a StringAttr.
std::optional<std::string> customCallTarget(const ir::Op& customCall);

} // namespace shardx::stablehlo
