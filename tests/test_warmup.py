"""The one-time compile notice and jitgrad.warmup()."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad import vm
from jitgrad.vm import compile_notice

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


class Recorder(io.StringIO):
    """A stderr that signals when something is written."""

    def __init__(self) -> None:
        super().__init__()
        self.written = threading.Event()

    def write(self, s: str) -> int:
        self.written.set()
        return super().write(s)


def test_warmup_returns_seconds_and_prints_one_line(capsys):
    seconds = paddle.warmup()
    assert isinstance(seconds, float) and seconds >= 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith("jitgrad: backward interpreter ready for "
                                               "float32, float64 in ")
    assert paddle.warmup(quiet=True) >= 0
    assert capsys.readouterr() == ("", "")


def test_warmup_rejects_non_float_dtypes():
    with pytest.raises(ValueError, match="float32 or float64"):
        paddle.warmup((np.int64,), quiet=True)


def test_a_slow_compile_prints_a_notice_before_and_the_time_after(monkeypatch):
    err = Recorder()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(compile_notice, "NOTICE_AFTER", 0.01)

    def slow_compile():               # "compiles" until the notice has been printed
        assert err.written.wait(30), "the notice was never printed"
    vm.run_announced(slow_compile)
    lines = err.getvalue().splitlines()
    assert lines[0].startswith("jitgrad: compiling the backward interpreter")
    assert lines[1].startswith("jitgrad: ready in ") and len(lines) == 2


def test_a_quick_load_is_silent(monkeypatch):
    err = Recorder()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(compile_notice, "NOTICE_AFTER", 600.0)
    done = []
    vm.run_announced(lambda: done.append(1))
    assert done == [1] and err.getvalue() == ""


def _fresh_kernel(module: str):
    """A new jitgrad-style kernel (no disk cache: its first call compiles) in `module`."""
    from jitgrad.vm._numba import jit

    def kernel(x):
        return x * 2.0 + 1.0
    kernel.__module__ = module
    return jit(kernel, cache=False)


def test_a_kernel_compiling_in_the_users_thread_says_so(monkeypatch):
    err = Recorder()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(compile_notice, "NOTICE_AFTER", 0.0)     # (0: said at once)
    paddle.warmup(quiet=True)                                    # (Numba loaded)
    assert _fresh_kernel("jitgrad.vm.forward_probe")(1.5) == 4.0
    lines = err.getvalue().splitlines()
    assert lines[0] == ("jitgrad: compiling the kernel forward_probe."
                        "_fresh_kernel.<locals>.kernel (first use on this machine; Numba "
                        "caches it on disk)...")
    assert lines[1].startswith("jitgrad: ready in ") and len(lines) == 2


def test_other_compiles_and_the_background_loader_stay_silent(monkeypatch):
    err = Recorder()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(compile_notice, "NOTICE_AFTER", 0.0)
    paddle.warmup(quiet=True)
    assert _fresh_kernel("user_code")(1.0) == 3.0                # not jitgrad's
    done = []
    t = threading.Thread(target=lambda: done.append(
        _fresh_kernel("jitgrad.vm.forward_probe")(2.0)), name="jitgrad-vm-load")
    t.start()
    t.join()
    assert done == [5.0] and err.getvalue() == ""


def test_no_notice_inside_silenced(monkeypatch):
    """The precompile prints its own progress: its compiles say nothing (that thread only,
    until the block ends)."""
    err = Recorder()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(compile_notice, "NOTICE_AFTER", 0.0)
    paddle.warmup(quiet=True)
    with compile_notice.silenced():
        with compile_notice.silenced():
            assert _fresh_kernel("jitgrad.vm.forward_probe")(1.0) == 3.0
        assert _fresh_kernel("jitgrad.vm.forward_probe")(1.0) == 3.0
    assert err.getvalue() == ""
    assert _fresh_kernel("jitgrad.vm.forward_probe")(1.0) == 3.0
    assert err.getvalue().startswith("jitgrad: compiling the kernel forward_probe.")


def test_the_background_loader_shortens_the_switch_interval_while_it_loads(monkeypatch):
    # a busy main thread would otherwise hold the GIL for 5 ms each time the loader gives
    # it up (llvmlite's ctypes calls, file reads): a 0.36 s load took 6.5 s
    seen = []
    monkeypatch.setattr(vm, "_load", lambda dtypes: seen.append(sys.getswitchinterval()))
    monkeypatch.setattr(vm, "_load_error", None)
    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        vm._background_load()
        assert seen == [pytest.approx(vm.LOADER_SWITCH_INTERVAL)]
        assert sys.getswitchinterval() == pytest.approx(0.005)       # restored
    finally:
        sys.setswitchinterval(before)


def test_the_background_loader_keeps_a_switch_interval_set_meanwhile(monkeypatch):
    monkeypatch.setattr(vm, "_load", lambda dtypes: sys.setswitchinterval(0.002))
    monkeypatch.setattr(vm, "_load_error", None)
    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        vm._background_load()
        assert sys.getswitchinterval() == pytest.approx(0.002)       # the user's, kept
        sys.setswitchinterval(1e-5)                 # already shorter: not lengthened
        monkeypatch.setattr(vm, "_load", lambda dtypes: seen.append(sys.getswitchinterval()))
        seen: list = []
        vm._background_load()
        assert seen == [pytest.approx(1e-5)] and sys.getswitchinterval() == pytest.approx(1e-5)
    finally:
        sys.setswitchinterval(before)


TIERED = """
import time
import jitgrad as paddle
from jitgrad import vm
x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
t0 = time.perf_counter()
(paddle.exp(x) * x).sum().backward()           # does not wait for the compiled interpreter
first = time.perf_counter() - t0
print(vm.compiled_ready(), first < 2.0, x.grad.tolist())
while not vm.compiled_ready("float32"):        # it loads in the background meanwhile
    (paddle.exp(x) * x).sum().backward()
    time.sleep(0.01)
