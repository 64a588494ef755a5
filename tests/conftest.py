"""Test the source tree this file sits in, even when another checkout is pip-installed."""

import os
import sys

import pytest

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)
# and so do the Python subprocesses tests start (`python -c "import jitgrad ..."`)
os.environ["PYTHONPATH"] = os.pathsep.join(
    [SRC] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != SRC])
# Every backward runs a Program, in these subprocesses too (lower_new_structures below).
os.environ["JITGRAD_NO_INTERPRET"] = "1"


@pytest.fixture(autouse=True)
def lower_new_structures(monkeypatch):
    """Every backward runs a Program, the first of a new graph structure too (also set as
    JITGRAD_NO_INTERPRET above, for the subprocesses tests start): the suite's gradient
    tests then cover the compiled path, whose lowering is the intricate part. The
    interpret state (autograd/interpret.py), which production uses for a structure's first
    backward, is tested as a path of its own: backward_paths.PATHS' "interpret" and
    test_op_cache.py's registry-wide production-path test."""
    from jitgrad.core import config
    monkeypatch.setattr(config.SETTINGS, "interpret_new", False)


@pytest.fixture
def fresh_cache(monkeypatch):
    """An empty program cache (counters zeroed) with caching on; emptied again afterwards,
    and its size bound restored if the test changed it (set_cache_limit)."""
    import jitgrad
    from jitgrad.core import config
    monkeypatch.setattr(config.SETTINGS, "program_cache", True)
    limit = jitgrad.cache_info().max_bytes
    jitgrad.cache_clear()
    yield
    jitgrad.set_cache_limit(limit)
    jitgrad.cache_clear()


@pytest.fixture
def split_counter(monkeypatch):
    """Three threads, and CHAIN rows of 5000 elements split between them; counts the splits."""
    from jitgrad.vm import threads
    from jitgrad.vm.kernels import TILE
    monkeypatch.setattr(threads, "PAR_MIN", 2 * TILE)   # split a 5000-element row
    monkeypatch.setattr(threads, "_par_min", None)
    calls = {"n": 0, "chain": 0}
    real = threads.split

    def counted(*a):
        calls["n"] += 1
        calls["chain"] += getattr(a[0], "__name__", "") == "chain_part"
        return real(*a)

    monkeypatch.setattr(threads, "split", counted)
    threads.set_num_threads(3)
    yield calls
    threads.set_num_threads(None)


@pytest.fixture
def quick_runs(monkeypatch):
    """The executor's quick-run attempts (binding.run_quick's answers) in a list, with the
    compiled interpreter loaded (until then small backwards run in the reference one,
    whose rows do not add into .grad arrays: never quick)."""
    from jitgrad import vm
    from jitgrad.compile import executor
    vm.warmup(quiet=True)
    ran = []
    real = executor.run_quick

    def counted(p, ws, nodes, tensors):
        done = real(p, ws, nodes, tensors)
        ran.append(done)
        return done
    monkeypatch.setattr(executor, "run_quick", counted)
    return ran


@pytest.fixture
def call_sites():
    """FLAGS_call_stack_level 3 in the test: every op records its call site (the dump's
    call-stack log), as Paddle records stacks only then."""
    import jitgrad as paddle
    before = paddle.get_flags("FLAGS_call_stack_level")
    paddle.set_flags({"FLAGS_call_stack_level": 3})
    yield
    paddle.set_flags(before)
