//! The collectives, written once over the byte transport ([`Collectives`]) for typed elements:
//! the evaluator (`eval::collective`) and generated code (`xla_kernels::collectives`) both call
//! these, so every device, transport and back end computes the same bits.
//!
//! Every exchange is in a fixed order and every reduction folds the group in group order:
//! `acc = x@g0; acc = f(acc, x@g1); ...` for each element (XLA:CPU's in-process all-reduce
//! folds participants in the same order; `tests/oracle_collectives.rs` checks f32 sums bit
//! for bit against it on 1 to 4 replicas).

use super::{CollectiveError, Collectives, DeviceId};
use num_complex::Complex;

mod ragged;
pub use ragged::{ragged_all_to_all, Rows};

/// An element sent as little-endian bytes (pred as one byte, complex as re then im).
pub trait Wire: Copy + Default + Send + Sync + 'static {
    /// Bytes per element.
    const SIZE: usize;
    /// Writes the element into `out[..SIZE]`.
    fn put(self, out: &mut [u8]);
    /// Reads an element from `b[..SIZE]`.
    fn get(b: &[u8]) -> Self;
    /// `x` as its wire bytes without a copy, where an element's memory is its wire form
    /// (plain little-endian numbers on a little-endian target); `None` otherwise (pred,
    /// complex), which then go element by element.
    fn wire_of(x: &[Self]) -> Option<&[u8]> {
        let _ = x;
        None
    }
    /// [`Wire::wire_of`] for writing.
    fn wire_of_mut(x: &mut [Self]) -> Option<&mut [u8]> {
        let _ = x;
        None
    }
}

macro_rules! wire_le {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline]
            fn put(self, out: &mut [u8]) {
                out[..Self::SIZE].copy_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn get(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..Self::SIZE]);
                <$t>::from_le_bytes(a)
            }
            #[cfg(target_endian = "little")]
            fn wire_of(x: &[Self]) -> Option<&[u8]> {
                Some(bytemuck::cast_slice(x))
            }
            #[cfg(target_endian = "little")]
            fn wire_of_mut(x: &mut [Self]) -> Option<&mut [u8]> {
                Some(bytemuck::cast_slice_mut(x))
            }
        }
    )*};
}
wire_le!(
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    f32,
    f64,
    half::f16,
    half::bf16
);

impl Wire for bool {
    const SIZE: usize = 1;
    #[inline]
    fn put(self, out: &mut [u8]) {
        out[0] = u8::from(self);
    }
    #[inline]
    fn get(b: &[u8]) -> Self {
        b[0] != 0
    }
}

impl<T: Wire + num_traits::Zero> Wire for Complex<T> {
    const SIZE: usize = 2 * T::SIZE;
    #[inline]
    fn put(self, out: &mut [u8]) {
        self.re.put(out);
        self.im.put(&mut out[T::SIZE..]);
    }
    #[inline]
    fn get(b: &[u8]) -> Self {
        Complex::new(T::get(b), T::get(&b[T::SIZE..]))
    }
}

pub(crate) fn to_bytes<T: Wire>(x: &[T]) -> Vec<u8> {
    let mut out = vec![0u8; x.len() * T::SIZE];
    write_bytes(x, &mut out);
    out
}

/// `x`'s wire bytes into `out[..x.len() * SIZE]`.
fn write_bytes<T: Wire>(x: &[T], out: &mut [u8]) {
    if let Some(b) = T::wire_of(x) {
        out[..b.len()].copy_from_slice(b);
        return;
    }
    for (v, o) in x.iter().zip(out.chunks_exact_mut(T::SIZE)) {
        v.put(o);
    }
}

thread_local! {
    /// This thread's staging buffers (send, receive) for the byte exchanges, kept between
    /// calls: an operand-sized buffer allocated afresh on every call costs a page fault per
    /// 4 KiB touched, which made an AllReduce of f32[1M] 200x slower than a memcpy.
    static STAGE: std::cell::RefCell<(Vec<u8>, Vec<u8>)> = const {
        std::cell::RefCell::new((Vec::new(), Vec::new()))
    };
}

/// Runs `f` on this thread's staging buffers, sized `send` and `recv` bytes (contents
/// unspecified). The buffers are taken out for the call, so a nested use (none today) would
/// only allocate, never alias.
fn staged<R>(send: usize, recv: usize, f: impl FnOnce(&mut [u8], &mut [u8]) -> R) -> R {
    let (mut s, mut r) = STAGE.with(|c| std::mem::take(&mut *c.borrow_mut()));
    if s.len() < send {
        s.resize(send, 0);
    }
    if r.len() < recv {
        r.resize(recv, 0);
    }
    let out = f(&mut s[..send], &mut r[..recv]);
    STAGE.with(|c| *c.borrow_mut() = (s, r));
    out
}

