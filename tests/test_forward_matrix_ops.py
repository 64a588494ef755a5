"""Faster forwards of outer, addmm, dot, put_along_axis / scatter_reduce 'sum' and cummax /
cummin give what they gave before, bit for bit:

- outer: one fused node (ops/outer_product.py, vm/forward_matrix.py's loop) with
  np.matmul's values of x as a column times y as a row (NaN, infinities, signed zeros,
  underflowing products), the composite's gradients (compiled, interpreted, create_graph);
- addmm with beta = alpha = 1: one node (ops/addmm_fused.py), the composite's output and
  gradients bit for bit;
- dot of two float vectors: matmul's node and call without the wrapper layers;
- put_along_axis 'assign' / 'add' and scatter_reduce 'sum': the positions, output and saved
  masks in one compiled call (vm/forward_gather.py along_assign / along_add), the same
  put_flat node as the general path;
- cummax / cummin along the last axis: the indices, the take_flat table and the values in
  one compiled pass (running_picks), the same node as before.
"""

import contextlib

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad import vm
from jitgrad.ops import core
from jitgrad.ops.outer_product import _forward as outer_forward

SPECIAL = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5,
           1e-30, -1e-30, 1e30, -1e30, 1e-40, 1e-300, -1e-300, 1e300, 3.0, -7.0]
DTYPES = (np.float32, np.float64)
SHAPES = [((), ()), ((1,), (1,)), ((7,), (5,)), ((32,), (64,)), ((3, 5), (2, 1, 3)),
          ((0,), (4,)), ((4,), (0,)), ((33,), (65,)), ((100,), (3,))]


@pytest.fixture(scope="module", autouse=True)
def _numba_loaded():
    paddle.warmup(quiet=True)           # the kernels run once the interpreter is loaded


@contextlib.contextmanager
def _numpy_path(module="forward_matrix"):
    saved = core._KERNELS.pop(module, None)
    real = vm.compiled_forwards
    vm.compiled_forwards = lambda m: None if m == module else real(m)
    try:
        yield
    finally:
        vm.compiled_forwards = real
        if saved is not None:
            core._KERNELS[module] = saved


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


def _values(shape, dt, rng, special):
    with np.errstate(over="ignore"):
        if special:
            return np.array(rng.choice(SPECIAL, size=shape), dt)
        return rng.standard_normal(shape).astype(dt)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("special", (False, True))
def test_outer_forward_bits(dt, special):
    rng = np.random.default_rng(7)
    for xs, ys in SHAPES:
        for _ in range(4):
            x, y = _values(xs, dt, rng, special), _values(ys, dt, rng, special)
            with np.errstate(all="ignore"):
                ref = np.matmul(x.reshape(-1, 1), y.reshape(1, -1))
            got = outer_forward(x, y)
            with _numpy_path(), np.errstate(all="ignore"):
                slow = outer_forward(x, y)
            assert got.dtype == ref.dtype and got.shape == ref.shape
            assert _bits(got) == _bits(ref), (xs, ys)
            assert _bits(slow) == _bits(ref), (xs, ys)
            # through the public op, one node
            out = paddle.outer(paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(y))
            assert _bits(out.numpy()) == _bits(ref)
            assert out._node is not None and out._node.op.name == "outer"


def test_outer_forward_strided():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 4)).astype(np.float32)[:, ::2]
    y = rng.standard_normal(9)[::3]
    got = outer_forward(x, y.astype(np.float32))
    ref = np.matmul(x.reshape(-1, 1), y.astype(np.float32).reshape(1, -1))
    assert _bits(got) == _bits(ref)
    # a non-contiguous tensor (a transpose) and a float64 pair
    got = paddle.outer(paddle.to_tensor(x.T.copy()).t(), paddle.to_tensor(y))
    assert np.allclose(got.numpy(), np.outer(x, y), atol=1e-6)


