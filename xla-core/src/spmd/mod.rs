//! SPMD: one program run by several devices (replicas x partitions), and the byte exchanges its
//! collectives are made of.
//!
//! A transport ([`Collectives`]) moves bytes between devices: threads of one process
//! (`spmd::threads`) or MPI ranks (`xla_kernels::collectives::mpi`, feature `mpi`). It knows
//! nothing of element types or reductions: every collective op is written once, above the
//! transport, as exchanges of bytes followed by local work in a fixed order (an AllReduce is an
//! all-to-all of chunks, each chunk reduced in group order, then an all-gather). So the result
//! bits are the same on every device and for every transport.
//!
//! The same context carries a device's host I/O (Infeed, Outfeed, and Send/Recv on channels):
//! [`Collectives::infeed`] and its siblings, whose default bodies are an `Err`; the thread
//! runner implements them on [`host::HostQueues`].
//!
//! Devices are numbered as XLA flattens them: `device = replica * num_partitions + partition`.
//! Every device runs the same program, so its collectives happen in the same order on every
//! device: messages between two devices match by order (FIFO per ordered pair).

use std::fmt;
use std::time::Duration;

use crate::element::ElementType;

/// A device's flattened id: `replica_id * num_partitions + partition_id`.
pub type DeviceId = u32;

/// Why a collective could not complete. Returned, never panicked: a replica that fails must not
/// leave the others hanging.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CollectiveError {
    /// A peer did not send within the time-out (it died, hangs, or runs another program).
    Timeout {
        /// The exchange that waited.
        op: &'static str,
        /// The device that was waited for.
        peer: DeviceId,
        /// How long this device waited.
        waited: Duration,
    },
    /// A peer failed (panicked, returned an error, or its process ended) before it sent.
    PeerFailed {
        /// The device that failed.
        peer: DeviceId,
        /// What it reported, when it could.
        reason: String,
    },
    /// Devices of one group called an exchange with different sizes: the replicas disagree on
    /// a shape (or run different programs).
    Mismatch {
        /// The exchange.
        op: &'static str,
        /// Which sizes differed.
        detail: String,
    },
    /// A device id or group outside the run, or a transport-specific failure.
    Transport(String),
    /// An op's run-time operand values are invalid (RaggedAllToAll's offsets and sizes out of
    /// range, or a receiver's `recv_sizes` not what its peer sends): `detail` names the values.
    Invalid {
        /// The op.
        op: &'static str,
        /// Which values, and the rule they break.
        detail: String,
    },
}

impl fmt::Display for CollectiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CollectiveError::Timeout { op, peer, waited } => write!(
                f,
                "{op}: device {peer} did not send within {waited:?} (it failed, hangs, or runs \
                 another program)"
            ),
            CollectiveError::PeerFailed { peer, reason } => {
                write!(f, "device {peer} failed: {reason}")
            }
            CollectiveError::Mismatch { op, detail } => {
                write!(f, "{op}: devices disagree on sizes: {detail}")
            }
            CollectiveError::Transport(m) => write!(f, "collective transport: {m}"),
            CollectiveError::Invalid { op, detail } => write!(f, "{op}: {detail}"),
        }
    }
}

impl std::error::Error for CollectiveError {}

/// One device's end of an SPMD run: who it is, and point-to-point byte messages to and from the
/// other devices. `send` never waits for the receiver (the transport buffers or overlaps it);
/// `recv` waits, up to the transport's time-out, for the next message from `from`. Messages
/// from one device to another arrive in the order they were sent.
///
/// The group exchanges ([`all_gather`](Collectives::all_gather),
/// [`all_to_all`](Collectives::all_to_all)) have portable default bodies on `send`/`recv`; a
/// transport may override them with its own (MPI's) as long as every device receives the same
/// bytes.
pub trait Collectives: Sync {
    /// This device's replica, in `[0, num_replicas)`.
    fn replica_id(&self) -> u32;
    /// This device's partition, in `[0, num_partitions)`.
    fn partition_id(&self) -> u32;
    /// Replicas in the run.
    fn num_replicas(&self) -> u32;
    /// Partitions per replica.
    fn num_partitions(&self) -> u32;

