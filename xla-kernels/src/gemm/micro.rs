//! The register tile of the packed GEMM, once for every instruction set: [`Tiles`] is an
//! `MR x NV*LANES` micro-kernel over an [`Isa`] token, and [`Kernel`] what the loop nest in
//! `kernel` needs of it (tile shape, A packing, the tile itself, the matrix-vector paths).
//!
//! Every output element of a tile is `sum_p a_ip b_pj` over the k slice, `p` ascending, one
//! multiply-add per step, whatever the tile shape or instruction set: tile shapes change
//! which elements are computed together, never an element's arithmetic.

use super::isa::Isa;
use super::kernel::FloatElem;
use super::{offset, pack, small, GemmDesc, OutPtr};

/// A packed-GEMM kernel: tile shape and block sizes, and the operations of one instruction set.
pub(crate) trait Kernel: Copy + Send + Sync + 'static {
    /// The element type.
    type E: FloatElem;
    /// Rows of the register tile (and of a packed A micro-panel).
    const MR: usize;
    /// Columns of the register tile (and of a packed B micro-panel).
    const NR: usize;
    /// Maximum rows of a packed A block (`MC x KC` stays in L2); a multiple of `MR`.
    const MC: usize;
    /// Up to this many rows of A, row-major A and B are read in place (see `kernel`): packing
    /// B costs `k * n` copies for only `m * k * n` multiply-adds. 6 panels rather than 4: on Zen
    /// 3 (AVX2, one thread, CPU time, three alternating rounds) 32x256x256 went from 34-44 to
    /// 48-70 GFLOP/s (a `lax.scan` RNN step's product).
    const DIRECT_MAX_M: usize = 6 * Self::MR;

    /// Packs rows `row0..row0 + rows` x columns `col0..col0 + kc` of A into `MR`-row panels.
    #[allow(clippy::too_many_arguments)]
    fn pack_a(
        self,
        buf: &mut Vec<Self::E>,
        a: &[Self::E],
        sa: [isize; 3],
        bi: usize,
        row0: usize,
        rows: usize,
        col0: usize,
        kc: usize,
    );
    /// The first `rows` (1..=MR) rows of one tile: `C[row0.., col0..] (+)= A_panel * B_panel`.
    fn tile<const DA: bool, const DB: bool>(
        self,
        rows: usize,
        s: Src<'_, Self::E>,
        d: Dst<'_, '_, '_, Self::E>,
    );
    /// `C[b] (1 x n) = A[b] (1 x k) * B[b]` without packing (`small`); `false` if B's rows
    /// and columns are both strided.
    fn row_times_matrix(
        self,
        d: &GemmDesc,
        a: &[Self::E],
        b: &[Self::E],
        out: &OutPtr<'_, Self::E>,
    ) -> bool;
}

/// The micro-kernel of `MR x NV` vectors of token `S`, with A blocks of `MC` rows.
#[derive(Clone, Copy)]
pub(crate) struct Tiles<S, const MR: usize, const NV: usize, const MC: usize>(pub(crate) S);

impl<S: Isa, const MR: usize, const NV: usize, const MC: usize> Kernel for Tiles<S, MR, NV, MC> {
    type E = S::E;
    const MR: usize = MR;
    const NR: usize = {
        assert!(NV * S::LANES <= MAX_NR && MC.is_multiple_of(MR) && MR <= 16);
        NV * S::LANES
    };
    const MC: usize = MC;

    #[inline]
    fn pack_a(
        self,
        buf: &mut Vec<S::E>,
        a: &[S::E],
        sa: [isize; 3],
        bi: usize,
        row0: usize,
        rows: usize,
        col0: usize,
        kc: usize,
    ) {
        pack::pack_a::<S::E, MR>(buf, a, sa, bi, row0, rows, col0, kc)
    }

    #[inline]
    fn tile<const DA: bool, const DB: bool>(
        self,
        rows: usize,
        s: Src<'_, S::E>,
        d: Dst<'_, '_, '_, S::E>,
    ) {
        let isa = self.0;
        isa.vectorize(
            #[inline(always)]
            move || {
                if rows >= MR {
                    return micro::<S, MR, MR, NV, DA, DB>(isa, s, d, 0);
                }
                // An edge panel: its rows in pieces of 8, 4, 2, 1 (a few instantiations
                // instead of one per row count; each element's arithmetic is the same).
                let mut i = 0;
                if MR > 8 && rows - i >= 8 {
                    micro::<S, MR, 8, NV, DA, DB>(isa, s, d, i);
                    i += 8;
                }
                if rows - i >= 4 {
                    micro::<S, MR, 4, NV, DA, DB>(isa, s, d, i);
                    i += 4;
                }
                if rows - i >= 2 {
                    micro::<S, MR, 2, NV, DA, DB>(isa, s, d, i);
                    i += 2;
                }
                if rows > i {
                    micro::<S, MR, 1, NV, DA, DB>(isa, s, d, i);
                }
            },
        )
    }

