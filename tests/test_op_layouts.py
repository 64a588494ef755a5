"""Every registry op on inputs whose arrays are not in C order (strided views as slices
give, Fortran order as transposes give) computes what it computes on C-ordered copies: the same values and the
same gradients. (Writes by flat position into a copy kept in x's layout once went to a
temporary: setitem on a transpose silently did nothing.)"""

import numpy as np
import pytest

from jitgrad.core.tensor import Tensor
from jitgrad.ops import REGISTRY
from jitgrad.ops.core import apply

CASES = [(name, i) for name, op in sorted(REGISTRY.items()) for i in range(len(op.cases))]


def _inputs(op, case):
    rng = np.random.default_rng(0)
    lo, hi = op.domain
    if "values" in case:
        return [np.asarray(v, np.float64) for v in case["values"]]
    return [rng.uniform(lo, hi, size=s) for s in case["shapes"]]


def _strided(x: np.ndarray) -> np.ndarray:
    """x's values in a view that is not C-contiguous (every other element of a wider
    array); a 0-d or empty array as it is."""
    if x.ndim == 0 or x.size == 0:
        return x
    wide = np.zeros(x.shape[:-1] + (2 * x.shape[-1],), x.dtype)
    wide[..., ::2] = x
    return wide[..., ::2]


def _transposed(x: np.ndarray) -> np.ndarray:
    """x's values in Fortran order (what a transpose's view looks like to numpy: copies
    made with order 'K' keep it); a strided view for fewer than 2 dims."""
    return np.asfortranarray(x) if x.ndim >= 2 else _strided(x)


LAYOUTS = {"strided": _strided, "transposed": _transposed}


def _gradients(op, attrs, arrays, seed):
    """d sum(op(*xs) * seed) / d xs through backward(), the leaves' arrays as given."""
    xs = [Tensor._make(a) for a in arrays]
    for x in xs:
        x.stop_gradient = False
    out = apply(op, *xs, **attrs)
    if out._node is None:
        return [None] * len(xs)
    (out * Tensor._make(seed.reshape(out._data.shape))).sum().backward()
    return [None if x.grad is None else x.grad.numpy() for x in xs]


# float64 throughout: a layout mistake moves values by far more than a reduction's order
TOL = dict(rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("name, i", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_op_on_other_layouts_matches_c_order(name, i, layout):
    op = REGISTRY[name]
    case = op.cases[i]
    attrs = case.get("attrs", {})
    xs = _inputs(op, case)
    views = [LAYOUTS[layout](x) for x in xs]
    want = apply(op, *[Tensor._make(x) for x in xs], **attrs)._data
    got = apply(op, *[Tensor._make(v) for v in views], **attrs)._data
    np.testing.assert_allclose(got, want, **TOL)
    if not op.differentiable:
        return
    seed = np.random.default_rng(1).standard_normal(want.shape)
    for g, w in zip(_gradients(op, attrs, views, seed), _gradients(op, attrs, xs, seed)):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_allclose(g, w, **TOL)
