//! Data-parallel training of a small MLP (8 -> 32 tanh -> 1, mean squared error) written
//! entirely in `xla!`: forward, hand-written backward, gradients summed over the devices by
//! `CrossReplicaSum` and the SGD update, one SPMD program per step. Each device holds its own
//! shard of every batch; the program is the same on each, and so are the weights after every
//! step, bit for bit.
//!
//! Run as 2 threads of one process (the default transport):
//! `cargo run --release -p xla-examples --bin dp_train`
//! or as 2 MPI ranks (feature `mpi`, MPICH: `bash scripts/mpi_setup.sh` installs it):
//! `cargo build --release -p xla-examples --features mpi --bin dp_train &&
//!  mpiexec -n 2 target/release/dp_train --mpi`
//! Both print the same loss curve, digit for digit (`scripts/test.sh` checks it): the
//! reductions run in a fixed order above the transport.

#![deny(warnings)]

use xla_aot::{xla, CollectiveError, Collectives, Tensor, D0, D1, D2};

/// Examples per device per step.
const SHARD: usize = 32;
/// Devices the run is written for (threads, or MPI ranks).
const DEVICES: u32 = 2;
/// SGD steps.
const STEPS: usize = 60;

xla! {
    /// One step on this device's shard `x`, `y`: the MSE loss over the whole global batch
    /// (`inv_n` = 1 / its size) and the weights after `w -= lr * dL/dw`, the gradients summed
    /// over the devices.
    pub fn train_step(w1: f32[8, 32], b1: f32[32], w2: f32[32, 1], b2: f32[1],
                      x: f32[32, 8], y: f32[32, 1], lr: f32[], inv_n: f32[])
        -> (f32[8, 32], f32[32], f32[32, 1], f32[1], f32[])
    {
        // Forward.
        let h = Tanh(Add(Dot(x, w1), b1, broadcast_dimensions = [1]));
        let p = Add(Dot(h, w2), b2, broadcast_dimensions = [1]);
        let e = Sub(p, y);
        let sq = Reduce(Mul(e, e), 0.0, dimensions = [0, 1], |a, b| a + b);
        let loss = Mul(CrossReplicaSum(sq), inv_n);
        // Backward: dL/dp = 2 e / n.
        let dp = Mul(e, Broadcast(Mul(inv_n, 2.0), broadcast_sizes = [32, 1]));
        let dw2 = DotGeneral(h, dp, lhs_contracting_dimensions = [0],
                             rhs_contracting_dimensions = [0]);
        let db2 = Reduce(dp, 0.0, dimensions = [0], |a, b| a + b);
        let dh = DotGeneral(dp, w2, lhs_contracting_dimensions = [1],
                            rhs_contracting_dimensions = [1]);
        let dz = Mul(dh, Sub(1.0, Mul(h, h)));
        let dw1 = DotGeneral(x, dz, lhs_contracting_dimensions = [0],
                             rhs_contracting_dimensions = [0]);
        let db1 = Reduce(dz, 0.0, dimensions = [0], |a, b| a + b);
        // The devices' gradients summed (each is its shard's part of the global mean).
        let w1n = Sub(w1, Mul(CrossReplicaSum(dw1), Broadcast(lr, broadcast_sizes = [8, 32])));
        let b1n = Sub(b1, Mul(CrossReplicaSum(db1), Broadcast(lr, broadcast_sizes = [32])));
        let w2n = Sub(w2, Mul(CrossReplicaSum(dw2), Broadcast(lr, broadcast_sizes = [32, 1])));
        let b2n = Sub(b2, Mul(CrossReplicaSum(db2), Broadcast(lr, broadcast_sizes = [1])));
        Tuple(w1n, b1n, w2n, b2n, loss)
    }
}

/// A deterministic stream of values in [-1, 1) (xorshift), so every transport sees the same data.
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

