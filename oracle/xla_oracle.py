"""The XLA oracle: a long-lived server that compiles StableHLO text with XLA:CPU (through jaxlib)
and runs it, for the Rust crate `xla-oracle` (oracle/src/lib.rs), which speaks this protocol.

Protocol (stdin/stdout, binary-safe; all numbers little-endian):
  start:    the server writes one JSON line: {"ready": true, "jax": ..., "jaxlib": ..., "cpu":
            model name, "isa": widest vector ISA of the CPU, "max_isa": XLA_ORACLE_MAX_ISA or
            "native"}
            or {"ready": false, "error": ...} and exits.
  request:  one JSON line {"mode": "run" | "time" | "exact", "mlir_len": N, "iters": K,
            "inputs": [{"dtype": "f32", "shape": [2, 3], "nbytes": 24}, ...]}
            then N bytes of MLIR text (UTF-8), then each input's raw row-major bytes in order.
            dtypes are XLA's names: pred s8 s16 s32 s64 u8 u16 u32 u64 f16 bf16 f32 f64 c64 c128
            (pred is one byte per element, complex is (re, im) pairs).
  response: {"ok": true, "outputs": [{"dtype", "shape", "nbytes"}, ...]} then the bytes (run),
            {"ok": true, "seconds": s, "runs": K} (time: median of K timed runs after warm-up,
            measured here around execute + block_until_ready, inputs already on the device),
            or {"ok": false, "error": "..."}.
            mode "exact" (fields "fn" and "out": a function name of EXACT and the f32/f64 result
            dtype, mlir_len 0) answers like "run" with the correctly rounded values of the
            function on the inputs, computed with mpmath.
Compiled executables are cached by the SHA-256 of the text (and the jaxlib version, the CPU and
XLA_FLAGS): in memory,
and on disk in target/oracle-cache (XLA_ORACLE_CACHE_DIR overrides, "off" disables), because
XLA:CPU compiles each kernel in ~50 ms and the oracle tests have about a thousand. The files are
our own compilations, loaded back with deserialize_executable.
"""

import hashlib
import json
import os
import sys
import time
import traceback

# Everything human-readable goes to stderr; stdout carries the protocol only.
_OUT = sys.stdout.buffer
sys.stdout = sys.stderr
_IN = sys.stdin.buffer


def send(obj, payload=b""):
    _OUT.write(json.dumps(obj).encode() + b"\n")
    if payload:
        _OUT.write(payload)
    _OUT.flush()


def cpu_description():
    """The CPU model and its widest vector ISA, from /proc/cpuinfo: XLA:CPU generates different
    code (summation orders, rsqrt, ...) for AVX2 and AVX-512, so every result names where it ran."""
    model, flags = "unknown CPU", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and model == "unknown CPU":
                    model = value.strip()
                elif key == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    levels = [
        ("amx_tile", "AMX"),
        ("avx512_bf16", "AVX512_BF16"),
        ("avx512_vnni", "AVX512_VNNI"),
        ("avx512f", "AVX512"),
        ("avx2", "AVX2"),
        ("avx", "AVX"),
        ("sse4_2", "SSE4_2"),
    ]
    isa = next((name for flag, name in levels if flag in flags), "SSE2")
    return model, isa, sorted(flags)


# XLA_ORACLE_MAX_ISA caps the instructions XLA:CPU may use (XLA's --xla_cpu_max_isa: SSE4_2,
# AVX, AVX2, AVX512, ...), so a machine with AVX-512 also checks XLA's AVX2 code paths.
MAX_ISA = os.environ.get("XLA_ORACLE_MAX_ISA", "").strip().upper()
if MAX_ISA:
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + f" --xla_cpu_max_isa={MAX_ISA}").strip()
# XLA_ORACLE_DEVICES=N gives XLA:CPU N host devices, for SPMD programs (mode "spmd").
SPMD_DEVICES = int(os.environ.get("XLA_ORACLE_DEVICES", "1") or "1")
if SPMD_DEVICES > 1:
    os.environ["XLA_FLAGS"] = (
        os.environ.get("XLA_FLAGS", "") + f" --xla_force_host_platform_device_count={SPMD_DEVICES}"
    ).strip()
CPU_MODEL, CPU_ISA, CPU_FLAGS = cpu_description()

