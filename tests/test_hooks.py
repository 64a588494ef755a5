"""Tensor.register_hook and retain_grads (PADDLE_SEMANTICS.md E.25-26, H, M.61).

Hooks run from Program segment callbacks: the rest of the backward stays in the compiled
interpreter, on the first call and on every retained replay.
"""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.compile import executor
from jitgrad import vm

TT = paddle.to_tensor


def leaf(values, dtype="float32"):
    return TT(values, dtype=dtype, stop_gradient=False)


# ---- H.39: handles and return values --------------------------------------------------------

def test_remove_returns_true_once_then_false():
    x = leaf([1.0])
    h = (x * 2).register_hook(lambda g: g)
    assert h.remove() is True
    with pytest.warns(RuntimeWarning, match="does not exist or has been removed"):
        assert h.remove() is False          # (with Paddle 3.3.1's warning)


def test_hook_returning_none_keeps_the_gradient_and_sees_it():
    x = leaf([1.0, 2.0])
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(g.numpy()))
    (y * 3).sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]
    assert [s.tolist() for s in seen] == [[3.0, 3.0]]


def test_removed_hook_no_longer_runs_even_on_a_retained_graph():
    x = leaf([1.0])
    y = x * 2
    h = y.register_hook(lambda g: g * 10)
    z = (y * 3).sum()
    z.backward(retain_graph=True)
    assert x.grad.tolist() == [60.0]
    h.remove()
    x.clear_grad()
    z.backward()
    assert x.grad.tolist() == [6.0]


# ---- H.40: leaf hooks -------------------------------------------------------------------------

@pytest.mark.parametrize("create_graph", [False, True])
def test_leaf_hook_runs_once_on_the_summed_gradient_and_its_result_accumulates(create_graph):
    x = leaf([1.0, 2.0])
    calls = []
    x.register_hook(lambda g: calls.append(g.numpy()) or g * 10)
    loss = (x * x).sum() + x.sum()                # two paths into x: 2x + 1
    loss.backward(retain_graph=True, create_graph=create_graph)
    assert [c.tolist() for c in calls] == [[3.0, 5.0]]
    assert x.grad.tolist() == [30.0, 50.0]


def test_hooks_run_again_on_every_retained_replay():
    x = leaf([1.0, 2.0])
    calls = []
    y = paddle.tanh(x)
    y.register_hook(lambda g: calls.append("y") or g * 2)
    x.register_hook(lambda g: calls.append("x") or g)
    loss = paddle.sum(y * y)
    for _ in range(3):
        loss.backward(retain_graph=True)
    assert calls == ["y", "x"] * 3
    t = np.tanh([1.0, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), 3 * 2 * 2 * t * (1 - t * t), rtol=1e-6)


# ---- H.41: interior hooks, order with retain_grads, chaining ---------------------------------

def test_interior_hook_changes_what_flows_upstream():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.register_hook(lambda g: g * 0 + 1)
    (y * 5).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("create_graph", [False, True])
def test_retain_then_hook_shows_the_pre_hook_value(create_graph):
    x = leaf([1.0])
    y = x * 2
    y.retain_grads()
    y.register_hook(lambda g: g * 2)
    (y * 3).sum().backward(create_graph=create_graph)
    assert y.grad.tolist() == [3.0]
    assert x.grad.tolist() == [12.0]


@pytest.mark.parametrize("create_graph", [False, True])
def test_hook_then_retain_shows_the_post_hook_value(create_graph):
    x = leaf([1.0])
    y = x * 2
    y.register_hook(lambda g: g * 2)
    y.retain_grads()
    (y * 3).sum().backward(create_graph=create_graph)
    assert y.grad.tolist() == [6.0]
    assert x.grad.tolist() == [12.0]


@pytest.mark.parametrize("create_graph", [False, True])
def test_hooks_chain_in_registration_order(create_graph):
    x = leaf([1.0])
    y = x * 1
    y.register_hook(lambda g: g * 2)
    y.register_hook(lambda g: g + 1)
    (y * 3).sum().backward(create_graph=create_graph)
    assert x.grad.tolist() == [7.0]               # (3 * 2) + 1, not (3 + 1) * 2


def test_hook_on_a_dropped_tensor_still_runs():
    x = leaf([1.0])
    y = x * 2
    y.register_hook(lambda g: g * 10)
    z = (y * 3).sum()
    del y
    z.backward()
    assert x.grad.tolist() == [60.0]


def test_hook_on_the_root_sees_the_seed():
    x = leaf([1.0, 2.0])
    y = x * 3
    y.register_hook(lambda g: g * 2)
    y.backward(TT([1.0, 10.0]))
    assert x.grad.tolist() == [6.0, 60.0]


# ---- H.42, M.61: errors -------------------------------------------------------------------------

def test_register_hook_on_stop_gradient_tensor_raises_runtime_error():
    with pytest.raises(RuntimeError, match="stop gradient"):
        TT([1.0]).register_hook(lambda g: g)


@pytest.mark.parametrize("create_graph", [False, True])
def test_hook_returning_a_non_tensor_raises_type_error(create_graph):
    x = leaf([1.0])
    y = x * 2
    y.register_hook(lambda g: g.numpy())
    with pytest.raises(TypeError, match="Tensor or None"):
        (y * 3).sum().backward(create_graph=create_graph)


