//! Packing: copies a block of A into `MR`-row micro-panels and a block of B into `NR`-column
//! micro-panels (the tile of the kernel in use, which differs per instruction set), in the
//! order the micro-kernel reads them (one contiguous stream each), padding partial panels
//! with zeros so the kernel always runs full tiles.
//!
//! Both read their source as streams: a row-major B row by row (panel by panel it was one cache
//! line per row at the row stride, which the hardware prefetcher does not follow across pages:
//! `memmove` alone was 4.3% of a 1024^3 product, 1.4% after), a row-major A as `MR` row
//! streams interleaved in 8-step blocks (3.4% of a 1024^3 product on one thread; the rest is
//! A's first touch from memory).

use super::offset;

/// Makes `buf` at least `len` long (grows once; never shrinks, never re-zeroes).
#[inline]
pub(crate) fn ensure_len<T: Copy + Default>(buf: &mut Vec<T>, len: usize) {
    if buf.len() < len {
        buf.resize(len, T::default());
    }
}

/// Asks for the cache lines of `s` (no effect on any value).
#[inline]
fn prefetch<T>(s: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        let bytes = core::mem::size_of_val(s);
        let p = s.as_ptr().cast::<i8>();
        for off in (0..bytes).step_by(64) {
            // SAFETY: `off < bytes`, so the address is inside `s`; a prefetch reads nothing
            // into the program and cannot fault.
            unsafe {
                core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.add(off))
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = s;
}

/// Packs rows `row0..row0 + rows` x columns `col0..col0 + kc` of A (batch `bi`) into
/// `ceil(rows / MR)` panels: `buf[ip*kc*MR + p*MR + i] = A[row0 + ip*MR + i, col0 + p]`
/// (`MR` is the row count of the kernel's tile).
#[allow(clippy::too_many_arguments)]
pub(crate) fn pack_a<T: Copy + Default + 'static, const MR: usize>(
    buf: &mut Vec<T>,
    a: &[T],
    sa: [isize; 3],
    bi: usize,
    row0: usize,
    rows: usize,
    col0: usize,
    kc: usize,
) {
    let panels = rows.div_ceil(MR);
    ensure_len(buf, panels * kc * MR);
    for ip in 0..panels {
        let dst = &mut buf[ip * kc * MR..(ip + 1) * kc * MR];
        let valid = (rows - ip * MR).min(MR);
        let r0 = row0 + ip * MR;
        if sa[2] == 1 && valid == MR {
            // The next panel's rows, asked for now: each row is only `kc` elements long, too
            // short a stream for the hardware prefetcher to reach full speed on its own.
            if rows >= (ip + 2) * MR {
                for i in 0..MR {
                    prefetch(&a[offset(bi, r0 + MR + i, col0, sa)..][..kc]);
                }
            }
            // Row-major A: MR contiguous row streams, interleaved.
            // Blocks of 8 steps through fixed-size arrays: no bounds checks in the transpose.
            let src: [&[T]; MR] =
                core::array::from_fn(|i| &a[offset(bi, r0 + i, col0, sa)..][..kc]);
            let mut blocks = dst.chunks_exact_mut(8 * MR);
            for (q, d) in (&mut blocks).enumerate() {
                let v: [&[T; 8]; MR] = core::array::from_fn(|i| {
                    src[i][8 * q..8 * q + 8].try_into().expect("8 elements")
                });
                for (s, d) in d.chunks_exact_mut(MR).enumerate() {
                    let d: &mut [T; MR] = d.try_into().expect("MR elements");
                    for (x, row) in d.iter_mut().zip(&v) {
                        *x = row[s];
                    }
                }
            }
            let done = kc - kc % 8;
            for (p, d) in blocks.into_remainder().chunks_exact_mut(MR).enumerate() {
                for (x, row) in d.iter_mut().zip(&src) {
                    *x = row[done + p];
                }
            }
            continue;
        }
        if sa[1] == 1 && valid == MR {
            // Column-major A: each column of the panel is MR contiguous elements.
            for (p, d) in dst.chunks_exact_mut(MR).enumerate() {
                let o = offset(bi, r0, col0 + p, sa);
                d.copy_from_slice(&a[o..o + MR]);
            }
            continue;
        }
        for i in 0..MR {
            if i < valid {
                let base = offset(bi, r0 + i, col0, sa) as isize;
                for p in 0..kc {
                    dst[p * MR + i] = a[(base + p as isize * sa[2]) as usize];
                }
            } else {
                for p in 0..kc {
                    dst[p * MR + i] = T::default();
                }
            }
        }
    }
}

