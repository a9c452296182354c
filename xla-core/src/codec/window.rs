//! ReduceWindow's window in the byte form (see the parent module).

use super::{Reader, Writer};
use crate::error::Result;
use crate::ir::Window;

impl Writer {
    /// A window: sizes, strides, the padding pairs, base then window dilations.
    pub(super) fn window(&mut self, w: &Window) {
        self.ints(&w.dimensions);
        self.ints(&w.strides);
        self.u(w.padding.len() as u64);
        for &(lo, hi) in &w.padding {
            self.i(lo);
            self.i(hi);
        }
        self.ints(&w.base_dilations);
        self.ints(&w.window_dilations);
    }
}

impl Reader<'_> {
    /// What [`Writer::window`] wrote.
    pub(super) fn window(&mut self) -> Result<Window> {
        let dimensions = self.ints()?;
        let strides = self.ints()?;
        let np = self.count()?;
        let padding = (0..np)
            .map(|_| Ok((self.i()?, self.i()?)))
            .collect::<Result<_>>()?;
        Ok(Window {
            dimensions,
            strides,
            padding,
            base_dilations: self.ints()?,
            window_dilations: self.ints()?,
        })
    }
}