def test_outer_other_dtypes_use_the_composite():
    out = paddle.outer(paddle.to_tensor([1, 2, 3]), paddle.to_tensor([2, -1]))
    assert out.dtype == paddle.int64
    np.testing.assert_array_equal(out.numpy(), [[2, -1], [4, -2], [6, -3]])
    a = paddle.to_tensor(np.array([1.5, 2.0], np.float32), stop_gradient=False)
    b = paddle.to_tensor(np.array([2.0, 3.0]), stop_gradient=False)
    out = paddle.outer(a, b)                # mixed float dtypes: the composite promotes
    (out * out).sum().backward()
    assert a.grad is not None and b.grad is not None
    with pytest.raises(TypeError, match="outer"):
        paddle.outer([1.0, 2.0], b)


def _composite(x, y):
    return paddle.matmul(paddle.reshape(x, [-1, 1]), paddle.reshape(y, [1, -1]))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("xs,ys", [((32,), (64,)), ((3, 2), (5,)), ((), (3,)), ((4,), (1,))])
def test_outer_gradients(dt, xs, ys):
    """The compiled backward (run twice: the second a cached Program), the interpreted first
    backward and create_graph's agree with the composite's gradients."""
    rng = np.random.default_rng(11)
    xv, yv = rng.standard_normal(xs).astype(dt), rng.standard_normal(ys).astype(dt)
    c = paddle.to_tensor(rng.standard_normal((xv.size, yv.size)).astype(dt))
    want = []
    for f in (_composite, paddle.outer):
        x = paddle.to_tensor(xv, stop_gradient=False)
        y = paddle.to_tensor(yv, stop_gradient=False)
        got = []
        for _ in range(3):
            (f(x, y) * c).sum().backward()
            got.append((x.grad.numpy().copy(), y.grad.numpy().copy()))
            x.clear_grad()
            y.clear_grad()
        gx, gy = paddle.grad((f(x, y) * c).sum(), [x, y], create_graph=True)
        got.append((gx.numpy(), gy.numpy()))
        want.append(got)
    tol = 1e-5 if dt == np.float32 else 1e-12
    for (cx, cy), (fx, fy) in zip(*want):
        assert fx.shape == cx.shape and fy.shape == cy.shape
        np.testing.assert_allclose(fx, cx, rtol=tol, atol=tol)
        np.testing.assert_allclose(fy, cy, rtol=tol, atol=tol)


def test_outer_only_one_input_needs_a_gradient():
    x = paddle.to_tensor(np.arange(3.0), stop_gradient=False)
    y = paddle.to_tensor(np.array([1.0, -2.0]))
    for _ in range(2):
        (paddle.outer(x, y) ** 2).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), 2 * np.arange(3.0) * 5.0)
        x.clear_grad()
    (paddle.outer(y, x) ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.arange(3.0) * 5.0)


# ---- addmm with beta = alpha = 1: one node (ops/addmm_fused.py) ---------------------------

def _addmm_composite(i, x, y):
    return i * 1.0 + paddle.matmul(x, y) * 1.0


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("ishape", [(4, 5), (5,), (1, 5), (4, 1), (), (1,), (1, 1)])
@pytest.mark.parametrize("special", (False, True))
def test_addmm_matches_the_composite_bitwise(dt, ishape, special):
    """Output and every gradient (compiled, cached, interpreted first backward) bit for bit
    the composite's; the node is the fused one."""
    rng = np.random.default_rng(5)
    iv = _values(ishape, dt, rng, special)
    xv, yv = _values((4, 3), dt, rng, special), _values((3, 5), dt, rng, False)
    cv = rng.standard_normal((4, 5)).astype(dt)
    got = {}
    for f in (_addmm_composite, paddle.addmm):
        i, x, y = (paddle.to_tensor(v, stop_gradient=False) for v in (iv, xv, yv))
        c = paddle.to_tensor(cv)
        rows = []
        with np.errstate(all="ignore"):
            for _ in range(3):
                out = f(i, x, y)
                (out * c).sum().backward()
                rows.append([out.numpy()] + [t.grad.numpy().copy() for t in (i, x, y)])
                for t in (i, x, y):
                    t.clear_grad()
        got[f] = (rows, out._node.op.name)
    assert got[paddle.addmm][1] == "addmm"
    for a, b in zip(got[_addmm_composite][0], got[paddle.addmm][0]):
        for u, v in zip(a, b):
            assert u.shape == v.shape and _bits(u) == _bits(v)


