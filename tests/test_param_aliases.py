"""Paddle 3.3.1's torch-style keyword aliases on the public functions (core/param_aliases.py)."""

import numpy as np
import pytest

import jitgrad as paddle

F = paddle.nn.functional
X = np.arange(12, dtype="float32").reshape(3, 4)


def test_dim_names_axis():
    x = paddle.to_tensor(X)
    assert paddle.sum(x, dim=0).tolist() == X.sum(0).tolist()
    assert paddle.cumsum(x, dim=1).tolist() == X.cumsum(1).tolist()
    assert paddle.argmax(x, dim=1, keepdim=True).shape == [3, 1]
    np.testing.assert_allclose(F.softmax(x, dim=0).numpy(), F.softmax(x, axis=0).numpy())
    assert paddle.concat([x, x], dim=1).shape == [3, 8]


def test_input_and_other_name_x_and_y():
    x = paddle.to_tensor(X)
    assert paddle.add(input=x, other=x).tolist() == (2 * X).tolist()
    assert paddle.matmul(input=x, other=x.T).shape == [3, 3]
    assert paddle.where(x > 5, input=x, other=-x).tolist() == np.where(X > 5, X, -X).tolist()
    assert paddle.dot(input=x[0], tensor=x[1]).item() == float(X[0] @ X[1])
    assert paddle.outer(input=x[0], vec2=x[1]).shape == [4, 4]


def test_size_ord_and_dim1_dim2():
    assert paddle.zeros(size=[2, 3]).shape == [2, 3]
    x = paddle.to_tensor(X)
    np.testing.assert_allclose(paddle.linalg.norm(x, ord=1, axis=1).numpy(),
                               np.abs(X).sum(1))
    assert paddle.diagonal(x, dim1=0, dim2=1).tolist() == np.diagonal(X).tolist()


def test_an_alias_with_its_own_name_is_refused():
    with pytest.raises(TypeError, match="got both 'dim' and 'axis'"):
        paddle.sum(paddle.to_tensor(X), dim=0, axis=1)


def test_one_wrapper_per_function_and_the_signature_is_kept():
    import inspect
    assert paddle.linalg.cross is paddle.cross
    assert "axis" in inspect.signature(paddle.sum).parameters
    assert paddle.prod.param_aliases["dim"] == "axis"
    assert paddle.sum.param_aliases == {"input": "x"}   # (sum reads dim= itself)


def test_a_parameter_only_given_by_position_has_no_alias():
    from jitgrad.core.param_aliases import aliases_of

    def f(x, /, perm, *axis1, y=None):
        return x

    assert aliases_of(f) == {}          # not input -> x (positional-only), dim1 -> *axis1
    x = paddle.to_tensor(X)
    with pytest.raises(TypeError, match="dim0= and dim1="):
        paddle.swapaxes(x, [1, 0], dim1=0)


@pytest.mark.parametrize("name", ["neg", "square", "abs", "relu", "sqrt", "exp", "log", "tanh",
                                  "sin", "cos", "sigmoid"])
def test_the_unary_ops_read_input_themselves_without_a_wrapper(name):
    fn = getattr(paddle, name)
    assert not hasattr(fn, "__wrapped__") and fn.param_aliases == {"input": "x"}
    x = paddle.to_tensor(np.abs(X) + 0.5)
    assert fn(input=x).tolist() == fn(x).tolist()
    with pytest.raises(TypeError, match=f"{name}\\(\\) got both 'input' and 'x'"):
        fn(x, input=x)
    with pytest.raises(TypeError, match=f"{name}\\(\\) missing 1 required positional "
                                        f"argument: 'x'"):
        fn()
    with pytest.raises(TypeError, match=f"{name}\\(\\): argument 'x' must be a Tensor"):
        fn(input=[1.0])


def test_softmax_log_softmax_and_linear_read_their_aliases_without_a_wrapper():
    import jitgrad.nn.functional as F
    x = paddle.to_tensor(X)
    w = paddle.to_tensor(np.ones((4, 2), "float32"))
    for fn in (F.softmax, F.log_softmax, F.linear):
        assert not hasattr(fn, "__wrapped__")
    for fn in (F.softmax, F.log_softmax):
        want = fn(x, 0).tolist()
        assert fn(x, dim=0).tolist() == want and fn(input=x, dim=0).tolist() == want
        assert fn(input=x).tolist() == fn(x).tolist()
        with pytest.raises(TypeError, match="got both 'dim' and 'axis'"):
            fn(x, 0, dim=1)
        with pytest.raises(TypeError, match="missing 1 required positional argument: 'x'"):
            fn()
    out = paddle.zeros([3, 4])
    assert F.softmax(x, dim=0, out=out) is out and out.tolist() == F.softmax(x, 0).tolist()
    assert F.linear(input=x, weight=w).tolist() == (X @ np.ones((4, 2))).tolist()
    with pytest.raises(TypeError, match="linear\\(\\): argument 'x' must be a Tensor"):
        F.linear(X.tolist(), w)
    with pytest.raises(TypeError, match="linear\\(\\): argument 'weight' must be a Tensor"):
        F.linear(x, "w")
    assert F.linear(x, np.ones((4, 2), "float32")).tolist() == F.linear(x, w).tolist()
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'weight'"):
        F.linear(x)
