"""Differences found by running small user scripts under Paddle 3.3.1 and jitgrad; every
expected value here was measured on Paddle 3.3.1 (CPU)."""

import numpy as np
import pytest

import jitgrad as paddle


def _x():
    return paddle.arange(12, dtype="float32").reshape([3, 4])


II = [[0, 3], [1, 1], [2, 0]]
V = [[2.0, 7.0], [1.0, 9.0], [20.0, -1.0]]

# put_along_axis(x, II, V, axis=1, reduce=..., include_self=...), measured on Paddle 3.3.1
PUT_ALONG = {
    ("add", False): [[2, 1, 2, 7], [4, 10, 6, 7], [-1, 9, 20, 11]],
    ("mul", True): [[0, 1, 2, 21], [4, 45, 6, 7], [-8, 9, 200, 11]],
    ("multiply", False): [[2, 1, 2, 7], [4, 9, 6, 7], [-1, 9, 20, 11]],
    ("mean", True): [[1, 1, 2, 5], [4, 5, 6, 7], [3.5, 9, 15, 11]],
    ("mean", False): [[2, 1, 2, 7], [4, 5, 6, 7], [-1, 9, 20, 11]],
    ("amax", True): [[2, 1, 2, 7], [4, 9, 6, 7], [8, 9, 20, 11]],
    ("amax", False): [[2, 1, 2, 7], [4, 9, 6, 7], [-1, 9, 20, 11]],
    ("amin", True): [[0, 1, 2, 3], [4, 1, 6, 7], [-1, 9, 10, 11]],
    ("amin", False): [[2, 1, 2, 7], [4, 1, 6, 7], [-1, 9, 20, 11]],
    ("assign", False): [[2, 1, 2, 7], [4, 9, 6, 7], [-1, 9, 20, 11]],
}


@pytest.mark.parametrize("reduce,include_self", sorted(PUT_ALONG))
def test_put_along_axis_reductions(reduce, include_self):
    out = paddle.put_along_axis(_x(), paddle.to_tensor(II), paddle.to_tensor(V), axis=1,
                                reduce=reduce, include_self=include_self)
    assert out.dtype == paddle.float32
    np.testing.assert_allclose(out.numpy(), PUT_ALONG[reduce, include_self], rtol=1e-6)


def test_put_along_axis_scalar_mean_and_int_mean():
    out = paddle.put_along_axis(_x(), paddle.to_tensor(II), 3.0, axis=1, reduce="mean")
    np.testing.assert_allclose(out.numpy(), [[1.5, 1, 2, 3], [4, 11 / 3, 6, 7],
                                             [5.5, 9, 6.5, 11]], rtol=1e-6)
    x = paddle.to_tensor([[-7, 5, 3], [4, -5, 0]])
    i = paddle.to_tensor([[0, 0], [1, 1]])
    v = paddle.to_tensor([[1, 1], [3, -3]])
    out = paddle.put_along_axis(x, i, v, axis=1, reduce="mean")     # rounds down
    assert out.dtype == paddle.int64
    assert out.numpy().tolist() == [[-2, 5, 3], [4, -2, 0]]
    out = paddle.put_along_axis(x, i, v, axis=1, reduce="mean", include_self=False)
    assert out.numpy().tolist() == [[1, 5, 3], [4, 0, 0]]
    assert paddle.scatter_reduce(x, 1, i, v, "mean").numpy().tolist() == [[-2, 5, 3],
                                                                          [4, -2, 0]]
    with pytest.raises(ValueError):
        paddle.put_along_axis(_x(), paddle.to_tensor(II), 1.0, axis=1, reduce="max")


def _put_grads(reduce, include_self):
    a = paddle.arange(6, dtype="float32").reshape([3, 2]) / 3 + 0.5
    b = paddle.arange(6, dtype="float32").reshape([3, 2]) / 3 + 0.5
    a.stop_gradient = b.stop_gradient = False
    out = paddle.put_along_axis(a, paddle.to_tensor([[0, 0], [1, 0], [1, 1]]),
                                b * paddle.to_tensor([[1.0, 0.2]]), axis=1, reduce=reduce,
                                include_self=include_self)
    (out * (paddle.arange(6, dtype="float32").reshape([3, 2]) + 1)).sum().backward()
    return a.grad.numpy(), b.grad.numpy()