try:
    # XLA only warns about an unknown name and then uses every instruction: refuse it instead.
    _ISAS = ("SSE4_2", "AVX", "AVX2", "AVX512", "AVX512_VNNI", "AVX512_BF16", "AMX", "AMX_FP16")
    if MAX_ISA and MAX_ISA not in _ISAS:
        raise ValueError(f"XLA_ORACLE_MAX_ISA={MAX_ISA!r} is not one of {', '.join(_ISAS)}")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import numpy as np
    import jax
    import jaxlib
    import ml_dtypes
    from jax._src.lib import xla_client as xc

    # Without x64, device_put would silently narrow s64/u64/f64/c128 inputs.
    jax.config.update("jax_enable_x64", True)
    CLIENT = jax.devices("cpu")[0].client
    # JAX fills LAPACK's function table when it first lowers a linalg op; a text that calls
    # `lapack_*_ffi` compiled here without that lowering would run null pointers (a segfault).
    from jax._src.lax import linalg as _linalg

    _linalg.initialize_lapack()
    DEVICES = CLIENT.devices()[:1]
except Exception as e:  # noqa: BLE001 - any import failure is reported to the Rust side
    send({"ready": False, "error": f"{type(e).__name__}: {e}"})
    sys.exit(1)

DTYPES = {
    "pred": np.dtype(np.bool_),
    "s8": np.dtype(np.int8),
    "s16": np.dtype(np.int16),
    "s32": np.dtype(np.int32),
    "s64": np.dtype(np.int64),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "c64": np.dtype(np.complex64),
    "c128": np.dtype(np.complex128),
}
NAMES = {v: k for k, v in DTYPES.items()}

CACHE = {}
_CACHE_DIR = os.environ.get(
    "XLA_ORACLE_CACHE_DIR",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "oracle-cache"),
)


def read_exact(n):
    buf = bytearray()
    while len(buf) < n:
        chunk = _IN.read(n - len(buf))
        if not chunk:
            raise EOFError("stdin closed mid-request")
        buf += chunk
    return bytes(buf)


# What a compiled executable depends on besides its text: the jaxlib version, the CPU's ISA
# (XLA:CPU compiles for the host) and the XLA flags in force.
_CACHE_SALT = "\n".join(
    [jaxlib.__version__, CPU_MODEL, " ".join(CPU_FLAGS), os.environ.get("XLA_FLAGS", "")]
)


def compile_text(text):
    key = hashlib.sha256((_CACHE_SALT + "\n" + text).encode()).hexdigest()
    exe = CACHE.get(key)
    if exe is not None:
        return exe
    path = None if _CACHE_DIR == "off" else os.path.join(_CACHE_DIR, key + ".xla")
    if path and os.path.exists(path):
        try:
            with open(path, "rb") as f:
                exe = CLIENT.deserialize_executable(f.read(), DEVICES, xc.CompileOptions())
        except Exception:  # noqa: BLE001 - a stale or broken entry is recompiled
            exe = None
    if exe is None:
        exe = CLIENT.compile_and_load(text, DEVICES, xc.CompileOptions())
        if path:
            try:
                os.makedirs(_CACHE_DIR, exist_ok=True)
                tmp = f"{path}.{os.getpid()}.tmp"
                with open(tmp, "wb") as f:
                    f.write(exe.serialize())
                os.replace(tmp, path)
            except OSError:
                pass  # the cache is an optimisation only
    CACHE[key] = exe
    return exe


def decode_inputs(specs, raw):
    arrays, pos = [], 0
    for s in specs:
        dt = DTYPES[s["dtype"]]
        n = s["nbytes"]
        a = np.frombuffer(raw[pos : pos + n], dtype=dt.newbyteorder("<")).astype(dt)
        arrays.append(a.reshape(s["shape"]))
        pos += n
    return arrays


def run(exe, arrays):
    outs = exe.execute([jax.device_put(a, DEVICES[0]) for a in arrays])
    specs, payload = [], []
    for o in outs:
        # Not np.ascontiguousarray: it turns a 0-d array into shape (1,).
        a = np.asarray(o)
        b = a.astype(a.dtype.newbyteorder("<")).tobytes(order="C")
        specs.append({"dtype": NAMES[a.dtype], "shape": list(a.shape), "nbytes": len(b)})
        payload.append(b)
    return specs, b"".join(payload)


