"""The armed retained replay (executor.replay_retained, and Binding.quick's one-call path)
keeps every rule of the general path: each change between replays is either invisible to
it or sends the call back through the general path.

Each scenario runs twice on identical fresh graphs: once replaying with
`loss.backward(retain_graph=True)` (armed from the first call), once with
`paddle.autograd.backward([loss], retain_graph=True)` (always the general path). The
gradients must agree after every step.
"""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.compile import binding
from jitgrad.core import tape
from jitgrad import vm

TT = paddle.to_tensor


def _graph(size=6):
    rng = np.random.default_rng(3)
    x = TT(rng.uniform(-1, 1, size), dtype="float32", stop_gradient=False)
    h = x
    for i in range(12):
        h = paddle.tanh(h) * TT(rng.uniform(0.5, 1.5, size), dtype="float32") if i % 2 else \
            paddle.sin(h) + 0.25
    mid = h
    loss = paddle.sum(paddle.exp(mid * 0.5))
    return x, mid, loss


def _set_none(x, mid, loss):
    x.grad = None


def _clear(x, mid, loss):
    x.clear_grad()


def _user_grad(x, mid, loss):
    x.grad = TT(np.full(6, 0.5, np.float32))


def _held_view(x, mid, loss):
    held = x.grad                       # shares x's accumulator: later replays write into it
    with paddle.no_grad():
        held.zero_()


def _interior_hook(x, mid, loss):
    mid.register_hook(lambda g: g * 3.0)


def _leaf_hook(x, mid, loss):
    x.register_hook(lambda g: g + 1.0)


def _removed_hook(x, mid, loss):
    mid.register_hook(lambda g: g * 3.0).remove()


def _retain(x, mid, loss):
    mid.retain_grads()


def _seed(x, mid, loss):
    loss.backward(TT(np.float32(2.0)), retain_graph=True)


def _reference_vm(x, mid, loss):
    with vm.using("reference"):
        loss.backward(retain_graph=True)


def _create_graph(x, mid, loss):
    loss.backward(retain_graph=True, create_graph=True)


def _other_root(x, mid, loss):
    paddle.sum(mid * mid).backward(retain_graph=True)


def _other_root_frees(x, mid, loss):
    paddle.sum(mid * mid).backward()      # frees the shared nodes: later replays raise


CHANGES = [_set_none, _clear, _user_grad, _held_view, _interior_hook, _leaf_hook,
           _removed_hook, _retain, _seed, _reference_vm, _create_graph, _other_root,
           _other_root_frees]


def _history(change, fast):
    vm.warmup(quiet=True)                 # the compiled call Binding.quick makes
    x, mid, loss = _graph()
    replay = (lambda: loss.backward(retain_graph=True)) if fast else \
        (lambda: paddle.autograd.backward([loss], retain_graph=True))
    out = []
    for step in range(8):
        if step == 4:
            change(x, mid, loss)
        try:
            replay()
        except RuntimeError as e:
            out.append(str(e))
            continue
        out.append(x.grad.numpy().copy())
        out.append(None if mid.grad is None else mid.grad.numpy().copy())
    return out


@pytest.mark.parametrize("change", CHANGES, ids=lambda f: f.__name__[1:])
def test_armed_replay_agrees_with_the_general_path_around_a_change(change):
    fast = _history(change, True)
    slow = _history(change, False)
    if change is _other_root_frees:
        assert isinstance(fast[-1], str) and "second time" in fast[-1]
    for a, b in zip(fast, slow):
        if a is None or b is None or isinstance(a, str) or isinstance(b, str):
            assert a == b
        else:
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def _retained_binding(loss):
    return loss._node.programs[id(loss)][0]


def test_an_armed_replay_is_one_entry_call_and_nothing_else(monkeypatch):
    vm.warmup(quiet=True)
    with vm.using("numba"):               # the compiled path, even under JITGRAD_VM=reference
        x, mid, loss = _graph()
        for _ in range(3):
            loss.backward(retain_graph=True)
        b = _retained_binding(loss)
        assert b.armed == tape.epoch()              # armed when kept
        assert b.ws.call is not None and b.ws.ones_ready
        one = x.grad.numpy() / 3
        calls = {"entry": 0, "run": 0}
        real_entry, real_run = b.ws.call, binding.Binding.run

        def entry():
            calls["entry"] += 1
            return real_entry()

        def run(self, seeds):
            calls["run"] += 1
            return real_run(self, seeds)

        b.ws.call = entry
        monkeypatch.setattr(binding.Binding, "run", run)
        for _ in range(4):
            loss.backward(retain_graph=True)
        assert calls == {"entry": 4, "run": 0}
        np.testing.assert_allclose(x.grad.numpy(), 7 * one, rtol=1e-5)
        x.grad = None                               # the general path again, then quick
        loss.backward(retain_graph=True)
        loss.backward(retain_graph=True)
        assert calls == {"entry": 6, "run": 1}      # one compiled call each
        np.testing.assert_allclose(x.grad.numpy(), 2 * one, rtol=1e-5)


def test_a_freed_graph_disarms():
    vm.warmup(quiet=True)
    x, mid, loss = _graph()
    for _ in range(3):
        loss.backward(retain_graph=True)
    loss.backward()                                   # frees the graph and its Program
    g = x.grad.numpy().copy()
    with pytest.raises(RuntimeError, match="second time"):
        loss.backward(retain_graph=True)
    np.testing.assert_array_equal(x.grad.numpy(), g)


def test_a_replay_after_grad_is_set_to_none_makes_a_new_grad():
    """Regression: `x.grad = None` drops the array the owned row wrote through; its weak
    reference then reads None, which Binding.quick took for the (None) .grad, so the replay
    wrote through the freed array's address and left x.grad None."""
    vm.warmup(quiet=True)
    x, mid, loss = _graph()
    loss.backward(retain_graph=True)
    one = x.grad.numpy().copy()
    loss.backward(retain_graph=True)              # Binding.quick from here on
    x.grad = None                                 # nothing else holds the old array
    loss.backward(retain_graph=True)
    assert x.grad is not None and x._grad.flags.owndata
    np.testing.assert_allclose(x.grad.numpy(), one, rtol=1e-6)
    loss.backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), 2 * one, rtol=1e-6)
