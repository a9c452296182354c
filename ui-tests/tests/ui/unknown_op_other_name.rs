use xla_aot::xla;

xla! {
    fn f(x: f32[4]) -> f64[4] {
        Convert(x, new_element_type = f64)
    }
}

fn main() {}
