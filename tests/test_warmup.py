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
from jitgrad.program import OP, WIDTH

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def tiny_program(dtype):
    code = np.zeros((1, WIDTH), np.int64)
    code[0, 0] = OP["ZERO"] << 1
    return (code, np.ones(3, dtype), np.zeros(1, np.int64), np.ones(1, dtype), 0, 1)


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


def test_a_slow_first_call_prints_a_notice_before_and_the_time_after(monkeypatch):
    err = Recorder()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(vm, "NOTICE_AFTER", 0.01)

    def slow_runner(*args):           # "compiles" until the notice has been printed
        assert err.written.wait(30), "the notice was never printed"
    vm._first_call(slow_runner, tiny_program(np.float32), np.dtype(np.float32))
    lines = err.getvalue().splitlines()
    assert lines[0].startswith("jitgrad: compiling the backward interpreter for float32")
    assert lines[1].startswith("jitgrad: ready in ") and len(lines) == 2


def test_a_quick_first_call_is_silent_and_later_calls_skip_the_timer(monkeypatch):
    err = Recorder()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(vm, "NOTICE_AFTER", 600.0)
    monkeypatch.setattr(vm, "_ready", set())
    monkeypatch.setattr(vm, "_vm", "numba")   # the compiled path, even under JITGRAD_VM=reference
    calls = []
    monkeypatch.setattr(vm, "_compiled", lambda *args: calls.append(args[1].dtype))
    first = []
    real_first_call = vm._first_call
    monkeypatch.setattr(vm, "_first_call", lambda *a: (first.append(a[2]), real_first_call(*a)))
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    for _ in range(3):
        (x * x).sum().backward()
    y = paddle.to_tensor([1.0, 2.0], dtype="float64", stop_gradient=False)
    (y * y).sum().backward()
    assert calls == [np.float32] * 3 + [np.float64]
    assert first == [np.dtype(np.float32), np.dtype(np.float64)]   # once per dtype
    assert err.getvalue() == ""


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


def test_a_fresh_machine_sees_the_notice_once_and_a_cached_one_loads(tmp_path):
    env = {**os.environ, "PYTHONPATH": SRC, "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
           "JITGRAD_VM": "numba", "JITGRAD_TIER": "0"}   # no tiered start (fastpath.py)
    env.pop("JITGRAD_NO_CACHE", None)
    first = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                           text=True, timeout=600, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stderr.count("jitgrad: compiling the backward interpreter for float32") == 1
    assert first.stderr.count("jitgrad: ready in ") == 1
    second = subprocess.run([sys.executable, "-c", SCRIPT_CACHED], env=env,
                            capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "(loaded from Numba's disk cache)" in second.stdout
    assert "compiling" not in second.stderr
    x = np.array([1.0, 2.0])
    closed_form = np.exp(x) * (1 + x)                  # d/dx sum(exp(x) * x)
    np.testing.assert_allclose(eval(first.stdout), 3 * closed_form, rtol=1e-6)   # accumulates
    np.testing.assert_allclose(eval(second.stdout.splitlines()[-1]), closed_form, rtol=1e-6)
