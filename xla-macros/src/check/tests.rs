//! Checker tests: the issue's programs check and produce the declared shapes; each malformed
//! program gives the expected messages (never a panic).

use proc_macro2::TokenStream;
use quote::quote;

use super::*;
use crate::parse::parse_block;

/// Check a block: Ok(result shapes) or Err(all messages).
fn run(ts: TokenStream) -> Result<Vec<String>, Vec<String>> {
    let block = parse_block(ts).map_err(|e| vec![format!("parse: {e}")])?;
    match check(&block) {
        Ok(p) => Ok(p
            .fns
            .iter()
            .map(|f| f.computation.result_shape().to_string())
            .collect()),
        Err(errs) => Err(errs.iter().map(|e| e.to_string()).collect()),
    }
}

fn errors(ts: TokenStream) -> Vec<String> {
    match run(ts) {
        Ok(shapes) => vec![format!("unexpected Ok {shapes:?}")],
        Err(e) => e,
    }
}

#[track_caller]
fn assert_one_error(ts: TokenStream, want: &[&str]) {
    let errs = errors(ts);
    assert_eq!(errs.len(), 1, "{errs:#?}");
    for w in want {
        assert!(errs[0].contains(w), "`{}` does not contain `{w}`", errs[0]);
    }
}

#[test]
fn issue_programs_check() {
    let r = run(quote! {
        /// The seed's first example.
        pub fn add_rows(x: f32[2, 3], v: f32[3]) -> f32[2, 3] {
            Add(x, v, broadcast_dimensions = [1])
        }
        pub fn dense_relu(x: f32[8, 784], w: f32[784, 128], b: f32[128]) -> f32[8, 128] {
            let h = Dot(x, w);
            let h = Add(h, b, broadcast_dimensions = [1]);
            Max(h, 0.0)
        }
        pub fn row_softmax(x: f32[32, 1000]) -> f32[32, 1000] {
            let m = Reduce(x, f32::NEG_INFINITY, dimensions = [1], |a, b| Max(a, b));
            let e = Exp(Sub(x, m, broadcast_dimensions = [0]));
            let s = Reduce(e, 0.0, dimensions = [1], |a, b| a + b);
            Div(e, s, broadcast_dimensions = [0])
        }
    });
    assert_eq!(
        r,
        Ok(vec![
            "f32[2,3]".into(),
            "f32[8,128]".into(),
            "f32[32,1000]".into()
        ])
    );
}

#[test]
fn sugar_literals_calls_and_tuples() {
    let r = run(quote! {
        fn tanh2(x: f32[16]) -> f32[16] { Tanh(2.0 * x + 1) }
        fn shifts(a: s32[4], b: u32[4]) -> (s32[4], u32[4], pred[4]) {
            Tuple(a >> 1, b >> 1u32, !(a < -3) & (a != 0))
        }
        fn use_later(x: f32[16]) -> f32[16] { twice(x) - Call(twice, x) }
        fn twice(x: f32[16]) -> f32[16] { x + x }
        fn sum(a: f32[], b: f32[]) -> f32[] { a + b }
        fn total(x: f32[4, 5]) -> f32[] { Reduce(x, 0.0, dimensions = [0, 1], sum) }
        fn pair(x: f32[3], y: s32[3]) -> s32[] {
            let t = Reduce(x, y, 0.0, 0, dimensions = [0], |a: f32[], i: s32[], b: f32[], j: s32[]| Tuple(a + b, i + j));
            let u: (f32[], s32[]) = t;
            GetTupleElement(u, index = 1) + t.1 * 2
        }
        fn shapes(x: f32[2, 3]) -> f32[6] {
            let i = Iota(s32[2, 3], iota_dimension = 1);
            let c = Constant(f32[2, 3], [[1.0, 2.0, 3.0], [4, 5, -6.5]]);
            let y = x + ConvertElementType(i, new_element_type = f32) * c;
            let y = Transpose(y, permutation = [1, 0]);
            Reshape(Transpose(y, permutation = [1, 0]), new_sizes = [6])
        }
        fn sel(p: pred[3], x: f32[3]) -> f32[3] { Select(p, x, -x) + Clamp(0, x, 6) + Select(true, x, x) }
        fn block(x: f32[3]) -> f32[3] { let y = { let z = x * x; z + 1.0 }; y }
    });
    let want = [
        "f32[16]",
        "(s32[4], u32[4], pred[4])",
        "f32[16]",
        "f32[16]",
        "f32[]",
        "f32[]",
        "s32[]",
        "f32[6]",
        "f32[3]",
        "f32[3]",
    ];
    assert_eq!(r, Ok(want.iter().map(|s| s.to_string()).collect()));
}

