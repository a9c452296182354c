//! [`Collectives`] across processes: one MPI rank per device (feature `mpi`), on rsmpi over the
//! system MPI (MPICH from Debian). `mpiexec -n 4 prog` runs 4 devices; device `d` is rank `d`
//! of the world, so `replica = rank / num_partitions`, `partition = rank % num_partitions`.
//!
//! Choices, and why:
//! - **Bytes only, reductions above the transport.** An AllReduce is written once, above
//!   [`Collectives`], as all-to-all + reduce of each chunk in group order + all-gather (the
//!   thread runner sends the same chunks and sums point to point), so MPI
//!   and the thread runner give the same bits. MPI_Allreduce with a built-in op is not used: MPI
//!   leaves the reduction order to the library (it changes with the rank count, message size and
//!   algorithm), and f32 addition is not associative, so at 3 ranks or more its bits may differ
//!   from the threads' (MPICH 4.0.2 matched at 3 in our benchmark; nothing promises it). At 2
//!   ranks `a + b == b + a` exactly, so MPI_SUM is bit-identical there; measured
//!   (`examples/mpi_bench.rs`, README "Collectives across processes (MPI)") it is no faster
//!   than our exchange (`f32[1M]`: 1.79 ms against 1.77; `f32[16M]`: 46.5 ms against 50.2, within
//!   the runs' spread), so one code path serves every rank count.
//! - Messages over `c_int::MAX` bytes (MPI counts are C ints) and groups of one take the
//!   point-to-point path; a single `send` of more is an `Err`.
//! - **`send` never waits**: it copies the bytes into a buffer the transport owns and starts an
//!   `MPI_Isend` on it (a blocking `MPI_Send` of a large message waits for the matching receive,
//!   so the portable all-gather, which sends to every peer before receiving, would deadlock).
//!   Finished sends are reaped at each call; their buffers are freed only once MPI reports them
//!   complete.
//! - **`recv` polls `MPI_Improbe` until a deadline**, then receives the probed message. A
//!   posted `MPI_Irecv` cannot be abandoned safely (MPI may write into the caller's buffer after
//!   we return) and a message longer than its buffer is a truncation error, fatal under MPI's
//!   default error handler; probing first gives the length, so a mismatch is an `Err` (the
//!   message is still consumed, keeping the pair's FIFO aligned) and a silent peer a
//!   [`CollectiveError::Timeout`]. After a time-out the transport refuses further exchanges: a
//!   late message would otherwise be taken for the next one, and MPI_Finalize runs under a
//!   watchdog (see `Drop`).
//! - **Group exchanges use `MPI_Allgather` / `MPI_Alltoall`** (MPI picks ring or
//!   recursive-doubling algorithms by size) on a communicator of the group, after a size
//!   agreement: every member sends its byte count to the others with the timed point-to-point
//!   path. That catches shape mismatches on every member alike, and a missing member as a
//!   `Timeout` naming it, before entering MPI calls that have no time-out. The whole world in
//!   rank order uses the duplicated world; another group gets its own communicator (ranks in
//!   group order, so MPI's results are in group order), made by `MPI_Comm_create_group` on its
//!   first use (after the agreement, so every member is there) and cached.
//! - One mutex around the MPI state: `Collectives` is `Sync`, MPI is initialised with
//!   `MPI_THREAD_SERIALIZED`, so calls from several threads are serialised here.

use std::collections::HashMap;
use std::os::raw::c_int;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use mpi::datatype::Equivalence;
use mpi::environment::Universe;
use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives, Group, Source};
use mpi::Threading;
use xla_core::spmd::{
    chunk_len, expect_recv_len, position, CollectiveError, Collectives, DeviceId,
};

