"""Sharing one big CHAIN row between threads (the compiled kernels release the GIL), and
a big float32 exp, log, ... (ops/rounded.py) the same way.

A fused elementwise chain over millions of elements is bound by how fast one core can pull
its operand streams from memory; two cores pull about twice as much (W3: 13 ms on one,
7 ms on two). Rows are split at tile boundaries and every element is computed by the same
expression either way, so results are bitwise the same for any thread count.

Plain Python threads, not Numba's parallel layer: no threading-layer choice (workqueue is
not thread-safe, GNU OpenMP not fork-safe), and a forked child starts its own pool.

Thread count: `set_num_threads(n)`, else the first of JITGRAD_NUM_THREADS,
NUMBA_NUM_THREADS, OMP_NUM_THREADS that is set (read at the first backward), else the CPUs
this process may run on.
A single thread never touches the pool.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

PAR_MIN = 1 << 20        # elements: below ~1 ms of work a split costs more than it saves
NEVER = 1 << 62          # par_min when running single-threaded
CHUNKS = 4               # parts per thread (load balancing on a busy machine)

_override: int | None = None
_par_min: int | None = None                  # cached: read on every backward
_pool: ThreadPoolExecutor | None = None
_pool_key: tuple[int, int] | None = None     # (pid, workers) the pool was made for


def num_threads() -> int:
    """Threads a big fused chain may use."""
    if _override is not None:
        return _override
    from ..core import config
    n = config.SETTINGS.num_threads
    if n is not None:
        return n
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:                      # not Linux
        return max(1, os.cpu_count() or 1)


def set_num_threads(n: int | None) -> None:
    """Use n threads for big fused chains (None: back to the environment's setting, read
    again now)."""
    global _override, _par_min
    if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n < 1):
        raise ValueError(f"set_num_threads expects a positive int or None, got {n!r}")
    _override = n
    _par_min = None
    from . import settings_changed
    settings_changed()                  # compiled calls captured the old par_min


def par_min() -> int:
    """Elements from which the compiled interpreter hands a CHAIN row back for splitting
    (the environment is read once; `set_num_threads` changes it)."""
    global _par_min
    if _par_min is None:
        _par_min = PAR_MIN if num_threads() > 1 else NEVER
    return _par_min


def _get_pool(workers: int) -> ThreadPoolExecutor:
    global _pool, _pool_key
    key = (os.getpid(), workers)
    if _pool is None or _pool_key != key:
        if _pool is not None and _pool_key[0] == key[0]:
            _pool.shutdown(wait=False)
        _pool = ThreadPoolExecutor(workers, thread_name_prefix="jitgrad")
        _pool_key = key
    return _pool


def split(fn: Callable, args: tuple, n: int, align: int) -> None:
    """fn(*args, lo, hi) over n elements in parts starting at multiples of `align`.

    About CHUNKS parts per thread, handed out one at a time, so a thread the OS delays
    (a shared machine) leaves its share to the others instead of holding up the row; the
    calling thread works through the parts too.
    """
    k = max(1, min(num_threads(), n // max(PAR_MIN // 2, 1)))
    if k == 1:
        fn(*args, 0, n)
        return
    step = -(-n // (k * CHUNKS))
    step = -(-step // align) * align
    parts = iter(range(0, n, step))
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                lo = next(parts, None)
            if lo is None:
                return
            fn(*args, lo, min(n, lo + step))

    pool = _get_pool(k - 1)
    futures = [pool.submit(work) for _ in range(k - 1)]
    work()
    for f in futures:
        f.result()
