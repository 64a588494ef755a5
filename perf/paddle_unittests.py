"""Run PaddlePaddle's own dygraph unit tests against jitgrad, and against Paddle itself.

    python perf/paddle_unittests.py DIR            # DIR holds Paddle's test_*.py files
    python perf/paddle_unittests.py DIR -v         # and list every failure with its error

Paddle's test files are not part of this repository (fetch them from PaddlePaddle/Paddle's
test/legacy_test/ into a scratch directory). Each file runs in its own process, twice:
under the real Paddle (`--paddle-python`, default /work/peers/bin/python) and under
jitgrad through a shim `paddle` package this script writes into a temporary directory.
The shim only renames (paddle.base.dygraph.guard, _dygraph_tracer()._has_grad,
Tensor._grad_ivar ...): every behaviour under test is jitgrad's own.

A test is applicable when it passes on Paddle itself and is not in NOT_APPLICABLE (static
graphs, private C++ hooks). The report: applicable tests passed under jitgrad, per file,
and each failing test with the first line of its error.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Tests that exercise what jitgrad deliberately does not have: static graphs, Paddle's
# private C++ engine hooks. Keyed "file:Class.test".
NOT_APPLICABLE = {
    "test_imperative_decorator:TestTracerMode.test_main": "static mode (enable_static)",
    "test_imperative_decorator:TestTracerMode2.test_main": "static mode (enable_static)",
    "test_imperative_decorator:TestIsGradEnabledClass.test_main":
        "ends with paddle.enable_static()",
    "test_tensor_register_hook:TestTensorRegisterBackwardHook.test_register_backward_hook":
        "private Tensor._register_backward_hook",
    "test_tensor_register_hook:TestTensorRegisterBackwardHook."
    "test_register_backward_hook_for_interior_var": "private Tensor._register_backward_hook",
    "test_tensor_register_hook:TestTensorRegisterBackwardHook."
    "test_register_backward_hook_for_var_without_gradient":
        "private Tensor._register_backward_hook",
    "test_tensor_register_hook:TestRegisterBackwardFinalHook.test_register_backward_hook":
        "private core.eager._add_backward_final_hook",
}

SHIM = r'''
"""paddle -> jitgrad, for running Paddle's unit tests (written by perf/paddle_unittests.py)."""
import contextlib
import functools
import sys
import types

import jitgrad as _jg
from jitgrad import *  # noqa: F401,F403
from jitgrad import Tensor, ParamAttr, to_tensor  # noqa: F401


def __getattr__(name):
    return getattr(_jg, name)


def _module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


def is_compiled_with_cuda():
    return False


Tensor._grad_ivar = lambda self: self.grad          # Paddle's private name for .grad


class _Tracer:
    """framework._dygraph_tracer(): _has_grad is the grad mode."""
    _train_mode = True

    @property
    def _has_grad(self):
        return _jg.is_grad_enabled()

    @_has_grad.setter
    def _has_grad(self, value):
        _jg.core.tape._set_grad_enabled(value)


_TRACER = _Tracer()


def _legacy_no_grad(func=None):
    """paddle.base.dygraph.no_grad: a bare decorator or a context manager."""
    if func is None:
        return _jg.no_grad()
    return _jg.no_grad()(func)


