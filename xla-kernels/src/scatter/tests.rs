//! The scatter kernel: runs, their order, dropped windows, the bounds of every call, and `Err`
//! (no call) for every inconsistent descriptor.

use super::*;

fn rows(dims: &'static [usize]) -> ScatterDesc<'static> {
    ScatterDesc {
        operand: &[4, 3],
        starts: Starts {
            dims,
            index_vector_dim: dims.len() - 1,
            map: &[0],
            batching: &[],
        },
        updates: &[5, 3],
        update_window_dims: &[1],
        window_dims: &[1],
    }
}

/// The `(o, u, n)` calls of a scatter.
fn calls<I: IndexValue>(
    d: &ScatterDesc<'_>,
    idx: &[I],
    out_len: usize,
    upd_len: usize,
) -> Vec<(usize, usize, usize)> {
    let mut v = Vec::new();
    scatter(d, out_len, idx, upd_len, |o, u, n| {
        assert!(o + n <= out_len && u + n <= upd_len);
        v.push((o, u, n));
    })
    .unwrap();
    v
}

#[test]
fn rows_are_runs_in_index_order_and_misfits_are_dropped() {
    let d = rows(&[5, 1]);
    let c = calls(&d, &[2i32, -1, 2, 4, 0], 12, 15);
    assert_eq!(c, vec![(6, 0, 3), (6, 6, 3), (0, 12, 3)]);
    let c = calls(&d, &[3u8, 255, 1, 0, 3], 12, 15);
    assert_eq!(c, vec![(9, 0, 3), (3, 6, 3), (0, 9, 3), (9, 12, 3)]);
}

#[test]
fn windows_not_along_the_last_dimension_are_single_elements() {
    // Columns: updates [3, 2] (window dim 0 over operand dim 0), one column per index.
    let d = ScatterDesc {
        operand: &[3, 4],
        starts: Starts {
            dims: &[2, 1],
            index_vector_dim: 1,
            map: &[1],
            batching: &[],
        },
        updates: &[3, 2],
        update_window_dims: &[0],
        window_dims: &[0],
    };
    let c = calls(&d, &[3i64, 4], 12, 6);
    assert_eq!(c, vec![(3, 0, 1), (7, 2, 1), (11, 4, 1)]);
    // 2x2 windows at 2-D starts: each window row is a run; (2, 3) does not fit.
    let d = ScatterDesc {
        operand: &[3, 4],
        starts: Starts {
            dims: &[2, 2],
            index_vector_dim: 1,
            map: &[0, 1],
            batching: &[],
        },
        updates: &[2, 2, 2],
        update_window_dims: &[1, 2],
        window_dims: &[0, 1],
    };
    let c = calls(&d, &[1i16, 2, 2, 3], 12, 8);
    assert_eq!(c, vec![(6, 0, 2), (10, 2, 2)]);
}

#[test]
fn inconsistent_descriptors_are_errors() {
    let ok = rows(&[5, 1]);
    let idx = [0i32; 5];
    assert!(scatter(&ok, 12, &idx, 15, |_, _, _| {}).is_ok());
    let bad = [
        ScatterDesc {
            updates: &[5, 4],
            ..ok
        },
        ScatterDesc {
            updates: &[4, 3],
            ..ok
        },
        ScatterDesc {
            update_window_dims: &[0],
            ..ok
        },
        ScatterDesc {
            window_dims: &[2],
            ..ok
        },
        ScatterDesc {
            window_dims: &[],
            ..ok
        },
        ScatterDesc {
            starts: Starts {
                map: &[0, 1],
                ..ok.starts
            },
            ..ok
        },
        ScatterDesc {
            starts: Starts {
                batching: &[(0, 1)],
                ..ok.starts
            },
            ..ok
        },
    ];
    for d in bad {
        let len = d.updates.iter().product();
        let mut called = false;
        assert!(
            scatter(&d, 12, &idx, len, |_, _, _| called = true).is_err(),
            "{d:?}"
        );
        assert!(!called);
    }
    assert!(scatter(&ok, 11, &idx, 15, |_, _, _| {}).is_err());
    assert!(scatter(&ok, 12, &idx[1..], 15, |_, _, _| {}).is_err());
    assert!(scatter(&ok, 12, &idx, 14, |_, _, _| {}).is_err());
}
