//! XLA's operation set inside Rust, checked and compiled ahead of time.
//!
//! Write a tensor program with XLA's ops inside [`xla!`]. At compile time the macro infers every
//! shape with XLA's rules (the same shape inference as [`core::infer`]), turns each violation
//! into a compile error at the offending token, and expands the program into shape-specialised
//! SIMD loops that call the kernel library ([`kernels`]). The result is an ordinary Rust fn:
//! no Python, no JIT, nothing to install at run time.
//!
//! ```
//! use xla_aot::{xla, Tensor, D1, D2};
//!
//! xla! {
//!     /// A vector added to each row of a matrix: `out[i, j] = x[i, j] + v[j]`.
//!     pub fn add_rows(x: f32[2, 3], v: f32[3]) -> f32[2, 3] {
//!         Add(x, v, broadcast_dimensions = [1])
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let x: Tensor<f32, D2<2, 3>> = Tensor::from_vec(vec![1., 2., 3., 4., 5., 6.])?;
//! let v: Tensor<f32, D1<3>> = Tensor::from_vec(vec![10., 20., 30.])?;
//! let y = add_rows(&x, &v);
//! assert_eq!(y.as_slice(), &[11., 22., 33., 14., 25., 36.]);
//! assert_eq!(y.to_string(), "[[11. 22. 33.]\n [14. 25. 36.]]");
//! # Ok(())
//! # }
//! ```
//!
//! This crate is the one dependency a user adds: it re-exports the macro, the runtime
//! [`Tensor`] and its dimension markers ([`D0`] .. [`D8`]), the kernels ([`kernels`]) and the
//! core IR, evaluator and StableHLO export ([`core`]).
//!
//! # The language
//!
//! An `xla!` block holds any number of fns:
//!
//! ```text
//! [/// doc]  [pub] fn name(param: TYPE, ...) -> TYPE { let x = expr; ...; expr }
//! ```
//!
//! **Types** are XLA's HLO shape notation:
//!
//! | written | meaning | Rust tensor type |
//! |---|---|---|
//! | `f32[2, 3]` | 2x3 array of f32, row-major | `Tensor<f32, D2<2, 3>>` |
//! | `f32[]` | scalar (rank 0) | `Tensor<f32, D0>` |
//! | `f32[2, 3]{0, 1}` | with a layout (minor_to_major): here column-major | `Tensor<f32, D2<2, 3>, Mtm2<0, 1>>` |
//! | `(f32[2], s32[])` | a tuple | `(Tensor<f32, D1<2>>, Tensor<i32, D0>)` |
//!
//! An array parameter takes any [`AsView`] of its tensor type: `&Tensor<..>` or a
//! [`TensorView`] over the caller's own slice (length-checked, any alignment); a tuple
//! parameter takes a Rust tuple of them. Outputs of `into` take any [`AsViewMut`]:
//! `&mut Tensor<..>` or a [`TensorViewMut`].
//!
//! Element types: `pred` (`bool`), `s8 s16 s32 s64` (`i8`..`i64`), `u8 u16 u32 u64`, `f16`
//! and `bf16` ([`f16`](struct@f16), [`bf16`]), `f32 f64`, `c64 c128` ([`Complex<f32>`](Complex),
//! `Complex<f64>`). Ranks go up to 8.
//!
//! **Ops** are called by their names in XLA's operation semantics, operands positionally and
//! attributes as `name = value` with XLA's attribute names:
//!
//! ```text
//! Add(x, v, broadcast_dimensions = [1])          Transpose(x, permutation = [1, 0])
//! BroadcastInDim(v, out_dim_size = [2, 3], broadcast_dimensions = [1])
//! Reshape(x, new_sizes = [3, 2])                 Collapse(x, dimensions = [0, 1])
//! Iota(s32[4, 8], iota_dimension = 1)            Constant(f32[2, 2], [[1.0, 2.0], [3.0, 4.0]])
//! ConvertElementType(x, new_element_type = f64)  Compare(x, y, direction = LT)
//! DotGeneral(a, b, lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1],
//!            lhs_batch_dimensions = [0], rhs_batch_dimensions = [0])
//! Reduce(x, 0.0, dimensions = [1], |a, b| a + b)
//! GetTupleElement(t, index = 1)
//! ```
//!
//! **Sugar**: `+ - * / % & | ^ << >>`, unary `-` and `!`, and `== != < <= > >=` mean `Add Sub
//! Mul Div Rem And Or Xor ShiftLeft ShiftRightArithmetic` (`ShiftRightLogical` for unsigned),
//! `Neg Not` and `Eq Ne Lt Le Gt Ge` without `broadcast_dimensions`, so they follow the same
//! rules: equal dimensions, a scalar operand, or size-1 dimensions at equal rank. A literal without a suffix (`0.0`, `2`) takes
//! the element type of the other operand; with one (`2i32`, `0.5f64`) it must match it. Named
//! constants such as `f32::NEG_INFINITY` or `i32::MIN` are literals too.
//!
//! **Computations** (the reducer of `Reduce`) are closures `|a, b| a + b` whose parameter
//! types are inferred from the operands, closures with types `|a: f32[], i: s32[], ...| { ... }`,
//! or the name of another fn of the block.
//!
//! **Calls**: a fn may call another fn of the same block, `f(a, b)` or `Call(f, a, b)`;
//! recursion is an error. The call is inlined into the caller's loops.
//!
//! # What is generated
//!
//! For `pub fn name(...) -> R` the macro emits:
//!
//! - `pub fn name(impl AsView<..>, ...) -> Tensor<..>` (a tuple result is a Rust tuple),
//!   which allocates its result and its scratch, then runs the loops;
//! - `pub mod name` with
//!   - `Scratch`: the intermediate buffers (and GEMM packing space), allocated by
//!     `Scratch::new()` once and reused;
//!   - `into(inputs.., outputs.., &mut Scratch)`: the same computation writing into the
//!     caller's tensors or views (`impl AsViewMut`), allocating nothing; `into_views` is the
//!     same with concrete `TensorView`/`TensorViewMut` arguments (what `into` forwards to);
//!   - `computation()`: the checked IR ([`core::Computation`]), for the evaluator
//!     ([`core::eval::evaluate`]) or for building more programs;
//!   - `stablehlo()`: the program as StableHLO text (MLIR), for XLA;
//!   - `run_literals(&[Literal]) -> Result<Literal, core::Error>`: a dynamic entry for
//!     harnesses, which returns `Err` (naming the argument, the expected and the given shape)
//!     for any argument that does not fit.
//!
//! The fn's visibility and `///` docs are carried over to both.
//!
//! ```
//! use xla_aot::core::eval::evaluate;
//! use xla_aot::{xla, Literal, Tensor, TensorView, D1};
//!
//! xla! {
//!     /// `sum(x * y)`.
//!     pub fn dot3(x: f32[3], y: f32[3]) -> f32[] {
//!         Reduce(x * y, 0.0, dimensions = [0], |a, b| a + b)
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let x: Tensor<f32, D1<3>> = Tensor::from_vec(vec![1., 2., 3.])?;
//! let y: Tensor<f32, D1<3>> = Tensor::from_vec(vec![4., 5., 6.])?;
//! assert_eq!(dot3(&x, &y).value(), 32.);
//! // A view over data the caller already has: no copy.
//! let data = [0.5f32, 1., 2., 3.];
//! assert_eq!(dot3(TensorView::new(&data[1..])?, &y).value(), 32.);
//!
//! // In a loop: the scratch and the output are allocated once.
//! let mut out = Tensor::scalar(0.0f32);
//! let mut scratch = dot3::Scratch::new();
//! dot3::into(&x, &y, &mut out, &mut scratch);
//! assert_eq!(out.value(), 32.);
//!
//! // The IR, the reference evaluator, StableHLO and the literal entry agree.
//! let args = [x.to_literal(), y.to_literal()];
//! assert_eq!(evaluate(&dot3::computation(), &args)?, Literal::scalar(32.0f32));
//! assert!(dot3::stablehlo().contains("stablehlo.reduce"));
//! assert_eq!(dot3::run_literals(&args)?, Literal::scalar(32.0f32));
//! let wrong = dot3::run_literals(&[x.to_literal()]).unwrap_err();
//! assert_eq!(
//!     wrong.to_string(),
//!     "dot3: takes 2 arguments (x: f32[3], y: f32[3]), 1 given"
//! );
//! let wrong = dot3::run_literals(&[x.to_literal(), Literal::scalar(1.0f32)]).unwrap_err();
//! assert_eq!(
//!     wrong.to_string(),
//!     "dot3: argument 1 (`y`): expected f32[3], given f32[]: rank 0 instead of 1"
//! );
//! # Ok(())
//! # }
//! ```
//!
//! # Operations
//!
//! Every op below has shape inference with errors at compile time, the reference evaluator,
//! StableHLO export and generated code, tested against XLA:CPU on every element type XLA
//! allows.
//!
//! | family | ops | attributes |
//! |---|---|---|
//! | elementwise, one operand | `Abs Cbrt Ceil Clz Cos Cosh Erf Exp Expm1 Floor Imag IsFinite Log Log1p Logistic Neg Not PopulationCount Real RoundNearestAfz RoundNearestEven Rsqrt Sign Sin Sqrt Tan Tanh` | |
//! | elementwise, two operands | `Add Sub Mul Div Rem Max Min Pow Atan2 And Or Xor ShiftLeft ShiftRightArithmetic ShiftRightLogical Complex` | `broadcast_dimensions` |
//! | comparisons | `Eq Ne Ge Gt Le Lt`, the `*TotalOrder` variants, `Compare` | `broadcast_dimensions`; `Compare`: `direction = EQ\|NE\|GE\|GT\|LE\|LT`, `comparison_type = FLOAT\|TOTALORDER\|SIGNED\|UNSIGNED` (as XLA's verifier: FLOAT or TOTALORDER for floats, SIGNED/UNSIGNED for integers) |
//! | elementwise, three operands | `Select(pred, on_true, on_false)`, `Clamp(min, x, max)` | |
//! | conversions | `ConvertElementType`, `BitcastConvertType` | `new_element_type` |
//! | | `ReducePrecision` | `exponent_bits`, `mantissa_bits` |
//! | shapes | `Broadcast` | `broadcast_sizes` (new leading dims) |
//! | | `BroadcastInDim` | `out_dim_size`, `broadcast_dimensions` |
//! | | `Reshape` | `new_sizes`, optional `dimensions` (a transpose first) |
//! | | `Collapse` | `dimensions` (consecutive, merged into one) |
//! | | `Transpose` | `permutation` |
//! | | `Iota(TYPE, ..)` | `iota_dimension` |
//! | | `Constant(TYPE, [nested rows])` | |
//! | | `Rev` | `dimensions` |
//! | | `Slice` | `start_indices`, `limit_indices`, optional `strides` |
//! | | `Pad(x, value)` | `padding_config = [[low, high, interior], ..]` (negative edges cut) |
//! | | `ConcatInDim(operands..)` | `dimension` |
//! | reductions | `Reduce(operands.., inits.., computation)`, variadic | `dimensions` |
//! | sorting | `Sort(operands.., comparator)`, variadic | optional `dimension` (-1: last), `is_stable` |
//! | | `TopK(x)` | `k`, optional `largest` (default true) |
//! | indexing | `Gather(operand, start_indices)` (starts clamped into the operand) | `offset_dims`, `start_index_map`, `index_vector_dim`, `slice_sizes`, optional `collapsed_slice_dims`, `operand_batching_dims`, `start_indices_batching_dims`, `indices_are_sorted` |
//! | | `Scatter(operands.., scatter_indices, updates.., update_computation)`, variadic (windows outside the operand dropped, updates applied in index order) | `update_window_dims`, `scatter_dims_to_operand_dims`, `index_vector_dim`, optional `inserted_window_dims`, `input_batching_dims`, `scatter_indices_batching_dims`, `indices_are_sorted`, `unique_indices` |
//! | linear algebra | `Dot` | optional `preferred_element_type` |
//! | | `DotGeneral` | `lhs_contracting_dimensions`, `rhs_contracting_dimensions`, `lhs_batch_dimensions`, `rhs_batch_dimensions`, `preferred_element_type` |
//! | | `Conv`, `ConvWithGeneralDimensions` | `window_strides`, `padding = SAME\|VALID`, (`dimension_numbers = [NHWC, HWIO, NHWC]`), `feature_group_count`, `batch_group_count`, `preferred_element_type` |
//! | | `ConvWithGeneralPadding`, `ConvGeneral`, `ConvGeneralDilated` | `padding = [[low, high], ..]`, and for the dilated form `lhs_dilation`, `rhs_dilation`, `window_reversal` |
//! | structure | `Tuple`, `GetTupleElement`, `Call` | `GetTupleElement`: `index` |
//! | control flow | `While(condition, body, init)`, `Conditional(pred, x, f, y, g)`, `Conditional(index, [fs..], [xs..])` | |
//! | dynamic slices | `DynamicSlice(x, starts..)`, `DynamicUpdateSlice(x, update, starts..)` (starts clamped) | `slice_sizes` |
//! | windows | `ReduceWindow(operands.., inits.., computation)`, `SelectAndScatter(x, select, source, init, scatter)` | `window_dimensions`, `window_strides`, `padding = SAME\|VALID\|[[lo, hi], ..]`, `base_dilations`, `window_dilations` |
//! | scans, maps | `Scan(inputs.., inits.., to_apply)`, `Map(operands.., computation)` | `scan_dimension`, `is_reverse`; `dimensions` |
//! | normalization | `BatchNormTraining`, `BatchNormInference`, `BatchNormGrad` | `epsilon`, `feature_index` |
//! | factorisations, FFT | `Cholesky`, `TriangularSolve`, `Fft` | `lower`; `left_side`, `unit_diagonal`, `transpose_a`; `fft_type`, `fft_length` |
//! | random | `RngBitGenerator(state, TYPE)`, `RngUniform(a, b, TYPE)`, `RngNormal(mu, sigma, TYPE)` | `algorithm` |
//! | grouped and scaled dots | `RaggedDot(lhs, rhs, group_sizes)`, `ScaledDot(lhs, lhs_scale, rhs, rhs_scale)` | DotGeneral's, `lhs_ragged_dimensions`, `rhs_group_dimensions` |
//! | calls | `CustomCall(operands..)` (a Rust fn of yours), `CompositeCall(decomposition, operands..)` | `call_target_name`, `shape`; `name`, `attributes`, `version` |
//! | ordering, tokens | `OptimizationBarrier(operands..)`, `AfterAll(tokens..)` | |
//! | dynamic dimensions | `GetDimensionSize(x)`, `SetDimensionSize(x, size)`, `DynamicReshape(x, sizes..)`; types `f32[<=16, 8]` | `dimension`; `new_size_bounds`, `dims_are_dynamic` |
//! | collectives (SPMD) | `ReplicaId`, `PartitionId`, `AllReduce(operands..)`, `CrossReplicaSum`, `AllGather(operands..)`, `AllToAll(operands..)`, `ReduceScatter`, `CollectivePermute`, `CollectiveBroadcast`, `RaggedAllToAll(input, output, input_offsets, send_sizes, output_offsets, recv_sizes)` (the fn takes a [`Collectives`] context first) | `replica_groups`, `channel_id`, `use_global_device_ids`, `shard_count` (AllGather, ReduceScatter), ... |
//!
//! README.md's "Operations" table has each op's status and details.
//!
//! # Examples by family
//!
//! **Elementwise with broadcasting.** `broadcast_dimensions` maps each dimension of the
//! lower-rank operand to a dimension of the other, as XLA's `Add(lhs, rhs,
//! broadcast_dimensions)`; a scalar broadcasts without it.
//!
//! ```
//! use xla_aot::{xla, Tensor, D1, D2};
//!
//! xla! {
//!     /// `out[i, j] = (x[i, j] - c[i]) * 2 + 1`: a per-row shift, then scalar sugar.
//!     pub fn center_rows(x: f32[2, 3], c: f32[2]) -> f32[2, 3] {
//!         Sub(x, c, broadcast_dimensions = [0]) * 2.0 + 1.0
//!     }
//!
//!     /// Integer sugar: wrapping `*`, `>>` (arithmetic for signed), comparison into pred.
//!     pub fn int_ops(x: s32[4], y: s32[4]) -> (s32[4], pred[4]) {
//!         Tuple(x * y >> 1, x < y)
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let x: Tensor<f32, D2<2, 3>> = Tensor::from_vec(vec![1., 2., 3., 4., 5., 6.])?;
//! let c: Tensor<f32, D1<2>> = Tensor::from_vec(vec![1., 4.])?;
//! assert_eq!(center_rows(&x, &c).as_slice(), &[1., 3., 5., 1., 3., 5.]);
//!
//! let a: Tensor<i32, D1<4>> = Tensor::from_vec(vec![1, -3, 5, i32::MAX])?;
//! let b: Tensor<i32, D1<4>> = Tensor::from_vec(vec![2, 3, 1, 2])?;
//! let (p, lt) = int_ops(&a, &b);
//! assert_eq!(p.as_slice(), &[1, -5, 2, -1]); // i32::MAX * 2 wraps to -2
//! assert_eq!(lt.as_slice(), &[true, true, false, false]);
//! # Ok(())
//! # }
//! ```
//!
//! **Shapes.** Data movement never computes: broadcasts are read through stride 0 and
//! reshapes and transposes become index maps of the loop that consumes them.
//!
//! ```
//! use xla_aot::{xla, Tensor, D1, D2};
//!
//! xla! {
//!     /// `v` as the rows of a 2x3 matrix, plus the column index, transposed to 3x2.
//!     pub fn shapes(v: f32[3]) -> f32[3, 2] {
//!         let rows = BroadcastInDim(v, out_dim_size = [2, 3], broadcast_dimensions = [1]);
//!         let col = Iota(f32[2, 3], iota_dimension = 1);
//!         Transpose(rows + col, permutation = [1, 0])
//!     }
//!
//!     /// A row-major reinterpretation, scaled by a constant matrix.
//!     pub fn reshape_scale(x: s32[6]) -> s32[2, 3] {
//!         Reshape(x, new_sizes = [2, 3]) * Constant(s32[2, 3], [[1, 1, 1], [10, 10, 10]])
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let v: Tensor<f32, D1<3>> = Tensor::from_vec(vec![10., 20., 30.])?;
//! // rows + col = [[10, 21, 32], [10, 21, 32]], transposed.
//! assert_eq!(shapes(&v).as_slice(), &[10., 10., 21., 21., 32., 32.]);
//!
//! let x: Tensor<i32, D1<6>> = Tensor::from_vec(vec![1, 2, 3, 4, 5, 6])?;
//! let y: Tensor<i32, D2<2, 3>> = reshape_scale(&x);
//! assert_eq!(y.as_slice(), &[1, 2, 3, 40, 50, 60]);
//! # Ok(())
//! # }
//! ```
//!
//! **Conversions.** `ConvertElementType` converts values (floats to integers truncate toward
//! zero and saturate, NaN gives 0; narrowing floats rounds once to nearest even);
//! `BitcastConvertType` reinterprets bits, splitting a wider type into a new minor dimension;
//! `ReducePrecision` rounds to fewer exponent and mantissa bits in the same type.
//!
//! ```
//! use xla_aot::{xla, Tensor, D1};
//!
//! xla! {
//!     pub fn to_int(x: f32[4]) -> s32[4] { ConvertElementType(x, new_element_type = s32) }
//!     pub fn bytes(x: f32[1]) -> u8[1, 4] { BitcastConvertType(x, new_element_type = u8) }
//!     /// f32 rounded as if stored in f16 (5 exponent bits, 10 mantissa bits).
//!     pub fn like_f16(x: f32[2]) -> f32[2] {
//!         ReducePrecision(x, exponent_bits = 5, mantissa_bits = 10)
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let x: Tensor<f32, D1<4>> = Tensor::from_vec(vec![2.9, -2.9, f32::NAN, 1e10])?;
//! assert_eq!(to_int(&x).as_slice(), &[2, -2, 0, i32::MAX]);
//!
//! let one: Tensor<f32, D1<1>> = Tensor::from_vec(vec![1.0])?;
//! assert_eq!(bytes(&one).as_slice(), &1.0f32.to_le_bytes());
//!
//! let y: Tensor<f32, D1<2>> = Tensor::from_vec(vec![1.0 + 1.0 / 4096.0, 1e6])?;
//! assert_eq!(like_f16(&y).as_slice(), &[1.0, f32::INFINITY]);
//! # Ok(())
//! # }
//! ```
//!
//! **Reduce.** `Reduce(operands.., inits.., dimensions = [..], computation)` folds the listed
//! dimensions with the computation, starting from the init; the order of the fold is XLA's
//! business, so the computation should be associative and commutative. With N operands the
//! computation takes 2N scalars (N accumulators, then N elements) and returns a `Tuple` of N:
//! here an argmax that keeps the first index on ties, whatever the order.
//!
//! ```
//! use xla_aot::{xla, Tensor, D2};
//!
//! xla! {
//!     /// Row sums: `out[i] = sum_j x[i, j]`.
//!     pub fn row_sum(x: f32[2, 3]) -> f32[2] {
//!         Reduce(x, 0.0, dimensions = [1], |a, b| a + b)
//!     }
//!
//!     /// Per row, the maximum and its first index.
//!     pub fn argmax(x: f32[2, 3]) -> (f32[2], s32[2]) {
//!         Reduce(x, Iota(s32[2, 3], iota_dimension = 1), f32::NEG_INFINITY, 0,
//!             dimensions = [1],
//!             |a: f32[], i: s32[], b: f32[], j: s32[]| {
//!                 let keep = (a > b) | ((a == b) & (i < j));
//!                 Tuple(Select(keep, a, b), Select(keep, i, j))
//!             })
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let x: Tensor<f32, D2<2, 3>> = Tensor::from_vec(vec![1., 7., 7., 9., -1., 2.])?;
//! assert_eq!(row_sum(&x).as_slice(), &[15., 10.]);
//! let (max, idx) = argmax(&x);
//! assert_eq!(max.as_slice(), &[7., 9.]);
//! assert_eq!(idx.as_slice(), &[1, 0]);
//! # Ok(())
//! # }
//! ```
//!
//! **Dot and DotGeneral.** `Dot` is XLA's: vector-vector, matrix-vector and matrix-matrix
//! products over the last dimension of the lhs and the first of the rhs. `DotGeneral` names
//! contracting and batch dimensions; the result's dimensions are the batch dimensions, then
//! the lhs's free ones, then the rhs's. Both call the GEMM of [`kernels::gemm`].
//!
//! ```
//! use xla_aot::{xla, Tensor, D2, D3};
//!
//! xla! {
//!     pub fn matmul(a: f32[2, 3], b: f32[3, 2]) -> f32[2, 2] { Dot(a, b) }
//!
//!     /// `out[n, i, j] = sum_k a[n, k, i] * b[n, k, j]`: batched, lhs transposed.
//!     pub fn batched_at_b(a: f64[2, 3, 2], b: f64[2, 3, 1]) -> f64[2, 2, 1] {
//!         DotGeneral(a, b, lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1],
//!             lhs_batch_dimensions = [0], rhs_batch_dimensions = [0])
//!     }
//!
//!     /// s8 products summed in s32, as on integer hardware.
//!     pub fn int8_dot(a: s8[1, 2], b: s8[2, 1]) -> s32[1, 1] {
//!         Dot(a, b, preferred_element_type = s32)
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let a: Tensor<f32, D2<2, 3>> = Tensor::from_vec(vec![1., 2., 3., 4., 5., 6.])?;
//! let b: Tensor<f32, D2<3, 2>> = Tensor::from_vec(vec![1., 0., 0., 1., 1., 1.])?;
//! assert_eq!(matmul(&a, &b).as_slice(), &[4., 5., 10., 11.]);
//!
//! let a: Tensor<f64, D3<2, 3, 2>> = Tensor::from_fn(|i| (i[0] * 6 + i[1] * 2 + i[2]) as f64);
//! let b: Tensor<f64, D3<2, 3, 1>> = Tensor::filled(1.0);
//! // Column sums of each batch item: [[0+2+4, 1+3+5], [6+8+10, 7+9+11]].
//! assert_eq!(batched_at_b(&a, &b).as_slice(), &[6., 9., 24., 27.]);
//!
//! let x = Tensor::<i8, D2<1, 2>>::from_vec(vec![127, 127])?;
//! let y = Tensor::<i8, D2<2, 1>>::from_vec(vec![127, 127])?;
//! assert_eq!(int8_dot(&x, &y).as_slice(), &[2 * 127 * 127]);
//! # Ok(())
//! # }
//! ```
//!
//! **Tuples and calls.** `Tuple(..)` builds a tuple, `GetTupleElement(t, index = i)` takes
//! element `i`; tuple parameters and results are Rust tuples of tensors. A fn calls another fn
//! of its block by name or through `Call`, and a computation may be such a fn.
//!
//! ```
//! use xla_aot::{xla, Tensor, D0, D1};
//!
//! xla! {
//!     fn add(a: f32[], b: f32[]) -> f32[] { a + b }
//!
//!     /// The sum and the mean of a vector.
//!     pub fn stats(x: f32[4]) -> (f32[], f32[]) {
//!         let s = Reduce(x, 0.0, dimensions = [0], add);
//!         Tuple(s, s / 4.0)
//!     }
//!
//!     /// The mean of a tuple's first element plus its second.
//!     pub fn shifted_mean(t: (f32[4], f32[])) -> f32[] {
//!         let m = GetTupleElement(Call(stats, GetTupleElement(t, index = 0)), index = 1);
//!         add(m, GetTupleElement(t, index = 1))
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let x: Tensor<f32, D1<4>> = Tensor::from_vec(vec![1., 2., 3., 6.])?;
//! let (sum, mean) = stats(&x);
//! assert_eq!((sum.value(), mean.value()), (12., 3.));
//! let k: Tensor<f32, D0> = Tensor::scalar(2.0);
//! assert_eq!(shifted_mean((&x, &k)).value(), 5.);
//! # Ok(())
//! # }
//! ```
//!
//! **Dynamic dimensions.** A dimension written `<=N` has a runtime size up to its bound: the
//! parameter is a [`DynTensor`] (bounds as dims, a bit mask of the dynamic dimensions), whose
//! sizes are checked where it is built; the program runs padded to the bounds, as XLA's
//! DynamicPadder runs it, with reductions masking the padding.
//!
//! ```
//! use xla_aot::{xla, DynTensor, D1};
//!
//! xla! {
//!     /// The mean of up to 8 values.
//!     pub fn mean(x: f32[<=8]) -> f32[] {
//!         let n = ConvertElementType(GetDimensionSize(x, dimension = 0), new_element_type = f32);
//!         Div(Reduce(x, 0.0, dimensions = [0], |a, b| a + b), n)
//!     }
//! }
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let x = DynTensor::<f32, D1<8>, 0b1>::new(&[3], &[1.0, 2.0, 6.0])?;
//! assert_eq!(mean(&x).value(), 3.0);
//! assert!(DynTensor::<f32, D1<8>, 0b1>::new(&[9], &[0.0; 9]).is_err()); // beyond the bound
//! # Ok(())
//! # }
//! ```
//!
//! **A shape error is a compile error.** Here `Add` of ranks 2 and 1 without
//! `broadcast_dimensions`; rustc prints `Add: operands of rank 2 and 1 need
//! broadcast_dimensions (f32[2,3] vs f32[3])` with `help: broadcast_dimensions = [1]`, under
//! `v`. Every error of a block is reported, not only the first. Passing a tensor of the wrong
//! shape to a generated fn is a Rust type error, since dimensions are part of [`Tensor`]'s
//! type.
//!
//! ```compile_fail
//! use xla_aot::xla;
//!
//! xla! {
//!     pub fn add_rows(x: f32[2, 3], v: f32[3]) -> f32[2, 3] {
//!         Add(x, v)
//!     }
//! }
//! # fn main() {}
//! ```
//!
//! # StableHLO from JAX: [`stablehlo!`]
//!
//! A model exported from JAX (`jax.jit(f).lower(*args).as_text()`, or `jax.export`) compiles
//! into the same Rust as an `xla!` fn: the text is imported at compile time
//! ([`core::stablehlo::import`]), every op is checked by the same shape inference, and each
//! function becomes a fn with typed tensor arguments and the same companion module.
//!
//! ```text
//! stablehlo!(pub fn mlp = "models/mlp.mlir");            // @main (or `@symbol` after the path)
//! stablehlo!(pub mod classifier = "models/model.mlir");  // every public function: classifier::main
//! ```
//!
//! Paths are relative to the crate's manifest directory; the expansion `include_bytes!`es the
//! file, so editing it rebuilds the crate. `mlir "..."` takes the text itself:
//!
//! ```
//! use xla_aot::{stablehlo, Tensor, D1};
//!
//! stablehlo! {
//!     /// `2x + 1`, as JAX prints it.
//!     pub fn affine = mlir r#"
//!       func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = "result"}) {
//!         %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
//!         %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
//!         %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
//!         %1 = stablehlo.multiply %0, %arg0 : tensor<3xf32>
//!         %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3xf32>
//!         %3 = stablehlo.add %1, %2 : tensor<3xf32>
//!         return %3 : tensor<3xf32>
//!       }"#;
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let x: Tensor<f32, D1<3>> = Tensor::from_vec(vec![0., 1., 2.])?;
//! assert_eq!(affine(&x).as_slice(), &[1., 3., 5.]);
//! # Ok(())
//! # }
//! ```
//!
//! An unreadable file, a syntax error, an op, type or attribute the importer does not read, and
//! a shape error are compile errors at the path naming `file:line:column` in the text.
//!
//! # Run-time errors
//!
//! A generated fn's shapes are checked by rustc, so it cannot fail. Where data enters at run
//! time the entry returns `Err` naming what was expected and what was given, and never panics:
//! [`Tensor::from_vec`], [`Tensor::from_slice`] and [`Tensor::from_literal`]
//! ([`TensorError`]), [`Literal::from_vec`] and every `run_literals` ([`core::Error`]).
//!
//! # Building for speed
//!
//! The loops use `wide` vectors, whose width is chosen at compile time: build with
//! `RUSTFLAGS="-C target-cpu=native"` (or the oldest `target-cpu` you ship to, such as
//! `x86-64-v3`) for AVX2 and FMA; a default x86-64 build uses SSE2. Loops above
//! [`kernels::par::PAR_MIN_ELEMENTS`] elements run on rayon in fixed blocks, so results do not
//! depend on the thread count.

