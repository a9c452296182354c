//! Pad with interior padding, lowered as views: the operand spread through one stored array,
//! which the caller edge-pads.

use xla_core::ArrayShape;

use super::{Graph, Kind, Value};

impl Graph {
    /// Interior padding as views: `x[n]` becomes `[n, 1]`, edge-padded to `[n, s]` (`s` =
    /// interior + 1, the value at `[j, 0]`), then `[n·s]` with the last `s - 1` padding
    /// elements cut: element `j` lands at `j·s`. The caller edge-pads the result. The `[n, s]`
    /// to `[n·s]` reshape has carries, so fusion stores the `[n, s]` array once (the only
    /// buffer) and reads it row-major.
    pub(super) fn interior_pad(
        &mut self,
        x: Value,
        value: Value,
        config: &[xla_core::PadDim],
    ) -> Result<Value, String> {
        let xs = self.shape(x).clone();
        let mut split = Vec::new();
        let mut wide = Vec::new();
        let mut merged = Vec::new();
        for (p, &n) in config.iter().zip(&xs.dims) {
            let s = p.interior + 1;
            split.extend([n, 1]);
            wide.extend([n, s]);
            merged.push((n * s - p.interior).max(0));
        }
        let v = self.push(Kind::Reshape, vec![x], vec![ArrayShape::new(xs.ty, &split)]);
        let v = self.push(
            Kind::Pad {
                low: vec![0; wide.len()],
            },
            vec![v, value],
            vec![ArrayShape::new(xs.ty, &wide)],
        );
        let full: Vec<i64> = config
            .iter()
            .zip(&xs.dims)
            .map(|(p, &n)| n * (p.interior + 1))
            .collect();
        let v = self.push(Kind::Reshape, vec![v], vec![ArrayShape::new(xs.ty, &full)]);
        if full == merged {
            return Ok(v);
        }
        let start = vec![0; full.len()];
        let strides = vec![1; full.len()];
        Ok(self.push(
            Kind::Slice { start, strides },
            vec![v],
            vec![ArrayShape::new(xs.ty, &merged)],
        ))
    }
}
