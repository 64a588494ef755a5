"""The convolution and einsum forwards' fast paths give the values of the paths they bypass.

- vm/forward_window.py im2col_pad (the columns with the zero padding and the bias's ones row
  written by the kernel) against ops/im2col.py's numpy strided-view copy, bit for bit.
- ops/conv.py conv2d's cached plan against its general path (_conv2d): values, gradients
  and the recorded ops.
- ops/matrix.py einsum's cached parse and pair plans against the uncached steps."""

import numpy as np
import pytest

import jitgrad as paddle
import jitgrad.nn.functional as F
from jitgrad.ops import conv as CV
from jitgrad.ops import im2col as I
from jitgrad.ops import matrix as M


@pytest.fixture(scope="module", autouse=True)
def compiled():
    paddle.warmup(quiet=True)


GEOMETRIES = [  # shape, ksize, stride, dil, pads, groups, ones_row
    ((2, 3, 5, 6), (3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)), 1, True),
    ((2, 4, 7, 5), (2, 3), (2, 1), (1, 2), ((0, 1), (2, 0)), 2, True),
    ((1, 2, 6, 6), (3, 2), (2, 3), (2, 1), ((1, 0), (0, 0)), 1, False),
    ((2, 2, 3, 4), (2, 2), (1, 1), (1, 1), ((3, 4), (5, 2)), 1, True),     # pads > kernel
    ((1, 4, 4, 4), (1, 1), (3, 3), (1, 1), ((2, 2), (2, 2)), 4, True),     # all-zero rows
    ((2, 3, 8, 9), (3, 3), (2, 2), (1, 1), ((1, 1), (1, 1)), 3, False),
    ((1, 1, 1, 7), (1, 3), (1, 2), (1, 2), ((0, 0), (2, 3)), 1, True),     # conv1d's form
    ((2, 2, 4, 4), (3, 3), (1, 1), (1, 1), ((0, 0), (0, 0)), 2, True),
    ((0, 2, 4, 4), (3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)), 1, True),     # empty batch
]


def _bits(a):
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


def _specials(x):
    flat = x.reshape(-1)
    if flat.size >= 4:
        flat[0], flat[1], flat[2], flat[3] = np.nan, -0.0, np.inf, -np.inf
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("geom", GEOMETRIES)
@pytest.mark.parametrize("contiguous", [True, False])
def test_im2col_pad_kernel_equals_the_numpy_copy(geom, dtype, contiguous):
    shape, ksize, stride, dil, pads, groups, ones_row = geom
    rng = np.random.default_rng(3)
    x = _specials(rng.standard_normal(shape).astype(dtype))
    if not contiguous:
        x = np.ascontiguousarray(x[:, :, :, ::-1])[:, :, :, ::-1]
        assert not x.flags.c_contiguous or x.size == 0
    got = I._im2col_np(x, ksize, stride, dil, pads, groups, ones_row)
    want = I._im2col_view(x, ksize, stride, dil, pads, groups, ones_row)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))     # bit for bit


def test_im2col_float16_takes_the_numpy_path():
    x = np.arange(2 * 3 * 5 * 5, dtype=np.float16).reshape(2, 3, 5, 5)
    args = ((3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)), 1, True)
    got = I._im2col_np(x, *args)
    assert got.dtype == np.float16
    assert np.array_equal(got, I._im2col_view(x.astype(np.float32), *args))


CONV_CALLS = [  # x shape, weight shape, bias, stride, padding, dilation, groups
    ((2, 4, 6, 6), (6, 2, 3, 3), True, 2, 1, 1, 2),
    ((2, 4, 6, 6), (6, 4, 3, 3), False, 1, "SAME", 2, 1),
    ((2, 4, 6, 7), (5, 4, 2, 3), True, [1, 2], [1, 0], [2, 1], 1),
    ((2, 4, 6, 7), (5, 4, 2, 3), True, (2, 1), [0, 1, 2, 1], 1, 1),
    ((1, 3, 5, 5), (2, 3, 3, 3), True, 1, "VALID", 1, 1),
    ((1, 1, 3, 3), (1, 1, 1, 1), True, 1, 0, 1, 1),
]


def _run(conv, xs, ws, with_bias, stride, padding, dilation, groups, dtype):
    rng = np.random.default_rng(5)
    x = paddle.to_tensor(rng.standard_normal(xs).astype(dtype), stop_gradient=False)
    w = paddle.to_tensor(rng.standard_normal(ws).astype(dtype), stop_gradient=False)
    b = paddle.to_tensor(rng.standard_normal(ws[0]).astype(dtype), stop_gradient=False) \
        if with_bias else None
    y = conv(x, w, b, stride, padding, dilation, groups)
    ops = []
    stack = [y]
    while stack:
        t = stack.pop()
        if t._node is not None:
            ops.append(t._node.op.name)
            stack.extend(t._node.inputs)
    (y * y).sum().backward()
    grads = [t.grad.numpy() for t in (x, w, b) if t is not None]
    return [y.numpy(), *grads], sorted(ops)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("call", CONV_CALLS)
