//! The association order of f16 and bf16 `Reduce`: XLA:CPU's tree of windows of 32, which the
//! evaluator and the generated code both follow.
//!
//! XLA leaves the order of a reduction unspecified, and every application of the reducer rounds
//! to the reducer's types (a bf16 reducer is a bf16 operation). In f16 and bf16 the order decides
//! the accuracy: a running sum of values near 1 stops growing at 256 in bf16, where the spacing
//! reaches 2, so a `bf16[1024]` sum folded left to right is 75% short.
//!
//! What XLA:CPU does (jax/jaxlib 0.10.2, AMD EPYC with AVX-512 and with `--xla_cpu_max_isa=AVX2`;
//! read from the optimised HLO and bit-compared with a model of the rules below on random inputs
//! in `[0.5, 1.5]` with a fifth of them negated):
//!
//! - It does **not** accumulate f16/bf16 in f32. A bf16 reducer runs in f32 with a rounding to
//!   bf16 after every op (bf16 normalisation puts `convert(convert(.))` pairs into the reducer),
//!   so every partial result is a bf16; f16 reducers stay f16 ops. A `bf16[32,32]` sum of ones is
//!   256 in XLA, and so is a variadic `(bf16 sum, s32 count)` over 1024 ones (its sum part).
//! - A single-output `Reduce` with a reduced dim longer than [`WINDOW`] becomes a reduce-window
//!   followed by a smaller `Reduce` (XLA's tree reduction rewriter), repeated until no reduced
//!   dim exceeds [`WINDOW`]. Each reduced dim of extent `d` gets the window (and stride)
//!   `w = min(d, 32)`, padded up to a multiple of `w` with `pad / 2` positions low and the rest
//!   high; padded positions are skipped; every window folds from `init`; kept dims have window 1.
//!   For `d = 4099`: windows of 32 with padding 14 + 15 give 129 partials, windows of 32 with
//!   padding 15 + 16 give 5, and a plain fold of those 5 gives the result.
//! - Inside a window and in the last `Reduce`, elements fold one at a time, `acc = f(acc, x)`,
//!   in row-major order of the reduced dims.
//! - Variadic reduces are not rewritten (one sequential fold), and neither are reduces whose
//!   reduced dims are all at most 32.
//!
//! Bit-exact for bf16 on both ISAs: sums over `[3,1024]/{1}`, `[2,4099]/{1}`, `[1025,3]/{0}`,
//! `[2,1024]/{0,1}`, `[40,50]/{0,1}`, `[3,40,50]/{1,2}`, `[20,100]/{0,1}`, `[32,32]/{0,1}`,
//! `[5,70,3]/{0,1}`, `[30,3,100]/{0,2}`, `[100,100]/{0,1}`, and over `[4,100]/{1}` the reducers
//! `a + b*b`, `max` and `a*0.5 + b` and a sum with init 1. f16: the same on AVX-512 for every
//! single-dim case; XLA orders the last fold of a 2-D grid of partials otherwise (1 ulp apart in
//! a few outputs), and with AVX2 its f16 loops keep excess precision (an `f16[64,64,64]` sum of
//! ones is inf there, 16384 with AVX-512, 262144 exactly). Consequences of the tree that hold in
//! XLA and here: `init` is folded once per window (init 1 over 1024 ones gives 1057), and a
//! non-associative reducer follows the tree (`a + b*b` over 1024 ones gives 32768).
//!
//! f32, f64 and the other types keep their own orders: an f32/f64 sum in any order is within
//! the forward-error bound `n eps sum|x|` the oracle tests hold it to (from
//! [`RUN_TIME_WIDTH_MIN_ELEMENTS`] elements the order is the CPU's vector level's), and integer,
//! pred, max and min reductions are order-free for the associative reducers they use.

use crate::element::ElementType;

/// XLA:CPU's reduce-window size: the tree reduction rewriter's default window.
pub const WINDOW: usize = 32;

/// Input elements from which an f32/f64 sum, max or min runs at the CPU's run-time vector
/// width (AVX2 or AVX-512 where present), in the code `xla!` generates and in
/// `xla_kernels::reduce`'s rows (at least one AVX-512 vector long) alike: a sum's association
/// (lanes per accumulator) is then the level's own, and the same in both.
pub const RUN_TIME_WIDTH_MIN_ELEMENTS: usize = 1 << 16;

