"""In-place ops and autograd, against Paddle 3.3.1 (measured with /work/peers/bin/python; the
repro of each finding is in the hunt's notes): hooks on a tensor changed in place, and which
in-place changes of a recorded value a backward refuses."""

import contextlib

import numpy as np
import pytest

import jitgrad as paddle
from backward_paths import PATHS, backward, leaf


@pytest.mark.parametrize("path", PATHS)
def test_hook_registered_after_an_inplace_op_runs_on_the_new_values_gradient(path):
    # Paddle 3.3.1: y = x * 2; hook a; z = y * 3; y.add_(1); hook b; (y*y).sum() + z.sum():
    # b sees [6, 10, 14] (2 y_new), a sees b's 100x plus z's 3: [603, 1003, 1403];
    # x.grad [12060, 20060, 28060]. (Both hooks had run on the old value's gradient: a on
    # [9, 13, 17], then b; x.grad [18000, 26000, 34000].)
    x = leaf([1.0, 2.0, 3.0])
    y = x * 2
    calls = []
    y.register_hook(lambda g: calls.append(("a", g.numpy().tolist())) or g * 10)
    z = y * 3
    y.add_(paddle.to_tensor(1.0))
    y.register_hook(lambda g: calls.append(("b", g.numpy().tolist())) or g * 100)
    backward((y * y).sum() + z.sum(), path)
    assert calls == [("b", [6.0, 10.0, 14.0]), ("a", [603.0, 1003.0, 1403.0])]
    np.testing.assert_array_equal(x.grad.numpy(), [12060.0, 20060.0, 28060.0])


@pytest.mark.parametrize("path", PATHS)
def test_each_version_runs_its_own_hooks(path):
    # Paddle 3.3.1: hook on v0, add_, hook on v1, mul_(3), hook on v2, (y*y).sum(): the
    # hooks see [18, 30, 42] (v2), [540, 900, 1260] (v1), [5400, 9000, 12600] (v0)
    x = leaf([1.0, 2.0, 3.0])
    y = x * 2
    calls = []
    for step in ("hook", "add", "hook", "mul", "hook"):
        if step == "hook":
            y.register_hook(lambda g: calls.append(g.numpy().tolist()) or g * 10)
        elif step == "add":
            y.add_(paddle.to_tensor(1.0))
        else:
            y.mul_(paddle.to_tensor(3.0))
    backward((y * y).sum(), path)
    assert calls == [[18.0, 30.0, 42.0], [540.0, 900.0, 1260.0], [5400.0, 9000.0, 12600.0]]
    np.testing.assert_array_equal(x.grad.numpy(), [108000.0, 180000.0, 252000.0])


F = paddle.nn.functional

# Ops whose Paddle 3.3.1 backward keeps only their output (or only shapes), so that changing
# the input in place before the backward is allowed there and the gradient is that of the
# recorded values (measured: `y = x * 1; z = op(y); y.add_(0.25); z.sum().backward()` runs,
# rsqrt's x.grad [-0.85373, -0.43339, -0.19091] at x = [0.7, 1.1, 1.9], -x^-1.5 / 2). jitgrad
# raised "modified by an inplace operation" for each.
READS_OUTPUT_ONLY = {          # name: (op, x): the op is applied to y = x * 1 itself
    "expm1": (paddle.expm1, [0.7, 1.1, 1.9]),
    "rsqrt": (paddle.rsqrt, [0.7, 1.1, 1.9]),
    "reciprocal": (paddle.reciprocal, [0.7, 1.1, 1.9]),
    "erfinv": (paddle.erfinv, [0.3, -0.5, 0.8]),
    "relu6": (F.relu6, [-1.0, 3.0, 7.0]),
    "hardsigmoid": (F.hardsigmoid, [-4.0, 1.0, 2.5]),
    "selu": (F.selu, [-0.5, 0.3, 1.2]),
    "unfold": (lambda y: F.unfold(y, [1, 2]), [[[[0.7, 1.1, 1.9]]]]),
    "interpolate_linear": (lambda y: F.interpolate(y, scale_factor=2, mode="linear",
                                                   data_format="NCW"), [[[0.7, 1.1, 1.9]]]),
    "affine_grid": (lambda y: F.affine_grid(y, [1, 1, 2, 2]),
                    [[[0.7, 1.1, 1.9], [0.3, -0.5, 0.8]]]),
}


def _weighted_sum(z):
    return (z * paddle.arange(z.size, dtype=z.dtype).reshape(z.shape)).sum()