pub(crate) fn read_into<T: Wire>(b: &[u8], out: &mut [T]) {
    let n = out.len().min(b.len() / T::SIZE);
    if let Some(o) = T::wire_of_mut(&mut out[..n]) {
        o.copy_from_slice(&b[..n * T::SIZE]);
        return;
    }
    for (o, c) in out.iter_mut().zip(b.chunks_exact(T::SIZE)) {
        *o = T::get(c);
    }
}

/// An array seen around one dimension: `outer` rows of `extent x inner` elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Around {
    /// The product of the dimensions before.
    pub outer: usize,
    /// The dimension's size.
    pub extent: usize,
    /// The product of the dimensions after.
    pub inner: usize,
}

impl Around {
    /// `dims` around dimension `d` (`d < dims.len()`).
    pub fn of(dims: &[i64], d: usize) -> Around {
        let p = |s: &[i64]| s.iter().product::<i64>().max(0) as usize;
        Around {
            outer: p(&dims[..d]),
            extent: dims[d].max(0) as usize,
            inner: p(&dims[d + 1..]),
        }
    }

    fn len(self) -> usize {
        self.outer * self.extent * self.inner
    }
}

/// [`expect_len`](super::expect_len) of a buffer's elements.
fn expect(op: &'static str, what: &str, got: usize, want: usize) -> Result<(), CollectiveError> {
    super::expect_len(op, what, "elements", got, want)
}

/// `x` cut into `g` equal blocks along `a`'s dimension, block `j` first for `j = 0..g`, as
/// wire bytes into `out` (`x.len() * SIZE` of them).
fn blocks<T: Wire>(x: &[T], a: Around, g: usize, out: &mut [u8]) {
    let row = a.extent / g * a.inner;
    let mut at = 0;
    for j in 0..g {
        for o in 0..a.outer {
            let start = o * a.extent * a.inner + j * row;
            write_bytes(&x[start..start + row], &mut out[at..at + row * T::SIZE]);
            at += row * T::SIZE;
        }
    }
}

/// `parts` (each of `part` dims around the dimension) concatenated along it into `out`.
fn join<T: Wire>(parts: &[u8], part: Around, g: usize, out: &mut [T]) {
    let row = part.extent * part.inner;
    let n = part.len();
    for i in 0..g {
        for o in 0..part.outer {
            let src = &parts[(i * n + o * row) * T::SIZE..][..row * T::SIZE];
            let dst = o * row * g + i * row;
            read_into(src, &mut out[dst..dst + row]);
        }
    }
}

/// ReduceScatter: `x`'s blocks along `a`'s dimension (`g` of them) go to the group's members
/// in order; `out` gets this member's block folded over the group in group order.
pub fn reduce_scatter<T: Wire>(
    ctx: &dyn Collectives,
    group: &[DeviceId],
    x: &[T],
    a: Around,
    out: &mut [T],
    f: &mut impl FnMut(T, T) -> Result<T, CollectiveError>,
) -> Result<(), CollectiveError> {
    let g = group.len();
    expect("ReduceScatter", "the operand", x.len(), a.len())?;
    expect("ReduceScatter", "the result", out.len(), a.len() / g.max(1))?;
    let n = x.len() * T::SIZE;
    staged(n, n, |send, recv| {
        blocks(x, a, g, send);
        ctx.all_to_all(group, send, recv)?;
        fold(recv, g, out, f)
    })
}

/// `out[k] = fold(f, parts[0][k], parts[1][k], ...)` over the `g` parts in `bytes`.
fn fold<T: Wire>(
    bytes: &[u8],
    g: usize,
    out: &mut [T],
    f: &mut impl FnMut(T, T) -> Result<T, CollectiveError>,
) -> Result<(), CollectiveError> {
    let n = out.len() * T::SIZE;
    read_into(&bytes[..n], out);
    for i in 1..g {
        for (o, c) in out
            .iter_mut()
            .zip(bytes[i * n..(i + 1) * n].chunks_exact(T::SIZE))
        {
            *o = f(*o, T::get(c))?;
        }
    }
    Ok(())
}

