"""Folded replays (fold.py): a retained graph's chains become one multiplication by D."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.core import config
from jitgrad.compile import executor
from jitgrad import vm

TT = paddle.to_tensor
N = 20_000


def _chain(seed=0, n=N):
    """A 12-op elementwise chain on n float32 elements, x needing a gradient."""
    rng = np.random.default_rng(seed)
    x = TT(rng.uniform(-1, 1, n).astype(np.float32), stop_gradient=False)
    cs = [TT(rng.uniform(0.5, 1.5, n).astype(np.float32)) for _ in range(4)]
    h = x
    for c in cs:
        h = paddle.tanh(paddle.sin(h) * c) * 0.9
    return x, h


def _binding(out):
    return out._node.programs[id(out)][0]


@pytest.fixture(autouse=True)
def compiled():
    vm.warmup(quiet=True)


def test_a_retained_replay_folds_its_chain_and_agrees_with_the_exact_order():
    x, h = _chain()
    seeds = np.random.default_rng(5).standard_normal((3, N)).astype(np.float32)
    exact = []
    with config.override(exact_replay=True):
        for s in seeds:
            x.clear_grad()
            h.backward(TT(s), retain_graph=True)
            exact.append(x.grad.numpy().copy())
        assert _binding(h).ws.folded is None
    x2, h2 = _chain()
    for s, want in zip(seeds, exact):
        x2.clear_grad()
        h2.backward(TT(s), retain_graph=True)
        np.testing.assert_allclose(x2.grad.numpy(), want, rtol=2e-6, atol=1e-7)
    assert len(_binding(h2).ws.folded) == 1                 # one fused chain, folded


@pytest.mark.parametrize("n, repeats, folds", [(64, 100, 1), (64, 2, 0), (20_000, 1, 1)])
def test_a_chain_folds_when_a_replay_saves_enough_element_steps(n, repeats, folds):
    """Elements times the steps beyond one decide (fold.MIN_WORK): W2's long chain on 64
    elements folds, a short one on 64 does not, any chain on 20,000 does."""
    x, h = _chain(n=n)
    for _ in range(repeats - 1):
        h = paddle.tanh(paddle.sin(h) * 0.5)
    loss = h.sum()
    for _ in range(2):
        loss.backward(retain_graph=True)
    assert len(_binding(loss).ws.folded) == folds


def test_the_first_backward_is_exact_and_the_fold_waits_for_a_replay():
    x, h = _chain(n=N)
    s = TT(np.ones(N, np.float32))
    h.backward(s, retain_graph=True)
    assert _binding(h).ws.folded is None
    with config.override(exact_replay=True):
        x2, h2 = _chain(n=N)
        h2.backward(s)
    np.testing.assert_array_equal(x.grad.numpy(), x2.grad.numpy())


def test_an_in_place_change_after_folding_still_raises():
    """D read the factor c: writing c in place bumps its version, and the next backward
    refuses, exactly as without folding."""
    rng = np.random.default_rng(0)
    x = TT(rng.uniform(-1, 1, N).astype(np.float32), stop_gradient=False)
    c = TT(rng.uniform(0.5, 1.5, N).astype(np.float32))
    loss = (paddle.tanh(paddle.sin(x) * c) * 0.9).sum()
    for _ in range(3):
        loss.backward(retain_graph=True)
    assert _binding(loss).ws.folded
    c.add_(paddle.ones_like(c))
    with pytest.raises(RuntimeError, match="in-place"):
        loss.backward(retain_graph=True)


def test_a_folded_workspace_never_returns_to_the_cache(fresh_cache):
    x, h = _chain()
    loss = h.sum()
    loss.backward(retain_graph=True)
    loss.backward(retain_graph=True)
    ws = _binding(loss).ws
    assert ws.folded
    loss.backward()                                         # frees the graph
    entry = next(iter(executor.CACHE._entries.values()))
    assert all(w is not ws for w in entry.spare)


def test_batched_grad_on_a_folded_binding_agrees_with_single_grads():
    x, h = _chain()
    S = np.random.default_rng(2).standard_normal((2, N)).astype(np.float32)
    for _ in range(2):                                      # retained, then folded
        paddle.grad(h, x, TT(S[0]), retain_graph=True)
    (g,) = paddle.grad(h, x, TT(S), batched=True, retain_graph=True)
    with config.override(exact_replay=True, program_cache=False):
        x2, h2 = _chain()
        for k in range(2):
            (a,) = paddle.grad(h2, x2, TT(S[k]))
            np.testing.assert_allclose(g.numpy()[k], a.numpy(), rtol=2e-6, atol=1e-7)
