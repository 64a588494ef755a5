"""The program cache (executor.py): hits on identical steps, misses on anything structural.

A graph's key (graph.Graph) holds everything its lowering looks at; values are bound per
graph (binding.py), so steps of one structure share a Program and each gets its own
gradients.
"""


import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.core import config

TT = paddle.to_tensor


pytestmark = pytest.mark.usefixtures("fresh_cache")


def _mlp(seed=0, batch=1, sizes=(4, 6, 1)):
    rng = np.random.default_rng(seed)
    params = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        params.append(TT(rng.standard_normal((a, b)).astype(np.float32), stop_gradient=False))
        params.append(TT(rng.standard_normal(b).astype(np.float32), stop_gradient=False))
    x = TT(rng.standard_normal((batch, sizes[0])).astype(np.float32))
    return params, x


def _loss(params, x):
    h = paddle.tanh(paddle.matmul(x, params[0]) + params[1])
    return paddle.sum(paddle.matmul(h, params[2]) + params[3])


def fresh_backward(roots):
    """A backward through a fresh lowering: the cache switched off for this call
    (the setting is read on every backward; the counters do not move)."""
    with config.override(program_cache=False):
        paddle.autograd.backward(roots)


def _fresh_grads(params, x):
    """The same gradients through a fresh lowering (no program cache)."""
    copies = [TT(p.numpy().copy(), stop_gradient=False) for p in params]
    fresh_backward([_loss(copies, x)])
    return [p.grad.numpy() for p in copies]


def _sgd_step(params, x, lr=0.1):
    loss = _loss(params, x)
    loss.backward()
    grads = [p.grad.numpy().copy() for p in params]
    for p in params:
        p._data -= lr * p._grad
        p.clear_grad()
    return grads


def test_second_identical_step_hits_and_matches_a_fresh_lowering():
    params, x = _mlp()
    before = paddle.cache_info()
    for step in range(3):
        want = _fresh_grads(params, x)
        got = _sgd_step(params, x)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    info = paddle.cache_info()
    assert info.misses - before.misses == 1
    assert info.hits - before.hits == 2
    assert info.programs == 1 and info.uncacheable == 0


def test_gradients_match_finite_differences_after_hits():
    params, x = _mlp(seed=1)
    for _ in range(2):
        _sgd_step(params, x)
    p64 = [TT(p.numpy().astype(np.float64), stop_gradient=False) for p in params]
    x64 = TT(x.numpy().astype(np.float64))
    hits = paddle.cache_info().hits
    got = _sgd_step(params, x, lr=0.0)          # a cache hit
    assert paddle.cache_info().hits == hits + 1
    W = p64[0]._data                             # perturbed in place
    eps, i, j = 1e-6, 1, 2
    for sign in (1, -1):
        W[i, j] += sign * eps
        val = float(_loss(p64, x64).numpy())
        W[i, j] -= sign * eps
        if sign == 1:
            plus = val
        else:
            minus = val
    np.testing.assert_allclose(got[0][i, j], (plus - minus) / (2 * eps), rtol=1e-4)


def test_misses_when_a_shape_differs():
    params, x = _mlp(batch=1)
    _sgd_step(params, x, lr=0.0)
    misses = paddle.cache_info().misses
    _, x3 = _mlp(batch=3)
    got = _sgd_step(params, x3, lr=0.0)
    assert paddle.cache_info().misses == misses + 1
    for g, w in zip(got, _fresh_grads(params, x3)):
        np.testing.assert_array_equal(g, w)


def test_misses_when_an_attribute_differs():
    w = TT(np.arange(6, dtype=np.float32).reshape(2, 3), stop_gradient=False)
    paddle.sum(paddle.sum(w * w, axis=0)).backward()
    misses = paddle.cache_info().misses
    w.clear_grad()
    paddle.sum(paddle.sum(w * w, axis=1)).backward()
    assert paddle.cache_info().misses == misses + 1
    np.testing.assert_allclose(w.grad.numpy(), 2 * w.numpy())


