"""Gaps found by hunt 24 against Paddle 3.3.1 (measured with its CPU build; each test
quotes what Paddle gave)."""

import numpy as np
import pytest

import jitgrad as paddle


def TT(v, dtype=None, stop_gradient=True):
    return paddle.to_tensor(v, dtype=dtype, stop_gradient=stop_gradient)


# --- t * seq: Paddle 3.3.1's Tensor.__mul__ returns NotImplemented for a list, tuple or
# str, so Python repeats the sequence by t's __index__ (paddle.to_tensor(3) * [0] is
# [0, 0, 0], as [0] * paddle.to_tensor(3) is).

@pytest.mark.parametrize("seq", [[0], [1, 2], (1, 2), "ab"])
def test_a_0d_int_tensor_times_a_sequence_repeats_it(seq):
    assert TT(3) * seq == seq * 3
    assert TT(2, "int32") * seq == seq * 2
    assert TT(-1) * seq == seq[:0]


def test_mul_with_a_sequence_returns_not_implemented_as_paddle():
    assert TT(3).__mul__([1]) is NotImplemented


def test_a_tensor_of_several_elements_times_a_list_raises_type_error():
    with pytest.raises(TypeError, match="0-d integer tensors"):
        TT([1, 2]) * [0]
    with pytest.raises(TypeError):
        TT([1.0, 2.0]) * [2.0, 3.0]          # (Paddle: AssertionError, one element only)


@pytest.mark.parametrize("op", [lambda t: t + [1.0, 2.0], lambda t: t - [1.0, 2.0],
                                lambda t: t / [1.0, 2.0], lambda t: t < [1.0, 3.0],
                                lambda t: paddle.multiply(t, [1.0, 2.0])])
def test_other_ops_with_a_list_still_raise_type_error_as_paddle(op):
    with pytest.raises(TypeError):           # (Paddle: TypeError; multiply: ValueError)
        op(TT([1.0, 2.0]))


# --- transpose with three or more int axes. Paddle 3.3.1's transpose_decorator takes the
# first two as dim0 and dim1 and drops the rest: x.transpose(0, 2, 1) of shape [2, 3, 4]
# is swapaxes(0, 2), shape [4, 3, 2] (numpy and x.permute: [2, 4, 3]).

def _x234():
    return paddle.arange(24).reshape([2, 3, 4])


def test_transpose_of_several_axes_is_given_where_paddle_and_numpy_agree():
    x = _x234()
    got = x.transpose(1, 0, 2)                     # swap 0 and 1 = permutation [1, 0, 2]
    assert got.shape == [3, 2, 4]
    assert got.numpy().tolist() == np.arange(24).reshape(2, 3, 4).transpose(1, 0, 2).tolist()
    assert paddle.transpose(x, -2, -3, 2).shape == [3, 2, 4]


@pytest.mark.parametrize("axes", [(0, 2, 1), (2, 0, 1), (0, 1, 2), (0, 2, 5), (0, 1, 2, 3)])
def test_transpose_of_several_axes_where_the_readings_differ_names_both(axes):
    shown = ", ".join(map(str, axes))
    with pytest.raises(TypeError, match=rf"swaps axes {axes[0]} and {axes[1]}.*"
                                        rf"permute\({shown}\)"):
        _x234().transpose(*axes)
    with pytest.raises(TypeError, match="ignores the rest"):
        paddle.transpose(_x234(), *axes)


def test_transpose_of_two_axes_and_of_a_perm_list_are_unchanged():
    x = _x234()
    assert x.transpose(0, 2).shape == [4, 3, 2]
    assert x.transpose([0, 2, 1]).shape == [2, 4, 3]
    assert x.permute(0, 2, 1).shape == [2, 4, 3]


# --- gcd, lcm and ldexp of floats: Paddle 3.3.1 computes them (its gcd is a Euclid loop of
# mod and where, so a float gcd has a gradient; lcm is floor(|x y| / gcd), none).

def _gcd_inputs():
    return (TT([12.0, 18.0, -4.0, 0.0, 7.5, 3.0], stop_gradient=False),
            TT([8.0, 27.0, 6.0, 5.0, 2.5, 0.0], stop_gradient=False))


def test_gcd_of_floats_gives_paddles_values_and_gradients():
    x, y = _gcd_inputs()
    g = paddle.gcd(x, y)
    assert g.dtype == paddle.float32
    assert g.numpy().tolist() == [4.0, 9.0, 2.0, 5.0, 2.5, 3.0]
    (g * TT([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])).sum().backward()
    # 4 = 12 - 8, 9 = 27 - 18, 2 = 6 - |-4|, 5 = y, 2.5 = y, 3 = x (Paddle 3.3.1's grads)
    assert x.grad.numpy().tolist() == [1.0, -2.0, 3.0, 0.0, 0.0, 6.0]
    assert y.grad.numpy().tolist() == [-1.0, 2.0, 3.0, 4.0, 5.0, 0.0]


