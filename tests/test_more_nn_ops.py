"""max_pool1d / avg_pool1d, adaptive max pooling, instance_norm and the transposed
convolutions: values measured on Paddle 3.3.1 and gradients against finite differences."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops.conv import conv1d_transpose, conv2d_transpose
from jitgrad.ops.pool import (adaptive_avg_pool1d, adaptive_max_pool1d, adaptive_max_pool2d,
                              avg_pool1d, max_pool1d)
from jitgrad.ops.norm import instance_norm
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


def test_avg_pool2d_inclusive_counts_past_the_end_only_as_far_as_the_padding_before():
    # Paddle 3.3.1 (a window ends at min(start + k, H + pad_before) for the count): 'SAME'
    # pads 5 rows by (0, 1), so the bottom windows average 6 values, not 9
    x = np.arange(30, dtype="float64").reshape(1, 1, 5, 6)
    y = paddle.nn.functional.avg_pool2d(_t(x), 3, 3, "SAME", exclusive=False)
    assert y.numpy()[0, 0].tolist() == [[7.0, 10.0], [22.0, 25.0]]
    y2 = paddle.nn.functional.avg_pool2d(_t(x), 3, 2, [0, 1, 1, 0], ceil_mode=True,
                                         exclusive=False)
    np.testing.assert_allclose(y2.numpy()[0, 0, 2], [49 / 3, 26.0, 28.0], rtol=1e-12)
    check_grads(lambda t: paddle.nn.functional.avg_pool2d(
        t, 3, 2, [0, 1, 1, 0], ceil_mode=True, exclusive=False), x / 7.0)


def test_avg_pool2d_inclusive_windows_wholly_in_the_padding_after_as_paddle():
    # Paddle 3.3.1's count min(start + k, n + pad_before) - start is 0 or negative there
    ones = _t(np.ones((1, 1, 1, 3)))
    with np.errstate(all="ignore"):
        y = paddle.nn.functional.avg_pool2d(ones, 1, 1, [0, 0, 0, 2], exclusive=False)
    got = y.numpy().ravel()
    assert got[:3].tolist() == [1.0, 1.0, 1.0] and np.isnan(got[3])
    assert got[4] == 0.0 and np.signbit(got[4])                     # -0.0, as 3.3.1


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


# ---- instance_norm -------------------------------------------------------------------------

XN = np.array([[[[1.22, 1.23], [0.06, -0.86]], [[-1.78, -0.47], [-0.37, -1.82]],
                [[-1.8, 2.0], [0.61, -1.06]]],
               [[[-0.26, 1.9], [1.59, 1.38]], [[-0.43, -0.03], [0.71, -1.76]],
                [[0.22, -0.91], [1.52, -1.74]]]])
GN = np.array([[[[1.18, 1.37], [0.73, 1.4]], [[1.37, 0.52], [1.21, 0.5]],
                [[1.0, 0.94], [0.7, 0.82]]],
               [[[1.31, 0.82], [0.65, 1.2]], [[0.95, 1.3], [0.74, 0.82]],
                [[1.3, 1.01], [1.01, 0.74]]]])


def test_instance_norm_matches_paddle():
    x, w, b = _t(XN), _t([0.5, 1.5, -1.0]), _t([0.1, 0.2, 0.3])
    y = instance_norm(x, weight=w, bias=b)
    (y * _t(GN, grad=False)).sum().backward()
    # Paddle 3.3.1
    np.testing.assert_allclose(y.numpy()[0, 0].ravel(), [0.5613220089374816, 0.567034974992435,
                                                         -0.10138205343710499,
                                                         -0.6269749304928117], rtol=1e-10)
    np.testing.assert_allclose(y.numpy()[1, 2].ravel(), [-0.06515361407419368,
                                                         0.8569102605712564,
                                                         -1.1259350627813485,
                                                         1.534178416284286], rtol=1e-10)
    np.testing.assert_allclose(x.grad.numpy()[0, 1].ravel(), [
        0.9861453382850464, -0.7923162334279609, 0.7104683240752362, -0.9042974289323218],
        rtol=1e-9)
    np.testing.assert_allclose(w.grad.numpy(), [-0.7743861154567777, 0.01668265195359725,
                                                0.34027355918831437], rtol=1e-9)
    np.testing.assert_allclose(b.grad.numpy(), [8.66, 7.41, 7.52], rtol=1e-12)


def test_instance_norm_eps_and_ignored_running_stats():
    # Paddle 3.3.1: eps=0.5
    y = instance_norm(_t(XN), eps=0.5).numpy()[0, 0].ravel()
    np.testing.assert_allclose(y, [0.7176803216349927, 0.7265680036366645,
                                   -0.3132907905589287, -1.1309575347127285], rtol=1e-10)
    rm, rv = _t(np.zeros(3), grad=False), _t(np.ones(3), grad=False)
    y2 = instance_norm(_t(XN), rm, rv, use_input_stats=False, momentum=0.5)
    np.testing.assert_array_equal(y2.numpy(), instance_norm(_t(XN)).numpy())
    assert rm.numpy().tolist() == [0, 0, 0] and rv.numpy().tolist() == [1, 1, 1]


def test_instance_norm_shapes_and_errors():
    assert instance_norm(_t(np.ones((2, 3)))).numpy().tolist() == [[0.0] * 3] * 2
    assert instance_norm(paddle.ones([2, 3, 4])).dtype == paddle.float32
    with pytest.raises(ValueError, match="data_format"):
        instance_norm(_t(XN), data_format="NHWC")
    with pytest.raises(TypeError):
        instance_norm(paddle.ones([2, 3, 4], dtype="int64"))


def test_instance_norm_gradients():
    rng = np.random.default_rng(1)
    check_grads(lambda x, w, b: instance_norm(x, weight=w, bias=b), rng.uniform(-2, 2, (2, 3, 4)),
                rng.uniform(0.5, 1.5, 3), rng.uniform(-1, 1, 3), order=2)
    check_grads(lambda x: instance_norm(x), rng.uniform(-2, 2, (1, 2, 2, 3)))


# ---- adaptive pooling ----------------------------------------------------------------------

XA = np.random.default_rng(3).permutation(35).reshape(1, 1, 5, 7) / 7 - 2    # distinct


@pytest.mark.parametrize("size, want, mask, grad_rows", [
    # Paddle 3.3.1 (grad of sum(y * [1, 2, ...]), its non-zero entries as (position, value))
    ((2, 3), [2.714286, 2.857143, 2.857143, 2.285714, 2.0, 2.571429], [9, 11, 11, 15, 18, 27],
     {9: 1, 11: 5, 15: 4, 18: 5, 27: 6}),
    ((4, 5), [2.142857, 2.714286, 2.857143, 2.857143, 1.142857, 2.285714, 2.714286, 2.857143,
              2.857143, 1.142857, 2.285714, 2.285714, 2.0, 2.0, 2.571429, 0.285714, 1.571429,
              1.571429, -1.0, 2.571429],
     [1, 9, 11, 11, 13, 15, 9, 11, 11, 13, 15, 15, 18, 18, 27, 28, 30, 30, 32, 27],
     {1: 1, 9: 9, 11: 24, 13: 15, 15: 29, 18: 27, 27: 35, 28: 16, 30: 35, 32: 19}),
    ((None, 2), [2.142857, 1.857143, 2.714286, 2.857143, 2.285714, 2.0, 0.571429, 2.571429,
                 1.571429, 0.714286], [1, 3, 9, 11, 15, 18, 23, 27, 30, 34],
     {1: 1, 3: 2, 9: 3, 11: 4, 15: 5, 18: 6, 23: 7, 27: 8, 30: 9, 34: 10}),
])
def test_adaptive_max_pool2d_matches_paddle(size, want, mask, grad_rows):
    y, g = _values_and_grad(lambda x: adaptive_max_pool2d(x, size), XA)
    np.testing.assert_allclose(y.ravel(), want, atol=1e-6)
    expect = np.zeros(35)
    expect[list(grad_rows)] = list(grad_rows.values())
    np.testing.assert_array_equal(g.ravel(), expect)
    _, m = adaptive_max_pool2d(_t(XA), size, return_mask=True)
    assert m.dtype == paddle.int32 and m.numpy().ravel().tolist() == mask


def test_adaptive_max_pool2d_tie_goes_to_the_first_maximum():
    x = _t([[[[1.0, 1.0, 0.0], [1.0, 0.0, 1.0]]]])
    adaptive_max_pool2d(x, (1, 2)).sum().backward()
    assert x.grad.numpy().tolist() == [[[[1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]]]  # Paddle 3.3.1


def test_adaptive_pool1d_match_paddle():
    x = _t(XA[0])                                                      # [1, 5, 7]
    y, m = adaptive_max_pool1d(x, 3, return_mask=True)
    # Paddle 3.3.1
    np.testing.assert_allclose(y.numpy()[0, :2].ravel(), [2.142857, 1.857143, 1.428571,
                                                          2.714286, 2.857143, 2.857143],
                               atol=1e-6)
    assert m.numpy()[0].tolist() == [[1, 3, 4], [2, 4, 4], [1, 4, 4], [2, 2, 6], [2, 2, 6]]
    np.testing.assert_allclose(adaptive_avg_pool1d(x, 4).numpy()[0, 0],
                               [1.928571, 1.238095, 1.238095, -0.571429], atol=1e-6)
    with pytest.raises(ValueError, match="3-D"):
        adaptive_max_pool1d(_t(XA), 2)


def test_adaptive_pool_gradients():
    x = XA.reshape(1, 5, 7)
    check_grads(lambda t: adaptive_max_pool2d(t, (3, 4)), XA, order=2)
    check_grads(lambda t: adaptive_max_pool1d(t, 4), x)
    check_grads(lambda t: adaptive_avg_pool1d(t, 3), x, order=2)


# ---- transposed convolutions ---------------------------------------------------------------

XT = [[[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]]]
WT = (np.arange(24.0).reshape(2, 3, 2, 2) - 10) / 4


def test_conv2d_transpose_matches_paddle():
    x, w, b = _t(XT), _t(WT), _t([0.1, 0.2, 0.3])
    y = conv2d_transpose(x, w, b, stride=2, padding=[1, 0], output_padding=1, dilation=[1, 2])
    (y * _t(np.arange(y.size).reshape(y.shape) / 10, grad=False)).sum().backward()
    # Paddle 3.3.1
    assert y.shape == [1, 3, 3, 6]
    np.testing.assert_allclose(y.numpy()[0, 0], [[-1.4, 0.1, -6.025, 0.1, -4.65, 0.1],
                                                 [-6.4, 0.1, -15.15, 0.1, -8.9, 0.1],
                                                 [-3.9, 0.1, -10.65, 0.1, -6.9, 0.1]], rtol=1e-12)
    np.testing.assert_allclose(y.numpy()[0, 2, 2], [6.3, 0.3, 7.55, 0.3, 1.3, 0.3], rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), [[[[-2.7, -3.75], [-22.35, -25.05]],
                                                 [[31.5, 34.05], [78.45, 82.95]]]], rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy().ravel()[:8],
                               [5.0, 6.4, 9.6, 11.6, 17.6, 19.0, 27.6, 29.6], rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), [15.3, 47.7, 80.1], rtol=1e-12)


def test_conv2d_transpose_output_size_and_same_padding():
    x, w = _t(np.ones((1, 2, 3, 3))), _t(np.ones((2, 4, 2, 3)))
    # Paddle 3.3.1 shapes
    assert conv2d_transpose(x, w, stride=2, output_size=[7, 8]).shape == [1, 4, 7, 8]
    assert conv2d_transpose(x, w, padding="SAME", stride=2).shape == [1, 4, 5, 5]
    assert conv2d_transpose(x, w, padding=[1, 0, 2, 1]).shape == [1, 4, 3, 2]
    assert conv2d_transpose(_t(np.ones((1, 3, 3, 2))), w, data_format="NHWC").shape == [1, 4, 5, 4]
    with pytest.raises(ValueError, match="output_size"):
        conv2d_transpose(x, w, stride=2, output_size=[9, 9])
    with pytest.raises(ValueError, match="output_padding"):
        conv2d_transpose(x, w, output_padding=1)
    with pytest.raises(ValueError, match="groups"):
        conv2d_transpose(x, _t(np.ones((3, 4, 2, 2))))


def test_conv1d_transpose_matches_paddle():
    x = _t([[[1.0, -2.0, 3.0], [0.5, 1.5, -1.0]]])
    w = _t([[[1.0, 2.0]], [[-1.0, 0.5]]])
    y = conv1d_transpose(x, w, stride=2, groups=2, output_size=7)
    # Paddle 3.3.1
    np.testing.assert_allclose(y.numpy(), [[[1.0, 2.0, -2.0, -4.0, 3.0, 6.0, 0.0],
                                            [-0.5, 0.25, -1.5, 0.75, 1.0, -0.5, 0.0]]])


def test_transposed_conv_gradients():
    rng = np.random.default_rng(2)
    check_grads(lambda x, w, b: conv2d_transpose(x, w, b, stride=[2, 1], padding=[1, 0, 0, 1],
                                                 output_padding=[1, 0], dilation=[1, 2],
                                                 groups=2),
                rng.uniform(-1, 1, (2, 4, 3, 2)), rng.uniform(-1, 1, (4, 1, 2, 2)),
                rng.uniform(-1, 1, 2), order=2)
    check_grads(lambda x, w: conv1d_transpose(x, w, stride=3, padding=1, data_format="NLC"),
                rng.uniform(-1, 1, (2, 4, 3)), rng.uniform(-1, 1, (3, 2, 3)))


def test_adaptive_avg_pool2d_keeps_an_input_size_given_as_none():
    # Paddle 3.3.1: output_size [None, 2] keeps H, as adaptive_max_pool2d does
    x = np.arange(40, dtype="float64").reshape(1, 2, 5, 4)
    f = paddle.nn.functional.adaptive_avg_pool2d
    y = f(_t(x), [None, 2])
    assert y.shape == [1, 2, 5, 2] and f(_t(x), [3, None]).shape == [1, 2, 3, 4]
    np.testing.assert_array_equal(y.numpy(), x.reshape(1, 2, 5, 2, 2).mean(-1))
