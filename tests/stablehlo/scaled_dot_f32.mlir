module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x64xf32>, %arg1: tensor<4x2xf32>, %arg2: tensor<64x6xf32>, %arg3: tensor<2x6xf32>) -> (tensor<4x6xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.composite "xla.scaled_dot" %arg0, %arg2, %arg1, %arg3 {composite_attributes = {dimension_numbers = [[[1], [0]], [[], []]], preferred_element_type = bf16}, decomposition = @xla.scaled_dot} : (tensor<4x64xf32>, tensor<64x6xf32>, tensor<4x2xf32>, tensor<2x6xf32>) -> tensor<4x6xbf16>
    return %0 : tensor<4x6xbf16>
  }
  func.func private @xla.scaled_dot(%arg0: tensor<4x64xf32>, %arg1: tensor<64x6xf32>, %arg2: tensor<4x2xf32>, %arg3: tensor<2x6xf32>) -> tensor<4x6xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1] : (tensor<4x2xf32>) -> tensor<4x2x1xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1, 2] : (tensor<4x2x1xf32>) -> tensor<4x2x32xf32>
    %2 = stablehlo.reshape %1 : (tensor<4x2x32xf32>) -> tensor<4x64xf32>
    %3 = stablehlo.convert %arg0 : (tensor<4x64xf32>) -> tensor<4x64xbf16>
    %4 = stablehlo.convert %2 : (tensor<4x64xf32>) -> tensor<4x64xbf16>
    %5 = stablehlo.multiply %3, %4 : tensor<4x64xbf16>
    %6 = stablehlo.broadcast_in_dim %arg3, dims = [0, 2] : (tensor<2x6xf32>) -> tensor<2x1x6xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1, 2] : (tensor<2x1x6xf32>) -> tensor<2x32x6xf32>
    %8 = stablehlo.reshape %7 : (tensor<2x32x6xf32>) -> tensor<64x6xf32>
    %9 = stablehlo.convert %arg1 : (tensor<64x6xf32>) -> tensor<64x6xbf16>
    %10 = stablehlo.convert %8 : (tensor<64x6xf32>) -> tensor<64x6xbf16>
    %11 = stablehlo.multiply %9, %10 : tensor<64x6xbf16>
    %12 = stablehlo.dot_general %5, %11, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x64xbf16>, tensor<64x6xbf16>) -> tensor<4x6xbf16>
    return %12 : tensor<4x6xbf16>
  }
}
