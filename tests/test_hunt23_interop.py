"""Tensor interop, copying and pickling, as Paddle 3.3.1 does them (hunt 23)."""

import copy
import pickle

import numpy as np
import pytest

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


def test_deepcopy_of_a_layer_after_backward_starts_without_gradients():
    # Paddle 3.3.1: copy.deepcopy(lin) after a backward has bias.grad None, and the copy's
    # own backward gives [1.0] (jitgrad copied the gradient: [2.0], the sum of both)
    lin = nn.Linear(2, 1)
    lin(paddle.ones([1, 2])).sum().backward()
    c = copy.deepcopy(lin)
    assert c.weight.grad is None and c.bias.grad is None
    c(paddle.ones([1, 2])).sum().backward()
    assert c.bias.grad.tolist() == [1.0] and lin.bias.grad.tolist() == [1.0]


def test_deepcopy_renames_parameters_so_one_optimizer_keeps_both_states():
    # Paddle 3.3.1: linear_0.b_0 -> linear_0.b_0_deepcopy_N; an optimizer's state keys
    # (<param name>_moment1_0) then tell the original and its copy apart
    lin = nn.Linear(2, 1)
    c = copy.deepcopy(lin)
    assert c.bias.name.startswith(lin.bias.name + "_deepcopy_")
    opt = paddle.optimizer.Adam(parameters=list(lin.parameters()) + list(c.parameters()))
    lin(paddle.ones([1, 2])).sum().backward()
    (c(paddle.ones([1, 2])) * 3).sum().backward()
    opt.step()
    state = opt.state_dict()
    assert state[lin.bias.name + "_moment1_0"].tolist() == [pytest.approx(0.1)]
    assert state[c.bias.name + "_moment1_0"].tolist() == [pytest.approx(0.3)]


def test_deepcopy_of_a_non_leaf_in_a_dict_copies_it():
    # Paddle 3.3.1: copy.deepcopy({"a": x, "b": [x, x * 2]}) works, one copy of x
    x = TT([1.0, 2.0], stop_gradient=False)
    c = copy.deepcopy({"a": x, "b": [x, x * 2]})
    assert c["a"] is c["b"][0] and c["a"] is not x
    assert c["b"][1].tolist() == [2.0, 4.0] and c["b"][1].is_leaf


def test_numpy_clip_of_a_tensor_is_a_tensor_on_the_graph():
    # Paddle 3.3.1: np.clip(v, 1.5, 2.5) is a float32 Tensor, stop_gradient=False
    # (numpy calls v.clip(1.5, 2.5, out=None)); jitgrad refused out= and numpy returned
    # a detached ndarray
    v = TT([3.0, 1.0, 2.0], stop_gradient=False)
    c = np.clip(v, 1.5, 2.5)
    assert type(c) is paddle.Tensor and c.stop_gradient is False
    assert c.tolist() == [2.5, 1.5, 2.0]
    c.sum().backward()
    assert v.grad.tolist() == [0.0, 0.0, 1.0]


def test_numpy_round_of_a_tensor_is_a_tensor():
    # Paddle 3.3.1: np.round(v) and np.around(v) are float32 Tensors [3.0, 1.0, 2.0]
    v = TT([2.75, 1.25, -2.25], stop_gradient=False)
    for r in (np.round(v), np.around(v)):
        assert type(r) is paddle.Tensor and r.dtype == paddle.float32
        assert r.tolist() == [3.0, 1.0, -2.0] and r.stop_gradient is False


def test_numpy_argmax_and_argmin_of_a_tensor_are_int64_tensors():
    # Paddle 3.3.1: np.argmax(x) is a 0-d int64 Tensor 3, np.argmax(x, axis=1) [0, 1],
    # np.argmin(v) 1 (numpy calls x.argmax(axis=None, out=None)); jitgrad gave np.int64
    x = TT([[3.0, 1.0], [2.0, 4.0]])
    a = np.argmax(x)
    assert type(a) is paddle.Tensor and a.dtype == paddle.int64 and a.shape == []
    assert a.item() == 3
    assert np.argmax(x, axis=1).tolist() == [0, 1]
    m = np.argmin(TT([3.0, 1.0, 2.0]))
    assert type(m) is paddle.Tensor and m.item() == 1


def test_a_sequence_times_a_0d_integer_tensor_repeats_it():
    # Paddle 3.3.1: [0] * T(2) is [0, 0], 'ab' * T(2) 'abab', (1, 2) * T(2) (1, 2, 1, 2);
    # jitgrad's __rmul__ raised TypeError (unsupported operand of type list)
    n = TT(2)
    assert [0] * n == [0, 0] and "ab" * n == "abab" and (1, 2) * n == (1, 2, 1, 2)
    with pytest.raises(TypeError, match="integer tensors"):    # (Paddle: AssertionError)
        [1.0, 2.0] * TT([1.0, 1.0])
    with pytest.raises(TypeError, match="unsupported operand of type NoneType"):
        None * n


def test_copy_copy_of_a_leaf_gets_its_own_gradient():
    # Paddle 3.3.1: x.grad [3, 3]; c = copy.copy(x) has grad None, and (c * c).sum()
    # .backward() gives c.grad [2, 4], x.grad still [3, 3] (jitgrad shared the gradient
    # array: both became [5, 7])
    x = TT([1.0, 2.0], stop_gradient=False)
    (x * 3).sum().backward()
    c = copy.copy(x)
    assert c.grad is None and c.is_leaf and c.stop_gradient is False
    (c * c).sum().backward()
    assert c.grad.tolist() == [2.0, 4.0] and x.grad.tolist() == [3.0, 3.0]


def test_copy_copy_of_a_non_leaf_is_a_leaf_cut_from_the_graph():
    # Paddle 3.3.1: copy.copy(x * 2) is a leaf, stop_gradient=False; its backward leaves
    # x.grad None (jitgrad's copy shared the node: x.grad [2, 2])
    x = TT([1.0, 2.0], stop_gradient=False)
    c = copy.copy(x * 2)
    assert c.is_leaf and c.stop_gradient is False and c.tolist() == [2.0, 4.0]
    c.sum().backward()
    assert x.grad is None and c.grad.tolist() == [1.0, 1.0]


def test_copy_copy_shares_values_but_a_write_stays_its_own():
    t = TT([1, 2])
    c = copy.copy(t)
    c[0] = 99
    assert t.tolist() == [1, 2] and c.tolist() == [99, 2]


def test_a_numpy_float32_scalar_counts_as_a_float_with_int_and_bool_tensors():
    # as np.float64(1.5) and 1.5 do in Paddle 3.3.1 and here: float32 [2.5]. jitgrad gave
    # bool + np.float32(1.5) int64 [2] (Paddle: bool [True]) and int64 + np.float32(1.5)
    # int64 [2] (Paddle too: it truncates the scalar; kept difference, README)
    for t in (TT([True]), TT([1]), TT([1], dtype="int32"), TT([1], dtype="uint8")):
        for s in (np.float32(1.5), np.float16(1.5)):
            for r in (t + s, s + t):
                assert r.dtype == paddle.float32 and r.tolist() == [2.5]
            assert (t * s).tolist() == [1.5] and (t * s).dtype == paddle.float32
    assert (TT([3]) / np.float32(1.5)).tolist() == [2.0]
