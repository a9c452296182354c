//! Collectives for generated code: the typed ops of [`xla_core::spmd::ops`] (written once over
//! the byte transport, shared with the evaluator, so generated code and the evaluator agree
//! bit for bit), the transports ([`Collectives`]: threads here, MPI in `mpi` behind the `mpi`
//! feature) and what generated code calls with its static attributes: [`group`] (and
//! [`expect_group_size`], the size the op's shapes were built for), [`permute_peers`],
//! [`all_reduce`] with a combine closure.
//!
//! A program with collectives allocates its exchange buffers per call (the messages are owned
//! byte vectors in every transport).

/// The MPI transport (feature `mpi`): one rank per device, rsmpi over the system MPI.
#[cfg(feature = "mpi")]
pub mod mpi;

pub use xla_core::spmd::groups::expect_group_size;
pub use xla_core::spmd::host::{infeed, outfeed, recv, send, HostQueues};
pub use xla_core::spmd::ops::{
    all_gather, all_to_all, collective_broadcast, collective_permute, ragged_all_to_all, Around,
    Rows, Wire,
};
pub use xla_core::spmd::threads::{run_threads, ThreadRunner, DEFAULT_TIMEOUT};
pub use xla_core::spmd::{CollectiveError, Collectives, DeviceId, MessagesOnly};
pub use xla_core::GroupMode;

/// This device's group of `op` (groups in `mode`); `Err` when it is in none of them.
pub fn group(
    ctx: &dyn Collectives,
    op: &str,
    mode: GroupMode,
    replica_groups: &[&[i64]],
) -> Result<Vec<DeviceId>, CollectiveError> {
    group_opt(ctx, op, mode, replica_groups)?.ok_or_else(|| {
        CollectiveError::Transport(format!(
            "{op}: device {} is in none of replica_groups {replica_groups:?}",
            ctx.device_id()
        ))
    })
}

/// This device's group of `op`, `None` when it is in none (CollectiveBroadcast: zeros).
pub fn group_opt(
    ctx: &dyn Collectives,
    op: &str,
    mode: GroupMode,
    replica_groups: &[&[i64]],
) -> Result<Option<Vec<DeviceId>>, CollectiveError> {
    xla_core::spmd::groups::group_of(ctx, op, mode, replica_groups)
}

/// CollectivePermute's peers: the device this one receives from and those it sends to.
pub fn permute_peers(
    ctx: &dyn Collectives,
    mode: GroupMode,
    pairs: &[(i64, i64)],
) -> Result<(Option<DeviceId>, Vec<DeviceId>), CollectiveError> {
    xla_core::spmd::groups::permute_peers_in(ctx, mode, pairs)
}

/// AllReduce of `x` into `out` with `combine` (folded over the group in group order).
pub fn all_reduce<T: Wire>(
    ctx: &dyn Collectives,
    group: &[DeviceId],
    x: &[T],
    out: &mut [T],
    combine: impl Fn(T, T) -> T,
) -> Result<(), CollectiveError> {
    xla_core::spmd::ops::all_reduce(ctx, group, x, out, &mut |a, b| Ok(combine(a, b)))
}

/// ReduceScatter of `x` (`a` around the scattered dimension) into `out` with `combine`.
pub fn reduce_scatter<T: Wire>(
    ctx: &dyn Collectives,
    group: &[DeviceId],
    x: &[T],
    a: Around,
    out: &mut [T],
    combine: impl Fn(T, T) -> T,
) -> Result<(), CollectiveError> {
    xla_core::spmd::ops::reduce_scatter(ctx, group, x, a, out, &mut |p, q| Ok(combine(p, q)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_all_reduce_and_gather_on_threads() {
        let out = run_threads(3, 1, |c| {
            let me = c.device_id() as f32;
            let g = group(c, "AllReduce", GroupMode::CrossReplica, &[])?;
            let mut s = [0f32; 4];
            all_reduce(c, &g, &[me, 1.0, 2.0 * me, -me], &mut s, |a, b| a + b)?;
            let mut all = [0i32; 6];
            let a = Around {
                outer: 1,
                extent: 2,
                inner: 1,
            };
            all_gather(c, &g, &[c.device_id() as i32, 7], a, &mut all)?;
            Ok((s, all))
        });
        for r in out {
            let (s, all) = r.unwrap();
            assert_eq!(s, [3.0, 3.0, 6.0, -3.0]);
            assert_eq!(all, [0, 7, 1, 7, 2, 7]);
        }
    }
}
