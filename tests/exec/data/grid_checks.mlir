// An interpret file: a 1x4 grid computes a sharded sum that must equal the sequential one.
func.func @sequential_sum(%arg0: tensor<8xf32>) -> tensor<f32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// Each device sums its 2 elements, then an all_reduce adds the partial sums.
func.func @parallel_sum(%arg0: tensor<2xf32>) -> tensor<f32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  %1 = "stablehlo.all_reduce"(%0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}

func.func @main() {
  %x = stablehlo.iota dim = 0 : tensor<8xf32>
  %seq = func.call @sequential_sum(%x) : (tensor<8xf32>) -> tensor<f32>
  %s0 = stablehlo.slice %x [0:2] : (tensor<8xf32>) -> tensor<2xf32>
  %s1 = stablehlo.slice %x [2:4] : (tensor<8xf32>) -> tensor<2xf32>
  %s2 = stablehlo.slice %x [4:6] : (tensor<8xf32>) -> tensor<2xf32>
  %s3 = stablehlo.slice %x [6:8] : (tensor<8xf32>) -> tensor<2xf32>
  %r:4 = "interpreter.run_parallel"(%s0, %s1, %s2, %s3) {
    programs = [[@parallel_sum, @parallel_sum, @parallel_sum, @parallel_sum]]
  } : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
  // 0 + 1 + ... + 7 = 28.
  %expected = stablehlo.constant dense<28.0> : tensor<f32>
  check.expect_eq %seq, %expected : tensor<f32>
  "check.expect_eq"(%r#0, %seq) : (tensor<f32>, tensor<f32>) -> ()
  "check.expect_eq"(%r#1, %seq) : (tensor<f32>, tensor<f32>) -> ()
  "check.expect_eq"(%r#2, %seq) : (tensor<f32>, tensor<f32>) -> ()
  "check.expect_eq"(%r#3, %expected) : (tensor<f32>, tensor<f32>) -> ()
  return
}
