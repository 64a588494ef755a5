"""W3's backward (one CHAIN row over 4,000,000 float32 elements) side by side: the CHAIN
kernel of an older revision against this checkout's, one thread and default threads.

    python perf/chain_ab.py [--rev f57d56f] [--reps 31]

The old kernel is compiled from `git show REV:src/jitgrad/vm/kernels.py` (no disk cache;
vm/interpreter.py for revisions before the kernels had a module of their own) and runs a Program lowered as REV would (without the scale folds if REV predates
them), in an arena of its own with the scratch tile it needs; samples are
interleaved (shuffled order) and the medians printed, with a control row: this checkout's
kernel again, whose distance from 1.00x is the run's noise. Not a test, nothing imports it.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.abspath(os.path.join(HERE, "..", "src"))]

import workloads as W  # noqa: E402
from jitgrad.compile import peephole  # noqa: E402
from jitgrad.vm import threads  # noqa: E402
from jitgrad.vm._numba import jit  # noqa: E402


def _show(rev: str, *paths: str) -> tuple[str, str]:
    """(path, text) of the first of `paths` that exists at `rev`; ("", "") for none."""
    for path in paths:
        got = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=HERE,
                             capture_output=True, text=True)
        if got.returncode == 0:
            return path, got.stdout
    return "", ""


def old_chain(rev: str):
    path, src = _show(rev, "src/jitgrad/vm/kernels.py", "src/jitgrad/vm/interpreter.py")
    if not path:
        raise SystemExit(f"no compiled interpreter at {rev}")
    for rel, pkg in (("..program", "jitgrad.vm.program"), (".program", "jitgrad.vm.program"),
                     ("._numba", "jitgrad.vm._numba"), (".blas", "jitgrad.vm.blas"),
                     (".kernels", "jitgrad.vm.kernels"), (". import", "jitgrad.vm import")):
        src = src.replace(f"from {rel} ", f"from {pkg} ")
    ns: dict = {}
    with warnings.catch_warnings():            # "cannot cache": compiled in this process
        warnings.simplefilter("ignore")
        exec(compile(src, f"{rev}:{os.path.basename(path)}", "exec"), ns)
    return jit(ns["_chain"].py_func, cache=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="f57d56f")
    ap.add_argument("--reps", type=int, default=31)
    ap.add_argument("--size", type=int, default=4_000_000,
                    help="elements (a small size leaves memory out: the kernels' own cost)")
    ap.add_argument("--min", action="store_true", help="minimum instead of median (a busy "
                    "machine: compare the kernels' own cost)")
    args = ap.parse_args()
    d = W.data_chain(W.CHAIN_W3, 20, args.size)
    os.environ["JITGRAD_NO_STRUCTURAL"] = "1"     # two Programs, not one shared
    # the old side: lowered without the scale folds (peephole.K_FIRST) when REV predates them
    folds = peephole.K_FIRST
    had_folds = "K_FIRST" in _show(args.rev, "src/jitgrad/compile/peephole.py",
                                   "src/jitgrad/vm/peephole.py", "src/jitgrad/peephole.py")[1]
    peephole.K_FIRST = folds if had_folds else set()
    o_old = W.JitgradChain(d)
    o_old.grads()
    peephole.K_FIRST = folds
    o = W.JitgradChain(d)
    o.grads()
    old_prog, prog = (next(p for p in next(iter(x.loss._node.programs.values()))
                           if hasattr(p, "arena")) for x in (o_old, o))
    if prog.code.shape[0] != 1 or old_prog.code.shape[0] != 1:
        raise SystemExit("expected W3's backward to be one CHAIN row")
    r = [int(v) for v in prog.code[0]]
    ro = [int(v) for v in old_prog.code[0]]
    old = old_chain(args.rev)
    # the old kernel tiled through a scratch slot (field c); this checkout's row repeats a
    # there, so the old kernel runs on a copy of the arena with a free tile at its end
    arena2 = np.concatenate([old_prog.arena, np.zeros(4096, old_prog.arena.dtype)])

    import inspect
    if "scratch" in inspect.signature(old.py_func).parameters:
        def run_old() -> None:
            old(arena2, old_prog.itab, old_prog.consts, ro[1], ro[2], arena2.size - 4096,
                ro[5], ro[6], True)
    elif "tile" in inspect.signature(old.py_func).parameters:    # the caller's scratch tile
        tile = np.empty(4096, old_prog.arena.dtype)

        def run_old() -> None:
            old(arena2, old_prog.itab, old_prog.consts, ro[1], ro[2], 0, ro[5], ro[6], True,
                tile)
    else:                                      # (o, a, lo, hi, p, acc): no scratch slot
        def run_old() -> None:
            old(arena2, old_prog.itab, old_prog.consts, ro[1], ro[2], 0, ro[5], ro[6], True)

    default = threads.num_threads()
    fns = {f"{args.rev} kernel, 1 thread": run_old}
    loops = max(1, 4_000_000 // args.size)     # a sample covers 4M elements either way

    from jitgrad.vm.interpreter import chain_part

    # this checkout's kernel also runs on a padded copy made the way arena2 was (the same
    # footing as the old kernel), and the contenders take turns in a shuffled order. The
    # control runs the same kernel on a third copy: its ratio to "this checkout" is the
    # spread between identical contenders (identical kernels landed 1.03-1.15x apart on a
    # busy machine with the old fixed order and arenas), so only a gain well beyond it counts.
    arena3 = np.concatenate([prog.arena, np.zeros(4096, prog.arena.dtype)])
    arena4 = np.concatenate([prog.arena, np.zeros(4096, prog.arena.dtype)])

    def one() -> None:                         # the kernel alone, as for the old one
        chain_part(prog.code, arena3, prog.itab, prog.consts, 0, 0, r[5])

    def control() -> None:
        chain_part(prog.code, arena4, prog.itab, prog.consts, 0, 0, r[5])

    def many() -> None:                        # a whole backward call
        o.backward()

    fns["this checkout, 1 thread"] = one
    fns["this checkout again (control)"] = control
    fns[f"this checkout, backward(), {default} threads"] = many
    for f in fns.values():
        f()
    ts: dict = {k: [] for k in fns}
    order = list(fns)
    rng = random.Random(0)
    for _ in range(args.reps):
        rng.shuffle(order)                     # no contender always follows the same one
        for k in order:
            f = fns[k]
            t0 = time.perf_counter()
            for _ in range(loops):
                f()
            ts[k].append(time.perf_counter() - t0)
    med = {k: (min(v) if args.min else statistics.median(v)) for k, v in ts.items()}
    base = med[f"{args.rev} kernel, 1 thread"]
    print(f"W3 backward on {args.size} elements, x{loops} per sample, "
          f"{'minimum' if args.min else 'medians'} of "
          f"{args.reps} interleaved samples:")
    for k, v in med.items():
        print(f"  {k:32s} {v * 1e3:7.2f} ms   {base / v:4.2f}x")


if __name__ == "__main__":
    main()
