"""Layer names, state_dict and set_state_dict, as measured on Paddle 3.3.1."""

import warnings

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.utils import unique_name


class MyNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.w = self.create_parameter([2])
        self.register_buffer("buf", paddle.ones([2]))
        self.register_buffer("scratch", paddle.ones([2]), persistable=False)
        self.fc = paddle.nn.Linear(2, 2)
        self.bn = paddle.nn.BatchNorm1D(2)


def test_layers_and_parameters_are_named_as_paddle_names_them():
    with unique_name.guard():
        net = MyNet()
        other = paddle.nn.Linear(2, 2)
        free = paddle.create_parameter([2], "float32")
    assert net.full_name() == "my_net_0" and other.full_name() == "linear_1"
    assert [(k, p.name) for k, p in net.named_parameters()] == [
        ("w", "my_net_0.w_0"), ("fc.weight", "linear_0.w_0"), ("fc.bias", "linear_0.b_0"),
        ("bn.weight", "batch_norm1d_0.w_0"), ("bn.bias", "batch_norm1d_0.b_0"),
        ("bn._mean", "batch_norm1d_0.w_1"), ("bn._variance", "batch_norm1d_0.w_2")]
    assert (net.bn._mean.name, net.bn._variance.name) == ("batch_norm1d_0.w_1",
                                                          "batch_norm1d_0.w_2")
    assert free.name == "create_parameter_0.w_0"


def test_unique_names_count_per_key_and_restart_in_a_guard():
    with unique_name.guard():
        assert [unique_name.generate("a"), unique_name.generate("a"),
                unique_name.generate("b")] == ["a_0", "a_1", "b_0"]
        with unique_name.guard("p_"):
            assert unique_name.generate("a") == "p_a_0"
        assert unique_name.generate("a") == "a_2"


def test_a_param_attr_name_wins():
    lin = paddle.nn.Linear(2, 2, weight_attr=paddle.ParamAttr(name="my_w"))
    assert lin.weight.name == "my_w" and lin.bias.name.endswith(".b_0")


def test_state_dict_goes_layer_by_layer_and_skips_non_persistable_buffers():
    """Measured: own parameters, own buffers, then each sublayer's."""
    net = MyNet()
    assert list(net.state_dict()) == ["w", "buf", "fc.weight", "fc.bias", "bn.weight",
                                      "bn.bias", "bn._mean", "bn._variance"]
    assert net.state_dict()["fc.weight"] is net.fc.weight           # the live tensors
    assert "scratch" in dict(net.named_buffers())


def test_state_dict_prefix_sublayers_and_keep_vars():
    net = MyNet()
    assert list(net.state_dict(structured_name_prefix="m.", include_sublayers=False)) == \
        ["m.w", "m.buf"]
    assert list(net.fc.state_dict(prefix="x."))[0] == "x.weight"       # torch's keyword
    detached = net.state_dict(keep_vars=False)["w"]
    assert detached is not net.w and detached.stop_gradient


def test_a_state_dict_hook_can_replace_the_result():
    lin = paddle.nn.Linear(2, 2)
    handle = lin.register_state_dict_hook(lambda sd: {k.upper(): v for k, v in sd.items()})
    assert list(lin.state_dict()) == ["WEIGHT", "BIAS"]
    handle.remove()
    assert list(lin.state_dict()) == ["weight", "bias"]


def test_set_state_dict_loads_in_place_and_reports_keys():
    lin = paddle.nn.Linear(2, 2)
    weight = lin.weight
    missing, unexpected = lin.set_state_dict({"weight": paddle.ones([2, 2]),
                                              "bias": np.array([5.0, 6.0], "float32"),
                                              "extra": paddle.ones([1])})
    assert (missing, unexpected) == ([], ["extra"])
    assert lin.weight is weight and not weight.stop_gradient
    assert lin.bias.numpy().tolist() == [5.0, 6.0]


def test_set_state_dict_skips_missing_and_misshapen_entries_with_warnings():
    lin = paddle.nn.Linear(2, 2)
    before = lin.bias.numpy().copy()
    with pytest.warns(UserWarning) as record:
        missing, unexpected = lin.set_state_dict({"weight": paddle.ones([3, 2])})
    assert (missing, unexpected) == (["weight", "bias"], ["weight"])
    assert "receives a shape [3, 2], but the expected shape is [2, 2]" in str(record[0].message)
    assert "bias is not found" in str(record[1].message)
    np.testing.assert_array_equal(lin.bias.numpy(), before)


