//! RaggedDot (XLA's `ragged-dot`) as one [`gemm`] per group on that group's range, so the work
//! is one dense product's whatever the number of groups (the masked expansion does `g` times
//! that).
//!
//! Group `j` owns the index range `[end[j-1], end[j])` of the ragged dimension, `end` the
//! running sum of the group sizes (64-bit, saturating), clamped to `[0, extent)`; a range
//! whose end is not past its start is empty. This is what XLA computes (its expansion's masks
//! `start <= i < end`): sizes summing past the extent cut the last groups, indices past the
//! sum are in no group (rows of zeros in mode 1), and a negative size makes the next groups
//! start earlier, so one index can be in two groups, where mode 1 sums both products.

use super::{gemm, GemmDesc, GemmElem, GemmError, GemmScratch};

/// Which dimension is ragged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaggedMode {
    /// Mode 1: the rows `m` of A; `B` has one matrix per group (`b_group` apart);
    /// `C[b] (m x n)`.
    Rows,
    /// Mode 2: the contracted `k`; `C[j, b] (m x n)` is group `j`'s range of `k` only.
    Contracting,
}

/// One RaggedDot in GEMM terms: `batch` products `A[b] (m x k) * B[b] (k x n)`, operands
/// addressed by strides `[batch, row, col]` (non-negative), C dense: `[batch, m, n]` (mode 1)
/// or `[groups, batch, m, n]` (mode 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaggedDesc {
    /// Which dimension the groups split.
    pub mode: RaggedMode,
    /// Independent products.
    pub batch: usize,
    /// Rows of A and C.
    pub m: usize,
    /// The contracted extent.
    pub k: usize,
    /// Columns of B and C.
    pub n: usize,
    /// Number of groups.
    pub groups: usize,
    /// A's strides: batch, row, column.
    pub a: [usize; 3],
    /// B's strides: batch, row (k), column (n).
    pub b: [usize; 3],
    /// B's stride between groups (mode 1; unused in mode 2).
    pub b_group: usize,
    /// The group sizes are `[batch, groups]` (one row per product) rather than `[groups]`.
    pub sizes_per_batch: bool,
}

/// Why [`ragged_dot`] refused (nothing meaningful is written then).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RaggedError {
    /// A slice is shorter than the description needs.
    TooShort {
        /// Which slice: "a", "b", "sizes" or "c".
        operand: &'static str,
        /// Elements needed.
        need: usize,
        /// Elements given.
        len: usize,
    },
    /// A GEMM on a group's range refused.
    Gemm(GemmError),
}

impl std::fmt::Display for RaggedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RaggedError::TooShort { operand, need, len } => {
                write!(
                    f,
                    "ragged_dot: {operand} has {len} elements, the description needs {need}"
                )
            }
            RaggedError::Gemm(e) => write!(f, "ragged_dot: {e}"),
        }
    }
}

impl std::error::Error for RaggedError {}

/// Group size element types (every integer type XLA accepts), read as i64 (u64 wraps, as
/// XLA's conversion to s64 does).
pub trait GroupSize: Copy {
    /// The size as i64.
    fn size(self) -> i64;
}

macro_rules! group_size {
    ($($t:ty),*) => {$(
        impl GroupSize for $t {
            #[allow(clippy::cast_lossless, clippy::cast_possible_wrap)]
            fn size(self) -> i64 { self as i64 }
        }
    )*};
}
group_size!(i8, i16, i32, i64, u8, u16, u32, u64);

/// The clamped ranges `[lo, hi)` of the groups of one row of sizes over an extent `len`
/// (`lo >= hi` when empty).
fn ranges<S: GroupSize>(sizes: &[S], len: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let len = len as i64;
    let mut end = 0i64;
    sizes.iter().map(move |&s| {
        let start = end;
        end = end.saturating_add(s.size());
        let lo = start.clamp(0, len) as usize;
        let hi = end.clamp(0, len) as usize;
        (lo, hi)
    })
}

