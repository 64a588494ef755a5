"""Paddle 3.3.1's torch-style Layer and optimizer methods (nn/layer_torch_names.py)."""

import numpy as np
import pytest

import jitgrad as paddle


def _model():
    return paddle.nn.Sequential(paddle.nn.Linear(2, 3), paddle.nn.ReLU())


def test_modules_and_lookups_by_dotted_name():
    m = _model()
    assert [type(x).__name__ for x in m.modules()] == ["Sequential", "Linear", "ReLU"]
    assert [n for n, _ in m.named_modules()] == ["", "0", "1"]                # Paddle 3.3.1
    assert m.get_parameter("0.weight") is m[0].weight and m.get_submodule("0") is m[0]
    bn = paddle.nn.BatchNorm1D(3)
    assert bn.get_parameter("_mean") is bn._mean        # not a buffer in Paddle 3.3.1
    with pytest.raises(AttributeError):
        bn.get_buffer("_mean")
    with pytest.raises(AttributeError, match="no parameter 'nope'"):
        m.get_parameter("0.nope")
    m.add_module("head", paddle.nn.Linear(3, 1))
    m.register_parameter("scale", paddle.create_parameter([1], "float32"))
    assert "head.weight" in m.state_dict() and "scale" in m.state_dict()


def test_requires_grad_and_zero_grad():
    m = _model()
    assert m.requires_grad_(False) is m and all(p.stop_gradient for p in m.parameters())
    m.requires_grad_()
    m(paddle.to_tensor(np.ones((1, 2), "float32"))).sum().backward()
    m.zero_grad(set_to_none=False)
    assert all(p.grad.numpy().sum() == 0 for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    opt = paddle.optimizer.SGD(0.1, parameters=m.parameters())
    m(paddle.to_tensor(np.ones((1, 2), "float32"))).sum().backward()
    opt.zero_grad()
    assert all(p.grad is None for p in m.parameters())


def test_load_state_dict_is_strict_by_default():
    m = _model()
    sd = m.state_dict()
    del sd["0.bias"]
    sd["extra"] = paddle.to_tensor([1.0])
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "0.bias"'):
        m.load_state_dict(sd)
    got = m.load_state_dict(sd, strict=False)
    assert got.missing_keys == ["0.bias"] and got.unexpected_keys == ["extra"]
