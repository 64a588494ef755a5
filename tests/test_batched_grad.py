"""grad(..., batched=True): K cotangents through one compiled call; Jacobians built on it."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.core import tape
from jitgrad.compile import executor
from jitgrad import vm

TT = paddle.to_tensor


def _graph(seed=0):
    rng = np.random.default_rng(seed)
    x = TT(rng.standard_normal(5), dtype="float64", stop_gradient=False)
    W = TT(rng.standard_normal((4, 5)), dtype="float64", stop_gradient=False)
    y = paddle.tanh(paddle.matmul(W, x))
    z = (x * x).sum()
    return x, W, y, z


@pytest.mark.parametrize("vm_name", ["numba", "reference"])
def test_batched_grad_equals_one_grad_per_cotangent(vm_name):
    vm.warmup(quiet=True)
    x, W, y, z = _graph()
    S = np.random.default_rng(1).standard_normal((3, 4))
    with vm.using(vm_name):
        gx, gW = paddle.grad([y, z], [x, W], [TT(S), None], batched=True)
        assert gx.shape == [3, 5] and gW.shape == [3, 4, 5]
        for k in range(3):
            ax, aW = paddle.grad([y, z], [x, W], [TT(S[k]), None])
            np.testing.assert_array_equal(gx.numpy()[k], ax.numpy())
            np.testing.assert_array_equal(gW.numpy()[k], aW.numpy())


def test_batched_grad_is_one_run_of_the_program(monkeypatch):
    vm.warmup(quiet=True)
    x, W, y, _ = _graph()
    calls = []
    real = vm.execute_batched
    monkeypatch.setattr(vm, "execute_batched", lambda *a, **k: calls.append(a[5].shape) or
                        real(*a, **k))
    (g,) = paddle.grad(y, x, TT(np.eye(4)), batched=True)
    assert calls == [(4, 4)]
    w, xv = W.numpy(), x.numpy()
    want = (1 - np.tanh(w @ xv) ** 2)[:, None] * w          # the Jacobian, row by row
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-12)


def test_batched_grad_through_a_hook_runs_row_by_row():
    x, W, y, _ = _graph()
    h = paddle.matmul(W, x)
    h.register_hook(lambda g: g * 2)
    out = paddle.tanh(h)
    S = np.eye(4)
    (g,) = paddle.grad(out, x, TT(S), batched=True)
    for k in range(4):
        (a,) = paddle.grad(out, x, TT(S[k]))
        np.testing.assert_array_equal(g.numpy()[k], a.numpy())


def test_batched_grad_with_create_graph_stacks_differentiable_rows():
    x = TT([0.5, -1.0, 2.0], dtype="float64", stop_gradient=False)
    y = x ** 3
    (g,) = paddle.grad(y, x, TT(np.eye(3)), batched=True, create_graph=True)
    np.testing.assert_allclose(g.numpy(), np.diag(3 * x.numpy() ** 2))
    g.sum().backward()                                  # d/dx sum(3 x^2) = 6 x
    np.testing.assert_allclose(x.grad.numpy(), 6 * x.numpy())


def test_batched_grad_argument_errors():
    x, W, y, z = _graph()
    with pytest.raises(ValueError, match="needs grad_outputs"):
        paddle.grad(y, x, batched=True)
    with pytest.raises(ValueError, match="leading axis of K"):
        paddle.grad(y, x, TT(np.ones(4)), batched=True)
    with pytest.raises(ValueError, match="disagree on K"):
        paddle.grad([y, z], x, [TT(np.ones((2, 4))), TT(np.ones(3))], batched=True)
    with pytest.raises(ValueError, match="at least one"):
        paddle.grad([y], x, [None], batched=True)


def test_jacobian_rows_come_from_one_batched_backward(monkeypatch):
    vm.warmup(quiet=True)
    x, W, y, _ = _graph()
    calls = []
    real = executor.run_grad_batched
    monkeypatch.setattr(executor, "run_grad_batched",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    J = paddle.autograd.jacobian(y, x)
    part = J[1:3]
    full = J[:]                                          # rows 0 and 3: one more call
    assert calls == [1, 1]
    w, xv = W.numpy(), x.numpy()
    want = (1 - np.tanh(w @ xv) ** 2)[:, None] * w
    np.testing.assert_allclose(part.numpy(), want[1:3], rtol=1e-12)
    np.testing.assert_allclose(full.numpy(), want, rtol=1e-12)


def test_jacobian_rows_differentiate_like_the_rows():
    """d/dx sum(J^2) for y = x^3 elementwise: J = diag(3x^2), so the result is 36 x^3."""
    x = TT([0.5, -1.0, 2.0], dtype="float64", stop_gradient=False)
    J = paddle.autograd.jacobian(x ** 3, x)
    v = J[:]
    assert not v.stop_gradient
    (v * v).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 36 * x.numpy() ** 3, rtol=1e-12)


def test_hessian_rows_replay_the_recorded_gradient():
    x = TT([0.3, -0.7], dtype="float64", stop_gradient=False)
    f = (paddle.sin(x[0]) * x[1] ** 2)
    H = paddle.autograd.hessian(f, x)[:].numpy()
    a, b = x.numpy()
    want = [[-np.sin(a) * b * b, 2 * b * np.cos(a)], [2 * b * np.cos(a), 2 * np.sin(a)]]
    np.testing.assert_allclose(H, want, rtol=1e-12)


def test_repeated_grad_calls_hit_the_cache_through_the_matcher(fresh_cache):
    vm.warmup(quiet=True)
    found = []
    for step in range(4):
        x, W, y, _ = _graph(step)
        (g,) = paddle.grad(y.sum(), W)
        found.append(np.allclose(g.numpy(), np.outer(1 - np.tanh(W.numpy() @ x.numpy()) ** 2,
                                                     x.numpy())))
    info = paddle.cache_info()
    assert found == [True] * 4 and (info.misses, info.hits) == (1, 3)
    entry = next(iter(executor.CACHE._entries.values()))
    assert entry.match                                  # made on the first hit, used after
    x, W, y, _ = _graph(9)
    assert entry.match([y.sum()], tape.epoch(), [W]) is not None
    assert entry.match([y.sum()], tape.epoch(), [x]) is None     # another target
    assert entry.match([y.sum()], tape.epoch()) is None          # backward(), not grad
