"""One line on stderr when a compile pauses the user's code, so it never looks like a hang.

On a machine whose Numba cache does not hold them yet, an op's forward kernels compile at
its first call: measured on the 2-core AVX2 host (a fresh NUMBA_CACHE_DIR, 2026-12-07),
the first softmax paused 6.5 s, layer_norm 6.6 s, cross_entropy 7.2 s, lgamma 16.9 s, with
nothing said. A listener on Numba's "numba:compile" event (its public event API) announces
every jitgrad kernel whose compile in the user's thread takes longer than NOTICE_AFTER; a
cache load raises no such event, so it stays silent. The backward interpreter has its own
notice (vm.run_announced), and its background loader compiles without one: nothing waits
for it.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from typing import Any, Iterator

NOTICE_AFTER = 1.0      # seconds: a cache load is quicker, a compile takes several

LOADER_THREAD = "jitgrad-vm-load"                # the interpreter's background loader (vm)
_SILENT_THREADS = {LOADER_THREAD}
_SILENT_MODULES = ("jitgrad.vm.interpreter",)   # announced by vm.run_announced
_silent_idents: set[int] = set()                 # threads inside silenced()


@contextlib.contextmanager
def silenced() -> Iterator[None]:
    """No notices from this thread inside the block (the precompile prints its own
    progress: precompile.py)."""
    me = threading.get_ident()
    added = me not in _silent_idents
    _silent_idents.add(me)
    try:
        yield
    finally:
        if added:
            _silent_idents.discard(me)


class CompileNotice:
    """`what` compiling: after NOTICE_AFTER seconds (at once when it is 0) one line says so,
    and finish() adds how long it took; nothing is printed when finish() comes first."""

    def __init__(self, what: str, after: float | None = None) -> None:
        self.what = what
        self.after = NOTICE_AFTER if after is None else after
        self.said = False
        self.t0 = time.perf_counter()
        self.timer: threading.Timer | None = None

    def start(self) -> "CompileNotice":
        if self.after <= 0:
            self._say()
        else:
            self.timer = threading.Timer(self.after, self._say)
            self.timer.daemon = True
            self.timer.start()
        return self

    def _say(self) -> None:
        self.said = True
        print(f"jitgrad: compiling {self.what} (first use on this machine; Numba caches it "
              "on disk)...", file=sys.stderr, flush=True)

    def finish(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer.join()
        if self.said:
            print(f"jitgrad: ready in {time.perf_counter() - self.t0:.1f} s", file=sys.stderr,
                  flush=True)


def _listener_class() -> type:
    from numba.core.event import Listener
    return type("KernelCompiles", (_KernelCompiles, Listener), {})


class _KernelCompiles:
    """The "numba:compile" listener: the outermost compile of a jitgrad kernel in a thread
    (a kernel's first call compiles the helpers it calls inside the same event). Numba's
    Listener joins it as a base when listen() registers it (importing Numba here would
    slow `import jitgrad`)."""

    def __init__(self) -> None:
        self.local = threading.local()

    def on_start(self, event: Any) -> None:
        depth = getattr(self.local, "depth", 0)
        self.local.depth = depth + 1
        if depth:
            return
        self.local.notice = None
        fn = getattr((event.data or {}).get("dispatcher"), "py_func", None)
        module = getattr(fn, "__module__", "") or ""
        if not module.startswith("jitgrad.") or module.startswith(_SILENT_MODULES) or \
                threading.current_thread().name in _SILENT_THREADS or \
                threading.get_ident() in _silent_idents:
            return
        name = f"{module.removeprefix('jitgrad.vm.')}.{fn.__qualname__}"
        self.local.notice = CompileNotice(f"the kernel {name}").start()

    def on_end(self, event: Any) -> None:
        self.local.depth = getattr(self.local, "depth", 1) - 1
        notice = getattr(self.local, "notice", None) if self.local.depth == 0 else None
        if notice is not None:
            self.local.notice = None
            notice.finish()


_listener: _KernelCompiles | None = None


def listen() -> None:
    """Announce slow kernel compiles from now on (once; vm/_numba.py calls it)."""
    global _listener
    if _listener is None:
        from numba.core import event
        _listener = _listener_class()()
        event.register("numba:compile", _listener)
