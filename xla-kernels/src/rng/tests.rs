use super::*;
use xla_core::RngDistribution;

const SHAPES: &[&[usize]] = &[
    &[],
    &[1],
    &[5],
    &[7],
    &[16],
    &[33],
    &[3, 5],
    &[2, 3],
    &[3, 1, 5],
    &[4, 3, 2],
    &[1, 7, 3],
    &[5, 5],
    &[9, 19],
    &[3, 40, 7],
    &[2, 17, 9],
];

const STATES: &[&[u64]] = &[
    &[1, 2],
    &[u64::MAX, u64::MAX - 3],
    &[0x1234_5678_9abc_def0, 42, 7],
    &[5, u64::MAX - 2, u64::MAX],
];

/// The kernel's bits and state against `xla_core::rng`'s scalar reference.
fn check<T: Bits + PartialEq + std::fmt::Debug>() {
    for &alg in &RandomAlgorithm::ALL {
        for &state in STATES {
            if alg == RandomAlgorithm::ThreeFry && state.len() != 2 {
                continue;
            }
            for &dims in SHAPES {
                let (want_state, want) = r::bit_generator(alg, state, dims, T::WIDTH);
                let want: Vec<T> = want.into_iter().map(T::from_word).collect();
                let mut got = vec![T::default(); want.len()];
                let mut s = vec![0; state.len()];
                bit_generator(alg, state, dims, &mut s, &mut got).unwrap();
                let what = format!("{alg:?} {state:?} {dims:?} width {}", T::WIDTH);
                assert_eq!(s, want_state, "{what}");
                assert_eq!(got.len(), want.len(), "{what}");
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(g, w, "{what} at {i}");
                }
            }
        }
    }
}

#[test]
fn bits_equal_the_reference_for_every_width() {
    check::<u8>();
    check::<i16>();
    check::<u32>();
    check::<i64>();
    check::<u64>();
}

#[test]
fn float_bits_are_the_unsigned_bits() {
    let mut f = vec![0f32; 10];
    let mut u = vec![0u32; 10];
    let mut s = [0; 2];
    bit_generator(RandomAlgorithm::ThreeFry, &[3, 4], &[10], &mut s, &mut f).unwrap();
    bit_generator(RandomAlgorithm::ThreeFry, &[3, 4], &[10], &mut s, &mut u).unwrap();
    assert!(f.iter().zip(&u).all(|(a, b)| a.to_bits() == *b));
}

/// Large enough to fork: the same bits on one thread and on the pool.
#[test]
fn bits_do_not_depend_on_the_thread_count() {
    for alg in [RandomAlgorithm::ThreeFry, RandomAlgorithm::Philox] {
        for dims in [&[1 << 17][..], &[257, 301], &[301, 257]] {
            let n: usize = dims.iter().product();
            let (mut a, mut b) = (vec![0u32; n], vec![0u32; n]);
            let (mut sa, mut sb) = ([0; 2], [0; 2]);
            bit_generator(alg, &[9, 10], dims, &mut sa, &mut a).unwrap();
            let one = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .unwrap();
            one.install(|| bit_generator(alg, &[9, 10], dims, &mut sb, &mut b).unwrap());
            assert_eq!(sa, sb);
            assert!(a == b, "{alg:?} {dims:?}");
            let (ws, w) = r::bit_generator(alg, &[9, 10], dims, 32);
            assert_eq!(ws, sa);
            assert!(
                a.iter().zip(&w).all(|(x, y)| u64::from(*x) == *y),
                "{alg:?} {dims:?}"
            );
        }
    }
}

#[test]
fn bad_states_and_buffers_are_errors() {
    let mut out = [0u32; 4];
    let mut s = [0; 3];
    assert!(bit_generator(
        RandomAlgorithm::ThreeFry,
        &[1, 2, 3],
        &[4],
        &mut s,
        &mut out
    )
    .is_err());
    let mut s = [0; 2];
    assert!(bit_generator(RandomAlgorithm::Philox, &[1, 2], &[5], &mut s, &mut out).is_err());
    let mut s1 = [0; 1];
    assert!(bit_generator(RandomAlgorithm::Philox, &[1], &[4], &mut s1, &mut out).is_err());
    let mut x = [0i8; 4];
    assert!(rng(RngDistribution::Uniform, 1, 0i32, 4, &mut [0i32; 3]).is_ok());
    let _ = &mut x;
    assert!(rng(RngDistribution::Normal, 1, 0i32, 4, &mut [0i32; 3]).is_err());
}

/// The kernel's draws against the per-element formulas on the reference bits.
#[test]
fn draws_equal_the_reference() {
    let n = 2 * CHUNK_TEST + 3;
    let mut u = vec![0f32; n];
    rng(RngDistribution::Uniform, 7, -2.0f32, 3.0, &mut u).unwrap();
    let bits = r::distribution_bits(7, n, 32);
    for (x, &w) in u.iter().zip(&bits) {
        assert_eq!(*x, r::uniform_float(w, 32, 23, -2.0, 3.0) as f32);
    }
    let mut g = vec![0f64; n];
    rng(RngDistribution::Normal, 8, 1.0f64, 2.0, &mut g).unwrap();
    let bits = r::distribution_bits(8, n + 1, 64);
    for (k, x) in g.iter().enumerate() {
        let z = r::normal_pair([bits[k & !1], bits[k | 1]], 64, 52, 1.0, 2.0);
        assert_eq!(*x, z[k & 1]);
    }
    let mut i = vec![0i32; n];
    rng(RngDistribution::Uniform, 9, -5i32, 5, &mut i).unwrap();
    assert!(i.iter().all(|&x| (-5..5).contains(&x)));
    assert!((-5..5).all(|v| i.contains(&v)));
}

const CHUNK_TEST: usize = 1024;
