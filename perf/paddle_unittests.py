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
graphs, private C++ hooks, paddle.vision's model zoo). Where jitgrad deliberately differs
(README), DELIBERATE rewrites Paddle's expectation into jitgrad's documented one in the copy
jitgrad runs, so the rest of that test still counts. The report: applicable tests passed
under jitgrad, per file, each failing test with the first line of its error, and (-v) each
deliberate difference checked.
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
    "test_tensor_register_hook:TestTensorRegisterHook.test_register_hook_in_static_mode":
        "static mode (paddle.static.program_guard, Executor)",
    "test_tensor_register_hook:TestTensorRegisterHook.test_register_hook_in_dy2static_mode":
        "dynamic-to-static (paddle.jit.to_static with paddle.static.InputSpec)",
    "test_imperative_double_grad:TestDoubleGradResNet.test_resnet_resnet50":
        "paddle.vision.models (the model zoo) is not part of jitgrad",
    "test_imperative_double_grad:TestDoubleGradResNet.test_resnet_resnet101":
        "paddle.vision.models (the model zoo) is not part of jitgrad",
}

# Where jitgrad deliberately differs (README "Where it deliberately differs, and why";
# PADDLE_SEMANTICS.md section M), the jitgrad run gets a copy of the test file with Paddle's
# expectation replaced by jitgrad's documented one, so the rest of the test still checks
# jitgrad. Keyed by file: (test, Paddle's text, jitgrad's text, why). Each text must occur
# exactly once; a stale patch is reported and the test then runs unpatched.
DELIBERATE = {
    "test_inplace": [
        ("TestDygraphInplaceGcd.test_leaf_inplace_var_error",
         "class TestDygraphInplaceGcd(TestDygraphInplace):\n",
         ("class TestDygraphInplaceGcd(TestDygraphInplace):\n"
          "    def test_leaf_inplace_var_error(self):\n"
          "        var = paddle.to_tensor(self.input_var_numpy).astype(self.dtype)\n"
          "        with self.assertRaises(TypeError):\n"
          "            var.stop_gradient = False\n\n"),
         ("integer tensors cannot require gradients: stop_gradient=False on the int32 x "
          "raises TypeError (Paddle accepts it, then gcd_ raises ValueError for a leaf)")),
    ],
    "test_pylayer_op": [
        ("TestPyLayer.test_pylayer_Exception_bk",
         "        with self.assertRaises(OSError):\n            z = z[0] + z[1]\n",
         "        with self.assertRaises(NotImplementedError):\n            z = z[0] + z[1]\n",
         ("an exception in a PyLayer's backward keeps its type (a missing backward: "
          "NotImplementedError); Paddle turns it into OSError")),
        ("TestPyLayer.test_pylayer_dtype",
         "            self.assertIsNotNone(input1.grad)\n",
         ("            self.assertEqual(input1.grad is None,\n"
          "                             dtype in ('bool', 'uint8', 'int32', 'int64'))\n"),
         ("int and bool PyLayer outputs get no gradient path, so x gets no gradient "
          "(Paddle gives the float32 x a bool or int gradient)")),
    ],
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


def run_file(python: str, test_dir: str, name: str, path_extra: list[str],
             first_dir: str | None = None) -> dict:
    """Run test file `name` (first_dir's copy when given, test_dir's otherwise)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(path_extra + [test_dir])
    run_dir = first_dir or test_dir
    proc = subprocess.run([python, "-c", RUN_ONE, name, run_dir], capture_output=True,
                          text=True, env=env, cwd=run_dir, timeout=900)
    for line in proc.stdout.splitlines():
        if line.startswith("@@RESULT@@"):
            return json.loads(line[len("@@RESULT@@"):])
    return {"<import>": ["fail", (proc.stderr.strip().splitlines() or ["?"])[-1][:300]]}


def write_patched(test_dir: str, files: list[str], out_dir: str) -> tuple[dict, list]:
    """Copies of the test files with DELIBERATE patches into out_dir. Returns
    {file: [(test, why)]} for the patches applied and [(file, test, why)] for stale ones."""
    applied: dict = {}
    stale = []
    for name, patches in DELIBERATE.items():
        if name not in files:
            continue
        with open(os.path.join(test_dir, name + ".py"), encoding="utf-8") as f:
            text = f.read()
        for test, old, new, why in patches:
            if text.count(old) != 1:
                stale.append((name, test, why))
                continue
            text = text.replace(old, new)
            applied.setdefault(name, []).append((test, why))
        if name in applied:
            with open(os.path.join(out_dir, name + ".py"), "w", encoding="utf-8") as f:
                f.write(text)
    return applied, stale


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
    patched_dir = os.path.join(shim_dir, "patched")
    os.makedirs(patched_dir)
    patched, stale = write_patched(test_dir, files, patched_dir)
    total_app = total_pass = 0
    failures = []
    for name in files:
        ref = run_file(args.paddle_python, test_dir, name, [])
        mine = run_file(args.python, test_dir, name, [shim_dir, os.path.abspath(args.src)],
                        patched_dir if name in patched else None)
        app = [k for k, (st, _) in ref.items()
               if st == "pass" and f"{name}:{k}" not in NOT_APPLICABLE]
        ok = [k for k in app if mine.get(k, ["missing"])[0] == "pass"]
        total_app += len(app)
        total_pass += len(ok)
        skipped = len(ref) - len(app)
        n_patched = len(patched.get(name, []))
        print(f"{name:40s} {len(ok):3d} / {len(app):3d} applicable"
              + (f"  ({skipped} not applicable)" if skipped else "")
              + (f"  ({n_patched} checked against jitgrad's documented difference)"
                 if n_patched else ""))
        for k in app:
            if k not in ok:
                failures.append((name, k, mine.get(k, ["missing", "not run"])[1]))
    print(f"{'total':40s} {total_pass:3d} / {total_app:3d}")
    for name, test, why in stale:
        print(f"  STALE patch {name}:{test} (its text is not in the file once; ran unpatched)"
              f"\n       {why}")
    if args.v:
        for name, k, err in failures:
            print(f"  FAIL {name}:{k}\n       {err}")
        for name, tests in sorted(patched.items()):
            for test, why in tests:
                print(f"  DELIBERATE {name}:{test}\n       {why}")


if __name__ == "__main__":
    main()
