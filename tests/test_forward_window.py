"""The compiled im2col forward (vm/forward_window.py) copies exactly the elements the numpy
strided view does (ops/im2col.py's path before Numba is loaded)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops import im2col as I


@pytest.fixture(scope="module", autouse=True)
def compiled():
    paddle.warmup(quiet=True)


GEOMETRIES = [  # shape, ksize, stride, dil, pads, groups, ones_row
    ((2, 3, 5, 6), (3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)), 1, False),
    ((2, 4, 7, 5), (2, 3), (2, 1), (1, 2), ((0, 1), (2, 0)), 2, True),
    ((1, 2, 6, 6), (3, 2), (2, 3), (2, 1), ((1, 0), (0, 0)), 1, True),
    ((3, 6, 4, 4), (1, 1), (1, 1), (1, 1), ((0, 0), (0, 0)), 3, False),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("geom", GEOMETRIES)
def test_compiled_im2col_equals_the_strided_view_copy(geom, dtype, monkeypatch):
    shape, ksize, stride, dil, pads, groups, ones_row = geom
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(dtype)
    x[0, 0, 0, 0] = np.nan
    x[-1, -1, -1, -1] = -0.0
    x = x[:, :, :, ::-1] if shape[3] > 4 else x          # a non-contiguous input too
    got = I._im2col_np(x, ksize, stride, dil, pads, groups, ones_row)
    monkeypatch.setattr(I, "compiled_kernels", lambda module: None)    # numpy's path
    want = I._im2col_np(x, ksize, stride, dil, pads, groups, ones_row)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))     # bit for bit


def test_conv2d_forward_and_gradient_are_unchanged_by_the_kernel(monkeypatch):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 3)).astype(np.float32)

    def run():
        xt = paddle.to_tensor(x, stop_gradient=False)
        wt = paddle.to_tensor(w, stop_gradient=False)
        y = paddle.nn.functional.conv2d(xt, wt, stride=2, padding=1, groups=2)
        (y * y).sum().backward()
        return y.numpy(), xt.grad.numpy(), wt.grad.numpy()
    got = run()
    monkeypatch.setattr(I, "compiled_kernels", lambda module: None)
    want = run()
    for a, b in zip(got, want):
        assert np.array_equal(a, b)
