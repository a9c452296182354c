//! Bytes/s of the MPI transport's exchanges against a plain memcpy (feature `mpi`):
//! `bash scripts/bench.sh mpi`, or `mpiexec -n 2 target/.../examples/mpi_bench`.
//!
//! Per size f32[N] (N = 1M, 16M), each row is the median over repetitions of the slowest
//! rank's time (a barrier before each), and GB/s = 4N bytes / time (the "algorithm bandwidth"
//! of NCCL's tests: how fast an f32[N] operand is all-gathered or all-reduced):
//! - memcpy of 4N bytes on one rank;
//! - all_gather of each device's f32[N] (MPI_Allgather, and the trait's send/recv bodies);
//! - all-reduce of f32[N] as the collective ops run it: all_to_all of N/g-element chunks, each
//!   device sums its chunk over the group in group order, all_gather of the sums (on MPI's
//!   collectives, and on send/recv);
//! - MPI_Allreduce(MPI_SUM) on the same f32[N], and whether its bits equal ours.

use std::time::Instant;

use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::CommunicatorCollectives;
use xla_core::spmd::{CollectiveError, Collectives, DeviceId, MessagesOnly};
use xla_kernels::collectives::mpi::MpiCollectives;

fn main() -> Result<(), CollectiveError> {
    let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Serialized)
        .ok_or_else(|| CollectiveError::Transport("MPI already initialised".into()))?;
    let world = universe.world();
    let c = MpiCollectives::on(&world, 1)?;
    let (me, g) = (c.device_id(), c.num_devices() as usize);
    let group: Vec<DeviceId> = (0..g as u32).collect();
    if me == 0 {
        let (major, minor) = mpi::environment::version();
        let library = mpi::environment::library_version().unwrap_or_default();
        println!(
            "MPI {major}.{minor}, {}",
            library.lines().next().unwrap_or("")
        );
        println!("{g} ranks, CPU: {}", cpu_model());
        println!(
            "{:<46} {:>9} {:>10} {:>8} {:>10}",
            "exchange", "size", "time ms", "GB/s", "x memcpy"
        );
    }
    for mega in [1usize, 16] {
        let n = mega << 20;
        let reps = if n > 1 << 20 { 7 } else { 21 };
        let n = n - n % g; // all_to_all splits f32[N] into g equal chunks
                           // Magnitudes from 1e-3 to 1e3, so that a different summation order changes bits.
        let x: Vec<f32> = (0..n)
            .map(|i| {
                let m = ((i * 7 + me as usize * 13) % 1000) as f32 * 0.001 + 0.1;
                m * 10f32.powi(((i + 3 * me as usize) % 7) as i32 - 3)
            })
            .collect();
        let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut copy = vec![0u8; bytes.len()];
        let memcpy = time(&world, reps, || {
            copy.copy_from_slice(&bytes);
            std::hint::black_box(&mut copy);
        });
        let row = |name: &str, t: f64| {
            if me == 0 {
                let gbs = bytes.len() as f64 / t / 1e9;
                let size = format!("f32[{mega}M]");
                println!(
                    "{name:<46} {size:>9} {:>10.3} {gbs:>8.2} {:>10.2}",
                    t * 1e3,
                    memcpy / t
                );
            }
        };
        row("memcpy (one rank)", memcpy);
        let mut gathered = vec![0u8; bytes.len() * g];
        let t = time(&world, reps, || {
            c.all_gather(&group, &bytes, &mut gathered).unwrap()
        });
        row("all_gather (MPI_Allgather)", t);
        let t = time(&world, reps, || {
            MessagesOnly(&c)
                .all_gather(&group, &bytes, &mut gathered)
                .unwrap()
        });
        row("all_gather (send/recv)", t);

        let mut parts = vec![0u8; bytes.len()];
        let t = time(&world, reps, || {
            c.all_to_all(&group, &bytes, &mut parts).unwrap()
        });
        row("all_to_all (MPI_Alltoall)", t);
        let t = time(&world, reps, || {
            MessagesOnly(&c)
                .all_to_all(&group, &bytes, &mut parts)
                .unwrap()
        });
        row("all_to_all (send/recv)", t);
        let mut b = Buffers {
            parts: vec![0; bytes.len()],
            sum: vec![0; bytes.len() / g],
            out: vec![0; bytes.len()],
        };
        let t = time(&world, reps, || {
            sum_chunks(&bytes, bytes.len() / g, &mut b.sum)
        });
        row("local sum of the g chunks (no exchange)", t);
        let t = time(&world, reps, || all_reduce(&c, &group, &bytes, &mut b));
        row("all-reduce: all_to_all+sum+all_gather (MPI)", t);
        let t = time(&world, reps, || {
            all_reduce(&MessagesOnly(&c), &group, &bytes, &mut b)
        });
        row("all-reduce: all_to_all+sum+all_gather (s/r)", t);
        let ours: Vec<f32> = b
            .out
            .chunks_exact(4)
            .map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let mut theirs = vec![0f32; n];
        let t = time(&world, reps, || {
            world.all_reduce_into(&x[..], &mut theirs[..], SystemOperation::sum())
        });
        row("MPI_Allreduce(MPI_SUM)", t);
        let same = ours
            .iter()
            .zip(&theirs)
            .all(|(a, b)| a.to_bits() == b.to_bits());
        if me == 0 {
            println!("  MPI_SUM bits equal to the group-order sum: {same}");
        }
    }
    Ok(())
}

/// Buffers of one all-reduce, allocated once (the benchmark times exchanges, not page faults).
struct Buffers {
    parts: Vec<u8>,
    sum: Vec<u8>,
    out: Vec<u8>,
}

/// AllReduce(sum) of the f32s in `x` (little-endian bytes) into `b.out`, as the collective ops
/// compute it: device `me` sums chunk `me` of every device's `x` in group order, then every
/// device gathers the sums.
fn all_reduce(c: &impl Collectives, group: &[DeviceId], x: &[u8], b: &mut Buffers) {
    let chunk = x.len() / group.len();
    c.all_to_all(group, x, &mut b.parts).unwrap();
    sum_chunks(&b.parts, chunk, &mut b.sum);
    c.all_gather(group, &b.sum, &mut b.out).unwrap();
}

/// `sum` = the f32 sum of the `chunk`-byte chunks of `parts`, added in order.
fn sum_chunks(parts: &[u8], chunk: usize, sum: &mut [u8]) {
    sum.copy_from_slice(&parts[..chunk]);
    for part in parts.chunks_exact(chunk).skip(1) {
        for (s, v) in sum.chunks_exact_mut(4).zip(part.chunks_exact(4)) {
            let a = f32::from_le_bytes([s[0], s[1], s[2], s[3]]);
            let v = f32::from_le_bytes([v[0], v[1], v[2], v[3]]);
            s.copy_from_slice(&(a + v).to_le_bytes());
        }
    }
}

/// The median over `reps` runs of the slowest rank's time of `f`, in seconds.
fn time(world: &SimpleCommunicator, reps: usize, mut f: impl FnMut()) -> f64 {
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        world.barrier();
        let start = Instant::now();
        f();
        let mine = start.elapsed().as_secs_f64();
        let mut slowest = 0.0f64;
        world.all_reduce_into(&mine, &mut slowest, SystemOperation::max());
        times.push(slowest);
    }
    times.sort_by(f64::total_cmp);
    times[reps / 2]
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("model name"))?;
            Some(line.split(':').nth(1)?.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}
