//! Parser tests: well-formed input gives the expected tree; malformed input gives `Err`, never a
//! panic.

use quote::quote;

use super::*;

fn shape_of(ts: TokenStream) -> String {
    parse_type_tokens(ts)
        .map(|t| t.shape.to_string())
        .unwrap_or_else(|e| format!("Err: {e}"))
}

#[test]
fn types_parse_to_hlo_shapes() {
    assert_eq!(shape_of(quote!(f32[2, 3])), "f32[2,3]");
    assert_eq!(shape_of(quote!(f32[])), "f32[]");
    assert_eq!(shape_of(quote!(bf16[4]{0})), "bf16[4]{0}");
    assert_eq!(shape_of(quote!(f32[2,3]{0,1})), "f32[2,3]{0,1}");
    assert_eq!(shape_of(quote!(f32[<=8, 3])), "f32[<=8,3]");
    assert_eq!(shape_of(quote!(s32[2, <=5]{0,1})), "s32[2,<=5]{0,1}");
    assert_eq!(shape_of(quote!((f32[2], s32[]))), "(f32[2], s32[])");
    assert_eq!(
        shape_of(quote!(((pred[1]), c128[2,2]))),
        "((pred[1]), c128[2,2])"
    );
    for t in ElementType::ALL {
        let name = syn::Ident::new(t.name(), Span::call_site());
        assert_eq!(shape_of(quote!(#name[7])), format!("{}[7]", t.name()));
    }
}

#[test]
fn bad_types_are_errors() {
    let cases = [
        (quote!(f33[2]), "unknown element type `f33`"),
        (quote!(i32[2]), "XLA calls `i32` `s32`"),
        (quote!(f32), "needs its dimensions"),
        (quote!(f32[-1]), "cannot be negative"),
        (quote!(f32[99999999999999999999]), "does not fit in i64"),
        (quote!(f32[1,1,1,1,1,1,1,1,1]), "rank 9"),
        (quote!(f32[2,3]{0,0}), "not a permutation"),
        (quote!(f32[2,3]{0}), "not a permutation"),
        (quote!(f32[<3]), "written `<=N`"),
        (quote!(f32[<=-3]), "cannot be negative"),
        (quote!(f32[4294967296, 4294967296]), "overflows"),
        (quote!(f32[2u8]), "no suffix"),
        (quote!(f32[x]), "dimension size"),
        (quote!(), "expected a type"),
        (quote!(3), "expected a type"),
    ];
    for (ts, want) in cases {
        let text = ts.to_string();
        match parse_type_tokens(ts) {
            Ok(t) => panic!("`{text}` parsed as {}", t.shape),
            Err(e) => assert!(
                e.to_string().contains(want),
                "`{text}`: got `{e}`, want `{want}`"
            ),
        }
    }
}

/// A compact rendering of a tree, to assert structure and precedence.
fn show(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Lit(l) => match (l.value, l.ty) {
            (Scalar::Int(v), t) => format!("{v}{}", t.map_or("", |t| t.name())),
            (Scalar::Float(v), t) => format!("{v:?}{}", t.map_or("", |t| t.name())),
            (Scalar::Bool(v), _) => v.to_string(),
        },
        ExprKind::Var(i) => i.to_string(),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::Call { name, args } => {
            let args: Vec<String> = args
                .iter()
                .map(|a| match a {
                    Arg::Pos(e) => show(e),
                    Arg::Attr { name, value, .. } => format!("{name}={}", show(value)),
                })
                .collect();
            format!("{name}({})", args.join(", "))
        }
        ExprKind::Binary { op, lhs, rhs, .. } => {
            format!("({} {} {})", show(lhs), op.symbol(), show(rhs))
        }
        ExprKind::Unary { op, operand, .. } => format!(
            "{}{}",
            if *op == UnTok::Neg { "-" } else { "!" },
            show(operand)
        ),
        ExprKind::Field { base, index, .. } => format!("{}.{index}", show(base)),
        ExprKind::Closure { params, body } => {
            let ps: Vec<String> = params
                .iter()
                .map(|p| match &p.ty {
                    Some(t) => format!("{}: {}", p.name, t.shape),
                    None => p.name.to_string(),
                })
                .collect();
            format!("|{}| {}", ps.join(", "), show(body))
        }
        ExprKind::List(xs) => format!("[{}]", xs.iter().map(show).collect::<Vec<_>>().join(", ")),
        ExprKind::Type(t) => t.shape.to_string(),
        ExprKind::Block(b) => {
            let lets: Vec<String> = b
                .lets
                .iter()
                .map(|l| format!("let {} = {}; ", l.name, show(&l.value)))
                .collect();
            format!("{{ {}{} }}", lets.concat(), show(&b.result))
        }
        ExprKind::Paren(e) => format!("({})", show(e)),
    }
}

fn expr(ts: TokenStream) -> String {
    parse_expr_tokens(ts)
        .map(|e| show(&e))
        .unwrap_or_else(|e| format!("Err: {e}"))
}

#[test]
fn expressions_follow_rust_precedence() {
    assert_eq!(expr(quote!(a + b * c)), "(a + (b * c))");
    assert_eq!(expr(quote!(a * b + c)), "((a * b) + c)");
    assert_eq!(expr(quote!(a - b - c)), "((a - b) - c)");
    assert_eq!(expr(quote!(a << 1 + b)), "(a << (1 + b))");
    assert_eq!(expr(quote!(a & b | c ^ d)), "((a & b) | (c ^ d))");
    assert_eq!(expr(quote!(a + b < c * d)), "((a + b) < (c * d))");
    assert_eq!(expr(quote!(a >> b >= c)), "((a >> b) >= c)");
    assert_eq!(expr(quote!(-a * b)), "(-a * b)");
    assert_eq!(expr(quote!(!a == b)), "(!a == b)");
    assert_eq!(expr(quote!((a + b) * c)), "(((a + b)) * c)");
    assert_eq!(expr(quote!(t.0 + t.1)), "(t.0 + t.1)");
}

#[test]
fn calls_attributes_closures_literals() {
    assert_eq!(
        expr(quote!(Add(x, v, broadcast_dimensions = [1]))),
        "Add(x, v, broadcast_dimensions=[1])"
    );
    assert_eq!(
        expr(quote!(Reduce(
            x,
            f32::NEG_INFINITY,
            dimensions = [1],
            |a, b| Max(a, b)
        ))),
        "Reduce(x, -inff32, dimensions=[1], |a, b| Max(a, b))"
    );
    assert_eq!(
        expr(quote!(|a: f32[], b: f32[]| a + b)),
        "|a: f32[], b: f32[]| (a + b)"
    );
    assert_eq!(
        expr(quote!(Iota(s32[4, 8], iota_dimension = 1))),
        "Iota(s32[4,8], iota_dimension=1)"
    );
    assert_eq!(
        expr(quote!(Constant(f32[2, 2], [[1.0, 2.0], [3.0, -4.0]]))),
        "Constant(f32[2,2], [[1.0, 2.0], [3.0, -4.0]])"
    );
    assert_eq!(expr(quote!(Eq(a, b) == c)), "(Eq(a, b) == c)");
    assert_eq!(expr(quote!(-1)), "-1");
    assert_eq!(expr(quote!(-1u32)), "-1u32");
    assert_eq!(expr(quote!(2i32)), "2s32");
    assert_eq!(expr(quote!(0.5f64)), "0.5f64");
    assert_eq!(expr(quote!(1s8)), "1s8");
    assert_eq!(expr(quote!(true)), "true");
    assert_eq!(expr(quote!(i32::MIN)), "-2147483648s32");
    assert_eq!(expr(quote!(u8::MAX)), "255u8");
    assert_eq!(expr(quote!(f16::MAX)), "65504.0f16");
    assert_eq!(
        expr(quote!(|a, b| {
            let c = a + b;
            c
        })),
        "|a, b| { let c = (a + b); c }"
    );
    assert_eq!(
        expr(quote!(ConvertElementType(x, new_element_type = f32))),
        "ConvertElementType(x, new_element_type=f32)"
    );
    assert_eq!(
        expr(quote!(18446744073709551615u64)),
        "18446744073709551615u64"
    );
}

#[test]
fn bad_expressions_are_errors() {
    let cases = [
        (quote!(), "expected an expression"),
        (quote!(a+), "expected an expression"),
        (
            quote!(99999999999999999999999999999999999999999),
            "too large",
        ),
        (quote!(1e999), "out of range"),
        (quote!(a && b), "`&&` and `||`"),
        (quote!(a < b < c), "cannot be chained"),
        (quote!(b"bytes"), "literals are numbers"),
        (quote!(2x32), "unknown literal suffix"),
        (quote!(f32::WHATEVER), "unknown constant"),
        (quote!(foo::bar), "unknown constant"),
        (quote!(()), "not a value"),
        (quote!((a, b)), "Tuple(a, b)"),
        (quote!(|| a), "takes parameters"),
        (quote!(x.len), "tuple index"),
        (quote!(~x), "`!x`"),
        (quote!(Add(x, y,, z)), "expected"),
        (quote!(println!("hi")), "macros"),
        (quote!(a += b), "assignment"),
    ];
    for (ts, want) in cases {
        let text = ts.to_string();
        match parse_expr_tokens(ts) {
            Ok(e) => panic!("`{text}` parsed as {}", show(&e)),
            Err(e) => assert!(
                e.to_string().contains(want),
                "`{text}`: got `{e}`, want `{want}`"
            ),
        }
    }
}

#[test]
fn nesting_counts_real_levels() {
    // A degree-24 Horner polynomial as nested calls: 48 levels, well inside the limit.
    let mut ts = quote!(c);
    for _ in 0..24 {
        ts = quote!(Add(Mul(#ts, x), c));
    }
    assert!(parse_expr_tokens(ts).is_ok());
    // 96 nested calls parse; 97 do not, and the message names the limit.
    let nest = |n: usize| {
        let mut ts = quote!(x);
        for _ in 0..n {
            ts = quote!(Neg(#ts));
        }
        parse_expr_tokens(ts)
    };
    assert!(nest(96).is_ok());
    let err = nest(97).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("nested more than 96 levels deep"), "{err}");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let mut ts = quote!(x);
    for _ in 0..500 {
        ts = quote!(Neg(#ts));
    }
    let err = parse_expr_tokens(ts)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("nested more than"), "{err}");
    let mut ts = quote!(x);
    for _ in 0..500 {
        ts = quote!((#ts));
    }
    assert!(parse_expr_tokens(ts).is_err());
}

fn block_err(ts: TokenStream) -> String {
    match parse_block(ts) {
        Ok(b) => format!("Ok({} fns)", b.fns.len()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn blocks_parse() {
    let b = parse_block(quote! {
        /// Docs are kept.
        pub fn add_rows(x: f32[2, 3], v: f32[3]) -> f32[2, 3] {
            Add(x, v, broadcast_dimensions = [1])
        }
        pub(crate) fn dense(x: f32[8, 784], w: f32[784, 128]{0, 1}) -> f32[8, 128]{1, 0} {
            let h: f32[8, 128] = Dot(x, w);
            let h = h;
            Max(h, 0.0)
        }
        fn s(x: f32[]) -> f32[] { x }
        fn t(x: f32[]) -> (f32[], f32[]) { Tuple(x, x) }
    });
    let b = match b {
        Ok(b) => b,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(b.fns.len(), 4);
    assert_eq!(b.fns[0].attrs.len(), 1);
    assert_eq!(b.fns[0].params.len(), 2);
    assert_eq!(b.fns[1].ret.shape.to_string(), "f32[8,128]{1,0}");
    assert_eq!(b.fns[1].params[1].ty.shape.to_string(), "f32[784,128]{0,1}");
    assert_eq!(b.fns[1].body.lets.len(), 2);
    assert_eq!(
        b.fns[1].body.lets[0]
            .ty
            .as_ref()
            .map(|t| t.shape.to_string()),
        Some("f32[8,128]".into())
    );
    assert_eq!(b.fns[3].ret.shape.to_string(), "(f32[], f32[])");
    assert_eq!(block_err(quote!()), "Ok(0 fns)");
}

#[test]
fn bad_blocks_are_errors() {
    let cases = [
        (quote!(garbage), "expected `fn`"),
        (
            quote!(
                struct X;
            ),
            "expected `fn`",
        ),
        (quote!(fn f(x: f32[2]) { x }), "needs a result type"),
        (quote!(fn f(x: f32[2]) -> f32[2]), "expected the body"),
        (quote!(fn f(x: f32[2]) -> f32[2] { }), "result expression"),
        (quote!(fn f(x: f32[2]) -> f32[2] { x; }), "unexpected `;`"),
        (
            quote!(fn f(x: f32[2]) -> f32[2] { let y = x; }),
            "result expression",
        ),
        (
            quote!(fn f(x: f32[2]) -> f32[2] { let y = x }),
            "expected `;`",
        ),
        (quote!(fn f(x: f32[2]) -> f32[2] { x y }), "end of the body"),
        (quote!(fn f<T>(x: f32[2]) -> f32[2] { x }), "generic"),
        (quote!(fn f(x) -> f32[2] { x }), "expected `:`"),
        (
            quote!(fn (x: f32[2]) -> f32[2] { x }),
            "expected identifier",
        ),
        (
            quote!(fn f(x: f32[2]) -> f32[2] { let (a, b) = x; a }),
            "tuple patterns",
        ),
        (
            quote!(fn f(x: f32[2]) -> f32[2] { x } fn),
            "expected identifier",
        ),
    ];
    for (ts, want) in cases {
        let text = ts.to_string();
        let got = block_err(ts);
        assert!(got.contains(want), "`{text}`: got `{got}`, want `{want}`");
    }
}

#[test]
fn syntax_errors_speak_the_language() {
    let err = |ts| {
        parse_expr_tokens(ts)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    let e = err(quote!(Add(x x)));
    assert!(e.contains("expected `,` between operands of Add"), "{e}");
    let e = err(quote!(Add(x, broadcast_dimensions[0])));
    assert!(e.contains("expected `,` between operands of Add"), "{e}");
    let e = err(quote!(Transpose(x, permutation = [1, 0] y)));
    assert!(
        e.contains("expected `,` after attribute `permutation` of Transpose"),
        "{e}"
    );
}