def test_addmm_product_paths():
    """A strided operand (np.matmul) and a large product (the BLAS path) give matmul's
    values; non-unit beta/alpha, a 3-D input, mixed dtypes keep the composite."""
    rng = np.random.default_rng(2)
    x = paddle.to_tensor(rng.standard_normal((70, 80)).astype(np.float32)).t()
    y = paddle.to_tensor(rng.standard_normal((70, 60)).astype(np.float32))
    i = paddle.to_tensor(rng.standard_normal(60).astype(np.float32))
    assert _bits(paddle.addmm(i, x, y).numpy()) == _bits((i + paddle.matmul(x, y)).numpy())
    xb = paddle.to_tensor(rng.standard_normal((70, 80)).astype(np.float32))
    yb = paddle.to_tensor(rng.standard_normal((80, 60)).astype(np.float32))
    assert _bits(paddle.addmm(i, xb, yb).numpy()) == \
        _bits((i + paddle.matmul(xb, yb)).numpy())
    w = paddle.to_tensor(rng.standard_normal((3, 4)), stop_gradient=False)
    a = paddle.to_tensor(rng.standard_normal((3, 2)))
    b = paddle.to_tensor(rng.standard_normal((2, 4)))
    out = paddle.addmm(w, a, b, beta=0.5, alpha=2.0)
    np.testing.assert_allclose(out.numpy(), 0.5 * w.numpy() + 2.0 * a.numpy() @ b.numpy())
    assert out._node.op.name != "addmm"
    with pytest.raises(ValueError, match="addmm"):
        paddle.addmm(paddle.to_tensor(np.zeros((2, 3, 4))), a, b)
    with pytest.raises(ValueError, match="addmm"):
        paddle.addmm(paddle.to_tensor(np.zeros((5, 4))), a, b)
    with pytest.raises(ValueError, match="addmm"):
        paddle.addmm(w, a, paddle.to_tensor(np.zeros((3, 4))))


def test_addmm_create_graph():
    rng = np.random.default_rng(4)
    iv, xv, yv = rng.standard_normal(4), rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    grads = []
    for f in (_addmm_composite, paddle.addmm):
        i, x, y = (paddle.to_tensor(v, stop_gradient=False) for v in (iv, xv, yv))
        out = f(i, x, y)
        gs = paddle.grad((out * out).sum(), [i, x, y], create_graph=True)
        second = paddle.grad(sum((g * g).sum() for g in gs), [x])[0]
        grads.append([g.numpy() for g in gs] + [second.numpy()])
    for u, v in zip(*grads):
        np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-12)


# ---- dot of two float vectors: matmul's node, called directly ------------------------------

@pytest.mark.parametrize("dt", DTYPES)
def test_dot_vectors_bitwise(dt):
    rng = np.random.default_rng(9)
    for n in (1, 3, 64, 1000, 0):
        for special in (False, True):
            xv, yv = _values((n,), dt, rng, special), _values((n,), dt, rng, special)
            x = paddle.to_tensor(xv, stop_gradient=False)
            y = paddle.to_tensor(yv, stop_gradient=False)
            with np.errstate(all="ignore"):
                out = paddle.dot(x, y)
                ref = paddle.matmul(x, y)
            assert out.shape == ref.shape == [] and _bits(out.numpy()) == _bits(ref.numpy())
            assert out._node.op.name == "matmul"
    a = paddle.to_tensor(np.arange(3.0), stop_gradient=False)
    (paddle.dot(a, a) * 2).backward()
    np.testing.assert_array_equal(a.grad.numpy(), 4 * np.arange(3.0))
    out = paddle.dot(paddle.to_tensor([1, 2]), paddle.to_tensor([3, 4]))     # ints: the sum
    assert int(out.item()) == 11
    with pytest.raises(ValueError):
        paddle.dot(a, paddle.to_tensor(np.arange(4.0)))


