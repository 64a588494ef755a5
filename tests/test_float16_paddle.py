"""float16 results against Paddle 3.3.1 on CPU, bit for bit (the values below are Paddle's)."""

import numpy as np

import jitgrad as paddle


def _bits(t):
    return t.numpy().view(np.uint16).tolist()


def test_float16_sum_over_outer_axis_accumulates_in_float32():
    # Paddle 3.3.1: 50 x float16(0.1) summed over axis 0 is float16(4.9988) = 5.0 (float32
    # accumulation, one rounding); numpy's float16 reduction rounded each step: 5.004
    x = paddle.to_tensor(np.full((50, 4), 0.1, np.float16))
    want = np.full(4, 5.0, np.float16)
    for got in (x.sum(axis=0), paddle.sum(x, axis=0), x.sum(axis=0, keepdim=True)[0]):
        assert got.dtype == paddle.float16
        assert _bits(got) == want.view(np.uint16).tolist()
    assert x.T.sum().item() == 20.0      # 200 x 0.0999755859 = 19.995, to float16: 20.0


def test_float16_sum_gradient_flows_unchanged():
    x = paddle.to_tensor(np.full((50, 4), 0.1, np.float16), stop_gradient=False)
    x.sum(axis=0).sum().backward()
    assert x.grad.dtype == paddle.float16
    assert np.array_equal(x.grad.numpy(), np.ones((50, 4), np.float16))
