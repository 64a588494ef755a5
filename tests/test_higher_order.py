"""create_graph=True and higher-order gradients (PADDLE_SEMANTICS.md G, M.63-64)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops import REGISTRY
from jitgrad.ops.core import apply
from jitgrad.core.tensor import Tensor

TT = paddle.to_tensor


def leaf(values, dtype="float32"):
    return TT(values, dtype=dtype, stop_gradient=False)


def test_cube_first_second_third_derivatives():
    x = leaf([1.0, 2.0, 3.0])
    d1 = paddle.grad(x ** 3, x, create_graph=True)[0]
    d2 = paddle.grad(d1, x, create_graph=True)[0]
    d3 = paddle.grad(d2, x, create_graph=True)[0]
    assert d1.tolist() == [3.0, 12.0, 27.0]
    assert d2.tolist() == [6.0, 12.0, 18.0]
    assert d3.tolist() == [6.0, 6.0, 6.0]
    for d in (d1, d2):
        assert d.stop_gradient is False and not d.is_leaf
    assert d3.stop_gradient is False            # a constant here, but still marked


def test_backward_through_a_first_derivative_accumulates_into_leaf_grads():
    x = leaf([1.0, 2.0, 3.0])
    d1 = paddle.grad(x ** 3, x, create_graph=True)[0]
    paddle.sum(d1 * d1).backward()                # d/dx (3x^2)^2 = 36 x^3
    assert x.grad.tolist() == [36.0, 288.0, 972.0]


def test_linear_function_second_derivative_is_unreachable():
    x = leaf([1.0, 2.0])
    d1 = paddle.grad(x * 3.0, x, create_graph=True)[0]
    assert d1.stop_gradient is False
    assert d1.tolist() == [3.0, 3.0]
    assert paddle.grad(d1, x, allow_unused=True) == [None]
    with pytest.raises(ValueError, match="0-th input"):
        paddle.grad(d1, x)


def test_softmax_has_a_double_grad():
    # Paddle's CPU build raises "The Op softmax_grad doesn't have any grad op"; we do not.
    x = leaf([[0.1, 0.5, -0.3]], "float64")
    w = TT([[1.0, -2.0, 0.5]], dtype="float64")
    (g,) = paddle.grad(paddle.sum(paddle.softmax(x, axis=1) * w), x, create_graph=True)
    (h,) = paddle.grad(paddle.sum(g * g), x)
    # closed form: g = s * (w - <s, w>); differentiate sum(g^2) by central differences
    def gnorm(xv):
        s = np.exp(xv) / np.exp(xv).sum()
        gg = s * (w.numpy() - (s * w.numpy()).sum())
        return (gg * gg).sum()
    eps, xv = 1e-6, x.numpy()
    num = [(gnorm(xv + eps * e) - gnorm(xv - eps * e)) / (2 * eps)
           for e in np.eye(3).reshape(3, 1, 3)]
    np.testing.assert_allclose(h.numpy().ravel(), num, rtol=1e-6)


def test_backward_create_graph_makes_leaf_grad_differentiable():
    x = leaf([1.0, 2.0, 3.0])
    (x ** 3).sum().backward(create_graph=True)
    gx = x.grad
    assert gx.tolist() == [3.0, 12.0, 27.0]
    assert gx.stop_gradient is False and not gx.is_leaf
    assert paddle.grad(gx, x)[0].tolist() == [6.0, 12.0, 18.0]


def test_autograd_backward_create_graph_accumulates_and_keeps_the_graph():
    x = leaf([2.0])
    y = x * x
    paddle.autograd.backward(y, create_graph=True)      # retain_graph defaults to True
    paddle.autograd.backward(y, create_graph=True)
    assert x.grad.tolist() == [8.0]
    assert paddle.grad(x.grad, x)[0].tolist() == [4.0]


def test_create_graph_grad_does_not_bleed_into_later_compiled_accumulation():
    x = leaf([1.0, 2.0])
    (x ** 3).sum().backward(create_graph=True)
    d = x.grad
    (x * 1.0).sum().backward()                        # plain accumulation on top
    assert x.grad.tolist() == [4.0, 13.0]
    assert d.tolist() == [3.0, 12.0]                  # the recorded tensor kept its values
    assert paddle.grad(d, x)[0].tolist() == [6.0, 12.0]


def test_differentiable_seed_is_part_of_the_graph():
    x = leaf([1.0, 2.0])
    s = leaf([3.0, 4.0])
    (g,) = paddle.grad(x * x, x, grad_outputs=s, create_graph=True)   # g = 2 x s
    assert paddle.grad(g.sum(), s)[0].tolist() == [2.0, 4.0]


def test_mixed_partials_of_a_product():
    x, y = leaf([2.0]), leaf([5.0])
    (gx,) = paddle.grad(x * x * y, x, create_graph=True)             # 2 x y
    gxy, gxx = paddle.grad(gx, [y, x])
    assert gxy.tolist() == [4.0] and gxx.tolist() == [10.0]


# ---- the eager (create_graph) and compiled paths agree for every registry op ----------

CASES = [(name, i) for name, op in sorted(REGISTRY.items()) if op.differentiable
         for i in range(len(op.cases))]


@pytest.mark.parametrize("name, i", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_backward_create_graph_matches_compiled_backward(name, i):
    op = REGISTRY[name]
    case = op.cases[i]
    rng = np.random.default_rng(3)
    lo, hi = op.domain
    arrays = ([np.asarray(v, np.float64) for v in case["values"]] if "values" in case else
              [rng.uniform(lo, hi, size=s) for s in case["shapes"]])
    attrs = case.get("attrs", {})
    results = []
    for create_graph in (False, True):
        xs = [leaf(a, "float64") for a in arrays]
        out = apply(op, *xs, **attrs)
        seed = Tensor._make(np.random.default_rng(4).standard_normal(out._data.shape))
        paddle.autograd.backward(out, seed, create_graph=create_graph)
        results.append([None if x.grad is None else x.grad.numpy() for x in xs])
    for a, b in zip(*results):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
