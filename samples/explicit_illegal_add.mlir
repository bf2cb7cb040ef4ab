module @jit_add_explicit attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["X"=2, "Y"=4]>
  func.func public @main(%arg0: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"X"}, {}]>}, %arg1: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"X"}]>}) -> (tensor<4x4xi32> {jax.result_info = "result[0]"}, tensor<4x4xi32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4x4xi32>
    %1 = stablehlo.add %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"X"}, {}]>]>} : tensor<4x4xi32>
    return %0, %1 : tensor<4x4xi32>, tensor<4x4xi32>
  }
}