// Every public item states what it is (its maths, where it has some) in its first line.
#![deny(missing_docs)]

pub use xla_core as core;
pub use xla_kernels as kernels;
/// Tensors in and out of `.npy`, `.npz` and (feature `safetensors`) safetensors files.
pub use xla_kernels::io;
pub use xla_macros::{stablehlo, xla};

pub use xla_core::{ElementType, Literal, Shape};
/// The transport of an SPMD program's collectives (a generated fn whose program uses one takes
/// `ctx: &dyn Collectives` first) and its error; threads: [`kernels::collectives::run_threads`].
pub use xla_kernels::collectives::{CollectiveError, Collectives, HostQueues};

/// XLA's token: a value with no data that orders side effects. A program's `token` parameters
/// and results have this type; `AfterAll(tokens...)` joins tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Token;
pub use xla_kernels::tensor::*;

/// The 16-bit float element types `f16` (IEEE binary16) and `bf16` (bfloat16), from `half`.
pub use half::{bf16, f16};
/// The complex element type: `Complex<f32>` is `c64`, `Complex<f64>` is `c128`.
pub use num_complex::Complex;

/// Re-exports used by generated code; not a stable API.
#[doc(hidden)]
pub mod __rt {
    pub use half;
    pub use num_complex;
    pub use rayon;
    pub use wide;
    pub use xla_core;
    pub use xla_kernels;
}