def test_gcd_of_floats_broadcasts_and_promotes_float64():
    assert paddle.gcd(TT(12.0), TT([8.0, 6.0])).numpy().tolist() == [4.0, 6.0]
    g = paddle.gcd(TT([12.0, 18.0]), TT([8.0, 27.0], "float64"))
    assert g.dtype == paddle.float64 and g.numpy().tolist() == [4.0, 9.0]
    # Paddle's float `y != 0` counts |y| < 1e-15 as 0, which ends its loop at once here
    assert paddle.gcd(TT([1e30]), TT([1e-30])).numpy().tolist() == [np.float32(1e30).item()]


def test_lcm_of_floats_is_floor_of_the_product_over_the_gcd_without_gradient():
    x, y = _gcd_inputs()
    m = paddle.lcm(x, y)
    assert m.numpy().tolist() == [24.0, 54.0, 12.0, 0.0, 7.0, 0.0]     # 18.75 // 2.5 = 7
    assert m.stop_gradient and m.dtype == paddle.float32


def test_gcd_inplace_of_floats_counts_paddles_versions():
    x = TT([12.0, 18.0, 7.5])
    x.gcd_(TT([8.0, 27.0, 2.5]))
    assert x.numpy().tolist() == [4.0, 9.0, 2.5] and x.inplace_version == 7   # (Paddle: 7)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_gcd_of_a_non_finite_float_raises_where_paddle_loops_forever(bad):
    with pytest.raises(ValueError, match="finite"):
        paddle.gcd(TT([bad, 2.0]), TT([2.0, 4.0]))


def test_gcd_of_an_int_and_a_float_tensor_raises_type_error_as_paddle():
    with pytest.raises(TypeError, match="two integer or two float"):
        paddle.gcd(TT([4, 6]), TT([2.0, 3.0]))


def test_ldexp_with_a_float_exponent_is_x_times_two_to_the_y_with_its_gradient():
    x = TT([12.0, 7.5], stop_gradient=False)
    y = TT([8.0, 2.5], stop_gradient=False)
    out = paddle.ldexp(x, y)
    assert out.dtype == paddle.float32
    want = np.float32([12 * 256.0, 7.5 * 2 ** 2.5])
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)   # Paddle: 3072, 42.426407
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [256.0, 2 ** 2.5], rtol=1e-6)
    np.testing.assert_allclose(y.grad.numpy(), want * np.log(2), rtol=1e-6)


def test_ldexp_dtype_is_float64_or_the_default_float_as_paddle():
    assert paddle.ldexp(TT([1.0, 2.0], "float16"), TT([1, 2])).dtype == paddle.float32
    out = paddle.ldexp(TT([1.0]), TT([1.5], "float64"))
    assert out.dtype == paddle.float64 and out.numpy().tolist() == [2 ** 1.5]
    out = paddle.ldexp(TT([3.0, 3.0]), TT([True, False]))
    assert out.dtype == paddle.float32 and out.numpy().tolist() == [6.0, 3.0]
    assert paddle.ldexp(TT([1, 2]), TT([1.5, 2.0])).dtype == paddle.float32


# --- reductions over an axis list: Paddle 3.3.1's count_nonzero takes a list (or []: all
# axes), and its linalg.norm with a numeric p over 0 or 3+ axes is the vector norm there.

X234 = np.arange(24, dtype="float32").reshape(2, 3, 4) - 5      # one zero, at [0, 1, 1]


@pytest.mark.parametrize("axis, keepdim, want", [
    ([0, 2], False, [8, 7, 8]), ([-1, -3], True, [[[8], [7], [8]]]), ((0, 1), False,
                                                                     [6, 5, 6, 6]),
    ([], False, 23), ([0, 1, 2], True, [[[23]]])])
def test_count_nonzero_takes_an_axis_list_as_paddle(axis, keepdim, want):
    got = paddle.count_nonzero(TT(X234), axis=axis, keepdim=keepdim)
    assert got.dtype == paddle.int64 and got.numpy().tolist() == want


@pytest.mark.parametrize("axis", [[], [0, 1, 2], [0, 2, 1], (0, 1, 2)])
@pytest.mark.parametrize("p, want", [(None, np.sqrt((X234 ** 2).sum())), (1, 186.0),
                                     (np.inf, 18.0), (3, np.cbrt((np.abs(X234) ** 3).sum()))])
