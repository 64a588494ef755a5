"""A leaf's gradient row writes straight into its `.grad` array wherever that lives.

An owned leaf slot's one writer row writes through an address in the itab
(slot_layout.own_leaf_grads, `Program.leaf_rows`); each Binding points it at the leaf's
`.grad` array (binding.py), so nothing is zeroed and added afterwards, the array keeps
its identity (a `g = x.grad` taken earlier sees the sum), and it is always an array of the
leaf's own, never a view of an arena.
"""

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor
pytestmark = pytest.mark.usefixtures("fresh_cache")


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


def _address(a):
    return a.__array_interface__["data"][0]


def test_training_steps_add_into_the_grads_a_live_retained_graph_wrote():
    w, b = params()
    x = TT(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    retained = mlp_loss(x, w, b)
    retained.backward(retain_graph=True)          # w.grad and b.grad: new arrays
    gw, gb = w._grad, b._grad
    assert gw.flags.owndata and gb.flags.owndata
    want_w, want_b = closed_form(x.numpy(), w.numpy(), b.numpy())
    for step in range(1, 4):                      # new graphs: cache hits
        mlp_loss(x, w, b).backward()
        assert w._grad is gw and b._grad is gb    # the same arrays, added into
        np.testing.assert_allclose(w.grad.numpy(), (step + 1) * want_w, rtol=1e-5)
        np.testing.assert_allclose(b.grad.numpy(), (step + 1) * want_b, rtol=1e-5)
    info = paddle.cache_info()
    assert (info.misses, info.hits) == (1, 3)
    rb = retained._node.programs[id(retained)][0]
    prog = rb.program                             # the cached Program, shared
    owned = {id(rb.out_tensors[j]): pos for j, pos in prog.leaf_rows}
    assert owned.keys() == {id(w), id(b)}         # a GEMM row and a row sum (ROWSUM)
    retained.backward(retain_graph=True)          # the retained Binding still adds its own
    assert rb.ws.itab[owned[id(w)]] == _address(gw)   # each row wrote through its .grad
    assert rb.ws.itab[owned[id(b)]] == _address(gb)
    assert w._grad is gw
    np.testing.assert_allclose(w.grad.numpy(), 5 * want_w, rtol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), 5 * want_b, rtol=1e-5)


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


def test_after_grad_is_reset_the_row_writes_a_new_array_of_the_leafs_own():
    """(Before, a Program's own slot became .grad after `w.grad = None`.)"""
    w, b = params(2)
    x = TT(np.ones((2, 4), np.float32))
    w.grad = TT(np.zeros((4, 3), np.float32))     # step 1 writes into this array
    user = w._grad
    mlp_loss(x, w, b).backward()
    assert w._grad is user
    first = w.grad.numpy().copy()
    w.grad = None                                 # step 2: a new zeroed array, written
    b.grad = None
    mlp_loss(x, w, b).backward()
    np.testing.assert_array_equal(w.grad.numpy(), first)
    fresh = w._grad
    assert fresh is not user and fresh.flags.owndata
    mlp_loss(x, w, b).backward()                  # the same array again, accumulating
    assert w._grad is fresh
    np.testing.assert_allclose(w.grad.numpy(), 2 * first, rtol=1e-6)
    assert paddle.cache_info().hits == 2


def test_a_row_sum_is_added_to_the_grad_once_not_row_by_row():
    """b's gradient sums the rows 1e8 and -1e8: added to .grad = 1 as one value (Paddle:
    old + new = 1 + 0), not row by row ((1 + 1e8) - 1e8 = 0 in float32)."""
    x = TT(np.array([[1e8, 1e8], [-1e8, -1e8]], np.float32))
    b = TT(np.ones(2, np.float32), stop_gradient=False)
    for step in range(3):                         # lowered, then cache hits
        b.grad = TT(np.ones(2, np.float32))
        (x * b).sum().backward()
        assert b.grad.numpy().tolist() == [1.0, 1.0]


def test_each_new_leaf_gets_its_own_gradient_after_the_last_steps_leaf_is_gone():
    """The cached run adds straight into the .grad its rows pointed at last time only while
    the leaf's .grad is that very array: a new leaf (no .grad yet), after the last step's
    leaf and its .grad were dropped, gets a new array with its own values."""
    for v in (1.0, 2.0, 3.0, 4.0):
        w = paddle.to_tensor(np.ones(4, "float32"), stop_gradient=False)
        (w * paddle.to_tensor(np.full(4, v, "float32"))).sum().backward()
        assert w.grad.numpy().tolist() == [v] * 4
        del w


def test_grad_setter_copies_into_the_accumulator_a_kept_grad_sees():
    # Paddle 3.3.1: `x.grad = t` writes t into the existing storage
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * x).sum().backward()
    kept = x.grad
    x.grad = paddle.to_tensor([1.0, 1.0])
    assert kept.tolist() == [1.0, 1.0] and x.grad.tolist() == [1.0, 1.0]
    (x * 3).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]


def test_a_new_gradient_keeps_the_sign_of_a_negative_zero():
    # Paddle 3.3.1: x.grad of (x * [-0., -0., 1.]).sum() is [-0., -0., 1.] (signbit set).
    # A new .grad the row adds into starts at -0.0 (the identity of +), not +0.0
    c = TT(np.array([-0.0, -0.0, 1.0], np.float32))
    for step in range(3):       # interpreted, lowered, cache hit
        x = TT(np.array([1.5, 2.0, 7.0], np.float32), stop_gradient=False)
        (x * c).sum().backward()
        np.testing.assert_array_equal(np.signbit(x.grad.numpy()), [True, True, False])
