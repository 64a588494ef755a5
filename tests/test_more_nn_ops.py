"""max_pool1d / avg_pool1d, adaptive max pooling, instance_norm and the transposed
convolutions: values measured on Paddle 3.3.1 and gradients against finite differences."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops.conv import avg_pool1d, max_pool1d
from jitgrad.testing import check_grads

# no ties: the first-maximum rule is not what central differences see at a tie
X7 = np.array([[[0.3, -1.2, 2.5, 0.7, -0.4, 1.9, 0.1]]])


def _t(a, grad=True):
    return paddle.to_tensor(np.asarray(a, dtype=np.float64), stop_gradient=not grad)


def _values_and_grad(f, a):
    """f(x) and the gradient of sum(f(x) * [1, 2, ...]) (the weights of the measurements)."""
    x = _t(a)
    y = f(x)
    w = paddle.to_tensor(np.arange(1, y.size + 1, dtype=np.float64).reshape(y.shape))
    (y * w).sum().backward()
    return y.numpy(), x.grad.numpy()


# ---- 1-D pooling ---------------------------------------------------------------------------

@pytest.mark.parametrize("kw, want, grad", [
    # Paddle 3.3.1
    (dict(kernel_size=2), [0.3, 2.5, 1.9], [1, 0, 2, 0, 0, 3, 0]),
    (dict(kernel_size=3, stride=2, padding=1), [0.3, 2.5, 1.9, 1.9], [1, 0, 2, 0, 0, 7, 0]),
    (dict(kernel_size=3, stride=2, ceil_mode=True), [2.5, 2.5, 1.9], [0, 0, 3, 0, 0, 3, 0]),
    (dict(kernel_size=2, padding=[1, 0]), [0.3, 2.5, 0.7, 1.9], [1, 0, 2, 3, 0, 4, 0]),
    (dict(kernel_size=3, padding="SAME", stride=2), [0.3, 2.5, 1.9, 1.9],
     [1, 0, 2, 0, 0, 7, 0]),
])
def test_max_pool1d_matches_paddle(kw, want, grad):
    y, g = _values_and_grad(lambda x: max_pool1d(x, **kw), X7)
    np.testing.assert_allclose(y.ravel(), want, rtol=1e-12)
    np.testing.assert_allclose(g.ravel(), grad, rtol=1e-12)


def test_max_pool1d_window_wholly_in_padding_gives_lowest_float32():
    # Paddle 3.3.1: the kernel starts each window at -FLT_MAX, for float64 too
    y = max_pool1d(_t(X7), 2, 2, 1, ceil_mode=True).numpy().ravel()
    np.testing.assert_allclose(y, [0.3, 2.5, 0.7, 1.9, -3.4028234663852886e+38], rtol=1e-12)


def test_max_pool1d_mask_is_the_index_along_l():
    y, mask = max_pool1d(_t(X7), 3, 2, 1, return_mask=True)
    assert mask.dtype == paddle.int32 and mask.shape == [1, 1, 4]
    assert mask.numpy().tolist() == [[[0, 2, 5, 5]]]       # Paddle 3.3.1


@pytest.mark.parametrize("kw, want, grad", [
    # Paddle 3.3.1 (its gradients carry float32 divisors: compared at 1e-7)
    (dict(kernel_size=2), [-0.45, 1.6, 0.75], [0.5, 0.5, 1, 1, 1.5, 1.5, 0]),
    (dict(kernel_size=3, stride=2, padding=1), [-0.45, 2 / 3, 2.2 / 3, 1.0],
     [0.5, 7 / 6, 2 / 3, 5 / 3, 1, 3, 2]),
    (dict(kernel_size=3, stride=2, padding=1, exclusive=False), [-0.3, 2 / 3, 2.2 / 3, 2 / 3],
     [1 / 3, 1, 2 / 3, 5 / 3, 1, 7 / 3, 4 / 3]),
    (dict(kernel_size=3, stride=2, ceil_mode=True), [1.6 / 3, 2.8 / 3, 1.6 / 3],
     [1 / 3, 1 / 3, 1, 2 / 3, 5 / 3, 1, 1]),
    (dict(kernel_size=2, padding=[1, 0], exclusive=False), [0.15, 0.65, 0.15, 1.0],
     [0.5, 1, 1, 1.5, 1.5, 2, 2]),
])
def test_avg_pool1d_matches_paddle(kw, want, grad):
    y, g = _values_and_grad(lambda x: avg_pool1d(x, **kw), X7)
    np.testing.assert_allclose(y.ravel(), want, rtol=1e-7)
    np.testing.assert_allclose(g.ravel(), grad, rtol=1e-7)


def test_avg_pool1d_positional_order_is_exclusive_then_ceil_mode():
    y = avg_pool1d(_t(X7), 3, 2, 1, False, True)       # exclusive=False, ceil_mode=True
    np.testing.assert_allclose(y.numpy().ravel(), [-0.3, 2 / 3, 2.2 / 3, 2 / 3], rtol=1e-12)


def test_pool1d_rejects_bad_input():
    with pytest.raises(ValueError, match="3-D"):
        max_pool1d(_t(np.ones((1, 2, 2, 6))), 2)
    with pytest.raises(ValueError, match="VALID"):
        avg_pool1d(_t(X7), 2, padding="VALID", ceil_mode=True)
    with pytest.raises(ValueError, match="batch and channel"):
        max_pool1d(_t(X7), 2, padding=[[0, 1], [0, 0], [1, 1]])


def test_pool1d_gradients():
    rng = np.random.default_rng(0)
    x = rng.permutation(24).reshape(2, 3, 4) / 5.0 - 2        # distinct: no ties
    check_grads(lambda t: max_pool1d(t, 3, 2, 1, ceil_mode=True), x)
    check_grads(lambda t: avg_pool1d(t, 3, 2, [1, 2], exclusive=False), x, order=2)
