"""nll_loss's and cross_entropy's fused common-call forwards (vm/forward_loss.py, called by
ops/loss.py) against the path they replace (loss._fused_kernels patched away: the
coefficients' kernel, then ops/nll.py's compiled forward), bit for bit: the loss, the
node's coefficients and saved arrays, and the gradient; float32 and float64, NaN, infinities
and signed zeros, ignore_index hits, every reduction mode, the same errors for bad labels.
soft_margin_loss's and hinge_embedding_loss's one node (ops/margin_losses.py) and
kl_div's (ops/loss.py): the compiled forwards against the numpy ones, and the losses against
the composites they replaced, values and gradients (hinge: a zero's sign aside). The bce
primitive's compiled forward (ops/bce.py) against its numpy one."""

import numpy as np
import pytest

import jitgrad as paddle
import jitgrad.nn.functional as F
from jitgrad.ops import loss as L
from jitgrad.ops import margin_losses as M
from jitgrad.ops.activation import softplus
from jitgrad.ops.derivative import _NUMPY_MATHS


@pytest.fixture(scope="module", autouse=True)
def compiled():
    paddle.warmup(quiet=True)


SHAPES = [(1, 64), (8, 8), (32, 64), (3, 100), (200, 33), (5, 1000), (4, 3), (130, 1),
          (1000, 70), (33, 129), (2, 4099), (300, 7), (17, 16)]


