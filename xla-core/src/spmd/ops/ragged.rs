//! RaggedAllToAll over the byte transport, for the evaluator and generated code alike.
//!
//! The offsets and sizes have `G * k` entries for a group of `G`: entry `e = j * k + i` is
//! update `i` to member `j` (XLA's GPU runtime indexes them so). Update `e` sends the rows
//! `input[input_offsets[e] .. + send_sizes[e]]` to member `j`, which writes them at its
//! `output[output_offsets[e] .. + send_sizes[e]]` (the sender gives the receiver's offsets);
//! `recv_sizes[e]` is what this device receives in update `i` from member `j`. The result is
//! `output` with the received rows written over it.
//!
//! Three steps, each in a fixed order:
//!
//! 1. Every device checks its own sends (offsets and sizes non-negative, within its input's
//!    rows, and within the output's rows: every device runs one program, so its output has
//!    the receiver's rows) and tells every member, in one fixed-size all-to-all, whether they
//!    passed and, per update, the output offset and the size it sends there.
//! 2. A device whose sends passed sends each other member one message holding the rows of
//!    its `k` updates to it, in update order (none when they hold no element).
//! 3. Every device copies `output` and writes the updates it receives in group order, then
//!    update order (rows two updates both write keep the later one's: XLA leaves that order
//!    undefined), after checking each against its `recv_sizes` and its output's rows.
//!
//! Any invalid value is an [`CollectiveError::Invalid`] naming the op and the values, on every
//! member of the group: the device whose values they are names them, its peers name it. Every
//! message announced in step 1 is received whatever fails, so no device waits on another and
//! no message is left behind; no row is read or written outside its buffer.

use super::{expect, read_into, write_bytes, Wire};
use crate::spmd::{position, CollectiveError, Collectives, DeviceId};

const OP: &str = "RaggedAllToAll";

/// The offsets' and sizes' names, in the operands' order.
const NAMES: [&str; 4] = [
    "input_offsets",
    "send_sizes",
    "output_offsets",
    "recv_sizes",
];

/// RaggedAllToAll's rows: how many the input and the output have (their outermost
/// dimensions), and the elements of one row (the product of the other dimensions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rows {
    /// The input's outermost dimension.
    pub input: usize,
    /// The output's outermost dimension.
    pub output: usize,
    /// Elements per row.
    pub row: usize,
}

fn invalid(detail: String) -> CollectiveError {
    CollectiveError::Invalid { op: OP, detail }
}

/// `v` as the little-endian word `w` of `b`.
fn put(b: &mut [u8], w: usize, v: i64) {
    b[w * 8..w * 8 + 8].copy_from_slice(&v.to_le_bytes());
}

/// Word `w` of `b`.
fn get(b: &[u8], w: usize) -> i64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[w * 8..w * 8 + 8]);
    i64::from_le_bytes(a)
}

