//! `ReduceWindow` and `SelectAndScatter` as StableHLO: the generic `"stablehlo.reduce_window"` with the reducer as its
//! region (like Reduce's) and the window as `window_dimensions`, `window_strides`,
//! `base_dilations`, `window_dilations` (`array<i64: ..>`) and `padding`
//! (`dense<[[lo, hi], ..]> : tensor<Rx2xi64>`).

use super::super::text::i64_array;
use super::super::{Body, Val};
use crate::error::Result;
use crate::ir::{Computation, Instruction, Window};

/// `{window_dimensions = .., window_strides = .., base_dilations = .., window_dilations = ..,
/// padding = ..}` (padding left out for a rank-0 operand, where it would be an empty tensor).
pub(crate) fn window_attrs(w: &Window) -> String {
    let mut s = format!(
        "window_dimensions = {}, window_strides = {}, base_dilations = {}, window_dilations = {}",
        i64_array(&w.dimensions),
        i64_array(&w.strides),
        i64_array(&w.base_dilations),
        i64_array(&w.window_dilations)
    );
    if !w.padding.is_empty() {
        let pairs: Vec<String> = w
            .padding
            .iter()
            .map(|(l, h)| format!("[{l}, {h}]"))
            .collect();
        s.push_str(&format!(
            ", padding = dense<[{}]> : tensor<{}x2xi64>",
            pairs.join(", "),
            w.padding.len()
        ));
    }
    s
}

impl Body<'_> {
    /// `"stablehlo.reduce_window"(inputs..., inits...) ({ ^bb0(accs..., elems...): ... })
    /// {window attributes}`.
    pub(super) fn reduce_window(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        window: &Window,
        computation: &Computation,
        depth: usize,
    ) -> Result<Val> {
        let attrs = format!("{{{}}}", window_attrs(window));
        self.region_op(
            ins,
            ops,
            "stablehlo.reduce_window",
            computation,
            &attrs,
            depth,
        )
    }

    /// `"stablehlo.select_and_scatter"(operand, source, init) ({ select }, { scatter })
    /// {window_dimensions, window_strides, padding}` (StableHLO's op has no dilations).
    pub(super) fn select_and_scatter(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        window: &Window,
        select: &Computation,
        scatter: &Computation,
        depth: usize,
    ) -> Result<Val> {
        let mut attrs = format!(
            "{{window_dimensions = {}, window_strides = {}",
            i64_array(&window.dimensions),
            i64_array(&window.strides)
        );
        if !window.padding.is_empty() {
            let pairs: Vec<String> = window
                .padding
                .iter()
                .map(|(l, h)| format!("[{l}, {h}]"))
                .collect();
            attrs.push_str(&format!(
                ", padding = dense<[{}]> : tensor<{}x2xi64>",
                pairs.join(", "),
                window.padding.len()
            ));
        }
        attrs.push('}');
        self.regions_op(
            ins,
            ops,
            "stablehlo.select_and_scatter",
            &[select, scatter],
            &attrs,
            depth,
        )
    }
}
