//! Host I/O of an SPMD run: each device's infeed and outfeed queues and the run's channels
//! (Send/Recv), and the typed ops the evaluator and generated code call over a device's
//! [`Collectives`].
//!
//! Every value crosses as the little-endian wire bytes of one array ([`Wire`]): an Infeed,
//! Outfeed, Send or Recv of a tuple moves one value per element, in order.
//!
//! [`HostQueues`] is what the caller of a run holds: it fills the infeed queues (and channels
//! a Recv reads) before or during the run, and reads the outfeed queues (and what Sends left on
//! channels) after it. `ThreadRunner::run_host` hands it to every device.
//!
//! Channels follow StableHLO's interpreter: one FIFO queue per channel id for the whole run; a
//! Send pushes, a Recv of the same channel (on any device) pops, waiting for a value. A Send
//! whose value nobody receives stays on the channel for the host to read.

use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::ops::{read_into, to_bytes, Wire};
use super::{CollectiveError, Collectives, DeviceId};
use crate::element::ElementType;
use crate::literal::{ArrayElement, Literal};
use crate::shape::{ArrayShape, Shape};
use crate::with_array_data;

/// The host's side of a run's I/O: infeed and outfeed queues per device, channels by id.
#[derive(Debug, Default)]
pub struct HostQueues {
    state: Mutex<HostState>,
    /// Woken by every push onto a channel (and when a device ends).
    wake: Condvar,
}

#[derive(Debug, Default)]
struct HostState {
    infeed: HashMap<DeviceId, VecDeque<Vec<u8>>>,
    outfeed: HashMap<DeviceId, VecDeque<Vec<u8>>>,
    channels: HashMap<i64, VecDeque<Vec<u8>>>,
}

impl HostQueues {
    /// Empty queues.
    pub fn new() -> Self {
        HostQueues::default()
    }

    fn lock(&self) -> MutexGuard<'_, HostState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends one value (wire bytes of one array) to `device`'s infeed queue.
    pub fn push_infeed_bytes(&self, device: DeviceId, bytes: Vec<u8>) {
        self.lock()
            .infeed
            .entry(device)
            .or_default()
            .push_back(bytes);
    }

    /// Appends the array `x` to `device`'s infeed queue.
    pub fn push_infeed<T: Wire>(&self, device: DeviceId, x: &[T]) {
        self.push_infeed_bytes(device, to_bytes(x));
    }

    /// Appends `value` to `device`'s infeed queue: one value per array of it, in order (a
    /// token adds nothing).
    pub fn push_infeed_literal(&self, device: DeviceId, value: &Literal) {
        for b in literal_bytes(value) {
            self.push_infeed_bytes(device, b);
        }
    }

    /// Values still in `device`'s infeed queue.
    pub fn infeed_len(&self, device: DeviceId) -> usize {
        self.lock().infeed.get(&device).map_or(0, VecDeque::len)
    }

    /// The oldest value of `device`'s outfeed queue, taken off it.
    pub fn pop_outfeed_bytes(&self, device: DeviceId) -> Option<Vec<u8>> {
        self.lock().outfeed.get_mut(&device)?.pop_front()
    }

    /// The oldest value of `device`'s outfeed queue as elements of `T` (`None` when the queue
    /// is empty or the value's length is not a whole number of elements).
    pub fn pop_outfeed<T: Wire>(&self, device: DeviceId) -> Option<Vec<T>> {
        from_bytes(&self.pop_outfeed_bytes(device)?)
    }

    /// The oldest values of `device`'s outfeed queue as a literal of `shape` (one value per
    /// array of it); `None` when too few are queued or one has the wrong length.
    pub fn pop_outfeed_literal(&self, device: DeviceId, shape: &Shape) -> Option<Literal> {
        literal_from(shape, &mut || self.pop_outfeed_bytes(device))
    }

    /// Values in `device`'s outfeed queue.
    pub fn outfeed_len(&self, device: DeviceId) -> usize {
        self.lock().outfeed.get(&device).map_or(0, VecDeque::len)
    }

    /// Appends a value to channel `channel` (what a Recv of it reads next).
    pub fn push_channel_bytes(&self, channel: i64, bytes: Vec<u8>) {
        self.lock()
            .channels
            .entry(channel)
            .or_default()
            .push_back(bytes);
        self.wake.notify_all();
    }

    /// Appends the array `x` to channel `channel`.
    pub fn push_channel<T: Wire>(&self, channel: i64, x: &[T]) {
        self.push_channel_bytes(channel, to_bytes(x));
    }

