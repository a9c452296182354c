//! `xla-oracle`: the test harness that runs our exported StableHLO on XLA:CPU and compares the
//! results with ours.
//!
//! [`Oracle`] drives `oracle/xla_oracle.py`, a long-lived Python process with jax/jaxlib (set up by
//! `bash oracle/setup.sh` into `target/oracle-venv`), through a small binary protocol described
//! in that file. [`compare`] checks literals bit-exactly or within ulps, [`random`] draws
//! deterministic inputs, [`cases`] runs test cases through our evaluator and XLA and compares.

pub mod bounds;
pub mod cases;
pub mod compare;
mod dynamic;
pub mod forward;
pub mod random;
mod wire;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};
use xla_core::{Computation, ElementType, Literal, Shape};

pub use cases::{check_eval_cases, check_shared, merge, shared, started, Check, EvalCase};
pub use compare::{assert_close, check_close, max_ulps, Tolerance};
pub use forward::{check_forward, Forward};
pub use random::{index_literal, ints_as, random_literal, Dist};

/// How to set the oracle up, appended to every start-up error.
const SETUP_HINT: &str =
    "run `bash oracle/setup.sh` (creates target/oracle-venv with jax/jaxlib), or set \
                          XLA_ORACLE_PYTHON to a python that can `import jax`";

/// A running oracle process. Requests are sequential; share one per test binary (a `Mutex`).
pub struct Oracle {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// `jax.__version__` reported by the server.
    pub jax_version: String,
    /// Where XLA runs: the CPU model, its widest vector ISA and the cap set by
    /// `XLA_ORACLE_MAX_ISA` (e.g. `AMD EPYC, ISA AVX512, XLA capped at AVX2`). XLA:CPU emits
    /// different code per ISA, so every failure message should name it.
    pub platform: String,
    /// Set once the process failed; later requests fail at once with this reason.
    dead: Option<String>,
}

/// The workspace root (the parent of this crate's directory).
fn workspace() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}

/// The python to run: `XLA_ORACLE_PYTHON` (a relative path is tried from the current directory,
/// then from the workspace root), else `<workspace>/target/oracle-venv/bin/python`.
fn python() -> PathBuf {
    match std::env::var_os("XLA_ORACLE_PYTHON") {
        Some(p) => {
            let p = PathBuf::from(p);
            if p.is_relative() && !p.exists() && workspace().join(&p).exists() {
                workspace().join(p)
            } else {
                p
            }
        }
        None => workspace().join("target/oracle-venv/bin/python"),
    }
}

impl Oracle {
    /// Starts the server and waits until jax is imported; `Err` (saying how to set the oracle up)
    /// if the python is missing or jax cannot be loaded.
    pub fn start() -> Result<Oracle, String> {
        Self::start_with(&python())
    }

    /// Starts a server whose XLA:CPU has `devices` host devices
    /// (`--xla_force_host_platform_device_count`), for [`Oracle::run_spmd`].
    pub fn start_spmd(devices: u32) -> Result<Oracle, String> {
        Self::start_inner(&python(), devices)
    }

    /// Starts the server with this python interpreter.
    pub fn start_with(py: &Path) -> Result<Oracle, String> {
        Self::start_inner(py, 1)
    }