/// Device `device`'s shard of batch `step`: `x` uniform, `y = sin(2 x0) + x1 x2 / 2`.
fn shard(step: usize, device: u32) -> (Tensor<f32, D2<SHARD, 8>>, Tensor<f32, D2<SHARD, 1>>) {
    let mut s = Stream(0x9E37_79B9_7F4A_7C15 ^ ((step as u64) << 8 | device as u64) | 1);
    let x: Vec<f32> = (0..SHARD * 8).map(|_| s.next()).collect();
    let y = x
        .chunks(8)
        .map(|r| (2.0 * r[0]).sin() + 0.5 * r[1] * r[2])
        .collect();
    (
        Tensor::from_vec(x).expect("SHARD x 8 values"),
        Tensor::from_vec(y).expect("SHARD values"),
    )
}

/// The weights every device starts from (the same stream on each).
type Weights = (
    Tensor<f32, D2<8, 32>>,
    Tensor<f32, D1<32>>,
    Tensor<f32, D2<32, 1>>,
    Tensor<f32, D1<1>>,
);

fn initial_weights() -> Weights {
    let mut s = Stream(42);
    let mut v = |n: usize, scale: f32| (0..n).map(|_| scale * s.next()).collect::<Vec<f32>>();
    (
        Tensor::from_vec(v(8 * 32, 0.5)).expect("8 x 32"),
        Tensor::from_vec(v(32, 0.1)).expect("32"),
        Tensor::from_vec(v(32, 0.3)).expect("32 x 1"),
        Tensor::from_vec(vec![0.0]).expect("1"),
    )
}

/// Trains for [`STEPS`] steps on `ctx`'s device and returns the loss after each step.
fn train(ctx: &dyn Collectives) -> Result<Vec<f32>, CollectiveError> {
    let (mut w1, mut b1, mut w2, mut b2) = initial_weights();
    let lr = Tensor::<f32, D0>::scalar(0.2);
    let inv_n = Tensor::<f32, D0>::scalar(1.0 / (SHARD as f32 * ctx.num_replicas() as f32));
    let mut losses = Vec::with_capacity(STEPS);
    for step in 0..STEPS {
        let (x, y) = shard(step, ctx.replica_id());
        let (nw1, nb1, nw2, nb2, loss) = train_step(ctx, &w1, &b1, &w2, &b2, &x, &y, &lr, &inv_n)?;
        (w1, b1, w2, b2) = (nw1, nb1, nw2, nb2);
        losses.push(loss.as_slice()[0]);
    }
    Ok(losses)
}

/// Prints the curve as device 0 saw it (every device computes the same losses).
fn print_curve(transport: &str, losses: &[f32]) {
    println!("data-parallel MLP on {DEVICES} devices ({transport}), loss per step:");
    for (step, l) in losses.iter().enumerate() {
        if step % 5 == 0 || step + 1 == losses.len() {
            // `{:e}` prints the shortest decimal that reads back as the same f32: equal text
            // means equal bits.
            println!("step {step:3} loss {l:e}");
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "--mpi") {
        return run_mpi();
    }
    let results = xla_aot::kernels::collectives::run_threads(DEVICES, 1, train);
    let curves = results.into_iter().collect::<Result<Vec<_>, _>>()?;
    if curves.iter().any(|c| c != &curves[0]) {
        return Err("the devices disagree on the loss".into());
    }
    print_curve("threads", &curves[0]);
    Ok(())
}

#[cfg(feature = "mpi")]
fn run_mpi() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = xla_aot::kernels::collectives::mpi::MpiCollectives::init(1)?;
    if ctx.num_replicas() != DEVICES {
        return Err(format!(
            "run with mpiexec -n {DEVICES} (this run has {} ranks)",
            ctx.num_replicas()
        )
        .into());
    }
    let losses = train(&ctx)?;
    if ctx.replica_id() == 0 {
        print_curve("MPI ranks", &losses);
    }
    Ok(())
}

#[cfg(not(feature = "mpi"))]
fn run_mpi() -> Result<(), Box<dyn std::error::Error>> {
    Err("built without MPI: build with `--features mpi` and run under mpiexec".into())
}
