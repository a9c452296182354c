//! Host I/O in the byte form (see the parent module): op codes 74 (Infeed), 75 (Outfeed),
//! 76 (Send), 77 (Recv), then the config string or the channel and host flag.

use super::{err, Reader, Writer};
use crate::error::Result;
use crate::ir::{HostIo, Op};

/// True for the op codes [`Reader::host_io`] reads.
pub(super) fn is_host_io_code(code: u64) -> bool {
    (74..=77).contains(&code)
}

impl Writer {
    /// The op's code, then its attributes.
    pub(super) fn host_io(&mut self, h: &HostIo) {
        match h {
            HostIo::Infeed { config } => {
                self.u(74);
                self.str(config);
            }
            HostIo::Outfeed { config } => {
                self.u(75);
                self.str(config);
            }
            HostIo::Send {
                channel_id,
                is_host_transfer,
            } => {
                self.u(76);
                self.i(*channel_id);
                self.u(u64::from(*is_host_transfer));
            }
            HostIo::Recv {
                channel_id,
                is_host_transfer,
            } => {
                self.u(77);
                self.i(*channel_id);
                self.u(u64::from(*is_host_transfer));
            }
        }
    }
}

impl Reader<'_> {
    /// What [`Writer::host_io`] wrote after op code `code`.
    pub(super) fn host_io(&mut self, code: u64) -> Result<Op> {
        Ok(Op::HostIo(match code {
            74 => HostIo::Infeed {
                config: self.str()?,
            },
            75 => HostIo::Outfeed {
                config: self.str()?,
            },
            76 => HostIo::Send {
                channel_id: self.i()?,
                is_host_transfer: self.bool()?,
            },
            77 => HostIo::Recv {
                channel_id: self.i()?,
                is_host_transfer: self.bool()?,
            },
            c => return Err(err(format!("host I/O op code {c}"))),
        }))
    }
}

#[cfg(test)]
mod tests {
    use crate::builder::Builder;
    use crate::codec::{decode, encode};
    use crate::element::ElementType;
    use crate::shape::Shape;

    #[test]
    fn every_host_io_op_round_trips() {
        let mut b = Builder::new("io");
        let t = b.after_all(&[]).unwrap();
        let s = Shape::array(ElementType::F32, &[2]);
        let i = b.infeed(t, &s, "cfg").unwrap();
        let x = b.get_tuple_element(i, 0).unwrap();
        let t1 = b.get_tuple_element(i, 1).unwrap();
        let t2 = b.outfeed(x, t1, "out").unwrap();
        let t3 = b.send(&[x], t2, 3, true).unwrap();
        let r = b.recv(t3, &s, 4, false).unwrap();
        let c = b.build(r).unwrap();
        let back = decode(&encode(&c)).unwrap();
        assert_eq!(format!("{:?}", back.instrs), format!("{:?}", c.instrs));
    }
}