/// AllReduce: `out[k] = fold(f, x@g0[k], x@g1[k], ...)`, as a reduce-scatter of `g` flat
/// chunks (each folded over the group in group order) and an all-gather of the results; by
/// point-to-point messages where the transport lends its messages
/// ([`Collectives::lends_messages`]: the threads), else through its `all_to_all` and
/// `all_gather` (MPI's collectives: point to point there took twice as long for f32[16M] on 2
/// ranks, `bash scripts/bench.sh mpi`). Both give the same bits.
pub fn all_reduce<T: Wire>(
    ctx: &dyn Collectives,
    group: &[DeviceId],
    x: &[T],
    out: &mut [T],
    f: &mut impl FnMut(T, T) -> Result<T, CollectiveError>,
) -> Result<(), CollectiveError> {
    expect("AllReduce", "the result", out.len(), x.len())?;
    if x.is_empty() || group.is_empty() {
        return Ok(());
    }
    if ctx.lends_messages() {
        all_reduce_p2p(ctx, group, x, out, f)
    } else {
        all_reduce_collective(ctx, group, x, out, f)
    }
}

/// [`all_reduce`] by messages: member `i` folds chunk `i` (its own part read from `x`, every
/// other member's straight from the received message, in group order) into its place in
/// `out`, sends it to every peer and receives theirs into their places. Messages go from and
/// into `x` and `out` where their memory is the wire form (2 devices of the thread transport:
/// 3 copies of a chunk instead of 7 through staging buffers), else through this thread's
/// staging buffer, which grows once.
fn all_reduce_p2p<T: Wire>(
    ctx: &dyn Collectives,
    group: &[DeviceId],
    x: &[T],
    out: &mut [T],
    f: &mut impl FnMut(T, T) -> Result<T, CollectiveError>,
) -> Result<(), CollectiveError> {
    let g = group.len();
    let me = super::position(ctx.device_id(), group, "AllReduce")?;
    let chunk = x.len().div_ceil(g);
    // Chunk `i`: elements `range(i)` (the last ones may be short or empty).
    let range = |i: usize| (i * chunk).min(x.len())..((i + 1) * chunk).min(x.len());
    let send_part = |to: DeviceId, part: &[T]| match T::wire_of(part) {
        Some(b) => ctx.send(to, b),
        None => staged(part.len() * T::SIZE, 0, |buf, _| {
            write_bytes(part, buf);
            ctx.send(to, buf)
        }),
    };
    for (j, &d) in group.iter().enumerate() {
        if j != me {
            send_part(d, &x[range(j)])?;
        }
    }
    let mine = range(me);
    let acc = &mut out[mine.clone()];
    let bytes = acc.len() * T::SIZE;
    for (i, &d) in group.iter().enumerate() {
        let mut add = |b: &[u8]| -> Result<(), CollectiveError> {
            if i == 0 {
                read_into(b, acc);
                return Ok(());
            }
            for (o, c) in acc.iter_mut().zip(b.chunks_exact(T::SIZE)) {
                *o = f(*o, T::get(c))?;
            }
            Ok(())
        };
        if i == me {
            if i == 0 {
                acc.copy_from_slice(&x[mine.clone()]);
            } else {
                for (o, &v) in acc.iter_mut().zip(&x[mine.clone()]) {
                    *o = f(*o, v)?;
                }
            }
        } else {
            ctx.recv_with(d, bytes, &mut add)?;
        }
    }
    for (j, &d) in group.iter().enumerate() {
        if j != me {
            send_part(d, &out[mine.clone()])?;
        }
    }
    for (i, &d) in group.iter().enumerate() {
        if i == me {
            continue;
        }
        let part = &mut out[range(i)];
        match T::wire_of_mut(part) {
            Some(b) => ctx.recv(d, b)?,
            None => ctx.recv_with(d, part.len() * T::SIZE, &mut |b| {
                read_into(b, part);
                Ok(())
            })?,
        }
    }
    Ok(())
}

