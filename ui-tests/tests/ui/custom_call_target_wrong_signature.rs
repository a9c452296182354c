use xla_aot::{xla, TensorView, TensorViewMut, D1};

// Takes f64 views; the program passes f32[3] and expects an f32[3] result.
fn scale(_x: TensorView<'_, f64, D1<3>>, _out: TensorViewMut<'_, f64, D1<3>>) {}

xla! {
    // The target's signature is checked by rustc against the operand and result shapes.
    fn f(x: f32[3]) -> f32[3] {
        CustomCall(x, call_target_name = "scale", shape = f32[3])
    }
}

fn main() {}
