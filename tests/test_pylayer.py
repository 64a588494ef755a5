"""jitgrad.autograd.PyLayer: user-defined forward and backward, as in Paddle."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.compile import executor
from jitgrad import vm
from jitgrad.testing import check_grads

TT = paddle.to_tensor


def leaf(values, dtype="float32"):
    return TT(values, dtype=dtype, stop_gradient=False)


class Cube(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensor()
        return dy * 3 * x * x


class ScaledPair(paddle.autograd.PyLayer):
    """Two inputs, a non-Tensor argument, two outputs."""

    @staticmethod
    def forward(ctx, a, b, k):
        ctx.k = k
        ctx.save_for_backward(a, b)
        return a * b, a + b * k

    @staticmethod
    def backward(ctx, g1, g2):
        a, b = ctx.saved_tensor()
        return g1 * b + g2, g1 * a + g2 * ctx.k


def test_forward_and_backward_like_paddle():
    x = leaf([2.0, 1.0])
    y = Cube.apply(x)
    assert y.tolist() == [8.0, 1.0]
    assert y.stop_gradient is False and not y.is_leaf
    y.sum().backward()
    assert x.grad.tolist() == [12.0, 3.0]


def test_two_outputs_two_inputs_and_a_plain_argument():
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    p, q = ScaledPair.apply(a, b, 5.0)
    assert p.tolist() == [3.0, 8.0] and q.tolist() == [16.0, 22.0]
    (p * 2 + q).sum().backward()
    assert a.grad.tolist() == [7.0, 9.0]          # 2 b + 1
    assert b.grad.tolist() == [7.0, 9.0]          # 2 a + 5


def test_output_is_constant_when_no_input_needs_grad():
    y = Cube.apply(TT([2.0]))
    assert y.stop_gradient is True and y.is_leaf


def test_pylayer_in_the_middle_of_a_graph_matches_the_builtin_op():
    x = leaf([0.5, -1.0, 2.0], "float64")
    paddle.sum(paddle.exp(Cube.apply(paddle.sin(x)))).backward()
    want = np.exp(np.sin(x.numpy()) ** 3) * 3 * np.sin(x.numpy()) ** 2 * np.cos(x.numpy())
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12)


def test_compiled_replay_calls_python_only_for_the_pylayer_node(monkeypatch):
    x = leaf([0.5, -1.0, 2.0])
    loss = paddle.sum(paddle.exp(Cube.apply(paddle.tanh(x))))
    loss.backward(retain_graph=True)
    want = x.grad.numpy()
    b = executor.bind([loss])
    prog = b.program
    assert prog.has_callbacks
    calls, ranges = [], []
    real_backward, real_execute = Cube.backward, vm.execute
    monkeypatch.setattr(Cube, "backward",
                        staticmethod(lambda ctx, dy: calls.append(1) or real_backward(ctx, dy)))
    monkeypatch.setattr(vm, "execute", lambda *a, start=0, stop=-1, vm=None:
                        ranges.append((start, stop)) or real_execute(*a, start=start,
                                                                     stop=stop, vm=vm))
    for op in {n.op for n in b.graph.nodes if not n.op.extra.get("py_layer")}:
        monkeypatch.setattr(op, "vjp", None)         # built-in rules must stay compiled
    x.clear_grad()
    loss.backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6)
    assert calls == [1]
    assert sum(b - a for a, b in ranges) == len(prog) and len(ranges) == 2


@pytest.mark.parametrize("order", [1, 2])
def test_check_grads_on_a_pylayer(order):
    check_grads(lambda a, b: ScaledPair.apply(a, b, 0.5)[0] * ScaledPair.apply(a, b, 0.5)[1],
                np.array([0.3, -1.2]), np.array([1.5, 0.7]), order=order)


def test_create_graph_differentiates_the_user_backward():
    x = leaf([2.0, 1.0])
    (d,) = paddle.grad(Cube.apply(x).sum(), x, create_graph=True)
    assert d.tolist() == [12.0, 3.0]
    assert paddle.grad(d.sum(), x)[0].tolist() == [12.0, 6.0]


def test_wrong_number_of_gradients_raises_value_error():
    class Bad(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g

    a, b = leaf([1.0]), leaf([2.0])
    with pytest.raises(ValueError, match="returned 1 gradients"):
        Bad.apply(a, b).backward()


def test_non_tensor_gradient_raises_type_error():
    class Bad(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g.numpy()

    with pytest.raises(TypeError, match="Tensors or None"):
        Bad.apply(leaf([1.0])).backward()


class _GradForAOnly(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, a, b):
        return a * b

    @staticmethod
    def backward(ctx, g):
        return g * 2, None


def test_none_gradient_means_no_contribution():
    a, b = leaf([1.0]), leaf([3.0])
    (_GradForAOnly.apply(a, b) + b).backward()
    assert a.grad.tolist() == [2.0] and b.grad.tolist() == [1.0]


def test_pylayer_graph_node_is_named_after_the_class():
    # Paddle 3.3.1: Cube.apply(x).grad_fn.name() == "GradNodePyLayer_Cube" (measured)
    x = leaf([1.0])
    y = Cube.apply(x)
    assert y._node.grad_name == y.grad_fn.name() == "GradNodePyLayer_Cube"


@pytest.mark.parametrize("vm_name", ["numba", "reference"])
def test_none_gradient_leaves_grad_none_when_nothing_else_reaches_it(vm_name):
    # Paddle (PR 51740): backward may return None for an input that needs a gradient; that
    # input gets no contribution, so its .grad stays None rather than zeros.
    with paddle.vm.using(vm_name):
        a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
        c = b * 5.0                                 # None also stops the flow upstream
        y = _GradForAOnly.apply(a, c).sum()
        y.backward(retain_graph=True)
        assert a.grad.tolist() == [2.0, 2.0] and b.grad is None
        y.backward()                                # a retained replay: the same
        assert a.grad.tolist() == [4.0, 4.0] and b.grad is None
        a, b = leaf([1.0]), leaf([3.0])
        ga, gb = paddle.grad(_GradForAOnly.apply(a, b).sum(), [a, b], allow_unused=True)
        assert ga.tolist() == [2.0] and gb is None
        with pytest.raises(ValueError, match="1-th input"):
            paddle.grad(_GradForAOnly.apply(a, b).sum(), [a, b])
        ga, gb = paddle.grad(_GradForAOnly.apply(a, b).sum(), [a, b], create_graph=True,
                             allow_unused=True)
        assert ga.tolist() == [2.0] and gb is None
        a, b = leaf([1.0]), leaf([3.0])                # another path still contributes
        (_GradForAOnly.apply(a, b) + b * b).sum().backward()
        assert a.grad.tolist() == [2.0] and b.grad.tolist() == [6.0]


def test_none_gradient_under_create_graph_backward_leaves_grad_none():
    a, b = leaf([1.0]), leaf([3.0])
    _GradForAOnly.apply(a, b).sum().backward(create_graph=True)
    assert a.grad.tolist() == [2.0] and b.grad is None