/// Packs rows `row0..row0 + kc` x columns `col0..col0 + cols` of B (batch `bi`) into
/// `ceil(cols / nr)` panels: `buf[jp*kc*nr + p*nr + j] = B[row0 + p, col0 + jp*nr + j]`;
/// panels in parallel on rayon when `parallel`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn pack_b<T: Copy + Default + Send + Sync>(
    buf: &mut Vec<T>,
    b: &[T],
    sb: [isize; 3],
    bi: usize,
    row0: usize,
    kc: usize,
    col0: usize,
    cols: usize,
    nr: usize,
    parallel: bool,
) {
    let panels = cols.div_ceil(nr);
    ensure_len(buf, panels * kc * nr);
    let dst = &mut buf[..panels * kc * nr];
    // Panels per task: about half of them per thread (whole panels).
    let per = if parallel && panels > 1 {
        panels.div_ceil(rayon::current_num_threads().max(1))
    } else {
        panels
    };
    let run = |t: usize, d: &mut [T]| {
        let jp0 = t * per;
        if sb[2] == 1 {
            pack_b_rows(d, b, sb, bi, row0, kc, col0 + jp0 * nr, cols - jp0 * nr, nr);
        } else {
            for (q, d) in d.chunks_mut(kc * nr).enumerate() {
                let jp = jp0 + q;
                let valid = (cols - jp * nr).min(nr);
                pack_b_panel(d, b, sb, bi, row0, kc, col0 + jp * nr, valid, nr);
            }
        }
    };
    if per < panels {
        use rayon::prelude::*;
        dst.par_chunks_mut(per * kc * nr)
            .enumerate()
            .for_each(|(t, d)| run(t, d));
    } else {
        run(0, dst);
    }
}

/// Row-major B into the panels `dst` holds (`dst.len() / (kc * nr)` of them, from column
/// `c0`, of which `valid` columns exist): B is walked row after row, a stream the hardware
/// prefetcher follows; panel by panel it would be one cache line per row at the row stride
/// (4 KiB for n = 1024), which the prefetcher does not follow across pages.
#[allow(clippy::too_many_arguments)]
fn pack_b_rows<T: Copy + Default>(
    dst: &mut [T],
    b: &[T],
    sb: [isize; 3],
    bi: usize,
    row0: usize,
    kc: usize,
    c0: usize,
    valid: usize,
    nr: usize,
) {
    let q = dst.len() / (kc * nr);
    let w = valid.min(q * nr);
    for p in 0..kc {
        let o = offset(bi, row0 + p, c0, sb);
        for (jj, seg) in b[o..o + w].chunks(nr).enumerate() {
            let d = &mut dst[(jj * kc + p) * nr..][..nr];
            let (head, tail) = d.split_at_mut(seg.len());
            head.copy_from_slice(seg);
            tail.fill(T::default());
        }
    }
}

/// One `kc x nr` panel of a B whose rows are not contiguous (row-major B goes through
/// [`pack_b_rows`]), starting at `(row0, c0)`, of which `valid` columns exist.
#[allow(clippy::too_many_arguments)]
fn pack_b_panel<T: Copy + Default>(
    dst: &mut [T],
    b: &[T],
    sb: [isize; 3],
    bi: usize,
    row0: usize,
    kc: usize,
    c0: usize,
    valid: usize,
    nr: usize,
) {
    for j in 0..nr {
        if j < valid {
            let base = offset(bi, row0, c0 + j, sb) as isize;
            for p in 0..kc {
                dst[p * nr + j] = b[(base + p as isize * sb[1]) as usize];
            }
        } else {
            for p in 0..kc {
                dst[p * nr + j] = T::default();
            }
        }
    }
}
