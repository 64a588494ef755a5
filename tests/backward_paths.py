"""The four backward paths tests run a behaviour through: the compiled interpreter, the
numpy reference interpreter, the eager rules of create_graph=True, and the interpret state
(a structure's first backward in production: autograd/interpret.py)."""

import contextlib

import jitgrad as paddle
from jitgrad.core import config

PATHS = ["numba", "reference", "create_graph", "interpret"]


@contextlib.contextmanager
def _using(path):
    if path == "numba":
        # the compiled interpreter, loaded (or waited for): while it loads in the background
        # a small backward runs on the reference one, and the "numba" path would not test it
        paddle.warmup(quiet=True)
    if path != "interpret":
        with paddle.vm.using(path):
            yield
        return
    paddle.cache_clear()                # every structure new: its first backward interprets
    with config.override(interpret_new=True):
        yield


def leaf(values, dtype="float32"):
    return paddle.to_tensor(values, dtype=dtype, stop_gradient=False)


def backward(loss, path, **kw):
    if path == "create_graph":
        loss.backward(create_graph=True, **kw)
    else:
        with _using(path):
            loss.backward(**kw)


def grad(outs, ins, path, **kw):
    if path == "create_graph":
        return paddle.grad(outs, ins, create_graph=True, **kw)
    with _using(path):
        return paddle.grad(outs, ins, **kw)


def interpreted_and_compiled(grads):
    """(interpreted, compiled): `grads()` (a fresh graph's backward, returning arrays) run
    as a new structure's first backward (the interpret state, which conftest switches off
    for the rest of the suite), then lowered into a Program; the cache emptied before
    each. For an op's array rule (its `interp`) against its lowered rows."""
    paddle.warmup(quiet=True)           # (the compiled kernels the array rules call)
    paddle.cache_clear()
    with config.override(interpret_new=True):
        interpreted = grads()
    assert paddle.cache_info().interpreted == 1
    paddle.cache_clear()
    with config.override(interpret_new=False):
        compiled = grads()
    assert paddle.cache_info().interpreted == 0
    return interpreted, compiled