def test_set_state_dict_by_tensor_name():
    with unique_name.guard():
        lin = paddle.nn.Linear(2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        missing, _ = lin.set_state_dict({"linear_0.w_0": paddle.full([2, 2], 7.0)},
                                        use_structured_name=False)
    assert missing == ["linear_0.b_0"] and lin.weight.numpy().tolist() == [[7.0, 7.0]] * 2


def test_a_dtype_mismatch_raises_before_anything_is_loaded():
    """Paddle 3.3.1 asserts partway, after loading the earlier entries."""
    lin = paddle.nn.Linear(2, 2)
    before = lin.weight.numpy().copy()
    with pytest.raises(TypeError, match="'bias' is float64 but the layer's tensor is float32"):
        lin.set_state_dict({"weight": paddle.ones([2, 2]),
                            "bias": paddle.ones([2], dtype="float64")})
    np.testing.assert_array_equal(lin.weight.numpy(), before)


def test_set_state_dict_wants_a_dict_of_tensors():
    lin = paddle.nn.Linear(2, 2)
    with pytest.raises(TypeError, match="must be a dict"):
        lin.set_state_dict([1])
    with pytest.raises(TypeError, match="'weight' holds a str"):
        lin.set_state_dict({"weight": "w"})


def test_set_dict_and_load_dict_are_set_state_dict():
    src, dst = paddle.nn.Linear(2, 2), paddle.nn.Linear(2, 2)
    dst.set_dict(src.state_dict())
    np.testing.assert_array_equal(dst.weight.numpy(), src.weight.numpy())
    assert paddle.nn.Layer.load_dict is paddle.nn.Layer.set_state_dict


def test_assigning_a_tensor_to_a_buffer_keeps_it_a_buffer():
    net = MyNet()
    net.buf = paddle.zeros([2])
    assert net.state_dict()["buf"].numpy().tolist() == [0.0, 0.0]


def test_register_buffer_checks_its_arguments():
    net = MyNet()
    with pytest.raises(TypeError, match="must be a Tensor"):
        net.register_buffer("b", np.ones(2))
    with pytest.raises(ValueError, match="without '.'"):
        net.register_buffer("a.b", paddle.ones([1]))


def test_apply_visits_sublayers_first_and_buffers_lists_them():
    net = MyNet()
    seen = []
    assert net.apply(lambda layer: seen.append(type(layer).__name__)) is net
    assert seen == ["Linear", "BatchNorm1D", "MyNet"]
    # (batch norm's running statistics are parameters, not trained, in Paddle 3.3.1)
    assert len(net.buffers()) == 2 and len(net.buffers(include_sublayers=False)) == 2


def test_add_sublayer_and_add_parameter_check_types():
    net = MyNet()
    with pytest.raises(TypeError, match="must be a Layer"):
        net.add_sublayer("x", 3)
    with pytest.raises(TypeError, match="should be a Parameter"):
        net.add_parameter("p", paddle.ones([1]))


# ---- measured on Paddle 3.3.1 --------------------------------------------------------------

def test_trainable_and_stop_gradient_are_one_flag():
    lin = paddle.nn.Linear(2, 2)
    lin.weight.trainable = False
    assert lin.weight.stop_gradient is True
    lin.bias.stop_gradient = True
    assert lin.bias.trainable is False
    x = paddle.ones([1, 2])
    lin.weight.trainable = True
    lin(x).sum().backward()
    assert lin.weight.grad is not None and lin.bias.grad is None    # a frozen bias: no grad
    with pytest.raises(ValueError):
        lin.weight.trainable = "no"


def test_slicing_a_sequential_or_layerlist_gives_one_numbered_from_zero():
    m = paddle.nn.Sequential(paddle.nn.Linear(2, 3), paddle.nn.ReLU(), paddle.nn.Linear(3, 1))
    tail = m[1:]
    assert type(tail) is paddle.nn.Sequential and len(tail) == 2
    assert list(tail.state_dict()) == ["1.weight", "1.bias"]
    assert tail[1] is m[2]
    named = paddle.nn.Sequential(("a", paddle.nn.Linear(2, 2)), ("b", paddle.nn.ReLU()))
    assert named["a"] is named[0]
    ll = paddle.nn.LayerList([paddle.nn.Linear(2, 2), paddle.nn.ReLU(), paddle.nn.Tanh()])
    assert type(ll[1:]) is paddle.nn.LayerList and [k for k, _ in ll[1:].named_sublayers()] \
        == ["0", "1"]


def test_spectral_norm_vectors_are_untrained_parameters():
    sn = paddle.nn.SpectralNorm([3, 4])
    assert [(n, p.trainable) for n, p in sn.named_parameters()] == \
        [("weight_u", False), ("weight_v", False)]


def test_rnn_layers_list_paddles_dropout_state_buffer():
    lstm = paddle.nn.LSTM(3, 4)
    assert [n for n, _ in lstm.named_buffers()] == ["_dropout_state"]
    assert "_dropout_state" not in lstm.state_dict()
