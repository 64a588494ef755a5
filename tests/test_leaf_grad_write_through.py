"""A leaf's gradient row writes straight into its `.grad` array wherever that lives.

An owned leaf slot's one writer row writes through an address in the itab
(lower_opt.own_leaf_grads); fastpath points it at `.grad` when that is another array (a
retained graph's slot, a grad the user set), so nothing is zeroed and added afterwards,
and the array keeps its identity (a `g = x.grad` taken earlier sees the sum).
"""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad import structural

TT = paddle.to_tensor
pytestmark = pytest.mark.usefixtures("fresh_structural_cache")


def mlp_loss(x, w, b):
    return paddle.sum(paddle.tanh(paddle.matmul(x, w) + b))


def closed_form(x, w, b):
    """d/dw and d/db of sum(tanh(x @ w + b)), in float64."""
    x, w, b = (np.asarray(a, np.float64) for a in (x, w, b))
    d = 1 - np.tanh(x @ w + b) ** 2
    return x.T @ d, d.sum(axis=0)


def params(seed=0):
    rng = np.random.default_rng(seed)
    return (TT(rng.standard_normal((4, 3)).astype(np.float32), stop_gradient=False),
            TT(rng.standard_normal(3).astype(np.float32), stop_gradient=False))


def test_training_steps_add_into_the_grads_a_live_retained_graph_owns():
    w, b = params()
    x = TT(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    retained = mlp_loss(x, w, b)
    retained.backward(retain_graph=True)          # its Program now owns w.grad and b.grad
    gw, gb = w._grad, b._grad
    want_w, want_b = closed_form(x.numpy(), w.numpy(), b.numpy())
    for step in range(1, 4):                      # new graphs: the structural cache
        mlp_loss(x, w, b).backward()
        assert w._grad is gw and b._grad is gb    # the same arrays, added into
        np.testing.assert_allclose(w.grad.numpy(), (step + 1) * want_w, rtol=1e-5)
        np.testing.assert_allclose(b.grad.numpy(), (step + 1) * want_b, rtol=1e-5)
    r = structural._mru.prog._replay
    assert [t for t, _ in r.leaves] == [w]        # (b's gradient, a row sum, is added)
    assert r.redirected == 1                      # w's GEMM row wrote through w.grad
    retained.backward(retain_graph=True)          # the retained Program still adds its own
    np.testing.assert_allclose(w.grad.numpy(), 5 * want_w, rtol=1e-5)


def test_a_grad_the_user_set_is_accumulated_in_place():
    w, b = params(1)
    x = TT(np.ones((2, 4), np.float32))
    w.grad = TT(np.full((4, 3), 0.5, np.float32))
    held = w.grad                                 # a view of the accumulator (Paddle)
    for step in range(1, 3):
        mlp_loss(x, w, b).backward()
    want_w, _ = closed_form(x.numpy(), w.numpy(), b.numpy())
    np.testing.assert_allclose(held.numpy(), 0.5 + 2 * want_w, rtol=1e-5)
    np.testing.assert_allclose(w.grad.numpy(), held.numpy())


def test_after_writing_elsewhere_a_program_writes_its_own_slot_again():
    w, b = params(2)
    x = TT(np.ones((2, 4), np.float32))
    w.grad = TT(np.zeros((4, 3), np.float32))     # step 1 writes into this array
    mlp_loss(x, w, b).backward()
    first = w.grad.numpy()
    w.grad = None                                 # step 2: the Program's slot becomes .grad
    b.grad = None
    mlp_loss(x, w, b).backward()
    np.testing.assert_array_equal(w.grad.numpy(), first)
    r = structural._mru.prog._replay
    assert r.redirected == 0 and w._grad is r.leaves[0][1]
    mlp_loss(x, w, b).backward()                  # owned again: the quick path, accumulating
    np.testing.assert_allclose(w.grad.numpy(), 2 * first, rtol=1e-6)
