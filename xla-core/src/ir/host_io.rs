//! The host I/O ops' attributes ([`HostIo`]): Infeed, Outfeed, Send and Recv, each ordered by
//! the token it takes and returns, each run through the device's
//! [`Collectives`](crate::spmd::Collectives) (its host queues and channels, [`crate::spmd::host`]).

/// One host I/O op. The data shape of Infeed and Recv is the instruction's shape `(T, token)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostIo {
    /// `Infeed(token, shape = T, config = "...")` -> `(T, token)`: the next value of the
    /// device's infeed queue (one per array of `T`).
    Infeed {
        /// Opaque configuration (XLA's `config`, StableHLO's `infeed_config`).
        config: String,
    },
    /// `Outfeed(operand, token, outfeed_config = "...")` -> token: the operand appended to the
    /// device's outfeed queue (one value per array).
    Outfeed {
        /// Opaque configuration (StableHLO's `outfeed_config`).
        config: String,
    },
    /// `Send(operands..., token, channel_id = N, is_host_transfer = b)` -> token: each operand
    /// pushed on channel `N`, for the Recv of that channel (or the host) to take.
    Send {
        /// The channel (StableHLO's `channel_handle` handle), at least 1.
        channel_id: i64,
        /// To the host (`channel_handle` type 2) rather than a device (type 1).
        is_host_transfer: bool,
    },
    /// `Recv(token, shape = T, channel_id = N, is_host_transfer = b)` -> `(T, token)`: the next
    /// values sent on channel `N`.
    Recv {
        /// The channel, at least 1.
        channel_id: i64,
        /// From the host (`channel_handle` type 3) rather than a device (type 1).
        is_host_transfer: bool,
    },
}

impl HostIo {
    /// The surface name.
    pub fn name(&self) -> &'static str {
        match self {
            HostIo::Infeed { .. } => "Infeed",
            HostIo::Outfeed { .. } => "Outfeed",
            HostIo::Send { .. } => "Send",
            HostIo::Recv { .. } => "Recv",
        }
    }

    /// The HLO opcode.
    pub fn opcode(&self) -> &'static str {
        match self {
            HostIo::Infeed { .. } => "infeed",
            HostIo::Outfeed { .. } => "outfeed",
            HostIo::Send { .. } => "send",
            HostIo::Recv { .. } => "recv",
        }
    }
}
