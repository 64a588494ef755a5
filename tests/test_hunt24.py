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
