"""Running Programs: the compiled interpreter by default, the numpy reference on request.

This is the VM's public face; nothing outside vm/ touches the interpreters directly.
`execute` runs rows of a Program's arrays (code, arena, itab, consts) on the interpreter in
use; `compiled_call` gives a repeat caller the compiled entry point bound to its arrays
(no type dispatch), valid while `generation()` is unchanged.

JITGRAD_VM=reference (or `set_vm('reference')`) runs every backward through the numpy
interpreter. The compiled one is loaded (from Numba's disk cache, or compiled once per
machine) on first use, in a background thread: until it is ready, small Programs run in the
reference interpreter, so neither a short script nor the first steps of a training loop
wait for it (JITGRAD_TIER=0: wait for it at the first backward instead).
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import sys
import threading
import time
from types import ModuleType
from typing import Callable, Iterator

import numpy as np

from ..core import config
from .compile_notice import LOADER_THREAD, CompileNotice

_vm = config.SETTINGS.vm
_compiled: Callable | None = None     # interpreter.run_program once loaded
_ready: set = set()                   # arena dtypes loaded in this process
_batched_ready: set = set()           # ... for run_batched
_generation = 0                       # bumped whenever what execute() runs changes
_lock = threading.Lock()
_loader: threading.Thread | None = None

# The GIL switch interval while the background loader runs. Loading calls into llvmlite
# (ctypes, which releases the GIL) and reads files thousands of times; with Python's default
# 5 ms interval, a main thread busy with small backwards made it wait up to 5 ms to get the
# GIL back after each, and a 0.36 s load took 6.5 s (200,000 steps on the slower reference
# interpreter). At 50 us it takes ~0.7 s (perf/background_load.py).
LOADER_SWITCH_INTERVAL = 5e-5

# Programs touching more elements than this wait for the compiled interpreter rather than
# run in the reference one while it loads (numpy per row is fine for small rows only).
TIER_MAX_WORK = 200_000


def set_vm(name: str) -> None:
    """Choose 'numba' (compiled) or 'reference' (numpy) for every later backward."""
    global _vm, _generation
    if name not in ("numba", "reference"):
        raise ValueError(f"unknown VM {name!r}; choose 'numba' or 'reference'")
    _vm = name
    _generation += 1


def get_vm() -> str:
    return _vm


def generation() -> int:
    """Changes whenever the interpreter execute() would use changes (set_vm, the compiled
    one becoming ready, a new thread count): callers caching a compiled_call check it."""
    return _generation


def settings_changed() -> None:
    """Something a compiled_call captured changed (threads.set_num_threads)."""
    global _generation
    _generation += 1


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


def compiled_ready(dtype: np.dtype | None = None) -> bool:
    """Is the compiled interpreter loaded (for this arena dtype)?"""
    return _compiled is not None and (dtype is None or np.dtype(dtype) in _ready)


def compiled_forwards(module: str) -> ModuleType | None:
    """vm.<module>, a module of compiled forward kernels (forward, forward_special,
    forward_order), once the interpreter has loaded Numba; None before, when importing it
    would add Numba's ~0.2 s import to the op's first call."""
    if _compiled is None:
        return None
    # (import_module, not sys.modules: while another thread imports the module, it is in
    # sys.modules half made, and import_module waits for it)
    return importlib.import_module(f"{__name__}.{module}")


# ---- loading the compiled interpreter -------------------------------------------------------

def _compile_stats() -> tuple[int, int, bool]:
    """(cache hits, cache misses, has a disk cache) of the interpreter, from Numba."""
    from . import _numba, interpreter
    stats = getattr(interpreter.run, "stats", None)
    if stats is None:
        return 0, 0, False
    return (sum(stats.cache_hits.values()), sum(stats.cache_misses.values()),
            _numba.saves_to_disk(interpreter.run))


def run_announced(work: Callable[[], None]) -> None:
    """Run `work` (a compile or a cache load, or a wait for the background loader's); if it
    pauses longer than compile_notice.NOTICE_AFTER, print one line before and one after, so
    a compile never looks like a hang (a cache load stays silent). Printed from a timer
    thread to stderr: terminals and Jupyter cells alike show it while the cell runs."""
    notice = CompileNotice("the backward interpreter").start()
    try:
        work()
    finally:
        notice.finish()


def _load(dtypes: tuple) -> None:
    """Import the interpreter and run it once per dtype (which compiles it, or loads it from
    Numba's disk cache)."""
    global _compiled, _generation
    from .interpreter import run_program
    from .program import OP, WIDTH
    for dt in dtypes:
        dt = np.dtype(dt)
        if dt in _ready:
            continue
        code = np.zeros((1, WIDTH), np.int64)
        code[0, 0] = OP["ZERO"] << 1
        run_program(code, np.zeros(1, dt), np.zeros(1, np.int64), np.ones(1, dt), 0, 1)
        with _lock:
            _ready.add(dt)
            _compiled = run_program
            _generation += 1
    freeze_long_lived()


def _start_loading() -> None:
    """Load the compiled interpreter in a background thread (once)."""
    global _loader
    with _lock:
        if _loader is not None:
            return
        _loader = threading.Thread(target=_background_load, name=LOADER_THREAD,
                                   daemon=True)
        _loader.start()
        atexit.register(_finish_loading_at_exit)


def load_in_background() -> None:
    """Start loading the compiled interpreter (once, unless JITGRAD_TIER=0 or the reference
    VM is in use), as the first Program run does: the executor calls it when it interprets
    a graph without one, whose structure may recur and then need it."""
    if _loader is None and _vm == "numba" and config.SETTINGS.tier and not _ready:
        _start_loading()


def finish_background_load() -> None:
    """Wait for the background loader if it is running (announced when long). Called before
    a fork (DataLoader workers): a child forked while the loader runs inherits, held
    forever, the locks it held (Numba's compiler lock, the import locks of the modules it
    was importing) and would hang at its first compiled op or import."""
    loader = _loader
    if loader is not None and loader.is_alive():
        run_announced(loader.join)


def _finish_loading_at_exit() -> None:
    """A process ending while the loader compiles would kill it inside LLVM, which aborts
    the process (a short script on a machine with no Numba cache yet): wait for it instead.
    It finishes (and caches what it compiled), or stops at once where it needs something
    the ending interpreter refuses (an import registering its own exit handler); either way
    nothing aborts. Only when this process compiles (a cache miss, or no cache): loading
    from Numba's disk cache is left to end with the process, as a short script should not
    wait ~0.3 s for an interpreter it no longer needs. Silent: the program's output is
    complete."""
    loader = _loader
    if loader is None or not loader.is_alive():
        return
    # (no import here: the loader may hold the import lock, and waiting for it is the cost
    # this avoids)
    numba_side = sys.modules.get(__name__ + "._numba")
    if getattr(numba_side, "compiles_here", False):
        loader.join()


_load_error: BaseException | None = None
_frozen = False


def freeze_long_lived() -> None:
    """Once, after the interpreter's first load (_load's end): collect, then gc.freeze()
    what is alive.

    Why: loading Numba leaves ~80,000 long-lived Python objects (its types, compiler and
    LLVM bindings), and every full collection of the cyclic garbage collector walks them
    all: ~50-130 ms each. A graph of thousands of nodes (an unrolled ODE or RNN) makes
    enough objects to trigger one every iteration or two: 20 iterations of a 500-step
    rollout spent 533 ms of 1.48 s in full collections, 35 ms once frozen. Frozen objects
    are skipped by collections; reference counting still frees them. The cost: a reference
    cycle among objects alive at this moment is never collected if it later becomes
    garbage (the collect before it frees those already garbage).

    A full collection still walks the graph being recorded, and such a graph promotes
    enough objects to the oldest generation to pass CPython's 25% rule at each of them, so
    one ran every 10 young ones (threshold2, the default 10): about one per step of a
    10,000-node rollout, 21-79 ms of its 120-160. Left at the default, threshold2 becomes
    100 (full collections 10x rarer; cyclic garbage that reached the oldest generation
    waits longer). JITGRAD_GC_FREEZE=0 (or SETTINGS.gc_freeze = False before the first
    backward) turns both off."""
    global _frozen
    with _lock:
        if _frozen or not config.SETTINGS.gc_freeze:
            return
        _frozen = True
    gc.collect()
    gc.freeze()
    young, middle, old = gc.get_threshold()
    if old == DEFAULT_OLD_THRESHOLD:        # (a threshold the user set is kept)
        gc.set_threshold(young, middle, OLD_THRESHOLD)


DEFAULT_OLD_THRESHOLD = 10      # CPython's threshold2
OLD_THRESHOLD = 100


def _background_load() -> None:
    global _load_error
    before = sys.getswitchinterval()
    sys.setswitchinterval(min(before, LOADER_SWITCH_INTERVAL))
    ours = sys.getswitchinterval()          # (as stored: whole microseconds)
    try:
        _load((np.float32, np.float64))
    except BaseException as e:          # reported by the next backward that needs it
        _load_error = e
    finally:
        if sys.getswitchinterval() == ours:     # (unless someone set their own meanwhile)
            sys.setswitchinterval(before)


def _wait_compiled(dtype: np.dtype) -> Callable:
    """The compiled interpreter for `dtype`, loading it now if needed (announced)."""
    finish_background_load()
    if _load_error is not None:
        raise RuntimeError("jitgrad could not load its compiled backward interpreter "
                           f"({_load_error!r}); set JITGRAD_VM=reference to run without it"
                           ) from _load_error
    if dtype not in _ready:
        run_announced(lambda: _load((dtype,)))
    assert _compiled is not None
    return _compiled


# ---- running ----------------------------------------------------------------------------------

def execute(code: np.ndarray, arena: np.ndarray, itab: np.ndarray, consts: np.ndarray,
            start: int = 0, stop: int = -1, vm: str | None = None) -> None:
    """Run rows start..stop-1 (stop -1: to the end) on the interpreter in use, or on `vm`
    if given (then 'numba' waits for the compiled one instead of the tiered start)."""
    stop = len(code) if stop < 0 else stop
    which = vm or _vm
    if which == "numba" and arena.dtype not in _ready:
        if vm is None and config.SETTINGS.tier and \
                int(code[start:stop, 5].sum()) < TIER_MAX_WORK:
            _start_loading()
            which = "reference"         # while the compiled one loads in the background
        else:
            _wait_compiled(arena.dtype)
    if which == "reference":
        from .reference import run
        run(code, arena, itab, consts, start, stop)
        return
    _compiled(code, arena, itab, consts, start, stop)


def execute_batched(code: np.ndarray, arena: np.ndarray, itab: np.ndarray,
                    consts: np.ndarray, seed_pos: np.ndarray, seeds: np.ndarray,
                    out_pos: np.ndarray, outs: np.ndarray, vm: str | None = None) -> None:
    """Run the whole Program once per row of `seeds` (K x seed elements), writing each run's
    output slots to that row of `outs` (K x output elements); `seed_pos` and `out_pos` are
    (offset, size) rows in the order the values are laid end to end. One compiled call for
    all K runs (the reference interpreter loops in Python)."""
    which = vm or _vm
    if which == "numba":
        _wait_compiled(arena.dtype)
        from .interpreter import run_batched
        status = [0]

        def call() -> None:
            status[0] = run_batched(code, arena, itab, consts, seed_pos, seeds, out_pos, outs)
        if arena.dtype in _batched_ready:
            call()
        else:                               # compiled (or loaded) on first use: say so
            run_announced(call)
            _batched_ready.add(arena.dtype)
        if status[0] != -1:
            raise RuntimeError(f"compiled interpreter has no kernel for opcode {status[0]}")
        return
    from .reference import run
    for k in range(seeds.shape[0]):
        c = 0
        for off, n in seed_pos:
            arena[off:off + n] = seeds[k, c:c + n]
            c += n
        run(code, arena, itab, consts, 0, len(code))
        c = 0
        for off, n in out_pos:
            outs[k, c:c + n] = arena[off:off + n]
            c += n


def compiled_call(code: np.ndarray, arena: np.ndarray, itab: np.ndarray,
                  consts: np.ndarray) -> Callable[[], None] | None:
    """A call running all rows through the compiled interpreter's entry point for exactly
    these arrays (skipping Numba's type dispatch: ~0.15 us of a ~1.3 us replay), or None
    when the compiled interpreter is not in use or not loaded for this dtype. Valid while
    generation() is unchanged; the arrays must stay alive as long as the call."""
    if _vm != "numba" or arena.dtype not in _ready:
        return None
    from . import interpreter
    return interpreter.bound_call(code, arena, itab, consts)


def warmup(dtypes: tuple = (np.float32, np.float64), quiet: bool = False) -> float:
    """Compile (or load from Numba's disk cache) the interpreter now; returns the seconds.

    Call it at the top of a notebook or a benchmark so the first backward does not pause.
    Prints one line saying how long it took unless quiet=True.

    (jitgrad.warmup is precompile.warmup: this, and with forward=True the forward kernels.)
    """
    dts = []
    for dt in dtypes:
        dt = np.dtype(dt)
        if dt.kind != "f" or dt.itemsize not in (4, 8):
            raise ValueError(f"warmup dtypes must be float32 or float64, got {dt.name}")
        dts.append(dt)
    t0 = time.perf_counter()
    loader = _loader
    if loader is not None:
        loader.join()
    hits0, misses0, _ = _compile_stats()
    _load(tuple(dts))
    seconds = time.perf_counter() - t0
    if not quiet:
        hits, misses, cached = _compile_stats()
        how = ("loaded from Numba's disk cache" if hits > hits0 and misses == misses0 else
               "already loaded" if misses == misses0 else
               "compiled; cached on disk for later processes" if cached else
               "compiled; no disk cache, so every new process compiles again")
        names = ", ".join(d.name for d in dts)
        print(f"jitgrad: backward interpreter ready for {names} in {seconds:.2f} s ({how})",
              flush=True)
    return seconds
