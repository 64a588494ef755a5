"""The engine knows no particular op. Two ops defined here, outside the registry, go through
the production backward (lowered to a Program, cached by structure, replayed when
retained) and the eager create_graph path, with closed-form gradients."""

import numpy as np

import jitgrad as paddle
from jitgrad.ops.core import apply
from jitgrad.ops.registry import REGISTRY, OpDef

# cube(x) = x ** 3, saving 3 x^2 for the compiled backward
CUBE = OpDef("engine_test_cube", forward=lambda x: x * x * x,
             vjp=lambda g, out, x: (g * x * x * 3.0,),
             lower=lambda b, node, g, gins: b.mul(gins[0], node.out_data.shape, g,
                                                  node.saved[0]),
             nin=1, save=lambda out, x: (3.0 * x * x,))

# axpy(x, y, k) = k x + y
AXPY = OpDef("engine_test_axpy", forward=lambda x, y, k: k * x + y,
             vjp=lambda g, out, x, y, k: (g * k, g),
             lower=lambda b, node, g, gins: (
                 gins[0] is not None and b.contribute(gins[0], node.out_data.shape, "AXPY", g,
                                                      k=node.attrs["k"]),
                 gins[1] is not None and b.contribute(gins[1], node.out_data.shape, "AXPY", g)),
             nin=2)


def _loss(x):
    return apply(AXPY, apply(CUBE, x), x, k=2.0).sum()


def _leaf(values):
    return paddle.to_tensor(np.array(values, "float64"), stop_gradient=False)


def test_ops_outside_the_registry_are_not_in_it():
    assert CUBE.name not in REGISTRY and AXPY.name not in REGISTRY


def test_a_fresh_graph_then_a_cache_hit_give_the_closed_form():
    paddle.cache_clear()
    for values in ([1.0, -2.0, 0.5], [3.0, 0.25, -1.0], [0.0, 4.0, -0.5]):
        x = _leaf(values)
        _loss(x).backward()
        np.testing.assert_array_equal(x.grad.numpy(), 6.0 * np.square(values) + 1.0)
    assert paddle.cache_info().hits >= 1        # the third graph reused a Program


def test_a_retained_graph_replays_and_accumulates():
    x = _leaf([1.0, 2.0])
    loss = _loss(x)
    loss.backward(retain_graph=True)
    loss.backward(retain_graph=True)
    np.testing.assert_array_equal(x.grad.numpy(), 2 * (6.0 * np.array([1.0, 4.0]) + 1.0))


def test_create_graph_differentiates_the_rule_again():
    x = _leaf([1.0, -2.0])
    (g,) = paddle.grad(_loss(x), x, create_graph=True)
    (h,) = paddle.grad(g.sum(), x)
    np.testing.assert_array_equal(h.numpy(), 12.0 * np.array([1.0, -2.0]))