    /// The oldest value on channel `channel` (a Send nobody received), taken off it.
    pub fn pop_channel_bytes(&self, channel: i64) -> Option<Vec<u8>> {
        self.lock().channels.get_mut(&channel)?.pop_front()
    }

    /// The oldest value on channel `channel` as elements of `T`.
    pub fn pop_channel<T: Wire>(&self, channel: i64) -> Option<Vec<T>> {
        from_bytes(&self.pop_channel_bytes(channel)?)
    }

    /// Values waiting on channel `channel`.
    pub fn channel_len(&self, channel: i64) -> usize {
        self.lock().channels.get(&channel).map_or(0, VecDeque::len)
    }

    /// Wakes every Recv waiting on a channel (a device ended: it may wait in vain).
    pub fn notify(&self) {
        self.wake.notify_all();
    }

    /// A device's Infeed: the next value of its queue into `buf`; an empty queue or a value of
    /// another length is an `Err`.
    pub fn infeed(&self, device: DeviceId, buf: &mut [u8]) -> Result<(), CollectiveError> {
        let v = self
            .lock()
            .infeed
            .get_mut(&device)
            .and_then(VecDeque::pop_front)
            .ok_or_else(|| {
                CollectiveError::Transport(format!(
                    "Infeed: the infeed queue of device {device} is empty"
                ))
            })?;
        super::expect_len("Infeed", "the value", "bytes", v.len(), buf.len())?;
        buf.copy_from_slice(&v);
        Ok(())
    }

    /// A device's Outfeed: `bytes` appended to its queue.
    pub fn outfeed(&self, device: DeviceId, bytes: &[u8]) {
        self.lock()
            .outfeed
            .entry(device)
            .or_default()
            .push_back(bytes.to_vec());
    }

