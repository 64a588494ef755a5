"""Autograd API findings of hunt fnhunt24, each measured on Paddle 3.3.1 (comments)."""

import numpy as np

import jitgrad as paddle
from jitgrad.autograd import PyLayer


def _t(values, stop_gradient=False):
    return paddle.to_tensor(np.asarray(values, dtype="float64"), stop_gradient=stop_gradient)


class _ExpSavingOutput(PyLayer):
    """exp whose backward reads the output forward saved (the usual exp/sigmoid pattern)."""

    @staticmethod
    def forward(ctx, x):
        y = paddle.exp(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensor()
        return g * y


class _ExpAndSquare(PyLayer):
    """Two outputs, the second saved: its recorded version is a slice of the node output."""

    @staticmethod
    def forward(ctx, x):
        a, b = paddle.exp(x), x * x
        ctx.save_for_backward(x, b)
        return a, b

    @staticmethod
    def backward(ctx, ga, gb):
        x, b = ctx.saved_tensor()
        return ga * paddle.exp(x) + gb * 2 * b / x


def test_pylayer_saved_output_is_differentiable_in_double_backward():
    # Paddle 3.3.1: grad(g.sum(), x) is exp(x) = [2.71828, 7.38906]; it was None (the
    # saved output was forward's unrecorded tensor, so the path through it was lost)
    x = _t([1.0, 2.0])
    (g,) = paddle.grad(_ExpSavingOutput.apply(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), np.exp([1.0, 2.0]))
    (gg,) = paddle.grad(g.sum(), x, allow_unused=True)
    assert gg is not None
    np.testing.assert_allclose(gg.numpy(), np.exp([1.0, 2.0]))


def test_pylayer_saved_one_of_two_outputs_is_differentiable_in_double_backward():
    # g = exp(x) + 2 b / x with b = x^2 the recorded output: d/dx sum(g) is exp(x) +
    # 2 (b' / x - b / x^2) = exp(x) + 2 (2 - 1); it was exp(x) - 2 (b read as a constant)
    x = _t([1.0, 2.0])
    a, b = _ExpAndSquare.apply(x)
    (g,) = paddle.grad((a + b).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), np.exp([1.0, 2.0]) + 2 * np.array([1.0, 2.0]))
    (gg,) = paddle.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), np.exp([1.0, 2.0]) + 2.0)


def test_saved_tensors_hooks_doing_tensor_math_do_not_pack_their_own_ops():
    # Paddle 3.3.1: pack and unpack each run once for tanh's saved output, the ops inside
    # them are not packed, x.grad = 1 - tanh(x)^2; it recursed forever (RecursionError)
    calls = []

    def pack(t):
        calls.append("pack")
        return paddle.exp(t) * 1.0

    def unpack(p):
        calls.append("unpack")
        return paddle.log(p * 1.0)

    x = _t([1.0, 2.0])
    with paddle.autograd.saved_tensors_hooks(pack, unpack):
        y = paddle.tanh(x)
        y.sum().backward()
    assert calls == ["pack", "unpack"]
    np.testing.assert_allclose(x.grad.numpy(), 1 - np.tanh([1.0, 2.0]) ** 2)



def test_hessian_takes_a_tensor_listed_twice_in_xs():
    # Paddle 3.3.1: hessian(sum(x^3), [x, x]) is ((H, H), (H, H)), H = diag(6x) = diag(6, 12);
    # it raised RuntimeError "inputs contain duplicate tensor"
    x = _t([1.0, 2.0])
    blocks = paddle.autograd.hessian((x ** 3).sum(), [x, x])
    assert len(blocks) == 2 and all(len(row) == 2 for row in blocks)
    for row in blocks:
        for h in row:
            np.testing.assert_allclose(h[:].numpy(), [[6.0, 0.0], [0.0, 12.0]])


class _ExpKeepingOutputOnCtx(PyLayer):
    """exp whose backward reads the output from a ctx attribute (no save_for_backward)."""

    @staticmethod
    def forward(ctx, x):
        ctx.y = paddle.exp(x)
        return ctx.y

    @staticmethod
    def backward(ctx, g):
        return g * ctx.y


def test_pylayer_output_kept_on_ctx_is_differentiable_in_double_backward():
    # Paddle 3.3.1 hands back forward's own tensor (apply(x) is ctx.y), so the double
    # backward reads the recorded output: grad(g.sum(), x) = exp(x); it was None
    x = _t([1.0, 2.0])
    y = _ExpKeepingOutputOnCtx.apply(x)
    (g,) = paddle.grad(y.sum(), x, create_graph=True)
    (gg,) = paddle.grad(g.sum(), x, allow_unused=True)
    assert gg is not None
    np.testing.assert_allclose(gg.numpy(), np.exp([1.0, 2.0]))


def test_pylayer_apply_returns_forwards_own_tensors():
    # Paddle 3.3.1: `apply(x) is` the tensor forward returned, for one output and for each
    # of several (measured); jitgrad returned new tensors
    made = []

    class TwoOutputs(PyLayer):
        @staticmethod
        def forward(ctx, x):
            made.extend([x * 2.0, x * 3.0])
            return tuple(made)

        @staticmethod
        def backward(ctx, ga, gb):
            return ga * 2.0 + gb * 3.0

    x = _t([1.0, 2.0])
    a, b = TwoOutputs.apply(x)
    assert a is made[0] and b is made[1] and not a.stop_gradient
    (a.sum() + b.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0])


def test_pylayer_input_returned_after_mark_not_inplace_is_not_adopted():
    # adopting forward's tensors must leave an input alone: a constant returned after
    # ctx.mark_not_inplace comes back as a new tensor and stays a constant itself
    class PassConstant(PyLayer):
        @staticmethod
        def forward(ctx, x, c):
            ctx.mark_not_inplace(c)
            return x * 2.0, c

        @staticmethod
        def backward(ctx, ga, gc):
            return ga * 2.0, gc

    x, c = _t([1.0, 2.0]), _t([3.0, 4.0], stop_gradient=True)
    a, b = PassConstant.apply(x, c)
    assert b is not c and c.stop_gradient and c.grad_fn is None
    np.testing.assert_allclose(b.numpy(), [3.0, 4.0])


class _Float32AndFloat64(PyLayer):
    """Two outputs of different float dtypes."""

    @staticmethod
    def forward(ctx, x):
        a, b = x * 2.0, (x * 3.0).astype("float64")
        ctx.save_for_backward(a)
        return a, b

    @staticmethod
    def backward(ctx, ga, gb):
        (a,) = ctx.saved_tensor()
        assert a.dtype == paddle.float32 and ga.dtype == paddle.float32
        return ga * 2.0 + gb.astype("float32") * 3.0


def test_pylayer_outputs_keep_their_own_float_dtypes():
    # Paddle 3.3.1: a float32 output beside a float64 one stays float32 (and so does the
    # saved output backward reads); it came back float64 (the flat node output's dtype)
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    a, b = _Float32AndFloat64.apply(x)
    assert a.dtype == paddle.float32 and b.dtype == paddle.float64
    (a.sum() + b.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0])
    a, b = _Float32AndFloat64.apply(x)
    (g,) = paddle.grad((a * a).sum() + (b * b).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), [26.0, 52.0])
