"""Ordering ops with NaN and argmax's arguments, as Paddle 3.3.1 (measured there): NaN is the
largest value for sort / argsort / topk, always wins in cummax / cummin, and is skipped by
argmax / argmin. Gradients reach the elements the returned indices name."""

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor
NAN = np.nan


def leaf(values):
    return TT(np.asarray(values, "float32"), stop_gradient=False)


def test_sort_and_argsort_put_nan_last_ascending_and_first_descending():
    y = TT([NAN, 1.0, np.inf, NAN, -1.0])
    assert paddle.argsort(y).tolist() == [4, 1, 2, 0, 3]                       # Paddle 3.3.1
    assert paddle.argsort(y, descending=True).tolist() == [0, 3, 2, 1, 4]
    got = paddle.sort(y, descending=True).numpy()
    assert np.isnan(got[:2]).all() and got[2:].tolist() == [np.inf, 1.0, -1.0]
    rows = TT([[2.0, NAN, 1.0], [NAN, 0.0, NAN]])
    assert paddle.argsort(rows, axis=1, descending=True).tolist() == [[1, 0, 2], [0, 2, 1]]
    assert paddle.argsort(rows, axis=0, descending=True).tolist() == [[1, 0, 1], [0, 1, 0]]


def test_sort_gradient_follows_nan():
    x = leaf([NAN, 1.0, np.inf])
    (paddle.sort(x, descending=True) * TT([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [1.0, 3.0, 2.0]                                   # Paddle 3.3.1


def test_topk_ranks_nan_largest():
    v, i = paddle.topk(TT([1.0, NAN, 3.0, NAN]), 3)
    assert i.tolist() == [1, 3, 2] and np.isnan(v.numpy()[:2]).all()            # Paddle 3.3.1
    v, i = paddle.topk(TT([1.0, NAN, 3.0, 2.0]), 2, largest=False)
    assert v.tolist() == [1.0, 2.0] and i.tolist() == [0, 3]
    x = leaf([1.0, NAN, 3.0, 2.0])
    paddle.topk(x, 2)[0].sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0, 0.0]
    big = np.arange(64, dtype="float32").reshape(2, 32)                 # the compiled kernel's
    big[1, 5] = NAN                                                     # size
    assert paddle.topk(TT(big), 2)[1].tolist() == [[31, 30], [5, 31]]


def test_topk_of_a_0d_tensor_is_the_value_with_index_0():
    v, i = paddle.topk(TT(2.0), 1)                                              # Paddle 3.3.1
    assert v.shape == [] and v.item() == 2.0 and i.item() == 0
    with pytest.raises(ValueError, match="k must be 1"):
        paddle.topk(TT(2.0), 2)


def test_cummax_and_cummin_propagate_nan():
    v, i = paddle.cummax(TT([1.0, NAN, 3.0, NAN, 0.0]), 0)
    assert i.tolist() == [0, 1, 1, 3, 3] and v.numpy()[0] == 1 and np.isnan(v.numpy()[1:]).all()
    v, i = paddle.cummin(TT([NAN, 1.0, 0.0]), 0)
    assert i.tolist() == [0, 0, 0] and np.isnan(v.numpy()).all()               # Paddle 3.3.1
    x = leaf([1.0, NAN, 3.0])
    paddle.cummax(x, 0)[0].sum().backward()
    assert x.grad.tolist() == [1.0, 2.0, 0.0]
    rows = np.tile(np.array([1.0, NAN, 3.0, 0.5], "float32"), (4, 1))          # last axis:
    assert paddle.cummax(TT(rows), 1)[1].tolist() == [[0, 1, 1, 1]] * 4         # the kernel's


def test_argmax_and_argmin_skip_nan():
    x = TT([[1.0, NAN, 3.0], [NAN, NAN, NAN], [2.0, -np.inf, 5.0]])
    assert paddle.argmax(x, axis=1).tolist() == [2, 0, 2]                      # Paddle 3.3.1
    assert paddle.argmin(x, axis=1).tolist() == [0, 0, 1]
    assert paddle.argmax(x).item() == 8 and paddle.argmax(TT([NAN, 1.0])).item() == 1


def test_argmax_keepdim_without_axis_and_dtype():
    x = TT([[1.0, 3.0, 2.0], [0.0, 5.0, 4.0]])
    got = paddle.argmax(x, keepdim=True)
    assert got.shape == [1, 1] and got.tolist() == [[4]]                       # Paddle 3.3.1
    assert paddle.argmin(x, axis=1, dtype="int32").dtype == paddle.int32
    with pytest.raises(ValueError, match="out of range"):
        paddle.argmax(x, axis=5)
    with pytest.raises(ValueError, match="int32 or int64"):
        paddle.argmax(x, dtype="float32")