/// The time-out of [`MpiCollectives::init`]: how long a `recv` waits for a peer.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// Tag of the point-to-point messages `send`/`recv` carry.
const DATA_TAG: c_int = 1;
/// Tag of the size agreements before an MPI collective (apart from data, so a device that runs
/// ahead into a collective is not read as a data message).
const SIZE_TAG: c_int = 2;
/// Tag of `MPI_Comm_create_group` (one group is made at a time: the state is locked).
const GROUP_TAG: c_int = 3;
/// The largest message: MPI counts are C `int`s.
const MAX_MESSAGE: usize = c_int::MAX as usize;

/// One process's device of an SPMD run on MPI: rank `r` of the world is device `r`.
pub struct MpiCollectives {
    state: Mutex<State>,
    device: DeviceId,
    num_devices: u32,
    num_partitions: u32,
    timeout: Duration,
    // Last: dropped (MPI_Finalize) after `state` has freed its communicator.
    _universe: Option<Universe>,
}

/// What the MPI calls touch, behind the mutex.
struct State {
    /// A duplicate of the world: our messages never match the program's own MPI traffic.
    comm: SimpleCommunicator,
    /// Communicators of the groups other than the world in rank order, by group.
    groups: HashMap<Vec<DeviceId>, SimpleCommunicator>,
    /// Sends MPI has not finished with, each owning its bytes.
    sends: Vec<InFlight>,
    /// Why the transport refuses exchanges (an earlier time-out), if it does.
    failed: Option<String>,
}

/// A non-blocking send and the buffer it reads from, freed only once MPI has completed it.
struct InFlight {
    request: ffi::MPI_Request,
    buf: Option<Box<[u8]>>,
}

impl InFlight {
    /// Starts `MPI_Isend` of a copy of `bytes` (at most [`MAX_MESSAGE`]) to `to` with `tag`.
    fn start(comm: &SimpleCommunicator, to: c_int, tag: c_int, bytes: &[u8]) -> InFlight {
        debug_assert!(bytes.len() <= MAX_MESSAGE);
        let buf: Box<[u8]> = bytes.into();
        // SAFETY: reading MPI's predefined handles, constants set by MPI_Init.
        let (mut request, byte) = unsafe { (ffi::RSMPI_REQUEST_NULL, ffi::RSMPI_UINT8_T) };
        // SAFETY: `buf` is a live heap block of `buf.len()` bytes (<= c_int::MAX, checked by
        // the caller), owned by the returned InFlight, which frees it only after MPI_Test has
        // reported the request complete and otherwise leaks it (Drop); moving the Box does not
        // move the block. `request` is a valid out-pointer and `comm` a live communicator.
        // tests/mpi.rs sends 1 MiB messages (MPI's rendezvous: read long after this returns)
        // to every peer before receiving any, and checks every byte arrives.
        unsafe {
            ffi::MPI_Isend(
                buf.as_ptr().cast(),
                buf.len() as c_int,
                byte,
                to,
                tag,
                comm.as_raw(),
                &mut request,
            );
        }
        InFlight {
            request,
            buf: Some(buf),
        }
    }

    /// Whether MPI has finished the send (then its buffer is freed).
    fn test(&mut self) -> bool {
        if self.buf.is_none() {
            return true;
        }
        let mut flag: c_int = 0;
        // SAFETY: `request` is the live request of `start` (MPI_Test sets it to
        // MPI_REQUEST_NULL once complete, after which we never test it again: `buf` is None);
        // `flag` is a valid out-pointer and MPI_STATUS_IGNORE asks for no status.
        unsafe { ffi::MPI_Test(&mut self.request, &mut flag, ffi::RSMPI_STATUS_IGNORE) };
        if flag != 0 {
            self.buf = None;
        }
        flag != 0
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        // MPI may still read an unfinished send's buffer: leak it rather than free it.
        if let Some(buf) = self.buf.take() {
            Box::leak(buf);
        }
    }
}

impl Drop for State {
    /// Gives unfinished sends a moment to complete before MPI_Finalize (a peer that stopped
    /// early never receives them; their buffers are then leaked, see [`InFlight`]).
    fn drop(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(1);
        while !self.sends.iter_mut().all(InFlight::test) && Instant::now() < deadline {
            std::thread::yield_now();
        }
    }
}

