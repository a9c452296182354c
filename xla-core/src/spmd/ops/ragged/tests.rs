//! The typed op on the thread transport: the seed's example, several updates per member,
//! and every invalid value as an `Err` on every device (no hang, no panic).

use super::{ragged_all_to_all, Rows};
use crate::spmd::threads::run_threads;
use crate::spmd::{CollectiveError, DeviceId};

/// Device `d`'s operands: `(input, output, [input_offsets, send_sizes, output_offsets,
/// recv_sizes])`.
type Case = (Vec<f32>, Vec<f32>, [Vec<i32>; 4]);

/// Runs the op on `cases.len()` devices (one group of all, rows of `row` elements).
fn run(cases: &[Case], row: usize) -> Vec<Result<Vec<f32>, CollectiveError>> {
    let n = cases.len() as u32;
    let group: Vec<DeviceId> = (0..n).collect();
    run_threads(n, 1, |ctx| {
        let (input, output, m) = &cases[ctx.device_id() as usize];
        let rows = Rows {
            input: input.len() / row,
            output: output.len() / row,
            row,
        };
        let mut out = vec![f32::NAN; output.len()];
        let meta = [&m[0][..], &m[1][..], &m[2][..], &m[3][..]];
        ragged_all_to_all(ctx, &group, input, output, meta, rows, &mut out)?;
        Ok(out)
    })
}

/// The seed's example (operation-semantics, RaggedAllToAll): 2 replicas.
fn seed() -> Vec<Case> {
    vec![
        (
            vec![1., 2., 2.],
            vec![0.; 4],
            [vec![0, 1], vec![1, 2], vec![0, 0], vec![1, 1]],
        ),
        (
            vec![3., 4., 0.],
            vec![0.; 4],
            [vec![0, 1], vec![1, 1], vec![1, 2], vec![2, 1]],
        ),
    ]
}

#[test]
fn the_seeds_example() {
    let out: Vec<Vec<f32>> = run(&seed(), 1).into_iter().map(Result::unwrap).collect();
    assert_eq!(out, vec![vec![1., 3., 0., 0.], vec![2., 2., 4., 0.]]);
}

#[test]
fn several_updates_per_member_are_entries_j_k_plus_i() {
    // k = 2 on 2 devices; rows of 2 elements. Device d's input row r is [10d + r, -(10d + r)].
    let input = |d: i32| -> Vec<f32> {
        (0..4)
            .flat_map(|r| [(10 * d + r) as f32, -(10 * d + r) as f32])
            .collect()
    };
    // Device 0: update 0 to itself rows 0..1 at 3, update 1 to itself nothing; to device 1
    // rows 1..3 at 0 and row 3 at 4.
    // Device 1: to device 0 row 2 at 0 and rows 0..2 at 1; to itself row 3 at 2, nothing.
    let cases = vec![
        (
            input(0),
            vec![7.; 10],
            [
                vec![0, 0, 1, 3],
                vec![1, 0, 2, 1],
                vec![3, 0, 0, 4],
                vec![1, 0, 1, 2],
            ],
        ),
        (
            input(1),
            vec![7.; 10],
            [
                vec![2, 0, 3, 0],
                vec![1, 2, 1, 0],
                vec![0, 1, 2, 0],
                vec![2, 1, 1, 0],
            ],
        ),
    ];
    let out: Vec<Vec<f32>> = run(&cases, 2).into_iter().map(Result::unwrap).collect();
    // Device 0: row 0 <- 1's row 2 (12), rows 1..3 <- 1's rows 0, 1 (10, 11), row 3 <- own
    // row 0, row 4 untouched.
    assert_eq!(
        out[0],
        vec![12., -12., 10., -10., 11., -11., 0., -0., 7., 7.]
    );
    // Device 1: rows 0..2 <- 0's rows 1, 2; row 2 <- own row 3; row 3 untouched; row 4 <- 0's
    // row 3.
    assert_eq!(out[1], vec![1., -1., 2., -2., 13., -13., 7., 7., 3., -3.]);
}

/// Every device's `Err` message.
fn errors(cases: &[Case]) -> Vec<String> {
    run(cases, 1)
        .into_iter()
        .map(|r| match r {
            Err(e @ CollectiveError::Invalid { .. }) => e.to_string(),
            other => panic!("expected Err(Invalid), got {other:?}"),
        })
        .collect()
}

#[test]
fn out_of_range_offsets_and_sizes_fail_every_device() {
    let with = |d: usize, m: usize, e: usize, x: i32| {
        let mut c = seed();
        c[d].2[m][e] = x;
        c
    };
    let e = errors(&with(0, 0, 1, 2));
    assert!(
        e[0].starts_with("RaggedAllToAll: input_offsets[1] = 2 + send_sizes[1] = 2 is past the input's 3 rows (update 0 to group member 1, device 1)"),
        "{}",
        e[0]
    );
    assert!(
        e[1].contains("group member 0 (device 0) sends no rows"),
        "{}",
        e[1]
    );
    let e = errors(&with(1, 2, 1, 4));
    assert!(
        e[1].contains("output_offsets[1] = 4 + send_sizes[1] = 1 is past the output's 4 rows"),
        "{}",
        e[1]
    );
    let e = errors(&with(0, 1, 0, -1));
    assert!(e[0].contains("send_sizes[0] = -1 is negative"), "{}", e[0]);
    let e = errors(&with(1, 0, 0, -5));
    assert!(
        e[1].contains("input_offsets[0] = -5 is negative"),
        "{}",
        e[1]
    );
    let e = errors(&with(1, 2, 0, -1));
    assert!(
        e[1].contains("output_offsets[0] = -1 is negative"),
        "{}",
        e[1]
    );
    let e = errors(&with(0, 0, 1, i32::MAX));
    assert!(e[0].contains("input_offsets[1] = 2147483647"), "{}", e[0]);
}

#[test]
fn recv_sizes_other_than_what_the_peer_sends_fail() {
    let mut c = seed();
    c[1].2[3][0] = 1; // replica 0 sends 2 rows to replica 1
    let r = run(&c, 1);
    let e = r[1].as_ref().unwrap_err().to_string();
    assert!(
        e.contains("recv_sizes[0] = 1, but group member 0 (device 0) sends 2 rows in its update 0 to this device (its send_sizes[1])"),
        "{e}"
    );
    // The other device's own values are fine: it finishes, with its result.
    assert_eq!(r[0].as_ref().unwrap(), &vec![1., 3., 0., 0.]);
}

#[test]
fn entries_must_split_over_the_group() {
    let mut c = seed();
    for d in &mut c {
        for m in &mut d.2 {
            m.push(0);
        }
    }
    for e in errors(&c) {
        assert!(
            e.contains("3 entries, not a positive multiple of the group size, 2"),
            "{e}"
        );
    }
}
