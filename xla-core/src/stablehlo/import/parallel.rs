//! `"interpreter.run_parallel"` of StableHLO's interpreter tests: several programs run at once
//! as the devices of one SPMD run, on the thread transport ([`crate::spmd::threads`]).
//!
//! `programs = [[@f00, @f01, ...], [@f10, ...], ...]` lists, per replica, a function per
//! partition: `num_replicas` is the outer length, `num_partitions` the inner one, and program
//! `[r][p]` runs as device `r * num_partitions + p`. The op's operands are handed to the
//! programs in that order (each takes as many as its function has parameters) and their
//! results come back concatenated in the same order.
//!
//! `infeed = [@q0, @q1, ...]` names functions without parameters whose results, in order, fill
//! each device's infeed queue before the run (`spmd::host::HostQueues`); Send and Recv meet on
//! the run's channels.
//!
//! A function whose body runs programs is lowered in stages (`lower/parallel.rs`): the
//! computation before each `run_parallel` returns the programs' inputs and every value bound
//! so far; the next stage takes those values back as parameters, followed by the programs'
//! results.

use std::sync::Arc;
use std::time::Duration;

use super::{ImportError, Pos, Result};
use crate::error::Error;
use crate::eval::{evaluate, evaluate_on};
use crate::ir::Computation;
use crate::literal::Literal;
use crate::spmd::host::HostQueues;
use crate::spmd::threads::ThreadRunner;
use crate::spmd::CollectiveError;

/// How long a device waits for a peer's message: the programs are small, so a longer wait is
/// a bug (a peer that never sends) and should fail the run rather than hang it.
const TIMEOUT: Duration = Duration::from_secs(10);

/// One program of a [`Parallel`]: a lowered function and how to read its results.
#[derive(Clone, Debug)]
pub struct Program {
    /// The function's symbol, for messages.
    pub name: String,
    /// Its computation (parameters: the function's arguments).
    pub computation: Arc<Computation>,
    /// How many results the function declares.
    pub results: usize,
    /// Whether the root is a tuple of the results (followed by any check values).
    pub tupled: bool,
}

/// One `run_parallel` of a function, with the stage of the function that comes before it.
#[derive(Clone, Debug)]
pub struct Parallel {
    /// The stage before: its parameters are the function's arguments (first stage) or the
    /// previous stage's values; its root a tuple of the programs' `inputs`, then the values
    /// carried to the next stage.
    pub before: Arc<Computation>,
    /// How many leading elements of `before`'s tuple are the programs' inputs.
    pub inputs: usize,
    /// `programs[replica][partition]`.
    pub programs: Vec<Vec<Program>>,
    /// The `infeed` functions: their results fill every device's infeed queue, in order.
    pub infeed: Vec<Arc<Computation>>,
    /// Where the op is.
    pub pos: Pos,
}

impl Parallel {
    /// Runs the stage before on `args` and then the programs: the next stage's arguments
    /// (the carried values, then every program's results in device order).
    pub fn run(&self, args: &[Literal]) -> Result<Vec<Literal>> {
        let out = evaluate(&self.before, args).map_err(|e| ImportError::Eval(Box::new(e)))?;
        let Literal::Tuple(mut carried) = out else {
            return Err(self.err("the stage before it did not return a tuple".into()));
        };
        let inputs: Vec<Literal> = carried.drain(..self.inputs.min(carried.len())).collect();
        let results = self.run_programs(&inputs)?;
        carried.extend(results);
        Ok(carried)
    }

    /// Runs every program on its device with its share of `inputs`: their results in order.
    fn run_programs(&self, inputs: &[Literal]) -> Result<Vec<Literal>> {
        let flat: Vec<&Program> = self.programs.iter().flatten().collect();
        let mut shares = Vec::with_capacity(flat.len());
        let mut at = 0;
        for p in &flat {
            let n = p.computation.params.len();
            let share = inputs.get(at..at + n).ok_or_else(|| {
                self.err(format!(
                    "{} inputs, too few for the programs' parameters",
                    inputs.len()
                ))
            })?;
            shares.push(share);
            at += n;
        }
        let replicas = self.programs.len() as u32;
        let partitions = self.programs.first().map_or(0, Vec::len) as u32;
        let host = HostQueues::new();
        for f in &self.infeed {
            let v = evaluate(f, &[]).map_err(|e| ImportError::Eval(Box::new(e)))?;
            for d in 0..replicas * partitions {
                host.push_infeed_literal(d, &v);
            }
        }
        let outcomes = ThreadRunner::new(replicas, partitions)
            .timeout(TIMEOUT)
            .run_host(&host, |dev| {
                let d = dev.device_id() as usize;
                evaluate_on(&flat[d].computation, shares[d], dev)
                    .map_err(|e| CollectiveError::Transport(e.to_string()))
            });
        let mut results = Vec::new();
        for (d, (outcome, p)) in outcomes.into_iter().zip(&flat).enumerate() {
            let out = outcome.map_err(|e| self.err(format!("device {d} (@{}): {e}", p.name)))?;
            match (p.tupled, out) {
                (true, Literal::Tuple(mut all)) => {
                    all.truncate(p.results);
                    results.extend(all);
                }
                (false, out) => results.push(out),
                (true, _) => return Err(self.err(format!("@{} did not return a tuple", p.name))),
            }
        }
        Ok(results)
    }

    fn err(&self, message: String) -> ImportError {
        ImportError::Eval(Box::new(Error::new(
            "interpreter.run_parallel",
            format!("{}: {message}", self.pos),
        )))
    }
}
