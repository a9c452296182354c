module @jit_classifier attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x4xf32>) -> (tensor<5x3xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<[[0.0628651082, -0.0660524294, 0.320211321, 0.0524500571, -0.267834693, 0.180797532, 6.520000e-01, 0.473540485, -0.351867616, -0.632710754, -0.311637223, 0.0206629895, -1.1625154, -0.109395832, -0.622955501, -0.36613369], [-0.272129506, -0.158150077, 0.205815271, 0.521256685, -0.0642673299, 0.683231711, -0.332597345, 0.175755039, 0.451735079, 0.0470061488, -0.37174964, -0.460862696, -0.228862911, 0.110097565, -0.504809082, -0.104587786], [-0.0796125084, 0.270422786, 0.107329562, 0.177686349, -0.32691431, -0.064806819, 0.391987741, 0.746715545, -0.629532754, 0.756961882, 0.672937691, 0.390655696, 0.132227808, -0.156961411, 0.729010344, 0.980129182], [0.900817453, 0.657551885, 0.17869021, -0.604159296, -0.00222706655, 0.328237474, -0.644180715, 0.197561026, 0.214931846, 0.348021358, -0.592058957, -0.330851287, -0.218217626, -5.849010e-01, 0.869683921, -0.247955367]]> : tensor<4x16xf32>
    %cst_0 = stablehlo.constant dense<[0.032896962, -0.0258572549, 0.158347294, 0.132036105, 0.0633352622, -0.220350981, 0.00520289736, 0.0683686212, 0.100396156, -0.0617907047, 0.182201132, -0.132043093, -6.615280e-02, 0.0935049951, 0.00490546133, 0.200239256]> : tensor<16xf32>
    %cst_1 = stablehlo.constant dense<[[0.0942595973, -0.316597044, -0.188781753], [-0.545573056, -0.638840079, 0.315205753], [0.290582895, 0.647279382, -0.377302885], [0.844553709, -0.143693849, 0.787204146], [-0.216392919, -0.367741644, 0.124892689], [0.515726566, 0.0805047899, -0.292764425], [-0.670609832, -0.700760126, 0.251341432], [0.494856507, -0.0821472927, -0.53718245], [0.436521083, -0.640196979, -0.356534034], [0.310508937, -1.12507057, 0.193184793], [-0.29082042, 0.0546398498, -0.0378507636], [0.101057194, 0.347085983, -0.379184872], [7.104910e-01, 0.363046885, 0.421866328], [5.824320e-01, 0.393794119, 0.42203933], [0.0377968065, -0.713386952, -0.0675225481], [-0.38475731, -0.711370885, 0.129226401]]> : tensor<16x3xf32>
    %cst_2 = stablehlo.constant dense<[-0.0568549447, -0.102980442, -0.104300112]> : tensor<3xf32>
    %0 = stablehlo.dot_general %arg0, %cst, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x4xf32>, tensor<4x16xf32>) -> tensor<5x16xf32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<5x16xf32>
    %3 = stablehlo.add %0, %2 : tensor<5x16xf32>
    %4 = stablehlo.tanh %3 : tensor<5x16xf32>
    %5 = stablehlo.dot_general %4, %cst_1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x16xf32>, tensor<16x3xf32>) -> tensor<5x3xf32>
    %6 = stablehlo.broadcast_in_dim %cst_2, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<5x3xf32>
    %8 = stablehlo.add %5, %7 : tensor<5x3xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %9 = stablehlo.reduce(%8 init: %cst_3) applies stablehlo.maximum across dimensions = [1] : (tensor<5x3xf32>, tensor<f32>) -> tensor<5xf32>
    %cst_4 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %11 = stablehlo.maximum %10, %9 : tensor<5xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x3xf32>
    %14 = stablehlo.subtract %8, %13 : tensor<5x3xf32>
    %15 = stablehlo.exponential %14 : tensor<5x3xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.reduce(%15 init: %cst_5) applies stablehlo.add across dimensions = [1] : (tensor<5x3xf32>, tensor<f32>) -> tensor<5xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x3xf32>
    %19 = stablehlo.divide %15, %18 : tensor<5x3xf32>
    return %19 : tensor<5x3xf32>
  }
}
