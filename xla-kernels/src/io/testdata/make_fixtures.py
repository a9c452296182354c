"""Writes the .npy/.npz files the `xla_kernels::io` tests read (numpy's own writer, so the
tests check our reader against numpy and our writer byte for byte against `np.save`).

Run with the oracle venv (numpy + ml_dtypes), from anywhere:
    target/oracle-venv/bin/python xla-kernels/src/io/testdata/make_fixtures.py
The values are the ones `io/tests` spells out; change both together.
"""

import os

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

REAL = [0.0, 1.5, -2.25, 4.0, -0.5, 100.0]
IMAG = [1.0, -1.0, 0.5, 0.0, 2.0, -3.0]

# XLA element type name -> numpy dtype.
TYPES = {
    "pred": np.bool_,
    "s8": np.int8,
    "s16": np.int16,
    "s32": np.int32,
    "s64": np.int64,
    "u8": np.uint8,
    "u16": np.uint16,
    "u32": np.uint32,
    "u64": np.uint64,
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "f32": np.float32,
    "f64": np.float64,
    "c64": np.complex64,
    "c128": np.complex128,
}


def values(name, dtype):
    """Six values of the type, shaped (2, 3)."""
    if name == "pred":
        v = [True, False, True, True, False, False]
    elif name[0] == "s":
        v = [0, 1, -2, 3, -4, np.iinfo(dtype).max]
    elif name[0] == "u":
        v = [0, 1, 2, 3, 4, np.iinfo(dtype).max]
    elif name[0] == "c":
        v = [complex(r, i) for r, i in zip(REAL, IMAG)]
    else:
        v = REAL
    return np.array(v, dtype=dtype).reshape(2, 3)


def save(name, array):
    np.save(os.path.join(HERE, name + ".npy"), array)


def main():
    for name, dtype in TYPES.items():
        save(name, values(name, dtype))
    # Other byte orders and layouts, read as copies.
    save("be_f32", values("f32", ">f4"))
    save("be_s16", values("s16", ">i2"))
    save("be_c128", values("c128", ">c16"))
    save("fortran_f32", np.asfortranarray(values("f32", np.float32)))
    save("fortran_s32_3d", np.asfortranarray(np.arange(24, dtype=np.int32).reshape(2, 3, 4)))
    # Ranks 0 and 1, and an empty array.
    save("scalar_f64", np.array(2.5, dtype=np.float64))
    save("vec_u8", np.arange(5, dtype=np.uint8))
    save("empty_f32", np.zeros((0, 3), dtype=np.float32))
    # Not an XLA element type.
    save("float128", np.zeros(2, dtype=np.longdouble))
    save("unicode", np.array(["ab", "c"]))
    # Archives: stored (np.savez) and deflated (np.savez_compressed) members.
    members = {"w": values("f32", np.float32), "b": values("bf16", ml_dtypes.bfloat16)[0]}
    np.savez(os.path.join(HERE, "arrays.npz"), **members)
    np.savez_compressed(os.path.join(HERE, "arrays_compressed.npz"), **members)


if __name__ == "__main__":
    main()