def test_norm_over_no_or_three_axes_is_the_vector_norm_as_paddle(axis, p, want):
    got = paddle.linalg.norm(TT(X234), p=p, axis=axis, keepdim=True)
    assert got.shape == [1, 1, 1]
    np.testing.assert_allclose(got.numpy().ravel(), [want], rtol=1e-6)   # Paddle: 46.518814


def test_norm_over_three_axes_has_the_2_norm_gradient():
    x = TT(X234, stop_gradient=False)
    paddle.linalg.norm(x, axis=[0, 1, 2]).backward()
    np.testing.assert_allclose(x.grad.numpy(), X234 / np.sqrt((X234 ** 2).sum()), rtol=1e-6)


def test_norm_fro_over_three_axes_still_raises():
    with pytest.raises(ValueError, match="p='fro'"):      # (Paddle: ValueError too)
        paddle.linalg.norm(TT(X234), p="fro", axis=[0, 1, 2])


# --- version counters: where's gradient is its condition, so changing x or y in place
# before the backward is allowed, as Paddle 3.3.1 allows it (its where_grad keeps neither);
# an op that reads the changed values still raises.

def test_where_input_changed_in_place_before_backward_keeps_the_recorded_mask():
    x = TT([2.0, 3.0], stop_gradient=False)
    y = x * 1
    z = paddle.where(y > 2, y, TT([0.0, 0.0]))
    y.add_(TT(1.0))
    z.sum().backward()
    assert z.numpy().tolist() == [0.0, 3.0]
    assert x.grad.numpy().tolist() == [0.0, 1.0]          # (Paddle 3.3.1: [0, 1])


def test_where_other_branch_changed_in_place_and_create_graph():
    x = TT([2.0, 3.0], stop_gradient=False)
    w = TT([5.0, 6.0], stop_gradient=False) * 1
    z = paddle.where(x > 2, x * 1, w)
    w.zero_()
    (g,) = paddle.grad(z.sum(), x, create_graph=True)
    assert g.numpy().tolist() == [0.0, 1.0]


def test_a_reader_of_the_changed_value_under_where_still_raises():
    x = TT([2.0, 3.0], stop_gradient=False)
    y = x * 1
    z = paddle.where(y > 2, y * y, TT([0.0, 0.0]))
    y.add_(TT(1.0))
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        z.sum().backward()


# --- dropout in eval: Paddle 3.3.1's kernel returns a new tensor (axis None), so an
# in-place change of x afterwards leaves the result alone (and the reverse); with p == 0,
# or with an axis (dropout2d), it returns x itself.

def _changed_after_dropout(fn):
    x = TT([2.0, 3.0], stop_gradient=False)
    y = x * 1
    z = fn(y)
    y[0] = 100.0
    (z * TT([1.0, 2.0])).sum().backward()
    return z, x.grad


@pytest.mark.parametrize("fn", [lambda y: paddle.nn.functional.dropout(y, training=False),
                                lambda y: paddle.nn.functional.dropout(y, 0.3, training=False)])
def test_dropout_in_eval_is_a_new_tensor_that_keeps_its_values(fn):
    z, grad = _changed_after_dropout(fn)
    assert z.numpy().tolist() == [2.0, 3.0]               # (Paddle 3.3.1: [2, 3])
    assert grad.numpy().tolist() == [1.0, 2.0]            # (Paddle: the full gradient)


def test_dropout_layer_in_eval_output_is_not_its_input():
    layer = paddle.nn.Dropout(0.5)
    layer.eval()
    x = TT([1.0, 2.0])
    y = layer(x)
    y.add_(TT(1.0))
    assert y is not x and x.numpy().tolist() == [1.0, 2.0]


def test_dropout_with_p_zero_or_an_axis_in_eval_returns_x_itself_as_paddle():
    x = TT(np.ones((1, 2, 2, 2), "float32"))
    assert paddle.nn.functional.dropout(x, p=0.0) is x
    assert paddle.nn.functional.dropout(x, p=0.0, training=False,
                                        mode="downscale_in_infer") is x
    assert paddle.nn.functional.dropout2d(x, training=False) is x


# gather, index_select, sort and roll (take_flat) read only their indices and x's shape,
# softmax and log_softmax only their output: Paddle 3.3.1 lets x change in place first.
_F = paddle.nn.functional


@pytest.mark.parametrize("op, want", [
    (lambda y: paddle.gather(y, TT([1])), [0.0, 1.0]),
    (lambda y: paddle.index_select(y, TT([0])), [1.0, 0.0]),
    (lambda y: paddle.sort(y), [1.0, 1.0]),
    (lambda y: paddle.roll(y, 1) * TT([1.0, 2.0]), [2.0, 1.0]),
    (lambda y: _F.softmax(y) * TT([1.0, 2.0]), [-0.196612, 0.196612]),
    (lambda y: _F.log_softmax(y), [0.462117, -0.462117])])
