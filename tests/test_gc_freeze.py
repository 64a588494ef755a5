"""Once the compiled interpreter is loaded, the objects alive then (Numba's ~80,000 among
them) are frozen out of Python's full garbage collections (vm.freeze_long_lived)."""

import os
import subprocess
import sys

import pytest

SCRIPT = """
import gc, jitgrad
jitgrad.warmup(quiet=True)
print(gc.get_threshold()[2], gc.get_freeze_count())
"""


def _frozen_and_threshold(env_extra: dict) -> tuple[int, int]:
    env = {**os.environ, **env_extra}
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                         text=True, timeout=300, check=True)
    old, frozen = out.stdout.split()[-2:]
    return int(frozen), int(old)


@pytest.mark.slow
def test_loading_the_interpreter_freezes_the_objects_alive_then():
    frozen, old = _frozen_and_threshold({})
    assert frozen > 50_000
    assert old == 100                   # full collections 10x rarer than CPython's 10


@pytest.mark.slow
def test_jitgrad_gc_freeze_0_leaves_the_collector_alone():
    assert _frozen_and_threshold({"JITGRAD_GC_FREEZE": "0"}) == (0, 10)


def _freeze_again(threshold: tuple) -> tuple:
    """freeze_long_lived run once more with the collector's thresholds set to `threshold`;
    the thresholds it leaves (the process's are restored)."""
    import gc
    from jitgrad import vm
    from jitgrad.core import config
    before = gc.get_threshold()
    gc.set_threshold(*threshold)
    was = vm._frozen
    vm._frozen = False
    try:
        with config.override(gc_freeze=True):
            vm.freeze_long_lived()
        return gc.get_threshold()
    finally:
        vm._frozen = was or vm._frozen
        gc.set_threshold(*before)


def test_the_oldest_threshold_rises_from_its_default_only():
    assert _freeze_again((700, 10, 10)) == (700, 10, 100)
    assert _freeze_again((500, 20, 30)) == (500, 20, 30)       # the user's own: kept


def test_garbage_made_before_the_freeze_is_collected_not_frozen():
    # a reference cycle that is already garbage when the freeze comes is freed by the
    # collect before it, not kept for ever
    import weakref
    from jitgrad import vm
    from jitgrad.core import config

    class Node:
        pass

    a, b = Node(), Node()
    a.other, b.other = b, a
    probe = weakref.ref(a)
    del a, b
    with config.override(gc_freeze=True):
        was = vm._frozen
        vm._frozen = False
        try:
            vm.freeze_long_lived()
        finally:
            vm._frozen = was or vm._frozen
    assert probe() is None
