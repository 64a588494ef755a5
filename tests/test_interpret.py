"""The interpret state (autograd/interpret.py): a graph structure's first non-retained backward
runs its rules on arrays; the structure is lowered when it recurs and hits the cache after.
A graph no Program can serve (hooks, retain_grads(), PyLayer) is interpreted every time.

The suite's other tests lower every structure at once (conftest.py); these run with
production's setting. Every registry op goes through this state in test_op_cache.py, and
check_grads (jitgrad.testing) checks it against finite differences as one of its paths.
"""


import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.core import config


@pytest.fixture(autouse=True)
def production(monkeypatch, fresh_cache):
    monkeypatch.setattr(config.SETTINGS, "interpret_new", True)


def _leaf(a):
    return paddle.to_tensor(np.asarray(a, np.float32), stop_gradient=False)


def _counts():
    info = paddle.cache_info()
    return info.interpreted, info.misses, info.hits


def _mlp_step(seed):
    rng = np.random.default_rng(seed)
    w = _leaf(rng.standard_normal((3, 4)))
    b = _leaf(rng.standard_normal(4))
    x = paddle.to_tensor(rng.standard_normal((5, 3)).astype(np.float32))
    h = paddle.tanh(paddle.matmul(x, w) + b)            # b broadcast over the rows
    loss = paddle.mean(paddle.concat([h[:, :2], h[:, 2:] ** 2], axis=1))
    return w, b, x, loss


def _closed_form(w, b, x):
    """The gradients of _mlp_step's loss, by hand."""
    w, b, x = w.numpy(), b.numpy(), x.numpy()
    h = np.tanh(x @ w + b)
    dh = np.full_like(h, 1 / h.size)
    dh[:, 2:] *= 2 * h[:, 2:]
    dz = dh * (1 - h * h)
    return x.T @ dz, dz.sum(0)


def test_a_new_structure_is_interpreted_then_lowered_then_hits():
    seen = []
    for seed in range(4):
        w, b, x, loss = _mlp_step(seed)
        loss.backward()
        gw, gb = _closed_form(w, b, x)
        np.testing.assert_allclose(w.grad.numpy(), gw, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(b.grad.numpy(), gb, rtol=1e-5, atol=1e-7)
        seen.append(_counts())
    assert seen == [(1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 1, 2)]


def test_interpreted_and_compiled_gradients_agree():
    grads = []
    for _ in range(3):                          # interpreted, lowered, cached
        w, b, x, loss = _mlp_step(7)
        loss.backward()
        grads.append((w.grad.numpy(), b.grad.numpy()))
    for got in grads[1:]:
        np.testing.assert_allclose(got[0], grads[0][0], rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(got[1], grads[0][1], rtol=1e-6, atol=1e-8)


def test_a_retained_graph_is_lowered_at_once():
    w, b, x, loss = _mlp_step(0)
    loss.backward(retain_graph=True)
    assert _counts() == (0, 1, 0)
    loss.backward()
    gw, _ = _closed_form(w, b, x)
    np.testing.assert_allclose(w.grad.numpy(), 2 * gw, rtol=1e-5, atol=1e-7)


def test_an_interpreted_backward_frees_the_graph():
    x = _leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    assert _counts() == (1, 0, 0)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()


def test_interpreted_grads_accumulate_into_a_kept_grad_without_aliasing_it():
    x = _leaf([1.0, 2.0, 3.0])
    (x * 2.0).sum().backward()
    kept = x.grad
    first = kept.numpy().copy()
    (x * x).sum().backward()                    # another structure: interpreted too
    assert _counts() == (2, 0, 0)
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 6.0, 8.0])
    y = _leaf([1.0, 2.0, 3.0])
    (y * 2.0).sum().backward()                  # x's first structure again: lowered
    np.testing.assert_array_equal(y.grad.numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(first, [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 6.0, 8.0])


def test_interpreted_grad_returns_new_tensors_and_keeps_the_graph():
    x = _leaf([0.5, -1.0])
    y = paddle.exp(x).sum()
    (g,) = paddle.grad(y, x)
    assert _counts() == (1, 0, 0)
    np.testing.assert_allclose(g.numpy(), np.exp([0.5, -1.0]), rtol=1e-6)
    assert g.stop_gradient and x.grad is None
    y.backward()                                # grad() never frees the graph (Paddle)
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.5, -1.0]), rtol=1e-6)


def test_interpreted_grad_of_an_unused_input_raises_or_gives_none():
    x, z = _leaf([1.0]), _leaf([2.0])
    y = (x * 3.0).sum()
    with pytest.raises(ValueError, match="allow_unused=True"):
        paddle.grad(y, [x, z])
    gx, gz = paddle.grad((x * 3.0).sum(), [x, z], allow_unused=True)
    assert gz is None and gx.numpy().tolist() == [3.0]


def test_interpreted_grad_honours_no_grad_vars():
    x = _leaf([2.0])
    h = x * x
    y = (h * x).sum()                           # x^3, but h held constant: dy/dx = h = 4
    (g,) = paddle.grad(y, x, no_grad_vars=[h])
    assert _counts() == (1, 0, 0)
    assert g.numpy().tolist() == [4.0]


