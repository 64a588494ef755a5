"""softmax's and log_softmax's direct [N, C] paths (ops/nn.py: _softmax_matrix,
_log_softmax_matrix) and vm/forward.py's row_shift in interleaved lanes, against the plain
scan and numpy's paths, bit for bit, special values included."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops import nn
from jitgrad.vm import forward

F = paddle.nn.functional

SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 3e38, -3e38, 1.0, -1.0]


@pytest.fixture(autouse=True)
def _numba_loaded():
    paddle.warmup(quiet=True)


def _scan_shift(x):
    """row_shift's reference: m = xr[0], then m = v wherever v > m (a NaN after the first
    element never wins; of -0.0 and +0.0 the first one does), s = x - m."""
    s = np.empty_like(x)
    for r in range(x.shape[0]):
        m = x[r, 0]
        for v in x[r, 1:]:
            if v > m:  # noqa: PLR1730 - not max(): NaN and signed zeros
                m = v
        with np.errstate(all="ignore"):
            s[r] = x[r] - m
    return s


def _cases(dtype, rng):
    for C in [*range(1, 40), 63, 64, 65, 127, 128, 129, 300]:
        yield (rng.standard_normal((3, C)) * 10).astype(dtype)
        x = rng.standard_normal((4, C)).astype(dtype)
        mask = rng.random((4, C)) < 0.3
        x[mask] = rng.choice(SPECIALS, int(mask.sum())).astype(dtype)
        yield x
        yield rng.choice([0.0, -0.0], (3, C)).astype(dtype)          # ties of -0.0 and 0.0
        z = -np.abs(rng.standard_normal((3, C))).astype(dtype)
        z[:, rng.integers(0, C)] = rng.choice([0.0, -0.0])            # a zero max
        z[1, 0] = -0.0
        yield z
        n = rng.standard_normal((3, C)).astype(dtype)
        n[0, 0] = np.nan                                              # NaN first: a NaN row
        n[1, -1] = np.nan
        n[2, :] = -np.inf
        yield n


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_shift_lanes_equal_the_plain_scan(dtype):
    rng = np.random.default_rng(0)
    for x in _cases(dtype, rng):
        got = np.full_like(x, 7)
        forward.row_shift(x, got)
        assert got.tobytes() == _scan_shift(x).tobytes(), x
    forward.row_shift(np.zeros((0, 5), dtype), np.zeros((0, 5), dtype))


def _softmax_numpy(x, axis):
    with np.errstate(all="ignore"):
        e = np.exp(x - np.max(x, axis=axis, keepdims=True))
        return e / np.sum(e, axis=axis, keepdims=True)


def _same(got, want):
    """Bit for bit, but for a NaN's sign (the compiled row_shift skips a NaN after a row's
    first element where numpy's max propagates it: both give a NaN row, of either sign)."""
    nan = np.isnan(want)
    assert got.dtype == want.dtype and np.array_equal(np.isnan(got), nan)
    assert got[~nan].tobytes() == want[~nan].tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_matrix_path_equals_numpy_path(dtype):
    rng = np.random.default_rng(1)
    for x in _cases(dtype, rng):
        want = nn._softmax(x, 1)                  # the op's forward (its reshaped views)
        _same(want, _softmax_numpy(x, 1))
        with np.errstate(all="raise"):            # quiet, as the op's forward
            for axis in (-1, 1):
                t = paddle.to_tensor(x, stop_gradient=False)
                y = F.softmax(t, axis=axis)
                assert y.numpy().dtype == x.dtype and y.numpy().tobytes() == want.tobytes()
                assert y._node.attrs == {"axis": 1}


