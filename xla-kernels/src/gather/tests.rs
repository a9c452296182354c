//! The gather kernel: rows, strided rows, clamping, batching, the parallel path, and `Err`
//! (nothing written) for every inconsistent descriptor.

use super::*;

fn rows_desc<'a>(
    operand: &'a [usize],
    dims: &'a [usize],
    out: &'a [usize],
    slice: &'a [usize],
) -> GatherDesc<'a> {
    GatherDesc {
        operand,
        starts: Starts {
            dims,
            index_vector_dim: dims.len() - 1,
            map: &[0],
            batching: &[],
        },
        slice_sizes: slice,
        out,
        offset_dims: &[1],
        window_dims: &[1],
    }
}

#[test]
fn rows_are_copied_and_starts_clamped() {
    let table: Vec<i32> = (0..12).collect(); // 4 x 3
    let d = rows_desc(&[4, 3], &[5, 1], &[5, 3], &[1, 3]);
    let mut out = vec![0; 15];
    gather(&d, &table, &[1i64, -7, 3, 4, i64::MAX], &mut out).unwrap();
    assert_eq!(out, vec![3, 4, 5, 0, 1, 2, 9, 10, 11, 9, 10, 11, 9, 10, 11]);
    // Unsigned indices never count as negative.
    gather(&d, &table, &[0u64, u64::MAX, 2, 1, 0], &mut out).unwrap();
    assert_eq!(&out[..6], &[0, 1, 2, 9, 10, 11]);
}

#[test]
fn columns_and_batching() {
    // Columns 2, 0 of a 2 x 3 operand: the output's last dimension walks positions.
    let x: Vec<u8> = vec![1, 2, 3, 4, 5, 6];
    let d = GatherDesc {
        operand: &[2, 3],
        starts: Starts {
            dims: &[2, 1],
            index_vector_dim: 1,
            map: &[1],
            batching: &[],
        },
        slice_sizes: &[2, 1],
        out: &[2, 2],
        offset_dims: &[0],
        window_dims: &[0],
    };
    let mut out = vec![0u8; 4];
    gather(&d, &x, &[2i32, 0], &mut out).unwrap();
    assert_eq!(out, vec![3, 1, 6, 4]);
    // Batching: row b of the operand at row b's indices.
    let d = GatherDesc {
        operand: &[2, 3],
        starts: Starts {
            dims: &[2, 2, 1],
            index_vector_dim: 2,
            map: &[1],
            batching: &[(0, 0)],
        },
        slice_sizes: &[1, 1],
        out: &[2, 2],
        offset_dims: &[],
        window_dims: &[],
    };
    gather(&d, &x, &[2i8, 1, 0, 9], &mut out).unwrap();
    assert_eq!(out, vec![3, 2, 4, 6]);
}

#[test]
fn the_parallel_path_gives_the_sequential_result() {
    // 2000 rows of 64: above the parallel threshold.
    let table: Vec<f32> = (0..500 * 64).map(|v| v as f32).collect();
    let ids: Vec<i32> = (0..2000).map(|k| (k * 7919) % 600 - 50).collect();
    let d = rows_desc(&[500, 64], &[2000, 1], &[2000, 64], &[1, 64]);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut out = vec![0f32; 2000 * 64];
        pool.install(|| gather(&d, &table, &ids, &mut out)).unwrap();
        out
    };
    let one = run(1);
    for (k, row) in one.chunks(64).enumerate() {
        let r = ids[k].clamp(0, 499) as usize;
        assert_eq!(row, &table[r * 64..][..64]);
    }
    assert_eq!(one, run(4));
}

#[test]
fn inconsistent_descriptors_are_errors() {
    let table = vec![0i32; 12];
    let ok = rows_desc(&[4, 3], &[2, 1], &[2, 3], &[1, 3]);
    let mut out = vec![7; 6];
    let idx = [0i32, 1];
    assert!(gather(&ok, &table, &idx, &mut out).is_ok());
    let bad = [
        GatherDesc {
            slice_sizes: &[1, 4],
            ..ok
        },
        GatherDesc {
            slice_sizes: &[2, 3],
            ..ok
        },
        GatherDesc {
            slice_sizes: &[1],
            ..ok
        },
        GatherDesc { out: &[2, 2], ..ok },
        GatherDesc {
            offset_dims: &[0],
            ..ok
        },
        GatherDesc {
            window_dims: &[2],
            ..ok
        },
        GatherDesc {
            starts: Starts {
                map: &[2],
                ..ok.starts
            },
            ..ok
        },
        GatherDesc {
            starts: Starts {
                index_vector_dim: 2,
                ..ok.starts
            },
            ..ok
        },
        GatherDesc {
            starts: Starts {
                batching: &[(0, 0)],
                ..ok.starts
            },
            ..ok
        },
    ];
    for d in bad {
        let mut out = vec![7; 6];
        assert!(gather(&d, &table, &idx, &mut out).is_err(), "{d:?}");
        assert_eq!(out, vec![7; 6], "{d:?}");
    }
    assert!(gather(&ok, &table[1..], &idx, &mut out).is_err());
    assert!(gather(&ok, &table, &idx[1..], &mut out).is_err());
    assert!(gather(&ok, &table, &idx, &mut out[1..]).is_err());
}

/// The written-out offsets of up to three dimensions and the loop beyond agree with the
/// definition (`zip`'s shorter length) for every pair of lengths.
#[test]
fn index_offsets_of_every_length() {
    let idx = [3usize, 1, 4, 1, 5, 9];
    let strides = [1000usize, 200, 30, 7, 11, 2];
    for a in 0..=idx.len() {
        for b in 0..=strides.len() {
            let want: usize = idx[..a].iter().zip(&strides[..b]).map(|(i, s)| i * s).sum();
            assert_eq!(
                super::index_offset(&idx[..a], &strides[..b]),
                want,
                "{a} x {b}"
            );
        }
    }
}
