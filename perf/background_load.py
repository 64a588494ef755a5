"""How long the compiled interpreter takes to load in the background while a training loop
of small backwards keeps the main thread busy (the loop runs on the slower reference
interpreter until then).

    python perf/background_load.py

Each run is a fresh process (Numba's disk cache filled first), looping a 2-node step until
the compiled interpreter is ready: the seconds and steps that took, with the loader's GIL
switch interval at vm.LOADER_SWITCH_INTERVAL and at Python's default 5 ms (what it was
before). Median of 5 runs each, alternating.

Measured 2026-12-07 on the 2-CPU AVX2 host: 0.79 s (7,818 steps) against 6.5 s (218,665
steps) at 5 ms; the load alone, in an idle process, ~0.36 s.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "src")

LOOP = """
import sys, time
import numpy as np
import jitgrad as P
from jitgrad import vm
vm.LOADER_SWITCH_INTERVAL = {interval}
x = P.to_tensor(np.ones(4, "float32"))
w = P.to_tensor(np.ones(4, "float32"), stop_gradient=False)
t0 = time.perf_counter()
steps = 0
while not vm.compiled_ready("float32") and time.perf_counter() - t0 < 60:
    (x * w).sum().backward()
    steps += 1
print(time.perf_counter() - t0, steps)
"""


def run(interval: float) -> tuple[float, int]:
    env = {**os.environ, "PYTHONPATH": SRC, "JITGRAD_VM": "numba", "JITGRAD_TIER": "1"}
    out = subprocess.run([sys.executable, "-c", LOOP.format(interval=interval)], env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), int(out[1])


def main(rounds: int = 5) -> None:
    subprocess.run([sys.executable, "-c", "import jitgrad; jitgrad.warmup(quiet=True)"],
                   env={**os.environ, "PYTHONPATH": SRC}, check=True)     # fill the cache
    sys.path.insert(0, SRC)
    from jitgrad import vm
    results: dict[float, list] = {vm.LOADER_SWITCH_INTERVAL: [], 0.005: []}
    for _ in range(rounds):
        for interval in results:
            results[interval].append(run(interval))
    for interval, rows in results.items():
        secs = statistics.median(r[0] for r in rows)
        steps = statistics.median(r[1] for r in rows)
        print(f"switch interval {interval * 1e6:6.0f} us: compiled interpreter ready after "
              f"{secs:.2f} s ({steps:,.0f} steps on the reference interpreter)")


if __name__ == "__main__":
    main()