def _dygraph_not_support(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        raise AssertionError("We don't support %s in dynamic graph mode" % func.__name__)
    return wrapper


def _guard(place=None):
    return contextlib.nullcontext()


def _wrap_decorator(decorator_func):
    def __impl__(func):
        return functools.wraps(func)(decorator_func(func))
    return __impl__


def _gaussian(shape, mean=0.0, std=1.0, seed=0, dtype=None, name=None):
    return _jg.normal(mean, std, shape)


class _Unsupported:
    def __getattr__(self, name):
        raise NotImplementedError(f"paddle.static.{name}: jitgrad has no static mode")


autograd = _module("paddle.autograd", **{k: getattr(_jg.autograd, k)
                                         for k in dir(_jg.autograd) if not k.startswith("__")})
autograd.py_layer = _jg.autograd.py_layer
sys.modules["paddle.autograd.py_layer"] = _jg.autograd.py_layer
sys.modules["paddle.nn"] = _jg.nn
sys.modules["paddle.nn.functional"] = _jg.nn.functional
sys.modules["paddle.nn.initializer"] = _jg.nn.initializer
sys.modules["paddle.optimizer"] = _jg.optimizer
_base_framework = _module("paddle.base.framework", _dygraph_tracer=lambda: _TRACER,
                    in_dygraph_mode=lambda: True, dygraph_not_support=_dygraph_not_support,
                    Variable=Tensor, use_pir_api=lambda: False)
dygraph = _module("paddle.base.dygraph", guard=_guard, grad=_jg.grad,
                  no_grad=_legacy_no_grad)
core = _module("paddle.base.core")
base = _module("paddle.base", dygraph=dygraph, framework=_base_framework, core=core,
               in_dygraph_mode=lambda: True, set_flags=lambda flags: None,
               CPUPlace=_jg.CPUPlace, ParamAttr=ParamAttr,
               wrapped_decorator=_module("paddle.base.wrapped_decorator",
                                         wrap_decorator=_wrap_decorator))
fluid = base
tensor = _module("paddle.tensor", random=_module("paddle.tensor.random", gaussian=_gaussian))
framework = _module("paddle.framework", use_pir_api=lambda: False,
                        set_flags=lambda flags: None,
                        random=types.SimpleNamespace(_manual_program_seed=lambda s: None))
device = _module("paddle.device", set_device=_jg.set_device)
static = _Unsupported()
'''

RUN_ONE = r'''
import json, sys, unittest, io
sys.path.insert(0, sys.argv[2])
name = sys.argv[1]
suite = unittest.defaultTestLoader.loadTestsFromName(name)
result = unittest.TestResult()
stream = io.StringIO()
out = {}
def ids(s):
    for t in s:
        if isinstance(t, unittest.TestSuite):
            yield from ids(t)
        else:
            yield t
tests = list(ids(suite))
for t in tests:
    r = unittest.TestResult()
    t.run(r)
    key = t.id().split(".", 1)[1]
    bad = r.errors + r.failures
    if r.skipped:
        out[key] = ["skip", r.skipped[0][1]]
    elif bad:
        tb = bad[0][1].strip().splitlines()
        out[key] = ["fail", tb[-1][:300]]
    else:
        out[key] = ["pass", ""]
print("@@RESULT@@" + json.dumps(out))
'''


def run_file(python: str, test_dir: str, name: str, path_extra: list[str]) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(path_extra + [test_dir])
    proc = subprocess.run([python, "-c", RUN_ONE, name, test_dir], capture_output=True,
                          text=True, env=env, cwd=test_dir, timeout=900)
    for line in proc.stdout.splitlines():
        if line.startswith("@@RESULT@@"):
            return json.loads(line[len("@@RESULT@@"):])
    return {"<import>": ["fail", (proc.stderr.strip().splitlines() or ["?"])[-1][:300]]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("test_dir")
    ap.add_argument("--paddle-python", default="/work/peers/bin/python")
    ap.add_argument("--python", default=sys.executable, help="runs jitgrad")
    ap.add_argument("--src", default=os.path.join(REPO, "src"),
                    help="the jitgrad source tree to test (default: this checkout's)")
    ap.add_argument("-v", action="store_true", help="list every failing test")
    args = ap.parse_args()
    test_dir = os.path.abspath(args.test_dir)
    files = sorted(f[:-3] for f in os.listdir(test_dir)
                   if f.startswith("test_") and f.endswith(".py") and
                   f != "test_imperative_base.py")
    shim_dir = tempfile.mkdtemp(prefix="paddle_shim_")
    os.makedirs(os.path.join(shim_dir, "paddle"))
    with open(os.path.join(shim_dir, "paddle", "__init__.py"), "w") as f:
        f.write(SHIM)
    total_app = total_pass = 0
    failures = []
    for name in files:
        ref = run_file(args.paddle_python, test_dir, name, [])
        mine = run_file(args.python, test_dir, name, [shim_dir, os.path.abspath(args.src)])
        app = [k for k, (st, _) in ref.items()
               if st == "pass" and f"{name}:{k}" not in NOT_APPLICABLE]
        ok = [k for k in app if mine.get(k, ["missing"])[0] == "pass"]
        total_app += len(app)
        total_pass += len(ok)
        skipped = len(ref) - len(app)
        print(f"{name:40s} {len(ok):3d} / {len(app):3d} applicable"
              + (f"  ({skipped} not applicable)" if skipped else ""))
        for k in app:
            if k not in ok:
                failures.append((name, k, mine.get(k, ["missing", "not run"])[1]))
    print(f"{'total':40s} {total_pass:3d} / {total_app:3d}")
    if args.v:
        for name, k, err in failures:
            print(f"  FAIL {name}:{k}\n       {err}")


if __name__ == "__main__":
    main()
