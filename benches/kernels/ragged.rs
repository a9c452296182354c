//! The ragged-dot row of `benches/kernels.rs` (a module of it): `jax.lax.ragged_dot`'s mode,
//! lhs f32[4096, 512] split into 8 uneven groups of rows, rhs f32[8, 512, 512], against XLA:CPU
//! running JAX's own jitted lowering (`ragged_dot_4096x512x512_g8.mlir`, written by
//! `tests/stablehlo/export.py`: a mask over `[g, m, k]` and one dot contracting `g * k`, as
//! JAX lowers it on CPU). Ours: `xla_kernels::gemm::ragged`, one GEMM per group's rows.
//!
//! Measured (`XLA_ORACLE_PYTHON=... bash scripts/bench.sh kernels ragged_dot`, 2-core AMD EPYC
//! Zen 4 under KVM, load average 5-6 from other jobs): ours 32.9 ms (65 GFLOP/s), XLA:CPU
//! 555 ms, XLA/ours 16.9x. XLA's masked dot does `g` = 8 times the flops of one dense product.

use super::{data, lit, Bench, Work};
use xla_aot::__rt::xla_kernels::gemm::ragged::{ragged_dot, RaggedDesc, RaggedMode};
use xla_aot::__rt::xla_kernels::gemm::GemmScratch;

pub(super) fn ragged_rows(b: &mut Bench) {
    if !b.wants("ragged_dot") {
        return;
    }
    let (m, k, n) = (4096usize, 512usize, 512usize);
    // Uneven, one empty, summing to m.
    let sizes: [i32; 8] = [700, 300, 512, 0, 1024, 560, 500, 500];
    let g = sizes.len();
    let x = data(71, m * k);
    let w = data(72, g * k * n);
    let args = [
        lit(&[m, k], x.clone()),
        lit(&[g, k, n], w.clone()),
        lit(&[g], sizes.to_vec()),
    ];
    let d = RaggedDesc {
        mode: RaggedMode::Rows,
        batch: 1,
        m,
        k,
        n,
        groups: g,
        a: [m * k, k, 1],
        b: [k * n, n, 1],
        b_group: k * n,
        sizes_per_batch: false,
    };
    let mut out = vec![0.0f32; m * n];
    let mut s = GemmScratch::new();
    ragged_dot(&d, &x, &w, &sizes, &mut out, &mut s).expect("valid ragged dot");
    let res: Vec<f64> = out.iter().map(|&v| f64::from(v)).collect();
    let mut run = || ragged_dot(&d, &x, &w, &sizes, &mut out, &mut s).expect("valid ragged dot");
    b.row(
        "ragged_dot (mode 1, g=8)",
        "f32[4096,512] x f32[8,512,512]",
        "f32",
        include_str!("ragged_dot_4096x512x512_g8.mlir"),
        &args,
        // Sums of k = 512 products in different orders.
        4.0 * k as f64 * f64::from(f32::EPSILON),
        &mut || res.clone(),
        &mut run,
        Work::Flops(2.0 * (m * k * n) as f64),
    );
}
