"""0-d inputs and broadcasting masks, as Paddle 3.3.1 handles them (found by
perf/layout_sweep.py against torch; each failed or was wrong before)."""

import math

import numpy as np
import pytest

import jitgrad as paddle


@pytest.mark.parametrize("v, slope", [(0.1, -0.3257512695), (0.0, 0.0), (1.0, -1.0)])
def test_sinc_of_a_0d_tensor_has_its_slope(v, slope):
    x = paddle.to_tensor(v, stop_gradient=False)
    paddle.sinc(x).backward()
    assert x.grad.shape == [] and math.isclose(x.grad.item(), slope, abs_tol=1e-7)


def test_masked_fill_broadcasts_x_and_mask_together():
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = paddle.masked_fill(x, paddle.to_tensor([[True], [False]]), 0.0)
    np.testing.assert_array_equal(y.numpy(), [[0, 0, 0], [1, 2, 3]])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])
    z = paddle.masked_fill(paddle.to_tensor(2.0), paddle.to_tensor([True]), 5.0)
    np.testing.assert_array_equal(z.numpy(), [5.0])
    with pytest.raises(ValueError, match="does not broadcast"):
        paddle.masked_fill(x, paddle.to_tensor([True, False]), 0.0)


@pytest.mark.parametrize("keepdim", [False, True])
def test_kthvalue_and_mode_of_a_0d_tensor_are_it_and_index_0(keepdim):
    x = paddle.to_tensor(0.375, stop_gradient=False)
    for value, index in (paddle.kthvalue(x, 1, keepdim=keepdim),
                         paddle.mode(x, keepdim=keepdim)):
        assert value.shape == [] and index.shape == []
        assert value.item() == 0.375 and index.item() == 0
    paddle.kthvalue(x, 1)[0].backward()
    assert x.grad.item() == 1.0
    with pytest.raises(ValueError, match="out of range"):
        paddle.kthvalue(x, 2)


def test_argsort_of_a_0d_tensor_is_0d():
    x = paddle.to_tensor(0.375)
    for descending in (False, True):
        got = paddle.argsort(x, descending=descending)
        assert got.shape == [] and got.item() == 0 and got.dtype == paddle.int64
