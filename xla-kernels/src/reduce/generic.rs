//! The generic reduce: any element type, any combiner (a monomorphized closure), in XLA's
//! reference order (the reduced indices in row-major order); and its variadic form over
//! accumulators built from flat indices.

use super::{canonicalize, PAR_TASK_ELEMENTS};
use crate::error::{element_count, KernelError};
use crate::par;
use crate::tensor::MAX_RANK;

/// Generic reduce: `dst[o] = f(...f(f(init, x[o, r_0]), x[o, r_1])..., x[o, r_last])`, the
/// reduced indices `r` in row-major order (XLA's reference order), for any element type and
/// combiner. Shapes and errors as [`super::reduce_fast`].
pub fn reduce<T: Copy + Send + Sync>(
    src: &[T],
    dims: &[usize],
    reduce_dims: &[usize],
    init: T,
    f: impl Fn(T, T) -> T + Sync + Send,
    dst: &mut [T],
) -> Result<(), KernelError> {
    KernelError::check_len("reduce", "src", element_count("reduce", dims)?, src.len())?;
    reduce_indexed(dims, reduce_dims, init, |i| src[i], f, dst)
}

/// Variadic reduce over accumulators of any type `A`: `dst[o] = f(...f(f(init, load(i_0)),
/// load(i_1))..., load(i_last))`, where `i_k` are the flat row-major input indices (of shape
/// `dims`) of output `o`'s reduced elements, in row-major order. `load` reads the operands,
/// e.g. `|i| (x[i], (i % n) as i32)` for an argmax along the last dim.
///
/// Errors: as [`super::reduce_fast`] (there is no input buffer to check: `load` must accept every
/// flat index below `prod(dims)`).
pub fn reduce_indexed<A: Copy + Send + Sync>(
    dims: &[usize],
    reduce_dims: &[usize],
    init: A,
    load: impl Fn(usize) -> A + Sync + Send,
    f: impl Fn(A, A) -> A + Sync + Send,
    dst: &mut [A],
) -> Result<(), KernelError> {
    let total = element_count("reduce", dims)?;
    canonicalize("reduce", total, dims, reduce_dims, dst.len())?;
    let rank = dims.len();
    // Strides of the kept and of the reduced dims, in their original order.
    let mut stride = [0usize; MAX_RANK];
    let mut acc = 1;
    for d in (0..rank).rev() {
        stride[d] = acc;
        acc *= dims[d];
    }
    let is_red = |d: usize| reduce_dims.contains(&d);
    let mut ke = [0usize; MAX_RANK];
    let mut ks = [0usize; MAX_RANK];
    let mut re = [0usize; MAX_RANK];
    let mut rs = [0usize; MAX_RANK];
    let (mut nk, mut nr) = (0, 0);
    for d in 0..rank {
        if is_red(d) {
            (re[nr], rs[nr]) = (dims[d], stride[d]);
            nr += 1;
        } else {
            (ke[nk], ks[nk]) = (dims[d], stride[d]);
            nk += 1;
        }
    }
    let (ke, ks, re, rs) = (&ke[..nk], &ks[..nk], &re[..nr], &rs[..nr]);
    let n_red: usize = re.iter().product();
    let one = |o: usize| {
        // The flat offset of output `o`'s first element.
        let (mut rest, mut base) = (o, 0);
        for d in (0..nk).rev() {
            base += (rest % ke[d]) * ks[d];
            rest /= ke[d];
        }
        let mut idx = [0usize; MAX_RANK];
        let (mut off, mut a) = (base, init);
        for _ in 0..n_red {
            a = f(a, load(off));
            // Row-major step over the reduced dims.
            for d in (0..nr).rev() {
                idx[d] += 1;
                off += rs[d];
                if idx[d] < re[d] {
                    break;
                }
                off -= rs[d] * re[d];
                idx[d] = 0;
            }
        }
        a
    };
    let parallel = total >= par::PAR_MIN_ELEMENTS && dst.len() > 1;
    super::each_output(
        dst,
        (PAR_TASK_ELEMENTS / n_red.max(1)).max(1),
        parallel,
        one,
    );
    Ok(())
}