/// RaggedDot on `d`: `c` = each group's GEMM on its range (see the module). `Err` if a slice
/// is shorter than `d` needs.
pub fn ragged_dot<T: GemmElem + Default, S: GroupSize>(
    d: &RaggedDesc,
    a: &[T],
    b: &[T],
    sizes: &[S],
    c: &mut [T],
    scratch: &mut GemmScratch,
) -> Result<(), RaggedError> {
    check_lengths(d, a.len(), b.len(), sizes.len(), c.len())?;
    let (mn, g) = (d.m * d.n, d.groups);
    let rows = if d.sizes_per_batch { d.batch } else { 1 };
    // One GEMM per group over every batch item when the sizes are shared, else per item.
    let per = if d.sizes_per_batch { 1 } else { d.batch };
    for r in 0..rows {
        let extent = match d.mode {
            RaggedMode::Rows => d.m,
            RaggedMode::Contracting => d.k,
        };
        let (a0, b0) = (r * d.a[0], r * d.b[0]);
        let row = &sizes[r * g..(r + 1) * g];
        // Sizes of one sign leave the ranges disjoint and in order: each group writes its
        // rows and only the rows past the sum are zeroed. A negative size can put a row in
        // two groups: then everything is zeroed and each group adds its products.
        let overlap = row.iter().any(|&s| s.size() < 0);
        if d.mode == RaggedMode::Rows {
            let covered = ranges(row, extent).map(|(_, hi)| hi).max().unwrap_or(0);
            let from = if overlap { 0 } else { covered };
            for p in 0..per {
                let base = (r + p) * mn;
                for x in &mut c[base + from * d.n..base + mn] {
                    *x = T::default();
                }
            }
        }
        for (j, (lo, hi)) in ranges(row, extent).enumerate() {
            let len = hi.saturating_sub(lo);
            let desc = |m: usize, k: usize, a_off: usize, b_off: usize| {
                let mut e = GemmDesc::from_strides(
                    per,
                    m,
                    d.n,
                    k,
                    [d.a[0] as isize, d.a[1] as isize, d.a[2] as isize],
                    [d.b[0] as isize, d.b[1] as isize, d.b[2] as isize],
                    [mn as isize, d.n as isize, 1],
                );
                e.accumulate = d.mode == RaggedMode::Rows && overlap;
                (e, a0 + a_off, b0 + b_off)
            };
            let (e, ao, bo, co) = match d.mode {
                RaggedMode::Rows if len == 0 => continue,
                RaggedMode::Rows => {
                    let (e, ao, bo) = desc(len, d.k, lo * d.a[1], j * d.b_group);
                    (e, ao, bo, r * mn + lo * d.n)
                }
                RaggedMode::Contracting => {
                    let co = (j * d.batch + r) * mn;
                    if len == 0 {
                        // No k in the group: an empty sum.
                        for x in &mut c[co..co + per * mn] {
                            *x = T::default();
                        }
                        continue;
                    }
                    let (e, ao, bo) = desc(d.m, len, lo * d.a[2], lo * d.b[1]);
                    (e, ao, bo, co)
                }
            };
            gemm(&e, &a[ao..], &b[bo..], &mut c[co..], scratch).map_err(RaggedError::Gemm)?;
        }
    }
    Ok(())
}

/// The highest offset strides `s` reach over extents `e`, plus one (0 if an extent is 0).
fn reach(e: &[usize], s: &[usize]) -> usize {
    if e.contains(&0) {
        return 0;
    }
    1 + e.iter().zip(s).map(|(&e, &s)| (e - 1) * s).sum::<usize>()
}

