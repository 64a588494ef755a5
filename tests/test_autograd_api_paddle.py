"""The autograd API around the backward, as Paddle 3.3.1 behaves: saved_tensors_hooks,
set_grad_enabled as a decorator, detach's version counter, hooks on grad()'s inputs, zeros
where Paddle gives zeros, argument errors, one-element conversions. Every expectation was
measured on Paddle 3.3.1; where jitgrad deliberately differs the test says so (README)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.core import errors
from jitgrad.compile import executor

from backward_paths import PATHS, backward, grad, leaf

TT = paddle.to_tensor


# ---- saved_tensors_hooks --------------------------------------------------------------------

class Log:
    """pack/unpack hooks that record their calls; unpack multiplies by `k`."""

    def __init__(self, k=1.0):
        self.calls, self.k = [], k

    def pack(self, t):
        self.calls.append(("pack", tuple(t.shape)))
        return ("saved", t.numpy())

    def unpack(self, p):
        self.calls.append("unpack")
        return TT(p[1] * self.k)

    def take(self):
        calls, self.calls = self.calls, []
        return calls


@pytest.mark.parametrize("path", ["numba", "reference", "interpret"])
def test_pack_when_recorded_unpack_on_every_backward(path):
    log = Log()
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    with paddle.autograd.saved_tensors_hooks(log.pack, log.unpack):
        y = a * b                   # multiply's gradient reads a and b
        s = y.sum()                 # sum's reads nothing: no pack (Paddle's counts)
    assert log.take() == [("pack", (2,)), ("pack", (2,))]
    backward(s, path, retain_graph=True)
    assert log.take() == ["unpack", "unpack"]
    backward(s, path, retain_graph=True)        # a retained replay unpacks again
    assert log.take() == ["unpack", "unpack"]
    assert grad(s, a, path)[0].tolist() == [3.0, 4.0]
    assert log.take() == ["unpack", "unpack"]
    assert a.grad.tolist() == [6.0, 8.0] and b.grad.tolist() == [2.0, 4.0]


@pytest.mark.parametrize("path", ["numba", "reference", "interpret"])
def test_the_gradient_is_computed_with_what_unpack_returns(path):
    log = Log(k=10.0)
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    with paddle.autograd.saved_tensors_hooks(log.pack, log.unpack):
        y = a * b
    backward((y * 2.0).sum(), path)             # (the * 2, recorded outside: no hooks)
    assert a.grad.tolist() == [60.0, 80.0]      # Paddle too: unpack's values are used
    assert b.grad.tolist() == [20.0, 40.0]


def test_create_graph_differentiates_through_the_original_tensors():
    log = Log()
    x = leaf([1.0, 2.0], "float64")
    with paddle.autograd.saved_tensors_hooks(log.pack, log.unpack):
        y = x * x * x
    (d,) = paddle.grad(y.sum(), x, create_graph=True)
    assert d.tolist() == [3.0, 12.0] and log.take().count("unpack") == 4
    (d2,) = paddle.grad(d.sum(), x)
    assert d2.tolist() == [6.0, 12.0]


def test_only_ops_recorded_inside_the_block_are_packed():
    log = Log()
    a = leaf([1.0, 2.0])
    y = a * a
    with paddle.autograd.saved_tensors_hooks(log.pack, log.unpack):
        y.sum().backward()          # the hooks active when recorded count, not these
    assert log.take() == [] and a.grad.tolist() == [2.0, 4.0]


def test_the_rest_of_a_hooked_graph_stays_compiled_and_uncached(fresh_cache):
    log = Log()
    x = leaf(np.linspace(-1, 1, 6).reshape(2, 3))
    w = leaf(np.full((3, 2), 0.5))
    h = paddle.tanh(paddle.matmul(x, w))
    with paddle.autograd.saved_tensors_hooks(log.pack, log.unpack):
        z = h * h
    loss = paddle.exp(z).sum()
    prog = executor.bind([loss]).program
    assert [spec[0] for spec in prog.callbacks] == ["call"]
    loss.backward()
    hv = np.tanh(x.numpy() @ w.numpy())
    gh = np.exp(hv * hv) * 2 * hv * (1 - hv ** 2)
    np.testing.assert_allclose(x.grad.numpy(), gh @ w.numpy().T, rtol=1e-5)
    assert paddle.cache_info().programs == 0


def test_one_pair_of_hooks_at_a_time():
    log = Log()
    with paddle.autograd.saved_tensors_hooks(log.pack, log.unpack):
        with pytest.raises(ValueError, match="only one pair"):
            with paddle.autograd.saved_tensors_hooks(log.pack, log.unpack):
                pass
    y = leaf([1.0]) * 2.0               # the block has ended: nothing packed
    assert log.take() == [] and y._node.op.extra.get("packed_from") is None


def test_unpack_must_return_a_tensor_of_the_saved_shape():
    a = leaf([1.0, 2.0])
    with paddle.autograd.saved_tensors_hooks(lambda t: t, lambda t: t.numpy()):
        y = a * a
    with pytest.raises(TypeError, match="must return a Tensor"):
        y.sum().backward(retain_graph=True)
    a = leaf([1.0, 2.0])
    with paddle.autograd.saved_tensors_hooks(lambda t: t, lambda t: TT([1.0])):
        y = a * a
    with pytest.raises(ValueError, match="shape"):
        y.sum().backward()


@pytest.mark.parametrize("path", PATHS)
def test_pylayer_saved_tensors_unpack_on_every_saved_tensor_call(path):
    log = Log()

    class Mul(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensor()
            return g * y, g * x

    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    with paddle.autograd.saved_tensors_hooks(log.pack, log.unpack):
        y = Mul.apply(a, b)
    assert log.take() == [("pack", (2,)), ("pack", (2,))]
    backward(y.sum(), path, retain_graph=True)
    assert log.take() == ["unpack", "unpack"]
    assert a.grad.tolist() == [3.0, 4.0] and b.grad.tolist() == [1.0, 2.0]


# ---- set_grad_enabled -----------------------------------------------------------------------

def test_set_grad_enabled_as_a_decorator_sets_the_mode_for_each_call():
    x = leaf([1.0])

    @paddle.set_grad_enabled(False)
    def f():
        return (x * 2).stop_gradient, paddle.is_grad_enabled()

    assert paddle.is_grad_enabled()             # decorating is not a plain call
    assert f() == (True, False) and paddle.is_grad_enabled()
    with paddle.no_grad():                      # Paddle 3.3.1 clobbers the caller's mode
        @paddle.set_grad_enabled(True)
        def g():
            return paddle.is_grad_enabled()
        assert g() is True and paddle.is_grad_enabled() is False
    assert paddle.is_grad_enabled()


def test_set_grad_enabled_decorates_generators_and_keeps_the_signature():
    import inspect

    @paddle.set_grad_enabled(False)
    def gen(n, k=1):
        for _ in range(n):
            yield paddle.is_grad_enabled()

    assert list(gen(2)) == [False, False] and paddle.is_grad_enabled()
    assert str(inspect.getfullargspec(gen)) == str(inspect.getfullargspec(
        gen.__wrapped__))


def test_set_grad_enabled_plain_call_and_block():
    paddle.set_grad_enabled(False)
    try:
        assert not paddle.is_grad_enabled()
        with paddle.set_grad_enabled(True):
            assert paddle.is_grad_enabled()
        assert not paddle.is_grad_enabled()
    finally:
        paddle.set_grad_enabled(True)


# ---- detach shares the version counter ------------------------------------------------------

def test_detach_shares_the_inplace_version_counter():
    var = TT(np.ones((4, 2, 3), "float32"))
    d1 = var.detach()
    var[0] = 1.1
    d2 = var.detach()
    assert (var.inplace_version, d1.inplace_version, d2.inplace_version) == (1, 1, 1)
    var[0] = 3
    assert (d1.inplace_version, d2.inplace_version) == (2, 2)
    d2.scale_(2.0)
    assert var.inplace_version == 3 and d1.inplace_version == 3


@pytest.mark.parametrize("path", PATHS)
def test_an_inplace_change_through_detach_blocks_the_backward(path):
    a = paddle.ones([4, 2, 3])
    a.stop_gradient = False
    b = a ** 2
    c = b ** 2                          # reads b
    db = b.detach()
    db[1:2] = 3.3
    assert b.tolist() == (np.ones((4, 2, 3))).tolist()  # copy on write (README)
    with pytest.raises(RuntimeError, match="received tensor_version:1 != "
                                           "wrapper_version_snapshot:0"):
        backward(paddle.nn.functional.relu(c + b ** 2).sum(), path)


# ---- hooks on grad()'s inputs -------------------------------------------------------------

@pytest.mark.parametrize("path", PATHS)
def test_grad_runs_a_non_leaf_inputs_hooks_and_returns_the_result(path):
    calls = []
    x = leaf([1.0, 2.0])
    h = x * 3
    h.register_hook(lambda g: calls.append(g.tolist()) or g * 10)
    y = h * h
    (gh,) = grad(y.sum(), h, path)
    assert gh.tolist() == [60.0, 120.0] and calls == [[6.0, 12.0]]
    gh, gx = grad(y.sum(), [h, x], path)
    assert gh.tolist() == [60.0, 120.0] and gx.tolist() == [180.0, 360.0]
    assert len(calls) == 2              # once per call


@pytest.mark.parametrize("path", PATHS)
def test_grad_skips_hooks_on_leaf_inputs_and_on_a_root(path):
    calls = []
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: calls.append("x") or g * 10)
    h = x * 3
    h.register_hook(lambda g: calls.append("h") or g * 10)
    assert grad((x * x).sum(), x, path)[0].tolist() == [2.0, 4.0]
    assert grad(h, h, path)[0].tolist() == [1.0, 1.0]
    assert calls == []


@pytest.mark.parametrize("path", PATHS)
def test_a_root_input_fed_by_another_output_returns_its_hooked_gradient(path):
    # was: dy = 3 (unhooked) while dx = 45 came from the hooked 15; Paddle gives 15 with
    # [y, x], torch with [y]; the hooked value is the one x's gradient is consistent with
    for inputs in ("y", "yx"):
        x = leaf([1.0, 2.0])
        y = x * 3
        y.register_hook(lambda g: g * 5)
        got = grad([y * 2, y], [y, x] if inputs == "yx" else [y], path)
        assert got[0].tolist() == [15.0, 15.0]
        assert inputs == "y" or got[1].tolist() == [45.0, 45.0]


@pytest.mark.parametrize("path", PATHS)
def test_an_output_in_no_grad_vars_still_passes_on_its_seed(path):
    # was: ValueError (the input unreachable); Paddle 3.3.1 returns [2, 4]
    x = leaf([1.0, 2.0])
    y = x * x
    assert grad([y], [x], path, no_grad_vars=[y])[0].tolist() == [2.0, 4.0]
    # what another output sends into it is cut: y * 3 adds nothing
    assert grad([y, y * 3], [x], path, no_grad_vars=[y])[0].tolist() == [2.0, 4.0]
    assert grad([y * 3], [x], path, no_grad_vars=[y], allow_unused=True)[0] is None


@pytest.mark.parametrize("path", PATHS)
def test_a_hook_registered_by_a_hook_runs_in_the_same_backward(path):
    # was: from the next backward on; Paddle 3.3.1 gives 400 and 800 at once
    x = leaf([1.0, 2.0])
    y = x * x

    def hook(g):
        y.register_hook(lambda g: g * 100)
        return g * 2
    y.register_hook(hook)
    backward(y.sum(), path)
    assert x.grad.tolist() == [400.0, 800.0]


@pytest.mark.parametrize("path", PATHS)
def test_a_hook_returning_another_dtype_raises(path):
    # was: cast silently; Paddle 3.3.1 raises too
    x = leaf([1.0, 2.0])
    y = x * 3
    y.register_hook(lambda g: g.astype("float64"))
    with pytest.raises(RuntimeError, match="must return the gradient's dtype float32"):
        backward(y.sum(), path)


@pytest.mark.parametrize("path", PATHS)
def test_grad_fills_a_retained_inputs_grad(path):
    x = leaf([1.0, 2.0])
    h = x * 3
    h.retain_grads()                    # before the hook: the pre-hook value
    h.register_hook(lambda g: g * 10)
    (gh,) = grad((h * h).sum(), h, path)
    assert gh.tolist() == [60.0, 120.0] and h.grad.tolist() == [6.0, 12.0]
    assert x.grad is None


# ---- stop_gradient is read when an op is recorded ---------------------------------------------
# Paddle fixes at record time which inputs an op's gradient reaches; flipping stop_gradient
# afterwards changes nothing for ops recorded before (measured on Paddle 3.3.1).

@pytest.mark.parametrize("path", PATHS)
def test_an_input_turned_on_after_the_op_gets_no_gradient(path):
    x, y = leaf([1.5, 2.5]), TT([0.7])
    z = x * y
    y.stop_gradient = False
    backward(z.sum(), path)
    assert y.grad is None and x.grad.numpy().tolist() == pytest.approx([0.7, 0.7])


@pytest.mark.parametrize("path", PATHS)
def test_grad_of_an_input_turned_on_after_the_op_is_unused(path):
    x, y = leaf([1.5, 2.5]), TT([0.7])
    z = x * y
    y.stop_gradient = False
    with pytest.raises(ValueError, match="1-th input does not appear in the backward graph"):
        grad(z.sum(), [x, y], path, retain_graph=True)
    gx, gy = grad(z.sum(), [x, y], path, allow_unused=True)
    assert gy is None and gx.numpy().tolist() == pytest.approx([0.7, 0.7])


@pytest.mark.parametrize("path", PATHS)
def test_a_leaf_turned_off_after_the_op_still_gets_its_grad(path):
    w = leaf([3.0, 4.0])
    side = paddle.exp(w) * 2
    w.stop_gradient = True
    x = leaf([1.0, 2.0])
    backward((paddle.sin(x) * side).sum(), path)
    np.testing.assert_allclose(w.grad.numpy(), np.sin([1.0, 2.0]) * 2 * np.exp([3.0, 4.0]),
                               rtol=1e-6)
    w2 = leaf([3.0, 4.0])
    s = (w2 * w2).sum()
    w2.stop_gradient = True
    (g,) = grad(s, [w2], path)
    assert g.numpy().tolist() == [6.0, 8.0]


@pytest.mark.parametrize("path", PATHS)
def test_a_non_leaf_turned_off_after_its_use_still_passes_its_gradient(path):
    x = leaf([1.0])
    y = x * 2
    z = y * 3 + x
    y.stop_gradient = True
    backward(z, path)
    assert x.grad.numpy().tolist() == [7.0]
    x2 = leaf([1.0])                        # turned off before its use: that use is cut
    y2 = x2 * 2
    y2.stop_gradient = True
    backward(y2 * 3 + x2, path)
    assert x2.grad.numpy().tolist() == [1.0]


@pytest.mark.parametrize("path", PATHS)
def test_a_tensor_turned_on_between_two_uses_gets_the_later_use_only(path):
    x, c = leaf([1.0, 2.0]), TT([3.0, 4.0])
    a = x * c                               # c needs no gradient here
    c.stop_gradient = False
    backward((a * c).sum(), path)           # ...and does here: d/dc (a c) = a = x c
    assert x.grad.numpy().tolist() == [9.0, 16.0] and c.grad.numpy().tolist() == [3.0, 8.0]


@pytest.mark.parametrize("path", PATHS)
def test_a_retained_non_leaf_turned_off_after_its_use_keeps_its_grad(path):
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grads()
    z = (y * 3).sum()
    y.stop_gradient = True
    backward(z, path)
    assert x.grad.numpy().tolist() == [6.0, 6.0] and y.grad.numpy().tolist() == [3.0, 3.0]


def test_graphs_that_differ_only_in_a_flip_after_the_op_share_no_wrong_program():
    # the recorded edges are part of the program cache's key: same tensors and flags at
    # backward time, different edges, different gradients
    for flip_after in (False, True, False, True):
        x = leaf([1.5, 2.5])
        y = TT([0.7], stop_gradient=flip_after)
        z = x * y
        y.stop_gradient = False
        z.sum().backward()
        assert (y.grad is None) if flip_after else y.grad.numpy().tolist() == [4.0]


# ---- zeros where Paddle gives zeros ---------------------------------------------------------

@pytest.mark.parametrize("split", [
    lambda x: paddle.split(x, [1, 2], axis=1), lambda x: paddle.chunk(x, 3, axis=1),
    lambda x: paddle.unbind(x, axis=1), lambda x: paddle.tensor_split(x, 3, axis=1),
    lambda x: paddle.hsplit(x, 3), lambda x: paddle.unstack(x, axis=1)])
@pytest.mark.parametrize("path", PATHS)
def test_the_retained_grad_of_an_unused_part_of_a_split_is_zeros(path, split):
    x = leaf(np.arange(6.0).reshape(2, 3))
    parts = split(x)
    for p in parts:
        p.retain_grads()
    unrelated = x * 2
    unrelated.retain_grads()
    backward(parts[0].sum(), path)
    for p in parts[1:]:
        assert p.grad.tolist() == np.zeros(p.shape).tolist()
    assert unrelated.grad is None


def test_grad_fills_the_unused_part_of_a_split_too():
    x = leaf(np.arange(6.0).reshape(2, 3))
    a, b = paddle.split(x, [1, 2], axis=1)
    b.retain_grads()
    paddle.grad(a.sum(), x)
    assert b.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_a_backward_does_not_look_at_the_splits_of_other_live_graphs(monkeypatch):
    # (it did: every backward scanned every live split, 10x slower with 300 graphs alive)
    from jitgrad.ops import siblings
    x = leaf(np.arange(6.0).reshape(2, 3))
    others = [paddle.split(x * 1.0, [1, 2], axis=1) for _ in range(20)]

    class Unscannable(type(siblings._groups)):
        def values(self):
            raise AssertionError("fill scanned every live split")
    groups = Unscannable()
    groups.update(siblings._groups)
    monkeypatch.setattr(siblings, "_groups", groups)
    a, b = paddle.split(x, [1, 2], axis=1)
    b.retain_grads()
    a.sum().backward()
    assert b.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]] and len(others) == 20


def test_a_split_and_a_retained_tensor_are_forgotten_with_their_graph():
    import gc

    from jitgrad.core import hooks
    from jitgrad.ops import siblings
    x = leaf(np.arange(6.0).reshape(2, 3))
    groups, retained = len(siblings._groups), len(hooks.RETAINED)
    a, b = paddle.split(x * 1.0, [1, 2], axis=1)
    b.retain_grads()
    assert len(siblings._groups) == groups + 2 and len(hooks.RETAINED) == retained + 1
    del a, b
    gc.collect()
    assert len(siblings._groups) == groups and len(hooks.RETAINED) == retained


@pytest.mark.parametrize("path", ["numba", "reference"])
@pytest.mark.parametrize("f, want", [
    (lambda x, c: x * c, [0.0, 0.0]), (lambda x, c: x / c, [0.0, 0.0]),
    (lambda x, c: x + c, None), (lambda x, c: x * 3.0, None),
    (lambda x, c: paddle.matmul(x, c), None), (lambda x, c: x.sum() * 1.0, None),
    (lambda x, c: c / x, [6.0, 1.0])])
def test_x_grad_after_backward_of_its_first_order_gradient(path, f, want):
    x, c = leaf([1.0, 2.0]), TT([3.0, 4.0])
    (dx,) = paddle.grad(f(x, c).sum(), x, create_graph=True)
    backward(dx.sum(), path)
    assert (None if x.grad is None else x.grad.tolist()) == want


def test_double_grad_of_matmul_gives_zeros_for_x():
    # Paddle's test_imperative_double_grad TestDoubleGradBasics.test_matmul
    x = leaf(np.full((3, 3), 2.0))
    y = leaf(np.full((3, 3), 2.0))
    g = leaf(np.ones((3, 3)))
    gx, gy = paddle.grad([paddle.matmul(x, y)], [x, y], [g], retain_graph=True,
                         create_graph=True)
    gx.backward()
    assert gx.tolist() == np.full((3, 3), 6.0).tolist()
    assert x.grad.tolist() == np.zeros((3, 3)).tolist()
    assert y.grad.tolist() == np.full((3, 3), 3.0).tolist()
    assert g.grad.tolist() == np.full((3, 3), 6.0).tolist()


def test_triple_grad_of_matmul_gives_none_where_paddle_does():
    # Paddle's test_imperative_triple_grad TestDygraphTripleGradMatmul
    x = leaf(np.full((3, 3), 2.0))
    y = leaf(np.full((3, 3), 2.0))
    g = leaf(np.ones((3, 3)))
    gx, gy = paddle.grad([paddle.matmul(x, y)], [x, y], [g], retain_graph=True,
                         create_graph=True)
    ggx, ggy = leaf(np.ones((3, 3))), leaf(np.ones((3, 3)))
    a, b, c = paddle.grad([gx, gy], [x, y, g], [ggx, ggy], retain_graph=True,
                          create_graph=True)
    a.backward()
    assert (a.tolist(), b.tolist(), c.tolist()) == ([[3.0] * 3] * 3, [[3.0] * 3] * 3,
                                                     [[12.0] * 3] * 3)
    assert x.grad is None and y.grad is None and ggx.grad is None
    assert g.grad.tolist() == [[3.0] * 3] * 3 and ggy.grad.tolist() == [[3.0] * 3] * 3


# ---- reshape to the same shape ----------------------------------------------------------------

def test_reshape_to_the_same_shape_returns_the_tensor_itself():
    # measured on Paddle 3.3.1: paddle.reshape(t, t.shape) is t (leaf or not)
    x = leaf([1.0, 2.0])
    y = x * 2
    assert paddle.reshape(x, [2]) is x and paddle.reshape(y, [2]) is y
    assert y.reshape([2]) is y and paddle.reshape(y, [1, 2]) is not y


# ---- bad arguments: typed errors that are AssertionErrors too ------------------------------

@pytest.mark.parametrize("args, kwargs, typed", [
    ((None, None), {}, TypeError), ((1, [TT([1.0])]), {}, TypeError),
    (([TT([1.0])], 1), {}, TypeError), (([1], [TT([1.0])]), {}, TypeError),
    (([TT([1.0])], [1]), {}, TypeError),
    (([TT([1.0]), TT([1.0])], [TT([1.0])], [TT([1.0])]), {}, ValueError),
    (([TT([1.0])], [TT([1.0])]), {"no_grad_vars": [1]}, TypeError),
    (([TT([1.0])], [TT([1.0])]), {"no_grad_vars": 1}, TypeError),
    (([TT([1.0])], [TT([1.0])]), {"create_graph": 1}, TypeError),
    (([], [TT([1.0])]), {}, ValueError), (([TT([1.0])], []), {}, ValueError),
    (([TT([1.0])], [TT([1.0])]), {"grad_outputs": [np.ones(1)]}, TypeError),
    (([TT([1.0])], [TT([1.0])]), {"only_inputs": False}, NotImplementedError)])
def test_bad_grad_arguments_raise_assertion_errors_that_are_typed(args, kwargs, typed):
    for caught in (AssertionError, typed):      # Paddle: AssertionError for each
        with pytest.raises(caught):
            paddle.grad(*args, **kwargs)


def test_bad_backward_arguments_raise_assertion_errors_that_are_typed():
    y = leaf([1.0, 2.0]) * 2
    for call, typed in [(lambda: paddle.autograd.backward(None), TypeError),
                        (lambda: paddle.autograd.backward([]), ValueError),
                        (lambda: paddle.autograd.backward([y, y]), ValueError),
                        (lambda: paddle.autograd.backward([y], [None, None]), ValueError),
                        (lambda: paddle.autograd.backward([y], [np.ones(2)]), TypeError),
                        (lambda: paddle.autograd.backward([y], retain_graph=1), TypeError),
                        (lambda: y.backward(TT([[1.0, 1.0]])), ValueError),
                        (lambda: y.backward(np.ones(2)), TypeError)]:
        with pytest.raises(AssertionError):
            call()
        with pytest.raises(typed):
            call()
    assert issubclass(errors.ArgumentTypeError, TypeError)


# ---- one-element tensors as Python numbers ------------------------------------------------

@pytest.mark.parametrize("shape", [[], [1], [1, 1], [1, 1, 1]])
def test_float_int_and_percent_format_of_one_element_tensors(shape):
    t = paddle.full(shape, 2.5)
    assert float(t) == 2.5 and int(t) == 2
    assert "%f" % t == "2.500000" and "%d" % t == "2"
    with pytest.raises(TypeError, match="one-element"):
        float(paddle.ones([2]))


def test_only_a_0d_integer_tensor_is_an_index():
    assert [1, 2, 3][TT(1)] == 2
    with pytest.raises(TypeError, match="0-d"):
        [1, 2, 3][TT([1])]
