//! `MpiCollectives` under `mpiexec` (feature `mpi`; no libtest harness: MPI runs one process per
//! rank). `cargo test -p xla-kernels --features mpi --test mpi` starts itself under
//! `mpiexec -n 2` and `-n 3` with a wall-clock limit (a hang fails the test); under mpiexec
//! (`PMI_RANK` set) each rank runs the checks below.

use std::io::Read;
use std::process::{Command, ExitCode, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use xla_core::spmd::{CollectiveError, Collectives, DeviceId, MessagesOnly};
use xla_kernels::collectives::mpi::MpiCollectives;
use xla_kernels::collectives::{ragged_all_to_all, Rows};

/// How long a rank waits for a silent peer in these tests.
const TIMEOUT: Duration = Duration::from_secs(3);
/// The whole `mpiexec` run, beyond which the launcher kills it and fails.
const WALL_CLOCK: Duration = Duration::from_secs(120);

fn main() -> ExitCode {
    if std::env::var_os("PMI_RANK").is_some() {
        rank_main();
        return ExitCode::SUCCESS;
    }
    let mut ok = true;
    for n in ["2", "3"] {
        ok &= launch(&["-n", n], false).is_some_and(|(status, _)| status.success());
    }
    ok &= dead_rank();
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// A rank that dies (exits without MPI_Finalize) ends the run: by default mpiexec kills the
/// other ranks (SIGKILL) and exits with the code of whichever rank it reaps first, the dead
/// rank's 3 or the killed one's 9 (MPICH 4.0's Hydra gave 9 in 2 of 6 runs on one machine);
/// with `-disable-auto-cleanup` the other rank's `recv` is `Err(Timeout)` and it exits
/// (skipping MPI_Finalize, which would wait for the dead rank). Either way, no hang.
fn dead_rank() -> bool {
    let killed = launch(&["-n", "2"], true);
    let timed_out = launch(&["-disable-auto-cleanup", "-n", "2"], true);
    let ok = killed.is_some_and(|(status, _)| matches!(status.code(), Some(3 | 9)))
        && timed_out.is_some_and(|(status, out)| {
            status.code() == Some(3)
                && out.contains("dead rank: Err(Timeout")
                && out.contains("peer: 1")
        });
    eprintln!(
        "a dead rank ends the run: {}",
        if ok { "ok" } else { "FAILED" }
    );
    ok
}

/// Runs this binary under `mpiexec args` (with one rank dying if `die`), returning its status
/// and output; `None` (and a message) if it cannot start or runs past [`WALL_CLOCK`].
fn launch(args: &[&str], die: bool) -> Option<(ExitStatus, String)> {
    let exe = std::env::current_exe().expect("the test binary's path");
    let start = Instant::now();
    let mut cmd = Command::new("mpiexec");
    cmd.args(args).arg(&exe).stdout(Stdio::piped());
    if die {
        cmd.env("XLA_MPI_TEST_DIE", "1");
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mpi test: cannot run mpiexec ({e}): install MPICH (scripts/test.sh does)");
            return None;
        }
    };
    loop {
        match child.try_wait().expect("waiting for mpiexec") {
            Some(status) => {
                let mut out = String::new();
                child.stdout.take()?.read_to_string(&mut out).ok()?;
                print!("{out}");
                eprintln!("mpiexec {args:?}: {status} in {:?}", start.elapsed());
                return Some((status, out));
            }
            None if start.elapsed() > WALL_CLOCK => {
                let _ = child.kill();
                eprintln!("mpiexec {args:?}: still running after {WALL_CLOCK:?}: a hang, killed");
                return None;
            }
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// One rank: every check, then the time-out (the last rank stops early).
fn rank_main() {
    let c = MpiCollectives::init(1)
        .expect("MPI initialises")
        .with_timeout(TIMEOUT);
    let (me, n) = (c.device_id(), c.num_devices());
    assert_eq!(
        (c.replica_id(), c.partition_id(), c.num_replicas()),
        (me, 0, n)
    );
    if std::env::var_os("XLA_MPI_TEST_DIE").is_some() {
        if me == n - 1 {
            std::process::exit(3);
        }
        // Killed by mpiexec while waiting, or (-disable-auto-cleanup) a time-out.
        let r = c.recv(n - 1, &mut [0u8; 4]);
        println!("device {me}: recv from a dead rank: {r:?}");
        return;
    }
    send_recv_order(&c);
    group_exchanges_match_defaults(&c);
    ragged_all_to_all_on_mpi(&c);
    recv_length_mismatch(&c);
    all_gather_size_mismatch(&c);
    if me == n - 1 {
        // Stops early: never joins the exchanges below; its peers must time out, not hang.
        println!("device {me}: all checks passed, stopping early");
        return;
    }
    timeout_when_a_rank_stops_early(&c);
    println!("device {me}: all checks passed");
}

/// Bytes device `from` sends to device `to` in message `k` (its length varies with `k`).
fn message(from: DeviceId, to: DeviceId, k: usize) -> Vec<u8> {
    let len = [0, 1, 1000, 1 << 20, 3][k];
    (0..len)
        .map(|i| (i * 7 + k * 31 + from as usize * 5 + to as usize * 3) as u8)
        .collect()
}

/// Five messages to every peer (one empty, one of 1 MiB: MPI's rendezvous protocol), all sent
/// before any is received: `send` must not wait, and each pair's messages arrive in order.
fn send_recv_order(c: &MpiCollectives) {
    let (me, n) = (c.device_id(), c.num_devices());
    for to in (0..n).filter(|&d| d != me) {
        for k in 0..5 {
            c.send(to, &message(me, to, k)).unwrap();
        }
    }
    for from in (0..n).filter(|&d| d != me) {
        for k in 0..5 {
            let want = message(from, me, k);
            let mut got = vec![0xAA; want.len()];
            c.recv(from, &mut got).unwrap();
            assert!(got == want, "device {me}: message {k} from {from} differs");
        }
    }
    println!("device {me}: send/recv order ok");
}

/// all_gather and all_to_all on the world (MPI collectives), on the world reversed and on a
/// sub-group (point-to-point): each device's bytes land where the contract says, and the
/// overrides give the defaults' bytes.
fn group_exchanges_match_defaults(c: &MpiCollectives) {
    let (me, n) = (c.device_id(), c.num_devices());
    let world: Vec<DeviceId> = (0..n).collect();
    let reversed: Vec<DeviceId> = (0..n).rev().collect();
    let pair: Vec<DeviceId> = vec![0, n - 1];
    for chunk in [4usize, 1 << 20] {
        for group in [&world, &reversed, &pair] {
            if !group.contains(&me) {
                continue;
            }
            let g = group.len();
            let send: Vec<u8> = (0..chunk).map(|i| (i + 3 * me as usize) as u8).collect();
            let mut got = vec![0; chunk * g];
            c.all_gather(group, &send, &mut got).unwrap();
            for (i, &d) in group.iter().enumerate() {
                let want: Vec<u8> = (0..chunk).map(|b| (b + 3 * d as usize) as u8).collect();
                assert!(
                    got[i * chunk..(i + 1) * chunk] == want[..],
                    "all_gather {group:?}"
                );
            }
            let mut default = vec![0; chunk * g];
            MessagesOnly(c)
                .all_gather(group, &send, &mut default)
                .unwrap();
            assert!(got == default, "all_gather {group:?}: override != default");

            // Chunk j of device d is filled with 16 * d + j.
            let send: Vec<u8> = (0..g * chunk)
                .map(|b| (16 * me as usize + b / chunk) as u8)
                .collect();
            let mut got = vec![0; g * chunk];
            c.all_to_all(group, &send, &mut got).unwrap();
            let at = group.iter().position(|&d| d == me).unwrap();
            for (i, &d) in group.iter().enumerate() {
                let from_d = &got[i * chunk..(i + 1) * chunk];
                assert!(
                    from_d.iter().all(|&b| b == (16 * d as usize + at) as u8),
                    "all_to_all"
                );
            }
            let mut default = vec![0; g * chunk];
            MessagesOnly(c)
                .all_to_all(group, &send, &mut default)
                .unwrap();
            assert!(got == default, "all_to_all {group:?}: override != default");
        }
    }
    println!("device {me}: all_gather/all_to_all ok, identical to the default bodies");
}

/// RaggedAllToAll (`spmd::ops`, written once over the trait: MPI's all_to_all for the
/// announcements, its send/recv for the rows) on the world: device `d` sends `(d + j) % 3`
/// rows to member `j` (empty sends included), packed in sender order in the receiver's output,
/// whose last row nobody writes. Rows of 1 and of 2^17 f32 (messages of up to 1 MiB: MPI's
/// rendezvous protocol). The same bytes as through the trait's default all_to_all; then invalid offsets
/// on device 0: `Err(Invalid)` on every device, and the exchanges after it still pair up.
fn ragged_all_to_all_on_mpi(c: &MpiCollectives) {
    let (me, n) = (c.device_id() as i64, c.num_devices() as i64);
    let world: Vec<DeviceId> = (0..n as DeviceId).collect();
    let size = |from: i64, to: i64| (from + to) % 3;
    // Rows this device receives, and where sender p's rows start in member j's output.
    let at = |p: i64, j: i64| (0..p).map(|q| size(q, j)).sum::<i64>();
    let input_rows = (0..n).map(|j| size(me, j)).sum::<i64>();
    let output_rows = (0..n).map(|j| at(n, j)).max().unwrap() + 1;
    let input_offsets: Vec<i64> = (0..n).map(|j| (0..j).map(|q| size(me, q)).sum()).collect();
    let send_sizes: Vec<i64> = (0..n).map(|j| size(me, j)).collect();
    let output_offsets: Vec<i64> = (0..n).map(|j| at(me, j)).collect();
    let recv_sizes: Vec<i64> = (0..n).map(|p| size(p, me)).collect();
    for row in [1usize, 1 << 17] {
        let rows = Rows {
            input: input_rows as usize,
            output: output_rows as usize,
            row,
        };
        // Element t of input row r of device d: d * 1000 + r + (t % 8) / 8, exact in f32.
        let value = |d: i64, r: i64, t: usize| (d * 1000 + r) as f32 + (t % 8) as f32 * 0.125;
        let input: Vec<f32> = (0..input_rows)
            .flat_map(|r| (0..row).map(move |t| value(me, r, t)))
            .collect();
        let output = vec![-1f32; rows.output * row];
        let meta = [
            &input_offsets[..],
            &send_sizes[..],
            &output_offsets[..],
            &recv_sizes[..],
        ];
        let mut got = vec![0f32; output.len()];
        ragged_all_to_all(c, &world, &input, &output, meta, rows, &mut got).unwrap();
        // Sender p's rows for this device start at its input row sum_{q < me} size(p, q).
        let mut want = output.clone();
        for p in 0..n {
            let from: i64 = (0..me).map(|q| size(p, q)).sum();
            for r in 0..size(p, me) {
                let to = (at(p, me) + r) as usize * row;
                for t in 0..row {
                    want[to + t] = value(p, from + r, t);
                }
            }
        }
        assert!(got == want, "device {me}: ragged_all_to_all, rows of {row}");
        let mut default = vec![0f32; output.len()];
        ragged_all_to_all(
            &MessagesOnly(c),
            &world,
            &input,
            &output,
            meta,
            rows,
            &mut default,
        )
        .unwrap();
        assert!(got == default, "device {me}: override != default");
    }
    // Device 0 reads past its input: every device fails, none waits.
    let mut bad = input_offsets.clone();
    if me == 0 {
        bad[0] = input_rows + 1;
    }
    let rows = Rows {
        input: input_rows as usize,
        output: output_rows as usize,
        row: 1,
    };
    let input = vec![0f32; input_rows as usize];
    let output = vec![0f32; output_rows as usize];
    let meta = [
        &bad[..],
        &send_sizes[..],
        &output_offsets[..],
        &recv_sizes[..],
    ];
    let mut got = vec![0f32; output.len()];
    match ragged_all_to_all(c, &world, &input, &output, meta, rows, &mut got) {
        Err(CollectiveError::Invalid {
            op: "RaggedAllToAll",
            detail,
        }) => {
            let want = if me == 0 {
                "input_offsets[0]"
            } else {
                "device 0"
            };
            assert!(detail.contains(want), "device {me}: {detail}");
        }
        other => panic!("device {me}: ragged_all_to_all with a bad offset: {other:?}"),
    }
    println!("device {me}: ragged_all_to_all ok (empty sends, 1 MiB rows, an invalid offset)");
}

/// A message of another length than the receive buffer is `Err(Mismatch)`, and the message is
/// consumed: the next one is received normally.
fn recv_length_mismatch(c: &MpiCollectives) {
    let (me, n) = (c.device_id(), c.num_devices());
    let next = (me + 1) % n;
    let prev = (me + n - 1) % n;
    c.send(next, &[1; 10]).unwrap();
    c.send(next, &[2; 4]).unwrap();
    let mut buf = [0u8; 12];
    match c.recv(prev, &mut buf) {
        Err(CollectiveError::Mismatch { op: "recv", detail }) => {
            assert!(detail.contains("sent 10 bytes"), "{detail}")
        }
        other => panic!("device {me}: 10 bytes into 12: {other:?}"),
    }
    let mut buf = [0u8; 4];
    c.recv(prev, &mut buf).unwrap();
    assert_eq!(buf, [2; 4]);
    println!("device {me}: recv length mismatch is Err(Mismatch) and keeps the order");
}

/// Devices disagreeing on an all_gather's size: every device gets `Err(Mismatch)`.
fn all_gather_size_mismatch(c: &MpiCollectives) {
    let (me, n) = (c.device_id(), c.num_devices());
    let world: Vec<DeviceId> = (0..n).collect();
    let len = if me == 0 { 3 } else { 2 };
    let mut recv = vec![0u8; len * n as usize];
    match c.all_gather(&world, &vec![7; len], &mut recv) {
        Err(CollectiveError::Mismatch {
            op: "all_gather",
            detail,
        }) => {
            assert!(detail.contains("[3, 2"), "{detail}")
        }
        other => panic!("device {me}: all_gather of 3 and 2 bytes: {other:?}"),
    }
    println!("device {me}: all_gather size mismatch is Err(Mismatch) on every device");
}

/// The last device has stopped: a recv from it and an all_gather including it time out (after
/// about [`TIMEOUT`], naming it), then the transport refuses further exchanges.
fn timeout_when_a_rank_stops_early(c: &MpiCollectives) {
    let (me, n) = (c.device_id(), c.num_devices());
    let last = n - 1;
    let world: Vec<DeviceId> = (0..n).collect();
    let start = Instant::now();
    let mut recv = vec![0u8; 4 * n as usize];
    match c.all_gather(&world, &[me as u8; 4], &mut recv) {
        Err(CollectiveError::Timeout { peer, waited, .. }) => {
            assert_eq!(peer, last);
            assert!(
                waited >= TIMEOUT && start.elapsed() < TIMEOUT * 3,
                "{waited:?}"
            );
        }
        other => panic!("device {me}: all_gather without device {last}: {other:?}"),
    }
    match c.recv(last, &mut [0u8; 4]) {
        Err(CollectiveError::Transport(m)) => assert!(m.contains("earlier exchange"), "{m}"),
        other => panic!("device {me}: recv after a time-out: {other:?}"),
    }
    println!(
        "device {me}: a stopped device is Err(Timeout) after {:?}",
        start.elapsed()
    );
}
