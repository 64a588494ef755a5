"""copy.deepcopy and copy.copy of tensors, Parameters and Layers."""

import copy
import re

import numpy as np

import jitgrad as paddle
from jitgrad import nn

TT = paddle.to_tensor


def _param(values, **attr):
    p = nn.create_parameter([len(values)], "float32", attr=nn.ParamAttr(**attr))
    p.set_value(TT(values))
    return p


def test_deepcopy_of_a_parameter_is_a_parameter_with_its_attributes():
    p = _param([1.0, 2.0], name="w0")
    p.grad = TT([0.5, 0.25])
    c = copy.deepcopy(p)
    assert type(c) is nn.Parameter
    # Paddle 3.3.1: the copy is named w0_deepcopy_N and has no gradient
    assert c.trainable is True and c.stop_gradient is False
    assert re.fullmatch(r"w0_deepcopy_\d+", c.name)
    assert c.tolist() == [1.0, 2.0] and c.grad is None and p.grad.tolist() == [0.5, 0.25]
    assert not np.shares_memory(c._data, p._data)


def test_deepcopy_of_a_frozen_parameter_stays_frozen():
    p = _param([1.0], trainable=False)
    c = copy.deepcopy(p)
    assert type(c) is nn.Parameter and c.trainable is False and c.stop_gradient is True


def test_deepcopy_of_a_plain_leaf_keeps_its_flags_and_owns_its_values():
    x = TT([1.0, 2.0], stop_gradient=False)
    x.name = "x"
    c = copy.deepcopy(x)
    assert type(c) is paddle.Tensor and c.stop_gradient is False
    assert re.fullmatch(r"x_deepcopy_\d+", c.name)
    x.set_value(TT([5.0, 6.0]))
    assert c.tolist() == [1.0, 2.0]
    (c * c).sum().backward()
    assert c.grad.tolist() == [2.0, 4.0] and x.grad is None


def test_deepcopy_keeps_a_tensor_held_twice_shared():
    p = _param([1.0, 2.0])
    c = copy.deepcopy({"a": p, "b": [p, p]})
    assert c["a"] is c["b"][0] is c["b"][1]
    assert c["a"] is not p


def test_deepcopy_of_a_non_leaf_is_a_leaf_with_its_values():
    # Paddle 3.3.1 copies a non-leaf (2.x raised): a leaf, stop_gradient kept, no graph
    x = TT([1.0, 2.0], stop_gradient=False)
    c = copy.deepcopy(x * 2)
    assert c.is_leaf and c.stop_gradient is False and c.tolist() == [2.0, 4.0]
    (c * c).sum().backward()
    assert c.grad.tolist() == [4.0, 8.0] and x.grad is None
    z = TT([1.0, 2.0]) * 2                  # nothing needs a gradient: a leaf, copied
    assert copy.deepcopy(z).tolist() == [2.0, 4.0]


def _sgd_step(layer, x):
    opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=layer.parameters())
    layer(x).sum().backward()
    opt.step()
    opt.clear_grad()


def test_deepcopy_of_a_linear_layer_trains_apart_from_the_original():
    lin = nn.Linear(2, 1)
    lin.weight.set_value(TT([[1.0], [2.0]]))
    lin.bias.set_value(TT([0.5]))
    c = copy.deepcopy(lin)
    params = c.parameters()
    assert len(params) == 2 and all(type(p) is nn.Parameter for p in params)
    assert c.weight is c._parameters["weight"] and c.weight is not lin.weight
    assert not np.shares_memory(c.weight._data, lin.weight._data)
    _sgd_step(c, TT([[1.0, 3.0]]))              # d sum / dW = x^T, d / db = 1
    assert c.weight.tolist() == [[0.5], [0.5]] and c.bias.tolist() == [0.0]
    assert lin.weight.tolist() == [[1.0], [2.0]] and lin.bias.tolist() == [0.5]
    _sgd_step(lin, TT([[2.0, 2.0]]))
    assert lin.weight.tolist() == [[0.0], [1.0]] and c.weight.tolist() == [[0.5], [0.5]]


def test_deepcopy_of_a_sequential_copies_every_parameter_and_buffer():
    paddle.seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1D(4), nn.ReLU(), nn.Linear(4, 2))
    x = TT(np.arange(6.0, dtype="float32").reshape(2, 3))
    model(x)                                    # training mode: running stats move
    c = copy.deepcopy(model)
    assert len(c.parameters()) == len(model.parameters()) == 8   # (BN: w, b, _mean, _variance)
    assert all(type(p) is nn.Parameter for p in c.parameters())
    for (n1, a), (n2, b) in zip(model.state_dict().items(), c.state_dict().items()):
        assert n1 == n2 and np.array_equal(a.numpy(), b.numpy())
        assert a is not b and not np.shares_memory(a._data, b._data)
    before = [p.numpy() for p in model.parameters()]
    model.eval(), c.eval()
    assert np.array_equal(model(x).numpy(), c(x).numpy())
    c.train()
    _sgd_step(c, x)
    assert all(np.array_equal(p.numpy(), b) for p, b in zip(model.parameters(), before))
    assert not all(np.array_equal(p.numpy(), b) for p, b in zip(c.parameters(), before))


class _Tied(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = _param([1.0, 2.0])
        self.b = self.a

    def forward(self, x):
        return self.a * x + self.b * x


def test_deepcopy_of_a_layer_holding_one_parameter_twice_keeps_it_shared():
    layer = _Tied()
    c = copy.deepcopy(layer)
    assert c.a is c.b and c.a is not layer.a
    assert len(c.parameters()) == 1 and type(c.a) is nn.Parameter
    _sgd_step(c, TT([1.0, 1.0]))                # the gradient is 2: both uses add up
    assert c.a.tolist() == [0.0, 1.0] and layer.a.tolist() == [1.0, 2.0]


def test_copy_copy_is_shallow_and_keeps_the_class_and_attributes():
    p = _param([1.0, 2.0], name="w", trainable=False)
    c = copy.copy(p)
    assert type(c) is nn.Parameter and c is not p
    assert c.trainable is False and c.stop_gradient is True and c.name == "w"
    assert c._data is p._data                   # shallow: the same values
    layer = nn.Linear(2, 2)
    shallow = copy.copy(layer)
    assert shallow.weight is layer.weight and shallow.parameters() == layer.parameters()
