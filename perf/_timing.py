"""Timing helpers shared by the perf scripts: interleaved samples, medians, environment."""

from __future__ import annotations

import os
import platform
import random
import statistics
import time
from typing import Callable


def interleaved(fns: dict[str, Callable[[], object]], samples: int = 400,
                warmup: int = 5, budget_s: float = 20.0, sample_s: float = 100e-6,
                shuffle: bool = False) -> dict[str, float]:
    """Median seconds per call of each fn; samples alternate between the fns (round robin)
    so that machine load drifts hit every contender alike. A sample is as many back-to-back
    calls of one fn as fill about `sample_s` (at least one), so a microsecond-scale call is
    not timed right after a peer has flushed the caches with a millisecond of other work,
    and the timer's own cost stays negligible.

    `shuffle`: each round takes the fns in a random order and each sample's call count is
    drawn from [k/2, 3k/2], so the rounds have no fixed period. With a fixed order and two
    ~1 ms samples the rounds repeat every ~2 ms, and on a shared CPU a competitor woken on a
    4 ms scheduler tick can keep landing in the same contender's samples: op_steps.py saw
    one contender's median 4x its usual value while the other's stayed put."""
    pc = time.perf_counter
    rng = random.Random(0)
    inner = {}
    for name, fn in fns.items():
        for _ in range(warmup):
            fn()
        t0 = pc()
        for _ in range(3):
            fn()
        est = (pc() - t0) / 3
        inner[name] = max(1, min(1000, int(sample_s / max(est, 1e-9))))
    times: dict[str, list[float]] = {k: [] for k in fns}
    t_end = pc() + budget_s
    order = list(fns.items())
    for s in range(samples):
        if shuffle:
            rng.shuffle(order)
        for name, fn in order:
            k = inner[name]
            if shuffle:
                k = rng.randint(max(1, k // 2), max(1, k + k // 2))
            t0 = pc()
            for _ in range(k):
                fn()
            times[name].append((pc() - t0) / k)
        if s >= 20 and pc() > t_end:
            break
    return {k: statistics.median(v) for k, v in times.items()}


def fmt_time(s: float) -> str:
    if s < 1e-3:
        return f"{s * 1e6:8.2f} us"
    if s < 1:
        return f"{s * 1e3:8.3f} ms"
    return f"{s:8.3f} s "


def machine() -> dict:
    try:
        load = os.getloadavg()
    except OSError:  # pragma: no cover
        load = None
    return {"python": platform.python_version(), "cpus": os.cpu_count(), "loadavg": load,
            "machine": platform.machine()}
