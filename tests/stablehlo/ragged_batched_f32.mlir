module @jit_ragged_batched attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x9x6xf32>, %arg1: tensor<3x2x6x4xf32>, %arg2: tensor<2x3xi32>) -> (tensor<2x9x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 2, 3] : (tensor<2x9x6xf32>) -> tensor<2x3x9x6xf32>
    %1 = stablehlo.iota dim = 1 : tensor<3x9x6xi32>
    %2 = call @cumsum(%arg2) : (tensor<2x3xi32>) -> tensor<2x3xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %4 = stablehlo.slice %3 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
    %5 = stablehlo.slice %2 [0:2, 0:2] : (tensor<2x3xi32>) -> tensor<2x2xi32>
    %6 = stablehlo.broadcast_in_dim %4, dims = [1] : (tensor<1xi32>) -> tensor<2x1xi32>
    %7 = stablehlo.concatenate %6, %5, dim = 1 : (tensor<2x1xi32>, tensor<2x2xi32>) -> tensor<2x3xi32>
    %8 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<2x3xi32>) -> tensor<2x3x9x6xi32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<2x3xi32>) -> tensor<2x3x9x6xi32>
    %10 = stablehlo.broadcast_in_dim %1, dims = [1, 2, 3] : (tensor<3x9x6xi32>) -> tensor<1x3x9x6xi32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1, 2, 3] : (tensor<1x3x9x6xi32>) -> tensor<2x3x9x6xi32>
    %12 = stablehlo.compare LE, %9, %11, SIGNED : (tensor<2x3x9x6xi32>, tensor<2x3x9x6xi32>) -> tensor<2x3x9x6xi1>
    %13 = stablehlo.broadcast_in_dim %1, dims = [1, 2, 3] : (tensor<3x9x6xi32>) -> tensor<1x3x9x6xi32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1, 2, 3] : (tensor<1x3x9x6xi32>) -> tensor<2x3x9x6xi32>
    %15 = stablehlo.compare LT, %14, %8, SIGNED : (tensor<2x3x9x6xi32>, tensor<2x3x9x6xi32>) -> tensor<2x3x9x6xi1>
    %16 = stablehlo.and %12, %15 : tensor<2x3x9x6xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x9x6xf32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [1, 2, 3] : (tensor<3x9x6xf32>) -> tensor<2x3x9x6xf32>
    %19 = stablehlo.select %16, %0, %18 : tensor<2x3x9x6xi1>, tensor<2x3x9x6xf32>
    %20 = stablehlo.transpose %19, dims = [1, 0, 2, 3] : (tensor<2x3x9x6xf32>) -> tensor<3x2x9x6xf32>
    %21 = stablehlo.dot_general %20, %arg1, batching_dims = [1] x [1], contracting_dims = [3, 0] x [2, 0], precision = [DEFAULT, DEFAULT] : (tensor<3x2x9x6xf32>, tensor<3x2x6x4xf32>) -> tensor<2x9x4xf32>
    return %21 : tensor<2x9x4xf32>
  }
  func.func private @cumsum(%arg0: tensor<2x3xi32>) -> tensor<2x3xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [2, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 3>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<i32>
      stablehlo.return %2 : tensor<i32>
    }) : (tensor<2x3xi32>, tensor<i32>) -> tensor<2x3xi32>
    return %1 : tensor<2x3xi32>
  }
}
