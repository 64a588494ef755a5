"""One-pass forwards of cumprod, cross, the Euclidean distance (l2_distance: dist,
pairwise_distance, triplet_margin_loss) and renorm (vm/forward.py): the numpy forward's
values and saves bit for bit (signed zeros, NaN, infinities included), fewer nodes, and
gradients of every order unchanged."""

import numpy as np
import pytest
from bitwise import graph_nodes, same_bits

import jitgrad as paddle
import jitgrad.nn.functional as F
from jitgrad.core.tensor import Tensor
from jitgrad.ops.composites import _cross_forward, _cross_np
from jitgrad.ops.margin_losses import _difference, _l2_distance_forward
from jitgrad.ops.numeric import renorm_scale_op
from jitgrad.ops.registry import REGISTRY
from jitgrad.ops.scan import _cumprod_forward, _cumprod_np, _save_cumprod
from jitgrad.ops.stats import _l2_forward
from jitgrad.testing import check_grads

SPECIAL = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-30, -1e30, -1.0, 3.0, 1e-20])


@pytest.fixture(scope="module", autouse=True)
def _numba_loaded():
    paddle.warmup(quiet=True)           # the kernels run once the interpreter is loaded


def _values(shape, dtype, kind, lo=-2.0, hi=2.0, seed=0):
    """Uniform values; kind 1: a quarter of them special (zeros, nan, inf, tiny, huge);
    kind 2: every third one zero; kind 3: of magnitude ~1e19 (products overflow)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(lo, hi, shape)
    if kind == 1 and x.size:
        idx = rng.integers(0, x.size, max(1, x.size // 4))
        x.flat[idx] = rng.choice(SPECIAL, idx.size)
    elif kind == 2:
        x.flat[::3] = 0.0
    elif kind == 3:
        x = x * 1e19
    return x.astype(dtype)


def _other_layout(x):
    """x's values in an array that is not C-contiguous (Fortran order, a strided view)."""
    if x.ndim >= 2:
        return np.asfortranarray(x)
    return np.repeat(x, 2)[::2] if x.ndim else x


def _leaf(a):
    t = paddle.to_tensor(a)
    t.stop_gradient = False
    return t


DTYPES = (np.float32, np.float64)


# ---- cumprod ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1,), (5,), (32, 64), (2, 3, 4), (4, 1), (1, 4),
                                   (3, 7, 5, 2), (100, 3), (2, 130), (7, 6)])
