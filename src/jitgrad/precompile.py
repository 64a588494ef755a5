"""Compile (or load from Numba's disk cache) every forward kernel ahead of time.

The backward interpreter is one Numba function, loaded by `jitgrad.warmup()`. The forward
kernels (vm/forward*.py, vm/float32_math.py) are many small ones, each compiled lazily, by
Numba's type dispatch, at the first call of an op that uses it, for the argument types that
op passes (float32 or float64 arrays, the index arrays, int and float scalars, flags). On a
machine whose Numba cache is empty that first call pauses for seconds (softmax 6.5 s,
lgamma 16.9 s). `precompile()` (`jitgrad.warmup(forward=True)`, `python -m jitgrad warmup
--all`) takes those pauses up front, in a Docker image build or before a demo, so that the
cache holds every kernel later processes ask for.

The kernels have no explicit signatures: which concrete ones exist is decided by the ops'
calls. So the precompile drives the real ops, which is the honest way to meet exactly the
signatures they dispatch:

1. every registry op, on each of its test cases, float32 and float64, forward (on
   constants: nothing recorded) and its backward by the eager rules, the rules on arrays
   (a new structure's first backward: some call vm kernels, e.g. NORM_BWD through
   vm/forward.py's norm_bwd) and the compiled interpreter;
2. per kernel module, a workload of public calls on inputs large enough to take the
   compiled paths that small inputs skip (softmax, cross_entropy, layer_norm ... compile
   their kernels from 64-256 elements on), each also run under no_grad: an inference
   forward skips the saved factors by kernels of its own (silu_value, gelu_tanh_value ...).

Compiling each signature's other float dtype explicitly as well (Dispatcher.compile) was
tried and dropped: it added 18 signatures (mostly float32 variants of float64-only ones:
lgamma_args, erfinv, lse_shift ...) that no op dispatched in perf/precompile_check.py,
for ~11% more CPU time; without it that check found no compile left either.

Progress is one line per kernel module (and four for the registry drive) unless quiet.
jitgrad's random generator is left as it was (the calls draw dropout masks from it).
"""

from __future__ import annotations

import contextlib
import importlib
import threading
import time
import warnings
from typing import Any

import numpy as np

# Every vm module whose kernels the ops reach by ops/core.py's compiled_kernels or
# compiled_input; vm/interpreter.py, kernels.py, norm_kernels.py and blas.py are the backward
# interpreter's, loaded by jitgrad.warmup(). tests/test_precompile.py checks this list
# against the names the ops ask for and the vm modules holding kernels.
KERNEL_MODULES = (
    "forward", "forward_activation", "forward_binary", "forward_gather", "forward_linalg",
    "forward_loss", "forward_matrix", "forward_order", "forward_reduce", "forward_scatter",
    "forward_special", "forward_window", "float32_math", "numpy_exp",
)

INTERPRETER_MODULES = ("interpreter", "kernels", "norm_kernels", "blas")


def warmup(dtypes: tuple = (np.float32, np.float64), quiet: bool = False,
           forward: bool = False) -> float:
    """`jitgrad.warmup`: compile (or load from Numba's disk cache) the backward interpreter
    now (vm.warmup); returns the seconds. Call it at the top of a notebook or a benchmark
    so the first backward does not pause; prints how long it took unless quiet.

    forward=True: also every forward kernel the ops use (precompile below; what `python -m
    jitgrad warmup --all` runs), so that no later op call compiles one: minutes on a
    machine whose Numba cache is empty (a Docker image build), ~seconds once cached.
    Prints one line per kernel module unless quiet."""
    from . import vm
    seconds = vm.warmup(dtypes, quiet)
    if forward:
        seconds += precompile(dtypes=tuple(np.dtype(d) for d in dtypes),
                              quiet=quiet)["total_seconds"]
    return seconds


def kernels_of(module: str) -> dict[str, Any]:
    """The Numba dispatchers defined in vm.<module> (imported here), by name; those inlined
    at IR level (inline='always') are left out: they never compile on their own."""
    from numba.core.registry import CPUDispatcher
    mod = importlib.import_module(f"jitgrad.vm.{module}")
    found = {}
    for name, obj in vars(mod).items():
        if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == mod.__name__ and \
                obj.targetoptions.get("inline", "never") != "always":
            found[name] = obj
    return found


