"""Second-order gradients of every registry op, against finite differences (float64).

For each op and case: the first-order backward is recorded with create_graph=True, and its
gradient, run through the compiled interpreter, the reference interpreter and the eager
rules, must match central differences of the (compiled) first-order gradients.

Two kinds of case are checked at first order only (test_op_gradients.py): cases whose
explicit `values` sit where the first derivative jumps (ties of max/min: no finite
difference exists there; found numerically by `_first_derivative_jumps`), and cases marked
`"order": 1` in their registry entry (a documented limitation of that op's rule).
"""

import numpy as np
import pytest

from jitgrad.ops import REGISTRY
from jitgrad.ops.core import apply
from jitgrad.tape import no_grad
from jitgrad.tensor import Tensor
from jitgrad.testing import check_grads, first_order


def _inputs(op, case, seed=0):
    if "values" in case:
        return [np.asarray(v, np.float64) for v in case["values"]]
    rng = np.random.default_rng(seed)
    lo, hi = op.domain
    return [rng.uniform(lo, hi, size=s) for s in case["shapes"]]


def _first_derivative_jumps(op, case, delta=1e-3):
    """Does a directional first derivative step by O(1) next to the case's values?

    Smooth: consecutive steps h(x+d) - h(x) and h(x+2d) - h(x+d) differ by O(delta^2).
    At a tie they differ by the size of the jump.
    """
    xs = _inputs(op, case)
    rng = np.random.default_rng(7)
    attrs = case.get("attrs", {})
    f = lambda *ts: apply(op, *ts, **attrs)                            # noqa: E731
    with no_grad():
        out_shape = f(*[Tensor._make(x) for x in xs])._data.shape
    h = first_order(f, rng.standard_normal(out_shape), [rng.standard_normal(x.shape) for x in xs],
                    create_graph=True)
    w = [rng.standard_normal(x.shape) for x in xs]
    at = lambda t: float(h(*[Tensor._make(x + t * d) for x, d in zip(xs, w)])._data)  # noqa
    for sign in (1.0, -1.0):
        h0, h1, h2 = at(0.0), at(sign * delta), at(2 * sign * delta)
        if abs((h1 - h0) - (h2 - h1)) > 1e-4 + 0.1 * (abs(h1 - h0) + abs(h2 - h1)):
            return True
    return False


def _first_order_only(op, case):
    if case.get("order", 2) < 2:
        return True
    return "values" in case and _first_derivative_jumps(op, case)


CASES = [(name, i) for name, op in sorted(REGISTRY.items()) if op.differentiable
         for i, case in enumerate(op.cases) if not _first_order_only(op, case)]


@pytest.mark.parametrize("name, i", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_second_order_matches_finite_differences(name, i):
    op = REGISTRY[name]
    case = op.cases[i]
    attrs = case.get("attrs", {})
    check_grads(lambda *xs: apply(op, *xs, **attrs), *_inputs(op, case), order=2,
                rtol=1e-4, atol=1e-6)


def test_tie_cases_are_recognised_as_jumps():
    (tie,) = [c for c in REGISTRY["max"].cases if "values" in c]
    assert _first_derivative_jumps(REGISTRY["max"], tie)
    smooth = {"shapes": ((3,),), "values": [[0.1, 0.1, -2.0]]}
    assert not _first_derivative_jumps(REGISTRY["tanh"], smooth)


def test_every_op_is_covered_at_second_order():
    covered = {name for name, _ in CASES}
    assert covered == {n for n, op in REGISTRY.items() if op.differentiable}