    /// Sends `bytes` to device `to` (not this one).
    fn send(&self, to: DeviceId, bytes: &[u8]) -> Result<(), CollectiveError>;
    /// Receives the next message from device `from` into `buf`; a message of another length is
    /// [`CollectiveError::Mismatch`].
    fn recv(&self, from: DeviceId, buf: &mut [u8]) -> Result<(), CollectiveError>;

    /// This device's flattened id, `replica_id * num_partitions + partition_id`.
    fn device_id(&self) -> DeviceId {
        self.replica_id() * self.num_partitions() + self.partition_id()
    }

    /// Devices in the run, `num_replicas * num_partitions`.
    fn num_devices(&self) -> u32 {
        self.num_replicas() * self.num_partitions()
    }

    /// Whether [`Collectives::recv_with`] lends the transport's own message and `send` costs one
    /// copy, so that collectives built from messages beat the staged `all_to_all` and
    /// `all_gather` (AllReduce picks its form by it; the bits are the same either way). The
    /// default: no.
    fn lends_messages(&self) -> bool {
        false
    }

    /// Receives the next message from `from` (`len` bytes, else [`CollectiveError::Mismatch`]
    /// as [`Collectives::recv`]) and hands it to `f` where it lies, when the transport can: the
    /// thread transport lends its message buffer, saving the copy into a caller's buffer. The
    /// default receives into a buffer of this thread (kept for the next call) and lends that.
    fn recv_with(
        &self,
        from: DeviceId,
        len: usize,
        f: &mut dyn FnMut(&[u8]) -> Result<(), CollectiveError>,
    ) -> Result<(), CollectiveError> {
        thread_local! {
            static LENT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let mut buf = LENT.with(|c| std::mem::take(&mut *c.borrow_mut()));
        if buf.len() < len {
            buf.resize(len, 0);
        }
        let done = self
            .recv(from, &mut buf[..len])
            .and_then(|()| f(&buf[..len]));
        LENT.with(|c| *c.borrow_mut() = buf);
        done
    }

    /// `recv[i*n..(i+1)*n]` = the `send` (of `n` bytes) of `group[i]`, for every member of
    /// `group` (device ids in group order; this device among them, all calling with one `n`).
    fn all_gather(
        &self,
        group: &[DeviceId],
        send: &[u8],
        recv: &mut [u8],
    ) -> Result<(), CollectiveError> {
        let me = position(self.device_id(), group, "all_gather")?;
        let n = send.len();
        expect_recv_len("all_gather", recv.len(), n * group.len())?;
        for (i, &d) in group.iter().enumerate() {
            if i != me {
                self.send(d, send)?;
            }
        }
        for (i, &d) in group.iter().enumerate() {
            let out = &mut recv[i * n..(i + 1) * n];
            if i == me {
                out.copy_from_slice(send);
            } else {
                self.recv(d, out)?;
            }
        }
        Ok(())
    }

    /// Reads the next value of this device's infeed queue into `buf`: the little-endian wire
    /// bytes ([`ops::Wire`]) of one array of `ty[dims]` (an Infeed of a tuple reads one value
    /// per element, in order). `config` is the op's `config` string. An empty queue is an
    /// `Err`, never a wait. The default: this transport has no host queues.
    fn infeed(
        &self,
        config: &str,
        ty: ElementType,
        dims: &[i64],
        buf: &mut [u8],
    ) -> Result<(), CollectiveError> {
        let _ = (config, ty, dims, buf);
        Err(no_host_io("Infeed"))
    }

    /// Appends one array's wire bytes (`ty[dims]`) to this device's outfeed queue
    /// (`config`: the op's `outfeed_config`). The default: no host queues.
    fn outfeed(
        &self,
        config: &str,
        ty: ElementType,
        dims: &[i64],
        bytes: &[u8],
    ) -> Result<(), CollectiveError> {
        let _ = (config, ty, dims, bytes);
        Err(no_host_io("Outfeed"))
    }

    /// Send of one array's wire bytes on `channel` (StableHLO's `channel_handle`): the next
    /// Recv of that channel, on any device, or the host, receives them. Never waits. The
    /// default: no host channels.
    fn host_send(&self, channel: i64, bytes: &[u8]) -> Result<(), CollectiveError> {
        let _ = (channel, bytes);
        Err(no_host_io("Send"))
    }

    /// Recv of the next value sent on `channel` (by a device's Send or by the host) into
    /// `buf`; waits up to the transport's time-out, a value of another length is
    /// [`CollectiveError::Mismatch`]. The default: no host channels.
    fn host_recv(&self, channel: i64, buf: &mut [u8]) -> Result<(), CollectiveError> {
        let _ = (channel, buf);
        Err(no_host_io("Recv"))
    }

    /// `send` is `group.len()` chunks of `n` bytes: chunk `j` goes to `group[j]`, and
    /// `recv[i*n..(i+1)*n]` receives chunk `me` of `group[i]`.
    fn all_to_all(
        &self,
        group: &[DeviceId],
        send: &[u8],
        recv: &mut [u8],
    ) -> Result<(), CollectiveError> {
        let me = position(self.device_id(), group, "all_to_all")?;
        let n = chunk_len("all_to_all", send.len(), group.len())?;
        expect_recv_len("all_to_all", recv.len(), send.len())?;
        for (j, &d) in group.iter().enumerate() {
            if j != me {
                self.send(d, &send[j * n..(j + 1) * n])?;
            }
        }
        for (i, &d) in group.iter().enumerate() {
            let out = &mut recv[i * n..(i + 1) * n];
            if i == me {
                out.copy_from_slice(&send[me * n..(me + 1) * n]);
            } else {
                self.recv(d, out)?;
            }
        }
        Ok(())
    }
}

/// A transport seen through its `send` and `recv` alone: every group exchange takes the trait's
/// default form (messages), AllReduce its `all_to_all` + `all_gather` form. For tests and
/// benchmarks that compare a transport's own collectives with the defaults.
pub struct MessagesOnly<'a>(pub &'a dyn Collectives);

