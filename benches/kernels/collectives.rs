//! The AllReduce rows of `benches/kernels.rs` (a module of it, with its own table): a sum
//! (`CrossReplicaSum`, generated code) of f32[1M] and f32[16M] over 2 devices on our thread
//! transport, against XLA:CPU's all-reduce on 2 host devices (a second oracle process started
//! with 2 devices, the same StableHLO, `num_replicas = 2`), and a plain memcpy of the operand.
//! Every result is compared with XLA's (bit-equal: both fold the 2 devices in order) before
//! anything is timed. The MPI transport's figures come from `bash scripts/bench.sh mpi`
//! (`xla-kernels/examples/mpi_bench.rs`), which runs under `mpiexec`.
//!
//! Columns: median time per AllReduce (ours: device 0's own median inside one run of the
//! devices, so thread start-up is not counted; XLA: inside Python around `execute_sharded` and
//! every device's `block_until_ready`), XLA/ours, and the operand's bytes over each time.

use super::common::{data, fmt_time};
use std::time::Instant;

use xla_aot::kernels::collectives::ThreadRunner;
use xla_aot::{xla, CollectiveError, Collectives, Literal, Tensor, D1};
use xla_oracle::Oracle;

xla! {
    /// The sum over the devices of an f32[1M].
    fn all_reduce_1m(x: f32[1048576]) -> f32[1048576] {
        CrossReplicaSum(x)
    }
    /// The sum over the devices of an f32[16M].
    fn all_reduce_16m(x: f32[16777216]) -> f32[16777216] {
        CrossReplicaSum(x)
    }
}

/// Alternating rounds of ours and XLA's timings per row.
const ROUNDS: usize = 3;
/// Timed calls per side per round.
const CALLS: usize = 9;
/// Devices.
const DEVICES: u32 = 2;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Our AllReduce of a device's `x` into `out`.
type Run<const N: usize> = fn(
    &dyn Collectives,
    &Tensor<f32, D1<N>>,
    &mut Tensor<f32, D1<N>>,
) -> Result<(), CollectiveError>;

/// One row: `run(ctx, x, out)` is our AllReduce of device `d`'s `x` into `out`.
fn row<const N: usize>(oracle: &mut Oracle, name: &str, mlir: &str, run: Run<N>) {
    let inputs: Vec<Tensor<f32, D1<N>>> = (0..DEVICES)
        .map(|d| Tensor::from_vec(data(90 + u64::from(d), N)).expect("N values"))
        .collect();
    let args: Vec<Vec<Literal>> = inputs
        .iter()
        .map(|x| vec![Literal::from_vec(&[N as i64], x.as_slice().to_vec()).expect("f32[N]")])
        .collect();
    // Agreement first: every device's result equals XLA's, bit for bit.
    let xla = oracle
        .run_spmd(mlir, &args, DEVICES, 1)
        .unwrap_or_else(|e| panic!("{name}: XLA failed: {e}"));
    let ours = ThreadRunner::new(DEVICES, 1).run(|ctx| {
        let mut out = Tensor::<f32, D1<N>>::zeros();
        run(ctx, &inputs[ctx.device_id() as usize], &mut out)?;
        Ok(out.as_slice().to_vec())
    });
    for (d, (o, x)) in ours.into_iter().zip(&xla).enumerate() {
        let o = o.unwrap_or_else(|e| panic!("{name}: device {d}: {e}"));
        let want = Literal::from_vec(&[N as i64], o).expect("f32[N]");
        assert!(want == x[0], "{name}: device {d} differs from XLA");
    }
    let (mut t_ours, mut t_xla) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let times = ThreadRunner::new(DEVICES, 1).run(|ctx| {
            let mut out = Tensor::<f32, D1<N>>::zeros();
            let x = &inputs[ctx.device_id() as usize];
            run(ctx, x, &mut out)?;
            let mut t = Vec::with_capacity(CALLS);
            for _ in 0..CALLS {
                let start = Instant::now();
                run(ctx, x, &mut out)?;
                t.push(start.elapsed().as_secs_f64());
            }
            Ok(median(t))
        });
        t_ours.push(times[0].clone().unwrap_or_else(|e| panic!("{name}: {e}")));
        t_xla.push(
            oracle
                .time_spmd(mlir, &args, (DEVICES, 1), CALLS)
                .unwrap_or_else(|e| panic!("{name}: XLA timing failed: {e}")),
        );
    }
    let src = data(7, N);
    let mut dst = vec![0f32; N];
    let copy = median(
        (0..CALLS)
            .map(|_| {
                let t = Instant::now();
                dst.copy_from_slice(std::hint::black_box(&src));
                t.elapsed().as_secs_f64()
            })
            .collect(),
    );
    std::hint::black_box(&dst);
    let (o, x) = (median(t_ours), median(t_xla));
    let gbs = |t: f64| (N * 4) as f64 / t / 1e9;
    println!(
        "| {name:<28} | {:>10} | {:>10} | {:>8.2}x | {:>10} | {:>9.2} | {:>9.2} | {:>9.2} |",
        fmt_time(o),
        fmt_time(x),
        x / o,
        fmt_time(copy),
        gbs(o),
        gbs(x),
        gbs(copy)
    );
}

/// The AllReduce table (rows whose name contains `filter`, or all).
pub(super) fn collective_rows(filter: Option<&str>) {
    if filter.is_some_and(|f| !"all_reduce".contains(f)) {
        return;
    }
    let mut oracle = Oracle::start_spmd(DEVICES)
        .unwrap_or_else(|e| panic!("cannot start the XLA oracle with {DEVICES} devices: {e}"));
    println!(
        "\nAllReduce (sum) over {DEVICES} devices: ours on threads (generated code), XLA:CPU on {DEVICES} host devices\n"
    );
    println!(
        "| {:<28} | {:>10} | {:>10} | {:>9} | {:>10} | {:>9} | {:>9} | {:>9} |",
        "row", "ours", "XLA:CPU", "XLA/ours", "memcpy", "ours GB/s", "XLA GB/s", "copy GB/s"
    );
    println!(
        "|{:-<30}|{:-<12}|{:-<12}|{:-<11}|{:-<12}|{:-<11}|{:-<11}|{:-<11}|",
        "", "", "", "", "", "", "", ""
    );
    let spmd = |c: &xla_aot::core::Computation| {
        xla_aot::core::stablehlo::try_to_stablehlo_spmd(c, DEVICES, 1).expect("SPMD export")
    };
    row(
        &mut oracle,
        "all_reduce f32[1M], 2 devices",
        &spmd(&all_reduce_1m::computation()),
        |ctx, x, out| all_reduce_1m::into(ctx, x, out, &mut all_reduce_1m::Scratch::new()),
    );
    row(
        &mut oracle,
        "all_reduce f32[16M], 2 devices",
        &spmd(&all_reduce_16m::computation()),
        |ctx, x, out| all_reduce_16m::into(ctx, x, out, &mut all_reduce_16m::Scratch::new()),
    );
}