def _clean_gradient(name):
    op, values = READS_OUTPUT_ONLY[name]
    x = leaf(values)
    _weighted_sum(op(x * 1.0)).backward()
    return x.grad.numpy()


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("name", sorted(READS_OUTPUT_ONLY))
def test_input_changed_in_place_after_an_op_that_keeps_only_its_output(name, path):
    op, values = READS_OUTPUT_ONLY[name]
    x = leaf(values)
    y = x * 1.0
    z = op(y)
    y.add_(paddle.to_tensor(0.25))
    backward(_weighted_sum(z), path)
    np.testing.assert_allclose(x.grad.numpy(), _clean_gradient(name), rtol=1e-6)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("name", ["relu6", "hardsigmoid", "selu"])
def test_masks_are_read_from_the_output_when_the_input_was_written_without_a_graph(name, path):
    # (written under no_grad, y keeps its node and its new values: a rule still reading y
    # would take its mask from them)
    op, values = READS_OUTPUT_ONLY[name]
    x = leaf(values)
    y = x * 1.0
    z = op(y)
    with paddle.no_grad():
        y.add_(paddle.to_tensor(-5.0))
    backward(_weighted_sum(z), path)
    np.testing.assert_allclose(x.grad.numpy(), _clean_gradient(name), rtol=1e-6)


def test_elu_with_a_negative_alpha_still_refuses_a_changed_input():
    # (its slope is read from x there)
    x = leaf([-0.7, 1.1, -1.9])
    y = x * 1.0
    z = F.elu(y, alpha=-0.5)
    y.add_(paddle.to_tensor(0.25))
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        z.sum().backward()


def test_data_view_written_with_a_value_that_needs_a_gradient_changes_its_tensor():
    # Paddle 3.3.1: w.grad has stop_gradient=False, so lr * w.grad needs a gradient and
    # w.data.subtract_(...) is recorded; w still takes the values: [0.8, 1.6, 2.4], its
    # gradient [2, 4, 6] kept (w stayed [1, 2, 3] here: a training step that did nothing)
    w = leaf([1.0, 2.0, 3.0])
    (w * w).sum().backward()
    assert not (w.grad * 0.1).stop_gradient
    w.data.subtract_(w.grad * 0.1)
    np.testing.assert_allclose(w.numpy(), [0.8, 1.6, 2.4], rtol=1e-6)
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 4.0, 6.0])
    assert w.is_leaf and not w.stop_gradient


def test_data_view_setitem_with_a_value_that_needs_a_gradient_changes_its_tensor():
    # Paddle 3.3.1: buf [1, 2, 3] (a constant), buf.data[0] = v * 10 with v needing a
    # gradient: buf [5, 2, 3]
    buf = paddle.to_tensor([1.0, 2.0, 3.0])
    v = leaf([0.5])
    buf.data[0] = v[0] * 10
    np.testing.assert_array_equal(buf.numpy(), [5.0, 2.0, 3.0])
    assert buf.stop_gradient


# Ops that are composites in Paddle 3.3.1 keeping neither x nor their output (sinc, var,
# std, glu, pairwise_distance, cross entropy's softmax) or a value of their own (huber_loss
# its residual): `y = x * 1; z = op(y); y.add_(0.25)` (or under no_grad) and the backward
# runs there with the recorded values, e.g. smooth_l1_loss's x.grad [[0, 1, 2], [0.9, -4, 5]]
# at x [[0.7, 1.1, 1.9], [0.4, -1.3, 0.9]] against W below. jitgrad's one op each raised.
_W = [[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]]
COMPOSITES_IN_PADDLE = {
    "sinc": paddle.sinc,
    "var": lambda y: paddle.var(y, axis=1),
    "std": paddle.std,
    "glu": lambda y: F.glu(y, axis=0),
    "pairwise_distance": lambda y: F.pairwise_distance(y, paddle.to_tensor(_W)),
    "smooth_l1_loss": lambda y: F.smooth_l1_loss(y, paddle.to_tensor(_W), reduction="none"),
    "cross_entropy": lambda y: F.cross_entropy(y, paddle.to_tensor([[0], [2]]),
                                               reduction="none"),
    "cross_entropy_soft": lambda y: F.cross_entropy(y, F.softmax(paddle.to_tensor(_W)),
                                                    soft_label=True, reduction="none"),
}
_X = [[0.7, 1.1, 1.9], [0.4, -1.3, 0.9]]


def _composite_clean_gradient(op):
    x = leaf(_X)
    _weighted_sum(op(x * 1.0) + 0.0).backward()
    return x.grad.numpy()


