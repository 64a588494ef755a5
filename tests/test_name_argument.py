"""Paddle's functions take `name=` (a label for static graphs, ignored in eager mode), and
Paddle code passes it: every function below refused it (TypeError) until its signature was
compared with Paddle 3.3.1's (/work/scratch/s20/sig: inspect.signature of paddle.*,
paddle.nn.functional.* and paddle.linalg.*)."""

import numpy as np
import pytest

import jitgrad as paddle

F = paddle.nn.functional
X = paddle.to_tensor([[1.0, -2.0], [3.0, 0.5]])
CALLS = {
    "abs": lambda: paddle.abs(X, name="n"),
    "neg": lambda: paddle.neg(X, name="n"),
    "exp": lambda: paddle.exp(X, name="n"),
    "log": lambda: paddle.log(paddle.abs(X), name="n"),
    "sqrt": lambda: paddle.sqrt(paddle.abs(X), name="n"),
    "square": lambda: paddle.square(X, name="n"),
    "sin": lambda: paddle.sin(X, name="n"),
    "cos": lambda: paddle.cos(X, name="n"),
    "F.relu": lambda: F.relu(X, name="n"),
    "F.sigmoid": lambda: F.sigmoid(X, name="n"),
    "F.tanh": lambda: F.tanh(X, name="n"),
    "add": lambda: paddle.add(X, X, name="n"),
    "subtract": lambda: paddle.subtract(X, X, name="n"),
    "multiply": lambda: paddle.multiply(X, X, name="n"),
    "divide": lambda: paddle.divide(X, X, name="n"),
    "maximum": lambda: paddle.maximum(X, X, name="n"),
    "minimum": lambda: paddle.minimum(X, X, name="n"),
    "pow": lambda: paddle.pow(X, 2, name="n"),
    "clip": lambda: paddle.clip(X, -1.0, 1.0, name="n"),
    "clone": lambda: paddle.clone(X, name="n"),
    "reshape": lambda: paddle.reshape(X, [4], name="n"),
    "flatten": lambda: paddle.flatten(X, name="n"),
    "squeeze": lambda: paddle.squeeze(X[None], 0, name="n"),
    "broadcast_to": lambda: paddle.broadcast_to(X, [2, 2, 2], name="n"),
    "expand": lambda: paddle.expand(X, [2, 2, 2], name="n"),
    "sum": lambda: paddle.sum(X, name="n"),
    "mean": lambda: paddle.mean(X, name="n"),
    "max": lambda: paddle.max(X, name="n"),
    "min": lambda: paddle.min(X, name="n"),
    "is_empty": lambda: paddle.is_empty(X, name="n"),
    "linalg.multi_dot": lambda: paddle.linalg.multi_dot(x=[X, X, X], name="n"),
}


@pytest.mark.parametrize("fn", sorted(CALLS))
def test_the_function_takes_paddles_name_argument(fn):
    assert isinstance(CALLS[fn](), paddle.Tensor)


def test_uniform_defaults_to_0_1_as_paddle_3():
    u = paddle.uniform([20000], seed=7).numpy()
    assert 0.0 <= u.min() < 0.01 and 0.99 < u.max() < 1.0
    v = paddle.uniform([20000], min=-1.0, seed=7).numpy()
    assert -1.0 <= v.min() < -0.98
    np.testing.assert_array_equal(paddle.multiply(X, X, name="n").numpy(), (X * X).numpy())


# ---- Paddle 3.x's newer keywords (values measured on Paddle 3.3.1) ---------------------------
def test_add_and_subtract_take_alpha():
    assert paddle.add(X, X, alpha=2).numpy().ravel().tolist() == [3.0, -6.0, 9.0, 1.5]
    assert paddle.subtract(X, X, alpha=0.5).numpy().ravel().tolist() == [0.5, -1.0, 1.5, 0.25]
    ints = paddle.to_tensor([1, 2])
    assert paddle.add(ints, ints, alpha=2).tolist() == [3, 6]
    with pytest.raises(TypeError, match="alpha"):
        paddle.multiply(X, X, alpha=2)


def test_divide_takes_a_rounding_mode():
    a, b = paddle.to_tensor([7.0, -7.0]), paddle.to_tensor([2.0, 2.0])
    assert paddle.divide(a, b, rounding_mode="trunc").tolist() == [3.0, -3.0]
    assert paddle.divide(a, b, rounding_mode="floor").tolist() == [3.0, -4.0]
    i, j = paddle.to_tensor([7, -7]), paddle.to_tensor([2, 2])
    assert paddle.divide(i, j, rounding_mode="floor").tolist() == [3, -4]
    t = paddle.divide(i, j, rounding_mode="trunc")
    assert t.tolist() == [3, -3] and t.dtype == paddle.int64
    with pytest.raises(ValueError, match="rounding_mode"):
        paddle.divide(a, b, rounding_mode="round")


def test_var_and_std_take_a_correction():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    assert paddle.var(x, correction=0).item() == 1.25
    assert paddle.var(x, unbiased=False).item() == 1.25
    assert paddle.var(x).item() == pytest.approx(5 / 3)
    assert paddle.std(x, correction=0).item() == pytest.approx(1.25 ** 0.5)
    assert np.isinf(paddle.var(x, axis=0, correction=2).numpy()).all()     # n - 2 = 0
    paddle.var(x, correction=0.5).backward()
    v = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(x.grad.numpy(), 2 * (v - v.mean()) / 3.5, rtol=1e-6)


def test_mean_and_norms_take_a_dtype_and_more_keywords():
    assert paddle.mean(X, dtype="float64").dtype == paddle.float64
    assert paddle.linalg.norm(X, dtype="float64").dtype == paddle.float64
    assert paddle.linalg.vector_norm(X, dtype="float64").dtype == paddle.float64
    assert paddle.repeat_interleave(X, 2, output_size=8).shape == [8]
    with pytest.raises(ValueError, match="output_size"):
        paddle.repeat_interleave(X, 2, output_size=7)
    s = paddle.searchsorted(paddle.to_tensor([3.0, 1.0, 2.0]), paddle.to_tensor([2.5]),
                            sorter=paddle.to_tensor([1, 2, 0]))
    assert s.tolist() == [2]
    assert paddle.seed(seed=3) is not None


def test_more_functions_take_name_and_paddles_keywords():
    y = paddle.to_tensor([[1.0, -2.0]])
    assert paddle.transpose(y, [1, 0], name="n").shape == [2, 1]
    assert paddle.unsqueeze(y, 0, name="n").shape == [1, 1, 2]
    assert paddle.t(y, name="n").shape == [2, 1]
    assert paddle.unique(paddle.to_tensor([3, 1, 3]), sorted=False).tolist() == [1, 3]


def test_silu_inplace_writes_into_its_input_and_keeps_the_gradient():
    x = paddle.to_tensor([[1.0, -2.0]], stop_gradient=False)
    y = x * 1.0
    z = F.silu(y, inplace=True)
    assert z is y
    np.testing.assert_allclose(y.numpy(), [[0.7310586, -0.23840584]], rtol=1e-6)
    y.sum().backward()                        # Paddle 3.3.1: [[0.92767054, -0.09078425]]
    np.testing.assert_allclose(x.grad.numpy(), [[0.92767054, -0.09078425]], rtol=1e-6)