# (a.grad, b.grad) of _put_grads, measured on Paddle 3.3.1
PUT_GRADS = {
    ("add", False): ([[0, 2], [0, 0], [5, 0]], [[1, 0.2], [4, 0.6], [6, 1.2]]),
    ("multiply", True): ([[1 / 12, 2], [0.9, 14 / 3], [5, 4.7667]],
                         [[1 / 12, 0.05], [6, 0.7], [5.6333, 4.7667]]),
    ("multiply", False): ([[0, 2], [0, 0], [5, 0]], [[1 / 6, 0.1], [4, 0.6], [2.6, 2.2]]),
    ("mean", True): ([[1 / 3, 2], [1.5, 2], [5, 2]], [[1 / 3, 1 / 15], [2, 0.3], [2, 0.4]]),
    ("mean", False): ([[0, 2], [0, 0], [5, 0]], [[0.5, 0.1], [4, 0.6], [3, 0.6]]),
    ("amax", True): ([[0.5, 2], [3, 4], [5, 6]], [[0.5, 0], [0, 0], [0, 0]]),
    ("amin", True): ([[0, 2], [0, 0], [5, 0]], [[0, 0.2], [4, 0.6], [0, 1.2]]),
}


@pytest.mark.parametrize("reduce,include_self", sorted(PUT_GRADS))
def test_put_along_axis_reduction_gradients(reduce, include_self):
    ga, gb = _put_grads(reduce, include_self)
    ea, eb = PUT_GRADS[reduce, include_self]
    np.testing.assert_allclose(ga, ea, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(gb, eb, rtol=1e-4, atol=1e-6)


def test_where_with_two_python_scalars():
    b = paddle.to_tensor([True, False, True])
    out = paddle.where(b, 1, 0)
    assert out.dtype == paddle.int64 and out.numpy().tolist() == [1, 0, 1]
    out = paddle.where(b, 1.0, 0.0)
    assert out.dtype == paddle.float32 and out.numpy().tolist() == [1.0, 0.0, 1.0]
    out = paddle.where(b, True, False)
    assert out.dtype == paddle.bool and out.numpy().tolist() == [True, False, True]
    for x, y in ((1.0, 0), (1, 0.5)):           # Paddle 3.3.1 raises TypeError too
        with pytest.raises(TypeError):
            paddle.where(b, x, y)


def test_where_with_condition_only_is_nonzero_as_tuple():
    x = paddle.to_tensor([[3.0, 1.0, 3.0, 2.0], [1.0, 1.0, 0.0, 5.0],
                          [2.0, 7.0, 7.0, -1.0]])
    rows, cols = paddle.where(x > 2)
    assert rows.dtype == paddle.int64 and rows.shape == [5]
    assert rows.numpy().tolist() == [0, 0, 1, 2, 2]
    assert cols.numpy().tolist() == [0, 2, 3, 1, 2]


def test_clip_int_tensor_with_float_bounds_is_float32():
    i64 = paddle.to_tensor([4, 5, -6])
    cases = {(-1.5, 4.5): [4.0, 4.5, -1.5], (-1.5, 4): [4.0, 4.0, -1.5],
             (1, 4.0): [4.0, 4.0, 1.0], (None, 4.5): [4.0, 4.5, -6.0]}
    for (lo, hi), want in cases.items():
        out = paddle.clip(i64, lo, hi)
        assert out.dtype == paddle.float32 and out.numpy().tolist() == want
    out = paddle.clip(i64.astype("int32"), -1.5, 4.5)
    assert out.dtype == paddle.float32
    out = paddle.clip(i64, -1, 4)
    assert out.dtype == paddle.int64 and out.numpy().tolist() == [4, 4, -1]


def test_cumprod_of_integers_keeps_dtype():
    i64 = paddle.to_tensor([4, 5, -6])
    out = paddle.cumprod(i64, dim=0)
    assert out.dtype == paddle.int64 and out.numpy().tolist() == [4, 20, -120]
    out = paddle.cumprod(i64.astype("int32"), dim=0)
    assert out.dtype == paddle.int32 and out.numpy().tolist() == [4, 20, -120]
    assert paddle.cumprod(i64.reshape([3, 1])).numpy().tolist() == [4, 20, -120]
    with pytest.raises(TypeError):
        paddle.cumprod(paddle.to_tensor([True, False]), dim=0)


def test_unique_dtype_applies_to_index_outputs():
    out, idx = paddle.unique(paddle.to_tensor([3, 1, 3]), return_index=True, dtype="int32")
    assert out.dtype == paddle.int64 and out.numpy().tolist() == [1, 3]
    assert idx.dtype == paddle.int32 and idx.numpy().tolist() == [1, 0]


# paddle.arange(*args) in float32 / float64: length and values, measured on Paddle 3.3.1
ARANGE = {
    (1.0, 1.3, 0.1): [1.0, 1.100000023841858, 1.2000000476837158],
    (1, 2.2, 0.2): [1.0, 1.2000000476837158, 1.4000000953674316, 1.6000001430511475,
                    1.8000001907348633, 2.000000238418579],
    (10.0, 9.1, -0.3): [10.0, 9.699999809265137, 9.399999618530273],
    (0, 1, 0.1): [0.0, 0.10000000149011612, 0.20000000298023224, 0.30000001192092896,
                  0.4000000059604645, 0.5, 0.6000000238418579, 0.7000000476837158,
                  0.8000000715255737, 0.9000000953674316],
}
ARANGE64 = {
    (1.0, 1.3, 0.1): [1.0, 1.1, 1.2000000000000002, 1.3000000000000003],
    (0, 1, 0.1): [0.0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.6, 0.7,
                  0.7999999999999999, 0.8999999999999999],
    (-1.0, 1.0, 0.4): [-1.0, -0.6, -0.19999999999999996, 0.20000000000000007,
                       0.6000000000000001],
}


def test_arange_float_steps_count_and_accumulate_in_dtype():
    for args, want in ARANGE.items():
        out = paddle.arange(*args)
        assert out.dtype == paddle.float32
        assert out.numpy().tolist() == want, args
    for args, want in ARANGE64.items():
        out = paddle.arange(*args, dtype="float64")
        assert out.numpy().tolist() == want, args
    assert paddle.arange(0, 3.5, 1, dtype="int64").numpy().tolist() == [0, 1, 2]
    out = paddle.arange(0.5, 3.7, 1.2, dtype="int32")
    assert out.dtype == paddle.int32 and out.numpy().tolist() == [0, 1, 2]
    assert paddle.arange(5, 0, -2).numpy().tolist() == [5, 3, 1]
    assert paddle.arange(3, 3).shape == [0]
    assert paddle.arange(paddle.to_tensor(1.0), paddle.to_tensor(1.3),
                         paddle.to_tensor(0.1)).shape == [3]


def test_assign_of_python_values_uses_numpy_dtype():
    cases = [([1.5, 2.5], [2], paddle.float64), ([1, 2], [2], paddle.int64),
             ([True], [1], paddle.bool), (1.5, [1], paddle.float64), (3, [1], paddle.int64),
             ([[1.0], [2.0]], [2, 1], paddle.float64), ((1.0, 2.0), [2], paddle.float64),
             (np.array([1.0], "float32"), [1], paddle.float32)]
    for x, shape, dt in cases:
        out = paddle.assign(x)
        assert out.shape == shape and out.dtype == dt, x


def test_swapaxes_takes_two_axes_or_a_permutation():
    x = paddle.ones([2, 3, 4])
    assert paddle.swapaxes(x, 0, 2).shape == [4, 3, 2]
    assert paddle.swapdims(x, 1, 2).shape == [2, 4, 3]
    assert x.swapaxes(0, 1).shape == [3, 2, 4]
    assert paddle.swapaxes(x, -1, 0).shape == [4, 3, 2]
    assert paddle.swapaxes(x, [2, 0, 1]).shape == [4, 2, 3]
    assert paddle.swapaxes(x, perm=[2, 0, 1]).shape == [4, 2, 3]
