// TensorIo: program inputs for the executors: seeded random tensors and NumPy .npy files.
#pragma once

#include <cstdint>
#include <string>

#include "core/exec/Tensor.h"
#include "core/support/Expected.h"

namespace shardx::exec {

/// A tensor of `type` and `shape` filled from `seed` (splitmix64, the same on every machine): floats
/// are multiples of 1/16 in [-4, 4) (exact in every float format, so sums of a few stay exact),
/// integers in [-8, 8) (unsigned: [0, 16)), i1 0 or 1.
Tensor randomTensor(const ElementType& type, const std::vector<int64_t>& shape, uint64_t seed);

/// Reads a NumPy `.npy` file (format 1.0-3.0, C order, little-endian): `<f4 <f8 <f2 <i1 <i4 <i8 <u4
/// |b1 |i1 |u1 <c16` and kin. An Error names the file and what is wrong.
Expected<Tensor> readNpy(const std::string& path);
/// Writes `t` as a `.npy` file (format 1.0). bf16 has no NumPy type: it is written as `<f4`.
Status writeNpy(const std::string& path, const Tensor& t);

} // namespace shardx::exec
