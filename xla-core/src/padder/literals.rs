//! Dynamic values as literals: an array holds its valid elements only (its dims are the
//! runtime sizes, at most the bounds). These convert to and from the padded form the padded
//! computation runs on.

use crate::error::{Error, Result};
use crate::literal::Literal;
use crate::shape::{ArrayShape, Shape};

/// Row-major positions of the valid region `sizes` inside an array of `bounds`: `out[i]` is
/// the compact index of padded element `i`, `None` in the padding.
fn valid_positions(bounds: &[i64], sizes: &[i64]) -> Vec<Option<usize>> {
    let total: i64 = bounds.iter().product();
    let mut out = Vec::with_capacity(total as usize);
    let mut idx = vec![0i64; bounds.len()];
    for _ in 0..total {
        let inside = idx.iter().zip(sizes).all(|(i, s)| i < s);
        out.push(
            inside.then(|| idx.iter().zip(sizes).fold(0i64, |acc, (i, s)| acc * s + i) as usize),
        );
        for k in (0..idx.len()).rev() {
            idx[k] += 1;
            if idx[k] < bounds[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    out
}

/// `lit` (a value of the dynamic shape `declared`) padded with zeros to its bounds; the
/// runtime size of each dynamic dimension is appended to `sizes`, leaves depth first (the
/// order of [`super::Padded::param_sizes`]). `Err` when a size exceeds its bound or a static
/// dimension differs.
pub fn pad_to_bounds(lit: &Literal, declared: &Shape, sizes: &mut Vec<i32>) -> Result<Literal> {
    match (lit, declared) {
        (Literal::Array { shape, data }, Shape::Array(want)) => {
            check_dims(shape, want)?;
            for (k, &dy) in want.dynamic.iter().enumerate() {
                if dy {
                    sizes.push(shape.dims[k] as i32);
                }
            }
            if shape.dims == want.dims {
                return Ok(Literal::Array {
                    shape: bounds_of(want),
                    data: data.clone(),
                });
            }
            let from = valid_positions(&want.dims, &shape.dims);
            Ok(Literal::Array {
                shape: bounds_of(want),
                data: data.pick(&from),
            })
        }
        (Literal::Tuple(es), Shape::Tuple(ts)) if es.len() == ts.len() => Ok(Literal::Tuple(
            es.iter()
                .zip(ts)
                .map(|(e, t)| pad_to_bounds(e, t, sizes))
                .collect::<Result<_>>()?,
        )),
        (Literal::Token, Shape::Token) => Ok(Literal::Token),
        _ => Err(Error::new(
            "Literal",
            format!("expected {declared}, given {}", lit.shape()),
        )),
    }
}

/// The valid region of `lit` (a padded value of the dynamic shape `declared`), the sizes of
/// its dynamic dimensions taken from `sizes` in the order [`pad_to_bounds`] writes them.
pub fn compact(
    lit: &Literal,
    declared: &Shape,
    sizes: &mut impl Iterator<Item = i64>,
) -> Result<Literal> {
    match (lit, declared) {
        (Literal::Array { data, .. }, Shape::Array(want)) => {
            let mut dims = want.dims.clone();
            for (k, &dy) in want.dynamic.iter().enumerate() {
                if dy {
                    let s = sizes
                        .next()
                        .ok_or_else(|| Error::new("padder", "internal: too few result sizes"))?;
                    dims[k] = s.clamp(0, want.dims[k]);
                }
            }
            let shape = ArrayShape {
                ty: want.ty,
                dims: dims.clone(),
                dynamic: want.dynamic.clone(),
                layout: None,
            };
            // Compact position -> padded position: the inverse of `valid_positions`.
            let n: i64 = dims.iter().product();
            let mut from = vec![None; n as usize];
            for (p, c) in valid_positions(&want.dims, &dims).into_iter().enumerate() {
                if let Some(c) = c {
                    from[c] = Some(p);
                }
            }
            Ok(Literal::Array {
                shape,
                data: data.pick(&from),
            })
        }
        (Literal::Tuple(es), Shape::Tuple(ts)) if es.len() == ts.len() => Ok(Literal::Tuple(
            es.iter()
                .zip(ts)
                .map(|(e, t)| compact(e, t, sizes))
                .collect::<Result<_>>()?,
        )),
        (Literal::Token, Shape::Token) => Ok(Literal::Token),
        _ => Err(Error::new(
            "padder",
            format!("internal: a padded {} for {declared}", lit.shape()),
        )),
    }
}

fn bounds_of(a: &ArrayShape) -> ArrayShape {
    ArrayShape::new(a.ty, &a.dims)
}

/// A dynamic array's dims against its declaration: the same rank and type, each dynamic
/// dimension at most its bound, each static one equal.
fn check_dims(given: &ArrayShape, want: &ArrayShape) -> Result<()> {
    let ok = given.ty == want.ty
        && given.rank() == want.rank()
        && given
            .dims
            .iter()
            .zip(&want.dims)
            .zip(&want.dynamic)
            .all(|((&g, &w), &dy)| if dy { (0..=w).contains(&g) } else { g == w });
    if ok {
        Ok(())
    } else {
        Err(Error::new(
            "Literal",
            format!("expected {want} (a dynamic dimension at most its bound), given {given}"),
        ))
    }
}