def test_seeds_and_float64_and_float16_leaves_are_interpreted_like_the_compiled_path():
    x64 = paddle.to_tensor(np.array([1.0, 2.0]), stop_gradient=False)
    x16 = paddle.to_tensor(np.array([1.5, 3.0], np.float16), stop_gradient=False)
    y = x64 * x16.astype("float64")
    paddle.autograd.backward([y], [paddle.to_tensor(np.array([1.0, 10.0]))])
    assert _counts()[0] == 1
    assert x64.grad.numpy().tolist() == [1.5, 30.0]
    assert x16.grad.dtype == paddle.float16 and x16.grad.numpy().tolist() == [1.0, 20.0]


def test_an_op_without_an_array_rule_runs_its_tensor_rule():
    """softmax is a fused kernel with no array rule: its vjp runs on Tensors."""
    x = _leaf([[1.0, 2.0, 0.5]])
    w = paddle.to_tensor(np.array([[1.0, -1.0, 2.0]], np.float32))
    (paddle.nn.functional.softmax(x) * w).sum().backward()
    assert _counts() == (1, 0, 0)
    s = np.exp([1.0, 2.0, 0.5]) / np.exp([1.0, 2.0, 0.5]).sum()
    want = s * (np.array([1.0, -1.0, 2.0]) - (s * [1.0, -1.0, 2.0]).sum())
    np.testing.assert_allclose(x.grad.numpy()[0], want, rtol=1e-5)


def test_a_graph_with_hooks_is_interpreted_at_every_backward_unless_retained():
    x = _leaf([1.0, 2.0])
    for _ in range(3):
        h = x * 2.0
        h.register_hook(lambda g: g * 10)
        h.sum().backward()
    info = paddle.cache_info()
    assert (info.interpreted, info.uncacheable, info.misses) == (3, 3, 0)
    assert x.grad.numpy().tolist() == [60.0, 60.0]
    h = x * 2.0
    h.register_hook(lambda g: g * 10)
    h.sum().backward(retain_graph=True)         # retained: lowered, the hook a callback
    assert paddle.cache_info().interpreted == 3
    assert x.grad.numpy().tolist() == [80.0, 80.0]


def test_retain_grads_and_a_pylayer_are_interpreted_like_the_compiled_path():
    from test_pylayer import Cube               # x ** 3, with its backward by hand
    grads = []
    for interpret in (True, False):
        with config.override(interpret_new=interpret):
            x = _leaf([1.0, 2.0])
            h = x * 2.0
            h.retain_grads()
            Cube.apply(h).sum().backward()
            grads.append((x.grad.numpy().tolist(), h.grad.numpy().tolist()))
    assert grads[0] == grads[1] == ([24.0, 96.0], [12.0, 48.0])
    assert paddle.cache_info().interpreted == 1


def test_concurrent_interpreted_backwards_from_threads_are_each_right():
    from test_op_cache import tanh_backwards_in_threads
    # many structures (2-51 elements): many interpreted
    wrong = tanh_backwards_in_threads(lambda seed, i: 2 + (seed * 100 + i) % 50, 100)
    assert wrong == [] and paddle.cache_info().interpreted >= 50


def test_the_switch_is_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("JITGRAD_NO_INTERPRET", "1")
    assert config.Settings.from_env().interpret_new is False
    monkeypatch.delenv("JITGRAD_NO_INTERPRET")
    assert config.Settings.from_env().interpret_new is True


def test_check_grads_compiled_paths_run_a_program_with_production_settings():
    """jitgrad.testing's "numba" and "reference" paths check the Program, not the rules on
    arrays, even where a new structure would be interpreted."""
    from jitgrad import testing
    for path in ("numba", "reference"):
        testing.gradients(lambda x: paddle.sin(x) * 2.0, [np.array([0.5, 1.0])],
                          np.ones(2), path)
    info = paddle.cache_info()
    assert info.interpreted == 0 and info.misses + info.hits == 2


def test_a_graph_with_a_recurrent_scan_is_interpreted_at_its_first_backward():
    """The recurrent scans' array rule (recurrent_lower.scan_interp: the lowered rows, step
    by step in numpy) serves a structure met once, as any other op's; it was lowered at
    once while only their Tensor rule (~30 ops a step) could run interpreted."""
    paddle.seed(0)
    lstm = paddle.nn.LSTM(4, 3)
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((2, 5, 4)).astype("float32"))
    grads = []
    for _ in range(2):
        y, _ = lstm(x)
        (y * y).mean().backward()
        grads.append([p.grad.numpy().copy() for p in lstm.parameters()])
        lstm.clear_gradients()
    info = paddle.cache_info()
    assert (info.interpreted, info.misses) == (1, 1)
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_saved_tensor_hooks_unpack_on_every_interpreted_backward():
    """Paddle 3.3.1: unpack runs on every backward through a packed op. Interpreted, the
    stand-in op runs its unpacking rule, not the op's own array rule (which would read the
    saved arrays the packing dropped)."""
    calls = []

    def unpack(v):
        calls.append("unpack")
        return paddle.to_tensor(v)
    x = _leaf([0.5, 1.0])
    with paddle.autograd.saved_tensors_hooks(lambda t: t.numpy(), unpack):
        y = paddle.sin(x) * 2.0
    y.sum().backward(retain_graph=False)
    assert paddle.cache_info().interpreted == 1 and calls.count("unpack") >= 1
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos([0.5, 1.0]), rtol=1e-6)