# ---- put_along_axis 'assign' / 'add' and scatter_reduce 'sum': one compiled call ----------

_PUTS = {
    "assign": lambda x, i, v, ax: paddle.put_along_axis(x, i, v, ax),
    "add": lambda x, i, v, ax: paddle.put_along_axis(x, i, v, ax, reduce="add"),
    "scatter_sum": lambda x, i, v, ax: paddle.scatter_reduce(x, ax, i, v, "sum"),
}
_PUT_SHAPES = [((32, 64), (32, 8), 1), ((4, 5), (7, 5), 0), ((2, 3, 4), (2, 5, 4), 1),
               ((2, 3, 4), (2, 3, 9), -1), ((6,), (10,), 0), ((3, 1), (3, 4), 1)]


@contextlib.contextmanager
def _general_put_path():
    from jitgrad.ops import indexing, more_indexing
    real = indexing.put_along_compiled
    indexing.put_along_compiled = more_indexing.put_along_compiled = lambda *a: None
    try:
        yield
    finally:
        indexing.put_along_compiled = more_indexing.put_along_compiled = real


def _put_run(f, xv, iv, vv, ax, c):
    x = paddle.to_tensor(xv, stop_gradient=False)
    v = paddle.to_tensor(vv, stop_gradient=False)
    out = f(x, paddle.to_tensor(iv), v, ax)
    node = out._node
    saved = [None if s is None else s.copy() for s in node.saved]
    (out * paddle.to_tensor(c)).sum().backward()
    return out.numpy(), node.op.name, dict(node.attrs), saved, x.grad.numpy(), v.grad.numpy()


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", sorted(_PUTS))
def test_put_along_compiled_matches_the_general_path(dt, name):
    """Output, node (put_flat), its positions and saved masks bit for bit the general
    path's; gradients equal; negative indices, repeated positions, special values."""
    rng = np.random.default_rng(13)
    for shape, ishape, ax in _PUT_SHAPES:
        n = shape[ax]
        for special in (False, True):
            xv, vv = _values(shape, dt, rng, special), _values(ishape, dt, rng, special)
            iv = rng.integers(-n, n, ishape)
            c = rng.standard_normal(shape).astype(dt)
            with np.errstate(all="ignore"):
                fast = [_put_run(_PUTS[name], xv, iv, vv, ax, c) for _ in range(2)]
                with _general_put_path():
                    slow = [_put_run(_PUTS[name], xv, iv, vv, ax, c) for _ in range(2)]
            for a, b in zip(fast, slow):
                assert _bits(a[0]) == _bits(b[0]) and a[1] == b[1] == "put_flat"
                assert a[2]["reduce"] == b[2]["reduce"]
                assert a[2]["idx"].dtype == b[2]["idx"].dtype
                assert _bits(a[2]["idx"]) == _bits(b[2]["idx"])
                assert len(a[3]) == len(b[3])
                for s, t in zip(a[3], b[3]):
                    assert (s is None and t is None) or _bits(s) == _bits(t)
                np.testing.assert_array_equal(a[4], b[4])
                np.testing.assert_array_equal(a[5], b[5])


