"""Each registry op's gradient is written once: derived from an elementwise derivative
(ops/derivative.py), a linear op's transpose (ops/linear.py) or a reduction's weights
(reduce.weighted_reduction); only a declared fused kernel writes a vjp and a lowering."""

import jitgrad  # noqa: F401  (registers the ops)
from jitgrad.ops.registry import REGISTRY

FORMS = ("deriv", "linear", "weights")


def _form(op):
    found = [f for f in FORMS if f in op.extra]
    if op.extra.get("fused"):
        found.append("fused")
    return found


def test_every_differentiable_op_has_exactly_one_gradient_form():
    wrong = {name: _form(op) for name, op in REGISTRY.items()
             if op.differentiable and len(_form(op)) != 1}
    assert wrong == {}


def test_fused_kernels_say_why():
    for name, op in REGISTRY.items():
        if "fused" in op.extra:
            assert isinstance(op.extra["fused"], str) and len(op.extra["fused"]) > 10, name
