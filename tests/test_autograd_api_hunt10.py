"""Autograd API details measured on Paddle 3.3.1 (hunt 10, /work/scratch/hunt10): grad_fn's
graph walk, Tensor._register_backward_hook, Tensor.grad_, set_grad_enabled's truth value,
incubate vjp/jvp tuples, empty Jacobian slices, ctx.saved_tensor() with nothing saved, and
a hook handle removed twice."""

import warnings

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor


def leaf(values, dtype="float32"):
    return TT(np.asarray(values, dtype), stop_gradient=False)


# ---- grad_fn ----------------------------------------------------------------------------------

def test_grad_fn_next_functions_walk_the_graph_as_paddle():
    # Paddle 3.3.1: AddGradNode ['ExpGradNode', 'GradNodeAccumulation'];
    # MultiplyGradNode ['GradNodeAccumulation', None]; GradNodeAccumulation [None]
    x, c = leaf([1.0, 2.0]), TT([3.0, 4.0])
    y = paddle.exp(x * c) + x
    assert y.grad_fn.name() == "AddGradNode"
    nf = y.grad_fn.next_functions
    assert [n.name() for n in nf] == ["ExpGradNode", "GradNodeAccumulation"]
    m = nf[0].next_functions[0]
    assert m.name() == "MultiplyGradNode"
    assert [None if n is None else n.name() for n in m.next_functions] == \
        ["GradNodeAccumulation", None]
    assert nf[1].next_functions == [None]
    # the accumulation node is x's own (Paddle: next_functions[1] == x.grad_fn is True)
    assert nf[1] == x.grad_fn and m.next_functions[0] == x.grad_fn
    assert len({x.grad_fn, nf[1]}) == 1 and nf[0] != nf[1]


def test_grad_fn_of_leaves_and_constants():
    x = leaf([1.0])
    assert x.grad_fn.name() == "GradNodeAccumulation"        # Paddle 3.3.1
    assert x.detach().grad_fn is None                         # Paddle: None
    with paddle.no_grad():
        assert (x * 2).grad_fn is None                        # Paddle: None
    assert (TT([1.0]) * 2).grad_fn is None                    # Paddle: None
    p = paddle.create_parameter([2], "float32")
    assert p.grad_fn.name() == "GradNodeAccumulation"        # Paddle 3.3.1


def test_grad_fn_of_a_pylayer_is_named_as_paddle():
    class Twice(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, dy):
            return dy * 2

    x = leaf([1.0, 2.0])
    y = Twice.apply(x)
    # Paddle 3.3.1: GradNodePyLayer_Twice ['GradNodeAccumulation']
    assert y.grad_fn.name() == "GradNodePyLayer_Twice"
    assert [n.name() for n in y.grad_fn.next_functions] == ["GradNodeAccumulation"]
