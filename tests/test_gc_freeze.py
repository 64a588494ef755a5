"""Once the compiled interpreter is loaded, the objects alive then (Numba's ~80,000 among
them) are frozen out of Python's full garbage collections (vm.freeze_long_lived)."""

import os
import subprocess
import sys

import pytest

SCRIPT = """
import gc, jitgrad
jitgrad.warmup(quiet=True)
print(gc.get_freeze_count())
"""


def _frozen_count(env_extra: dict) -> int:
    env = {**os.environ, **env_extra}
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                         text=True, timeout=300, check=True)
    return int(out.stdout.split()[-1])


@pytest.mark.slow
def test_loading_the_interpreter_freezes_the_objects_alive_then():
    assert _frozen_count({}) > 50_000


@pytest.mark.slow
def test_jitgrad_gc_freeze_0_leaves_the_collector_alone():
    assert _frozen_count({"JITGRAD_GC_FREEZE": "0"}) == 0


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