def spmd_prepare(text, arrays, replicas, partitions):
    """Compiles `text` for replicas x partitions devices and places `arrays` (each device's
    arguments in device order, device = replica * partitions + partition): each argument
    (rank >= 1) goes in as one global array, the devices' values stacked along axis 0, one
    shard per device. Returns the executable and its arguments."""
    n = replicas * partitions
    devs = CLIENT.devices()[:n]
    if len(devs) < n:
        raise ValueError(f"{n} devices wanted, XLA has {len(CLIENT.devices())} (XLA_ORACLE_DEVICES)")
    opts = xc.CompileOptions()
    opts.num_replicas = replicas
    opts.num_partitions = partitions
    # XLA refuses partitions without its SPMD partitioner; the program has no sharding
    # annotations, so the partitioner leaves it as written (each partition runs it whole).
    opts.executable_build_options.use_spmd_partitioning = partitions > 1
    opts.device_assignment = xc.DeviceAssignment.create(np.arange(n).reshape(replicas, partitions))
    exe = CLIENT.compile_and_load(text, devs, opts)
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    k = len(arrays) // n
    sharding = NamedSharding(Mesh(np.array(devs), ("d",)), PartitionSpec("d"))
    args = []
    for i in range(k):
        per = [arrays[d * k + i] for d in range(n)]
        if per[0].ndim == 0:
            raise ValueError("spmd mode takes arguments of rank >= 1")
        shards = [jax.device_put(a, devs[d]) for d, a in enumerate(per)]
        shape = (n * per[0].shape[0],) + per[0].shape[1:]
        args.append(jax.make_array_from_single_device_arrays(shape, sharding, shards))
    return exe, args


def run_spmd(text, arrays, replicas, partitions):
    """Runs `text` on replicas x partitions devices (see spmd_prepare); each device's results
    come back in device order."""
    n = replicas * partitions
    exe, args = spmd_prepare(text, arrays, replicas, partitions)
    results = exe.execute_sharded(args).disassemble_into_single_device_arrays()
    specs, payload = [], []
    for d in range(n):
        for r in results:
            a = np.asarray(r[d])
            b = a.astype(a.dtype.newbyteorder("<")).tobytes(order="C")
            specs.append({"dtype": NAMES[a.dtype], "shape": list(a.shape), "nbytes": len(b)})
            payload.append(b)
    return specs, b"".join(payload)