def test_conv2d_plan_equals_the_general_path(call, dtype):
    def general(x, w, b, stride, padding, dilation, groups):
        return CV._conv2d(x, w, b, stride, padding, dilation, groups, "NCHW")

    for _ in range(2):                      # the second call from the cached plan
        got, got_ops = _run(F.conv2d, *call, dtype)
        want, want_ops = _run(general, *call, dtype)
        assert got_ops == want_ops
        for a, b in zip(got, want):
            assert a.dtype == b.dtype and np.array_equal(_bits(a), _bits(b))


def test_conv2d_plan_raises_as_the_general_path():
    x = paddle.to_tensor(np.ones((1, 4, 5, 5), np.float32))
    with pytest.raises(ValueError, match="do not fit"):
        F.conv2d(x, paddle.to_tensor(np.ones((2, 3, 3, 3), np.float32)))
    with pytest.raises(ValueError, match="larger than"):
        F.conv2d(x, paddle.to_tensor(np.ones((2, 4, 7, 7), np.float32)))
    with pytest.raises(ValueError):         # a bias of the wrong size: the general path
        F.conv2d(x, paddle.to_tensor(np.ones((2, 4, 3, 3), np.float32)),
                 paddle.to_tensor(np.ones(3, np.float32)))


def test_conv1d_through_the_plan_matches_numpy():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 9)).astype(np.float64)
    w = rng.standard_normal((4, 3, 3)).astype(np.float64)
    b = rng.standard_normal(4).astype(np.float64)
    y = F.conv1d(paddle.to_tensor(x), paddle.to_tensor(w), paddle.to_tensor(b), stride=2,
                 padding=1).numpy()
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1)))
    want = np.stack([np.einsum("ncl,ocl->no", xp[:, :, 2 * t:2 * t + 3], w)
                     for t in range(y.shape[2])], axis=2) + b[None, :, None]
    np.testing.assert_allclose(y, want, rtol=1e-12)


EINSUMS = [  # equation, shapes
    ("bij,jk->bik", [(3, 4, 5), (5, 6)]),
    ("bij,bjk->bik", [(3, 4, 5), (3, 5, 6)]),
    ("bij,bjk->bik", [(1, 4, 5), (3, 5, 6)]),
    ("bij,jk", [(3, 4, 5), (5, 6)]),
    ("ij,ij->", [(3, 4), (3, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (1, 4, 5)]),
    ("ii,ij->j", [(4, 4), (4, 3)]),
    ("ijk,kj->i", [(2, 3, 4), (4, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
]


@pytest.mark.parametrize("eq,shapes", [
    ("bij,bjk->ik", [(1, 4, 5), (3, 5, 6)]),   # a size-1 dim broadcast over a contracted one
    ("bij,jk->bik", [(0, 4, 5), (5, 6)]),       # and zero-size dims: as before (both raise
    ("ij,jk->ik", [(3, 0), (0, 2)]),            # reshape's error, a known limitation)
])
def test_einsum_unplanned_cases_behave_as_before(eq, shapes, monkeypatch):
    ts = [paddle.to_tensor(np.ones(s, np.float32)) for s in shapes]

    def outcome():
        try:
            return paddle.einsum(eq, *ts).numpy()
        except ValueError as e:
            return str(e)
    got = outcome()
    monkeypatch.setattr(M, "_pair", M._pair_nodes)
    want = outcome()
    assert type(got) is type(want)
    assert got == want if isinstance(got, str) else np.array_equal(got, want)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")     # (inf - inf in the products)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("eq,shapes", EINSUMS)
def test_einsum_cached_plans_equal_the_uncached_steps(eq, shapes, dtype, monkeypatch):
    rng = np.random.default_rng(11)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    _specials(arrays[0])

    def run():
        ts = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
        y = paddle.einsum(eq, *ts)
        (y * y).sum().backward()
        return [y.numpy()] + [t.grad.numpy() for t in ts]

    got = run()
    again = run()                           # from the caches
    monkeypatch.setattr(M, "_pair", M._pair_nodes)
    monkeypatch.setattr(M, "_parse", M._parse_uncached)
    monkeypatch.setattr(M, "_NOOP", {})
    want = run()
    for a, b, c in zip(got, again, want):
        assert a.dtype == c.dtype and a.shape == c.shape
        assert np.array_equal(_bits(a), _bits(c)) and np.array_equal(_bits(b), _bits(c))
    np.testing.assert_allclose(got[0], np.einsum(eq, *arrays), rtol=1e-5, atol=1e-5)


def test_einsum_errors_survive_the_caches():
    a = paddle.to_tensor(np.ones((2, 3), np.float32))
    b = paddle.to_tensor(np.ones((4, 5), np.float32))
    for _ in range(2):
        with pytest.raises(ValueError, match="sizes"):
            paddle.einsum("ij,jk->ik", a, b)
        with pytest.raises(TypeError):
            paddle.einsum("ij,jk->ik", a, np.ones((3, 5), np.float32))
        with pytest.raises(ValueError):
            paddle.einsum("ijk,jk->ik", a, b)
