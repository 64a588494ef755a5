"""The forward-kernel precompile (jitgrad/precompile.py, `python -m jitgrad warmup --all`).

The whole precompile takes minutes on an empty Numba cache, so it is not run here: these
tests check that it knows every kernel module the ops can ask for, and run it for one small
module (perf/precompile_check.py measures the whole one on a fresh cache).
"""

import os
import re

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad import precompile, precompile_calls
from jitgrad.__main__ import main

SRC = os.path.dirname(paddle.__file__)


def _kernel_files() -> set:
    """vm modules holding Numba kernels (an @jit in their source)."""
    found = set()
    for f in os.listdir(os.path.join(SRC, "vm")):
        if f.endswith(".py") and f not in ("__init__.py", "_numba.py", "cache_guard.py"):
            with open(os.path.join(SRC, "vm", f)) as fh:
                if "@jit" in fh.read():
                    found.add(f[:-3])
    return found


def _asked_for() -> set:
    """Every vm kernel module the ops name in a string (compiled_kernels("forward_window"),
    compiled_input("forward", x), stats.py's _rows_layout(..., "forward_reduce") ...)."""
    files, names = _kernel_files(), set()
    for folder, _, fs in os.walk(os.path.join(SRC, "ops")):
        for f in fs:
            if f.endswith(".py"):
                with open(os.path.join(folder, f)) as fh:
                    names |= set(re.findall(r'"(\w+)"', fh.read())) & files
    return names


def test_precompile_knows_every_module_the_ops_ask_for():
    asked = _asked_for()
    assert asked, "the pattern found no compiled_kernels / compiled_input call"
    assert asked <= set(precompile.KERNEL_MODULES), asked - set(precompile.KERNEL_MODULES)
    assert set(precompile.KERNEL_MODULES) <= asked, \
        f"listed but never asked for: {set(precompile.KERNEL_MODULES) - asked}"


def test_every_vm_module_with_kernels_is_listed():
    """A new vm module of kernels must join KERNEL_MODULES (or be the interpreter's)."""
    listed = set(precompile.KERNEL_MODULES) | set(precompile.INTERPRETER_MODULES)
    assert _kernel_files() <= listed, _kernel_files() - listed
    for name in precompile.KERNEL_MODULES:
        assert precompile.kernels_of(name), name


def test_every_module_has_public_calls():
    assert set(precompile_calls.CALLS) == set(precompile.KERNEL_MODULES)
    for name, calls in precompile_calls.CALLS.items():
        assert calls(), name


def test_precompile_one_module_leaves_nothing_to_compile():
    res = precompile.precompile(modules=("forward_matrix",), quiet=True)
    kernels = precompile.kernels_of("forward_matrix")
    assert res["forward_matrix"]["reached"] == res["forward_matrix"]["kernels"] == len(kernels)
    for disp in kernels.values():
        dts = {str(sig[0].dtype) for sig in disp.signatures}
        assert {"float32", "float64"} <= dts, (disp, disp.signatures)
    counter = precompile.compile_counter()
    try:
        for dt in ("float32", "float64"):
            x = paddle.to_tensor(np.arange(5, dtype=dt), stop_gradient=False)
            paddle.outer(x, paddle.to_tensor(np.ones(7, dt))).sum().backward()
    finally:
        precompile.stop_counting(counter)
    assert counter.count.get("forward_matrix", 0) == 0, counter.names


def test_precompile_leaves_the_random_generator_as_it_was(monkeypatch):
    import jitgrad.nn.functional as F
    monkeypatch.setitem(precompile_calls.CALLS, "forward_matrix",
                        lambda: [lambda w: F.dropout(w.t(4, 5), 0.5)])
    paddle.seed(7)
    want = paddle.rand([3]).numpy()
    paddle.seed(7)
    precompile.precompile(modules=("forward_matrix",), quiet=True)
    np.testing.assert_array_equal(paddle.rand([3]).numpy(), want)


def test_precompile_refuses_unknown_modules():
    with pytest.raises(ValueError, match="not kernel modules"):
        precompile.precompile(modules=("interpreter",), quiet=True)


def test_warmup_forward_runs_the_precompile(monkeypatch):
    seen = []
    monkeypatch.setattr(precompile, "precompile",
                        lambda **kw: seen.append(kw) or {"total_seconds": 0.5})
    paddle.warmup(quiet=True, forward=True)
    assert seen and seen[0]["quiet"] is True
    assert [np.dtype(d) for d in seen[0]["dtypes"]] == [np.float32, np.float64]


def test_cli_warmup(monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(paddle, "warmup", lambda **kw: calls.append(kw) or 0.0)
    assert main(["warmup", "--all", "--quiet"]) == 0
    assert main(["warmup"]) == 0
    assert calls == [{"quiet": True, "forward": True}, {"quiet": False, "forward": False}]
    assert main(["bogus"]) == 2
    assert "usage" in capsys.readouterr().err


def test_precompile_runs_each_call_without_gradients_too(monkeypatch):
    """An inference forward (no_grad) takes kernels of its own (silu_value ...): each call
    runs once with gradients off, then twice with them on, per dtype."""
    seen = []

    def call(w):
        seen.append((w.dt, paddle.is_grad_enabled()))
        return w.t(4, 5).sum()
    monkeypatch.setitem(precompile_calls.CALLS, "forward_matrix", lambda: [call])
    precompile.precompile(modules=("forward_matrix",), quiet=True)
    f32, f64 = np.dtype("float32"), np.dtype("float64")
    assert seen == [(f32, False), (f32, True), (f32, True),
                    (f64, False), (f64, True), (f64, True)]


def _inference_and_new_calls():
    """Calls whose kernels the precompile missed: activations' inference forwards, nll_loss
    with class weights, 5-D pads."""
    import jitgrad.nn.functional as F

    def act(name, **kw):
        return lambda w: getattr(F, name)(w.t(32, 64), **kw)
    return [act("silu"), act("gelu", approximate=True), act("mish"),
            precompile_calls.weighted_nll_loss, precompile_calls.pads_5d]


def test_precompile_leaves_no_inference_or_new_kernel_to_compile(monkeypatch):
    listed = {c for calls in precompile_calls.CALLS.values() for c in calls()}
    assert {precompile_calls.weighted_nll_loss, precompile_calls.pads_5d} <= listed
    monkeypatch.setitem(precompile_calls.CALLS, "forward_matrix", _inference_and_new_calls)
    precompile.precompile(modules=("forward_matrix",), quiet=True)
    counter = precompile.compile_counter()
    try:
        for dt in ("float32", "float64"):
            for call in _inference_and_new_calls():
                with paddle.no_grad():
                    call(precompile_calls.Inputs(dt))
                call(precompile_calls.Inputs(dt))
    finally:
        precompile.stop_counting(counter)
    assert counter.names == []
    for module, name in (("forward_activation", "silu_value"),
                         ("forward_activation", "gelu_tanh_value"),
                         ("forward_activation", "times"), ("forward", "weighted_total"),
                         ("forward_gather", "pad4")):
        dts = {str(sig[0].dtype) for sig in precompile.kernels_of(module)[name].signatures}
        assert {"float32", "float64"} <= dts, (name, dts)
