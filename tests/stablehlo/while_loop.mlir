module @jit_while_loop attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xf32>, %arg1: tensor<i32>) -> (tensor<6xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:4 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %c, %iterArg_1 = %arg1, %iterArg_2 = %0) : tensor<6xf32>, tensor<i32>, tensor<i32>, tensor<6xf32>
    cond {
      %2 = stablehlo.compare LT, %iterArg_0, %iterArg_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %c_3 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %iterArg_0, %c_3 : tensor<i32>
      %3 = stablehlo.divide %iterArg, %iterArg_2 : tensor<6xf32>
      %4 = stablehlo.add %iterArg_2, %3 : tensor<6xf32>
      %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %5 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %6 = stablehlo.multiply %5, %4 : tensor<6xf32>
      stablehlo.return %iterArg, %2, %iterArg_1, %6 : tensor<6xf32>, tensor<i32>, tensor<i32>, tensor<6xf32>
    }
    return %1#3 : tensor<6xf32>
  }
}
