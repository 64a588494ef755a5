"""W3's backward (one CHAIN row over 4,000,000 float32 elements) side by side: the CHAIN
kernel of an older revision against this checkout's, one thread and default threads.

    python perf/chain_ab.py [--rev f57d56f] [--reps 31]

The old kernel is compiled from `git show REV:src/jitgrad/vm/interpreter.py` (no disk
cache) and run on a copy of this checkout's arena (plus the scratch tile it needs); samples are
interleaved and the medians printed. Not a test, nothing imports it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.abspath(os.path.join(HERE, "..", "src"))]

import workloads as W  # noqa: E402
from jitgrad.vm import threads  # noqa: E402
from jitgrad.vm._numba import jit  # noqa: E402


def old_chain(rev: str):
    src = subprocess.run(["git", "show", f"{rev}:src/jitgrad/vm/interpreter.py"], cwd=HERE,
                         capture_output=True, text=True, check=True).stdout
    for rel, pkg in (("..program", "jitgrad.program"), ("._numba", "jitgrad.vm._numba"),
                     (".blas", "jitgrad.vm.blas"), (". import", "jitgrad.vm import")):
        src = src.replace(f"from {rel} ", f"from {pkg} ")
    ns: dict = {}
    with warnings.catch_warnings():            # "cannot cache": compiled in this process
        warnings.simplefilter("ignore")
        exec(compile(src, f"{rev}:interpreter.py", "exec"), ns)
    return jit(ns["_chain"].py_func, cache=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="f57d56f")
    ap.add_argument("--reps", type=int, default=31)
    args = ap.parse_args()
    d = W.data_chain(W.CHAIN_W3, 20, 4_000_000)
    o = W.JitgradChain(d)
    o.grads()
    prog = next(p for p in next(iter(o.loss._node.programs.values())) if hasattr(p, "arena"))
    if prog.code.shape[0] != 1:
        raise SystemExit("expected W3's backward to be one CHAIN row")
    r = [int(v) for v in prog.code[0]]
    old = old_chain(args.rev)
    # the old kernel tiled through a scratch slot (field c); this checkout's row repeats a
    # there, so the old kernel runs on a copy of the arena with a free tile at its end
    arena2 = np.concatenate([prog.arena, np.zeros(4096, prog.arena.dtype)])

    def run_old() -> None:
        old(arena2, prog.itab, prog.consts, r[1], r[2], prog.arena.size, r[5], r[6], True)

    default = threads.num_threads()
    fns = {f"{args.rev} kernel, 1 thread": run_old}

    def one() -> None:
        threads.set_num_threads(1)
        o.backward()

    def many() -> None:
        threads.set_num_threads(None)
        o.backward()

    fns["this checkout, 1 thread"] = one
    fns[f"this checkout, {default} threads"] = many
    for f in fns.values():
        f()
    ts: dict = {k: [] for k in fns}
    for _ in range(args.reps):
        for k, f in fns.items():
            t0 = time.perf_counter()
            f()
            ts[k].append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in ts.items()}
    base = med[f"{args.rev} kernel, 1 thread"]
    print(f"W3 backward, medians of {args.reps} interleaved samples:")
    for k, v in med.items():
        print(f"  {k:32s} {v * 1e3:7.2f} ms   {base / v:4.2f}x")


if __name__ == "__main__":
    main()