#[test]
fn builder_rules_are_reported_with_the_op() {
    // Rank mismatch without broadcast_dimensions.
    assert_one_error(
        quote!(fn f(x: f32[2, 3], v: f32[3]) -> f32[2, 3] { Add(x, v) }),
        &["Add:", "f32[2,3]", "f32[3]"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2, 3], v: f32[3]) -> f32[2, 3] { Add(x, v, broadcast_dimensions = [0]) }),
        &["Add:"],
    );
    assert_one_error(
        quote!(fn f(x: f32[4, 3], w: f32[4, 3]) -> f32[4, 3] { Dot(x, w) }),
        &["Dot:"],
    );
    assert_one_error(
        quote!(fn f(x: f32[4, 3]) -> f32[4] { Reduce(x, 0.0, dimensions = [2], |a, b| a + b) }),
        &["Reduce:"],
    );
    assert_one_error(
        quote!(fn f(x: f32[4, 3]) -> f32[4, 3] { Transpose(x, permutation = [0, 0]) }),
        &["Transpose:"],
    );
    assert_one_error(
        quote!(fn f(x: f32[4, 3]) -> f32[5] { Reshape(x, new_sizes = [5]) }),
        &["Reshape:"],
    );
    assert_one_error(
        quote!(fn f(x: f32[4, 3, 2]) -> f32[8, 3] { Collapse(x, dimensions = [0, 2]) }),
        &["Collapse:"],
    );
    assert_one_error(
        quote!(fn f(x: f32[4], y: s32[4]) -> f32[4] { x + y }),
        &["f32[4]", "s32[4]"],
    );
}

#[test]
fn front_end_errors() {
    assert_one_error(
        quote!(fn f(x: f32[2, 3]) -> f32[3, 2] { x }),
        &["fn `f` declares f32[3,2] but its body has type f32[2,3]"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[2] { Ad(x, x) }),
        &["unknown op `Ad`", "did you mean `Add`"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[2] { add(x, x) }),
        &["did you mean `Add`"],
    );
    // Names from other libraries: an edit distance cannot find these.
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f64[2] { Convert(x, new_element_type = f64) }),
        &["unknown op `Convert`", "did you mean `ConvertElementType`"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2, 2]) -> f32[2, 2] { matmul(x, x) }),
        &["did you mean `Dot`"],
    );
    // A declared type differing only in element type: the conversion to write.
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f64[2] { x }),
        &[
            "fn `f` declares f64[2] but its body has type f32[2]",
            "help: the shapes differ only in element type",
            "ConvertElementType(.., new_element_type = f64)",
        ],
    );
    assert_one_error(
        quote!(fn f(x: s32[3]) -> s32[3] { let y: f32[3] = x; x }),
        &["`let y` declares f32[3]", "new_element_type = f32"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[2] { Add(x) }),
        &["Add takes 2 operands", "got 1"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[2] { Add(x, x, broadcast_dimension = [0]) }),
        &[
            "unknown attribute `broadcast_dimension`",
            "Add takes: broadcast_dimensions",
            "did you mean",
        ],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[2] { Add(x, x, broadcast_dimensions = [0], broadcast_dimensions = [0]) }),
        &["given twice"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[2] { Transpose(x) }),
        &["missing attribute `permutation"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[2] { x + y }),
        &["unknown name `y`"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[2] { x + 2i32 }),
        &["literal `2i32` has type s32", "f32[2]"],
    );
    assert_one_error(
        quote!(fn f(x: u8[2]) -> u8[2] { x + 256 }),
        &["literal `256` does not fit in u8 (range 0..=255); it is u8 because operand 0 of `+` is u8[2]"],
    );
    assert_one_error(
        quote!(fn f(x: u8[2]) -> u8[2] { x + -1 }),
        &["literal `-1` does not fit in u8"],
    );
    assert_one_error(
        quote!(fn f(x: s32[2]) -> s32[2] { x * 1.5 }),
        &["is a float but s32 is an integer type"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[2] { x >> 1 }),
        &["`>>`", "integral"],
    );
    assert_one_error(
        quote!(fn f() -> pred[] { IsFinite(1.0) }),
        &["cannot infer the element type of literal `1.0`"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[2] { f(x) }),
        &["recursive (f -> f)"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[2] { x } fn f(x: f32[2]) -> f32[2] { x }),
        &["defined twice"],
    );
    assert_one_error(
        quote!(fn Add(x: f32[2]) -> f32[2] { x }),
        &["name of an XLA op"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[] { Reduce(x, 0.0, dimensions = [0], |a, b| a + x) }),
        &["cannot capture `x`"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[] { Reduce(x, 0.0, dimensions = [0], |a| a) }),
        &["the reducer takes 2 parameters: f32[], f32[]; this closure has 1"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[] { Reduce(x, 0.0, dimensions = [0]) }),
        &["Reduce takes N operands"],
    );
    assert_one_error(
        quote!(fn f() -> f32[2] { Constant(f32[2], [1.0, 2.0, 3.0]) }),
        &["3 elements but the dimension has size 2"],
    );
    assert_one_error(
        quote!(fn f() -> s8[2] { Constant(s8[2], [1, 200]) }),
        &["element `200`", "does not fit in s8"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[2] { let y: f32[3] = x; y }),
        &["`let y` declares f32[3]"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2], x: f32[2]) -> f32[2] { x }),
        &["declared twice"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[2] { ConvertElementType(x, new_element_type = i32) }),
        &["written `s32`"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[2] { Call(x, x) }),
        &["name of a fn"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[2] { Compare(x, x, direction = UP) }),
        &["direction is one of"],
    );
}

