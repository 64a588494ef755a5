"""paddle.incubate.autograd: values measured on Paddle 3.3.1 (CPU, float32) unless noted."""

import numpy as np
import pytest

import jitgrad as paddle

ia = paddle.incubate.autograd
TT = paddle.to_tensor


def matmul_self(x):
    return paddle.matmul(x, x)


def test_vjp_and_jvp_of_x_at_x_with_ones():
    x = paddle.ones([2, 2])
    ys, vjp = ia.vjp(matmul_self, x)
    np.testing.assert_array_equal(ys.numpy(), [[2, 2], [2, 2]])
    np.testing.assert_array_equal(vjp.numpy(), [[4, 4], [4, 4]])
    _, jvp = ia.jvp(matmul_self, x)
    np.testing.assert_array_equal(jvp.numpy(), [[4, 4], [4, 4]])
    _, jvp = ia.jvp(matmul_self, x, TT([[1.0, 0.0], [0.0, 0.0]]))
    np.testing.assert_array_equal(jvp.numpy(), [[2, 1], [1, 0]])


def test_transforms_detach_their_inputs_as_paddle():
    x = TT([1.0, 2.0], stop_gradient=False)
    ys, g = ia.vjp(lambda t: t * t, x)
    assert not ys.stop_gradient and not g.stop_gradient      # Paddle prints False
    assert x.grad is None
    np.testing.assert_array_equal(g.numpy(), [2, 4])


def test_several_inputs_and_outputs_keep_their_structure():
    def g(a, b):
        return a * b, a + b
    a, b = TT([1.0, 2.0]), TT([3.0, 4.0])
    ys, vs = ia.vjp(g, [a, b], [TT([1.0, 1.0]), TT([0.0, 1.0])])
    np.testing.assert_array_equal([t.numpy() for t in ys], [[3, 8], [4, 6]])
    np.testing.assert_array_equal([t.numpy() for t in vs], [[3, 5], [1, 3]])
    _, js = ia.jvp(g, [a, b], [TT([1.0, 0.0]), TT([0.0, 1.0])])
    np.testing.assert_array_equal([t.numpy() for t in js], [[3, 2], [1, 1]])


def test_jvp_matches_the_closed_form_in_float64():
    x = TT([[1.0, 2.0], [3.0, 4.0]], dtype="float64")
    _, jv = ia.jvp(lambda t: paddle.tanh(t) * 2, x)
    np.testing.assert_allclose(jv.numpy(), 2 * (1 - np.tanh(x.numpy()) ** 2), rtol=1e-13)


def test_jvp_of_a_constant_function_is_zero():
    _, jv = ia.jvp(lambda t: paddle.ones([2]), TT([1.0, 2.0]))
    np.testing.assert_array_equal(jv.numpy(), [0, 0])


def test_a_tangent_of_the_wrong_shape_raises_as_paddle():
    with pytest.raises(RuntimeError, match=r"v\[0\] has invalid shape"):
        ia.jvp(lambda t: t * 2, paddle.ones([2, 2]), paddle.ones([3]))
    with pytest.raises(RuntimeError, match=r"v\[0\] has invalid shape"):
        ia.vjp(lambda t: t * 2, paddle.ones([2, 2]), paddle.ones([3]))


def test_jacobian_joins_inputs_along_columns():
    x = paddle.ones([2, 2])
    J = ia.Jacobian(paddle.matmul, [x, x])
    assert J.shape == (4, 8)          # a tuple, as Paddle 3.3.1's
    np.testing.assert_array_equal(J[:, :].numpy(), [[1, 1, 0, 0, 1, 0, 1, 0],
                                                   [1, 1, 0, 0, 0, 1, 0, 1],
                                                   [0, 0, 1, 1, 1, 0, 1, 0],
                                                   [0, 0, 1, 1, 0, 1, 0, 1]])
    np.testing.assert_array_equal(J[0, :].numpy(), [1, 1, 0, 0, 1, 0, 1, 0])


def test_hessians_plain_and_batched():
    H = ia.Hessian(lambda t: (t * t * t).sum(), TT([1.0, 2.0]))
    assert H.shape == (2, 2)
    np.testing.assert_array_equal(H[:].numpy(), [[6, 0], [0, 12]])
    Hb = ia.Hessian(lambda t: (t * t).sum(axis=1), TT([[1.0, 2.0], [3.0, 4.0]]),
                    is_batched=True)
    assert Hb.shape == (2, 2, 2)
    np.testing.assert_array_equal(Hb[:].numpy(), [[[2, 0], [0, 2]], [[2, 0], [0, 2]]])
    J = ia.Jacobian(lambda t: paddle.tanh(t) * 2, TT([[1.0, 2.0], [3.0, 4.0]]),
                    is_batched=True)
    assert J.shape == (2, 2, 2)


def test_forward_grad_and_grad_run_on_eager_graphs():
    """Paddle 3.3.1 raises AssertionError in dynamic mode ('only supported in static graph
    mode'); jitgrad computes them (README: deliberate differences)."""
    x = TT([1.0, 2.0, 3.0], dtype="float64", stop_gradient=False)
    y = paddle.sin(x) * x
    want = np.cos(x.numpy()) * x.numpy() + np.sin(x.numpy())
    np.testing.assert_allclose(ia.forward_grad(y, x).numpy(), want, rtol=1e-13)
    np.testing.assert_allclose(ia.grad(y, x).numpy(), want, rtol=1e-13)
    v = TT([1.0, 0.0, 2.0], dtype="float64")
    np.testing.assert_allclose(ia.forward_grad(y, x, v).numpy(), want * v.numpy(), rtol=1e-13)


def test_a_missing_name_says_what_jitgrad_has():
    with pytest.raises(AttributeError, match="jitgrad implements jvp"):
        ia.enable_prim