def test_ops_that_do_not_read_x_allow_x_to_change_in_place_before_backward(op, want):
    x = TT([2.0, 3.0], stop_gradient=False)
    y = x * 1
    z = op(y)
    y.add_(TT(1.0))
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5, atol=1e-6)   # (Paddle's)


def test_cumsum_input_changed_in_place_still_raises_as_paddle():
    x = TT([2.0, 3.0], stop_gradient=False)
    y = x * 1
    z = paddle.cumsum(y, 0)
    y.add_(TT(1.0))
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        z.sum().backward()


# --- concat of one tensor, expand, expand_as and broadcast_to to x's own shape: Paddle
# 3.3.1 returns a new tensor (measured: changing x afterwards leaves the result), jitgrad
# returned x itself.

@pytest.mark.parametrize("op", [lambda x: paddle.concat([x]), lambda x: x.expand([2, 2]),
                                lambda x: paddle.expand(x, [-1, 2]),
                                lambda x: paddle.broadcast_to(x, [2, 2]),
                                lambda x: x.broadcast_to([2, 2]),
                                lambda x: x.expand_as(TT(np.zeros((2, 2), "float32")))])
def test_ops_to_the_same_shape_return_a_new_tensor_as_paddle(op):
    x = TT([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    y = x * 1
    z = op(y)
    assert z is not y
    y[0, 0] = 100.0
    assert z.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    (z * TT([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert x.grad.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]


# --- to_tensor of a Python int from 2**63 on: numpy makes it uint64, and the cast to
# int64 wrapped it to -2**63 silently; Paddle 3.3.1 raises ValueError.

@pytest.mark.parametrize("data", [2 ** 63, [2 ** 63], [2 ** 64 - 1]])
def test_to_tensor_of_an_int_beyond_int64_raises_value_error(data):
    with pytest.raises(ValueError, match="does not fit int64"):
        paddle.to_tensor(data)


def test_to_tensor_of_ints_at_the_int64_edges_and_with_a_float_dtype_work():
    assert paddle.to_tensor(2 ** 63 - 1).item() == 2 ** 63 - 1
    assert paddle.to_tensor(-2 ** 63).item() == -2 ** 63
    assert paddle.to_tensor([2 ** 63], dtype="float64").numpy().tolist() == [2.0 ** 63]


# --- reshape of a zero-size tensor follows Paddle 3.3.1's rule: a 0 is a zero-size dim,
# and a -1 beside a 0 is the product of x's nonzero dims over the other entries (measured).

@pytest.mark.parametrize("shape, new, want", [
    ((0, 3), [0, -1], [0, 3]), ((0, 3, 2), [0, -1], [0, 6]), ((0, 3), [3, -1], [3, 0]),
    ((0, 3), [-1, 3], [0, 3]), ((0, 6), [0, 2, -1], [0, 2, 3]), ((3, 0), [0, -1], [0, 3]),
    ((3, 0), [-1, 0], [3, 0]), ((0, 3), [0, 0], [0, 0]), ((0,), [0, -1], [0, 1]),
    ((0, 3), [1, 0, -1], [1, 0, 3])])
def test_reshape_of_a_zero_size_tensor_as_paddle(shape, new, want):
    x = TT(np.zeros(shape, "float32"), stop_gradient=False)
    y = x.reshape(new)
    assert y.shape == want
    y.sum().backward()
    assert x.grad.shape == list(shape)


@pytest.mark.parametrize("new", [[2, 3], [0, 4, -1], [0, -2]])
def test_reshape_of_a_zero_size_tensor_to_an_impossible_shape_raises(new):
    with pytest.raises(ValueError, match="reshape"):         # (Paddle: ValueError too)
        TT(np.zeros((0, 3), "float32")).reshape(new)


def test_reshape_zero_still_keeps_a_dim_of_a_nonempty_tensor():
    assert TT(np.zeros((2, 3), "float32")).reshape([0, -1]).shape == [2, 3]


@pytest.mark.parametrize("op", [lambda x: paddle.concat([x]), lambda x: x.expand([2]),
                                lambda x: paddle.nn.functional.dropout(x, training=False)])
def test_ops_returning_a_new_tensor_of_a_constant_keep_both_apart(op):
    x = TT([1.0, 2.0])
    z = op(x)
    x.add_(TT(1.0))
    z[0] = 9.0
    assert x.numpy().tolist() == [2.0, 3.0] and z.numpy().tolist() == [9.0, 2.0]
    assert z.stop_gradient
