"""`python -m jitgrad`: the seed examples, then one retained-graph replay timing.

`python -m jitgrad warmup [--all] [--quiet]`: compile (or load from Numba's disk cache) the
backward interpreter; with --all also every forward kernel the ops use (precompile.py), so
that no op call compiles one later: run it in a Docker image build, or before a notebook
demo, with the NUMBA_CACHE_DIR the users will have.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import jitgrad as paddle


def seed_examples() -> None:
    TT = paddle.to_tensor
    x = TT([[1, 2], [3, 4]], dtype="float32", stop_gradient=False)
    y = TT([[3, 2], [3, 4]], dtype="float32")
    z1, z2 = paddle.matmul(x, y), paddle.matmul(x, y)
    paddle.autograd.backward([z1, z2], [TT([[1, 2], [2, 3]], dtype="float32"), None], True)
    print("backward([z1, z2], [g1, None]) -> x.grad =", x.grad, sep="\n")

    x = TT([1.0], stop_gradient=False)
    z = paddle.matmul(x, TT([2.0]))
    paddle.autograd.backward(z, TT([3.0]))
    print("matmul of shape-[1] tensors, seed [3.] -> x.grad =", x.grad, sep="\n")
    try:
        paddle.autograd.backward(z, TT([3.0]))
    except RuntimeError as e:
        print("second backward on a freed graph raises RuntimeError:", e)

    for fn in (paddle.square, paddle.exp, paddle.log):
        x = TT([1.0, 2.0], stop_gradient=False)
        paddle.autograd.backward(fn(x))
        print(f"{fn.__name__}([1, 2]) -> x.grad =", x.grad, sep="\n")

    x = TT([1.0, 2.0], stop_gradient=False)
    z = paddle.exp(x) / paddle.sum(paddle.exp(x))
    paddle.autograd.backward(z, TT([1.0, 2.0]))
    print("softmax written out, seed [1, 2] -> x.grad =", x.grad, sep="\n")


def replay_timing(n_ops: int = 200, size: int = 64, repeats: int = 2000) -> None:
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.standard_normal(size).astype(np.float32), stop_gradient=False)
    c = paddle.to_tensor(rng.uniform(0.5, 1.0, size).astype(np.float32))
    h = x
    for i in range(n_ops // 5):
        h = paddle.tanh(paddle.sin(h) * c + c) + h * c
    loss = paddle.sum(h)
    t0 = time.perf_counter()
    loss.backward(retain_graph=True)
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        loss.backward(retain_graph=True)
        times.append(time.perf_counter() - t0)
    print(f"\n{n_ops}-op chain on {size} float32 elements: first backward (lower + compile or "
          f"cache load) {first * 1e3:.1f} ms; retained replay median "
          f"{np.median(times) * 1e6:.1f} us")


def warmup_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m jitgrad warmup",
        description="Compile (or load from Numba's disk cache) jitgrad's compiled code now: "
                    "the backward interpreter, and with --all every forward kernel.")
    parser.add_argument("--all", action="store_true",
                        help="also every forward kernel the ops use (minutes on an empty "
                             "cache), so that no op call compiles one later")
    parser.add_argument("--quiet", action="store_true", help="print nothing")
    args = parser.parse_args(argv)
    paddle.warmup(quiet=args.quiet, forward=args.all)
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["warmup"]:
        return warmup_command(argv[1:])
    if argv:
        print("usage: python -m jitgrad [warmup [--all] [--quiet]]", file=sys.stderr)
        return 2
    seed_examples()
    paddle.warmup()         # load (or compile, once per machine) the compiled interpreter
    replay_timing()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
