"""Tensors and numpy work together both ways."""

import numpy as np

import jitgrad as paddle

TT = paddle.to_tensor


def test_np_asarray_gives_the_values():
    t = TT([[1.0, 2.0]])
    a = np.asarray(t)
    assert a.dtype == np.float32 and a.tolist() == [[1.0, 2.0]]
    assert np.asarray(t, dtype=np.float64).dtype == np.float64


def test_numpy_on_the_left_of_an_operator_gives_a_tensor():
    x = TT([1.0, 2.0], stop_gradient=False)
    for y in (np.array([3.0, 4.0], np.float32) * x, np.float32(2) + x, np.ones(2) - x,
              np.array([2.0, 4.0], np.float32) / x):
        assert isinstance(y, paddle.Tensor)
    y = np.array([3.0, 4.0], np.float32) * x
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 4.0]


def test_to_tensor_accepts_lists_arrays_scalars_and_tensors():
    assert TT([[1, 2], [3, 4]]).shape == [2, 2]
    assert TT(np.zeros((2, 3), np.float64)).dtype == paddle.float64
    assert TT(3.5).shape == [] and TT(3.5).dtype == paddle.float32
    t = TT([1.0, 2.0])
    copy = TT(t)
    assert copy.tolist() == [1.0, 2.0] and copy is not t
    assert TT([TT(1.0), TT(2.0)]).tolist() == [1.0, 2.0]


def test_to_tensor_copies_its_input():
    a = np.array([1.0, 2.0])
    t = TT(a)
    a[0] = 5
    assert t.tolist() == [1.0, 2.0]


def test_tolist_of_0d_is_a_python_number():
    assert TT(2.5).tolist() == 2.5
    assert TT([[1, 2]]).tolist() == [[1, 2]]