def time_spmd(text, arrays, replicas, partitions, iters):
    """The median wall time of `iters` runs of `text` on every device at once (all devices'
    results ready), after a warm-up, the arguments already on their devices."""
    exe, args = spmd_prepare(text, arrays, replicas, partitions)

    def once():
        for r in exe.execute_sharded(args).disassemble_into_single_device_arrays():
            for a in r:
                a.block_until_ready()

    for _ in range(min(3, iters)):
        once()
    samples = []
    for _ in range(iters):
        t0 = time.perf_counter()
        once()
        samples.append(time.perf_counter() - t0)
    samples.sort()
    return samples[len(samples) // 2]


def time_runs(exe, arrays, iters):
    args = [jax.device_put(a, DEVICES[0]) for a in arrays]
    for a in args:
        a.block_until_ready()
    for _ in range(min(3, iters)):
        for o in exe.execute(args):
            o.block_until_ready()
    samples = []
    for _ in range(iters):
        t0 = time.perf_counter()
        outs = exe.execute(args)
        for o in outs:
            o.block_until_ready()
        samples.append(time.perf_counter() - t0)
    samples.sort()
    return samples[len(samples) // 2]


# mode "exact": the correctly rounded value of a function, from mpmath at 200 bits, for the
# accuracy tests (ours and XLA's distance to the exact value). Special inputs (NaN, inf, zero
# results) follow C99's conventions through numpy in f64, which for these functions are the
# limits of the exact function.
EXACT = {
    "exp": lambda m, x: m.exp(x),
    "expm1": lambda m, x: m.expm1(x),
    "log": lambda m, x: m.log(x) if x > 0 else None,
    "log1p": lambda m, x: m.log1p(x) if x > -1 else None,
    "logistic": lambda m, x: 1 / (1 + m.exp(-x)),
    "tanh": lambda m, x: m.tanh(x),
    "erf": lambda m, x: m.erf(x),
    "sin": lambda m, x: m.sin(x),
    "cos": lambda m, x: m.cos(x),
    "tan": lambda m, x: m.tan(x),
    "cosh": lambda m, x: m.cosh(x),
    "sqrt": lambda m, x: m.sqrt(x) if x >= 0 else None,
    "rsqrt": lambda m, x: 1 / m.sqrt(x) if x > 0 else None,
    "cbrt": lambda m, x: m.sign(x) * m.cbrt(abs(x)),
    "pow": lambda m, x, y: m.power(x, y) if x > 0 else None,
    "atan2": lambda m, y, x: m.atan2(y, x) if (x, y) != (0, 0) else None,
}
NUMPY_EXACT = {
    "exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p,
    "logistic": lambda x: 1 / (1 + np.exp(-x)), "tanh": np.tanh, "erf": None, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "cosh": np.cosh, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "cbrt": np.cbrt, "pow": np.power, "atan2": np.arctan2,
}


def exact(fn, arrays, out_dtype):
    import math
    import mpmath

    f = EXACT[fn]
    out = np.empty(arrays[0].shape, dtype=out_dtype)
    bits = 24 if out_dtype == np.float32 else 53
    flat_in = [a.astype(np.float64).ravel() for a in arrays]
    flat_out = out.ravel()
    with np.errstate(all="ignore"):
        for i in range(flat_out.size):
            xs = [float(a[i]) for a in flat_in]
            v = None
            # Zeros go to numpy too: mpmath has no signed zero (atan2(-0, -1) is -pi).
            if all(math.isfinite(x) and x != 0 for x in xs):
                with mpmath.workprec(200):
                    v = f(mpmath.mp, *[mpmath.mpf(x) for x in xs])
            if v is None or not mpmath.isfinite(v):
                # Special values (and NaN domains): the IEEE limits, as numpy's f64 gives them.
                g = NUMPY_EXACT[fn]
                r = float("nan") if g is None else float(g(*[np.float64(x) for x in xs]))
                if fn == "erf" and not math.isnan(xs[0]):
                    r = math.erf(xs[0])
                flat_out[i] = r
                continue
            with mpmath.workprec(bits):
                # Rounds to the output's significand width (normal range) once.
                flat_out[i] = float(+v)
    return out.reshape(arrays[0].shape)


def serve():
    send(
        {
            "ready": True,
            "jax": jax.__version__,
            "jaxlib": jaxlib.__version__,
            "cpu": CPU_MODEL,
            "isa": CPU_ISA,
            "max_isa": MAX_ISA or "native",
        }
    )
    while True:
        line = _IN.readline()
        if not line:
            return
        try:
            req = json.loads(line)
            text = read_exact(req["mlir_len"]).decode()
            specs = req.get("inputs", [])
            raw = read_exact(sum(s["nbytes"] for s in specs))
        except Exception as e:  # noqa: BLE001 - a malformed request ends the session
            send({"ok": False, "error": f"bad request: {e}"})
            return
        try:
            arrays = decode_inputs(specs, raw)
            if req.get("mode") == "exact":
                a = exact(req["fn"], arrays, DTYPES[req["out"]])
                b = a.astype(a.dtype.newbyteorder("<")).tobytes(order="C")
                spec = {"dtype": req["out"], "shape": list(a.shape), "nbytes": len(b)}
                send({"ok": True, "outputs": [spec]}, b)
                continue
            if req.get("mode") == "spmd_time":
                iters = max(1, int(req.get("iters", 10)))
                t = time_spmd(text, arrays, req["replicas"], req["partitions"], iters)
                send({"ok": True, "seconds": t, "runs": iters})
                continue
            if req.get("mode") == "spmd":
                out_specs, payload = run_spmd(text, arrays, req["replicas"], req["partitions"])
                send({"ok": True, "outputs": out_specs}, payload)
                continue
            exe = compile_text(text)
            if req.get("mode", "run") == "time":
                iters = max(1, int(req.get("iters", 10)))
                send({"ok": True, "seconds": time_runs(exe, arrays, iters), "runs": iters})
            else:
                out_specs, payload = run(exe, arrays)
                send({"ok": True, "outputs": out_specs}, payload)
        except Exception as e:  # noqa: BLE001 - report XLA's message to the caller
            msg = f"{type(e).__name__}: {e}"
            if not isinstance(e, (ValueError, RuntimeError)) and "XlaRuntimeError" not in type(e).__name__:
                msg += "\n" + traceback.format_exc()
            send({"ok": False, "error": msg})


if __name__ == "__main__":
    serve()
