"""Gradient tests generated from the op registry.

Every differentiable op, every case in its entry: float64 gradients against central finite
differences through the compiled interpreter, the numpy reference interpreter and the eager
rules; float32 gradients of the three paths against each other.
"""

import numpy as np
import pytest

from jitgrad.ops import REGISTRY
from jitgrad.ops.core import apply
from jitgrad.testing import check_grads, gradients

CASES = [(name, i) for name, op in sorted(REGISTRY.items()) if op.differentiable
         for i in range(len(op.cases))]


def _inputs(op, case, dtype, seed=0):
    rng = np.random.default_rng(seed)
    lo, hi = op.domain
    if "values" in case:
        return [np.asarray(v, dtype) for v in case["values"]]
    return [rng.uniform(lo, hi, size=s).astype(dtype) for s in case["shapes"]]


def _fn(op, case):
    attrs = case.get("attrs", {})
    return lambda *xs: apply(op, *xs, **attrs)


@pytest.mark.parametrize("name, i", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_gradient_matches_finite_differences_float64(name, i):
    op = REGISTRY[name]
    case = op.cases[i]
    check_grads(_fn(op, case), *_inputs(op, case, np.float64))


@pytest.mark.parametrize("name, i", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_float32_paths_agree(name, i):
    op = REGISTRY[name]
    case = op.cases[i]
    xs = _inputs(op, case, np.float32)
    f = _fn(op, case)
    out = f(*[np.asarray(x) for x in xs]) if False else None
    from jitgrad.core.tensor import Tensor
    out_shape = apply(op, *[Tensor._make(x) for x in xs], **case.get("attrs", {})).shape
    seed = np.random.default_rng(1).standard_normal(out_shape).astype(np.float32)
    ref = gradients(f, xs, seed, "reference")
    for path in ("numba", "eager"):
        for got, want in zip(gradients(f, xs, seed, path), ref):
            assert got.dtype == want.dtype == np.float32 or name == "cast"
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)


def _case_shapes(op):
    return [tuple(tuple(s) for s in c["shapes"]) for c in op.cases]


def test_every_op_is_tested_on_0d_and_broadcasting_shapes():
    """0-d inputs unless the op needs min_ndim dims; ops on the default (elementwise) case
    lists also get (1, n), (n, 1) and a 3-D (broadcasting, for binary ops) case."""
    from jitgrad.ops.registry import BINARY_CASES, UNARY_CASES
    for name, op in REGISTRY.items():
        if not op.differentiable:
            continue
        shapes = _case_shapes(op)
        if not op.extra.get("min_ndim"):
            assert any(any(len(s) == 0 for s in case) for case in shapes), \
                f"{name} has no 0-d case (declare min_ndim if it cannot take one)"
        default = UNARY_CASES if op.nin == 1 else BINARY_CASES
        if all(case in default for case in shapes) and len(shapes) >= len(default) - 1:
            flat = [s for case in shapes for s in case]
            assert any(len(s) == 2 and s[0] == 1 and s[1] > 1 for s in flat), name
            assert any(len(s) == 2 and s[1] == 1 and s[0] > 1 for s in flat), name
            assert any(len(s) == 3 for s in flat), name


@pytest.mark.parametrize("name, i", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_float32_stays_float32_forward(name, i):
    from jitgrad.core.tensor import Tensor
    op = REGISTRY[name]
    case = op.cases[i]
    out = apply(op, *[Tensor._make(x) for x in _inputs(op, case, np.float32)],
                **case.get("attrs", {}))
    assert out._data.dtype == (np.float64 if name == "cast" else np.float32), name


def test_every_registry_entry_is_complete():
    for name, op in REGISTRY.items():
        assert callable(op.forward), name
        if op.differentiable:
            assert callable(op.vjp) and callable(op.lower), name
            assert op.cases, f"{name} has no test cases"
            lo, hi = op.domain
            assert lo < hi, name