x.clear_grad()
(paddle.exp(x) * x).sum().backward()           # now compiled
print(vm.compiled_ready("float32"), x.grad.tolist())
"""


@pytest.mark.slow
def test_the_first_small_backward_runs_while_the_interpreter_loads(tmp_path):
    env = {**os.environ, "PYTHONPATH": SRC, "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
           "JITGRAD_VM": "numba", "JITGRAD_TIER": "1"}
    env.pop("JITGRAD_NO_CACHE", None)
    run = subprocess.run([sys.executable, "-c", TIERED], env=env, capture_output=True,
                         text=True, timeout=600, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    first, second = run.stdout.splitlines()
    x = np.array([1.0, 2.0])
    closed_form = (np.exp(x) * (1 + x)).astype(np.float32)
    ready, quick, grad = first.split(" ", 2)
    assert (ready, quick) == ("False", "True")
    np.testing.assert_allclose(eval(grad), closed_form, rtol=1e-6)
    ready, grad = second.split(" ", 1)
    assert ready == "True"
    np.testing.assert_allclose(eval(grad), closed_form, rtol=1e-6)
    # nothing waited for the interpreter (its first use of a forward kernel may compile,
    # and say so: compile_notice.py)
    assert "compiling the backward interpreter" not in run.stderr


SCRIPT = """
import jitgrad as paddle
x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
for _ in range(3):
    (paddle.exp(x) * x).sum().backward()
print(x.grad.tolist())
"""

SCRIPT_CACHED = """
import jitgrad as paddle
paddle.warmup(("float32",))
x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
(paddle.exp(x) * x).sum().backward()
print(x.grad.tolist())
"""


@pytest.mark.slow
def test_a_fresh_machine_sees_the_notice_once_and_a_cached_one_loads(tmp_path):
    env = {**os.environ, "PYTHONPATH": SRC, "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
           "JITGRAD_VM": "numba", "JITGRAD_TIER": "0"}   # no tiered start (vm/__init__.py)
    env.pop("JITGRAD_NO_CACHE", None)
    first = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                           text=True, timeout=600, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stderr.count("jitgrad: compiling the backward interpreter") == 1
    # (and a notice per forward kernel compiling at its first use: each with its time)
    assert first.stderr.count("jitgrad: ready in ") == first.stderr.count("jitgrad: compiling")
    second = subprocess.run([sys.executable, "-c", SCRIPT_CACHED], env=env,
                            capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "(loaded from Numba's disk cache)" in second.stdout
    assert "compiling" not in second.stderr
    x = np.array([1.0, 2.0])
    closed_form = np.exp(x) * (1 + x)                  # d/dx sum(exp(x) * x)
    np.testing.assert_allclose(eval(first.stdout), 3 * closed_form, rtol=1e-6)   # accumulates
    np.testing.assert_allclose(eval(second.stdout.splitlines()[-1]), closed_form, rtol=1e-6)



EXIT_WHILE_COMPILING = """
import sys, time
import jitgrad as paddle
x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
(paddle.exp(x) * x).sum().backward()       # starts the background load
while not getattr(sys.modules.get("jitgrad.vm._numba"), "compiles_here", False):
    time.sleep(0.01)                       # (until the loader's cache lookup has missed)
time.sleep(0.5)                            # the loader is compiling: end the process now
print(x.grad.tolist())
"""


@pytest.mark.slow
def test_a_process_ending_while_the_interpreter_compiles_waits_and_caches_it(tmp_path):
    """At exit the compiling loader is waited for (killing it inside LLVM can abort the
    process), so what it compiled is on disk: the next process loads it."""
    env = {**os.environ, "PYTHONPATH": SRC, "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
           "JITGRAD_VM": "numba", "JITGRAD_TIER": "1"}
    env.pop("JITGRAD_NO_CACHE", None)
    first = subprocess.run([sys.executable, "-c", EXIT_WHILE_COMPILING], env=env,
                           capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(eval(first.stdout), np.exp(x) * (1 + x), rtol=1e-6)
    second = subprocess.run([sys.executable, "-c", SCRIPT_CACHED], env=env,
                            capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "(loaded from Numba's disk cache)" in second.stdout
