module @jit_ragged_contracting attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x5x9xf32>, %arg1: tensor<2x9x4xf32>, %arg2: tensor<3xi32>) -> (tensor<3x2x5x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<3xi32>) -> tensor<2x3xi32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [0, 2, 3] : (tensor<2x5x9xf32>) -> tensor<2x3x5x9xf32>
    %2 = stablehlo.iota dim = 2 : tensor<3x5x9xi32>
    %3 = call @cumsum(%0) : (tensor<2x3xi32>) -> tensor<2x3xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %5 = stablehlo.slice %4 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
    %6 = stablehlo.slice %3 [0:2, 0:2] : (tensor<2x3xi32>) -> tensor<2x2xi32>
    %7 = stablehlo.broadcast_in_dim %5, dims = [1] : (tensor<1xi32>) -> tensor<2x1xi32>
    %8 = stablehlo.concatenate %7, %6, dim = 1 : (tensor<2x1xi32>, tensor<2x2xi32>) -> tensor<2x3xi32>
    %9 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x3xi32>) -> tensor<2x3x5x9xi32>
    %10 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<2x3xi32>) -> tensor<2x3x5x9xi32>
    %11 = stablehlo.broadcast_in_dim %2, dims = [1, 2, 3] : (tensor<3x5x9xi32>) -> tensor<1x3x5x9xi32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2, 3] : (tensor<1x3x5x9xi32>) -> tensor<2x3x5x9xi32>
    %13 = stablehlo.compare LE, %10, %12, SIGNED : (tensor<2x3x5x9xi32>, tensor<2x3x5x9xi32>) -> tensor<2x3x5x9xi1>
    %14 = stablehlo.broadcast_in_dim %2, dims = [1, 2, 3] : (tensor<3x5x9xi32>) -> tensor<1x3x5x9xi32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1, 2, 3] : (tensor<1x3x5x9xi32>) -> tensor<2x3x5x9xi32>
    %16 = stablehlo.compare LT, %15, %9, SIGNED : (tensor<2x3x5x9xi32>, tensor<2x3x5x9xi32>) -> tensor<2x3x5x9xi1>
    %17 = stablehlo.and %13, %16 : tensor<2x3x5x9xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x5x9xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [1, 2, 3] : (tensor<3x5x9xf32>) -> tensor<2x3x5x9xf32>
    %20 = stablehlo.select %17, %1, %19 : tensor<2x3x5x9xi1>, tensor<2x3x5x9xf32>
    %21 = stablehlo.transpose %20, dims = [1, 0, 2, 3] : (tensor<2x3x5x9xf32>) -> tensor<3x2x5x9xf32>
    %22 = stablehlo.broadcast_in_dim %arg1, dims = [0, 2, 3] : (tensor<2x9x4xf32>) -> tensor<2x3x9x4xf32>
    %23 = stablehlo.iota dim = 1 : tensor<3x9x4xi32>
    %24 = call @cumsum(%0) : (tensor<2x3xi32>) -> tensor<2x3xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %25 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %26 = stablehlo.slice %25 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
    %27 = stablehlo.slice %24 [0:2, 0:2] : (tensor<2x3xi32>) -> tensor<2x2xi32>
    %28 = stablehlo.broadcast_in_dim %26, dims = [1] : (tensor<1xi32>) -> tensor<2x1xi32>
    %29 = stablehlo.concatenate %28, %27, dim = 1 : (tensor<2x1xi32>, tensor<2x2xi32>) -> tensor<2x3xi32>
    %30 = stablehlo.broadcast_in_dim %24, dims = [0, 1] : (tensor<2x3xi32>) -> tensor<2x3x9x4xi32>
    %31 = stablehlo.broadcast_in_dim %29, dims = [0, 1] : (tensor<2x3xi32>) -> tensor<2x3x9x4xi32>
    %32 = stablehlo.broadcast_in_dim %23, dims = [1, 2, 3] : (tensor<3x9x4xi32>) -> tensor<1x3x9x4xi32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0, 1, 2, 3] : (tensor<1x3x9x4xi32>) -> tensor<2x3x9x4xi32>
    %34 = stablehlo.compare LE, %31, %33, SIGNED : (tensor<2x3x9x4xi32>, tensor<2x3x9x4xi32>) -> tensor<2x3x9x4xi1>
    %35 = stablehlo.broadcast_in_dim %23, dims = [1, 2, 3] : (tensor<3x9x4xi32>) -> tensor<1x3x9x4xi32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [0, 1, 2, 3] : (tensor<1x3x9x4xi32>) -> tensor<2x3x9x4xi32>
    %37 = stablehlo.compare LT, %36, %30, SIGNED : (tensor<2x3x9x4xi32>, tensor<2x3x9x4xi32>) -> tensor<2x3x9x4xi1>
    %38 = stablehlo.and %34, %37 : tensor<2x3x9x4xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<3x9x4xf32>
    %40 = stablehlo.broadcast_in_dim %39, dims = [1, 2, 3] : (tensor<3x9x4xf32>) -> tensor<2x3x9x4xf32>
    %41 = stablehlo.select %38, %22, %40 : tensor<2x3x9x4xi1>, tensor<2x3x9x4xf32>
    %42 = stablehlo.transpose %41, dims = [1, 0, 2, 3] : (tensor<2x3x9x4xf32>) -> tensor<3x2x9x4xf32>
    %43 = stablehlo.dot_general %21, %42, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<3x2x5x9xf32>, tensor<3x2x9x4xf32>) -> tensor<3x2x5x4xf32>
    return %43 : tensor<3x2x5x4xf32>
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