impl Drop for MpiCollectives {
    /// After a failed exchange the peer that timed out may be dead (`mpiexec
    /// -disable-auto-cleanup`), and MPI_Finalize (run when the universe this value owns drops)
    /// would wait for it forever: a watchdog ends the process with status 1 if the teardown
    /// has not finished within the time-out. Skipping MPI_Finalize instead would make mpiexec
    /// kill the ranks still finalising (a rank that stopped early and is waiting there).
    fn drop(&mut self) {
        let failed = self.state.get_mut().map_or(true, |s| s.failed.is_some());
        if failed && self._universe.is_some() {
            let timeout = self.timeout;
            std::thread::spawn(move || {
                std::thread::sleep(timeout);
                eprintln!(
                    "MpiCollectives: MPI_Finalize did not finish within {timeout:?} after a \
                     failed exchange (a peer died?): exiting"
                );
                std::process::exit(1);
            });
        }
    }
}

impl MpiCollectives {
    /// Initialises MPI (`MPI_THREAD_SERIALIZED`) and makes this rank device `rank` of
    /// `size / num_partitions` replicas of `num_partitions` partitions; MPI is finalised when
    /// the value is dropped. `Err` if MPI was already initialised (use [`on`](Self::on)) or the
    /// world does not split into `num_partitions`.
    pub fn init(num_partitions: u32) -> Result<Self, CollectiveError> {
        let (universe, threading) = mpi::initialize_with_threading(Threading::Serialized)
            .ok_or_else(|| transport("MPI is already initialised: use MpiCollectives::on"))?;
        if !matches!(threading, Threading::Serialized | Threading::Multiple) {
            return Err(transport(format!(
                "the MPI library provides {threading:?} threading, MpiCollectives needs Serialized"
            )));
        }
        let world = universe.world();
        Self::build(&world, num_partitions, Some(universe))
    }

    /// The devices of an MPI program that initialised MPI itself (with at least
    /// `MPI_THREAD_SERIALIZED` if several threads exchange): rank `r` of `comm` is device `r`.
    pub fn on(comm: &SimpleCommunicator, num_partitions: u32) -> Result<Self, CollectiveError> {
        Self::build(comm, num_partitions, None)
    }

    fn build(
        comm: &SimpleCommunicator,
        num_partitions: u32,
        universe: Option<Universe>,
    ) -> Result<Self, CollectiveError> {
        let size = comm.size() as u32;
        if num_partitions == 0 || !size.is_multiple_of(num_partitions) {
            return Err(transport(format!(
                "{size} MPI ranks do not split into replicas of {num_partitions} partitions"
            )));
        }
        let state = State {
            comm: comm.duplicate(),
            groups: HashMap::new(),
            sends: Vec::new(),
            failed: None,
        };
        Ok(MpiCollectives {
            state: Mutex::new(state),
            device: comm.rank() as u32,
            num_devices: size,
            num_partitions,
            timeout: DEFAULT_TIMEOUT,
            _universe: universe,
        })
    }