/// [`all_reduce`] through the transport's collectives: the chunks (the last padded with
/// defaults, dropped after) by `all_to_all`, the sums by `all_gather`. Allocates nothing once
/// this thread's staging buffers have grown: the chunk this member reduces is folded in
/// `out`'s first elements, then gathered over all of `out`.
fn all_reduce_collective<T: Wire>(
    ctx: &dyn Collectives,
    group: &[DeviceId],
    x: &[T],
    out: &mut [T],
    f: &mut impl FnMut(T, T) -> Result<T, CollectiveError>,
) -> Result<(), CollectiveError> {
    let g = group.len();
    let chunk = x.len().div_ceil(g);
    let bytes = chunk * g * T::SIZE;
    let whole = x.len() == chunk * g;
    staged(bytes, bytes, |send, recv| {
        // Sent straight from `x` where its memory is the wire form and no padding is needed.
        let sent: &[u8] = match T::wire_of(x) {
            Some(b) if whole => b,
            _ => {
                write_bytes(x, send);
                for pad in send[x.len() * T::SIZE..].chunks_exact_mut(T::SIZE) {
                    T::default().put(pad);
                }
                send
            }
        };
        ctx.all_to_all(group, sent, recv)?;
        // chunk <= x.len(), so this member's reduced chunk fits at the front of `out`.
        fold(recv, g, &mut out[..chunk], f)?;
        let mine = &mut send[..chunk * T::SIZE];
        write_bytes(&out[..chunk], mine);
        match T::wire_of_mut(out) {
            Some(o) if whole => ctx.all_gather(group, mine, o)?,
            _ => {
                ctx.all_gather(group, mine, recv)?;
                read_into(recv, out);
            }
        }
        Ok(())
    })
}

/// AllGather: the group's `x`s (each `a` around the gathered dimension) concatenated along
/// it in group order.
pub fn all_gather<T: Wire>(
    ctx: &dyn Collectives,
    group: &[DeviceId],
    x: &[T],
    a: Around,
    out: &mut [T],
) -> Result<(), CollectiveError> {
    let g = group.len();
    expect("AllGather", "the operand", x.len(), a.len())?;
    expect("AllGather", "the result", out.len(), a.len() * g)?;
    let n = x.len() * T::SIZE;
    staged(n, n * g, |send, recv| {
        write_bytes(x, send);
        ctx.all_gather(group, send, recv)?;
        join(recv, a, g, out);
        Ok(())
    })
}

/// AllToAll: `x` cut into `g` blocks along `split`'s dimension, block `j` to member `j`; the
/// received blocks (each `part` around the concat dimension) concatenated along it.
pub fn all_to_all<T: Wire>(
    ctx: &dyn Collectives,
    group: &[DeviceId],
    x: &[T],
    split: Around,
    part: Around,
    out: &mut [T],
) -> Result<(), CollectiveError> {
    let g = group.len();
    expect("AllToAll", "the operand", x.len(), split.len())?;
    expect("AllToAll", "the result", out.len(), part.len() * g)?;
    let n = x.len() * T::SIZE;
    staged(n, n, |send, recv| {
        blocks(x, split, g, send);
        ctx.all_to_all(group, send, recv)?;
        join(recv, part, g, out);
        Ok(())
    })
}

/// CollectivePermute: `x` sent to every device of `to`; `out` is what `from` sent (`x` itself
/// when `from` is this device), zeros (defaults) without a sender.
pub fn collective_permute<T: Wire>(
    ctx: &dyn Collectives,
    from: Option<DeviceId>,
    to: &[DeviceId],
    x: &[T],
    out: &mut [T],
) -> Result<(), CollectiveError> {
    expect("CollectivePermute", "the result", out.len(), x.len())?;
    let me = ctx.device_id();
    let bytes = to_bytes(x);
    for &t in to.iter().filter(|&&t| t != me) {
        ctx.send(t, &bytes)?;
    }
    match from {
        None => out.fill(T::default()),
        Some(f) if f == me => out.copy_from_slice(x),
        Some(f) => {
            let mut buf = vec![0u8; bytes.len()];
            ctx.recv(f, &mut buf)?;
            read_into(&buf, out);
        }
    }
    Ok(())
}

/// CollectiveBroadcast: every member of `group` gets its first member's `x`; a device in no
/// group (`None`) gets zeros.
pub fn collective_broadcast<T: Wire>(
    ctx: &dyn Collectives,
    group: Option<&[DeviceId]>,
    x: &[T],
    out: &mut [T],
) -> Result<(), CollectiveError> {
    expect("CollectiveBroadcast", "the result", out.len(), x.len())?;
    let Some(group) = group else {
        out.fill(T::default());
        return Ok(());
    };
    let me = ctx.device_id();
    if group.first() == Some(&me) {
        let bytes = to_bytes(x);
        for &d in &group[1..] {
            ctx.send(d, &bytes)?;
        }
        out.copy_from_slice(x);
    } else if let Some(&root) = group.first() {
        let mut buf = vec![0u8; x.len() * T::SIZE];
        ctx.recv(root, &mut buf)?;
        read_into(&buf, out);
    }
    Ok(())
}
