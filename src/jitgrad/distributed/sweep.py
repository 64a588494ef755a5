"""sweep: one training function over many configurations (or seeds) on a Dask cluster.

Each configuration is one Dask task. An exception raised by `fn` is caught on the worker
and comes back as a failed SweepResult carrying the worker's formatted traceback; it is not
retried (a deterministic error would fail again). A worker that dies mid-task (killed,
out of memory, os._exit) is Dask's business: the scheduler reruns its tasks elsewhere, up
to `distributed.scheduler.allowed-failures` times (3 by default), so nothing is lost; past
that the result is a failure of type KilledWorker.
"""

from __future__ import annotations

import traceback
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ._deps import require


@dataclass
class SweepResult:
    """One configuration's outcome: `value` if ok, else `error` ("Type: message") and the
    remote `traceback` text."""

    config: Any
    ok: bool
    value: Any = None
    error: str | None = None
    traceback: str | None = None


def _run(fn: Callable[[Any], Any], config: Any) -> tuple[bool, Any, str | None, str | None]:
    """On the worker: fn(config), or the exception as text (traceback formatted here, where
    the frames and their source lines are)."""
    try:
        return True, fn(config), None, None
    except Exception as e:                       # noqa: BLE001  (reported, not hidden)
        return False, None, f"{type(e).__name__}: {e}", traceback.format_exc()


def sweep(client: Any, fn: Callable[[Any], Any], configs: Iterable[Any], *,
          retries: int = 0) -> list[SweepResult]:
    """fn(config) for every config on the cluster; one SweepResult per config, in order.

    retries: extra attempts Dask makes for a config whose fn raised (for flaky I/O); a dead
    worker's tasks are rerun regardless (the scheduler's allowed-failures)."""
    dist = require()
    if not callable(fn):
        raise TypeError(f"sweep: fn must be callable, got {type(fn).__name__}")
    if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
        raise ValueError(f"sweep: retries must be an int >= 0, got {retries!r}")
    configs = list(configs)
    tag = uuid.uuid4().hex[:12]
    runner = _run if retries == 0 else _raising
    futures = [client.submit(runner, fn, c, key=f"jitgrad-sweep-{tag}-{i}", pure=False,
                             retries=retries) for i, c in enumerate(configs)]
    dist.wait(futures)
    out = []
    for config, f in zip(configs, futures):
        if f.status == "finished":
            ok, value, error, tb = f.result()
            out.append(SweepResult(config, ok, value, error, tb))
        else:                                    # raised after retries, or KilledWorker
            exc, tb = f.exception(), f.traceback()
            text = "".join(traceback.format_exception(type(exc), exc, tb))
            out.append(SweepResult(config, False, None, f"{type(exc).__name__}: {exc}", text))
    return out


def _raising(fn: Callable[[Any], Any], config: Any) -> tuple[bool, Any, None, None]:
    """With retries: let the exception reach Dask, which reruns the task."""
    return True, fn(config), None, None
