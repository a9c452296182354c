//! The thread transport: every device of an SPMD run is a thread of this process, and messages
//! are byte vectors in one FIFO mailbox per ordered pair of devices.
//!
//! A device that panics or returns `Err` marks itself failed: every peer waiting on it gets
//! [`CollectiveError::PeerFailed`] at once. A device that finished without sending what a peer
//! waits for fails that peer the same way, and a peer that never sends times out
//! ([`CollectiveError::Timeout`], default 60 s, [`ThreadRunner::timeout`]). No run hangs.

use super::host::HostQueues;
use super::{CollectiveError, Collectives, DeviceId};
use crate::element::ElementType;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The default time a `recv` waits for its message.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Starts `num_replicas x num_partitions` devices as threads and collects their results.
#[derive(Debug, Clone, Copy)]
pub struct ThreadRunner {
    num_replicas: u32,
    num_partitions: u32,
    timeout: Duration,
}

/// Runs `f` once per device on threads ([`ThreadRunner`] with the default time-out); result
/// `d` is device `d`'s (`d = replica * num_partitions + partition`).
pub fn run_threads<R, F>(
    num_replicas: u32,
    num_partitions: u32,
    f: F,
) -> Vec<Result<R, CollectiveError>>
where
    R: Send,
    F: Fn(&dyn Collectives) -> Result<R, CollectiveError> + Sync,
{
    ThreadRunner::new(num_replicas, num_partitions).run(f)
}

impl ThreadRunner {
    /// A run of `num_replicas x num_partitions` devices (each at least 1) with the default
    /// time-out.
    pub fn new(num_replicas: u32, num_partitions: u32) -> Self {
        ThreadRunner {
            num_replicas,
            num_partitions,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// The same runner whose `recv` waits at most `timeout` for a message.
    pub fn timeout(self, timeout: Duration) -> Self {
        ThreadRunner { timeout, ..self }
    }

    /// Runs `f` on every device, each on its own thread, and returns the results in device
    /// order. A panic is caught and becomes that device's `Err`
    /// ([`CollectiveError::Transport`] naming the device and the panic message).
    pub fn run<R, F>(&self, f: F) -> Vec<Result<R, CollectiveError>>
    where
        R: Send,
        F: Fn(&dyn Collectives) -> Result<R, CollectiveError> + Sync,
    {
        self.run_host(&HostQueues::new(), f)
    }

    /// [`ThreadRunner::run`] with the host's queues: each device's Infeed reads its queue of
    /// `host`, Outfeed appends to it, Send and Recv use `host`'s channels (a Recv waits up to
    /// the time-out, or until every other device has ended).
    pub fn run_host<R, F>(&self, host: &HostQueues, f: F) -> Vec<Result<R, CollectiveError>>
    where
        R: Send,
        F: Fn(&dyn Collectives) -> Result<R, CollectiveError> + Sync,
    {
        let n = (self.num_replicas * self.num_partitions) as usize;
        if n == 0 {
            return Vec::new();
        }
        let shared = Shared::new(n, self.timeout);
        let f = &f;
        let shared = &shared;
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..n as DeviceId)
                .map(|device| {
                    let ctx = ThreadCtx {
                        shared,
                        device,
                        runner: *self,
                        host,
                    };
                    std::thread::Builder::new()
                        .name(format!("xla-device-{device}"))
                        .spawn_scoped(s, move || ctx.run_device(f))
                        .expect("spawning a device thread")
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("device thread result"))
                .collect()
        })
    }
}

/// Mailboxes and device states, shared by the threads of one run.
struct Shared {
    n: usize,
    timeout: Duration,
    state: Mutex<State>,
    /// One per receiving device: `send` wakes only the receiver; a failure wakes everyone.
    wake: Vec<Condvar>,
}

struct State {
    /// `boxes[from * n + to]`: messages in flight, oldest first.
    boxes: Vec<VecDeque<Vec<u8>>>,
    /// `Some(reason)` once a device panicked, returned `Err`, or finished.
    ended: Vec<Option<End>>,
    /// Message buffers already received, reused by the next sends: a fresh operand-sized
    /// buffer per message costs a page fault per 4 KiB it touches.
    spare: Vec<Vec<u8>>,
}

#[derive(Clone)]
enum End {
    Failed(String),
    Finished,
}

impl Shared {
    fn new(n: usize, timeout: Duration) -> Self {
        Shared {
            n,
            timeout,
            state: Mutex::new(State {
                boxes: (0..n * n).map(|_| VecDeque::new()).collect(),
                ended: vec![None; n],
                spare: Vec::new(),
            }),
            wake: (0..n).map(|_| Condvar::new()).collect(),
        }
    }

    /// The state, even after a device panicked while holding it (the state stays valid: every
    /// update is a single push, pop or assignment).
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn end(&self, device: DeviceId, end: End) {
        self.lock().ended[device as usize] = Some(end);
        for w in &self.wake {
            w.notify_all();
        }
    }
}

/// One device's view of the run.
struct ThreadCtx<'a> {
    shared: &'a Shared,
    device: DeviceId,
    runner: ThreadRunner,
    host: &'a HostQueues,
}

