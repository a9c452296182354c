module @jit_encoder attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x32xf32>, %arg1: tensor<32x96xf32>, %arg2: tensor<32x32xf32>, %arg3: tensor<32xf32>, %arg4: tensor<32xf32>, %arg5: tensor<32x64xf32>, %arg6: tensor<64xf32>, %arg7: tensor<64x32xf32>, %arg8: tensor<32xf32>, %arg9: tensor<32xf32>, %arg10: tensor<32xf32>) -> (tensor<16x32xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x96xf32>) -> tensor<16x96xf32>
    %1 = stablehlo.slice %0 [0:16, 0:32] : (tensor<16x96xf32>) -> tensor<16x32xf32>
    %2 = stablehlo.slice %0 [0:16, 32:64] : (tensor<16x96xf32>) -> tensor<16x32xf32>
    %3 = stablehlo.slice %0 [0:16, 64:96] : (tensor<16x96xf32>) -> tensor<16x32xf32>
    %4 = stablehlo.reshape %1 : (tensor<16x32xf32>) -> tensor<16x4x8xf32>
    %5 = stablehlo.transpose %4, dims = [1, 0, 2] : (tensor<16x4x8xf32>) -> tensor<4x16x8xf32>
    %6 = stablehlo.reshape %2 : (tensor<16x32xf32>) -> tensor<16x4x8xf32>
    %7 = stablehlo.transpose %6, dims = [1, 0, 2] : (tensor<16x4x8xf32>) -> tensor<4x16x8xf32>
    %8 = stablehlo.reshape %3 : (tensor<16x32xf32>) -> tensor<16x4x8xf32>
    %9 = stablehlo.transpose %8, dims = [1, 0, 2] : (tensor<16x4x8xf32>) -> tensor<4x16x8xf32>
    %10 = stablehlo.transpose %7, dims = [0, 2, 1] : (tensor<4x16x8xf32>) -> tensor<4x8x16xf32>
    %11 = stablehlo.dot_general %5, %10, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x16x8xf32>, tensor<4x8x16xf32>) -> tensor<4x16x16xf32>
    %cst = stablehlo.constant dense<2.82842708> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x16x16xf32>
    %13 = stablehlo.divide %11, %12 : tensor<4x16x16xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %14 = stablehlo.reduce(%13 init: %cst_0) applies stablehlo.maximum across dimensions = [2] : (tensor<4x16x16xf32>, tensor<f32>) -> tensor<4x16xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %16 = stablehlo.maximum %15, %14 : tensor<4x16xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1] : (tensor<4x16xf32>) -> tensor<4x16x1xf32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1, 2] : (tensor<4x16x1xf32>) -> tensor<4x16x16xf32>
    %19 = stablehlo.subtract %13, %18 : tensor<4x16x16xf32>
    %20 = stablehlo.exponential %19 : tensor<4x16x16xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %21 = stablehlo.reduce(%20 init: %cst_2) applies stablehlo.add across dimensions = [2] : (tensor<4x16x16xf32>, tensor<f32>) -> tensor<4x16xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1] : (tensor<4x16xf32>) -> tensor<4x16x1xf32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0, 1, 2] : (tensor<4x16x1xf32>) -> tensor<4x16x16xf32>
    %24 = stablehlo.divide %20, %23 : tensor<4x16x16xf32>
    %25 = stablehlo.dot_general %24, %9, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x16x16xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
    %26 = stablehlo.transpose %25, dims = [1, 0, 2] : (tensor<4x16x8xf32>) -> tensor<16x4x8xf32>
    %27 = stablehlo.reshape %26 : (tensor<16x4x8xf32>) -> tensor<16x32xf32>
    %28 = stablehlo.dot_general %27, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
    %29 = stablehlo.add %arg0, %28 : tensor<16x32xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %30 = stablehlo.reduce(%29 init: %cst_3) applies stablehlo.add across dimensions = [1] : (tensor<16x32xf32>, tensor<f32>) -> tensor<16xf32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [0] : (tensor<16xf32>) -> tensor<16x1xf32>
    %cst_4 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<16x1xf32>
    %33 = stablehlo.divide %31, %32 : tensor<16x1xf32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x32xf32>
    %35 = stablehlo.subtract %29, %34 : tensor<16x32xf32>
    %36 = chlo.square %35 : tensor<16x32xf32> -> tensor<16x32xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %37 = stablehlo.reduce(%36 init: %cst_5) applies stablehlo.add across dimensions = [1] : (tensor<16x32xf32>, tensor<f32>) -> tensor<16xf32>
    %38 = stablehlo.broadcast_in_dim %37, dims = [0] : (tensor<16xf32>) -> tensor<16x1xf32>
    %cst_6 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<16x1xf32>
    %40 = stablehlo.divide %38, %39 : tensor<16x1xf32>
    %41 = stablehlo.broadcast_in_dim %33, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x32xf32>
    %42 = stablehlo.subtract %29, %41 : tensor<16x32xf32>
    %cst_7 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<16x1xf32>
    %44 = stablehlo.add %40, %43 : tensor<16x1xf32>
    %45 = stablehlo.rsqrt %44 : tensor<16x1xf32>
    %46 = stablehlo.broadcast_in_dim %45, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x32xf32>
    %47 = stablehlo.multiply %42, %46 : tensor<16x32xf32>
    %48 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %49 = stablehlo.broadcast_in_dim %48, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<16x32xf32>
    %50 = stablehlo.multiply %47, %49 : tensor<16x32xf32>
    %51 = stablehlo.broadcast_in_dim %arg4, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %52 = stablehlo.broadcast_in_dim %51, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<16x32xf32>
    %53 = stablehlo.add %50, %52 : tensor<16x32xf32>
    %54 = stablehlo.dot_general %53, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
    %55 = stablehlo.broadcast_in_dim %arg6, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %56 = stablehlo.broadcast_in_dim %55, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %57 = stablehlo.add %54, %56 : tensor<16x64xf32>
    %cst_8 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %58 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %59 = stablehlo.multiply %58, %57 : tensor<16x64xf32>
    %60 = stablehlo.negate %57 : tensor<16x64xf32>
    %cst_9 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %62 = stablehlo.multiply %60, %61 : tensor<16x64xf32>
    %63 = chlo.erfc %62 : tensor<16x64xf32> -> tensor<16x64xf32>
    %64 = stablehlo.multiply %59, %63 : tensor<16x64xf32>
    %65 = stablehlo.dot_general %64, %arg7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
    %66 = stablehlo.broadcast_in_dim %arg8, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %67 = stablehlo.broadcast_in_dim %66, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<16x32xf32>
    %68 = stablehlo.add %65, %67 : tensor<16x32xf32>
    %69 = stablehlo.add %53, %68 : tensor<16x32xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %70 = stablehlo.reduce(%69 init: %cst_10) applies stablehlo.add across dimensions = [1] : (tensor<16x32xf32>, tensor<f32>) -> tensor<16xf32>
    %71 = stablehlo.broadcast_in_dim %70, dims = [0] : (tensor<16xf32>) -> tensor<16x1xf32>
    %cst_11 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<16x1xf32>
    %73 = stablehlo.divide %71, %72 : tensor<16x1xf32>
    %74 = stablehlo.broadcast_in_dim %73, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x32xf32>
    %75 = stablehlo.subtract %69, %74 : tensor<16x32xf32>
    %76 = chlo.square %75 : tensor<16x32xf32> -> tensor<16x32xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %77 = stablehlo.reduce(%76 init: %cst_12) applies stablehlo.add across dimensions = [1] : (tensor<16x32xf32>, tensor<f32>) -> tensor<16xf32>
    %78 = stablehlo.broadcast_in_dim %77, dims = [0] : (tensor<16xf32>) -> tensor<16x1xf32>
    %cst_13 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<16x1xf32>
    %80 = stablehlo.divide %78, %79 : tensor<16x1xf32>
    %81 = stablehlo.broadcast_in_dim %73, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x32xf32>
    %82 = stablehlo.subtract %69, %81 : tensor<16x32xf32>
    %cst_14 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<16x1xf32>
    %84 = stablehlo.add %80, %83 : tensor<16x1xf32>
    %85 = stablehlo.rsqrt %84 : tensor<16x1xf32>
    %86 = stablehlo.broadcast_in_dim %85, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x32xf32>
    %87 = stablehlo.multiply %82, %86 : tensor<16x32xf32>
    %88 = stablehlo.broadcast_in_dim %arg9, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %89 = stablehlo.broadcast_in_dim %88, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<16x32xf32>
    %90 = stablehlo.multiply %87, %89 : tensor<16x32xf32>
    %91 = stablehlo.broadcast_in_dim %arg10, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %92 = stablehlo.broadcast_in_dim %91, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<16x32xf32>
    %93 = stablehlo.add %90, %92 : tensor<16x32xf32>
    return %93 : tensor<16x32xf32>
  }
}