def test_a_one_element_factor_is_bound_per_graph_not_baked():
    """A one-element factor becomes a constant K filled in from each graph (Builder.scalar):
    graphs differing only in its value share a Program, and each gets its own value."""
    x = TT([1.0, 2.0, 3.0], stop_gradient=False)
    for k in (2.0, 5.0):
        x.clear_grad()
        paddle.sum(x * TT([k])).backward()
        np.testing.assert_allclose(x.grad.numpy(), [k] * 3)
    info = paddle.cache_info()
    assert info.misses == 1 and info.hits == 1
    x.clear_grad()
    paddle.sum(x * TT([2.0])).backward()        # the first value again: bound, not stale
    assert paddle.cache_info().hits == 2
    np.testing.assert_allclose(x.grad.numpy(), [2.0] * 3)


def test_sharing_is_part_of_the_key():
    a = TT([1.0, 2.0], stop_gradient=False)
    b = TT([3.0, 4.0], stop_gradient=False)
    paddle.sum(paddle.tanh(a) * paddle.tanh(b)).backward()
    a.clear_grad()
    paddle.sum(paddle.tanh(a) * paddle.tanh(a)).backward()   # one leaf used twice
    t = np.tanh(a.numpy())
    np.testing.assert_allclose(a.grad.numpy(), 2 * t * (1 - t * t), rtol=1e-6)
    info = paddle.cache_info()
    assert info.misses == 2 and info.hits == 0


def test_other_leaves_with_the_same_structure_keep_their_gradients():
    p1, x = _mlp(seed=2)
    p2, _ = _mlp(seed=3)
    _loss(p1, x).backward()
    g1 = [p.grad.numpy().copy() for p in p1]
    _loss(p2, x).backward()                     # a hit, bound to other leaves
    assert paddle.cache_info().hits == 1
    for p, g in zip(p1, g1):
        np.testing.assert_array_equal(p.grad.numpy(), g)
    for g, w in zip([p.grad.numpy() for p in p2], _fresh_grads(p2, x)):
        np.testing.assert_array_equal(g, w)


def test_never_used_with_retain_grads():
    params, x = _mlp()
    _sgd_step(params, x, lr=0.0)
    before = paddle.cache_info()
    h = paddle.tanh(paddle.matmul(x, params[0]) + params[1])
    h.retain_grads()
    paddle.sum(paddle.matmul(h, params[2]) + params[3]).backward()
    assert h.grad is not None
    info = paddle.cache_info()
    assert info.hits == before.hits and info.misses == before.misses
    assert info.uncacheable == before.uncacheable + 1


def test_getitem_graphs_are_cached_with_their_index_bound_per_graph():
    """(The old cache admitted only whitelisted ops and never took getitem; every op takes
    part now, a slice key being an attribute like any other.)"""
    y = TT([1.0, 2.0, 3.0], stop_gradient=False)
    for _ in range(2):
        y.clear_grad()
        paddle.sum(y[1:] * y[1:]).backward()
        np.testing.assert_array_equal(y.grad.numpy(), [0.0, 4.0, 6.0])
    info = paddle.cache_info()
    assert info.misses == 1 and info.hits == 1
    y.clear_grad()
    paddle.sum(y[:2] * y[:2]).backward()        # another slice: another key
    np.testing.assert_array_equal(y.grad.numpy(), [2.0, 4.0, 0.0])
    assert paddle.cache_info().misses == 2


def test_a_pylayer_graph_is_never_cached():
    class Double(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2.0

        @staticmethod
        def backward(ctx, g):
            return g * 2.0

    x = TT([1.0, 2.0], stop_gradient=False)
    for _ in range(2):
        x.clear_grad()
        paddle.sum(Double.apply(x)).backward()
        np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])
    info = paddle.cache_info()
    assert (info.hits, info.misses, info.uncacheable, info.programs) == (0, 0, 2, 0)