def test_put_along_compiled_errors_and_fallbacks():
    x = paddle.to_tensor(np.zeros((2, 3), np.float32))
    v = paddle.to_tensor(np.ones((2, 2), np.float32))
    for bad in (3, -4):
        i = paddle.to_tensor(np.array([[0, bad], [1, 2]]))
        with pytest.raises(IndexError):
            paddle.put_along_axis(x, i, v, 1)
        with pytest.raises(IndexError):
            paddle.scatter_reduce(x, 1, i, v, "sum")
    assert np.all(x.numpy() == 0)
    # int32 indices, a float64 source, broadcast values: the general path, same answers
    i32 = paddle.to_tensor(np.array([[0, 2], [1, 1]], np.int32))
    out = paddle.put_along_axis(x, i32, v, 1, reduce="add")
    np.testing.assert_array_equal(out.numpy(), [[1, 0, 1], [0, 2, 0]])
    out = paddle.put_along_axis(x, i32.astype("int64"), paddle.to_tensor(np.ones((2, 2))), 1)
    np.testing.assert_array_equal(out.numpy(), [[1, 0, 1], [0, 1, 0]])
    out = paddle.put_along_axis(x, i32.astype("int64"), 5.0, 1)
    np.testing.assert_array_equal(out.numpy(), [[5, 0, 5], [0, 5, 0]])


# ---- cummax / cummin along the last axis: one compiled pass -------------------------------

@contextlib.contextmanager
def _no_gather_kernels():
    with _numpy_path("forward_gather"):
        yield


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("which", ("cummax", "cummin"))
def test_cumulative_extremes_match(dt, which):
    fn = getattr(paddle, which)
    rng = np.random.default_rng(17)
    for shape, axis in (((32, 64), 1), ((5,), 0), ((3, 4, 5), -1), ((3, 4), 0), ((2, 7), None),
                        ((4, 1), 1)):
        for kind in range(3):
            xv = rng.standard_normal(shape).astype(dt)
            if kind == 1:               # ties and signed zeros
                xv = np.round(xv).astype(dt)
                xv.flat[::3] = -0.0
            if kind == 2:               # infinities and a NaN (the NaN rules' path)
                xv.flat[::4] = np.inf
                xv.flat[1::5] = -np.inf
                xv.flat[2::7] = np.nan
            for odt in ("int64", "int32"):
                got = []
                for ctx in (contextlib.nullcontext, _no_gather_kernels):
                    with ctx():
                        x = paddle.to_tensor(xv, stop_gradient=False)
                        v, i = fn(x, axis=axis, dtype=odt)
                        got.append((v.numpy(), i.numpy(), v._node.op.name,
                                    dict(v._node.attrs)))
                (v1, i1, n1, a1), (v2, i2, n2, a2) = got
                assert _bits(v1) == _bits(v2) and i1.dtype == i2.dtype
                assert _bits(i1) == _bits(i2) and n1 == n2
                assert a1["shape"] == a2["shape"] and _bits(a1["idx"]) == _bits(a2["idx"])


def test_put_along_compiled_is_taken():
    from jitgrad.ops.indexing import put_along_compiled
    x = paddle.to_tensor(np.zeros((2, 3), np.float32), stop_gradient=False)
    v = paddle.to_tensor(np.ones((2, 2), np.float32), stop_gradient=False)
    i = np.array([[0, 2], [1, -1]])
    for reduce in ("assign", "add"):
        out = put_along_compiled(x, i, v, 1, reduce)
        assert out is not None and out._node.op.name == "put_flat"
        np.testing.assert_array_equal(out._node.attrs["idx"], [0, 2, 4, 5])
    assert put_along_compiled(x, i.astype(np.int32), v, 1, "add") is None


def test_addmm_input_changed_in_place_after():
    """The fused node reads x and y, not input (its gradient only needs input's shape), as
    the composite's input * 1.0 did: changing input in place afterwards is allowed."""
    rng = np.random.default_rng(1)
    wv, xv, yv = (rng.standard_normal(s) for s in ((4, 5), (4, 3), (3, 5)))
    got = []
    for f in (_addmm_composite, paddle.addmm):
        w = paddle.to_tensor(wv, stop_gradient=False)
        x = paddle.to_tensor(xv, stop_gradient=False)
        y = paddle.to_tensor(yv)
        i = w * 2.0
        out = f(i, x, y)
        i.add_(paddle.to_tensor(1.0))
        (out * out).sum().backward()
        got.append((w.grad.numpy(), x.grad.numpy()))
    for a, b in zip(*got):
        np.testing.assert_array_equal(a, b)
