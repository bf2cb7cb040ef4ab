// A shard_map manual over "data" only ("model" free): the body multiplies its rows (8x32, the columns whole) by
// the whole w; the partitioner splits the contraction along the free "model" too (a partial sum, all_reduced).
module @jit_partial attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func public @main(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>}, %arg1: tensor<32x8xf32>) -> (tensor<16x8xf32>) {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"data"}, {"model"}]>, <@mesh, [{}, {}]>] out_shardings=[<@mesh, [{"data"}, {}]>] manual_axes={"data"} (%arg2: tensor<8x32xf32>, %arg3: tensor<32x8xf32>) {
      %1 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x8xf32>) -> tensor<8x8xf32>
      %2 = stablehlo.tanh %1 : tensor<8x8xf32>
      sdy.return %2 : tensor<8x8xf32>
    } : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
    return %0 : tensor<16x8xf32>
  }
}
