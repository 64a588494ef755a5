"""float16 tensors take the numpy paths of ops whose compiled forwards are float32/float64.

Numba has no float16 arrays: a float16 array handed to a compiled forward raised Numba's
NotImplementedError once the backward had loaded Numba (27 of perf/op_steps.py's graphs in
float16 did). Each call below goes through the public function, forward and backward, in
float16, and agrees with the same call in float32 to float16's precision.
"""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad import vm

F = paddle.nn.functional


def _distinct(shape, seed):
    """Values in [-1, 1), shuffled; distinct in float16 for up to ~1000 of them."""
    n = int(np.prod(shape))
    vals = (np.arange(n) - n // 2) / (n // 2 or 1)
    return np.random.default_rng(seed).permutation(vals).reshape(shape)


CALLS = {
    "per_channel_scale": ((4, 8, 16, 16), (8, 1, 1), lambda x, w: (x * w).mean()),
    "relu_large": ((64, 1024), (1024,), lambda x, w: F.relu(x * w).mean()),
    "bias_row_large": ((64, 1024), (1024,), lambda x, w: (x + w).tanh().mean()),
    "kthvalue": ((8, 64), (64,), lambda x, w: paddle.kthvalue(x * w, 5, axis=1)[0].sum()),
    "cummax": ((8, 64), (64,), lambda x, w: paddle.cummax(x * w, axis=1)[0].sum()),
    "topk": ((8, 64), (64,), lambda x, w: paddle.topk(x * w, 4, axis=1)[0].sum()),
    # (a sum: rounding to float16 may swap near-equal products, and so sorted positions)
    "sort": ((8, 64), (64,), lambda x, w: paddle.sort(x * w, axis=1).sum()),
    "prod": ((8, 16), (16,), lambda x, w: paddle.prod(1 + (x * w) / 8, axis=1).sum()),
    "cross_entropy": ((32, 64), (64,), lambda x, w: F.cross_entropy(x * w, LABELS)),
    "nll_loss": ((32, 64), (64,),
                 lambda x, w: F.nll_loss(F.log_softmax(x * w, axis=-1), LABELS)),
    "layer_norm": ((16, 64), (64,), lambda x, w: (F.layer_norm(x, 64, w) * x).mean()),
    "group_norm": ((4, 8, 8, 8), (8,),
                   lambda x, w: (F.group_norm(x, 4, weight=w) * x).mean()),
    "max_pool2d": ((4, 8, 16, 16), (8, 1, 1), lambda x, w: F.max_pool2d(x * w, 2).mean()),
    "interpolate": ((4, 8, 8, 8), (8, 1, 1),
                    lambda x, w: (F.interpolate(x * w, scale_factor=2) ** 2).mean()),
}
LABELS = paddle.to_tensor(np.random.default_rng(0).integers(0, 64, 32))


def _run(name, dtype):
    xs, ws, fn = CALLS[name]
    x = paddle.to_tensor(_distinct(xs, 1).astype(dtype))
    w = paddle.to_tensor((1 + _distinct(ws, 2) / 8).astype(dtype), stop_gradient=False)
    loss = fn(x, w)
    loss.backward()
    return loss, w.grad


@pytest.mark.parametrize("name", sorted(CALLS))
def test_float16_takes_the_numpy_paths_and_agrees_with_float32(name):
    vm.warmup(quiet=True)                 # (the compiled forwards exist from here on)
    for _ in range(2):                    # lowered, then a cache hit
        loss16, g16 = _run(name, np.float16)
    loss32, g32 = _run(name, np.float32)
    assert loss16.dtype == paddle.float16 and g16.dtype == paddle.float16
    scale = max(abs(float(loss32)), 1.0)
    assert abs(float(loss16) - float(loss32)) <= 2e-2 * scale
    g16, g32 = g16.numpy().astype(np.float64), g32.numpy().astype(np.float64)
    assert np.abs(g16 - g32).max() <= 2e-2 * max(np.abs(g32).max(), 1e-3)
