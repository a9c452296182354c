module @jit_cnn_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x56x56x16xf32>, %arg1: tensor<3x3x16x32xf32>, %arg2: tensor<32xf32>, %arg3: tensor<32xf32>, %arg4: tensor<32xf32>, %arg5: tensor<32xf32>, %arg6: tensor<25088x10xf32>, %arg7: tensor<10xf32>) -> (tensor<8x10xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<8x56x56x16xf32>, tensor<3x3x16x32xf32>) -> tensor<8x56x56x32xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [3] : (tensor<32xf32>) -> tensor<1x1x1x32xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<8x56x56x32xf32>
    %3 = stablehlo.subtract %0, %2 : tensor<8x56x56x32xf32>
    %cst = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %5 = stablehlo.add %arg3, %4 : tensor<32xf32>
    %6 = stablehlo.rsqrt %5 : tensor<32xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [3] : (tensor<32xf32>) -> tensor<1x1x1x32xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<8x56x56x32xf32>
    %9 = stablehlo.multiply %3, %8 : tensor<8x56x56x32xf32>
    %10 = stablehlo.broadcast_in_dim %arg4, dims = [3] : (tensor<32xf32>) -> tensor<1x1x1x32xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<8x56x56x32xf32>
    %12 = stablehlo.multiply %9, %11 : tensor<8x56x56x32xf32>
    %13 = stablehlo.broadcast_in_dim %arg5, dims = [3] : (tensor<32xf32>) -> tensor<1x1x1x32xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<8x56x56x32xf32>
    %15 = stablehlo.add %12, %14 : tensor<8x56x56x32xf32>
    %16 = call @relu(%15) : (tensor<8x56x56x32xf32>) -> tensor<8x56x56x32xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<f32>
    %18 = "stablehlo.reduce_window"(%16, %17) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg8: tensor<f32>, %arg9: tensor<f32>):
      %24 = stablehlo.maximum %arg8, %arg9 : tensor<f32>
      stablehlo.return %24 : tensor<f32>
    }) : (tensor<8x56x56x32xf32>, tensor<f32>) -> tensor<8x28x28x32xf32>
    %19 = stablehlo.reshape %18 : (tensor<8x28x28x32xf32>) -> tensor<8x25088xf32>
    %20 = stablehlo.dot_general %19, %arg6, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x25088xf32>, tensor<25088x10xf32>) -> tensor<8x10xf32>
    %21 = stablehlo.broadcast_in_dim %arg7, dims = [1] : (tensor<10xf32>) -> tensor<1x10xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1] : (tensor<1x10xf32>) -> tensor<8x10xf32>
    %23 = stablehlo.add %20, %22 : tensor<8x10xf32>
    return %23 : tensor<8x10xf32>
  }
  func.func private @relu(%arg0: tensor<8x56x56x32xf32>) -> tensor<8x56x56x32xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x56x56x32xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<8x56x56x32xf32>
    return %1 : tensor<8x56x56x32xf32>
  }
}
