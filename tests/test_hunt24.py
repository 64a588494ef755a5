"""Gaps found by hunt 24 against Paddle 3.3.1 (measured with its CPU build; each test
quotes what Paddle gave)."""

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