def _gradient_after_a_write(op, path, under_no_grad):
    """x's gradient through op(x * 1) with that input changed in place (under no_grad or
    recorded) after the op and before the backward."""
    x = leaf(_X)
    y = x * 1.0
    z = op(y)
    with paddle.no_grad() if under_no_grad else contextlib.nullcontext():
        y.add_(paddle.to_tensor(0.25))
    backward(_weighted_sum(z + 0.0), path)
    return x.grad.numpy()


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("name", sorted(COMPOSITES_IN_PADDLE))
def test_input_changed_in_place_after_an_op_paddle_builds_as_a_composite(name, path):
    op = COMPOSITES_IN_PADDLE[name]
    np.testing.assert_allclose(_gradient_after_a_write(op, path, False),
                               _composite_clean_gradient(op), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("path", ["numba", "reference", "interpret"])
@pytest.mark.parametrize("name", sorted(COMPOSITES_IN_PADDLE))
def test_input_written_under_no_grad_after_such_an_op(name, path):
    op = COMPOSITES_IN_PADDLE[name]
    np.testing.assert_allclose(_gradient_after_a_write(op, path, True),
                               _composite_clean_gradient(op), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", sorted(COMPOSITES_IN_PADDLE))
def test_create_graph_refuses_an_input_written_without_a_graph_after_such_an_op(name):
    # (the Tensor rule reads y, which holds its new values: kept difference, Paddle's
    # composites differentiate the values they kept)
    op = COMPOSITES_IN_PADDLE[name]
    x = leaf(_X)
    y = x * 1.0
    z = op(y)
    with paddle.no_grad():
        y.add_(paddle.to_tensor(0.25))
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        paddle.grad(_weighted_sum(z + 0.0), x, create_graph=True)


@pytest.mark.parametrize("inplace", [False, True])
def test_index_fill_with_a_0d_tensor_value_gives_it_the_filled_positions_gradient(inplace):
    # Paddle 3.3.1: x [0.5, 1, 1.5, 2], fill [0, 2] with v = 3, weights [1, 2, 3, 4]:
    # out [3, 1, 3, 2], x.grad [0, 2, 0, 4], v.grad 4 (1 + 3); v got None here
    x = leaf([0.5, 1.0, 1.5, 2.0])
    v = paddle.to_tensor(3.0, stop_gradient=False)
    y = x * 1.0
    index = paddle.to_tensor([0, 2])
    out = y.index_fill_(index, 0, v) if inplace else paddle.index_fill(y, index, 0, v)
    (out * paddle.to_tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    np.testing.assert_array_equal(out.numpy(), [3.0, 1.0, 3.0, 2.0])
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 2.0, 0.0, 4.0])
    assert v.grad is not None and float(v.grad) == 4.0


def test_index_fill_refuses_a_value_that_is_not_0d():
    # Paddle 3.3.1: ValueError "value must be scalar or 0-D tensor" for shape [1]
    with pytest.raises(ValueError, match="0-D tensor"):
        paddle.index_fill(paddle.ones([4]), paddle.to_tensor([0]), 0, paddle.to_tensor([2.0]))


@pytest.mark.parametrize("fill", ["uniform_", "normal_", "exponential_", "bernoulli_",
                                  "cauchy_", "geometric_", "log_normal_"])
def test_random_fill_of_a_data_view_changes_its_tensor(fill):
    # Paddle 3.3.1: w.data.uniform_(...) (the usual initialisation idiom) and the other
    # random fills change w: w equals w.data after; w had kept [1, 2, 3]
    args = {"geometric_": (0.5,)}.get(fill, ())
    paddle.seed(7)
    w = leaf([1.0, 2.0, 3.0])
    d = w.data
    getattr(d, fill)(*args)
    np.testing.assert_array_equal(w.numpy(), d.numpy())
    assert not np.array_equal(w.numpy(), [1.0, 2.0, 3.0])
    assert w.is_leaf and not w.stop_gradient


def test_cast_and_reshape_of_a_data_view_change_its_tensor():
    # Paddle 3.3.1: w.data.cast_('float64') makes w float64; w.data.reshape_([1, 3]) gives
    # w shape [1, 3] (w.data shares w's storage)
    w = leaf([1.0, 2.0, 3.0])
    w.data.cast_("float64")
    assert w.dtype == paddle.float64
    v = leaf([1.0, 2.0, 3.0])
    v.data.reshape_([1, 3])
    assert v.shape == [1, 3]
    np.testing.assert_array_equal(v.numpy(), [[1.0, 2.0, 3.0]])


@pytest.mark.parametrize("fill", ["uniform_", "normal_", "bernoulli_"])
def test_random_fill_of_a_grad_under_no_grad_changes_the_gradient(fill):
    # Paddle 3.3.1: with no_grad(): w.grad.uniform_() changes w.grad (the next backward adds
    # to the new values); w.grad had kept [2, 4, 6]
    paddle.seed(3)
    w = leaf([1.0, 2.0, 3.0])
    (w * w).sum().backward()
    g = w.grad
    with paddle.no_grad():
        getattr(g, fill)()
    filled = g.numpy().copy()
    np.testing.assert_array_equal(w.grad.numpy(), filled)
    assert not np.array_equal(filled, [2.0, 4.0, 6.0])
    (w * w).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), filled + [2.0, 4.0, 6.0], rtol=1e-6)


