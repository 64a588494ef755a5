"""The in-place forms added from the Paddle sweep (ops/__init__.py, nn.functional): each
gives its out-of-place op's values and gradients, bumps the version, and refuses a leaf that
needs a gradient while grad mode is on."""

import numpy as np
import pytest

import jitgrad as paddle
from backward_paths import PATHS, backward

F = paddle.nn.functional
TT = paddle.to_tensor
U = np.array([[0.3, -0.6, 0.45], [-0.2, 0.7, 0.1]], "float32")
POS = np.abs(U) + 0.5

# name, input, extra arguments, the out-of-place function
CASES = [
    ("acos_", U, (), paddle.acos), ("asinh_", U, (), paddle.asinh),
    ("tan_", U, (), paddle.tan), ("expm1_", U, (), paddle.expm1),
    ("log1p_", POS, (), paddle.log1p), ("lgamma_", POS, (), paddle.lgamma),
    ("digamma_", POS, (), paddle.digamma), ("erfinv_", U, (), paddle.erfinv),
    ("logit_", POS - 0.45, (), paddle.logit), ("cumsum_", U, (1,), paddle.cumsum),
    ("clamp_", U, (-0.2, 0.3), paddle.clamp), ("tril_", U, (), paddle.tril),
    ("renorm_", U, (2, 0, 0.5), paddle.renorm), ("sinc_", U, (), paddle.sinc),
]


# the in-place steps Paddle 3.3.1 counts for one call, where more than one
STEPS = {"sinc_": 4}


@pytest.mark.parametrize("name, x, args, fn", CASES, ids=[c[0] for c in CASES])
def test_inplace_method_matches_the_op_and_its_gradient(name, x, args, fn):
    a = TT(x, stop_gradient=False)
    y = a * 1.0
    version = y._version
    assert getattr(y, name)(*args) is y
    assert y._version == version + STEPS.get(name, 1)
    (y * y).sum().backward()
    b = TT(x, stop_gradient=False)
    want = fn(b * 1.0, *args)
    (want * want).sum().backward()
    np.testing.assert_allclose(y.numpy(), want.numpy(), rtol=1e-6)
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_inplace_on_a_leaf_that_needs_grad_is_refused():
    with pytest.raises(ValueError, match="no_grad"):
        TT(U, stop_gradient=False).acos_()
    with paddle.no_grad():
        leaf = TT(U, stop_gradient=False)
        leaf.expm1_()                      # allowed under no_grad, as optimizers do
    np.testing.assert_allclose(leaf.numpy(), np.expm1(U), rtol=1e-6)


def test_functional_inplace_activations():
    y = TT(U) * 1.0
    assert F.relu_(y) is y and y.tolist() == np.maximum(U, 0).tolist()
    z = TT(U) * 1.0
    F.softmax_(z, 0)
    np.testing.assert_allclose(z.numpy().sum(0), [1, 1, 1], rtol=1e-6)


def test_maxout_takes_runs_of_channels():
    x = TT(np.arange(16, dtype="float32").reshape(1, 4, 2, 2))
    assert F.maxout(x, 2).tolist() == [[[[4, 5], [6, 7]], [[12, 13], [14, 15]]]]  # Paddle 3.3.1
    assert F.maxout(TT(np.zeros((1, 2, 2, 6), "float32")), 3, axis=-1).shape == [1, 2, 2, 2]
    with pytest.raises(ValueError, match="divisor"):
        F.maxout(x, 3)


# ---- detach_, copy_ and .data (measured on Paddle 3.3.1) ------------------------------------

def test_detach_in_place_stops_later_ops_but_not_earlier_ones():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 3
    z = y * 2                                   # recorded before: still reaches x
    assert y.detach_() is y and y.stop_gradient
    assert (y * 5).stop_gradient                # recorded after: no edge to y
    z.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0] and y.grad is None


@pytest.mark.parametrize("path", PATHS)
def test_detach_in_place_makes_a_leaf_of_its_own(path):
    # Paddle 3.3.1: is_leaf, inplace_version unchanged; turned back on, y is a new leaf and
    # x gets nothing through ops recorded after detach_
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 2
    y.detach_()
    assert y.is_leaf and y.stop_gradient and y.inplace_version == 0
    y.stop_gradient = False
    backward((y * y).sum(), path)
    assert x.grad is None and y.grad.tolist() == [4.0, 8.0]


@pytest.mark.parametrize("path", PATHS)
def test_ops_recorded_before_detach_in_place_still_read_its_values(path):
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 2
    z = y * y                                   # d(z)/dx = 8x: reads y's values
    d = y.detach()                              # shares y's version counter
    y.detach_()
    w = d * x                                   # d's version unchanged: allowed
    backward(z.sum() + w.sum(), path)
    assert x.grad.tolist() == [10.0, 20.0] and d.inplace_version == 0