def test_retained_graph_replays_its_own_binding():
    params, x = _mlp()
    loss = _loss(params, x)
    loss.backward(retain_graph=True)            # lowered and cached: a miss
    first = [p.grad.numpy().copy() for p in params]
    loss.backward()                             # the retained Binding again, no lookup
    info = paddle.cache_info()
    assert info.hits == 0 and info.misses == 1
    for p, g in zip(params, first):
        np.testing.assert_allclose(p.grad.numpy(), 2 * g, rtol=1e-6)


def test_an_in_place_change_after_recording_still_raises():
    params, x = _mlp()
    _sgd_step(params, x, lr=0.0)
    h = paddle.matmul(x, params[0])
    loss = paddle.sum(paddle.tanh(h + params[1]))
    x.add_(TT(np.ones_like(x.numpy())))      # matmul reads x for params[0]'s gradient
    with pytest.raises(RuntimeError, match="in-place"):
        loss.backward()


def test_interior_sharing_is_part_of_the_key():
    a = TT([0.5, -1.0], stop_gradient=False)
    t = np.tanh(a.numpy())
    want_one = 2 * t * (1 - t * t)                   # d/da sum(tanh(a)^2)
    for _ in range(2):
        a.clear_grad()
        h = paddle.tanh(a)
        paddle.sum(h * h).backward()                 # one tanh node used twice
        np.testing.assert_allclose(a.grad.numpy(), want_one, rtol=1e-6)
        a.clear_grad()
        paddle.sum(paddle.tanh(a) * paddle.tanh(a)).backward()    # two tanh nodes
        np.testing.assert_allclose(a.grad.numpy(), want_one, rtol=1e-6)
    info = paddle.cache_info()
    assert info.hits == 2 and info.misses == 2


def test_hook_registered_mid_forward_is_not_skipped():
    params, x = _mlp()
    _sgd_step(params, x, lr=0.0)
    seen = []
    h = paddle.tanh(paddle.matmul(x, params[0]) + params[1])
    h.register_hook(lambda g: seen.append(g.numpy().copy()))
    before = paddle.cache_info()
    paddle.sum(paddle.matmul(h, params[2]) + params[3]).backward()
    info = paddle.cache_info()
    assert len(seen) == 1 and info.hits == before.hits
    assert info.uncacheable == before.uncacheable + 1


def test_graph_recorded_before_another_backward_still_hits_correctly():
    params, x = _mlp()
    _sgd_step(params, x, lr=0.0)
    loss = _loss(params, x)                      # recorded, then the epoch moves on
    other = TT([1.0, 2.0], stop_gradient=False)
    paddle.sum(other * other).backward()
    hits = paddle.cache_info().hits
    want = _fresh_grads(params, x)
    loss.backward()
    assert paddle.cache_info().hits == hits + 1
    for p, w in zip(params, want):
        np.testing.assert_array_equal(p.grad.numpy(), w)


def test_conv_pool_steps_hit_and_match_a_fresh_lowering():
    """im2col, max_pool2d and concat: their index tables and bound attributes are filled in
    from each graph."""
    import jitgrad.nn.functional as F
    rng = np.random.default_rng(3)
    w = TT(rng.standard_normal((2, 1, 3, 3)), stop_gradient=False)
    b = TT(rng.standard_normal(2), stop_gradient=False)

    def loss_of(w, b, x):
        h = F.max_pool2d(F.relu(F.conv2d(x, w, b, padding=1)), 2)
        return paddle.sum(paddle.concat([h, h * h], axis=1))

    before = paddle.cache_info().hits
    for step in range(3):
        x = TT(rng.standard_normal((2, 1, 6, 6)))
        w2, b2 = (TT(t.numpy().copy(), stop_gradient=False) for t in (w, b))
        fresh_backward([loss_of(w2, b2, x)])
        loss_of(w, b, x).backward()
        np.testing.assert_array_equal(w.grad.numpy(), w2.grad.numpy())
        np.testing.assert_array_equal(b.grad.numpy(), b2.grad.numpy())
        w.clear_grad()
        b.clear_grad()
    assert paddle.cache_info().hits - before == 2