def test_optimizer_step_between_two_backwards_of_a_linear_on_a_constant_input():
    # Paddle 3.3.1: weight [[0.5], [-0.25]], bias [0.1], x [[1, 2]], loss = lin(x)^2;
    # backward(retain_graph=True), SGD step, backward again: weight.grad [[0.4], [0.8]]
    # (twice x^T * 2 * 0.1: the weight's gradient reads x, not the weight; jitgrad raised)
    lin = paddle.nn.Linear(2, 1)
    lin.weight.set_value(np.array([[0.5], [-0.25]], "float32"))
    lin.bias.set_value(np.array([0.1], "float32"))
    opt = paddle.optimizer.SGD(0.1, parameters=lin.parameters())
    loss = lin(paddle.to_tensor([[1.0, 2.0]])).square().sum()
    loss.backward(retain_graph=True)
    opt.step()
    loss.backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), [[0.4], [0.8]], rtol=1e-6)


def test_sinc_inplace_counts_paddles_four_steps():
    # Paddle 3.3.1: x.sinc_() and paddle.sinc_(x) leave x.inplace_version at 4 (its sinc_ is
    # a composite of in-place steps); here it counted 1. x holds sinc(x) in both.
    x = paddle.to_tensor([0.5, 1.5])
    assert x.sinc_() is x
    assert x.inplace_version == 4
    np.testing.assert_allclose(x.numpy(), [0.63661977, -0.21220659], rtol=1e-6)
    y = paddle.to_tensor([0.0, 2.0])
    paddle.sinc_(y)
    assert y.inplace_version == 4


@pytest.mark.parametrize("inplace", [False, True])
def test_put_along_axis_refuses_values_wider_than_the_indices(inplace):
    # Paddle 3.3.1: indices [[1], [1]], values [[10, 20], [30, 40]] along axis 1 raise
    # ValueError (values broadcast to the indices' shape [2, 1]); here the indices were
    # spread to the values' shape and both values landed on column 1
    y = paddle.to_tensor(np.arange(6, dtype="float32").reshape([2, 3]))
    index = paddle.to_tensor([[1], [1]])
    values = paddle.to_tensor([[10.0, 20.0], [30.0, 40.0]])
    with pytest.raises(ValueError, match="broadcast"):
        if inplace:
            y.put_along_axis_(index, values, 1, reduce="add")
        else:
            paddle.put_along_axis(y, index, values, 1)
    # (a scalar, or values of the indices' shape, as before)
    out = paddle.put_along_axis(y, paddle.to_tensor([[1], [0]]), 5.0, 1)
    np.testing.assert_array_equal(out.numpy(), [[0.0, 5.0, 2.0], [5.0, 4.0, 5.0]])


@pytest.mark.parametrize("fill", ["uniform_", "normal_", "exponential_", "bernoulli_",
                                  "geometric_", "cauchy_", "log_normal_", "random_"])
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_random_float_fills_refuse_integer_and_bool_tensors(fill, dtype):
    # Paddle 3.3.1 has no kernel for them (RuntimeError 'kernel ... int64 ... not
    # registered'; geometric_ ValueError); here the samples were truncated: uniform_ filled
    # an int64 tensor with zeros. random_ fills integers, not bools.
    if fill == "random_" and dtype != "bool":
        x = paddle.to_tensor(np.zeros(3, dtype))
        x.random_(0, 5)
        assert x.dtype == paddle.int64 and ((x.numpy() >= 0) & (x.numpy() < 5)).all()
        return
    x = paddle.to_tensor(np.array([1, 2, 3]).astype(dtype))
    args = (0.5,) if fill == "geometric_" else ()
    with pytest.raises(TypeError, match="fills"):
        getattr(x, fill)(*args)


def test_hand_written_sgd_with_stop_gradient_toggled_keeps_training():
    # w.grad needs a gradient (Paddle), so w.subtract_(lr * w.grad) is recorded and w turns
    # into a non-leaf; its .grad kept the cleared zeros and the loss stalled at 35.645 from
    # step 1 on. Paddle 3.3.1: step 1's w.grad [14.76, 43.52], then SystemError at step 2.
    w = paddle.to_tensor(np.array([1.0, 2.0], "float32"), stop_gradient=False)
    x = paddle.to_tensor(np.array([3.0, 4.0], "float32"))
    wn, xn = np.array([1.0, 2.0], "float32"), np.array([3.0, 4.0], "float32")
    for _ in range(4):
        ((w * x) ** 2).sum().backward()
        gn = 2 * wn * xn * xn
        np.testing.assert_array_equal(w.grad.numpy(), gn)
        w.stop_gradient = True
        w.subtract_(0.01 * w.grad)
        w.stop_gradient = False
        w.clear_grad()
        wn = wn - np.float32(0.01) * gn
    np.testing.assert_array_equal(w.numpy(), wn)
