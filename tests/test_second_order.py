"""Second-order gradients of every registry op, against finite differences (float64).

For each op and case: the first-order backward is recorded with create_graph=True, and its
gradient, run through the compiled interpreter, the reference interpreter and the eager
rules, must match central differences of the (compiled) first-order gradients. Cases with
explicit `values` sit on ties or kinks on purpose, where the first derivative jumps, so
they are checked at first order only (test_op_gradients.py), unless marked `smooth` (values
chosen for conditioning, as for the matrix ops).
"""

import numpy as np
import pytest

from jitgrad.ops import REGISTRY
from jitgrad.ops.core import apply
from jitgrad.testing import check_grads

CASES = [(name, i) for name, op in sorted(REGISTRY.items()) if op.differentiable
         for i, case in enumerate(op.cases) if "values" not in case or case.get("smooth")]


def _inputs(op, case, seed=0):
    rng = np.random.default_rng(seed)
    if "values" in case:
        return [np.asarray(v, dtype=np.float64) for v in case["values"]]
    lo, hi = op.domain
    return [rng.uniform(lo, hi, size=s) for s in case["shapes"]]


@pytest.mark.parametrize("name, i", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_second_order_matches_finite_differences(name, i):
    op = REGISTRY[name]
    case = op.cases[i]
    attrs = case.get("attrs", {})
    check_grads(lambda *xs: apply(op, *xs, **attrs), *_inputs(op, case), order=2,
                rtol=1e-4, atol=1e-6)


def test_every_op_is_covered_at_second_order():
    covered = {name for name, _ in CASES}
    assert covered == {n for n, op in REGISTRY.items() if op.differentiable}