    #[inline]
    fn row_times_matrix(
        self,
        d: &GemmDesc,
        a: &[S::E],
        b: &[S::E],
        out: &OutPtr<'_, S::E>,
    ) -> bool {
        small::row_times_matrix(self.0, d, a, b, out)
    }
}

/// Steps of the packed k loop per iteration.
const UNROLL: usize = 4;

/// Widest tile row, in elements (the stack row buffer of partial stores).
const MAX_NR: usize = 64;

/// Where the micro-kernel reads its operands: packed panels, or A / B in place.
#[derive(Clone, Copy)]
pub(crate) struct Src<'a, T> {
    /// A: packed `MR`-row panel (`ap[p * MR + i]`), or with `DA` row `i` at `ap[i * a_rs..]`.
    pub(crate) ap: &'a [T],
    pub(crate) a_rs: usize,
    /// B: packed `NR`-column panel (`bp[p * NR + j]`), or with `DB` row `p` at `bp[p * b_rs..]`.
    pub(crate) bp: &'a [T],
    pub(crate) b_rs: usize,
    pub(crate) kc: usize,
}

/// Where the micro-kernel's tile goes: `cols` columns at `(row0, col0)` of C.
#[derive(Clone, Copy)]
pub(crate) struct Dst<'t, 'o, 'c, T> {
    pub(crate) tile: &'t Tile,
    pub(crate) out: &'o OutPtr<'c, T>,
    pub(crate) row0: usize,
    pub(crate) col0: usize,
    pub(crate) cols: usize,
}

/// `acc[i][h] += a(i) * b[h*LANES..]` for the `R` rows of one step `p`.
#[inline(always)]
fn step<S: Isa, const R: usize, const NV: usize>(
    isa: S,
    acc: &mut [[S::V; NV]; R],
    a: impl Fn(usize) -> S::E,
    b: &[S::E],
) {
    let bv: [S::V; NV] = core::array::from_fn(|h| isa.load(&b[h * S::LANES..]));
    for (i, r) in acc.iter_mut().enumerate() {
        let ai = isa.splat(a(i));
        for (acc_h, &b_h) in r.iter_mut().zip(&bv) {
            *acc_h = isa.mul_add(ai, b_h, *acc_h);
        }
    }
}

/// Rows `i0..i0 + R` of an `MR`-row tile: `acc[i][h]` = lanes `h*LANES..` of row `i0 + i`,
/// summed over the slice in order `p = 0..kc`, one fused multiply-add per step, then stored
/// (or added) into C. Where A and B are read from (packed or in place, see [`Src`]) changes no
/// arithmetic.
#[inline(always)]
fn micro<
    S: Isa,
    const MR: usize,
    const R: usize,
    const NV: usize,
    const DA: bool,
    const DB: bool,
>(
    isa: S,
    s: Src<'_, S::E>,
    d: Dst<'_, '_, '_, S::E>,
    i0: usize,
) {
    let acc = sums::<S, MR, R, NV, DA, DB>(isa, s, i0);
    // Stored straight from the accumulators (no copy of the tile through the stack).
    d.tile.store(isa, &acc, d.out, d.row0 + i0, d.col0, d.cols);
}

/// The accumulators of [`micro`], returned by value: `acc` never has its address taken in
/// the k loop, so LLVM keeps all of it in registers there.
#[inline(always)]
fn sums<
    S: Isa,
    const MR: usize,
    const R: usize,
    const NV: usize,
    const DA: bool,
    const DB: bool,
