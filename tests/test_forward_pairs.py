"""cdist's one-node product path (ops/pair_distance.py) and einsum's 2-D product: the same
values as the composites they replace, bit for bit, and gradients to finite differences."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.testing import check_grads

MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sx, sy", [((32, 64), (16, 64)), ((30, 3), (5, 3)), ((26, 1), (2, 1)),
                                    ((1, 5), (40, 5))])
def test_cdist_matrices_match_the_batched_composite_bitwise(sx, sy, dtype):
    """Two matrices take one node; with a leading batch dim of 1 the composite runs: the
    distances agree bit for bit (zero distances, a -0 row included), the gradients to
    rounding."""
    r = np.random.default_rng(0)
    x = r.standard_normal(sx).astype(dtype)
    y = r.standard_normal(sy).astype(dtype)
    y[0] = x[0]
    x[-1] = -0.0
    w = r.standard_normal((sx[0], sy[0])).astype(dtype)
    for mode in MODES:
        got = []
        for lead in ((), (1,)):
            a = paddle.to_tensor(x.reshape(lead + sx), stop_gradient=False)
            b = paddle.to_tensor(y.reshape(lead + sy), stop_gradient=False)
            out = paddle.cdist(a, b, compute_mode=mode)
            (out * paddle.to_tensor(w.reshape(lead + w.shape))).sum().backward()
            got.append([t.reshape(t.shape[len(lead):]) for t in
                        (out.numpy(), a.grad.numpy(), b.grad.numpy())])
        (o1, gx1, gy1), (o2, gx2, gy2) = got
        assert o1.tobytes() == o2.tobytes()
        tol = 1e-4 if dtype == np.float32 else 1e-10
        np.testing.assert_allclose(gx1, gx2, rtol=tol, atol=tol)
        np.testing.assert_allclose(gy1, gy2, rtol=tol, atol=tol)


def test_cdist_matrices_record_one_node_and_zero_gradient_at_zero_distance():
    x = paddle.to_tensor([[0.5, 1.0, -1.0], [1.0, -2.0, 2.0]], stop_gradient=False)
    y = paddle.to_tensor([[0.5, 1.0, -1.0], [0.25, 0.0, 1.5]], stop_gradient=False)
    out = paddle.cdist(x, y, compute_mode="use_mm_for_euclid_dist")
    assert out.numpy()[0, 0] == 0.0
    out.sum().backward()
    assert np.isfinite(x.grad.numpy()).all() and np.isfinite(y.grad.numpy()).all()


@pytest.mark.parametrize("sx, sy", [((30, 3), (4, 3)), ((3, 2), (5, 2)), ((1, 4), (27, 4))])
def test_cdist_matrices_finite_differences(sx, sy):
    r = np.random.default_rng(1)
    x, y = r.standard_normal(sx), r.standard_normal(sy)
    for order in (1, 2):
        check_grads(lambda a, b: paddle.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
                    x, y, order=order)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("eq, batched, shapes", [
    ("ij,jk->ik", "bij,bjk->bik", [(16, 8), (8, 5)]),
    ("ij,kj->ik", "bij,bkj->bik", [(300, 200), (150, 200)]),
    ("i,j->ij", "bi,bj->bij", [(7,), (9,)]),
])
def test_einsum_without_batch_letters_matches_a_batch_of_one(eq, batched, shapes, dtype):
    r = np.random.default_rng(2)
    arrays = [r.standard_normal(s).astype(dtype) for s in shapes]
    plain = paddle.einsum(eq, *[paddle.to_tensor(a) for a in arrays]).numpy()
    one = paddle.einsum(batched, *[paddle.to_tensor(a[None]) for a in arrays]).numpy()[0]
    assert plain.tobytes() == one.tobytes()
    check_grads(lambda *t: paddle.einsum(eq, *t), *[a.astype(np.float64)[(slice(4),) * a.ndim] for a in arrays],
                order=2)


@pytest.mark.parametrize("sx, sy", [((4, 4), (8, 16)), ((), ()), ((3,), (2,)), ((2, 3), (3,)),
                                    ((2,), (2, 1, 2)), ((0, 2), (3, 1))])
def test_kron_is_one_node_with_the_composites_values(sx, sy):
    """The product of the interleaved reshapes, bit for bit (-0 and inf included), and
    gradients to finite differences (order 1 and 2)."""
    r = np.random.default_rng(3)
    x = r.standard_normal(sx).astype(np.float32)
    y = r.standard_normal(sy).astype(np.float32)
    if x.size:
        x.reshape(-1)[0] = -0.0
    if y.size > 1:
        y.reshape(-1)[1] = np.inf
    with np.errstate(invalid="ignore"):         # (-0 * inf: nan, as the composite's)
        got = paddle.kron(paddle.to_tensor(x), paddle.to_tensor(y)).numpy()
    nd = max(x.ndim, y.ndim)
    xs = (1,) * (nd - x.ndim) + x.shape
    ys = (1,) * (nd - y.ndim) + y.shape
    a = x.reshape([v for s in xs for v in (s, 1)])
    b = y.reshape([v for s in ys for v in (1, s)])
    with np.errstate(invalid="ignore"):
        want = np.multiply(a, b).reshape([p * q for p, q in zip(xs, ys)])
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    if x.size and y.size:
        for order in (1, 2):
            check_grads(lambda s, t: paddle.kron(s, t), r.standard_normal(sx),
                        r.standard_normal(sy), order=order)
