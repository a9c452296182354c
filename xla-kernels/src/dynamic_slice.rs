//! DynamicUpdateSlice's write: `out[starts + i] = update[i]` for every index `i` of the update,
//! one `copy_from_slice` per run of the update that is contiguous in the output. The starts
//! arrive clamped (generated code clamps them into `[0, dims - sizes]` as XLA does); this
//! checks every length and that the box fits before writing anything.

use crate::error::{element_count, KernelError};
use crate::tensor::MAX_RANK;

const OP: &str = "dynamic_update_slice";

/// Writes `update` (row-major, dims `sizes`) into `out` (row-major, dims `dims`) at `starts`:
/// `out[starts + i] = update[i]`. `Err` (nothing written) when a length or rank differs or the
/// box does not fit.
pub fn update_slice<T: Copy>(
    out: &mut [T],
    dims: &[usize],
    update: &[T],
    sizes: &[usize],
    starts: &[usize],
) -> Result<(), KernelError> {
    if sizes.len() != dims.len() || starts.len() != dims.len() {
        return Err(KernelError::invalid(
            OP,
            format!("ranks differ: dims {dims:?}, update {sizes:?}, starts {starts:?}"),
        ));
    }
    KernelError::check_len(OP, "out", element_count(OP, dims)?, out.len())?;
    KernelError::check_len(OP, "update", element_count(OP, sizes)?, update.len())?;
    for d in 0..dims.len() {
        if starts[d]
            .checked_add(sizes[d])
            .is_none_or(|end| end > dims[d])
        {
            return Err(KernelError::invalid(
                OP,
                format!(
                    "the update {sizes:?} at {starts:?} does not fit in {dims:?} (dimension {d})"
                ),
            ));
        }
    }
    if update.is_empty() {
        return Ok(());
    }
    let rank = dims.len();
    if rank > MAX_RANK {
        return Err(KernelError::invalid(
            OP,
            format!("rank {rank} above {MAX_RANK}"),
        ));
    }
    // Row-major strides of the output, on the stack: a While step calls this once per
    // update, so it allocates nothing.
    let mut strides = [1usize; MAX_RANK];
    for d in (0..rank.saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * dims[d + 1];
    }
    // One row is contiguous in `out`: the last dimension, and the ones before it as long as
    // the update spans the whole dimension after them (a scan step's [1, 32, 256] slab of a
    // [64, 32, 256] state is one copy, not 32).
    let mut inner = rank;
    let mut row = 1;
    while inner > 0 {
        inner -= 1;
        row *= sizes[inner];
        if sizes[inner] != dims[inner] {
            break;
        }
    }
    let mut at = crate::gather::index_offset(starts, &strides[..rank]);
    // An odometer over the dimensions before the row, moving `at` along.
    let outer = &sizes[..inner];
    let mut idx = [0usize; MAX_RANK];
    for src in update.chunks_exact(row) {
        out[at..at + row].copy_from_slice(src);
        for d in (0..outer.len()).rev() {
            idx[d] += 1;
            at += strides[d];
            if idx[d] < outer[d] {
                break;
            }
            idx[d] = 0;
            at -= outer[d] * strides[d];
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_the_box() {
        // The seed's 2-d example: u[3,2] at (1, 1) of b[4,3].
        let mut b: Vec<f32> = (0..12).map(|x| x as f32).collect();
        let u: Vec<f32> = (12..18).map(|x| x as f32).collect();
        update_slice(&mut b, &[4, 3], &u, &[3, 2], &[1, 1]).unwrap();
        let want = [0., 1., 2., 3., 12., 13., 6., 14., 15., 9., 16., 17.];
        assert_eq!(b, want);
        // Rank 0: the whole (one-element) array.
        let mut s = [1u8];
        update_slice(&mut s, &[], &[7], &[], &[]).unwrap();
        assert_eq!(s, [7]);
        // Rank 3, a box in the middle.
        let mut c = vec![0i32; 24];
        update_slice(&mut c, &[2, 3, 4], &[1, 2, 3, 4], &[1, 2, 2], &[1, 1, 2]).unwrap();
        let mut want = vec![0i32; 24];
        want[12 + 4 + 2..12 + 4 + 4].copy_from_slice(&[1, 2]);
        want[12 + 8 + 2..12 + 8 + 4].copy_from_slice(&[3, 4]);
        assert_eq!(c, want);
    }

    /// Every box of a rank-3 array at every start against `out[starts + i] = update[i]`
    /// element by element: boxes spanning whole trailing dimensions are written as one run,
    /// the others row by row.
    #[test]
    fn every_box_at_every_start_matches_the_definition() {
        let dims = [3usize, 2, 4];
        let n: usize = dims.iter().product();
        let boxes =
            (1..=3).flat_map(|a| (1..=2).flat_map(move |b| (1..=4).map(move |c| [a, b, c])));
        for sizes in boxes {
            let len: usize = sizes.iter().product();
            let update: Vec<i32> = (0..len as i32).map(|x| 100 + x).collect();
            for s0 in 0..=dims[0] - sizes[0] {
                for s1 in 0..=dims[1] - sizes[1] {
                    for s2 in 0..=dims[2] - sizes[2] {
                        let starts = [s0, s1, s2];
                        let mut got: Vec<i32> = (0..n as i32).map(|x| -x).collect();
                        let mut want = got.clone();
                        for (k, &v) in update.iter().enumerate() {
                            let i = [
                                k / (sizes[1] * sizes[2]),
                                k / sizes[2] % sizes[1],
                                k % sizes[2],
                            ];
                            let at = ((starts[0] + i[0]) * dims[1] + starts[1] + i[1]) * dims[2]
                                + starts[2]
                                + i[2];
                            want[at] = v;
                        }
                        update_slice(&mut got, &dims, &update, &sizes, &starts).unwrap();
                        assert_eq!(got, want, "box {sizes:?} at {starts:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn bad_arguments_are_errors_and_write_nothing() {
        let mut b = vec![0f32; 12];
        let u = vec![1f32; 4];
        let cases: [(&[usize], &[usize], &[usize]); 4] = [
            (&[4, 3], &[2, 2], &[3, 0]), // does not fit
            (&[4, 3], &[2, 2], &[0]),    // rank of starts
            (&[4, 3], &[4], &[0, 0]),    // rank of the update
            (&[4, 4], &[2, 2], &[0, 0]), // out length
        ];
        for (dims, sizes, starts) in cases {
            assert!(update_slice(&mut b, dims, &u, sizes, starts).is_err());
            assert!(b.iter().all(|&x| x == 0.0));
        }
        assert!(update_slice(&mut b, &[4, 3], &u[..3], &[2, 2], &[0, 0]).is_err());
        assert!(update_slice(&mut b, &[4, 3], &u, &[2, 2], &[usize::MAX, 0]).is_err());
    }
}
