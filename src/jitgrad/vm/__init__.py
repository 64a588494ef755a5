"""Running Programs: the compiled interpreter by default, the numpy reference on request.

JITGRAD_VM=reference (or `set_vm('reference')`) runs every backward through the numpy
interpreter; the compiled one is imported, and compiled or loaded from cache, on first use
so that `import jitgrad` stays fast.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from typing import Callable, Iterator

import numpy as np

from ..program import Program

_vm = os.environ.get("JITGRAD_VM", "numba")
_compiled: Callable | None = None


def set_vm(name: str) -> None:
    """Choose 'numba' (compiled) or 'reference' (numpy) for every later backward."""
    global _vm
    if name not in ("numba", "reference"):
        raise ValueError(f"unknown VM {name!r}; choose 'numba' or 'reference'")
    _vm = name


def get_vm() -> str:
    return _vm


@contextlib.contextmanager
def using(name: str) -> Iterator[None]:
    """Run the backwards inside the block on one interpreter, then restore the previous one
    (to compare the compiled interpreter with the reference, as the tests do)."""
    prev = _vm
    set_vm(name)
    try:
        yield
    finally:
        set_vm(prev)


def _compiled_runner() -> Callable:
    global _compiled
    if _compiled is None:
        from .interpreter import run_program
        _compiled = run_program
    return _compiled


# ---- the one-time compile: say so instead of a silent pause --------------------------------

NOTICE_AFTER = 1.0          # seconds: a cache load is quicker, a compile takes several
_ready: set = set()         # arena dtypes compiled or loaded in this process


def _compile_stats() -> tuple[int, int, bool]:
    """(cache hits, cache misses, has a disk cache) of the interpreter, from Numba."""
    from . import _numba, interpreter
    stats = getattr(interpreter.run, "stats", None)
    if stats is None:
        return 0, 0, False
    return (sum(stats.cache_hits.values()), sum(stats.cache_misses.values()),
            _numba.saves_to_disk(interpreter.run))


def _first_call(runner: Callable, args: tuple, dtype: np.dtype) -> None:
    """Run the first call for this dtype; if it pauses, print one line before and after.

    The first call compiles the interpreter (seconds, once per machine) or loads it from
    Numba's disk cache (a fraction of a second). A timer thread prints the notice only when
    the call really pauses, so a cache load stays silent. stderr shows in terminals and in
    Jupyter cell output alike.
    """
    said: list[float] = []

    def notice() -> None:
        said.append(time.perf_counter())
        print(f"jitgrad: compiling the backward interpreter for {dtype.name} (first use on this "
              "machine; Numba caches it on disk)...", file=sys.stderr, flush=True)

    timer = threading.Timer(NOTICE_AFTER, notice)
    timer.daemon = True
    t0 = time.perf_counter()
    timer.start()
    try:
        runner(*args)
    finally:
        timer.cancel()
        timer.join()
    _ready.add(dtype)
    if said:
        print(f"jitgrad: ready in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)


def execute(prog: Program, start: int = 0, stop: int = -1, vm: str | None = None) -> None:
    stop = len(prog) if stop < 0 else stop
    if (vm or _vm) == "reference":
        from .reference import run
        run(prog.code, prog.arena, prog.itab, prog.consts, start, stop)
        return
    runner = _compiled_runner()
    args = (prog.code, prog.arena, prog.itab, prog.consts, start, stop)
    if prog.arena.dtype in _ready:
        runner(*args)
    else:
        _first_call(runner, args, prog.arena.dtype)


def run(prog: Program, vm: str | None = None) -> None:
    """Run a whole Program: one interpreter call per segment, Python callbacks between.

    Without callbacks this is a single `execute`; with them, only the hooked points leave
    the compiled interpreter.
    """
    if not prog.segments:
        execute(prog, vm=vm)
        return
    for start, stop, callback in prog.segments:
        if stop > start:
            execute(prog, start, stop, vm=vm)
        if callback is not None:
            callback(prog.arena)


def warmup(dtypes: tuple = (np.float32, np.float64), quiet: bool = False) -> float:
    """Compile (or load from Numba's disk cache) the interpreter now; returns the seconds.

    Call it at the top of a notebook or a benchmark so the first backward does not pause.
    Prints one line saying how long it took unless quiet=True.
    """
    from ..program import OP, WIDTH
    hits0, misses0, _ = _compile_stats()
    t0 = time.perf_counter()
    runner = _compiled_runner()
    for dt in dtypes:
        dt = np.dtype(dt)
        if dt.kind != "f" or dt.itemsize not in (4, 8):
            raise ValueError(f"warmup dtypes must be float32 or float64, got {dt.name}")
        code = np.zeros((1, WIDTH), np.int64)
        code[0, 0] = OP["ZERO"] << 1
        runner(code, np.zeros(1, dt), np.zeros(1, np.int64), np.ones(1, dt), 0, 1)
        _ready.add(dt)
    seconds = time.perf_counter() - t0
    if not quiet:
        hits, misses, cached = _compile_stats()
        how = ("loaded from Numba's disk cache" if hits > hits0 and misses == misses0 else
               "already loaded" if misses == misses0 else
               "compiled; cached on disk for later processes" if cached else
               "compiled; no disk cache, so every new process compiles again")
        names = ", ".join(np.dtype(d).name for d in dtypes)
        print(f"jitgrad: backward interpreter ready for {names} in {seconds:.2f} s ({how})",
              flush=True)
    return seconds