def test_matmul_of_a_transposed_operand_is_cached():
    """A batched product whose operand is a transposed (non-contiguous) view: the lowering
    names the view itself, so the Program is cached (it reshaped it to a new array, which
    no source named, and every step lowered again with hits and misses both 0)."""
    rng = np.random.default_rng(4)
    w = TT(rng.standard_normal((5, 4)), stop_gradient=False)
    for step in range(3):
        x = TT(rng.standard_normal((3, 2, 4)))
        w2 = TT(w.numpy().copy(), stop_gradient=False)
        fresh_backward([paddle.sum(paddle.matmul(paddle.transpose(x, [1, 0, 2]), w2,
                                                 transpose_y=True))])
        paddle.sum(paddle.matmul(paddle.transpose(x, [1, 0, 2]), w, transpose_y=True)).backward()
        np.testing.assert_array_equal(w.grad.numpy(), w2.grad.numpy())
        w.clear_grad()
    info = paddle.cache_info()
    assert (info.misses, info.hits) == (1, 2)


@pytest.mark.parametrize("vector", [lambda w: w[:, 0], lambda w: paddle.flip(w.sum(0), [0])],
                         ids=["column", "flipped"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_matmul_of_a_non_contiguous_vector_is_cached(vector, side):
    """A 1-D operand that is a strided view (a column, a flip): placed as it is and its
    slot relabelled as a row or a column, so the Program is cached (the operand reshaped
    to 2-D was a new array no source named: every step lowered again)."""
    rng = np.random.default_rng(5)
    for step in range(3):
        data = rng.standard_normal((3, 3)).astype(np.float32)
        w, w2 = TT(data, stop_gradient=False), TT(data, stop_gradient=False)

        def loss(m):
            v = vector(m)
            return paddle.sum(paddle.matmul(v, m) if side == "left" else paddle.matmul(m, v))
        fresh_backward([loss(w2)])
        loss(w).backward()
        np.testing.assert_array_equal(w.grad.numpy(), w2.grad.numpy())
    info = paddle.cache_info()
    assert (info.misses, info.hits, info.uncacheable) == (1, 2, 0)


def test_a_value_the_lowering_cannot_name_is_counted_uncacheable(fresh_cache):
    """An op whose rule hands the Builder an array it computed (not an input, output,
    saved value or attribute) gets a Program for its own graph only: never cached, and
    cache_info says so."""
    import numpy as np
    from jitgrad.ops.core import apply
    from jitgrad.ops.registry import OpDef

    def lower(b, node, g, gins):
        b.mul(gins[0], node.out_data.shape, g, node.inputs[0]._data * 2)   # computed here

    op = OpDef("twice_square", forward=lambda x: x * x, vjp=lambda g, out, x: (g * x * 2,),
               lower=lower, nin=1)
    for _ in range(2):
        x = TT([1.0, 3.0], stop_gradient=False)
        apply(op, x).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [2.0, 6.0])
    info = paddle.cache_info()
    assert (info.misses, info.hits, info.uncacheable, info.programs) == (0, 0, 2, 0)


def test_a_training_loop_step_runs_quick_and_matches_numpy(quick_runs):
    """Steps of one structure on a kept parameter take the quick run (the Workspace's
    rows add straight into W.grad); every step's gradient is x^T (1 - tanh^2) / n."""
    ran = quick_runs
    rng = np.random.default_rng(3)
    W = TT(rng.standard_normal((5, 3)).astype(np.float32), stop_gradient=False)
    for step in range(6):
        xv = rng.standard_normal((4, 5)).astype(np.float32)
        paddle.tanh(TT(xv) @ W).mean().backward()
        t = np.tanh(xv @ W.numpy())
        np.testing.assert_allclose(W.grad.numpy(), xv.T @ (1 - t * t) / t.size, rtol=1e-5)
        W.clear_grad()
    assert ran.count(True) >= 3


def test_quick_steps_accumulate_until_cleared(quick_runs):
    """Without clear_grad the quick run adds into the same .grad: after three steps on one
    x, W.grad is three times one step's gradient (Paddle accumulates)."""
    ran = quick_runs
    x = TT(np.arange(6, dtype=np.float32).reshape(2, 3))
    W = TT(np.ones((3, 2), np.float32), stop_gradient=False)
    for _ in range(5):
        (x @ W).sum().backward()
    np.testing.assert_array_equal(W.grad.numpy(), 5 * np.array([[3, 3], [5, 5], [7, 7]],
                                                               np.float32))
    assert True in ran


def test_quick_steps_from_threads_each_get_their_own_gradients(quick_runs):
    """Four threads train their own parameter on one structure (one Program, its spare
    Workspaces borrowed under the run lock): every step's gradient is that thread's."""
    import threading
    ran = quick_runs
    wrong = []

    def worker(seed):
        rng = np.random.default_rng(seed)
        W = TT(rng.standard_normal((6, 4)).astype(np.float32), stop_gradient=False)
        for _ in range(300):
            xv = rng.standard_normal((3, 6)).astype(np.float32)
            paddle.tanh(TT(xv) @ W).sum().backward()
            t = np.tanh(xv @ W.numpy())
            if not np.allclose(W.grad.numpy(), xv.T @ (1 - t * t), rtol=1e-5, atol=1e-6):
                wrong.append(seed)
            W.clear_grad()
    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert wrong == []
    assert ran.count(True) > 100


def test_quick_steps_from_threads_on_a_shared_parameter_add_every_step(quick_runs):
    """Four threads add 200 steps each into one shared W.grad, never cleared: it ends as
    800 times one step's gradient (exact: small integers in float32)."""
    import threading
    ran = quick_runs
    W = TT(np.ones((3, 2), np.float32), stop_gradient=False)

    def worker(seed):
        x = TT(np.arange(6, dtype=np.float32).reshape(2, 3))
        for _ in range(200):
            (x @ W).sum().backward()
    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    np.testing.assert_array_equal(W.grad.numpy(), 800 * np.array([[3, 3], [5, 5], [7, 7]],
                                                                 np.float32))
    assert ran.count(True) > 100


def test_steps_stay_quick_beside_a_live_create_graph_gradient(quick_runs):
    """A differentiable .grad kept alive elsewhere (create_graph=True) no longer sends every
    other graph's step off the quick run; a leaf holding one itself takes the general run
    once (which detaches it), and its gradients accumulate onto those values."""
    ran = quick_runs
    z = TT(np.array([1.0, 2.0], np.float32), stop_gradient=False)
    (z * z * z).sum().backward(create_graph=True)          # z.grad = 3 z^2, differentiable
    x = TT(np.arange(6, dtype=np.float32).reshape(2, 3))
    W = TT(np.ones((3, 2), np.float32), stop_gradient=False)
    (W * W).sum().backward(create_graph=True)               # W.grad = 2 W, differentiable
    for _ in range(4):
        (x @ W).sum().backward()
    np.testing.assert_array_equal(W.grad.numpy(), 2 + 4 * np.array([[3, 3], [5, 5], [7, 7]],
                                                                   np.float32))
    assert ran.count(True) >= 2
    np.testing.assert_array_equal(z.grad.numpy(), [3.0, 12.0])


def test_grad_with_default_arguments_in_a_loop_runs_quick(quick_runs):
    """paddle.grad(loss, [W]) step after step takes the quick run too: each call returns
    that graph's gradient, a new tensor not aliasing the Workspace, and W.grad stays None."""
    rng = np.random.default_rng(11)
    W = TT(rng.standard_normal((5, 3)).astype(np.float32), stop_gradient=False)
    kept = []
    for _ in range(6):
        xv = rng.standard_normal((4, 5)).astype(np.float32)
        (g,) = paddle.grad(paddle.tanh(TT(xv) @ W).sum(), [W])
        t = np.tanh(xv @ W.numpy())
        np.testing.assert_allclose(g.numpy(), xv.T @ (1 - t * t), rtol=1e-5, atol=1e-6)
        kept.append((g, g.numpy().copy()))
        assert W.grad is None
    for g, v in kept:                                   # later calls wrote none of them
        np.testing.assert_array_equal(g.numpy(), v)
    assert quick_runs.count(True) >= 2
