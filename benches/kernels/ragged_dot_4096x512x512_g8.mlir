module @jit_ragged_dot attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4096x512xf32>, %arg1: tensor<8x512x512xf32>, %arg2: tensor<8xi32>) -> (tensor<4096x512xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<4096x512xf32>) -> tensor<8x4096x512xf32>
    %1 = stablehlo.iota dim = 1 : tensor<8x4096x512xi32>
    %2 = call @cumsum(%arg2) : (tensor<8xi32>) -> tensor<8xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %4 = stablehlo.slice %3 [0:1] : (tensor<8xi32>) -> tensor<1xi32>
    %5 = stablehlo.slice %2 [0:7] : (tensor<8xi32>) -> tensor<7xi32>
    %6 = stablehlo.concatenate %4, %5, dim = 0 : (tensor<1xi32>, tensor<7xi32>) -> tensor<8xi32>
    %7 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<8xi32>) -> tensor<8x4096x512xi32>
    %8 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<8xi32>) -> tensor<8x4096x512xi32>
    %9 = stablehlo.compare LE, %8, %1, SIGNED : (tensor<8x4096x512xi32>, tensor<8x4096x512xi32>) -> tensor<8x4096x512xi1>
    %10 = stablehlo.compare LT, %1, %7, SIGNED : (tensor<8x4096x512xi32>, tensor<8x4096x512xi32>) -> tensor<8x4096x512xi1>
    %11 = stablehlo.and %9, %10 : tensor<8x4096x512xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x4096x512xf32>
    %13 = stablehlo.select %11, %0, %12 : tensor<8x4096x512xi1>, tensor<8x4096x512xf32>
    %14 = stablehlo.dot_general %13, %arg1, contracting_dims = [2, 0] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<8x4096x512xf32>, tensor<8x512x512xf32>) -> tensor<4096x512xf32>
    return %14 : tensor<4096x512xf32>
  }
  func.func private @cumsum(%arg0: tensor<8xi32>) -> tensor<8xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[7, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 8>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<i32>
      stablehlo.return %2 : tensor<i32>
    }) : (tensor<8xi32>, tensor<i32>) -> tensor<8xi32>
    return %1 : tensor<8xi32>
  }
}