impl Collectives for MessagesOnly<'_> {
    fn replica_id(&self) -> u32 {
        self.0.replica_id()
    }
    fn partition_id(&self) -> u32 {
        self.0.partition_id()
    }
    fn num_replicas(&self) -> u32 {
        self.0.num_replicas()
    }
    fn num_partitions(&self) -> u32 {
        self.0.num_partitions()
    }
    fn send(&self, to: DeviceId, bytes: &[u8]) -> Result<(), CollectiveError> {
        self.0.send(to, bytes)
    }
    fn recv(&self, from: DeviceId, buf: &mut [u8]) -> Result<(), CollectiveError> {
        self.0.recv(from, buf)
    }
}

fn no_host_io(op: &str) -> CollectiveError {
    CollectiveError::Transport(format!(
        "{op}: this transport has no host queues (run the program on \
         spmd::threads::ThreadRunner::run_host with a HostQueues)"
    ))
}

/// Where `me` stands in `group`; a group without it is a transport error (a caller bug).
pub fn position(me: DeviceId, group: &[DeviceId], op: &str) -> Result<usize, CollectiveError> {
    group.iter().position(|&d| d == me).ok_or_else(|| {
        CollectiveError::Transport(format!("{op}: device {me} is not in group {group:?}"))
    })
}

/// `Err(Mismatch)` unless a buffer has the length the exchange needs: `got` and `want` in
/// `unit`s ("bytes", "elements"), `what` names the buffer ("the receive buffer", "the result").
pub fn expect_len(
    op: &'static str,
    what: &str,
    unit: &str,
    got: usize,
    want: usize,
) -> Result<(), CollectiveError> {
    if got == want {
        Ok(())
    } else {
        Err(CollectiveError::Mismatch {
            op,
            detail: format!("{what} holds {got} {unit}, the op needs {want}"),
        })
    }
}

/// [`expect_len`] of a transport's receive buffer, in bytes.
pub fn expect_recv_len(op: &'static str, got: usize, want: usize) -> Result<(), CollectiveError> {
    expect_len(op, "the receive buffer", "bytes", got, want)
}

/// The length of each of `g` equal chunks of `len` bytes (an all-to-all's send buffer);
/// `Err(Mismatch)` when they do not split evenly.
pub fn chunk_len(op: &'static str, len: usize, g: usize) -> Result<usize, CollectiveError> {
    if g > 0 && len.is_multiple_of(g) {
        Ok(len / g)
    } else {
        Err(CollectiveError::Mismatch {
            op,
            detail: format!("{len} bytes do not split into {g} chunks"),
        })
    }
}

pub mod groups;
pub mod host;
pub mod ops;
pub mod threads;
