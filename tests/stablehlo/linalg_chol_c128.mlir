module @jit_cholesky attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x3xcomplex<f64>>) -> (tensor<2x3x3xcomplex<f64>> {jax.result_info = "result"}) {
    %0 = call @cholesky(%arg0) : (tensor<2x3x3xcomplex<f64>>) -> tensor<2x3x3xcomplex<f64>>
    return %0 : tensor<2x3x3xcomplex<f64>>
  }
  func.func private @cholesky(%arg0: tensor<2x3x3xcomplex<f64>>) -> tensor<2x3x3xcomplex<f64>> {
    %0 = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<2x3x3xcomplex<f64>>) -> tensor<2x3x3xcomplex<f64>>
    %1 = stablehlo.real %0 : (tensor<2x3x3xcomplex<f64>>) -> tensor<2x3x3xf64>
    %2 = stablehlo.imag %0 : (tensor<2x3x3xcomplex<f64>>) -> tensor<2x3x3xf64>
    %3 = stablehlo.negate %2 : tensor<2x3x3xf64>
    %4 = stablehlo.complex %1, %3 : tensor<2x3x3xcomplex<f64>>
    %5 = stablehlo.add %arg0, %4 : tensor<2x3x3xcomplex<f64>>
    %cst = stablehlo.constant dense<(2.000000e+00,0.000000e+00)> : tensor<complex<f64>>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<2x3x3xcomplex<f64>>
    %7 = stablehlo.divide %5, %6 : tensor<2x3x3xcomplex<f64>>
    %8:2 = stablehlo.custom_call @lapack_zpotrf_ffi(%7) {backend_config = "", mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i]) {i=2, j=3, k=3, l=3, m=3}, custom>} : (tensor<2x3x3xcomplex<f64>>) -> (tensor<2x3x3xcomplex<f64>>, tensor<2xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %10 = stablehlo.compare EQ, %8#1, %9, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %cst_0 = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f64>>) -> tensor<2x3x3xcomplex<f64>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x3x3xi1>
    %14 = stablehlo.select %13, %8#0, %12 : tensor<2x3x3xi1>, tensor<2x3x3xcomplex<f64>>
    %15 = stablehlo.iota dim = 0 : tensor<3x3xi64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %16 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<3x3xi64>
    %17 = stablehlo.add %15, %16 : tensor<3x3xi64>
    %18 = stablehlo.iota dim = 1 : tensor<3x3xi64>
    %19 = stablehlo.compare GE, %17, %18, SIGNED : (tensor<3x3xi64>, tensor<3x3xi64>) -> tensor<3x3xi1>
    %20 = stablehlo.broadcast_in_dim %19, dims = [1, 2] : (tensor<3x3xi1>) -> tensor<2x3x3xi1>
    %cst_2 = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f64>>
    %21 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<complex<f64>>) -> tensor<2x3x3xcomplex<f64>>
    %22 = stablehlo.select %20, %14, %21 : tensor<2x3x3xi1>, tensor<2x3x3xcomplex<f64>>
    return %22 : tensor<2x3x3xcomplex<f64>>
  }
}
