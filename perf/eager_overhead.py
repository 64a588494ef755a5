"""The eager forward's per-op overhead: a recorded jitgrad op minus the bare numpy call.

    python perf/eager_overhead.py

Shapes are W5a's (a 16-32-1 MLP on one sample), where this overhead is most of a training
step. Each op runs in a loop inside one function, as in a training loop (a lambda per call
would also pay for a fresh frame in the call-site walk); the numpy side of `sum` is
np.add.reduce, what np.sum runs under its Python wrapper. Median over interleaved samples.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
import jitgrad as P  # noqa: E402


def loop(stmt: str, env: dict, n: int) -> object:
    """A function running `stmt` n times in one frame."""
    exec(f"def f():\n    for _ in range({n}):\n        {stmt}\n", env)
    return env["f"]


def main(samples: int = 200) -> None:
    rng = np.random.default_rng(0)
    xn = rng.standard_normal((1, 16)).astype(np.float32)
    wn = rng.standard_normal((16, 32)).astype(np.float32)
    hn = rng.standard_normal((1, 32)).astype(np.float32)
    bn = rng.standard_normal(32).astype(np.float32)
    w2n = rng.standard_normal((32, 1)).astype(np.float32)
    b2n = rng.standard_normal(1).astype(np.float32)
    x = P.to_tensor(xn)
    w, b, w2, b2 = (P.to_tensor(a, stop_gradient=False) for a in (wn, bn, w2n, b2n))
    h = P.matmul(x, w)                      # a recorded (non-leaf) tensor, as in the model
    env = dict(P=P, np=np, x=x, w=w, h=h, b=b, w2=w2, b2=b2, xn=xn, wn=wn, hn=hn, bn=bn,
               w2n=w2n, b2n=b2n)
    cases = [("matmul (1,16)@(16,32)", "P.matmul(x, w)", "np.matmul(xn, wn)"),
             ("add (1,32)+(32,)", "h + b", "hn + bn"),
             ("tanh (1,32)", "P.tanh(h)", "np.tanh(hn)"),
             ("sum (1,32)", "P.sum(h)", "np.add.reduce(hn, axis=None)"),
             ("mean (1,32)", "P.mean(h)", "np.add.reduce(hn, axis=None) / 32")]
    fwd = ("W5a forward (6 ops)",
           "P.sum(P.matmul(P.tanh(P.matmul(x, w) + b), w2) + b2)",
           "np.add.reduce(np.matmul(np.tanh(np.matmul(xn, wn) + bn), w2n) + b2n, axis=None)")
    fns = {}
    for name, jg, npf in cases + [fwd]:
        n = 10 if name == fwd[0] else 50            # ~100 us a sample
        fns[name] = (loop(jg, env, n), loop(npf, env, n), n)
    times: dict[str, tuple[list, list]] = {k: ([], []) for k in fns}
    for _ in range(samples):
        for name, (a, c, n) in fns.items():
            for fn, out in ((a, times[name][0]), (c, times[name][1])):
                t0 = time.perf_counter()
                fn()
                out.append((time.perf_counter() - t0) / n)
    print(f"{'op':24s} {'jitgrad':>10s} {'numpy':>10s} {'overhead':>10s}")
    per_op = []
    for name, (ja, na) in times.items():
        a, c = statistics.median(ja), statistics.median(na)
        if name != fwd[0]:
            per_op.append(a - c)
        print(f"{name:24s} {a * 1e6:7.2f} us {c * 1e6:7.2f} us {(a - c) * 1e6:7.2f} us")
    print(f"mean overhead per recorded op: {np.mean(per_op) * 1e6:.2f} us")


if __name__ == "__main__":
    main()
