"""batch_norm's training forward: the running statistics update (ops/norm.py _update_running,
ops/inplace.py write_fresh, vm/forward.py bn_running) and its bookkeeping.

Pinned: the running mean / variance after several steps (closed-form numpy, and bit for bit
numpy's `m * run + (1 - m) * stat` from the batch statistics the node saved, compiled or
not), the running tensors updated in place (same objects, a new buffer each step, an old
`.numpy()` keeps its values), one version bump per buffer and step (a recorded gradient that
read the old values raises), `.data` views and detach()es, and eval mode reading them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jitgrad as paddle
import jitgrad.nn.functional as F
from jitgrad.ops import norm as N


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    paddle.warmup()         # the compiled forward (norm_affine, bn_running) once Numba loads


def _ref_stats(x: np.ndarray, fmt: str) -> tuple[np.ndarray, np.ndarray]:
    ax = 1 if fmt.startswith("NC") else x.ndim - 1
    axes = tuple(i for i in range(x.ndim) if i != ax)
    xd = x.astype(np.float64)
    mu = xd.mean(axis=axes)
    return mu, ((xd - np.expand_dims(mu, axes)) ** 2).mean(axis=axes)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,fmt", [((32, 64), "NC"), ((8, 16, 8, 8), "NCHW"),
                                       ((4, 8), "NC"), ((6, 5, 12), "NLC"),
                                       ((2, 4, 3, 3), "NHWC")])
@pytest.mark.parametrize("momentum", [0.9, 0.1, 0.37])
def test_running_statistics_closed_form(dtype, shape, fmt, momentum):
    rng = np.random.default_rng(1)
    C = shape[1] if fmt.startswith("NC") else shape[-1]
    rm0, rv0 = rng.standard_normal(C), rng.random(C) + 0.5
    rm, rv = paddle.to_tensor(rm0.astype(dtype)), paddle.to_tensor(rv0.astype(dtype))
    w = paddle.to_tensor(rng.standard_normal(C).astype(dtype), stop_gradient=False)
    b = paddle.to_tensor(rng.standard_normal(C).astype(dtype), stop_gradient=False)
    em, ev = rm0, rv0
    for _ in range(4):
        xn = (rng.standard_normal(shape) * 3 + 1).astype(dtype)
        F.batch_norm(paddle.to_tensor(xn), rm, rv, w, b, training=True, momentum=momentum,
                     data_format=fmt)
        mu, var = _ref_stats(xn, fmt)
        em, ev = momentum * em + (1 - momentum) * mu, momentum * ev + (1 - momentum) * var
    tol = 1e-5 if dtype == "float32" else 1e-12
    assert rm._data.dtype == dtype and rv._data.dtype == dtype
    np.testing.assert_allclose(rm.numpy(), em, rtol=tol, atol=tol)
    np.testing.assert_allclose(rv.numpy(), ev, rtol=tol, atol=tol)


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("momentum", [0.9, 0.1, 0.123456789, 0.0, 1.0])
def test_running_update_is_numpys_formula_bitwise(compiled, dtype, momentum, monkeypatch):
    """running = m * running + (1 - m) * stat, rounded as numpy rounds it, from the batch
    statistics the node saved (compiled kernel or numpy: the same bits, NaN included)."""
    if not compiled:
        monkeypatch.setattr(N, "_compiled_forward", lambda: None, raising=False)
    rng = np.random.default_rng(2)
    C = 16
    rm = paddle.to_tensor((rng.standard_normal(C) * 7).astype(dtype))
    rv = paddle.to_tensor((rng.random(C) * 3).astype(dtype))
    w = paddle.to_tensor(np.ones(C, dtype), stop_gradient=False)
    b = paddle.to_tensor(np.zeros(C, dtype), stop_gradient=False)
    for step in range(3):
        xn = (rng.standard_normal((32, C)) * 10 ** rng.uniform(-3, 3)).astype(dtype)
        if step == 2:
            xn[3, 5] = np.nan
            xn[4, 6] = np.inf
        before_m, before_v = rm.numpy().copy(), rv.numpy().copy()
        y = F.batch_norm(paddle.to_tensor(xn), rm, rv, w, b, training=True, momentum=momentum)
        mu, var = y._node.saved[2], y._node.saved[3]
        em = momentum * before_m
        np.add(em, (1 - momentum) * mu.reshape(C), out=em)
        ev = momentum * before_v
        np.add(ev, (1 - momentum) * var.reshape(C), out=ev)
        assert rm._data.tobytes() == em.tobytes()
        assert rv._data.tobytes() == ev.tobytes()


def test_running_buffers_updated_in_place_with_version_bumps():
    rng = np.random.default_rng(3)
    rm, rv = paddle.zeros([8]), paddle.ones([8])
    ids = id(rm), id(rv)
    x = paddle.to_tensor(rng.standard_normal((32, 8)).astype("float32"))
    for step in range(1, 4):
        held, held_values = rm.numpy(), rm.numpy().copy()
        buf_m, buf_v = rm._data, rv._data
        F.batch_norm(x, rm, rv, training=True)
        assert (id(rm), id(rv)) == ids
        assert rm._version == step and rv._version == step
        assert rm.inplace_version == step
        # copy on write, as set_value: a new buffer; what the user held keeps its values
        assert rm._data is not buf_m and rv._data is not buf_v
        assert rm._data.flags.owndata and rm._data.flags.writeable
        np.testing.assert_array_equal(held, held_values)
        assert not np.shares_memory(rm._data, rv._data)
    # eval and use_global_stats=True read them and change nothing
    F.batch_norm(x, rm, rv, training=False)
    F.batch_norm(x, rm, rv, training=True, use_global_stats=True)
    assert rm._version == 3 and rv._version == 3
    # use_global_stats=False updates them in eval mode too (Paddle 3.3.1)
    F.batch_norm(x, rm, rv, training=False, use_global_stats=False)
    assert rm._version == 4 and rv._version == 4


def test_recorded_gradient_reading_old_running_values_raises():
    rng = np.random.default_rng(4)
    rm = paddle.to_tensor(np.zeros(8, "float32"), stop_gradient=False)
    rv = paddle.ones([8])
    p = paddle.to_tensor(rng.standard_normal(8).astype("float32"), stop_gradient=False)
    loss = (p * rm).sum()               # records rm's version 0
    x = paddle.to_tensor(rng.standard_normal((32, 8)).astype("float32"))
    F.batch_norm(x, rm, rv, training=True)
    with pytest.raises(RuntimeError):
        loss.backward()


def test_data_view_and_detach_as_running_buffers():
    rng = np.random.default_rng(5)
    x = paddle.to_tensor(rng.standard_normal((32, 8)).astype("float32"), stop_gradient=False)
    p = paddle.to_tensor(rng.random(8).astype("float32"))
    q = p.data                          # writes through to p
    rv = paddle.ones([8])
    expected = 0.9 * p.numpy() + 0.1 * x.numpy().mean(axis=0)
    F.batch_norm(x, q, rv, training=True)
    np.testing.assert_allclose(p.numpy(), expected, rtol=1e-6)
    assert p._data is q._data and p._version == q._version == 1
    # running mean = a .data view of running var: the mean's write reaches p, and the
    # variance update then reads those new values (one after the other, as set_value)
    p_old = p.numpy().copy()
    y = F.batch_norm(x, q, p, training=True)
    mu, var = y._node.saved[2].reshape(8), y._node.saved[3].reshape(8)
    q_new = np.float32(0.9) * p_old + np.float32(0.1) * mu
    np.testing.assert_array_equal(q.numpy(), q_new)
    np.testing.assert_array_equal(p.numpy(), np.float32(0.9) * q_new + np.float32(0.1) * var)
    assert p._version == q._version == 3
    # the same tensor for both: updated twice, mean then variance
    r = paddle.to_tensor(rng.random(8).astype("float32"))
    r0 = r.numpy().copy()
    y = F.batch_norm(x, r, r, training=True, momentum=0.5)
    mu, var = y._node.saved[2].reshape(8), y._node.saved[3].reshape(8)
    half = np.float32(0.5)
    np.testing.assert_array_equal(r.numpy(), half * (half * r0 + half * mu) + half * var)
    assert r._version == 2
    d = paddle.to_tensor(rng.random(8).astype("float32"))
    e = d.detach()                      # shares d's buffer and version counter
    F.batch_norm(x, d, e, training=True)
    assert d._version == e._version == 2
    assert d._data is not e._data


def test_eval_uses_running_statistics_and_layers():
    rng = np.random.default_rng(6)
    for layer, shape in ((paddle.nn.BatchNorm1D(16, momentum=0.8), (32, 16)),
                         (paddle.nn.BatchNorm2D(4), (8, 4, 5, 5))):
        mean_t, var_t = layer._mean, layer._variance
        C = shape[1]
        em, ev = np.zeros(C), np.ones(C)
        m = layer._momentum
        layer.train()
        for step in range(3):
            xn = rng.standard_normal(shape).astype("float32") * 2 + 1
            layer(paddle.to_tensor(xn)).sum().backward()
            mu, var = _ref_stats(xn, "NCHW")
            em, ev = m * em + (1 - m) * mu, m * ev + (1 - m) * var
            assert layer._mean is mean_t and layer._variance is var_t
            assert mean_t._version == var_t._version == step + 1
        np.testing.assert_allclose(mean_t.numpy(), em, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(var_t.numpy(), ev, rtol=1e-5, atol=1e-6)
        layer.eval()
        xn = rng.standard_normal(shape).astype("float32")
        y = layer(paddle.to_tensor(xn)).numpy()
        bs = [1, C] + [1] * (len(shape) - 2)
        ref = (xn - mean_t.numpy().reshape(bs)) / np.sqrt(var_t.numpy().reshape(bs) + 1e-5) \
            * layer.weight.numpy().reshape(bs) + layer.bias.numpy().reshape(bs)
        np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
        assert mean_t._version == 3                 # eval changes nothing


def test_errors_unchanged():
    x = paddle.to_tensor(np.ones((4, 8), "float32"))
    with pytest.raises(ValueError, match="needs an input"):
        F.batch_norm(paddle.to_tensor(np.ones(3, "float32")), paddle.zeros([3]),
                     paddle.ones([3]), training=True)
    with pytest.raises(TypeError, match="float tensor"):
        F.batch_norm(paddle.to_tensor(np.ones((4, 8), "int32")), paddle.zeros([8]),
                     paddle.ones([8]), training=True)
    for _ in range(2):                          # (the layout cache must not skip the check)
        with pytest.raises(ValueError, match="data_format"):
            F.batch_norm(x, paddle.zeros([8]), paddle.ones([8]), training=True,
                         data_format="NXYZ")
    with pytest.raises(TypeError, match="running_mean"):
        F.batch_norm(x, np.zeros(8, "float32"), paddle.ones([8]), training=True)
    with pytest.raises(ValueError):
        F.batch_norm(x, paddle.zeros([9]), paddle.ones([8]), training=True)


def test_numpy_warnings_of_the_update_kept():
    """A non-finite update warns as numpy's `m * run + (1 - m) * stat` does (here 0 * inf:
    invalid), compiled kernel or not; the values are numpy's."""
    x = np.ones((32, 8), "float32")
    x[0, 2] = np.inf
    xt = paddle.to_tensor(x, stop_gradient=False)   # (the statistics the node saved)
    rm, rv = paddle.zeros([8]), paddle.ones([8])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.batch_norm(xt, rm, rv, training=True, momentum=1.0)
    assert [str(w.message) for w in caught] == ["invalid value encountered in multiply"]
    assert np.isnan(rm.numpy()[2]) and rm._version == 1 and rv._version == 1
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        F.batch_norm(xt, paddle.zeros([8]), paddle.ones([8]), training=True, momentum=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # finite: no warning
        F.batch_norm(paddle.to_tensor(np.ones((32, 8), "float32"), stop_gradient=False),
                     rm, rv, training=True, momentum=0.5)


@pytest.mark.parametrize("shape", [(1, 3), (1, 3, 1), (1, 3, 1, 1)])
def test_training_on_one_value_per_channel_passes_the_input_through(shape):
    # Paddle 3.3.1 skips the normalisation there: y = x, the gradient passes through, the
    # running statistics stay (the formula would give zeros; torch raises)
    rm = paddle.to_tensor(np.array([0.5, 1.0, 1.5], "float32"))
    rv = paddle.to_tensor(np.array([2.0, 2.0, 2.0], "float32"))
    x = paddle.to_tensor(np.arange(1, 4, dtype="float32").reshape(shape), stop_gradient=False)
    y = paddle.nn.functional.batch_norm(x, rm, rv, training=True)
    assert y.numpy().ravel().tolist() == [1.0, 2.0, 3.0]
    (y * paddle.to_tensor(np.array([1.0, 2.0, 3.0], "float32").reshape(shape))).sum().backward()
    assert x.grad.numpy().ravel().tolist() == [1.0, 2.0, 3.0]
    assert rm.tolist() == [0.5, 1.0, 1.5] and rv.tolist() == [2.0, 2.0, 2.0]
