"""Tensors and numpy work together both ways."""

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor


def test_np_asarray_gives_the_values():
    t = TT([[1.0, 2.0]])
    a = np.asarray(t)
    assert a.dtype == np.float32 and a.tolist() == [[1.0, 2.0]]
    assert np.asarray(t, dtype=np.float64).dtype == np.float64


def test_numpy_on_the_left_of_an_operator_gives_a_tensor():
    x = TT([1.0, 2.0], stop_gradient=False)
    for y in (np.array([3.0, 4.0], np.float32) * x, np.float32(2) + x, np.ones(2) - x,
              np.array([2.0, 4.0], np.float32) / x):
        assert isinstance(y, paddle.Tensor)
    y = np.array([3.0, 4.0], np.float32) * x
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 4.0]


def test_to_tensor_accepts_lists_arrays_scalars_and_tensors():
    assert TT([[1, 2], [3, 4]]).shape == [2, 2]
    assert TT(np.zeros((2, 3), np.float64)).dtype == paddle.float64
    assert TT(3.5).shape == [] and TT(3.5).dtype == paddle.float32
    t = TT([1.0, 2.0])
    copy = TT(t)
    assert copy.tolist() == [1.0, 2.0] and copy is not t
    assert TT([TT(1.0), TT(2.0)]).tolist() == [1.0, 2.0]


def test_to_tensor_copies_its_input():
    a = np.array([1.0, 2.0])
    t = TT(a)
    a[0] = 5
    assert t.tolist() == [1.0, 2.0]


def test_tolist_of_0d_is_a_python_number():
    assert TT(2.5).tolist() == 2.5
    assert TT([[1, 2]]).tolist() == [[1, 2]]


# ---- a numpy operand is snapshotted when the op is recorded -----------------------------------
# Each form below takes x = [1, 2, 3] (needing grad) and a = [1, 2, 3] (a numpy array); the
# user then writes 100 into a before backward. The gradient is the one of the values a had
# when the op ran, as for to_tensor(a), and the forward value does not change either.
F = paddle.nn.functional
SNAPSHOT_FORMS = {
    #  name           f(x, a) -> a tensor; grad of its sum at x = a = [1, 2, 3]
    "x * a":        (lambda x, a: x * a, [1.0, 2.0, 3.0]),
    "a * x":        (lambda x, a: a * x, [1.0, 2.0, 3.0]),
    "multiply":     (lambda x, a: paddle.multiply(x, a), [1.0, 2.0, 3.0]),
    "x / a":        (lambda x, a: x / a, [1.0, 1 / 2, 1 / 3]),
    "divide":       (lambda x, a: paddle.divide(x, a), [1.0, 1 / 2, 1 / 3]),
    "a / x":        (lambda x, a: a / x, [-1.0, -2 / 4, -3 / 9]),          # -a / x^2
    "x ** a":       (lambda x, a: x ** a, [1.0, 4.0, 27.0]),               # a x^(a-1)
    "maximum":      (lambda x, a: paddle.maximum(x * 2, a), [2.0, 2.0, 2.0]),
    "minimum":      (lambda x, a: paddle.minimum(x / 2, a), [0.5, 0.5, 0.5]),
    "matmul":       (lambda x, a: paddle.matmul(x, a), [1.0, 2.0, 3.0]),
    "x @ a":        (lambda x, a: x @ a, [1.0, 2.0, 3.0]),
    "a @ x":        (lambda x, a: a @ x, [1.0, 2.0, 3.0]),
    "dot":          (lambda x, a: paddle.dot(x, a), [1.0, 2.0, 3.0]),
    "lerp weight":  (lambda x, a: paddle.lerp(x, x * 0, a), [0.0, -1.0, -2.0]),   # 1 - a
    "linear":       (lambda x, a: F.linear(x.reshape([1, 3]), a.reshape(3, 1)),
                     [1.0, 2.0, 3.0]),
    "kl_div label": (lambda x, a: F.kl_div(x, a, reduction="sum"), [-1.0, -2.0, -3.0]),
    "binary_cross_entropy label":   # p = x/4: -(a/p - (1-a)/(1-p)) / 4
                    (lambda x, a: F.binary_cross_entropy(x / 4, a, reduction="sum"),
                     [-1.0, -1.5, -3.0]),
    "mse_loss label": (lambda x, a: F.mse_loss(x * 2, a, reduction="sum"),   # 4(2x - a)
                       [4.0, 8.0, 12.0]),
}


@pytest.mark.parametrize("name", list(SNAPSHOT_FORMS))
def test_an_op_keeps_the_values_a_numpy_operand_had_when_it_ran(name):
    f, grad = SNAPSHOT_FORMS[name]
    x = TT([1.0, 2.0, 3.0], stop_gradient=False)
    a = np.array([1.0, 2.0, 3.0], "float32")
    y = f(x, a)
    before = y.numpy()
    a[:] = 100
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-6, atol=1e-7)
    assert np.array_equal(y.numpy(), before)


def test_the_gradient_through_a_numpy_operand_is_the_same_on_both_interpreters():
    for vm_name in ("numba", "reference"):
        with paddle.vm.using(vm_name):
            x = TT([1.0, 1.0, 1.0], stop_gradient=False)
            a = np.array([1.0, 2.0, 3.0], "float32")
            y = (x * a).sum()
            a[:] = 100
            y.backward()
            assert x.grad.tolist() == [1.0, 2.0, 3.0], vm_name
