"""The compiled forwards of softmax, the nll primitive (cross_entropy) and the normalization
primitive against their numpy paths (vm/forward.py: softmax_finish, xent_finish,
hard_label_coefficients, norm_affine)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.ops import loss, nll, nn, normalization
from jitgrad.vm import forward

F = paddle.nn.functional


@pytest.fixture(autouse=True)
def _numba_loaded():
    paddle.warmup(quiet=True)


def _softmax_reference(x, axis):
    with np.errstate(invalid="ignore"):
        e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pairwise_sum_is_numpys_add_reduce_bit_for_bit(dtype):
    rng = np.random.default_rng(0)
    for C in list(range(1, 140)) + [255, 256, 257, 300, 1000, 1025, 4097]:
        x = (rng.standard_normal((3, C)) * 20).astype(dtype)
        e = np.exp(x - x.max(-1, keepdims=True))
        want = e / e.sum(-1, keepdims=True)
        forward.softmax_finish(e)
        assert e.tobytes() == want.tobytes(), C


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_compiled_equals_numpy_path(dtype, monkeypatch):
    """The rows' compiled passes give numpy's values; float32 rows in one call with numpy's
    exp inside (softmax_rows32), float64 rows around numpy's exp (softmax_finish)."""
    rng = np.random.default_rng(1)
    calls = []
    name = "softmax_rows32" if dtype == np.float32 else "softmax_finish"
    kernel = getattr(forward, name)
    monkeypatch.setattr(forward, name, lambda *a: calls.append(1) or kernel(*a))
    cases = [rng.standard_normal((32, 64)), rng.standard_normal((3, 5, 7)) * 50,
             rng.standard_normal((2, 300)), rng.standard_normal((4, 1)), rng.standard_normal(9)]
    special = rng.standard_normal((6, 10))
    special[0, 3] = np.nan
    special[1, 0] = np.nan
    special[2, 4] = np.inf
    special[3, :] = -np.inf
    special[4, 2] = -np.inf
    special[5, :] = np.inf
    cases.append(special)
    for x in cases:
        x = x.astype(dtype)
        got = nn._softmax(x, x.ndim - 1)
        want = _softmax_reference(x, x.ndim - 1)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
        assert F.softmax(paddle.to_tensor(x), -1).numpy().tobytes() == want.tobytes()
    assert len(calls) == 2 * len(cases)
    for x, axis in ((rng.standard_normal((4, 6)), 0), (rng.standard_normal((4, 6)), 1),
                    (rng.standard_normal((2, 3, 4)), 1)):
        x = x.astype(dtype)             # numpy's path: axis not last, or not contiguous
        x = x[:, ::2] if x.shape == (4, 6) and axis == 1 else x
        assert nn._softmax(x, axis).tobytes() == _softmax_reference(x, axis).tobytes()
    assert len(calls) == 2 * len(cases)
    assert nn._softmax(np.zeros((0, 3), dtype), 1).shape == (0, 3)
    assert nn._softmax(np.asarray(3.0, dtype), 0).tolist() == 1.0


def test_softmax_gradient_unchanged_by_the_compiled_forward(monkeypatch):
    x = np.random.default_rng(2).standard_normal((16, 32)).astype(np.float32)
    found = []
    for compiled in (True, False):
        if not compiled:
            monkeypatch.setattr(nn, "_compiled_forward", lambda: None)
        t = paddle.to_tensor(x, stop_gradient=False)
        y = F.softmax(t, -1)
        (y * paddle.to_tensor(np.arange(32, dtype=np.float32))).sum().backward()
        found.append((y.numpy(), t.grad.numpy()))
    assert found[0][0].tobytes() == found[1][0].tobytes()
    assert found[0][1].tobytes() == found[1][1].tobytes()


def _xent_reference(x, coef):
    """The previous xent_finish (one loop with the loss's branch), in Python."""
    s = x - x.max(-1, keepdims=True)
    e = np.exp(s)
    R, C = s.shape
    dx, logp, rows = np.empty_like(s), np.empty_like(s), np.empty(R)
    for r in range(R):
        se = float(np.sum(e[r], dtype=np.float64))
        csum = float(np.sum(coef[r], dtype=np.float64))
        lse = np.log(se)
        k = csum / se
        t = 0.0
        for c in range(C):
            lp = float(s[r, c]) - lse
            logp[r, c] = lp
            if coef[r, c] != 0.0:
                t += float(coef[r, c]) * lp
            dx[r, c] = float(e[r, c]) * k - float(coef[r, c])
        rows[r] = -t
    return rows, dx, logp


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("total", [True, False])
def test_nll_compiled_forward_matches_a_reference(total, dtype):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((20, 12)) * 4).astype(dtype)
    x[0, 1] = -np.inf
    coef = np.zeros_like(x)
    coef[np.arange(20), rng.integers(0, 12, 20)] = dtype(1 / 20)
    coef[0, :] = 0
    coef[0, 2] = 0.5
    coef[3] = rng.random(12).astype(dtype)          # soft rows
    coef[7] = rng.random(12).astype(dtype)
    out, (dx, logp) = nll._compiled(x, coef, 1, total)
    rows, rdx, rlogp = _xent_reference(x, coef)
    tol = dict(rtol=1e-6, atol=1e-7) if dtype == np.float32 else dict(rtol=1e-13, atol=1e-14)
    assert np.allclose(dx, rdx, **tol)
    assert np.allclose(logp, rlogp, **tol)
    want = np.asarray(rows.sum() if total else rows.reshape(20, 1), dtype)
    assert want.shape == out.shape and out.dtype == dtype
    assert np.allclose(out, want, rtol=0 if dtype == np.float32 else 1e-13, atol=0)
    # all rows weight 0: +0, as numpy's sum gives, not -0
    out0, _ = nll._compiled(x, np.zeros_like(x), 1, True)
    assert out0.tobytes() == np.asarray(0.0, dtype).tobytes()