/// One level of the tree over the reduced dims of one output: the array it folds (`dims`), and
/// per dim the window (also the stride) and the low padding. Result position `q` folds the
/// positions `p[j] = q[j] * window[j] + k[j] - pad_low[j]` for `k` over the window in row-major
/// order, skipping `p` outside `0..dims` (padding), starting from `init`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level {
    /// Extents of the reduced dims of the array this level folds.
    pub dims: Vec<usize>,
    /// Window (and stride) per reduced dim: `min(dims[j], WINDOW)` positions fold into one.
    pub window: Vec<usize>,
    /// Positions of padding before index 0 per dim, so the windows cover `dims` centred.
    pub pad_low: Vec<usize>,
}

impl Level {
    /// Extents of the level's result: `ceil(dims[j] / window[j])` (1 for an empty dim, whose
    /// window is empty too).
    pub fn out_dims(&self) -> Vec<usize> {
        self.dims
            .iter()
            .zip(&self.window)
            .map(|(&d, &w)| if w == 0 { 1 } else { d.div_ceil(w) })
            .collect()
    }

    /// Whether dim `j` has padding (positions outside `0..dims[j]`), so positions need a check.
    pub fn padded(&self, j: usize) -> bool {
        let (d, w) = (self.dims[j], self.window[j]);
        w != 0 && d % w != 0
    }
}

/// Whether a `Reduce` producing `types` follows the tree: one output of f16 or bf16.
pub fn follows_tree(types: &[ElementType]) -> bool {
    matches!(types, [ElementType::F16 | ElementType::Bf16])
}

/// The levels for the reduced extents `dims` (in operand order): XLA:CPU's reduce-windows while
/// some extent exceeds [`WINDOW`], then the last fold as a level whose window is the whole
/// remaining array (so the last level has a single result). No windows when some extent is 0:
/// XLA replaces an empty reduction by its init. `dims` empty: one level of one position.
pub fn levels(dims: &[usize]) -> Vec<Level> {
    let mut out = Vec::new();
    let mut cur = dims.to_vec();
    while cur.iter().any(|&d| d > WINDOW) && !cur.contains(&0) {
        let window: Vec<usize> = cur.iter().map(|&d| d.min(WINDOW)).collect();
        let pad_low = cur
            .iter()
            .zip(&window)
            .map(|(&d, &w)| (d.next_multiple_of(w) - d) / 2)
            .collect();
        let level = Level {
            dims: cur,
            window,
            pad_low,
        };
        cur = level.out_dims();
        out.push(level);
    }
    out.push(Level {
        pad_low: vec![0; cur.len()],
        window: cur.clone(),
        dims: cur,
    });
    out
}

/// Fold `values` (row-major over `levels[0].dims`) level by level with `f(acc, x)` from `init`:
/// the evaluator's f16/bf16 reduction of one output. `levels` as from [`levels`].
pub fn fold<T: Clone, E>(
    values: &[T],
    levels: &[Level],
    init: T,
    mut f: impl FnMut(T, T) -> Result<T, E>,
) -> Result<T, E> {
    let mut cur = values.to_vec();
    for level in levels {
        let rank = level.dims.len();
        let mut strides = vec![1usize; rank];
        for j in (0..rank.saturating_sub(1)).rev() {
            strides[j] = strides[j + 1] * level.dims[j + 1];
        }
        let mut next = Vec::new();
        let out_dims = level.out_dims();
        let mut q = vec![0usize; rank];
        loop {
            let mut acc = init.clone();
            let mut k = vec![0usize; rank];
            if !level.window.contains(&0) {
                loop {
                    let offset = (0..rank).try_fold(0usize, |off, j| {
                        (q[j] * level.window[j] + k[j])
                            .checked_sub(level.pad_low[j])
                            .filter(|&p| p < level.dims[j])
                            .map(|p| off + p * strides[j])
                    });
                    // None: a padded position, which XLA skips.
                    if let Some(x) = offset.and_then(|o| cur.get(o)) {
                        acc = f(acc, x.clone())?;
                    }
                    if !advance(&mut k, &level.window) {
                        break;
                    }
                }
            }
            next.push(acc);
            if !advance(&mut q, &out_dims) {
                break;
            }
        }
        cur = next;
    }
    Ok(cur.into_iter().next().unwrap_or(init))
}