#[test]
fn errors_are_all_collected_without_cascades() {
    let errs = errors(quote! {
        fn a(x: f32[2]) -> f32[2] {
            let bad = Add(x, q);
            let worse = bad * 2.0;
            let ok = x + 1.0;
            Mul(worse, ok, nope = [1])
        }
        fn b(x: f32[2]) -> f32[2] { a(x) }
        fn c(x: f32[3]) -> f32[2] { x }
    });
    assert_eq!(errs.len(), 3, "{errs:#?}");
    assert!(errs[0].contains("unknown name `q`"));
    assert!(errs[1].contains("unknown attribute `nope`"));
    assert!(errs[2].contains("fn `c` declares f32[2]"));
}

#[test]
fn never_panics_on_odd_programs() {
    let programs = [
        quote!(fn f() -> f32[] { Tuple() }),
        quote!(fn f(x: f32[2]) -> f32[2] { x.7 }),
        quote!(fn f(x: (f32[2], s32[])) -> s32[] { x.1 }),
        quote!(fn f(x: f32[2]) -> f32[2] { GetTupleElement(x, index = -1) }),
        quote!(fn f(x: f32[2]) -> f32[2] { Iota(x, iota_dimension = 0) }),
        quote!(fn f() -> s32[2] { Iota(s32[2], iota_dimension = 99999999999999999999) }),
        quote!(fn f() -> s32[2] { Iota(s32[2], iota_dimension = -1) }),
        quote!(fn f(x: f32[2]) -> f32[2] { Broadcast(x, broadcast_sizes = [-5]) }),
        quote!(fn f(x: f32[2]) -> f32[2] { BroadcastInDim(x, out_dim_size = [2, 2, 2, 2, 2, 2, 2, 2, 2], broadcast_dimensions = [0]) }),
        quote!(fn f(x: f32[2]) -> f32[2] { Reshape(x, new_sizes = [9223372036854775807, 2]) }),
        quote!(fn f(x: f32[2]) -> f32[2] { Transpose(x, permutation = [5]) }),
        quote!(fn f(x: f32[2]) -> f32[2] { Collapse(x, dimensions = []) }),
        quote!(fn f(x: f32[2]) -> f32[2] { Reduce(x, x, 0.0, 0.0, dimensions = [0], |a, b, c, d| Tuple(a, b)) }),
        quote!(fn f(x: f32[2]) -> f32[2] { Reduce(x, 1.0, dimensions = [0, 0], |a, b| a) }),
        quote!(fn f(x: f32[2]) -> f32[2] { Reduce(x, 1.0, dimensions = [0], nothing) }),
        quote!(fn f(x: f32[2]) -> f32[2] { Reduce(x, 1.0, dimensions = [0], |a: s32[], b: f32[2]| a) }),
        quote!(fn f(x: f32[2]) -> f32[2] { DotGeneral(x, x, lhs_contracting_dimensions = [7], rhs_contracting_dimensions = [-1]) }),
        quote!(fn f(x: f32[2]) -> f32[2] { Constant(f32[2], 1.0) }),
        quote!(fn f(x: f32[2]) -> f32[2] { Constant((f32[2], f32[2]), [1.0]) }),
        quote!(fn f(x: f32[2]) -> f32[2] { BitcastConvertType(x, new_element_type = c128) }),
        quote!(fn f(x: f32[2]) -> f32[2] { ReducePrecision(x, exponent_bits = 0, mantissa_bits = -3) }),
        quote!(fn f(x: f32[2]) -> f32[2] { g(x, x) } fn g(a: f32[2]) -> f32[2] { a }),
        quote!(fn f(x: f32[2]) -> f32[2] { g(x) } fn g(a: f32[2]) -> f32[2] { f(a) }),
        quote!(fn f(x: f32[2]) -> f32[2] { [1, 2] }),
        quote!(fn f(x: f32[2]) -> f32[2] { f32[2] }),
        quote!(fn f(x: f32[2]) -> f32[2] { |a| a }),
        quote!(fn f(x: f32[2]) -> f32[2] { Add(x, |a| a) }),
        quote!(fn f(x: f32[2]) -> f32[2] { x + true }),
        quote!(fn f(x: pred[2]) -> pred[2] { x & 1 }),
        quote!(fn f(x: f32[2]) -> f32[2] { Select(x, x, x) }),
        quote!(fn f(x: f32[2]) -> f32[2] { Complex(x, x) }),
        quote!(fn f() -> f32[] { 1.0 + 2.0 }),
        quote!(fn f() -> f32[] { Exp(1.0) }),
        quote!(fn f(x: f32[2]{0}) -> f32[2]{0} { x }),
    ];
    for p in programs {
        let text = p.to_string();
        let r = std::panic::catch_unwind(|| run(p));
        assert!(r.is_ok(), "panicked on `{text}`");
    }
}

