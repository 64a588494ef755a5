"""Memory checks of issue 5, each in a fresh process:

1. peak RSS of a retained W4 graph (MLP 512-512-512-10, batch 256, relu, mean loss) through
   two backward calls, jitgrad against torch: the growth of the peak over the process's
   peak after imports, data and one tiny warm-up backward (the graph's own cost; the
   warm-up keeps the one-time load of compiled code out of it), and the whole-process peak;
2. RSS over 10,000 W5a steps (a new 16-32-1 tanh MLP graph every step): growth after the
   first 1,000 steps must stay under 5%;
3. the peak RSS growth of a new structure's first backward (a 40-op sin/tanh chain on 1M
   float32 elements, 4 MB a gradient: jitgrad interprets it, node by node), jitgrad
   against torch. 2026-12-04 20:22 UTC (`python perf/memory.py --steps 3000`): jitgrad
   12 MB, torch 17 MB. The same chain in a script with JITGRAD_TIER=0: 12 MB; 157 MB before
   the node loop freed each gradient once passed on; 348 MB lowered instead
   (JITGRAD_NO_INTERPRET=1: a first lowering has no slot reuse, and this backward also
   loads the compiled interpreter). With the default tier, the first interpreted backward
   also starts loading Numba in the background (~40 MB more RSS, once per process).

    python perf/memory.py [--steps 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", "src"))

W4 = r"""
import sys, resource, json, gc
sys.path[:0] = [{here!r}, {src!r}]
import workloads as W
lib = {lib!r}
if lib == "torch":
    import torch
else:
    import jitgrad
def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
warm = W.LIBS[lib]["mlp"](W.data_mlp((4, 4, 1), 2), "relu", "mean")
warm.retain(); warm.backward()              # loads the compiled kernels / autograd engine
d = W.data_mlp((512, 512, 512, 10), 256)
m = W.LIBS[lib]["mlp"](d, "relu", "mean")
gc.collect()
base = peak_mb()
m.retain()
m.backward()
m.backward()
print(json.dumps({{"base_peak_mb": base, "peak_mb": peak_mb()}}))
"""

STEPS = r"""
import sys, json, gc
sys.path[:0] = [{here!r}, {src!r}]
import workloads as W
def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20
m = W.LIBS["jitgrad"]["mlp"](W.data_mlp((16, 32, 1), 1), "tanh", "sum")
for _ in range(1000):
    m.step()
gc.collect()
start = rss_mb()
marks = []
for i in range({steps}):
    m.step()
    if (i + 1) % 2000 == 0:
        marks.append(rss_mb())
gc.collect()
import jitgrad
print(json.dumps({{"start_mb": start, "marks_mb": marks, "end_mb": rss_mb(),
                  "cache": jitgrad.cache_info()._asdict()}}))
"""


CHAIN = r"""
import sys, json, gc, resource
sys.path[:0] = [{src!r}]
import numpy as np
lib = {lib!r}
x0 = np.random.default_rng(0).uniform(-1, 1, 1_000_000).astype(np.float32)
if lib == "torch":
    import torch as L
    x = L.tensor(x0, requires_grad=True)
else:
    import jitgrad as L
    x = L.to_tensor(x0, stop_gradient=False)
h = x
for i in range(40):
    h = L.tanh(h) if i % 2 else L.sin(h)
loss = h.sum()
gc.collect()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
loss.backward()
print(json.dumps({{"growth_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - base}}))
"""


def run(code: str) -> dict:
    env = dict(os.environ, JITGRAD_TIER="0")     # the warm-up loads the compiled interpreter
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=10_000)
    args = ap.parse_args()
    res: dict = {"W4": {}}
    for lib in ("jitgrad", "torch"):
        try:
            r = run(W4.format(here=HERE, src=SRC, lib=lib))
        except SystemExit as e:
            print(f"{lib}: skipped ({str(e).strip().splitlines()[-1]})")
            continue
        r["graph_mb"] = r["peak_mb"] - r["base_peak_mb"]
        res["W4"][lib] = r
        print(f"W4 retained graph, {lib:8s}: peak RSS {r['peak_mb']:7.1f} MB, of which the graph "
              f"and two backwards {r['graph_mb']:6.1f} MB")
    if "torch" in res["W4"] and "jitgrad" in res["W4"]:
        j, t = res["W4"]["jitgrad"], res["W4"]["torch"]
        print(f"  graph cost jitgrad/torch = {j['graph_mb'] / t['graph_mb']:.2f} (allowed 1.20); "
              f"whole process {j['peak_mb'] / t['peak_mb']:.2f}")
    r = run(STEPS.format(here=HERE, src=SRC, steps=args.steps))
    growth = (r["end_mb"] - r["start_mb"]) / r["start_mb"]
    res["W5a_steps"] = dict(r, steps=args.steps, growth=growth)
    print(f"W5a: RSS after 1000 warm-up steps {r['start_mb']:.1f} MB, after {args.steps} more "
          f"{r['end_mb']:.1f} MB ({100 * growth:+.2f}%, allowed +5%); every 2000 steps: "
          + ", ".join(f"{m:.1f}" for m in r["marks_mb"]) + f"; program cache {r['cache']}")
    res["first_backward_chain"] = {}
    for lib in ("jitgrad", "torch"):
        try:
            r = run(CHAIN.format(src=SRC, lib=lib))
        except SystemExit as e:
            print(f"{lib}: skipped ({str(e).strip().splitlines()[-1]})")
            continue
        res["first_backward_chain"][lib] = r
        print(f"first backward of a new 40-op chain on 4 MB gradients, {lib:8s}: peak RSS grew "
              f"{r['growth_mb']:.0f} MB")
    with open(os.path.join(HERE, "memory.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