# ---- H.43: paddle.grad skips hooks on leaf inputs, applies interior ones --------------------

@pytest.mark.parametrize("create_graph", [False, True])
def test_grad_applies_interior_hooks_but_not_leaf_input_hooks(create_graph):
    x = leaf([1.0])
    calls = []
    x.register_hook(lambda g: calls.append("x") or g * 100)
    y = x * 2
    y.register_hook(lambda g: g * 10)
    (g,) = paddle.grad((y * 3).sum(), x, create_graph=create_graph)
    assert g.tolist() == [60.0]
    assert calls == []
    assert x.grad is None


@pytest.mark.parametrize("create_graph", [False, True])
def test_grad_with_respect_to_a_hooked_non_leaf_returns_the_hooked_value(create_graph):
    # measured on Paddle 3.3.1: the input's hook runs once, and grad() returns its result
    # (tests/test_autograd_api_paddle.py has the other cases)
    x = leaf([1.0])
    y = x * 2
    y.register_hook(lambda g: g * 10)
    gy, gx = paddle.grad((y * 3).sum(), [y, x], create_graph=create_graph)
    assert gy.tolist() == [30.0] and gx.tolist() == [60.0]


# ---- hooks do not force the slow path ------------------------------------------------------------

def test_hooked_replay_runs_everything_else_in_the_compiled_interpreter(monkeypatch):
    x = leaf(np.linspace(-1, 1, 6).reshape(2, 3))
    w = leaf(np.ones((3, 4)) * 0.1)
    h = paddle.tanh(paddle.matmul(x, w))
    h.register_hook(lambda g: g * 2)
    loss = paddle.sum(paddle.exp(h) * h)
    loss.backward(retain_graph=True)
    want = x.grad.numpy()
    b = executor.bind([loss])
    prog = b.program
    assert prog.has_callbacks and len(prog.segments) == 2
    (spec,) = prog.callbacks
    assert spec[0] == "hook" and spec[1][0] == "node"
    ranges = []
    real = vm.execute
    monkeypatch.setattr(vm, "execute", lambda *a, start=0, stop=-1, vm=None, **k:
                        ranges.append((start, stop)) or real(*a, start=start, stop=stop,
                                                             vm=vm))
    for op in {n.op for n in b.graph.nodes}:        # no eager rule may run on a replay
        monkeypatch.setattr(op, "vjp", None)
    x.clear_grad()
    loss.backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6)
    assert sum(stop - start for start, stop in ranges) == len(prog)
    assert len(ranges) == 2
    assert "CALLBACK" in prog.text()


def test_program_without_hooks_has_no_callbacks():
    x = leaf([1.0])
    prog = executor.program_for([(x * 2).sum()])
    assert not prog.has_callbacks and prog.segments == () and prog.callbacks == ()


def test_hooked_program_gives_same_numbers_in_both_interpreters():
    results = []
    for name in ("numba", "reference"):
        x = leaf([0.5, -1.0, 2.0], "float64")
        y = paddle.sin(x)
        y.register_hook(lambda g: g * g)
        y.retain_grads()
        loss = paddle.sum(y * paddle.exp(x))
        with vm.using(name):
            loss.backward()
        results.append((x.grad.numpy(), y.grad.numpy()))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


# ---- E.25-26: retain_grads ----------------------------------------------------------------------

def test_retained_grad_is_overwritten_on_every_replay():
    x = leaf([1.0])
    y = x * 2
    y.retain_grads()
    z = y * 3
    for seed, want in ((1.0, 3.0), (2.0, 6.0), (1.0, 3.0)):
        z.backward(TT([seed]), retain_graph=True)
        assert y.grad.tolist() == [want]
    assert x.grad.tolist() == [24.0]


def test_retain_grads_after_a_retained_backward_takes_effect_on_replay():
    x = leaf([1.0])
    y = x * 2
    z = (y * 3).sum()
    z.backward(retain_graph=True)
    assert y.grad is None
    y.retain_grads()
    z.backward(retain_graph=True)
    assert y.grad.tolist() == [3.0]


def _hooked_chain(x):
    """A long elementwise chain (fusion territory) with hooks and a PyLayer in the middle."""
    class Square(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, v):
            ctx.save_for_backward(v)
            return v * v

        @staticmethod
        def backward(ctx, g):
            (v,) = ctx.saved_tensor()
            return g * 2 * v

    h = x
    for i in range(6):
        h = paddle.tanh(h * 1.1 + 0.1)
        if i == 2:
            h.register_hook(lambda g: g * 3)
            h.retain_grads()
        if i == 3:
            h = Square.apply(h)
    h.register_hook(lambda g: g - 0.5)
    return paddle.sum(paddle.exp(h) * h)


def test_compiled_replay_with_hooks_and_pylayer_matches_the_eager_path():
    values = np.linspace(-1.0, 1.0, 7)
    xa, xb = leaf(values, "float64"), leaf(values, "float64")
    la, lb = _hooked_chain(xa), _hooked_chain(xb)
    for _ in range(2):
        la.backward(retain_graph=True)
        lb.backward(retain_graph=True, create_graph=True)
    np.testing.assert_allclose(xa.grad.numpy(), xb.grad.numpy(), rtol=1e-12)