def _data(rng, shape, kind, dtype):
    x = (rng.standard_normal(shape) * 10 ** rng.uniform(-2, 2, shape)).astype(dtype)
    n = x.size
    if kind == "special":
        for v in (np.nan, np.inf, -np.inf, -0.0, 0.0):
            x.reshape(-1)[rng.integers(0, n, max(1, n // 17))] = v
    elif kind == "neginf":          # log-probabilities of -inf (weight-0 classes: NaN rule)
        x.reshape(-1)[rng.integers(0, n, max(1, n // 5))] = -np.inf
    elif kind == "rows":            # the row max's corner cases: NaN first or later, ties
        x[0::6, 0] = np.nan         # of signed zeros at the max, all -inf, +inf
        x[1::6, x.shape[1] // 2] = np.nan
        x[2::6] = -np.abs(x[2::6])
        x[2::6, ::2] = -0.0
        x[2::6, 1::3] = 0.0
        x[3::6] = -np.inf
        x[4::6, -1] = np.inf
        x[5::6] = np.where(x[5::6] > 0, -0.0, 0.0)
    elif kind == "cancel":          # +-1 and +-0: sums of exactly zero (the dense sums)
        x = rng.choice(np.array([1.0, -1.0, 0.0, -0.0, 0.5, -0.5], dtype), shape)
    elif kind == "huge":
        x *= dtype(1e30) if dtype == np.float32 else 1e300
    return x


def _labels(rng, N, C, ignore_index, hits):
    lab = rng.integers(0, C, N)
    if hits:
        lab[rng.random(N) < 0.3] = ignore_index
    return lab


def _run(fn, x0, lab):
    x = paddle.to_tensor(x0, stop_gradient=False)
    loss = fn(x, paddle.to_tensor(lab))
    node = loss._node
    parts = [loss.numpy(), node.inputs[1]._data] + [np.asarray(s) for s in node.saved]
    loss.backward()
    return parts + [x.grad.numpy()]


def _same(fn, x0, lab, monkeypatch):
    with np.errstate(all="ignore"):
        got = _run(fn, x0, lab)
        with monkeypatch.context() as m:
            m.setattr(L, "_fused_kernels", lambda d: None)
            want = _run(fn, x0, lab)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["plain", "special", "neginf", "huge", "rows", "cancel"])
def test_nll_loss_fused_equals_previous_path(dtype, kind, monkeypatch):
    rng = np.random.default_rng(11)
    for N, C in SHAPES:
        for reduction in ("mean", "sum"):
            for ii, hits in ((-100, False), (1, True), (-1, True), (0, True)):
                x0 = _data(rng, (N, C), kind, dtype)
                lab = _labels(rng, N, C, ii, hits)
                _same(lambda x, y, ii=ii, r=reduction: F.nll_loss(x, y, ignore_index=ii,
                                                                  reduction=r),
                      x0, lab, monkeypatch)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["plain", "special", "neginf", "huge", "rows", "cancel"])
def test_cross_entropy_fused_equals_previous_path(dtype, kind, monkeypatch):
    rng = np.random.default_rng(12)
    for N, C in SHAPES:
        for reduction in ("mean", "sum"):
            for ii, hits in ((-100, False), (-100, True), (2, True), (0, False)):
                x0 = _data(rng, (N, C), kind, dtype)
                lab = _labels(rng, N, C, ii, hits)
                if C > 2:       # (labels [N, 1] too)
                    lab = lab.reshape(N, 1) if N % 2 else lab.astype(np.int32)
                _same(lambda x, y, ii=ii, r=reduction: F.cross_entropy(
                    x, y, ignore_index=ii, reduction=r), x0, lab, monkeypatch)


def test_all_labels_ignored_and_the_fused_path_is_taken(monkeypatch):
    rng = np.random.default_rng(13)
    x0 = rng.standard_normal((16, 8)).astype(np.float32)
    lab = np.full(16, 3)
    for fn in (lambda x, y: F.nll_loss(x, y, ignore_index=3),
               lambda x, y: F.cross_entropy(x, y, ignore_index=3),
               lambda x, y: F.cross_entropy(x, y, ignore_index=3, reduction="sum")):
        _same(fn, x0, lab, monkeypatch)
    calls = []
    real = L._fused_kernels
    monkeypatch.setattr(L, "_fused_kernels", lambda d: calls.append(1) or real(d))
    x = paddle.to_tensor(x0, stop_gradient=False)
    y = paddle.to_tensor(rng.integers(0, 8, 16))
    F.nll_loss(x, y)
    F.cross_entropy(x, y)
    assert len(calls) == 2 and real(x0) is not None


@pytest.mark.parametrize("fn, what", [(F.nll_loss, "nll_loss"),
                                      (F.cross_entropy, "cross_entropy")])
def test_bad_labels_raise_the_same_error(fn, what):
    x = paddle.to_tensor(np.zeros((16, 8), np.float32), stop_gradient=False)
    for bad in (8, -1, 100):
        lab = np.arange(16) % 8
        lab[5] = bad
        with pytest.raises(ValueError, match=rf"{what}: labels must lie in \[0, 8\)"):
            fn(x, paddle.to_tensor(lab))


def test_no_grad_and_constant_input_record_nothing():
    x0 = np.random.default_rng(14).standard_normal((16, 8)).astype(np.float32)
    lab = paddle.to_tensor(np.arange(16) % 8)
    with paddle.no_grad():
        a = F.cross_entropy(paddle.to_tensor(x0, stop_gradient=False), lab)
    b = F.nll_loss(paddle.to_tensor(x0), lab)
    assert a._node is None and b._node is None
    assert a.shape == b.shape == [] and a.dtype == b.dtype == paddle.float32


def _special(rng, shape, dtype):
    x = (rng.standard_normal(shape) * 10 ** rng.uniform(-3, 3, shape)).astype(dtype)
    flat = x.reshape(-1)
    specials = (np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-30, -1e-30, 89.0, -89.0,
                710.0, -710.0)
    for v in () if x.size == 0 else specials:
        flat[rng.integers(0, flat.size, max(1, flat.size // 20))] = v
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_soft_margin_compiled_forward_is_the_numpy_one(dtype):
    kernels = M.compiled_input("forward_loss", np.zeros(1, dtype))
    assert kernels is not None
    rng = np.random.default_rng(15)
    for shape in [(0,), (1,), (7,), (32, 64), (3, 5, 7), (1000,)]:
        for labels in ("sign", "float", "special"):
            x = _special(rng, shape, dtype)
            y = np.sign(rng.standard_normal(shape)).astype(dtype) if labels == "sign" else \
                _special(rng, shape, dtype) if labels == "special" else \
                rng.standard_normal(shape).astype(dtype)
            with np.errstate(all="ignore"):
                got = M._soft_margin_forward(x, y)
                want = M._soft_margin_numpy(x, y)
            for a, b in zip([got[0], *got[1]], [want[0], *want[1]]):
                assert a.dtype == b.dtype == dtype and a.shape == b.shape == shape
                # bit for bit but a NaN's sign: numpy's own differs between its SIMD loops
                # and their scalar tails (np.maximum(-nan, 0) + nan), as Numba's may
                nan = np.isnan(a)
                assert np.array_equal(nan, np.isnan(b))
                assert a[~nan].tobytes() == b[~nan].tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_soft_margin_loss_equals_the_composite(dtype, reduction):
    rng = np.random.default_rng(16)

    def run(fn, x0, y0, label_grad):
        x = paddle.to_tensor(x0, stop_gradient=False)
        y = paddle.to_tensor(y0, stop_gradient=not label_grad)
        loss = fn(x, y)
        (loss.sum() if loss.ndim else loss).backward()
        return [loss.numpy(), x.grad.numpy()] + ([y.grad.numpy()] if label_grad else [])

    def old(x, y):
        return L._reduce(softplus(-y * x, threshold=float("inf")), reduction)

    for shape in [(32, 64), (5,), (2, 3, 4)]:
        for labels in ("sign", "float", "special"):
            x0 = _special(rng, shape, dtype) if labels == "special" else \
                rng.standard_normal(shape).astype(dtype) * 5
            y0 = np.sign(rng.standard_normal(shape)).astype(dtype) if labels == "sign" else \
                rng.standard_normal(shape).astype(dtype)
            for label_grad in (False, True):
                with np.errstate(all="ignore"):
                    got = run(lambda x, y: F.soft_margin_loss(x, y, reduction=reduction),
                              x0, y0, label_grad)
                    want = run(old, x0, y0, label_grad)
                for a, b in zip(got, want):
                    assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_soft_margin_loss_int_labels_and_one_node():
    x = paddle.to_tensor(np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4),
                         stop_gradient=False)
    lab = np.where(np.arange(12).reshape(3, 4) % 3, 1, -1)
    loss = F.soft_margin_loss(x, paddle.to_tensor(lab), reduction="none")
    assert loss._node.op.name == "soft_margin" and loss.dtype == paddle.float32
    want = np.log1p(np.exp(-lab * x.numpy().astype(np.float64)))
    np.testing.assert_allclose(loss.numpy(), want, rtol=1e-6)


def _hinge_composite(x, y, margin, reduction):
    lab = y.numpy()
    loss = M._where_label(lab, 1, x) + M._where_label(lab, -1, paddle.nn.functional.relu(
        float(margin) - x))
    return L._reduce(loss, reduction)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hinge_embedding_compiled_forward_is_the_numpy_one(dtype):
    rng = np.random.default_rng(17)
    for shape in [(0,), (1,), (7,), (32, 64), (3, 5, 7)]:
        for margin in (1.0, 0.0, -0.5, 2.5, np.inf, np.nan):
            x = _special(rng, shape, dtype)
            y = rng.choice(np.array([1, -1, 0, 2, np.nan, -0.0], dtype), shape)
            found = M.compiled_input("forward_loss", x, y)
            out, slope = np.empty_like(x), np.empty_like(x)
            found[0].hinge_embedding(x.reshape(-1), y.reshape(-1),
                                     *M._hinge_scalars(x.dtype.type, margin), out.reshape(-1),
                                     slope.reshape(-1))
            with np.errstate(all="ignore"):
                want = M._hinge_forward(x, y, margin)
                want_slope = M._hinge_slope(_NUMPY_MATHS[x.dtype], x, y, want, margin)
            for a, b in ((out, want), (slope, want_slope)):
                assert a.dtype == b.dtype == dtype and a.shape == b.shape == shape
                nan = np.isnan(a)               # (a NaN's sign: see the soft margin test)
                assert np.array_equal(nan, np.isnan(b))
                assert a[~nan].tobytes() == b[~nan].tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_hinge_embedding_loss_equals_the_composite(dtype, reduction, monkeypatch):
    rng = np.random.default_rng(18)
    for shape in [(32, 64), (5,), (2, 3, 4)]:
        for labels in ("sign", "mixed", "int"):
            for margin in (1.0, 0.3, -1.0):
                x0 = _special(rng, shape, dtype) if labels == "mixed" else \
                    rng.standard_normal(shape).astype(dtype) * 2
                y0 = rng.choice(np.array([1, -1], dtype), shape) if labels == "sign" else \
                    rng.choice(np.array([1, -1, 0, 3], np.int64), shape) if labels == "int" \
                    else rng.choice(np.array([1, -1, 0.5, np.nan], dtype), shape)
                results = []
                for mode in ("fused", "composite", "numpy"):
                    with monkeypatch.context() as m, np.errstate(all="ignore"):
                        if mode == "numpy":     # the op without its compiled forward
                            m.setattr(M, "compiled_input", lambda *a: None)
                        x = paddle.to_tensor(x0, stop_gradient=False)
                        y = paddle.to_tensor(y0)
                        loss = _hinge_composite(x, y, margin, reduction) \
                            if mode == "composite" else \
                            F.hinge_embedding_loss(x, y, margin, reduction)
                        (loss.sum() if loss.ndim else loss).backward()
                        results.append((loss.numpy(), x.grad.numpy()))
                for (out, gx) in results[1:]:
                    nan = np.isnan(out)
                    assert np.array_equal(nan, np.isnan(results[0][0]))
                    assert out[~nan].tobytes() == results[0][0][~nan].tobytes()
                    # the gradient: equal values (a zero's sign may differ, see the op)
                    assert np.array_equal(gx, results[0][1], equal_nan=True)


def test_hinge_embedding_loss_is_one_node_and_float64_labels_keep_the_composite():
    x = paddle.to_tensor(np.linspace(-2, 2, 8, dtype=np.float32), stop_gradient=False)
    loss = F.hinge_embedding_loss(x, paddle.to_tensor(np.array([1, -1] * 4)), reduction="none")
    assert loss._node.op.name == "hinge_embedding"
    np.testing.assert_array_equal(
        loss.numpy(), np.where(np.arange(8) % 2, np.maximum(1 - x.numpy(), 0), x.numpy()))
    # a float64 label next to float32 input: compared in float64, as before
    lab = np.array([1 + 1e-12, -1.0] * 4)
    loss = F.hinge_embedding_loss(x, lab, reduction="none")
    assert loss._node.op.name != "hinge_embedding"
    assert loss.numpy()[0] == 0


@pytest.mark.parametrize("label_grad", [False, True])
def test_soft_margin_first_and_later_backwards_agree(label_grad):
    """A graph's first backward is interpreted (the op's interp rule), later ones run the
    compiled program (its lowering): the same products, the same gradients."""
    rng = np.random.default_rng(19)
    x0 = rng.standard_normal((7, 13)).astype(np.float32) * 3
    y0 = rng.standard_normal((7, 13)).astype(np.float32)
    runs = [_soft_margin_grads(x0, y0, label_grad) for _ in range(4)]
    for r in runs[1:]:
        for a, b in zip(r, runs[0]):
            assert a.tobytes() == b.tobytes()


def _soft_margin_grads(x0, y0, label_grad):
    x = paddle.to_tensor(x0, stop_gradient=False)
    y = paddle.to_tensor(y0, stop_gradient=not label_grad)
    F.soft_margin_loss(x * 1.5, y).backward()
    return [x.grad.numpy()] + ([y.grad.numpy()] if label_grad else [])


def _kl_composite(x, y, reduction):
    pos = y._data > 0
    logy = paddle.to_tensor(np.log(np.where(pos, y._data, 1)).astype(x.numpy().dtype))
    loss = y * (logy - x)
    if reduction == "batchmean":
        return loss.sum() / float(x.shape[0] if x.ndim else 1)
    return L._reduce(loss, reduction, ("batchmean",))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["batchmean", "mean", "sum", "none"])
def test_kl_div_is_one_node_equal_to_the_composite(dtype, reduction):
    rng = np.random.default_rng(20)
    for shape in [(32, 64), (5,), (2, 3, 4)]:
        for kind in ("plain", "special"):
            x0 = np.log(rng.random(shape)).astype(dtype) if kind == "plain" else \
                _special(rng, shape, dtype)
            y0 = rng.random(shape).astype(dtype)
            if kind == "special":
                y0 = _special(rng, shape, dtype)
                y0.reshape(-1)[::5] = 0.0
            results = []
            for fn in (lambda x, y: F.kl_div(x, y, reduction=reduction),
                       lambda x, y: _kl_composite(x, y, reduction)):
                with np.errstate(all="ignore"):
                    x = paddle.to_tensor(x0, stop_gradient=False)
                    loss = fn(x, paddle.to_tensor(y0))
                    (loss.sum() if loss.ndim else loss).backward()
                    results.append([loss.numpy(), x.grad.numpy()])
            for a, b in zip(*results):
                assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    x = paddle.to_tensor(np.zeros((2, 3), np.float32), stop_gradient=False)
    assert F.kl_div(x, np.ones((2, 3), np.float32), reduction="none")._node.op.name == "kl_div"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bce_compiled_forward_is_the_numpy_one(dtype):
    from jitgrad.ops import bce as B
    rng = np.random.default_rng(21)
    for shape in [(0,), (1,), (7,), (32, 64), (3, 5, 7)]:
        for kind in ("plain", "edges", "special"):
            p = rng.random(shape).astype(dtype)
            y = rng.random(shape).astype(dtype)
            if kind == "edges" and p.size:      # log 0 = -inf (clamped at -100), tiny p
                p.reshape(-1)[::3] = rng.choice(np.array([0, 1, 1e-30, 1 - 1e-7, 5e-45,
                                                          -0.0], dtype), p.reshape(-1)[::3].shape)
                y.reshape(-1)[::2] = rng.choice(np.array([0, 1], dtype), y.reshape(-1)[::2].shape)
            if kind == "special":
                p, y = _special(rng, shape, dtype), _special(rng, shape, dtype)
            with np.errstate(all="ignore"):
                got = B._bce_forward(p, y)
                want = B._bce_numpy(p, y)
            for a, b in zip([got[0], *got[1]], [want[0], *want[1]]):
                assert a.dtype == b.dtype == dtype and a.shape == b.shape == shape
                nan = np.isnan(a)               # (a NaN's sign: see the soft margin test)
                assert np.array_equal(nan, np.isnan(b))
                assert a[~nan].tobytes() == b[~nan].tobytes()
