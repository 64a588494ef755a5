"""Running Programs: the compiled interpreter by default, the numpy reference on request.

JITGRAD_VM=reference (or `set_vm('reference')`) runs every backward through the numpy
interpreter; the compiled one is imported, and compiled or loaded from cache, on first use
so that `import jitgrad` stays fast.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Callable

import numpy as np

from ..program import Program

_vm = os.environ.get("JITGRAD_VM", "numba")
_compiled: Callable | None = None
_announced = False


def set_vm(name: str) -> None:
    """Choose 'numba' (compiled) or 'reference' (numpy) for every later backward."""
    global _vm
    if name not in ("numba", "reference"):
        raise ValueError(f"unknown VM {name!r}; choose 'numba' or 'reference'")
    _vm = name


def get_vm() -> str:
    return _vm


def _compiled_runner() -> Callable:
    global _compiled
    if _compiled is None:
        from .interpreter import run_program
        _compiled = run_program
    return _compiled


def announce_compile(dtype: np.dtype) -> None:
    """Say once that the first compile is happening, instead of a silent pause."""
    global _announced
    if _announced:
        return
    _announced = True
    from . import interpreter
    cache = getattr(interpreter.run, "_cache", None)
    index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
    if index is not None and os.path.exists(index):
        return
    print("jitgrad: compiling the backward interpreter (one time, about 10-20 s; cached on "
          "disk afterwards)...", file=sys.stderr, flush=True)


def execute(prog: Program, start: int = 0, stop: int = -1, vm: str | None = None) -> None:
    stop = len(prog) if stop < 0 else stop
    if (vm or _vm) == "reference":
        from .reference import run
        run(prog.code, prog.arena, prog.itab, prog.consts, start, stop)
        return
    runner = _compiled_runner()
    if not _announced:
        announce_compile(prog.dtype)
    runner(prog.code, prog.arena, prog.itab, prog.consts, start, stop)


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


def warmup(dtypes: tuple = (np.float32, np.float64)) -> float:
    """Compile (or load from cache) the interpreter now; returns the seconds it took."""
    from ..program import OP, WIDTH
    t0 = time.perf_counter()
    runner = _compiled_runner()
    for dt in dtypes:
        code = np.zeros((1, WIDTH), np.int64)
        code[0, 0] = OP["ZERO"] << 1
        runner(code, np.zeros(1, dt), np.zeros(1, np.int64), np.ones(1, dt), 0, 1)
    return time.perf_counter() - t0