    fn start_inner(py: &Path, devices: u32) -> Result<Oracle, String> {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("xla_oracle.py");
        let mut child = Command::new(py)
            .arg("-u")
            .arg(&script)
            .env("TF_CPP_MIN_LOG_LEVEL", "2")
            .env("XLA_ORACLE_DEVICES", devices.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| {
                format!(
                    "XLA oracle: cannot run python `{}`: {e}; {SETUP_HINT}",
                    py.display()
                )
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err("XLA oracle: no pipes to the python process".into());
        };
        let mut oracle = Oracle {
            child,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
            jax_version: String::new(),
            platform: String::new(),
            dead: None,
        };
        let hello = oracle.read_header().map_err(|e| {
            format!(
                "XLA oracle: python `{}` did not start the server ({e}); {SETUP_HINT}",
                py.display()
            )
        })?;
        if hello["ready"] != json!(true) {
            return Err(format!(
                "XLA oracle: python `{}` cannot load jax: {}; {SETUP_HINT}",
                py.display(),
                hello["error"].as_str().unwrap_or("unknown error")
            ));
        }
        oracle.jax_version = hello["jax"].as_str().unwrap_or("?").to_string();
        let field = |k: &str| hello[k].as_str().unwrap_or("?").to_string();
        oracle.platform = match field("max_isa").as_str() {
            "native" => format!("{}, ISA {}", field("cpu"), field("isa")),
            cap => format!(
                "{}, ISA {}, XLA capped at {cap}",
                field("cpu"),
                field("isa")
            ),
        };
        eprintln!(
            "XLA oracle: jax {} on {}",
            oracle.jax_version, oracle.platform
        );
        Ok(oracle)
    }

    /// Compiles `mlir` (cached by its text) and runs it on `args` (tuples are flattened, as the
    /// export flattens tuple parameters); returns the flat list of results.
    pub fn run(&mut self, mlir: &str, args: &[Literal]) -> Result<Vec<Literal>, String> {
        let header = self.request("run", mlir, args, 0)?;
        self.read_outputs(&header)
    }

    /// Runs the SPMD module `mlir` (from `try_to_stablehlo_spmd`) on `num_replicas x
    /// num_partitions` devices of a server from [`Oracle::start_spmd`], device `d` on
    /// `args[d]` (arrays of rank >= 1); each device's flat results, in device order.
    pub fn run_spmd(
        &mut self,
        mlir: &str,
        args: &[Vec<Literal>],
        num_replicas: u32,
        num_partitions: u32,
    ) -> Result<Vec<Vec<Literal>>, String> {
        let n = (num_replicas * num_partitions) as usize;
        if args.len() != n {
            return Err(format!(
                "run_spmd: {} argument lists for {n} devices",
                args.len()
            ));
        }
        let flat: Vec<Literal> = args.iter().flatten().cloned().collect();
        let extra = json!({"replicas": num_replicas, "partitions": num_partitions});
        let header = self.request_with("spmd", mlir, &flat, 0, extra)?;
        let outs = self.read_outputs(&header)?;
        let k = outs.len() / n;
        let mut it = outs.into_iter();
        Ok((0..n).map(|_| it.by_ref().take(k).collect()).collect())
    }

    /// The median wall time in seconds of `iters` runs of the SPMD module `mlir` on
    /// `num_replicas x num_partitions` devices (every device's results ready), device `d` on
    /// `args[d]`, measured inside the Python process after a warm-up.
    pub fn time_spmd(
        &mut self,
        mlir: &str,
        args: &[Vec<Literal>],
        (num_replicas, num_partitions): (u32, u32),
        iters: usize,
    ) -> Result<f64, String> {
        let flat: Vec<Literal> = args.iter().flatten().cloned().collect();
        let extra = json!({"replicas": num_replicas, "partitions": num_partitions});
        let header = self.request_with("spmd_time", mlir, &flat, iters.max(1), extra)?;
        header["seconds"]
            .as_f64()
            .ok_or_else(|| "XLA oracle: spmd_time response without seconds".into())
    }

    /// The correctly rounded values of `func` (an elementwise function by its op key: `exp`,
    /// `tanh`, `erf`, `pow`, `atan2`, ... as in `EXACT` of `xla_oracle.py`) on `args`, as `out`
    /// (f32 or f64): computed with mpmath at 200 bits and rounded once, special values by C99's
    /// limits. The reference the accuracy tests measure ours and XLA's results against.
    pub fn exact(
        &mut self,
        func: &str,
        args: &[Literal],
        out: ElementType,
    ) -> Result<Literal, String> {
        let extra = json!({"fn": func, "out": out.name()});
        let header = self.request_with("exact", "", args, 0, extra)?;
        let mut outs = self.read_outputs(&header)?;
        match (outs.pop(), outs.is_empty()) {
            (Some(l), true) => Ok(l),
            _ => Err("XLA oracle: exact mode must return one output".into()),
        }
    }

    /// Reads the outputs a `run` or `exact` response announces.
    fn read_outputs(&mut self, header: &Value) -> Result<Vec<Literal>, String> {
        let outs = header["outputs"]
            .as_array()
            .ok_or("XLA oracle: response without outputs")?;
        let mut results = Vec::with_capacity(outs.len());
        for o in outs {
            let dtype = o["dtype"].as_str().unwrap_or("");
            let ty = ElementType::from_name(dtype)
                .ok_or_else(|| format!("XLA oracle: unknown dtype `{dtype}`"))?;
            let dims: Vec<i64> = o["shape"]
                .as_array()
                .map(|d| d.iter().filter_map(Value::as_i64).collect())
                .unwrap_or_default();
            let n = o["nbytes"]
                .as_u64()
                .ok_or("XLA oracle: output without nbytes")? as usize;
            let mut buf = vec![0u8; n];
            self.stdout
                .read_exact(&mut buf)
                .map_err(|e| self.fail(format!("reading an output: {e}")))?;
            results.push(wire::from_bytes(ty, &dims, &buf)?);
        }
        Ok(results)
    }

    /// Exports `c`, runs it and reassembles the result in `c`'s result shape (a tuple result
    /// comes back as a tuple literal).
    pub fn run_computation(
        &mut self,
        c: &Computation,
        args: &[Literal],
    ) -> Result<Literal, String> {
        if xla_core::padder::needs_padding(c) {
            return self.run_dynamic(c, args);
        }
        let text = xla_core::stablehlo::try_to_stablehlo(c).map_err(|e| e.to_string())?;
        let flat = self.run(&text, args)?;
        let mut it = flat.into_iter();
        let out = rebuild(c.result_shape(), &mut it)
            .ok_or("XLA oracle: fewer results than the result shape has")?;
        match it.next() {
            None => Ok(out),
            Some(_) => Err("XLA oracle: more results than the result shape has".into()),
        }
    }

    /// The median wall time in seconds of `iters` runs of `mlir` on `args`, measured inside the
    /// Python process around execute + block_until_ready after a warm-up, inputs on the device.
    pub fn time(&mut self, mlir: &str, args: &[Literal], iters: usize) -> Result<f64, String> {
        let header = self.request("time", mlir, args, iters.max(1))?;
        header["seconds"]
            .as_f64()
            .ok_or_else(|| "XLA oracle: time response without seconds".into())
    }

    /// Sends one request; returns the response header when `ok`, else XLA's error.
    fn request(
        &mut self,
        mode: &str,
        mlir: &str,
        args: &[Literal],
        iters: usize,
    ) -> Result<Value, String> {
        self.request_with(mode, mlir, args, iters, json!({}))
    }

    /// [`Oracle::request`] with `extra` fields merged into the request header.
    fn request_with(
        &mut self,
        mode: &str,
        mlir: &str,
        args: &[Literal],
        iters: usize,
        extra: Value,
    ) -> Result<Value, String> {
        if let Some(d) = &self.dead {
            return Err(d.clone());
        }
        let mut leaves = Vec::new();
        for a in args {
            flatten(a, &mut leaves);
        }
        let mut inputs = Vec::new();
        let mut payload = Vec::new();
        for l in leaves {
            let Some((shape, data)) = l.as_array() else {
                return Err("XLA oracle: tokens cannot be sent".into());
            };
            let bytes = wire::to_bytes(data);
            inputs.push(
                json!({"dtype": shape.ty.name(), "shape": shape.dims, "nbytes": bytes.len()}),
            );
            payload.extend_from_slice(&bytes);
        }
        let mut header =
            json!({"mode": mode, "mlir_len": mlir.len(), "iters": iters, "inputs": inputs});
        if let (Some(h), Value::Object(e)) = (header.as_object_mut(), extra) {
            h.extend(e);
        }
        let sent = (|| -> std::io::Result<()> {
            let stdin = self
                .stdin
                .as_mut()
                .ok_or_else(|| std::io::Error::other("stdin closed"))?;
            stdin.write_all(header.to_string().as_bytes())?;
            stdin.write_all(b"\n")?;
            stdin.write_all(mlir.as_bytes())?;
            stdin.write_all(&payload)?;
            stdin.flush()
        })();
        sent.map_err(|e| self.fail(format!("sending a request: {e}")))?;
        let resp = self.read_header().map_err(|e| self.fail(e))?;
        if resp["ok"] == json!(true) {
            Ok(resp)
        } else {
            Err(format!(
                "XLA rejected the program: {}",
                resp["error"].as_str().unwrap_or("unknown error")
            ))
        }
    }

    /// Reads one JSON line.
    fn read_header(&mut self) -> Result<Value, String> {
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) => Err("the python process exited (its stderr is above)".into()),
            Ok(_) => serde_json::from_str(&line)
                .map_err(|e| format!("bad response `{}`: {e}", line.trim())),
            Err(e) => Err(format!("reading a response: {e}")),
        }
    }

    /// Marks the process dead and returns the message.
    fn fail(&mut self, why: String) -> String {
        let msg = format!("XLA oracle failed: {why}");
        self.dead = Some(msg.clone());
        msg
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        // Closing stdin ends the server's loop; wait so no zombie is left.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

fn flatten<'a>(l: &'a Literal, out: &mut Vec<&'a Literal>) {
    match l {
        Literal::Tuple(elems) => elems.iter().for_each(|e| flatten(e, out)),
        Literal::Array { .. } | Literal::Token => out.push(l),
    }
}

fn rebuild(shape: &Shape, it: &mut impl Iterator<Item = Literal>) -> Option<Literal> {
    match shape {
        Shape::Tuple(elems) => elems
            .iter()
            .map(|e| rebuild(e, it))
            .collect::<Option<Vec<_>>>()
            .map(Literal::Tuple),
        Shape::Array(_) | Shape::Token => it.next(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_python_is_an_error_that_says_how_to_set_up() {
        let e = Oracle::start_with(Path::new("/nonexistent/bin/python"))
            .err()
            .unwrap_or_default();
        assert!(
            e.contains("/nonexistent/bin/python") && e.contains("bash oracle/setup.sh"),
            "{e}"
        );
    }
}