class _Compiles:
    """Counts Numba compiles (the "numba:compile" events of kernels of vm modules) and their
    seconds, by module; the outermost event of a thread only (a kernel's first call
    compiles the helpers it calls inside it)."""

    def __init__(self) -> None:
        self.local = threading.local()
        self.count: dict[str, int] = {}
        self.seconds: dict[str, float] = {}
        self.names: list[str] = []

    def on_start(self, event: Any) -> None:
        depth = getattr(self.local, "depth", 0)
        self.local.depth = depth + 1
        if depth == 0:
            fn = getattr((event.data or {}).get("dispatcher"), "py_func", None)
            module = getattr(fn, "__module__", "") or ""
            self.local.module = module.removeprefix("jitgrad.vm.")
            self.local.t0 = time.perf_counter()
            if module.startswith("jitgrad."):
                self.names.append(f"{self.local.module}.{fn.__qualname__}")

    def on_end(self, event: Any) -> None:
        self.local.depth -= 1
        if self.local.depth == 0:
            m = self.local.module
            self.count[m] = self.count.get(m, 0) + 1
            self.seconds[m] = self.seconds.get(m, 0.0) + time.perf_counter() - self.local.t0


def compile_counter() -> _Compiles:
    """A registered _Compiles (unregister with `stop_counting`)."""
    from numba.core import event
    listener = type("PrecompileCounter", (_Compiles, event.Listener), {})()
    event.register("numba:compile", listener)
    return listener


def stop_counting(listener: _Compiles) -> None:
    from numba.core import event
    event.unregister("numba:compile", listener)


# ---- driving the ops -------------------------------------------------------------------------

def _registry_inputs(op: Any, case: dict, dtype: type, seed: int = 0) -> list[np.ndarray]:
    """tests/test_op_gradients.py's inputs for a registry case."""
    if "values" in case:
        return [np.asarray(v, dtype) for v in case["values"]]
    rng = np.random.default_rng(seed)
    lo, hi = op.domain
    return [rng.uniform(lo, hi, size=s).astype(dtype) for s in case["shapes"]]


def _drive_registry_op(op: Any, dtypes: tuple) -> int:
    """Run one registry op over its cases: forward, and the backward by every path that runs
    forward kernels. Returns how many of its runs raised (an op's case meant for one dtype)."""
    from .core.tensor import Tensor
    from .ops.core import apply
    from .testing import gradients
    failed = 0
    for case in op.cases or ({"shapes": ((3,),) * op.nin},):
        attrs = case.get("attrs", {})

        def f(*xs: Any, attrs: dict = attrs) -> Any:
            return apply(op, *xs, **attrs)
        for dt in dtypes:
            try:
                xs = _registry_inputs(op, case, dt)
                if not op.differentiable:
                    f(*[Tensor._make(x) for x in xs])
                    continue
                out = f(*[Tensor._make(x) for x in xs])
                seed = np.ones(out.shape, out._data.dtype)
                for path in ("eager", "interpret", "numba"):
                    gradients(f, xs, seed, path)
            except Exception:          # noqa: BLE001 - a case the op refuses: nothing to compile
                failed += 1
    return failed


def _drive_calls(calls: list, dtypes: tuple) -> int:
    """Run each public call (precompile_calls.py) for each dtype: its forward under no_grad
    (inference), then the backward of two fresh graphs (a new structure is interpreted, the
    repeat runs a compiled Program). Returns how many of the latter raised (a function or
    argument this version lacks)."""
    from .core.grad_mode import no_grad
    from .precompile_calls import Inputs
    failed = 0
    for call in calls:
        for dt in dtypes:
            # (one that needs gradients, an optimizer step, raises here: counted below)
            with contextlib.suppress(Exception), no_grad():
                call(Inputs(dt))
            try:
                for _ in range(2):
                    loss = call(Inputs(dt))
                    if loss is None or loss.stop_gradient:
                        break
                    if loss.ndim:
                        loss = loss.sum()
                    loss.backward()
            except Exception:          # noqa: BLE001 - counted, not fatal
                failed += 1
    return failed


