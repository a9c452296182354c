use super::*;

/// Random123's known-answer vectors (kat_vectors): threefry2x32_20 and philox4x32_10.
#[test]
fn known_answers() {
    assert_eq!(threefry2x32([0, 0], [0, 0]), [0x6b20_0159, 0x99ba_4efe]);
    assert_eq!(
        threefry2x32([u32::MAX; 2], [u32::MAX; 2]),
        [0x1cb9_96fc, 0xbb00_2be7]
    );
    assert_eq!(
        philox4x32([0; 4], [0; 2]),
        [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
    );
    assert_eq!(
        philox4x32([u32::MAX; 4], [u32::MAX; 2]),
        [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
    );
}

#[test]
fn threefry_split_takes_the_first_even_else_the_largest() {
    assert_eq!(threefry_split(&[]), (1, 1, 1));
    assert_eq!(threefry_split(&[3, 4, 5]), (3, 4, 5));
    assert_eq!(threefry_split(&[3, 7, 5]), (3, 7, 5));
    assert_eq!(threefry_split(&[7, 3, 7]), (1, 7, 21));
}

#[test]
fn threefry_pairs_land_two_rows_apart() {
    // f32[3]: split dim 0 of 3, half 2: block 0 gives outputs 0 and 1, block 1 output 2.
    let (s, b) = bit_generator(RandomAlgorithm::ThreeFry, &[5, 9], &[3], 32);
    let b0 = threefry2x32(split64(9), split64(5));
    let b1 = threefry2x32(split64(10), split64(5));
    assert_eq!(b, vec![b0[0].into(), b0[1].into(), b1[0].into()]);
    assert_eq!(s, vec![5, 11]);
}

#[test]
fn philox_state_advances_by_blocks() {
    // u64[2]: the low word only wraps; u64[3]: it carries into the high word.
    let (s, b) = bit_generator(RandomAlgorithm::Philox, &[1, u64::MAX], &[5], 32);
    assert_eq!(s, vec![1, 1]);
    assert_eq!(b.len(), 5);
    let (s, _) = bit_generator(RandomAlgorithm::Philox, &[1, u64::MAX, 7], &[3], 64);
    assert_eq!(s, vec![1, 1, 8]);
    // DEFAULT is Philox.
    let d = bit_generator(RandomAlgorithm::Default, &[3, 4], &[2, 3], 16);
    assert_eq!(
        d,
        bit_generator(RandomAlgorithm::Philox, &[3, 4], &[2, 3], 16)
    );
}

#[test]
fn uniform_int_wraps_in_its_width() {
    assert_eq!(uniform_int(17, 5, 10, 32), 5 + 17 % 5);
    assert_eq!(uniform_int(17, 5, 5, 32), 5);
    // s32 [-3, 2): range 5 taken unsigned.
    let a = (-3i32) as u32 as u64;
    assert_eq!(uniform_int(7, a, 2, 32) as u32 as i32, -3 + 2);
}

#[test]
fn box_muller_is_finite_at_zero() {
    let (z0, z1) = box_muller(0.0, 0.25);
    assert!(z0.is_finite() && z1.abs() < 1e-9);
}