impl ThreadCtx<'_> {
    /// Runs the device's work and records how it ended, so peers waiting on it stop waiting.
    fn run_device<R, F>(&self, f: &F) -> Result<R, CollectiveError>
    where
        F: Fn(&dyn Collectives) -> Result<R, CollectiveError>,
    {
        let result = match catch_unwind(AssertUnwindSafe(|| f(self))) {
            Ok(r) => r,
            Err(payload) => Err(CollectiveError::Transport(format!(
                "device {} panicked: {}",
                self.device,
                panic_message(payload.as_ref())
            ))),
        };
        let end = match &result {
            Ok(_) => End::Finished,
            Err(e) => End::Failed(e.to_string()),
        };
        self.shared.end(self.device, end);
        self.host.notify();
        result
    }

    fn check_peer(&self, peer: DeviceId, op: &str) -> Result<usize, CollectiveError> {
        if peer as usize >= self.shared.n || peer == self.device {
            return Err(CollectiveError::Transport(format!(
                "{op}: device {} cannot exchange with device {peer} (run of {} devices)",
                self.device, self.shared.n
            )));
        }
        Ok(peer as usize)
    }
}

/// The text of a panic payload (`&str` or `String`), else a placeholder.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-string panic payload".to_string()
    }
}

impl Collectives for ThreadCtx<'_> {
    fn replica_id(&self) -> u32 {
        self.device / self.runner.num_partitions
    }

    fn partition_id(&self) -> u32 {
        self.device % self.runner.num_partitions
    }

    fn num_replicas(&self) -> u32 {
        self.runner.num_replicas
    }

    fn num_partitions(&self) -> u32 {
        self.runner.num_partitions
    }

    fn send(&self, to: DeviceId, bytes: &[u8]) -> Result<(), CollectiveError> {
        let to = self.check_peer(to, "send")?;
        let from = self.device as usize;
        // The copy runs outside the lock: a receiver copying out must not wait for it.
        let mut msg = self.shared.lock().spare.pop().unwrap_or_default();
        msg.clear();
        msg.extend_from_slice(bytes);
        self.shared.lock().boxes[from * self.shared.n + to].push_back(msg);
        self.shared.wake[to].notify_all();
        Ok(())
    }

    fn infeed(
        &self,
        _config: &str,
        _ty: ElementType,
        _dims: &[i64],
        buf: &mut [u8],
    ) -> Result<(), CollectiveError> {
        self.host.infeed(self.device, buf)
    }

    fn outfeed(
        &self,
        _config: &str,
        _ty: ElementType,
        _dims: &[i64],
        bytes: &[u8],
    ) -> Result<(), CollectiveError> {
        self.host.outfeed(self.device, bytes);
        Ok(())
    }

    fn host_send(&self, channel: i64, bytes: &[u8]) -> Result<(), CollectiveError> {
        self.host.push_channel_bytes(channel, bytes.to_vec());
        Ok(())
    }

    fn host_recv(&self, channel: i64, buf: &mut [u8]) -> Result<(), CollectiveError> {
        let me = self.device as usize;
        let others_ended = || {
            let st = self.shared.lock();
            st.ended
                .iter()
                .enumerate()
                .all(|(d, e)| d == me || e.is_some())
        };
        self.host
            .recv(channel, buf, self.shared.timeout, &others_ended)
    }

    fn lends_messages(&self) -> bool {
        true
    }

    fn recv(&self, from: DeviceId, buf: &mut [u8]) -> Result<(), CollectiveError> {
        self.recv_with(from, buf.len(), &mut |msg| {
            buf.copy_from_slice(msg);
            Ok(())
        })
    }

    fn recv_with(
        &self,
        from: DeviceId,
        len: usize,
        f: &mut dyn FnMut(&[u8]) -> Result<(), CollectiveError>,
    ) -> Result<(), CollectiveError> {
        let from_i = self.check_peer(from, "recv")?;
        let me = self.device as usize;
        let start = Instant::now();
        let deadline = start + self.shared.timeout;
        let mut state = self.shared.lock();
        loop {
            if let Some(msg) = state.boxes[from_i * self.shared.n + me].pop_front() {
                drop(state);
                if msg.len() != len {
                    return Err(CollectiveError::Mismatch {
                        op: "recv",
                        detail: format!(
                            "device {me} expected {} bytes from device {from}, which sent {}",
                            len,
                            msg.len()
                        ),
                    });
                }
                let done = f(&msg);
                let mut state = self.shared.lock();
                // At most a few per device in flight at once: keep that many.
                if state.spare.len() < 2 * self.shared.n {
                    state.spare.push(msg);
                }
                return done;
            }
            match &state.ended[from_i] {
                Some(End::Failed(reason)) => {
                    return Err(CollectiveError::PeerFailed {
                        peer: from,
                        reason: reason.clone(),
                    })
                }
                Some(End::Finished) => {
                    return Err(CollectiveError::PeerFailed {
                        peer: from,
                        reason: format!("it finished without sending to device {me}"),
                    })
                }
                None => {}
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(CollectiveError::Timeout {
                    op: "recv",
                    peer: from,
                    waited: now - start,
                });
            }
            state = self.shared.wake[me]
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

#[cfg(test)]
mod tests;