fn check_lengths(
    d: &RaggedDesc,
    a: usize,
    b: usize,
    s: usize,
    c: usize,
) -> Result<(), RaggedError> {
    let groups_b = if d.mode == RaggedMode::Rows {
        d.groups
    } else {
        1
    };
    let out = match d.mode {
        RaggedMode::Rows => d.batch * d.m * d.n,
        RaggedMode::Contracting => d.groups * d.batch * d.m * d.n,
    };
    let sizes = d.groups * if d.sizes_per_batch { d.batch } else { 1 };
    let needs = [
        ("a", reach(&[d.batch, d.m, d.k], &d.a), a),
        (
            "b",
            reach(
                &[d.batch, d.k, d.n, groups_b],
                &[d.b[0], d.b[1], d.b[2], d.b_group],
            ),
            b,
        ),
        ("sizes", sizes, s),
        ("c", out, c),
    ];
    for (operand, need, len) in needs {
        if len < need {
            return Err(RaggedError::TooShort { operand, need, len });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, written out: per batch item and group, the products on its range.
    fn reference(d: &RaggedDesc, a: &[f64], b: &[f64], sizes: &[i64]) -> Vec<f64> {
        let (bt, m, k, n, g) = (d.batch, d.m, d.k, d.n, d.groups);
        let out_len = if d.mode == RaggedMode::Rows {
            bt * m * n
        } else {
            g * bt * m * n
        };
        let mut c = vec![0.0; out_len];
        for x in 0..bt {
            let row = if d.sizes_per_batch { x } else { 0 };
            let ext = if d.mode == RaggedMode::Rows { m } else { k };
            let mut end = 0i64;
            for j in 0..g {
                let start = end;
                end += sizes[row * g + j];
                let inside = |t: usize| start <= t as i64 && (t as i64) < end;
                for i in 0..m {
                    for col in 0..n {
                        let mut s = 0.0;
                        for p in 0..k {
                            let keep = if d.mode == RaggedMode::Rows {
                                inside(i)
                            } else {
                                inside(p)
                            };
                            if keep && (if d.mode == RaggedMode::Rows { i } else { p }) < ext {
                                let bo = if d.mode == RaggedMode::Rows {
                                    j * d.b_group
                                } else {
                                    0
                                };
                                s += a[x * d.a[0] + i * d.a[1] + p * d.a[2]]
                                    * b[bo + x * d.b[0] + p * d.b[1] + col * d.b[2]];
                            }
                        }
                        let o = if d.mode == RaggedMode::Rows {
                            (x * m + i) * n + col
                        } else {
                            ((j * bt + x) * m + i) * n + col
                        };
                        c[o] += s;
                    }
                }
            }
        }
        c
    }

    fn check(d: RaggedDesc, sizes: &[i64]) {
        let a: Vec<f64> = (0..d.batch * d.m * d.k)
            .map(|i| ((i * 7) % 5) as f64 - 2.0)
            .collect();
        let nb = d.batch
            * d.k
            * d.n
            * if d.mode == RaggedMode::Rows {
                d.groups
            } else {
                1
            };
        let b: Vec<f64> = (0..nb).map(|i| ((i * 3) % 7) as f64 - 3.0).collect();
        let want = reference(&d, &a, &b, sizes);
        let mut c = vec![f64::NAN; want.len()];
        ragged_dot(&d, &a, &b, sizes, &mut c, &mut GemmScratch::new()).unwrap();
        assert_eq!(c, want, "{d:?} sizes {sizes:?}");
    }

    fn desc(mode: RaggedMode, batch: usize, per_batch: bool) -> RaggedDesc {
        let (m, k, n, g) = (7, 5, 3, 3);
        RaggedDesc {
            mode,
            batch,
            m,
            k,
            n,
            groups: g,
            a: [m * k, k, 1],
            b: [k * n, n, 1],
            b_group: batch * k * n,
            sizes_per_batch: per_batch,
        }
    }

    #[test]
    fn rows_and_contracting_match_the_definition() {
        let shared = [
            [2, 3, 2],
            [2, 0, 4],
            [0, 0, 0],
            [5, 5, 5],
            [-1, 3, 2],
            [3, -2, 6],
            [1, 1, -9],
        ];
        for mode in [RaggedMode::Rows, RaggedMode::Contracting] {
            for s in &shared {
                check(desc(mode, 1, false), s);
                check(desc(mode, 2, false), s);
            }
            check(desc(mode, 2, true), &[2, 3, 2, 0, 9, 1]);
        }
    }

    #[test]
    fn short_slices_are_errors() {
        let d = desc(RaggedMode::Rows, 1, false);
        let mut c = vec![0.0f32; 21];
        let e = ragged_dot(
            &d,
            &[0.0f32; 34],
            &[0.0; 45],
            &[1i32, 2, 3],
            &mut c,
            &mut GemmScratch::new(),
        );
        assert_eq!(
            e,
            Err(RaggedError::TooShort {
                operand: "a",
                need: 35,
                len: 34
            })
        );
        let e = ragged_dot(
            &d,
            &[0.0f32; 35],
            &[0.0; 45],
            &[1i32, 2],
            &mut c,
            &mut GemmScratch::new(),
        );
        assert!(matches!(
            e,
            Err(RaggedError::TooShort {
                operand: "sizes",
                ..
            })
        ));
    }
}