/// RaggedAllToAll on this device of `group` (see the module docs): `meta` is `[input_offsets,
/// send_sizes, output_offsets, recv_sizes]`, all of one length, `G * k`.
pub fn ragged_all_to_all<T: Wire, I: Copy + Into<i64>>(
    ctx: &dyn Collectives,
    group: &[DeviceId],
    input: &[T],
    output: &[T],
    meta: [&[I]; 4],
    rows: Rows,
    out: &mut [T],
) -> Result<(), CollectiveError> {
    expect(OP, "the input", input.len(), rows.input * rows.row)?;
    expect(OP, "the output", output.len(), rows.output * rows.row)?;
    expect(OP, "the result", out.len(), output.len())?;
    let len = meta[0].len();
    for (name, m) in NAMES.iter().zip(meta).skip(1) {
        expect(OP, name, m.len(), len)?;
    }
    let g = group.len();
    if g == 0 || len == 0 || !len.is_multiple_of(g) {
        return Err(invalid(format!(
            "the offsets and sizes have {len} entries, not a positive multiple of the group \
             size, {g} (entry j*k + i is update i to group member j)"
        )));
    }
    let k = len / g;
    let me = position(ctx.device_id(), group, OP)?;
    let v = |m: usize, e: usize| -> i64 { meta[m][e].into() };

    // 1. This device's sends checked, then announced to each member.
    let sends = check_sends(&v, group, k, rows);
    let words = 1 + 2 * k;
    let mut announce = vec![0u8; g * words * 8];
    for (j, w) in announce.chunks_exact_mut(words * 8).enumerate() {
        put(w, 0, i64::from(sends.is_ok()));
        for i in 0..k {
            put(w, 1 + 2 * i, v(2, j * k + i));
            put(w, 2 + 2 * i, v(1, j * k + i));
        }
    }
    let mut heard = vec![0u8; announce.len()];
    ctx.all_to_all(group, &announce, &mut heard)?;

    // 2. The rows of every update to member j, in one message.
    if sends.is_ok() {
        for (j, &d) in group.iter().enumerate().filter(|&(j, _)| j != me) {
            let at = |i: usize| {
                let e = j * k + i;
                (v(0, e) as usize * rows.row, v(1, e) as usize * rows.row)
            };
            let n: usize = (0..k).map(|i| at(i).1).sum();
            if n == 0 {
                continue;
            }
            let mut bytes = vec![0u8; n * T::SIZE];
            let mut b = 0;
            for (start, len) in (0..k).map(at) {
                write_bytes(&input[start..start + len], &mut bytes[b..b + len * T::SIZE]);
                b += len * T::SIZE;
            }
            ctx.send(d, &bytes)?;
        }
    }

    // 3. The output, then what each member sends, in group order.
    out.copy_from_slice(output);
    let mut problem = sends.err();
    let mut buf = Vec::new();
    for (p, &d) in group.iter().enumerate() {
        let w = &heard[p * words * 8..(p + 1) * words * 8];
        if get(w, 0) == 0 {
            if p != me {
                problem.get_or_insert_with(|| {
                    format!(
                        "group member {p} (device {d}) sends no rows: its own offsets or sizes \
                         are invalid (its error names them)"
                    )
                });
            }
            continue;
        }
        let updates: Vec<(i64, i64)> = (0..k)
            .map(|i| (get(w, 1 + 2 * i), get(w, 2 + 2 * i)))
            .collect();
        let mut fits = true;
        for (i, &(offset, size)) in updates.iter().enumerate() {
            let (e, theirs) = (p * k + i, me * k + i);
            let r = v(3, e);
            if r != size {
                fits = false;
                problem.get_or_insert_with(|| {
                    format!(
                        "recv_sizes[{e}] = {r}, but group member {p} (device {d}) sends {size} \
                         rows in its update {i} to this device (its send_sizes[{theirs}])"
                    )
                });
            }
            let end = offset.checked_add(size);
            if offset < 0 || size < 0 || end.is_none_or(|end| end > rows.output as i64) {
                fits = false;
                problem.get_or_insert_with(|| {
                    format!(
                        "group member {p} (device {d}) writes rows {offset}..{} of this device's \
                         output, which has {} rows (its output_offsets[{theirs}] and \
                         send_sizes[{theirs}]): the devices run different programs",
                        offset.saturating_add(size),
                        rows.output
                    )
                });
            }
        }
        if p == me {
            if fits {
                for (i, &(offset, size)) in updates.iter().enumerate() {
                    let (from, n) = (
                        v(0, me * k + i) as usize * rows.row,
                        size as usize * rows.row,
                    );
                    let to = offset as usize * rows.row;
                    out[to..to + n].copy_from_slice(&input[from..from + n]);
                }
            }
            continue;
        }
        // Exactly the rows the peer announced (it checked its sizes), received even when they
        // do not fit, so the pair's next message is the next op's.
        let n: usize = updates
            .iter()
            .map(|&(_, s)| s.max(0) as usize)
            .sum::<usize>()
            * rows.row;
        if n == 0 {
            continue;
        }
        buf.resize(n * T::SIZE, 0);
        ctx.recv(d, &mut buf)?;
        if fits {
            let mut b = 0;
            for &(offset, size) in &updates {
                let (to, n) = (offset as usize * rows.row, size as usize * rows.row);
                read_into(&buf[b..b + n * T::SIZE], &mut out[to..to + n]);
                b += n * T::SIZE;
            }
        }
    }
    problem.map_or(Ok(()), |m| Err(invalid(m)))
}

/// The first of this device's updates whose rows fall outside the input, or outside the
/// output of the member that writes them (every member's output has this one's rows).
fn check_sends(
    v: &impl Fn(usize, usize) -> i64,
    group: &[DeviceId],
    k: usize,
    rows: Rows,
) -> Result<(), String> {
    for (j, &d) in group.iter().enumerate() {
        for i in 0..k {
            let e = j * k + i;
            let (io, s, oo) = (v(0, e), v(1, e), v(2, e));
            // Formatted only for an invalid entry (this runs on every call).
            let whose = || format!("update {i} to group member {j}, device {d}");
            let past = |o: i64, n: usize| o.checked_add(s).is_none_or(|end| end > n as i64);
            let msg = if io < 0 {
                format!("input_offsets[{e}] = {io} is negative ({})", whose())
            } else if s < 0 {
                format!("send_sizes[{e}] = {s} is negative ({})", whose())
            } else if oo < 0 {
                format!("output_offsets[{e}] = {oo} is negative ({})", whose())
            } else if past(io, rows.input) {
                format!(
                    "input_offsets[{e}] = {io} + send_sizes[{e}] = {s} is past the input's {} \
                     rows ({})",
                    rows.input,
                    whose()
                )
            } else if past(oo, rows.output) {
                format!(
                    "output_offsets[{e}] = {oo} + send_sizes[{e}] = {s} is past the output's {} \
                     rows ({}, which writes them)",
                    rows.output,
                    whose()
                )
            } else {
                continue;
            };
            return Err(msg);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