def test_softmax_matrix_path_taken_and_other_calls(monkeypatch):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((8, 16)).astype(np.float32)
    calls = []
    forward_op = nn.softmax_op.forward
    monkeypatch.setattr(nn.softmax_op, "forward",
                        lambda *a, **k: calls.append(1) or forward_op(*a, **k))
    F.softmax(paddle.to_tensor(x), axis=-1)
    assert not calls                               # no forward dispatch: the direct path
    F.softmax(paddle.to_tensor(x), axis=0)
    assert calls
    t = paddle.to_tensor(x)
    for axis in (0, np.int64(1), -2):              # the op's forward
        assert F.softmax(t, axis=axis).numpy().tobytes() == \
            _softmax_numpy(x, int(axis)).tobytes()
    assert F.softmax(paddle.to_tensor(x[:, ::2]), -1).numpy().tobytes() == \
        _softmax_numpy(x[:, ::2], 1).tobytes()     # not contiguous
    h = F.softmax(paddle.to_tensor(x.astype(np.float16)), -1)
    assert h.dtype == paddle.float16
    d = F.softmax(paddle.to_tensor(x), -1, dtype="float64")
    assert d.numpy().tobytes() == _softmax_numpy(x.astype(np.float64), 1).tobytes()
    assert F.softmax(paddle.to_tensor(np.zeros((0, 3), np.float32)), -1).shape == [0, 3]
    with pytest.raises(TypeError, match="must be a Tensor"):
        F.softmax(x)
    with pytest.raises(TypeError, match="axis must be an int"):
        F.softmax(paddle.to_tensor(x), axis=True)
    with pytest.raises(ValueError, match="out of range"):
        F.softmax(paddle.to_tensor(x), axis=2)
    with pytest.raises(TypeError, match="float"):
        F.softmax(paddle.to_tensor(np.ones((2, 3), np.int64)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_gradient_same_on_both_paths(dtype, monkeypatch):
    x = np.random.default_rng(3).standard_normal((16, 40)).astype(dtype)
    w = np.arange(40, dtype=dtype)
    found = []
    for compiled in (True, False):
        if not compiled:
            monkeypatch.setattr(nn, "_compiled_forward", lambda: None)
        t = paddle.to_tensor(x, stop_gradient=False)
        (F.softmax(t, -1) * paddle.to_tensor(w)).sum().backward()
        found.append(t.grad.numpy().tobytes())
    assert found[0] == found[1]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_log_softmax_matrix_path_equals_its_op_forward(dtype):
    rng = np.random.default_rng(4)
    for x in _cases(dtype, rng):
        if x.size < 256:
            x = np.concatenate([x] * (256 // x.size + 1))
        want, (soft,) = nn._log_softmax(x, 1)
        with np.errstate(all="raise"):            # quiet, as the op's forward
            t = paddle.to_tensor(x, stop_gradient=False)
            y = F.log_softmax(t, axis=-1)
        assert y.numpy().tobytes() == want.tobytes()
        assert y._node.saved[0].tobytes() == soft.tobytes()


def _weighted_logp_reference(cr, sr, lse):
    t = 0.0
    for c in range(sr.size):
        if cr[c] != 0.0:
            t += float(cr[c]) * (float(sr[c]) - lse)
    return t


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_weighted_logp_sum_stops_after_the_last_nonzero_same_bits(dtype):
    """xent_finish's per-row loss: the nonzero coefficients counted first, the scan stops
    at the last one; the same left-to-right sum as the full scan."""
    rng = np.random.default_rng(5)
    for C in [1, 2, 7, 8, 9, 16, 63, 64, 65, 200]:
        for k in range(12):
            sr = (rng.standard_normal(C) * 5).astype(dtype)
            sr[rng.random(C) < 0.1] = -np.inf
            cr = np.zeros(C, dtype)
            if k % 4 == 0:
                cr[rng.integers(0, C)] = 1 / 32                  # a hard label
            elif k % 4 == 1:
                cr[:] = rng.random(C)                           # a soft one
            elif k % 4 == 2:
                cr[rng.random(C) < 0.3] = rng.standard_normal() # sparse, maybe none
                cr[-1] = rng.choice([0.0, -0.0, 2.0])
            else:
                cr[:] = rng.random(C)
                cr[rng.integers(0, C)] = np.nan
                cr[rng.integers(0, C)] = -0.0
            lse = float(rng.standard_normal() * 3)
            got = forward._weighted_logp_sum(cr, sr, lse)
            want = _weighted_logp_reference(cr, sr, lse)
            assert np.float64(got).tobytes() == np.float64(want).tobytes(), (C, k)
    assert forward._weighted_logp_sum(np.zeros(4, dtype), np.zeros(4, dtype), 0.5) == 0.0


def test_log_softmax_float16_is_float32s_rounded():
    """The row kernels are compiled for float32 / float64 only: a float16 [N, C] of 256
    elements or more raised Numba's NotImplementedError before. A float16 input is computed
    in float32 and rounded once (ops/core.in_float32)."""
    x = np.random.default_rng(6).standard_normal((32, 64)).astype(np.float16)
    t = paddle.to_tensor(x, stop_gradient=False)
    y = F.log_softmax(t, -1)
    y.sum().backward()
    want = nn._log_softmax(x.astype(np.float32), 1)[0].astype(np.float16)
    assert y.dtype == paddle.float16 and t.grad.dtype == paddle.float16
    assert y.numpy().tobytes() == want.tobytes()
    assert np.allclose(y.numpy(), F.log_softmax(paddle.to_tensor(x.astype(np.float32)), -1)
                       .numpy(), atol=1e-2)
    assert F.log_softmax(paddle.to_tensor(x.reshape(2, 16, 64)), -1).shape == [2, 16, 64]
