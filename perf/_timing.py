"""Timing helpers shared by the perf scripts: interleaved samples, medians, environment."""

from __future__ import annotations

import os
import platform
import statistics
import time
from typing import Callable


def interleaved(fns: dict[str, Callable[[], object]], samples: int = 400, inner: int = 1,
                warmup: int = 5, budget_s: float = 20.0) -> dict[str, float]:
    """Median seconds per call of each fn; samples alternate between the fns (round robin)
    so that machine load drifts hit every contender alike. `inner` calls per sample."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times: dict[str, list[float]] = {k: [] for k in fns}
    pc = time.perf_counter
    t_end = pc() + budget_s
    for s in range(samples):
        for name, fn in fns.items():
            t0 = pc()
            for _ in range(inner):
                fn()
            times[name].append((pc() - t0) / inner)
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
