"""Tensor interop, copying and pickling, as Paddle 3.3.1 does them (hunt 23)."""

import pickle

import numpy as np

import jitgrad as paddle
from jitgrad import nn

TT = paddle.to_tensor


def test_pickle_of_a_non_leaf_gives_a_leaf_with_its_values():
    # Paddle 3.3.1: pickle.loads(pickle.dumps(x * 2)) is a leaf, stop_gradient=False,
    # [2, 4, 6], grad None (jitgrad raised AttributeError: the node's local vjp)
    x = TT([1.0, 2.0, 3.0], stop_gradient=False)
    y = pickle.loads(pickle.dumps(x * 2))
    assert type(y) is paddle.Tensor and y.is_leaf and y.stop_gradient is False
    assert y.tolist() == [2.0, 4.0, 6.0] and y.grad is None
    (y * y).sum().backward()
    assert y.grad.tolist() == [4.0, 8.0, 12.0] and x.grad is None


def test_pickle_drops_the_gradient_hooks_and_version_links():
    # Paddle 3.3.1: a pickled leaf whose .grad is set comes back with grad None
    x = TT([1.0, 2.0], stop_gradient=False)
    (x * x).sum().backward()
    x.register_hook(lambda g: g * 2)
    d = x.detach()                      # d shares x's version counter (a WeakSet)
    back = pickle.loads(pickle.dumps([x, d]))
    assert back[0].tolist() == [1.0, 2.0] and back[0].grad is None
    assert back[0].stop_gradient is False and back[1].stop_gradient is True
    (back[0] * 3).sum().backward()
    assert back[0].grad.tolist() == [3.0, 3.0]      # no hook doubling it


def test_pickle_keeps_dtype_shape_and_a_parameter_class():
    for t in (TT(3.5), TT([1.5, 2.0], dtype="float16"), TT([1, 2]), TT([True, False])):
        back = pickle.loads(pickle.dumps(t))
        assert back.dtype == t.dtype and back.shape == t.shape
        assert back.tolist() == t.tolist() and back.stop_gradient is True
    w = nn.Linear(2, 2).weight
    back = pickle.loads(pickle.dumps(w))
    assert type(back) is type(w) and back.name == w.name and back.trainable is True
    np.testing.assert_array_equal(back.numpy(), w.numpy())
