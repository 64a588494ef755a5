"""Every environment switch jitgrad reads, read once, here, when jitgrad is imported.

    JITGRAD_VM=reference        run every backward in the numpy reference interpreter
    JITGRAD_TIER=0              wait for the compiled interpreter at the first backward
                                (default: small backwards run in the reference one while it
                                loads in the background)
    JITGRAD_NO_CACHE=1          no Numba disk cache (while editing kernels)
    JITGRAD_NO_STRUCTURAL=1     no program cache: every backward lowers its graph
    JITGRAD_NO_INTERPRET=1      lower a graph structure at its first backward (default: its
                                first non-retained backward is interpreted, autograd/
                                interpret.py, and it is lowered when it recurs)
    JITGRAD_VERIFY_CACHE=1      check every program-cache hit against a fresh lowering (slow)
    JITGRAD_CACHE_BYTES=n       bound of the program cache (default 256 MB)
    JITGRAD_NO_PEEPHOLE=1       no peephole passes (peephole.py)
    JITGRAD_COPY_VALUES=1       copy every saved value into the arena (external.py)
    JITGRAD_EXACT_REPLAY=1      no folded replays of retained graphs (fold.py)
    JITGRAD_BLAS=openblas|mkl|fallback    the GEMM library (vm/blas_lib.py)
    JITGRAD_NUM_THREADS=n       threads for large fused rows and float32 exp, log, ...
                                of a million elements or more (also NUMBA_NUM_THREADS,
                                OMP_NUM_THREADS; vm/threads.py)
    JITGRAD_GC_FREEZE=0         leave Python's garbage collector alone once the compiled
                                interpreter is loaded (default: gc.freeze(), and the oldest
                                generation's threshold 10 -> 100; vm/__init__.py)
    FLAGS_call_stack_level=3    Paddle's flag: record every op's call site for the dump's
                                _call_stack.log (default 1: not recorded; flags.py)

A variable set after import is not seen: change a setting with `override(...)` (a context
manager, as the tests do) or by assigning `SETTINGS.<name>`; `set_vm`, `set_num_threads`
and `set_cache_limit` are the public forms of three of them.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, fields
from typing import Any, Iterator


def _flag(name: str) -> bool:
    """A switch that is on when set to anything but '' or '0'."""
    return os.environ.get(name, "").strip() not in ("", "0")


def _int(name: str, default: int, what: str = "an integer") -> int:
    v = os.environ.get(name, "").strip()
    if not v:
        return default
    try:
        return int(v)
    except ValueError:
        raise ValueError(f"{name}={v!r}: expected {what}") from None


def _threads() -> int | None:
    for name in ("JITGRAD_NUM_THREADS", "NUMBA_NUM_THREADS", "OMP_NUM_THREADS"):
        v = os.environ.get(name, "").strip()
        if v:
            try:
                return max(1, int(v))
            except ValueError:
                raise ValueError(f"{name}={v!r}: expected a positive integer") from None
    return None


@dataclass
class Settings:
    vm: str
    tier: bool
    disk_cache: bool
    program_cache: bool
    interpret_new: bool
    verify_cache: bool
    cache_bytes: int
    peephole: bool
    copy_values: bool
    exact_replay: bool
    blas: str
    num_threads: int | None
    gc_freeze: bool
    call_stack_level: int

    @classmethod
    def from_env(cls) -> "Settings":
        return cls(vm=os.environ.get("JITGRAD_VM", "numba"),
                   tier=os.environ.get("JITGRAD_TIER", "1").strip() != "0",
                   disk_cache=not _flag("JITGRAD_NO_CACHE"),
                   program_cache=not _flag("JITGRAD_NO_STRUCTURAL"),
                   interpret_new=not _flag("JITGRAD_NO_INTERPRET"),
                   verify_cache=_flag("JITGRAD_VERIFY_CACHE"),
                   cache_bytes=max(0, _int("JITGRAD_CACHE_BYTES", 256 << 20,
                                          "a number of bytes")),
                   peephole=not _flag("JITGRAD_NO_PEEPHOLE"),
                   copy_values=_flag("JITGRAD_COPY_VALUES"),
                   exact_replay=_flag("JITGRAD_EXACT_REPLAY"),
                   blas=os.environ.get("JITGRAD_BLAS", "").strip().lower(),
                   num_threads=_threads(),
                   gc_freeze=os.environ.get("JITGRAD_GC_FREEZE", "1").strip() != "0",
                   call_stack_level=_int("FLAGS_call_stack_level", 1))


SETTINGS = Settings.from_env()


@contextlib.contextmanager
def override(**changes: Any) -> Iterator[Settings]:
    """Change settings inside the block, restore them after."""
    names = {f.name for f in fields(Settings)}
    for name in changes:
        if name not in names:
            raise TypeError(f"unknown jitgrad setting {name!r}; the settings are "
                            f"{', '.join(sorted(names))}")
    before = {name: getattr(SETTINGS, name) for name in changes}
    for name, value in changes.items():
        setattr(SETTINGS, name, value)
    try:
        yield SETTINGS
    finally:
        for name, value in before.items():
            setattr(SETTINGS, name, value)
