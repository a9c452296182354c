"""Trains the 784-128-10 MLP of `examples/src/mnist_mlp.rs` on synthetic digits and writes its
weights, with 64 held-out test images, to `mlp.safetensors` beside this script.

The digits are seven-segment glyphs drawn on 28x28 pixels with a random position, size, slant,
stroke width and brightness, plus noise: a stand-in for MNIST that needs no download. Training
is plain numpy (Adam on softmax cross-entropy), seeded, so a rerun gives the same file up to
BLAS rounding. The example needs only the committed file, no Python.

Run with the oracle venv's numpy (or any numpy >= 1.20):
    target/oracle-venv/bin/python examples/data/make_mlp_weights.py

The safetensors format is written by hand (the `safetensors` package is not needed): an 8-byte
little-endian header length, a JSON header padded with spaces to 8 bytes, then the tensors.
"""

import json
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "mlp.safetensors")

# Segments a..g of a seven-segment display, lit per digit.
SEGMENTS = {
    0: "abcdef", 1: "bc", 2: "abdeg", 3: "abcdg", 4: "bcfg",
    5: "acdfg", 6: "acdefg", 7: "abc", 8: "abcdefg", 9: "abcdfg",
}


def draw(digit, rng):
    """One 28x28 image of `digit`, float32 in [0, 1]."""
    img = np.zeros((28, 28), dtype=np.float32)
    w, h = rng.integers(9, 15), rng.integers(15, 21)
    t = rng.integers(2, 4)  # stroke width
    x0, y0 = rng.integers(4, 28 - 4 - w), rng.integers(3, 28 - 3 - h)
    slant = rng.uniform(-0.25, 0.25)
    mid = h // 2
    # (x, y, width, height) of each segment in glyph coordinates.
    boxes = {
        "a": (0, 0, w, t), "g": (0, mid - t // 2, w, t), "d": (0, h - t, w, t),
        "f": (0, 0, t, mid), "b": (w - t, 0, t, mid),
        "e": (0, mid, t, h - mid), "c": (w - t, mid, t, h - mid),
    }
    for s in SEGMENTS[digit]:
        bx, by, bw, bh = boxes[s]
        for yy in range(by, by + bh):
            shift = int(round(slant * (h / 2 - yy)))
            x_start = x0 + bx + shift
            img[y0 + yy, max(x_start, 0):min(x_start + bw, 28)] = 1.0
    img *= rng.uniform(0.6, 1.0)
    img += rng.normal(0.0, 0.12, img.shape).astype(np.float32)
    return np.clip(img, 0.0, 1.0)


def dataset(n, rng):
    labels = rng.integers(0, 10, n)
    images = np.stack([draw(int(d), rng) for d in labels]).reshape(n, 784)
    # Stored as bytes, as image files are; the model sees pixel / 255.
    pixels = np.round(images * 255).astype(np.uint8)
    return pixels, labels.astype(np.uint8)


def forward(x, p):
    h = np.maximum(x @ p["w1"] + p["b1"], 0.0)
    logits = h @ p["w2"] + p["b2"]
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return h, e / e.sum(axis=1, keepdims=True)


def train(pixels, labels, rng, epochs=8, batch=64, lr=1e-3):
    x_all = pixels.astype(np.float32) / 255
    p = {
        "w1": (rng.normal(0, 1, (784, 128)) * np.sqrt(2 / 784)).astype(np.float32),
        "b1": np.zeros(128, np.float32),
        "w2": (rng.normal(0, 1, (128, 10)) * np.sqrt(2 / 128)).astype(np.float32),
        "b2": np.zeros(10, np.float32),
    }
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(v) for k, v in p.items()}
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(labels))
        for i in range(0, len(order), batch):
            idx = order[i:i + batch]
            x, y = x_all[idx], labels[idx]
            h, prob = forward(x, p)
            d_logits = prob
            d_logits[np.arange(len(y)), y] -= 1
            d_logits /= len(y)
            d_h = (d_logits @ p["w2"].T) * (h > 0)
            grads = {
                "w2": h.T @ d_logits, "b2": d_logits.sum(0),
                "w1": x.T @ d_h, "b1": d_h.sum(0),
            }
            step += 1
            for k in p:  # Adam
                m[k] = 0.9 * m[k] + 0.1 * grads[k]
                v[k] = 0.999 * v[k] + 0.001 * grads[k] ** 2
                m_hat = m[k] / (1 - 0.9 ** step)
                v_hat = v[k] / (1 - 0.999 ** step)
                p[k] = (p[k] - lr * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(np.float32)
    return p


def save_safetensors(path, tensors, metadata):
    dtypes = {np.dtype(np.float32): "F32", np.dtype(np.uint8): "U8"}
    header = {"__metadata__": metadata}
    blobs, offset = [], 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
        header[name] = {
            "dtype": dtypes[array.dtype],
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for data in blobs:
            f.write(data)


def main():
    rng = np.random.default_rng(2026)
    train_x, train_y = dataset(12000, rng)
    eval_x, eval_y = dataset(2000, rng)
    test_x, test_y = dataset(64, rng)
    p = train(train_x, train_y, rng)
    _, eval_prob = forward(eval_x.astype(np.float32) / 255, p)
    accuracy = float((eval_prob.argmax(1) == eval_y).mean())
    _, test_prob = forward(test_x.astype(np.float32) / 255, p)
    tensors = dict(p)
    tensors.update({
        "test_pixels": test_x,
        "test_labels": test_y,
        # numpy's class probabilities for the test images, to compare the AOT code with.
        "test_probs_numpy": test_prob.astype(np.float32),
    })
    metadata = {
        "description": "784-128-10 ReLU MLP trained on synthetic seven-segment digits "
                       "by examples/data/make_mlp_weights.py",
        "eval_accuracy": f"{accuracy:.4f} on 2000 held-out images",
    }
    save_safetensors(OUT, tensors, metadata)
    print(f"wrote {OUT} ({os.path.getsize(OUT)} bytes); accuracy {accuracy:.4f} on 2000 held-out "
          f"images, {(test_prob.argmax(1) == test_y).sum()}/64 on the test batch")


if __name__ == "__main__":
    main()