def test_cumprod_kernel_gives_numpys_output_and_saves(shape, dtype):
    for kind in range(4):
        x = _values(shape, dtype, kind, 0.5, 1.5) if kind != 1 else _values(shape, dtype, 1)
        for axis in range(len(shape)):
            for reverse in (False, True):
                with np.errstate(all="ignore"):
                    want = _cumprod_np(x, axis, reverse)
                    want_saves = _save_cumprod(want, x, axis, reverse)
                    for view in (x, _other_layout(x), np.repeat(x, 2, -1)[..., ::2]):
                        out, saves = _cumprod_forward(view, axis, reverse, True)
                        same_bits(out, want)
                        for got, w in zip(saves, want_saves):
                            same_bits(got, w)
                        same_bits(_cumprod_forward(view, axis, reverse)[0], want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumprod_records_the_kernels_saves(dtype):
    x = _values((6, 5), dtype, 1)
    for dim in (0, 1, -1, -2):
        with np.errstate(all="ignore"):
            y = paddle.cumprod(_leaf(x), dim=dim)
            axis = dim % 2
            want = np.cumprod(x, axis=axis)
            same_bits(y._data, want)
            assert y._node.op is REGISTRY["cumprod"] and \
                y._node.attrs == {"axis": axis, "reverse": False}
            for got, w in zip(y._node.saved, _save_cumprod(want, x, axis, False)):
                same_bits(got, w)
    for shape, dim in (((), 0), ((), -1), ((1,), 0), ((3, 4), None), ((1, 1), 1)):
        x = _values(shape, dtype, 0, 0.5, 1.5)
        y = paddle.cumprod(_leaf(x), dim=dim)
        same_bits(y._data, np.cumprod(x, axis=dim).reshape(y._data.shape) if shape else x)
        with paddle.no_grad():
            same_bits(paddle.cumprod(_leaf(x), dim=dim)._data, y._data)


def test_cumprod_gradients_at_zeros_all_orders():
    x = np.array([[0.5, 0.0, 1.5, -2.0, 0.7], [0.0, 0.0, 1.1, 0.9, -0.4]])
    for dim in (0, 1):
        check_grads(lambda t, dim=dim: paddle.cumprod(t, dim=dim), x, order=2)


# ---- cross -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_cross_kernel_gives_numpys_output_and_saves(dtype):
    for shape, axis in (((3,), 0), ((32, 3), 1), ((3, 5), 0), ((2, 3, 4), 1), ((4, 2, 3), 2),
                        ((1, 3), 1)):
        for kind in range(4):
            x, y = _values(shape, dtype, kind, seed=1), _values(shape, dtype, kind, seed=2)
            with np.errstate(all="ignore"):
                want, want_saves = _cross_np(x, y, axis)
                for a, b in ((x, y), (_other_layout(x), _other_layout(y))):
                    out, saves = _cross_forward(a, b, axis)
                    same_bits(out, want)
                    for got, w in zip(saves, want_saves):
                        same_bits(got, w)
                t = paddle.cross(_leaf(x), _leaf(y), axis=axis)
                same_bits(t._data, want)


def test_cross_gradients_all_orders():
    rng = np.random.default_rng(0)
    check_grads(lambda a, b: paddle.cross(a, b, axis=1), rng.standard_normal((4, 3)),
                rng.standard_normal((4, 3)), order=2)


# ---- l2_distance: dist, pairwise_distance, triplet_margin_loss -----------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_l2_distance_kernel_gives_the_composites_values(dtype):
    for shape, axes in (((32, 64), (1,)), ((32, 64), None), ((5,), (0,)), ((5,), None),
                        ((), None), ((2, 3, 4), (2,)), ((2, 3, 4), (1, 2)), ((7, 300), (1,)),
                        ((3, 1), (1,)), ((2, 3, 4), (0,))):
        for kind in range(4):
            x, y = _values(shape, dtype, kind, seed=1), _values(shape, dtype, kind, seed=2)
            if kind == 2:
                y = x.copy()            # zero distances: weights 0, not nan
            for eps in (0.0, 1e-6):
                for keepdim in (False, True):
                    with np.errstate(all="ignore"):
                        want, (ww,) = _l2_forward(_difference(x, y, eps), axes, keepdim)
                        for a in (x, _other_layout(x)):
                            out, (w,) = _l2_distance_forward(a, y, eps, axes, keepdim)
                            same_bits(out, want)
                            same_bits(w, ww)


def _composite_pairwise(x, y, eps, keepdim):
    d = x - y
    if eps:
        d = d + eps
    return paddle.linalg.norm(d, p=2, axis=-1, keepdim=keepdim)


@pytest.mark.parametrize("dtype", DTYPES)
def test_distances_are_one_node_with_the_composites_values(dtype):
    rng = np.random.default_rng(0)
    x, y, z = (rng.standard_normal((8, 16)).astype(dtype) for _ in range(3))
    tx, ty, tz = _leaf(x), _leaf(y), _leaf(z)
    for eps, keepdim in ((1e-6, False), (0.0, True), (0.5, False)):
        got = F.pairwise_distance(tx, ty, epsilon=eps, keepdim=keepdim)
        assert graph_nodes(got) == 1
        same_bits(got._data, _composite_pairwise(tx, ty, eps, keepdim)._data)
    got = paddle.dist(tx, ty)
    assert graph_nodes(got) == 1
    same_bits(got._data, paddle.linalg.norm(tx - ty)._data)
    loss = F.triplet_margin_loss(tx, ty, tz)
    assert graph_nodes(loss) == 6                # 2 distances, subtract, add, clip, mean
    dp = _composite_pairwise(tx, ty, 1e-6, False)
    dn = _composite_pairwise(tx, tz, 1e-6, False)
    same_bits(loss._data, paddle.clip(dp - dn + 1.0, min=0.0).mean()._data)


def test_distance_gradients_all_orders():
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal((3, 4)) for _ in range(3))
    check_grads(lambda x, y: F.pairwise_distance(x, y), a, b, order=2)
    check_grads(lambda x, y: F.pairwise_distance(x, y, epsilon=0.0, keepdim=True), a, b,
                order=2)
    check_grads(lambda x, y: paddle.dist(x, y), a, b, order=2)
    check_grads(lambda x, y, z: F.triplet_margin_loss(x, y, z, margin=3.0), a, b, c, order=2)
    check_grads(lambda x, y, z: F.triplet_margin_loss(x, y, z, margin=3.0, swap=True), a, b,
                c, order=2)