def _summary(module: str) -> tuple[int, int, int, int, int]:
    """(kernels, kernels with a signature, signatures, cache hits, cache misses)."""
    ks = kernels_of(module)
    reached = sum(1 for d in ks.values() if d.signatures)
    sigs = sum(len(d.signatures) for d in ks.values())
    hits = sum(sum(d.stats.cache_hits.values()) for d in ks.values() if hasattr(d, "stats"))
    misses = sum(sum(d.stats.cache_misses.values()) for d in ks.values()
                 if hasattr(d, "stats"))
    return len(ks), reached, sigs, hits, misses


def precompile(modules: tuple | None = None, dtypes: tuple = (np.float32, np.float64),
               quiet: bool = False, registry: bool | None = None) -> dict:
    """Compile (or load from Numba's disk cache) the forward kernels of `modules` (default
    all KERNEL_MODULES) for `dtypes`, by driving the ops (module docstring). `registry`:
    drive every registry op first (default: when all modules are asked for). Prints one
    line per module unless quiet; returns {module: {kernels, reached (kernels holding a
    signature), signatures, compiles, loaded (from the cache), seconds (compiling)}} and
    "total_seconds". Clears jitgrad's program cache at the end (cache_clear), which the
    driven ops' graphs filled."""
    from . import vm
    from .precompile_calls import CALLS
    from .vm import compile_notice
    names = KERNEL_MODULES if modules is None else tuple(modules)
    unknown = set(names) - set(KERNEL_MODULES)
    if unknown:
        raise ValueError(f"not kernel modules: {sorted(unknown)}; choose from "
                         f"{', '.join(KERNEL_MODULES)}")
    if registry is None:
        registry = modules is None
    t_start = time.perf_counter()
    say = (lambda s: None) if quiet else (lambda s: print(s, flush=True))
    vm.warmup(quiet=True)                       # Numba and the interpreter: the ops use both
    for name in names:
        importlib.import_module(f"jitgrad.vm.{name}")
    from .ops import creation
    rng_state = creation.get_rng_state()       # (dropout and friends draw from it)
    counter = compile_counter()
    result: dict = {}
    try:
        with compile_notice.silenced(), warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if registry:                # (four progress lines: it takes minutes)
                from .ops.registry import REGISTRY
                ops = list(REGISTRY.values())
                step = -(-len(ops) // 4)
                for lo in range(0, len(ops), step):
                    t0 = time.perf_counter()
                    before = sum(counter.count.values())
                    failed = sum(_drive_registry_op(op, dtypes) for op in ops[lo:lo + step])
                    hi = min(lo + step, len(ops))
                    say(f"jitgrad: registry ops {lo + 1}-{hi} of {len(ops)} "
                        f"({ops[lo].name} .. {ops[hi - 1].name}): "
                        f"{sum(counter.count.values()) - before} kernel compiles in "
                        f"{time.perf_counter() - t0:.1f} s"
                        + (f" ({failed} case runs refused)" if failed else ""))
            for name in names:
                calls = CALLS[name]() if name in CALLS else []
                t0 = time.perf_counter()
                before = sum(counter.count.values())
                failed = _drive_calls(calls, dtypes)
                say(f"jitgrad: {name}: {len(calls)} calls, "
                    f"{sum(counter.count.values()) - before} kernel compiles in "
                    f"{time.perf_counter() - t0:.1f} s"
                    + (f" ({failed} runs failed)" if failed else ""))
            for name in names:
                kernels, reached, sigs, hits, misses = _summary(name)
                result[name] = dict(kernels=kernels, reached=reached, signatures=sigs,
                                    compiles=counter.count.get(name, 0), loaded=hits,
                                    seconds=counter.seconds.get(name, 0.0))
    finally:
        stop_counting(counter)
        creation.set_rng_state(rng_state)
        from .compile.program_cache import cache_clear
        cache_clear()       # (the programs of the driven ops' graphs: none is the user's)
    result["total_seconds"] = total = time.perf_counter() - t_start
    mods = [result[n] for n in names]
    say(f"jitgrad: forward kernels ready in {total:.1f} s: "
        f"{sum(m['compiles'] for m in mods)} compiled "
        f"({sum(m['seconds'] for m in mods):.1f} s), {sum(m['loaded'] for m in mods)} "
        f"loaded from Numba's cache, in {len(names)} modules")
    return result
