use xla_aot::{xla, Tensor, D1, D2};

xla! {
    pub fn add_rows(x: f32[2, 3], v: f32[3]) -> f32[2, 3] {
        Add(x, v, broadcast_dimensions = [1])
    }
}

fn main() {
    // Shapes are part of the Rust type: a f32[3,2] tensor is not a f32[2,3] one.
    let x = Tensor::<f32, D2<3, 2>>::default();
    let v = Tensor::<f32, D1<3>>::default();
    let _ = add_rows(&x, &v);
}