    /// The same transport with `recv` waiting at most `timeout` for a peer.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The MPI state, unless an earlier exchange failed.
    fn lock(&self) -> Result<MutexGuard<'_, State>, CollectiveError> {
        let st = self
            .state
            .lock()
            .map_err(|_| transport("a thread panicked inside an MPI exchange"))?;
        match &st.failed {
            Some(why) => Err(transport(format!("an earlier exchange failed: {why}"))),
            None => Ok(st),
        }
    }

    /// `Err` unless `peer` is another device of the run and `len` fits an MPI message.
    fn check(&self, op: &str, peer: DeviceId, len: usize) -> Result<(), CollectiveError> {
        if peer >= self.num_devices || peer == self.device {
            return Err(transport(format!(
                "{op}: device {peer} is not a peer of device {} in a run of {} devices",
                self.device, self.num_devices
            )));
        }
        if len > MAX_MESSAGE {
            return Err(transport(format!(
                "{op}: {len} bytes exceed MPI's largest message ({MAX_MESSAGE} bytes)"
            )));
        }
        Ok(())
    }

    fn send_tagged(&self, to: DeviceId, tag: c_int, bytes: &[u8]) -> Result<(), CollectiveError> {
        self.check("send", to, bytes.len())?;
        let mut st = self.lock()?;
        st.sends.retain_mut(|s| !s.test());
        let started = InFlight::start(&st.comm, to as c_int, tag, bytes);
        st.sends.push(started);
        Ok(())
    }

    /// Polls for the next message from `from` with `tag` until the time-out, then receives it.
    fn recv_tagged(
        &self,
        op: &'static str,
        from: DeviceId,
        tag: c_int,
        buf: &mut [u8],
    ) -> Result<(), CollectiveError> {
        self.check(op, from, buf.len())?;
        let start = Instant::now();
        let mut polls = 0u32;
        loop {
            let mut st = self.lock()?;
            let probed = st
                .comm
                .process_at_rank(from as c_int)
                .immediate_matched_probe_with_tag(tag);
            if let Some((message, status)) = probed {
                let count = status.count(u8::equivalent_datatype()) as usize;
                if count == buf.len() {
                    message.matched_receive_into(buf);
                    return Ok(());
                }
                message.matched_receive_into(&mut vec![0u8; count][..]);
                return Err(CollectiveError::Mismatch {
                    op,
                    detail: format!(
                        "device {from} sent {count} bytes, device {} expected {}",
                        self.device,
                        buf.len()
                    ),
                });
            }
            st.sends.retain_mut(|s| !s.test());
            let waited = start.elapsed();
            if waited >= self.timeout {
                let err = CollectiveError::Timeout {
                    op,
                    peer: from,
                    waited,
                };
                st.failed = Some(err.to_string());
                return Err(err);
            }
            drop(st);
            back_off(&mut polls);
        }
    }

    /// Every member of `group` tells the others its byte count `n` (timed point-to-point, so a
    /// missing member is a `Timeout` naming it); `Err(Mismatch)` on every member unless all
    /// agree.
    fn agree(&self, op: &'static str, group: &[DeviceId], n: usize) -> Result<(), CollectiveError> {
        let me = position(self.device, group, op)?;
        let others = || group.iter().enumerate().filter(move |&(i, _)| i != me);
        for (_, &d) in others() {
            self.send_tagged(d, SIZE_TAG, &(n as u64).to_le_bytes())?;
        }
        let mut sizes = vec![n as u64; group.len()];
        for (i, &d) in others() {
            let mut b = [0u8; 8];
            self.recv_tagged(op, d, SIZE_TAG, &mut b)?;
            sizes[i] = u64::from_le_bytes(b);
        }
        if sizes.iter().all(|&s| s == n as u64) {
            return Ok(());
        }
        Err(CollectiveError::Mismatch {
            op,
            detail: format!("bytes sent by each device of group {group:?}: {sizes:?}"),
        })
    }

    /// Runs `f` on the communicator of `group` (ranks in group order): the duplicated world
    /// for the world in rank order, else the group's own, made on first use. Every member
    /// calls this at the same exchange (after [`agree`](Self::agree)), as
    /// `MPI_Comm_create_group` needs.
    fn on_group(
        &self,
        group: &[DeviceId],
        f: impl FnOnce(&SimpleCommunicator),
    ) -> Result<(), CollectiveError> {
        let mut st = self.lock()?;
        let world = group.len() == self.num_devices as usize
            && group.iter().enumerate().all(|(i, &d)| d as usize == i);
        if world {
            f(&st.comm);
            return Ok(());
        }
        if !st.groups.contains_key(group) {
            let ranks: Vec<c_int> = group.iter().map(|&d| d as c_int).collect();
            let members = st.comm.group().include(&ranks);
            let comm = st
                .comm
                .split_by_subgroup_with_tag(&members, GROUP_TAG)
                .ok_or_else(|| transport(format!("no communicator for group {group:?}")))?;
            if comm.size() != members.size() {
                return Err(transport(format!("group {group:?} names a device twice")));
            }
            st.groups.insert(group.to_vec(), comm);
        }
        f(&st.groups[group]);
        Ok(())
    }

    /// The trait's portable exchange on point-to-point messages: `chunk(j)` goes to `group[j]`,
    /// `recv[i*n..(i+1)*n]` comes from `group[i]` (this device's own chunk copied).
    fn exchange<'a>(
        &self,
        op: &'static str,
        group: &[DeviceId],
        chunk: impl Fn(usize) -> &'a [u8],
        recv: &mut [u8],
    ) -> Result<(), CollectiveError> {
        let me = position(self.device, group, op)?;
        let n = chunk(me).len();
        expect_recv_len(op, recv.len(), n * group.len())?;
        for (j, &d) in group.iter().enumerate().filter(|&(j, _)| j != me) {
            self.send_tagged(d, DATA_TAG, chunk(j))?;
        }
        for (i, &d) in group.iter().enumerate() {
            let out = &mut recv[i * n..(i + 1) * n];
            if i == me {
                out.copy_from_slice(chunk(me));
            } else {
                self.recv_tagged(op, d, DATA_TAG, out)?;
            }
        }
        Ok(())
    }
}