/// Step the row-major multi-index `idx` within `dims`; false after the last one.
fn advance(idx: &mut [usize], dims: &[usize]) -> bool {
    for j in (0..idx.len()).rev() {
        idx[j] += 1;
        if idx[j] < dims[j] {
            return true;
        }
        idx[j] = 0;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(dims: &[usize], window: &[usize], pad_low: &[usize]) -> Level {
        Level {
            dims: dims.to_vec(),
            window: window.to_vec(),
            pad_low: pad_low.to_vec(),
        }
    }

    #[test]
    fn levels_follow_xla_rewrites() {
        // As printed in XLA:CPU's optimised HLO (see the module doc).
        assert_eq!(
            levels(&[4099]),
            vec![
                level(&[4099], &[32], &[14]),
                level(&[129], &[32], &[15]),
                level(&[5], &[5], &[0]),
            ]
        );
        assert_eq!(
            levels(&[40, 50]),
            vec![
                level(&[40, 50], &[32, 32], &[12, 7]),
                level(&[2, 2], &[2, 2], &[0, 0])
            ]
        );
        assert_eq!(
            levels(&[20, 1024]),
            vec![
                level(&[20, 1024], &[20, 32], &[0, 0]),
                level(&[1, 32], &[1, 32], &[0, 0])
            ]
        );
        // No extent above 32: one sequential fold, as XLA (a bf16[32,32] sum of ones is 256).
        assert_eq!(
            levels(&[32, 32]),
            vec![level(&[32, 32], &[32, 32], &[0, 0])]
        );
        assert_eq!(levels(&[0, 64]), vec![level(&[0, 64], &[0, 64], &[0, 0])]);
        assert_eq!(levels(&[]), vec![level(&[], &[], &[])]);
        assert!(follows_tree(&[ElementType::Bf16]) && follows_tree(&[ElementType::F16]));
        assert!(!follows_tree(&[ElementType::F32]));
        assert!(!follows_tree(&[ElementType::Bf16, ElementType::S32]));
    }

    #[test]
    fn fold_visits_every_element_once_per_window_from_init() {
        let add = |a: u64, b: u64| Ok::<u64, ()>(a + b);
        for dims in [
            vec![4099],
            vec![3, 40, 50],
            vec![33],
            vec![5],
            vec![0, 40],
            vec![],
        ] {
            let n: usize = dims.iter().product();
            let values: Vec<u64> = (0..n as u64).collect();
            let lv = levels(&dims);
            let windows: usize = lv
                .iter()
                .map(|l| l.out_dims().iter().product::<usize>())
                .sum();
            // Every element once; init once per window of every level (the last level's one
            // window included), as XLA folds it (init 1 over f32[1024] ones gives 1057 there).
            let want = values.iter().sum::<u64>() + 1000 * windows as u64;
            assert_eq!(fold(&values, &lv, 1000, add), Ok(want), "{dims:?}");
        }
    }

    #[test]
    fn fold_order_is_windows_then_partials() {
        // Record the fold order: each window's result lists its inputs in order.
        let cat = |a: Vec<usize>, b: Vec<usize>| Ok::<_, ()>([a, b].concat());
        let values: Vec<Vec<usize>> = (0..35).map(|i| vec![i]).collect();
        // 35: padding 14 low, 15 high; window 0 holds elements 0..18, window 1 holds 18..35.
        let got = fold(&values, &levels(&[35]), vec![], cat);
        assert_eq!(got, Ok((0..35).collect::<Vec<_>>()));
        let lv = levels(&[35]);
        assert_eq!(lv[0], level(&[35], &[32], &[14]));
        // A non-associative reducer shows the window boundary: a sum of squares of partials.
        let sq = |a: i64, b: i64| Ok::<_, ()>(a + b * b);
        let ones = vec![1i64; 35];
        assert_eq!(fold(&ones, &lv, 0, sq), Ok(18 * 18 + 17 * 17));
        let ones = vec![1i64; 1024];
        assert_eq!(fold(&ones, &levels(&[1024]), 0, sq), Ok(32768));
    }
}
