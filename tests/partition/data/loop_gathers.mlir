sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %lim = stablehlo.constant dense<100.0> : tensor<f32>
  %0:2 = stablehlo.while(%i = %c, %v = %arg0) : tensor<i32>, tensor<8x4xf32> attributes {sdy.sharding = #sdy.sharding_per_value<[<@mesh, []>, <@mesh, [{"x"}, {"y"}]>]>}
   cond {
    %s = stablehlo.reduce(%v init: %zero) applies stablehlo.add across dimensions = [0, 1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, []>]>} : (tensor<8x4xf32>, tensor<f32>) -> tensor<f32>
    %q = stablehlo.compare LT, %s, %lim, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %q : tensor<i1>
  } do {
    %rev = stablehlo.reverse %v, dims = [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<8x4xf32>
    %t = stablehlo.add %rev, %v {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<8x4xf32>
    %n = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %n, %t : tensor<i32>, tensor<8x4xf32>
  }
  return %0#1 : tensor<8x4xf32>
}
