//! Speed of transpose, sort and reduce (median of several runs), for tuning:
//! `RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR=target/native cargo run --release -p
//! xla-kernels --example k3a_speed [filter]`. The comparison with XLA is in the workspace bench.

use std::time::Instant;

use xla_kernels::aligned::AlignedBuf;

/// User + system CPU seconds of this process (all threads).
#[cfg(target_os = "linux")]
fn cpu_secs() -> f64 {
    // SAFETY: `getrusage` only writes the `rusage` we pass, a plain-data struct for which all
    // zero bytes are a valid value.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a live `rusage`, RUSAGE_SELF is a valid `who`.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    t(u.ru_utime) + t(u.ru_stime)
}

/// Best-of-`reps` process CPU time of `f` (CPU=1): on a loaded shared machine, less disturbed
/// by descheduling than wall time (rayon's idle spinning is included).
#[cfg(target_os = "linux")]
fn best_cpu_secs(mut f: impl FnMut(), reps: usize) -> f64 {
    f();
    (0..reps)
        .map(|_| {
            let s = cpu_secs();
            f();
            cpu_secs() - s
        })
        .fold(f64::INFINITY, f64::min)
}

fn median_secs(mut f: impl FnMut(), reps: usize) -> f64 {
    #[cfg(target_os = "linux")]
    if std::env::var("CPU").is_ok() {
        return best_cpu_secs(f, reps);
    }
    f();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(|a, b| a.total_cmp(b));
    // BEST=1: the fastest run (on a shared, loaded machine the closest to the quiet speed).
    if std::env::var("BEST").is_ok() {
        t[0]
    } else {
        t[reps / 2]
    }
}