def test_grad_treats_a_detached_in_place_tensor_as_a_constant():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 2
    y.detach_()
    y.stop_gradient = False
    gx, gy = paddle.grad((y * y * x).sum(), [x, y])
    assert gx.tolist() == [4.0, 16.0] and gy.tolist() == [4.0, 16.0]    # Paddle 3.3.1


def test_a_value_change_after_detach_in_place_still_blocks_earlier_readers():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 2
    z = y * y
    y.detach_()
    y.scale_(2.0)                               # a value change: Paddle refuses too
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        z.sum().backward()
    assert y.inplace_version == 1


def test_detach_in_place_between_same_structure_steps_keeps_each_steps_gradient():
    for v in (1.0, 3.0):                       # the second step hits the program cache
        x = paddle.to_tensor([v, 2.0], stop_gradient=False)
        y = x * x
        z = y * 3.0
        y.detach_()
        ((y * x) + z).sum().backward()          # 6x + x^2 (y a constant after detach_)
        assert x.grad.tolist() == [6 * v + v * v, 16.0]


def test_copy_writes_values_and_records_nothing():
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    assert a.copy_(paddle.to_tensor([5.0, 6.0])) is a         # a leaf needing grad: allowed
    assert a.tolist() == [5.0, 6.0] and not a.stop_gradient
    src = paddle.to_tensor([5.0, 6.0], stop_gradient=False)
    c = a * 1
    c.copy_(src * 2)
    c.sum().backward()                          # c's graph stays; src gets nothing
    assert src.grad is None and a.grad.tolist() == [1.0, 1.0]
    c.copy_(paddle.to_tensor(7.0))              # broadcast
    assert c.tolist() == [7.0, 7.0]


def test_copy_refuses_another_dtype_and_a_shape_that_does_not_broadcast():
    a = paddle.to_tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="astype\\('float32'\\)"):
        a.copy_(paddle.to_tensor([5, 6]))
    with pytest.raises(ValueError, match="does not broadcast"):
        a.copy_(paddle.to_tensor([1.0, 2.0, 3.0]))


def test_data_is_a_stop_gradient_view_whose_in_place_writes_reach_the_tensor():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    d = x.data
    assert d.stop_gradient and d is not x
    d[0] = 5.0
    assert x.tolist() == [5.0, 2.0]
    d.add_(paddle.to_tensor([1.0, 1.0]))
    assert x.tolist() == [6.0, 3.0] and d.tolist() == [6.0, 3.0]


def test_a_gradient_that_read_the_old_values_refuses_a_write_through_data():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    loss = (x * x).sum()
    x.data.add_(paddle.to_tensor([1.0, 1.0]))
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        loss.backward()


def test_assigning_data_replaces_values_shape_and_keeps_the_graph():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    x.data = paddle.to_tensor([7.0, 8.0, 9.0])
    assert x.tolist() == [7.0, 8.0, 9.0] and not x.stop_gradient
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = w * 2
    y.data = paddle.to_tensor([0.0, 0.0])
    assert y.tolist() == [0.0, 0.0]
    y.sum().backward()                          # the gradient reads no value: it runs
    assert w.grad.tolist() == [2.0, 2.0]


def test_assign_a_constant_into_a_leaf_that_needs_a_gradient_keeps_it_a_leaf():
    # a parameter's initial values or a weight copy (Paddle 3.3.1, measured)
    w = paddle.create_parameter([2], "float32",
                                default_initializer=paddle.nn.initializer.Constant(1.0))
    assert paddle.assign(paddle.to_tensor([4.0, 5.0]), output=w) is w
    assert w.tolist() == [4.0, 5.0] and w.is_leaf and not w.stop_gradient
    (w * w).sum().backward()
    assert w.grad.tolist() == [8.0, 10.0]
    y = paddle.to_tensor([0.0, 0.0], stop_gradient=False)
    paddle.assign(np.array([7.0, 8.0, 9.0], "float32"), output=y)     # it takes x's shape
    assert y.tolist() == [7.0, 8.0, 9.0] and y.is_leaf and not y.stop_gradient


def test_assign_a_tensor_that_needs_a_gradient_into_a_leaf_continues_its_graph():
    w = paddle.to_tensor([1.0, 1.0], stop_gradient=False)
    s = paddle.to_tensor([4.0, 5.0], stop_gradient=False)
    paddle.assign(s * 2, output=w)
    assert not w.is_leaf and not w.stop_gradient
    (w * w).sum().backward()
    assert s.grad.tolist() == [32.0, 40.0]        # d/ds (2 s)^2 = 8 s


def test_assign_into_a_leaf_a_recorded_op_saved_still_refuses_the_stale_backward():
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    v = w * w
    paddle.assign(paddle.to_tensor([4.0, 5.0]), output=w)
    with pytest.raises(RuntimeError, match="in-place"):
        v.sum().backward()
