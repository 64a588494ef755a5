"""Issue 2's replay benchmark: one repeat backward over a retained 200-op elementwise chain
on 64 float32 elements (sin, tanh, exp, multiply and add with constant tensors), jitgrad
against torch's `loss.backward(retain_graph=True)`; plus the one-time cost of the first
backward (lowering + compile or cache load), with a warm and with an empty Numba cache.

    python perf/replay.py            # (torch from the `perf` extra, or /work/peers)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "src"))

from _timing import fmt_time, interleaved, machine  # noqa: E402
from workloads import CHAIN_REPLAY, JitgradChain, TorchChain, data_chain  # noqa: E402

N_OPS, SIZE = 200, 64

FIRST = r"""
import sys, time, json
t0 = time.perf_counter()
sys.path[:0] = [{here!r}, {src!r}]
import numpy as np
from workloads import CHAIN_REPLAY, JitgradChain, data_chain
from jitgrad.lower import lower
c = JitgradChain(data_chain(CHAIN_REPLAY, {n_ops}, {size}))
t1 = time.perf_counter(); lower([c.loss]); t_lower = time.perf_counter() - t1
t1 = time.perf_counter(); c.backward(); t_first = time.perf_counter() - t1
t1 = time.perf_counter(); c.backward(); t_second = time.perf_counter() - t1
print(json.dumps(dict(lower=t_lower, first=t_first, second=t_second,
                      process=time.perf_counter() - t0)))
"""


def first_backward(cache_dir: str, tier: bool = False) -> dict:
    """JITGRAD_TIER=0: the first backward loads or compiles the interpreter (the cost the
    issue asks for); with the default tiered start it runs in the reference interpreter."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, JITGRAD_TIER="1" if tier else "0")
    env.pop("JITGRAD_NO_CACHE", None)
    code = FIRST.format(here=HERE, src=os.path.join(HERE, "..", "src"), n_ops=N_OPS,
                        size=SIZE)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    d = data_chain(CHAIN_REPLAY, N_OPS, SIZE)
    jg = JitgradChain(d)
    contenders = {"jitgrad": jg.backward}
    try:
        tc = TorchChain(d)
        import torch
        g_j, g_t = jg.grads()[0], tc.grads()[0]
        err = float(np.max(np.abs(g_j - g_t)) / max(1e-30, np.max(np.abs(g_t))))
        print(f"gradients agree with torch {torch.__version__}: max rel err {err:.2e}")
        if err > 1e-4:
            raise SystemExit("gradients disagree with torch; not timing")
        contenders["torch"] = tc.backward
    except ImportError:
        print("torch not installed: timing jitgrad only")
    med = interleaved(contenders, samples=3000, budget_s=20.0)
    print(f"\n{N_OPS}-op chain on {SIZE} float32 elements, one retained repeat backward "
          "(median of interleaved samples):")
    for k, v in med.items():
        print(f"  {k:8s} {fmt_time(v)}")
    if "torch" in med:
        print(f"  ratio torch/jitgrad = {med['torch'] / med['jitgrad']:.1f}x  (target >= 50x)")

    with tempfile.TemporaryDirectory() as cache:
        empty = first_backward(cache)               # empty cache: compiles and fills it
        warm = first_backward(cache)                # same directory, now warm
        tiered = first_backward(cache, tier=True)
    print("\nfirst backward in a fresh process (lowering + compile or cache load):")
    for name, r in (("empty cache", empty), ("warm cache", warm),
                    ("tiered start (default; reference interpreter first)", tiered)):
        print(f"  {name}: first backward {fmt_time(r['first'])} (lowering alone "
              f"{fmt_time(r['lower'])}), second {fmt_time(r['second'])}, whole process "
              f"{fmt_time(r['process'])}")
    res = {"median_s": med, "first_backward": {"empty": empty, "warm": warm, "tiered": tiered},
           "machine": machine()}
    with open(os.path.join(HERE, "replay.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
