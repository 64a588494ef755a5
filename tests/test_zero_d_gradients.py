"""A 0-d leaf's .grad is an array on every path: the numpy rules of a first backward
(interpreted) give numpy scalars for 0-d values, which once became .grad as they were, and
the next backward failed to accumulate into them (TypeError)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.core import config


@pytest.fixture(autouse=True)
def production(monkeypatch, fresh_cache):
    """Production's tiers: a structure's first backward interpreted (conftest lowers it)."""
    monkeypatch.setattr(config.SETTINGS, "interpret_new", True)


def test_a_scalar_parameter_accumulates_over_many_backwards():
    x = paddle.to_tensor(np.float32(2.0), stop_gradient=False)
    for k in range(1, 5):                # interpreted, then lowered, then cache hits
        (x * x).sum().backward()
        assert type(x._grad) is np.ndarray and x._grad.shape == ()
        assert x.grad.item() == 4.0 * k


def test_grad_and_retained_gradients_of_0d_tensors_are_arrays():
    x = paddle.to_tensor(np.float64(3.0), stop_gradient=False)
    (g,) = paddle.grad((x * x).sum(), x)
    assert type(g._data) is np.ndarray and g.item() == 6.0
    y = x * x
    y.retain_grads()
    (y * y).sum().backward()
    assert type(y._grad) is np.ndarray and y.grad.item() == 18.0
    assert type(x._grad) is np.ndarray and x.grad.item() == 108.0
