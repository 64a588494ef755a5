"""Tensor indexing, in-place methods, attributes and operators measured on Paddle 3.3.1 by a
ninth hunt (repros in the hunt's scratch directory)."""

import numpy as np
import pytest

import jitgrad as paddle


def test_vector_products_are_0d_arrays():
    # Paddle 3.3.1: x @ x of two vectors is a 0-d float32 tensor whose .numpy() is a 0-d
    # ndarray (np.matmul gives a numpy scalar, which leaked into the tensor)
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    m = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    for y in (x @ x, paddle.matmul(x, x), paddle.dot(x, x),
              paddle.matmul(x, x, transpose_x=True), paddle.linalg.multi_dot([x, m, x])):
        assert type(y.numpy()) is np.ndarray and y.shape == [] and y.dtype == paddle.float32
    y = x @ x
    assert y.item() == 5.0
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])