/// Prototype: dst row blocks of `ti` rows per task, 16 source rows x 8 columns per step (two
/// 8x8 register transposes), each destination row written as one whole 64-byte line.
fn transpose_proto(src: &[f32], n: usize, dst: &mut [f32], ti: usize, nt: bool) {
    use rayon::prelude::*;
    use wide::f32x8;
    dst.par_chunks_mut(ti * n)
        .enumerate()
        .for_each(|(t, chunk)| {
            let i0 = t * ti;
            for jb in (0..n).step_by(16) {
                let rows: [&[f32]; 16] = std::array::from_fn(|jj| &src[(jb + jj) * n + i0..][..ti]);
                for ib in (0..ti).step_by(8) {
                    let a = f32x8::transpose(std::array::from_fn(|jj| {
                        f32x8::new(rows[jj][ib..ib + 8].try_into().unwrap())
                    }));
                    let b = f32x8::transpose(std::array::from_fn(|jj| {
                        f32x8::new(rows[8 + jj][ib..ib + 8].try_into().unwrap())
                    }));
                    for ii in 0..8 {
                        let o = &mut chunk[(ib + ii) * n + jb..][..16];
                        if nt {
                            #[cfg(target_arch = "x86_64")]
                            unsafe {
                                use std::arch::x86_64::*;
                                let p = o.as_mut_ptr();
                                let (x, y) = (a[ii].as_array(), b[ii].as_array());
                                _mm_stream_ps(p, _mm_loadu_ps(x.as_ptr()));
                                _mm_stream_ps(p.add(4), _mm_loadu_ps(x.as_ptr().add(4)));
                                _mm_stream_ps(p.add(8), _mm_loadu_ps(y.as_ptr()));
                                _mm_stream_ps(p.add(12), _mm_loadu_ps(y.as_ptr().add(4)));
                            }
                        } else {
                            o[..8].copy_from_slice(a[ii].as_array());
                            o[8..].copy_from_slice(b[ii].as_array());
                        }
                    }
                }
            }
            #[cfg(target_arch = "x86_64")]
            unsafe {
                std::arch::x86_64::_mm_sfence()
            };
        });
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let n = 4096;
    // Huge-page-aligned buffers, as the tensors generated code passes (see aligned.rs).
    let src = AlignedBuf::from_fn(n * n, |i| (i % 1013) as f32 * 0.25 - 100.0);
    let mut dst = AlignedBuf::filled(0f32, n * n);
    let bytes = (2 * n * n * 4) as f64;
    if "transpose".contains(&filter) {
        let want = {
            xla_kernels::transpose::transpose(&src, &[n, n], &[1, 0], &mut dst).unwrap();
            dst.to_vec()
        };
        for round in 0..2 {
            let t = median_secs(
                || xla_kernels::transpose::transpose(&src, &[n, n], &[1, 0], &mut dst).unwrap(),
                9,
            );
            println!(
                "transpose f32[{n},{n}]  {:8.3} ms  {:6.1} GB/s (read+write)",
                t * 1e3,
                bytes / t / 1e9
            );
            if std::env::var("PROTO").is_ok() {
                for ti in [32usize, 64, 128, 256] {
                    for nt in [false, true] {
                        dst.fill(0.0);
                        transpose_proto(&src, n, &mut dst, ti, nt);
                        assert!(dst[..] == want[..]);
                        let t = median_secs(|| transpose_proto(&src, n, &mut dst, ti, nt), 9);
                        println!(
                            "  proto ti={ti} nt={nt}  {:8.3} ms  {:6.1} GB/s",
                            t * 1e3,
                            bytes / t / 1e9
                        );
                    }
                }
            }
            let t = median_secs(|| dst.copy_from_slice(&src), 9);
            println!(
                "memcpy f32[{n},{n}]     {:8.3} ms  {:6.1} GB/s (read+write)",
                t * 1e3,
                bytes / t / 1e9
            );
            if round == 1 {
                break;
            }
        }
    }
    let gbs = |t: f64, bytes: f64| bytes / t / 1e9;
    if "reduce".contains(&filter) {
        use xla_kernels::reduce::{reduce_fast, ReduceOp};
        let mut out = vec![0f32; n];
        let bytes = (n * n * 4) as f64;
        // The machine's read speed: two threads summing the buffer's bits as integers
        // (vectorised by the compiler, no float dependency chain), blocks of 256 KiB.
        let read = || {
            use rayon::prelude::*;
            src.par_chunks(1 << 16)
                .map(|c| c.iter().fold(0u32, |a, x| a.wrapping_add(x.to_bits())))
                .reduce(|| 0, u32::wrapping_add)
        };
        for round in 0..2 {
            let t = median_secs(
                || {
                    std::hint::black_box(read());
                },
                9,
            );
            println!(
                "memory read f32[{n},{n}]  {:8.3} ms  {:6.1} GB/s (read)",
                t * 1e3,
                gbs(t, bytes)
            );
            for (name, rd) in [("row sum", 1usize), ("column sum", 0)] {
                let t = median_secs(
                    || reduce_fast(&src, &[n, n], &[rd], ReduceOp::Sum, 0.0, &mut out).unwrap(),
                    9,
                );
                println!(
                    "{name} f32[{n},{n}]  {:8.3} ms  {:6.1} GB/s (read)",
                    t * 1e3,
                    gbs(t, bytes)
                );
            }
            if round == 1 {
                break;
            }
        }
        let mut one = [0f32];
        let t = median_secs(
            || reduce_fast(&src, &[n, n], &[0, 1], ReduceOp::Sum, 0.0, &mut one).unwrap(),
            9,
        );
        println!(
            "full sum f32[{n},{n}]  {:8.3} ms  {:6.1} GB/s (read)",
            t * 1e3,
            gbs(t, bytes)
        );
    }
    if "sort".contains(&filter) {
        use xla_kernels::sort::{sort, Order};
        let m = 1 << 20;
        let mut s = 0x9e3779b97f4a7c15u64;
        let data: Vec<f32> = (0..m)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s % 2_000_003) as f32 * 1e-3 - 1000.0
            })
            .collect();
        let mut work = data.clone();
        let t = median_secs(
            || {
                work.copy_from_slice(&data);
                sort(&mut work, &[m], 0, Order::Ascending).unwrap()
            },
            9,
        );
        println!("sort f32[{m}]          {:8.3} ms", t * 1e3);
        let t = median_secs(
            || {
                work.copy_from_slice(&data);
                work.sort_unstable_by(|a, b| a.total_cmp(b))
            },
            9,
        );
        println!(
            "std sort_unstable_by(total_cmp) f32[{m}] {:8.3} ms",
            t * 1e3
        );
        let t = median_secs(
            || {
                work.copy_from_slice(&data);
                sort(&mut work, &[1024, 1024], 1, Order::Ascending).unwrap()
            },
            9,
        );
        println!("sort rows f32[1024,1024] {:8.3} ms", t * 1e3);
        let mut scratch = xla_kernels::sort::SortScratch::new();
        let t = median_secs(
            || {
                work.copy_from_slice(&data);
                xla_kernels::sort::sort_with_scratch(
                    &mut work,
                    &[1024, 1024],
                    1,
                    Order::Ascending,
                    &mut scratch,
                )
                .unwrap()
            },
            9,
        );
        println!(
            "sort rows f32[1024,1024], warm SortScratch {:8.3} ms",
            t * 1e3
        );
        let t = median_secs(
            || {
                work.copy_from_slice(&data);
                xla_kernels::sort::sort_with_scratch(
                    &mut work,
                    &[m],
                    0,
                    Order::Ascending,
                    &mut scratch,
                )
                .unwrap()
            },
            9,
        );
        println!("sort f32[{m}], warm SortScratch {:8.3} ms", t * 1e3);
        let (mut tv, mut ti) = (vec![0f32; 1024 * 5], vec![0i32; 1024 * 5]);
        let t = median_secs(
            || xla_kernels::sort::top_k(&data, &[1024, 1024], 5, true, &mut tv, &mut ti).unwrap(),
            9,
        );
        println!("top_k k=5 f32[1024,1024] {:8.3} ms", t * 1e3);
    }
}