>(
    isa: S,
    s: Src<'_, S::E>,
    i0: usize,
) -> [[S::V; NV]; R] {
    let nr = NV * S::LANES;
    let mut acc = [[isa.splat(S::E::default()); NV]; R];
    let kc = s.kc;
    if DA {
        // Row i of the tile is A's row i: R streams read in order (the prefetcher follows).
        let rows: [&[S::E]; R] = core::array::from_fn(|i| &s.ap[(i0 + i) * s.a_rs..][..kc]);
        // `p` indexes all R rows and B's row stride at once: no single iterator to zip.
        #[allow(clippy::needless_range_loop)]
        for p in 0..kc {
            let b = if DB {
                &s.bp[p * s.b_rs..][..nr]
            } else {
                &s.bp[p * nr..][..nr]
            };
            step::<S, R, NV>(isa, &mut acc, |i| rows[i][p], b);
        }
    } else if DB {
        let ap = &s.ap[..kc * MR];
        for p in 0..kc {
            let a = &ap[p * MR + i0..][..R];
            let b = &s.bp[p * s.b_rs..][..nr];
            step::<S, R, NV>(isa, &mut acc, |i| a[i], b);
        }
    } else {
        // Both packed: exact-length chunks zipped (one counted loop, no bounds checks in it),
        // UNROLL steps per iteration (the loop's own instructions compete with the
        // multiply-adds for ports: on the AVX-512 Xeon the one-step loop spent ~10 scalar
        // instructions per 16 FMAs).
        let (ap, bp) = (&s.ap[..kc * MR], &s.bp[..kc * nr]);
        let (ab, bb) = (ap.chunks_exact(UNROLL * MR), bp.chunks_exact(UNROLL * nr));
        let (ar, br) = (ab.remainder(), bb.remainder());
        for (a4, b4) in ab.zip(bb) {
            for u in 0..UNROLL {
                let a = &a4[u * MR + i0..][..R];
                step::<S, R, NV>(isa, &mut acc, |i| a[i], &b4[u * nr..][..nr]);
            }
        }
        for (a, b) in ar.chunks_exact(MR).zip(br.chunks_exact(nr)) {
            let a = &a[i0..][..R];
            step::<S, R, NV>(isa, &mut acc, |i| a[i], b);
        }
    }
    acc
}

/// Where a tile goes: batch item, C strides, whether this is the first k slice of a
/// non-accumulating GEMM (store) or not (add).
pub(crate) struct Tile {
    pub(crate) bi: usize,
    pub(crate) sc: [isize; 3],
    pub(crate) first: bool,
}

impl Tile {
    /// Asks for the cache lines of the `rows x cols` tile at `(row0, col0)` of C.
    #[inline(always)]
    pub(crate) fn prefetch<T: Copy>(
        &self,
        out: &OutPtr<'_, T>,
        row0: usize,
        col0: usize,
        rows: usize,
        cols: usize,
    ) {
        for i in 0..rows {
            out.prefetch(offset(self.bi, row0 + i, col0, self.sc));
            out.prefetch(offset(self.bi, row0 + i, col0 + cols - 1, self.sc));
        }
    }

    /// Writes the first `cols` columns of the rows of `acc` at `(row0, col0)` of C.
    #[inline(always)]
    fn store<S: Isa, const NV: usize>(
        &self,
        isa: S,
        acc: &[[S::V; NV]],
        out: &OutPtr<'_, S::E>,
        row0: usize,
        col0: usize,
        cols: usize,
    ) {
        let (l, nr) = (S::LANES, NV * S::LANES);
        if self.sc[2] == 1 && cols == nr {
            for (i, r) in acc.iter().enumerate() {
                let o = offset(self.bi, row0 + i, col0, self.sc);
                // SAFETY: this task owns rows row0.. x columns col0..col0+nr of C (disjoint
                // tiles per task; C's strides validated injective), contiguous as col stride 1.
                let s = unsafe { out.slice(o, nr) };
                for (seg, &v) in s.chunks_exact_mut(l).zip(r) {
                    let v = if self.first {
                        v
                    } else {
                        isa.add(isa.load(seg), v)
                    };
                    isa.store(v, seg);
                }
            }
            return;
        }
        let mut row = [S::E::default(); MAX_NR];
        for (i, r) in acc.iter().enumerate() {
            for (h, &v) in r.iter().enumerate() {
                isa.store(v, &mut row[h * l..]);
            }
            for (j, &v) in row.iter().enumerate().take(cols) {
                let o = offset(self.bi, row0 + i, col0 + j, self.sc);
                // SAFETY: element (row0+i, col0+j) belongs to this task's tile only.
                unsafe {
                    let v = if self.first { v } else { out.get(o) + v };
                    out.set(o, v);
                }
            }
        }
    }
}