impl Collectives for MpiCollectives {
    fn replica_id(&self) -> u32 {
        self.device / self.num_partitions
    }

    fn partition_id(&self) -> u32 {
        self.device % self.num_partitions
    }

    fn num_replicas(&self) -> u32 {
        self.num_devices / self.num_partitions
    }

    fn num_partitions(&self) -> u32 {
        self.num_partitions
    }

    fn send(&self, to: DeviceId, bytes: &[u8]) -> Result<(), CollectiveError> {
        self.send_tagged(to, DATA_TAG, bytes)
    }

    fn recv(&self, from: DeviceId, buf: &mut [u8]) -> Result<(), CollectiveError> {
        self.recv_tagged("recv", from, DATA_TAG, buf)
    }

    /// `MPI_Allgather` on the group's communicator, after a size agreement.
    fn all_gather(
        &self,
        group: &[DeviceId],
        send: &[u8],
        recv: &mut [u8],
    ) -> Result<(), CollectiveError> {
        if group.len() == 1 || recv.len() > MAX_MESSAGE {
            return self.exchange("all_gather", group, |_| send, recv);
        }
        expect_recv_len("all_gather", recv.len(), send.len() * group.len())?;
        self.agree("all_gather", group, send.len())?;
        self.on_group(group, |comm| comm.all_gather_into(send, recv))
    }

    /// `MPI_Alltoall` on the group's communicator, after a size agreement.
    fn all_to_all(
        &self,
        group: &[DeviceId],
        send: &[u8],
        recv: &mut [u8],
    ) -> Result<(), CollectiveError> {
        let g = group.len();
        let n = chunk_len("all_to_all", send.len(), g)?;
        if g == 1 || send.len() > MAX_MESSAGE {
            return self.exchange("all_to_all", group, |j| &send[j * n..(j + 1) * n], recv);
        }
        expect_recv_len("all_to_all", recv.len(), send.len())?;
        self.agree("all_to_all", group, send.len())?;
        self.on_group(group, |comm| comm.all_to_all_into(send, recv))
    }
}

/// Spins briefly (a peer on another core answers in microseconds), then yields, then sleeps
/// 50 us between polls, so a long wait does not take a core from the ranks doing work.
fn back_off(polls: &mut u32) {
    *polls += 1;
    if *polls < 1000 {
        std::hint::spin_loop();
    } else if *polls < 20_000 {
        std::thread::yield_now();
    } else {
        std::thread::sleep(Duration::from_micros(50));
    }
}

fn transport(message: impl Into<String>) -> CollectiveError {
    CollectiveError::Transport(message.into())
}