    /// A Recv on `channel`: waits until a value is there, until `deadline`, or until
    /// `give_up()` says no one can send any more.
    pub fn recv(
        &self,
        channel: i64,
        buf: &mut [u8],
        timeout: Duration,
        give_up: &dyn Fn() -> bool,
    ) -> Result<(), CollectiveError> {
        let start = Instant::now();
        let deadline = start + timeout;
        let mut st = self.lock();
        loop {
            if let Some(v) = st.channels.get_mut(&channel).and_then(VecDeque::pop_front) {
                drop(st);
                super::expect_len("Recv", "the value", "bytes", v.len(), buf.len())?;
                buf.copy_from_slice(&v);
                return Ok(());
            }
            if give_up() {
                return Err(CollectiveError::Transport(format!(
                    "Recv: nothing was sent on channel {channel} and every other device has \
                     ended"
                )));
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(CollectiveError::Timeout {
                    op: "Recv",
                    peer: u32::MAX,
                    waited: now - start,
                });
            }
            // Short waits: a device that ends without sending is seen within one.
            let wait = (deadline - now).min(Duration::from_millis(50));
            st = self
                .wake
                .wait_timeout(st, wait)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

fn from_bytes<T: Wire>(b: &[u8]) -> Option<Vec<T>> {
    if !b.len().is_multiple_of(T::SIZE.max(1)) {
        return None;
    }
    let mut out = vec![T::default(); b.len() / T::SIZE.max(1)];
    read_into(b, &mut out);
    Some(out)
}

/// The wire bytes of each array of `value`, in order (a token has none).
pub fn literal_bytes(value: &Literal) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    fn walk(l: &Literal, out: &mut Vec<Vec<u8>>) {
        match l {
            Literal::Array { data, .. } => out.push(with_array_data!(data, v: T => to_bytes(v))),
            Literal::Tuple(es) => es.iter().for_each(|e| walk(e, out)),
            Literal::Token => {}
        }
    }
    walk(value, &mut out);
    out
}

/// A literal of `shape` from one value per array (`next` gives them in order); `None` when one
/// is missing or has the wrong length.
pub fn literal_from(shape: &Shape, next: &mut dyn FnMut() -> Option<Vec<u8>>) -> Option<Literal> {
    match shape {
        Shape::Array(a) => {
            let b = next()?;
            array_from_bytes(a, &b)
        }
        Shape::Tuple(ts) => ts
            .iter()
            .map(|t| literal_from(t, next))
            .collect::<Option<Vec<_>>>()
            .map(Literal::Tuple),
        Shape::Token => Some(Literal::Token),
    }
}

/// An array of `shape` from its wire bytes; `None` when the length is wrong.
pub fn array_from_bytes(shape: &ArrayShape, b: &[u8]) -> Option<Literal> {
    let n = shape.element_count() as usize;
    let zero = Literal::zeros(shape);
    let Literal::Array { data, .. } = zero else {
        return None;
    };
    let data = with_array_data!(data, v: T => {
        if b.len() != n * <T as Wire>::SIZE {
            return None;
        }
        let mut v = v;
        read_into(b, &mut v);
        <T as ArrayElement>::wrap(v)
    });
    Some(Literal::Array {
        shape: shape.clone(),
        data,
    })
}

/// Infeed of one array: the next value of the device's queue into `out`.
pub fn infeed<T: Wire>(
    ctx: &dyn Collectives,
    config: &str,
    ty: ElementType,
    dims: &[i64],
    out: &mut [T],
) -> Result<(), CollectiveError> {
    let mut buf = vec![0u8; out.len() * T::SIZE];
    ctx.infeed(config, ty, dims, &mut buf)?;
    read_into(&buf, out);
    Ok(())
}

/// Outfeed of one array.
pub fn outfeed<T: Wire>(
    ctx: &dyn Collectives,
    config: &str,
    ty: ElementType,
    dims: &[i64],
    x: &[T],
) -> Result<(), CollectiveError> {
    ctx.outfeed(config, ty, dims, &to_bytes(x))
}

/// Send of one array on `channel`.
pub fn send<T: Wire>(ctx: &dyn Collectives, channel: i64, x: &[T]) -> Result<(), CollectiveError> {
    ctx.host_send(channel, &to_bytes(x))
}

/// Recv of one array from `channel` into `out`.
pub fn recv<T: Wire>(
    ctx: &dyn Collectives,
    channel: i64,
    out: &mut [T],
) -> Result<(), CollectiveError> {
    let mut buf = vec![0u8; out.len() * T::SIZE];
    ctx.host_recv(channel, &mut buf)?;
    read_into(&buf, out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spmd::threads::ThreadRunner;

    #[test]
    fn infeed_outfeed_and_channels_on_threads() {
        let host = HostQueues::new();
        host.push_infeed(0, &[1.5f32, 2.5]);
        host.push_infeed(1, &[7.0f32, 8.0]);
        let out = ThreadRunner::new(2, 1).run_host(&host, |c| {
            let mut x = [0f32; 2];
            infeed(c, "", ElementType::F32, &[2], &mut x)?;
            outfeed(c, "", ElementType::F32, &[2], &[x[0] + x[1]])?;
            if c.device_id() == 0 {
                send(c, 3, &[x[0] as i32])?;
                Ok(0)
            } else {
                let mut r = [0i32];
                recv(c, 3, &mut r)?;
                Ok(r[0])
            }
        });
        let out: Vec<i32> = out.into_iter().map(Result::unwrap).collect();
        assert_eq!(out, [0, 1]);
        assert_eq!(host.pop_outfeed::<f32>(0), Some(vec![4.0]));
        assert_eq!(host.pop_outfeed::<f32>(1), Some(vec![15.0]));
        assert_eq!(host.channel_len(3), 0);
    }

    #[test]
    fn empty_infeed_and_unsent_recv_are_errors_not_hangs() {
        let host = HostQueues::new();
        let out = ThreadRunner::new(1, 1).run_host(&host, |c| {
            let mut x = [0u8; 4];
            c.infeed("", ElementType::U8, &[4], &mut x)
        });
        assert!(format!("{:?}", out[0]).contains("is empty"), "{out:?}");
        let start = Instant::now();
        let out = ThreadRunner::new(2, 1).run_host(&host, |c| {
            let mut x = [0u8; 4];
            if c.device_id() == 0 {
                c.host_recv(9, &mut x)
            } else {
                Ok(())
            }
        });
        assert!(format!("{:?}", out[0]).contains("channel 9"), "{out:?}");
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn literals_cross_as_one_value_per_array() {
        let l = Literal::Tuple(vec![
            Literal::from_vec(&[2], vec![1i64, 2]).unwrap(),
            Literal::scalar(true),
        ]);
        let host = HostQueues::new();
        host.push_infeed_literal(0, &l);
        assert_eq!(host.infeed_len(0), 2);
        let mut st = host.lock();
        let q = st.infeed.remove(&0).unwrap();
        drop(st);
        let mut it = q.into_iter();
        let back = literal_from(&l.shape(), &mut || it.next()).unwrap();
        assert_eq!(format!("{back:?}"), format!("{l:?}"));
    }
}
