"""vm/forward_scatter.py: put_flat's extremes (scatter_reduce / put_along_axis 'amax' and
'amin') give numpy's values and winner weights bit for bit."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops import indexing as I


@pytest.fixture(scope="module", autouse=True)
def compiled():
    paddle.warmup(quiet=True)


def _data(dtype, seed):
    rng = np.random.default_rng(seed)
    special = [np.nan, 0.0, -0.0, np.inf, -np.inf, 1.0, 1.0, -1.0]
    x = rng.choice(special + list(rng.integers(-2, 3, 8).astype(float)), 12).astype(dtype)
    v = rng.choice(special + list(rng.integers(-2, 3, 8).astype(float)), 20).astype(dtype)
    idx = rng.integers(0, 12, 20)
    return x, v, idx


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduce", ["amax", "amin", "amax_src", "amin_src"])
@pytest.mark.parametrize("seed", range(6))
def test_compiled_extremes_equal_numpys(dtype, reduce, seed, monkeypatch):
    x, v, idx = _data(dtype, seed)
    out = I._put_forward(x, v, idx, reduce)
    weights = I._extreme_weights(out, x, v, idx, reduce)
    monkeypatch.setattr(I, "compiled_kernels", lambda module: None)     # numpy's path
    want = I._put_forward(x, v, idx, reduce)
    want_w = I._extreme_weights(want, x, v, idx, reduce)
    assert out.tobytes() == want.tobytes()                   # NaN and the sign of zero too
    for got, exp in zip(weights, want_w):
        assert got.dtype == exp.dtype and got.tobytes() == exp.tobytes()


def test_scatter_reduce_amax_gradient_splits_ties():
    x = paddle.to_tensor([1.0, 5.0, 2.0], stop_gradient=False)
    v = paddle.to_tensor([5.0, 3.0, 7.0], stop_gradient=False)
    out = paddle.scatter_reduce(x, 0, paddle.to_tensor([1, 1, 2]), v, "amax")
    assert out.tolist() == [1.0, 5.0, 7.0]
    out.sum().backward()
    assert x.grad.tolist() == [1.0, 0.5, 0.0] and v.grad.tolist() == [0.5, 0.0, 1.0]