#[test]
fn no_cascades_and_literals_typed_by_their_consumer() {
    // One bad op, one error: the literal init whose type came from it says nothing.
    assert_one_error(
        quote!(fn f(x: f32[2]) -> f32[] { Reduce(Foo(x), 0.0, dimensions = [0], |a, b| a + b) }),
        &["unknown op `Foo`"],
    );
    assert_one_error(
        quote!(fn f(x: f32[2], y: f32[3]) -> f32[2] { let z = Add(x, y); Mul(z, 2.0) }),
        &["Add: dimension 0 has sizes 2 and 3"],
    );
    // A literal under shape ops takes the type its consumer needs, in either operand position.
    for ts in [
        quote!(fn f(x: f32[2]) -> f32[2] {
            Add(x, BroadcastInDim(2.0, out_dim_size = [2], broadcast_dimensions = []))
        }),
        quote!(fn f(x: f32[2]) -> f32[2] {
            Add(BroadcastInDim(2.0, out_dim_size = [2], broadcast_dimensions = []), x)
        }),
        quote!(fn f(x: f64[2, 2]) -> f64[2, 2] { Mul(Neg(Broadcast(1.5, broadcast_sizes = [2, 2])), x) }),
        quote!(fn f(x: s32[2, 3]) -> s32[2, 3] { x - Reshape(Broadcast(1, broadcast_sizes = [6]), new_sizes = [2, 3]) }),
        quote!(fn f() -> f32[2, 2] { Broadcast(0.0, broadcast_sizes = [2, 2]) }),
    ] {
        let r = run(ts.clone());
        assert!(r.is_ok(), "{ts}: {r:?}");
    }
    // Truly ambiguous: nothing gives the type.
    assert_one_error(
        quote!(fn f() -> s32[] { let y = Broadcast(1.0, broadcast_sizes = [2]); Reduce(y, 0, dimensions = [0], |a, b| a + b) }),
        &["cannot infer the element type of literal `1.0`"],
    );
}

#[test]
fn literal_lets_are_typed_by_their_first_use() {
    for (ts, want) in [
        (
            quote!(fn f(x: f32[3]) -> f32[3] { let y = Broadcast(1.0, broadcast_sizes = [3]); Add(x, y) }),
            "f32[3]",
        ),
        (
            quote!(fn f(x: f64[3]) -> f64[3] { let y = Broadcast(1.0, broadcast_sizes = [3]); Add(y, x) }),
            "f64[3]",
        ),
        // The declared result types the let it returns.
        (
            quote!(fn f() -> bf16[2] { let y = Broadcast(0.5, broadcast_sizes = [2]); y }),
            "bf16[2]",
        ),
        (
            quote!(fn f(x: s8[4]) -> s8[4] { let two = 2; let y = Mul(x, two); Sub(y, two) }),
            "s8[4]",
        ),
        // A let declared with a type keeps it.
        (
            quote!(fn f(x: f32[2]) -> f32[2] { let y: f32[] = 3.0; Mul(x, y) }),
            "f32[2]",
        ),
    ] {
        assert_eq!(run(ts.clone()), Ok(vec![want.to_string()]), "{ts}");
    }
    // A use that gives no type leaves the literal untyped: one error at the literal.
    assert_one_error(
        quote!(fn f(x: f32[2]) -> (f32[2], f32[]) { let y = 2.0; Tuple(x, y) }),
        &["cannot infer the element type of literal `2.0`"],
    );
    // The second use must agree with the type the first gave.
    assert_one_error(
        quote!(fn f(x: f32[2], z: f64[2]) -> f64[2] { let y = 1.0; let a = Add(x, y); Add(z, y) }),
        &["Add"],
    );
}
