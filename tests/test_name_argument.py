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