def test_a_zero_distance_has_a_zero_gradient():
    x = _leaf(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    y = _leaf(np.array([[1.0, 2.0], [0.0, 4.0]], np.float32))
    for dist in (lambda: F.pairwise_distance(x, y, epsilon=0.0), lambda: paddle.dist(x[0], y[0])):
        x.clear_grad()
        y.clear_grad()
        dist().sum().backward()
        assert np.isfinite(x.grad.numpy()).all() and np.isfinite(y.grad.numpy()).all()
        np.testing.assert_array_equal(x.grad.numpy()[0], 0.0)
        np.testing.assert_array_equal(x.grad.numpy(), -y.grad.numpy())


# ---- renorm ----------------------------------------------------------------------------------

def _renorm_composite(x, p, axis, max_norm):
    """renorm as it was composed before renorm_scale: norm, then where, divide, add and
    multiply (its values are renorm's, bit for bit)."""
    others = [d for d in range(x.ndim) if d != axis % x.ndim]
    norm = paddle.linalg.vector_norm(x, p, others, keepdim=True) if others else paddle.abs(x)
    big = Tensor._make(norm._data > max_norm)
    factor = paddle.where(big, max_norm / (norm + 1e-7), paddle.to_tensor(1.0, x.dtype))
    return x * factor


@pytest.mark.parametrize("dtype", DTYPES)
def test_renorm_gives_the_composites_values_and_the_ops_saves(dtype):
    for shape in ((32, 64), (5,), (2, 3, 4), (4, 1), (6, 2, 5)):
        for kind in range(4):
            x = _values(shape, dtype, kind)
            if kind == 2 and x.ndim > 1:
                x[0] = 0.0
            for p, axis, max_norm in ((2.0, 0, 1.0), (2, 0, 5), (2.0, 0, 0.1), (2.0, -1, 1.0),
                                      (1.0, 0, 1.0), (3.0, 0, 2.0), (np.inf, 0, 1.0)):
                with np.errstate(all="ignore"):
                    t = _leaf(x)
                    got = paddle.renorm(t, p, axis, max_norm)
                    same_bits(got._data, _renorm_composite(t, p, axis, max_norm)._data)
                    node = got._node
                    assert node.op is renorm_scale_op
                    assert graph_nodes(got) == 2 or p != 2 or x.ndim == 1   # (the norm, the scale)
                    xd, n = (i._data for i in node.inputs)
                    attrs = {"max_norm": float(max_norm)}
                    same_bits(got._data, renorm_scale_op.forward(xd, n, **attrs))
                    for s, w in zip(node.saved,
                                    renorm_scale_op.save((True, True), got._data, xd, n, **attrs)):
                        same_bits(s, w)
                    norm_node = node.inputs[1]._node
                    if norm_node.op.name == "l2_norm":
                        want, (ww,) = _l2_forward(x, norm_node.attrs["axes"], True)
                        same_bits(n, want)
                        same_bits(norm_node.saved[0], ww)


def test_renorm_gradients_all_orders():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5))
    x[1] *= 0.1                         # a row below max_norm: unchanged
    for p, axis in ((2.0, 0), (2.0, 1), (1.0, 0), (3.0, 1)):
        check_grads(lambda t, p=p, axis=axis: paddle.renorm(t, p, axis, 1.0), x, order=2)
    check_grads(lambda t: paddle.renorm(t, 2.0, 0, 0.5), rng.standard_normal(6), order=2)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(32, 64), (5, 3), (7, 1), (4, 200), (2, 3, 130), (9,)])
@pytest.mark.parametrize("add, eps", [(False, 1e-8), (True, 1e-11), (False, 0.5)])
def test_cosine_kernel_gives_the_numpy_values(shape, dtype, add, eps, monkeypatch):
    """ops/cosine.py's one pass along the last axis (vm/forward.py cos_rows): the cosine
    and both gradient weights of the numpy passes bit for bit, zero rows (clipped) and
    NaN included."""
    from jitgrad.ops import cosine
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal(shape).astype(dtype), rng.standard_normal(shape).astype(dtype)
    a.reshape(-1)[0] = np.nan
    if a.ndim > 1:
        b[..., 0, :] = 0.0
    with np.errstate(all="ignore"):
        got = cosine._cos_forward(a, b, a.ndim - 1, eps, add)
        monkeypatch.setattr(cosine, "compiled_input", lambda *args: None)
        want = cosine._cos_forward(a, b, a.ndim - 1, eps, add)
    for g, w in zip((got[0],) + got[1], (want[0],) + want[1]):
        same_bits(g, w)


def test_cosine_similarity_and_embedding_loss_are_one_cosine_node():
    rng = np.random.default_rng(8)
    x1 = paddle.to_tensor(rng.standard_normal((6, 5)), stop_gradient=False)
    x2 = paddle.to_tensor(rng.standard_normal((6, 5)), stop_gradient=False)
    y = F.cosine_similarity(x1, x2, axis=1)
    assert y._node.op.name == "cosine"
    a, b = x1.numpy(), x2.numpy()
    want = (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-14)
    lab = paddle.to_tensor(np.array([1, -1, 1, 1, -1, -1]))
    loss = F.cosine_embedding_loss(x1, x2, lab)
    ops = set()
    stack = [loss._node]
    while stack:
        n = stack.pop()
        if n is not None:
            ops.add(n.op.name)
            stack.extend(t._node for t in n.inputs)
    assert "cosine" in ops and "sqrt" not in ops
    check_grads(lambda u, v: F.cosine_similarity(u, v, axis=1).sum(), a, b)
    check_grads(lambda u, v: F.cosine_embedding_loss(u, v, lab), a, b)
    check_grads(lambda u, v: F.cosine_similarity(u, v, axis=1).sum(), a, b, order=2)
