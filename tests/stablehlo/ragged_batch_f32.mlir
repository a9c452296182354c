module @jit_ragged_batch attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5x6xf32>, %arg1: tensor<4x6x3xf32>, %arg2: tensor<2xi32>) -> (tensor<4x5x3xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x5x6xf32>, tensor<4x6x3xf32>) -> tensor<4x5x3xf32>
    return %0 : tensor<4x5x3xf32>
  }
}
