//! Host I/O as StableHLO: `stablehlo.infeed` (`infeed_config`, `layout`: row-major),
//! `stablehlo.outfeed` (`outfeed_config`), `stablehlo.send` and `stablehlo.recv`
//! (`channel_handle` of type 1 between devices, 2 device-to-host, 3 host-to-device, and
//! `is_host_transfer`), in the generic form.

use super::super::{Body, Val};
use crate::error::Result;
use crate::ir::{HostIo, Instruction};
use crate::shape::Shape;

/// Row-major layouts of the arrays of `t`: `[[1, 0], []]`.
fn layouts(t: &Shape) -> String {
    let mut out = Vec::new();
    fn walk(s: &Shape, out: &mut Vec<String>) {
        match s {
            Shape::Array(a) => {
                let dims: Vec<String> = (0..a.rank()).rev().map(|d| d.to_string()).collect();
                out.push(format!("[{}]", dims.join(", ")));
            }
            Shape::Tuple(ts) => ts.iter().for_each(|t| walk(t, out)),
            Shape::Token => {}
        }
    }
    walk(t, &mut out);
    format!("[{}]", out.join(", "))
}

fn channel(channel_id: i64, is_host_transfer: bool, host_type: u8) -> String {
    let ty = if is_host_transfer { host_type } else { 1 };
    format!(
        "channel_handle = #stablehlo.channel_handle<handle = {channel_id}, type = {ty}>, \
         is_host_transfer = {is_host_transfer}"
    )
}

impl Body<'_> {
    /// One host I/O instruction.
    pub(super) fn host_io(
        &mut self,
        ins: &Instruction,
        ops: &[Val],
        h: &HostIo,
        depth: usize,
    ) -> Result<Val> {
        let (names, types) = Val::Tuple(ops.to_vec()).names_and_types();
        let results = super::super::text::results_type(&ins.shape);
        let data = match &ins.shape {
            Shape::Tuple(ts) => ts.first().cloned().unwrap_or(Shape::Tuple(vec![])),
            s => s.clone(),
        };
        let (name, attrs) = match h {
            HostIo::Infeed { config } => (
                "infeed",
                format!("infeed_config = {config:?}, layout = {}", layouts(&data)),
            ),
            HostIo::Outfeed { config } => ("outfeed", format!("outfeed_config = {config:?}")),
            HostIo::Send {
                channel_id,
                is_host_transfer,
            } => ("send", channel(*channel_id, *is_host_transfer, 2)),
            HostIo::Recv {
                channel_id,
                is_host_transfer,
            } => ("recv", channel(*channel_id, *is_host_transfer, 3)),
        };
        let rhs = format!("\"stablehlo.{name}\"({names}) {{{attrs}}} : ({types}) -> {results}");
        Ok(self.multi(depth, &rhs, &ins.shape))
    }
}

#[cfg(test)]
mod tests {
    use crate::builder::Builder;
    use crate::element::ElementType;
    use crate::eval::evaluate_on;
    use crate::literal::Literal;
    use crate::shape::Shape;
    use crate::spmd::host::HostQueues;
    use crate::spmd::threads::ThreadRunner;
    use crate::stablehlo::import::parse_module;
    use crate::stablehlo::to_stablehlo;

    /// Infeed x, Outfeed x, Send x + 1 on channel 5, Recv it back: the export reads as
    /// StableHLO's ops and attributes, imports to the same program, and both run alike.
    #[test]
    fn host_io_exports_imports_and_runs() {
        let s = Shape::array(ElementType::S32, &[2]);
        let mut b = Builder::new("main");
        let t0 = b.parameter(0, Shape::Token, "t").unwrap();
        let i = b.infeed(t0, &s, "cfg").unwrap();
        let x = b.get_tuple_element(i, 0).unwrap();
        let t1 = b.get_tuple_element(i, 1).unwrap();
        let t2 = b.outfeed(x, t1, "out").unwrap();
        let one = b.constant(Literal::from_vec(&[2], vec![1i32, 1]).unwrap());
        let y = b.binary(crate::ir::BinaryOp::Add, x, one, None).unwrap();
        let t3 = b.send(&[y], t2, 5, true).unwrap();
        let r = b.recv(t3, &s, 5, true).unwrap();
        let c = b.build(r).unwrap();
        let text = to_stablehlo(&c);
        for want in [
            "\"stablehlo.infeed\"",
            "infeed_config = \"cfg\", layout = [[0]]",
            "\"stablehlo.outfeed\"",
            "outfeed_config = \"out\"",
            "channel_handle = #stablehlo.channel_handle<handle = 5, type = 2>, is_host_transfer = true",
            "channel_handle = #stablehlo.channel_handle<handle = 5, type = 3>",
        ] {
            assert!(text.contains(want), "{want} not in\n{text}");
        }
        let m = parse_module(&text).unwrap();
        let back = &m.functions[0].computation;
        for comp in [&c, back.as_ref()] {
            let host = HostQueues::new();
            host.push_infeed(0, &[3i32, 4]);
            let out = ThreadRunner::new(1, 1).run_host(&host, |d| {
                evaluate_on(comp, &[Literal::Token], d)
                    .map_err(|e| crate::spmd::CollectiveError::Transport(e.to_string()))
            });
            let got = out.into_iter().next().unwrap().unwrap();
            let Literal::Tuple(parts) = got else {
                panic!("{got:?}")
            };
            assert_eq!(parts[0].as_slice::<i32>(), Some(&[4, 5][..]));
            assert_eq!(host.pop_outfeed::<i32>(0), Some(vec![3, 4]));
            assert_eq!(host.infeed_len(0), 0);
        }
    }
}
