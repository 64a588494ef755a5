"""How the first backward (lowering + run) scales with the graph, against torch's backward.

Three graphs, each at several sizes, so a cost per op that stays flat as N grows shows the
lowering is linear:

  leaves   sum_i (x_i * c_i).sum() over N separate leaves x_i (4 elements, c_i constants)
  chain    an N-op elementwise chain on 64 elements (sin, * c, + c, tanh, exp; c vectors)
  matmuls  sum_i matmul(x, W_i).sum() over N leaves W_i (8 x 8): a wide graph of GEMMs

Timed: `loss.backward()` on a freshly built graph (jitgrad: program cache emptied first,
so the graph is a new structure: interpreted by default, lowered with `--lower`, which is
what a structure's second backward costs; the compiled interpreter is loaded before). The forward is not timed. Each
point is the best of a few fresh graphs (one for the largest). torch runs in a second
interpreter (`--peer-python`, default /work/peers/bin/python) when it is not importable here.

    python perf/lowering_scale.py                  # all cases, with torch if available
    python perf/lowering_scale.py --src DIR        # another checkout's jitgrad (DIR/src)
    python perf/lowering_scale.py --cases leaves   # a subset

Measured on 2 shared cores under load from other jobs (load average ~4; single samples
swing by up to 2x, so read the trend along N): first backward in s, and us per recorded op.
`python perf/lowering_scale.py --src <ae90ecf checkout>/src --repeat 1 --no-torch` for
"before", `python perf/lowering_scale.py` for "after" and torch 2.13.0 (one thread):

  graph       N      ops |  before (ae90ecf)   |  after (h-linear)  |  torch 2.13.0   | after/
                         |       s     us/op   |     s     us/op    |    s    us/op   | torch
  leaves    1,000   2,999|    0.885    295.1   |   0.321   107.2    |  0.034   11.4   |  9.4x
  leaves   10,000  29,999|   59.333   1977.8   |   3.534   117.8    |  0.332   11.1   | 10.6x
  leaves   30,000  89,999|  467.788   5197.7   |  10.253   113.9    |  1.019   11.3   | 10.1x
  chain    10,000  10,001|    1.551    155.1   |   1.032   103.2    |  0.108   10.8   |  9.6x
  chain   100,000 100,001|   35.922    359.2   |  10.582   105.8    |  1.556   15.6   |  6.8x
  matmuls   1,000   2,999|    0.700    233.6   |   0.290    96.7    |  0.035   11.8   |  8.2x
  matmuls  10,000  29,999|   43.652   1455.1   |   2.910    97.0    |  0.415   13.8   |  7.0x

2026-12-04 20:00 UTC, with the interpret state (autograd/interpret.py) that now serves a
new structure's first backward (`python perf/lowering_scale.py`, torch 2.13.0 in the same
run); the `lower` column is the tree before it (41d635f, `--src`, run at 19:40): first
backward in s (us/op):

  graph       N      ops |  interpret      |  lower (41d635f) |  torch         | interp/torch
  leaves    1,000   2,999|  0.025   (8.3)  |  0.045  (15.0)   |  0.015  (5.0) |  1.6x
  leaves   10,000  29,999|  0.262   (8.7)  |  0.500  (16.7)   |  0.183  (6.1) |  1.4x
  leaves   30,000  89,999|  0.939  (10.4)  |  1.758  (19.5)   |  0.600  (6.7) |  1.6x
  chain    10,000  10,001|  0.069   (6.9)  |  0.125  (12.5)   |  0.047  (4.7) |  1.5x
  chain   100,000 100,001|  0.939   (9.4)  |  1.534  (15.3)   |  0.711  (7.1) |  1.3x
  matmuls   1,000   2,999|  0.023   (7.6)  |  0.049  (16.2)   |  0.015  (4.9) |  1.6x
  matmuls  10,000  29,999|  0.259   (8.6)  |  0.520  (17.3)   |  0.193  (6.4) |  1.3x

Issue 13's targets: a 10,000-leaf graph's first backward under 2 s (0.26 s), a 100,000-op
chain at most 2x torch (1.3x; 0.7x at 19:40, when torch's run took 1.0 s).

Before the h-linear change, the cost per op grew with N (quadratic passes in peephole and external); after it
is flat at ~100 us/op. In the 100,000-op chain that is roughly: peephole's passes ~30,
placing the saved values ~10, the op rules and Builder in lower() ~55, the structural
cache's key and recipe ~15 (a miss builds both); the compiled run itself is negligible.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

CASES = [("leaves", 1_000), ("leaves", 10_000), ("leaves", 30_000),
         ("chain", 10_000), ("chain", 100_000),
         ("matmuls", 1_000), ("matmuls", 10_000)]
CHAIN_KINDS = ("sin", "mul", "add", "tanh", "exp")


def data(kind: str, n: int, seed: int = 0) -> dict:
    """Seeded float32 inputs, the same for jitgrad and torch."""
    rng = np.random.default_rng(seed)
    if kind == "leaves":
        return {"x": rng.standard_normal((n, 4)).astype(np.float32),
                "c": rng.standard_normal((n, 4)).astype(np.float32)}
    if kind == "chain":
        ops = [CHAIN_KINDS[i % len(CHAIN_KINDS)] for i in range(n)]
        consts = [rng.uniform(0.5, 1.5, 64).astype(np.float32) if op == "mul" else
                  rng.uniform(-0.5, 0.5, 64).astype(np.float32) if op == "add" else None
                  for op in ops]
        return {"x": rng.uniform(-1, 1, 64).astype(np.float32), "ops": ops, "consts": consts}
    if kind == "matmuls":
        return {"x": rng.standard_normal((8, 8)).astype(np.float32),
                "W": (rng.standard_normal((n, 8, 8)) / 3).astype(np.float32)}
    raise ValueError(kind)


def build(lib: str, kind: str, d: dict) -> tuple:
    """(loss, recorded ops) of the graph in jitgrad or torch."""
    if lib == "torch":
        import torch
        leaf = lambda a: torch.tensor(a, requires_grad=True)      # noqa: E731
        const = torch.tensor
        sin, tanh, exp, matmul = torch.sin, torch.tanh, torch.exp, torch.matmul
    else:
        import jitgrad as P
        leaf = lambda a: P.to_tensor(a, stop_gradient=False)      # noqa: E731
        const = P.to_tensor
        sin, tanh, exp, matmul = P.sin, P.tanh, P.exp, P.matmul
    if kind == "leaves":
        loss = None
        for x, c in zip(d["x"], d["c"]):
            t = (leaf(x) * const(c)).sum()
            loss = t if loss is None else loss + t
        return loss, 3 * len(d["x"]) - 1
    if kind == "chain":
        h = leaf(d["x"])
        for op, c in zip(d["ops"], d["consts"]):
            if op == "sin":
                h = sin(h)
            elif op == "tanh":
                h = tanh(h)
            elif op == "exp":
                h = exp(h)
            elif op == "mul":
                h = h * const(c)
            else:
                h = h + const(c)
        return h.sum(), len(d["ops"]) + 1
    x = const(d["x"])
    loss = None
    for W in d["W"]:
        t = matmul(x, leaf(W)).sum()
        loss = t if loss is None else loss + t
    return loss, 3 * len(d["W"]) - 1


def time_backward(lib: str, kind: str, n: int, repeat: int) -> dict:
    d = data(kind, n)
    best = None
    for _ in range(repeat):
        loss, ops = build(lib, kind, d)
        if lib == "jitgrad":
            import jitgrad
            jitgrad.cache_clear()       # a new structure: interpreted (or lowered: --lower)
        gc.collect()
        gc.disable()
        t0 = time.perf_counter()
        loss.backward()
        t = time.perf_counter() - t0
        gc.enable()
        del loss
        best = t if best is None else min(best, t)
    return {"kind": kind, "n": n, "ops": ops, "seconds": best}


def run_all(lib: str, cases: list, repeat: int) -> list:
    if lib == "jitgrad":
        import jitgrad as P
        P.warmup()                      # load (or compile) the interpreter first
    else:
        import torch
        torch.set_num_threads(1)
    out = []
    for kind, n in cases:
        reps = 1 if n >= 30_000 or (kind == "chain" and n >= 100_000) else repeat
        r = time_backward(lib, kind, n, reps)
        out.append(r)
        print(f"  {lib:8s} {kind:8s} N={n:>7,}  {r['seconds']:8.3f} s  "
              f"{1e6 * r['seconds'] / r['ops']:7.1f} us/op", file=sys.stderr, flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=os.path.join(HERE, "..", "src"),
                    help="directory holding the jitgrad package (default: this checkout)")
    ap.add_argument("--cases", default="", help="comma-separated kinds (leaves,chain,matmuls)")
    ap.add_argument("--max-n", type=int, default=0, help="skip sizes above this")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--peer-python", default=os.environ.get("JITGRAD_PEER_PYTHON",
                                                            "/work/peers/bin/python"))
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--lower", action="store_true",
                    help="lower each new structure (JITGRAD_NO_INTERPRET=1) instead of "
                         "interpreting it")
    ap.add_argument("--only", choices=["jitgrad", "torch"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.lower:                      # read when jitgrad is imported (config.py)
        os.environ["JITGRAD_NO_INTERPRET"] = "1"
    kinds = set(filter(None, args.cases.split(",")))
    cases = [(k, n) for k, n in CASES if (not kinds or k in kinds) and
             (not args.max_n or n <= args.max_n)]
    if args.only:                       # a child process: results as JSON
        if args.only == "jitgrad":
            sys.path.insert(0, os.path.abspath(args.src))
        print(json.dumps(run_all(args.only, cases, args.repeat)))
        return
    sys.path.insert(0, os.path.abspath(args.src))
    import jitgrad
    print(f"jitgrad from {os.path.dirname(jitgrad.__file__)}")
    mine = run_all("jitgrad", cases, args.repeat)
    theirs = None
    if not args.no_torch:
        theirs = _torch_results(args, cases)
    print(f"\n{'graph':8s} {'N':>8s} {'ops':>8s} | {'jitgrad s':>9s} {'us/op':>7s}"
          + (f" | {'torch s':>8s} {'us/op':>7s} | {'ratio':>6s}" if theirs else ""))
    for k, r in enumerate(mine):
        line = (f"{r['kind']:8s} {r['n']:>8,} {r['ops']:>8,} | {r['seconds']:9.3f} "
                f"{1e6 * r['seconds'] / r['ops']:7.1f}")
        if theirs:
            t = theirs[k]
            line += (f" | {t['seconds']:8.3f} {1e6 * t['seconds'] / t['ops']:7.1f} | "
                     f"{r['seconds'] / t['seconds']:5.1f}x")
        print(line)


def _torch_results(args: argparse.Namespace, cases: list) -> list | None:
    """torch's times: in this interpreter if it imports torch, else in the peer one."""
    try:
        import torch  # noqa: F401
        return run_all("torch", cases, args.repeat)
    except ImportError:
        pass
    if not os.path.exists(args.peer_python):
        print(f"(torch not importable, no {args.peer_python}: jitgrad only)")
        return None
    cmd = [args.peer_python, os.path.abspath(__file__), "--only", "torch",
           "--repeat", str(args.repeat), "--cases", args.cases, "--max-n", str(args.max_n)]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if res.returncode != 0:
        print(f"(the torch run failed with status {res.returncode}: jitgrad only)")
        return None
    return json.loads(res.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