@pytest.mark.parametrize("ignore_index", [-100, 2, -1])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_compiled_equals_numpy_coefficients(reduction, ignore_index,
                                                          monkeypatch):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((12, 7)).astype(np.float32)
    lab = rng.integers(0, 7, 12)
    lab[[1, 5]] = ignore_index if ignore_index >= 0 or ignore_index == -1 else lab[[1, 5]]
    if ignore_index == -100:
        lab[3] = -100
    found = []
    for compiled in (True, False):
        if not compiled:
            monkeypatch.setattr(loss, "_compiled_forward", lambda: None)
        t = paddle.to_tensor(x, stop_gradient=False)
        out = F.cross_entropy(t, paddle.to_tensor(lab), reduction=reduction,
                              ignore_index=ignore_index)
        out.sum().backward()
        found.append((out.numpy(), t.grad.numpy()))
    assert found[0][0].tobytes() == found[1][0].tobytes()
    assert found[0][1].tobytes() == found[1][1].tobytes()


def _norm_numpy(monkeypatch, fn):
    with monkeypatch.context() as m:
        m.setattr(normalization, "_compiled_forward", lambda: None)
        return fn()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_norm_compiled_saves_and_matches_numpy_path(dtype, monkeypatch):
    rng = np.random.default_rng(5)
    cases = [((32, 64), (1, 32, 64), (64, 0)),          # layer_norm
             ((32, 64), (32, 64, 1), (64, 1)),          # batch_norm NC
             ((8, 16, 8, 8), (8, 16, 64), (16, 64)),    # batch_norm NCHW
             ((8, 16, 8, 8), (1, 32, 256), (16, 64))]   # group_norm, 4 groups
    for shape, stats, affine in cases:
        x = rng.standard_normal(shape).astype(dtype)
        w = rng.standard_normal(affine[0]).astype(dtype)
        b = rng.standard_normal(affine[0]).astype(dtype)
        y, (xhat, aux, mu, var) = normalization._forward(x, w, b, stats, affine, 1e-5)
        ny, (nxhat, naux, nmu, nvar) = _norm_numpy(
            monkeypatch, lambda: normalization._forward(x, w, b, stats, affine, 1e-5))
        for a, n in ((y, ny), (xhat, nxhat), (aux, naux), (mu, nmu), (var, nvar)):
            assert a.dtype == n.dtype and a.shape == n.shape
            assert np.allclose(a, n, rtol=1e-4 if dtype == np.float32 else 1e-10, atol=1e-5)
        S = stats[1]
        assert aux[S:].tobytes() == w.tobytes()
        assert np.allclose(aux[:S], 1 / np.sqrt(var.ravel().astype(np.float64) + 1e-5),
                           rtol=1e-6)


def test_batch_norm_running_statistics(monkeypatch):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((32, 16)).astype(np.float32)
    rm0 = rng.standard_normal(16).astype(np.float32)
    rv0 = rng.random(16).astype(np.float32) + 0.5
    rm, rv = paddle.to_tensor(rm0), paddle.to_tensor(rv0)
    F.batch_norm(paddle.to_tensor(x), rm, rv, training=True, momentum=0.8)
    mu = x.mean(0, dtype=np.float64)
    var = ((x - mu) ** 2).mean(0)
    want_m = 0.8 * rm0 + 0.2 * mu.astype(np.float32)
    want_v = 0.8 * rv0 + 0.2 * var.astype(np.float32)
    assert rm.numpy().dtype == np.float32
    assert np.allclose(rm.numpy(), want_m, rtol=1e-6, atol=1e-7)
    assert np.allclose(rv.numpy(), want_v, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("C", [1, 3, 15, 16, 17, 64, 129, 1000])
def test_float32_softmax_rows_in_one_call_give_the_three_passes_bits(C, monkeypatch):
    """softmax_rows32 (numpy's exp inside) against row_shift, np.exp and softmax_finish, on
    random bit patterns (NaN, infinities, zeros of both signs, denormals, huge values) and
    rows of exp's saturation edges, NaN bits included."""
    from jitgrad.ops import elementwise
    rng = np.random.default_rng(C)
    bits = rng.integers(0, 2 ** 32, (12, C), dtype=np.uint64).astype(np.uint32)
    edges = np.array([88.72284, -103.97208, -87.33654, 0.0, -0.0, 1e-45], np.float32)
    x = np.concatenate([bits.view(np.float32), rng.choice(edges, (6, C)),
                        (rng.standard_normal((6, C)) * 40).astype(np.float32)])
    assert elementwise.numpy_exp_emulated()
    with np.errstate(all="ignore"):
        got = nn._softmax_matrix(x)
        monkeypatch.setattr(elementwise, "_EXP_EMULATED", [False])
        want = nn._softmax_matrix(x)
    assert got.tobytes() == want.tobytes()
