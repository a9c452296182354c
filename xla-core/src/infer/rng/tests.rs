use super::*;
use crate::shape::parse_shape;

fn sh(s: &str) -> Shape {
    parse_shape(s).unwrap()
}

fn bits_err(alg: RandomAlgorithm, state: &str, out: &str) -> Error {
    rng_bit_generator(alg, &sh(state), &sh(out)).unwrap_err()
}

#[test]
fn bit_generator_returns_state_and_bits() {
    let r = rng_bit_generator(RandomAlgorithm::Philox, &sh("u64[3]"), &sh("f32[2,3]")).unwrap();
    assert_eq!(r, Shape::Tuple(vec![sh("u64[3]"), sh("f32[2,3]")]));
}

#[test]
fn bit_generator_state_rules() {
    let e = bits_err(RandomAlgorithm::ThreeFry, "u64[3]", "u32[4]");
    assert_eq!(e.blame, Blame::Operand(0));
    assert!(
        e.message.contains("THREE_FRY must be u64[2]"),
        "{}",
        e.message
    );
    let e = bits_err(RandomAlgorithm::Philox, "s64[2]", "u32[4]");
    assert!(e.message.contains("u64[2] or u64[3]"), "{}", e.message);
    assert!(bits_err(RandomAlgorithm::Default, "u64[4]", "u32[4]")
        .message
        .contains("got u64[4]"));
    assert!(bits_err(RandomAlgorithm::Philox, "u64[]", "u32[4]")
        .message
        .contains("got u64[]"));
}

#[test]
fn bit_generator_result_rules() {
    let e = bits_err(RandomAlgorithm::Philox, "u64[2]", "pred[4]");
    assert_eq!(e.blame, Blame::Operand(1));
    assert!(e.message.contains("not pred"), "{}", e.message);
    assert!(bits_err(RandomAlgorithm::Philox, "u64[2]", "c64[4]")
        .message
        .contains("not c64"));
}

#[test]
fn rng_parameter_rules() {
    let u = RngDistribution::Uniform;
    assert_eq!(
        rng(u, &sh("f32[]"), &sh("f32[]"), &sh("f32[2,3]")).unwrap(),
        ArrayShape::new(ElementType::F32, &[2, 3])
    );
    let e = rng(u, &sh("f32[2]"), &sh("f32[]"), &sh("f32[2]")).unwrap_err();
    assert_eq!(e.blame, Blame::Operand(0));
    assert!(
        e.message.contains("the lower bound `a` must be a scalar"),
        "{}",
        e.message
    );
    let e = rng(u, &sh("f32[]"), &sh("f64[]"), &sh("f32[2]")).unwrap_err();
    assert_eq!(e.blame, Blame::Operand(1));
    let e = rng(u, &sh("s8[]"), &sh("s8[]"), &sh("s8[2]")).unwrap_err();
    assert_eq!(e.blame, Blame::Operand(2));
    let n = RngDistribution::Normal;
    let e = rng(n, &sh("s32[]"), &sh("s32[]"), &sh("s32[2]")).unwrap_err();
    assert!(
        e.message.contains("draws f16, bf16, f32, f64 only"),
        "{}",
        e.message
    );
    let e = rng(n, &sh("f32[]"), &sh("f32[2]"), &sh("f32[2]")).unwrap_err();
    assert!(
        e.message
            .contains("the standard deviation `sigma` must be a scalar"),
        "{}",
        e.message
    );
}
