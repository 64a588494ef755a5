"""Behaviours found by comparing researcher-level code (layers, optimizers, schedulers,
higher-order grads, checkpoints) against Paddle 3.3.1 eager; each value was measured there."""
import numpy as np
import pytest

import jitgrad as paddle


def test_old_batchnorm_is_test_starts_in_eval_mode():
    # Paddle 3.3.1: nn.BatchNorm(3, is_test=True) normalizes with the running statistics
    # (mean 0, variance 1) until train() is called
    x = paddle.to_tensor(np.arange(12, dtype="float32").reshape(4, 3))
    bn = paddle.nn.BatchNorm(3, is_test=True)
    assert not bn.training
    np.testing.assert_allclose(bn(x).numpy(), x.numpy() / np.sqrt(1 + 1e-5), rtol=1e-6)
    np.testing.assert_array_equal(bn._mean.numpy(), np.zeros(3, "float32"))
    bn.train()
    np.testing.assert_allclose(bn(x).numpy().mean(0), np.zeros(3), atol=1e-6)


def test_replacing_a_sublayer_keeps_its_place():
    # Paddle 3.3.1: add_sublayer('0', ...) on a Sequential replaces the first layer in place;
    # jitgrad had moved it to the end, so forward ran ReLU, Linear(3, 1), Linear(2, 3)
    nn = paddle.nn
    s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    s.add_sublayer("0", nn.Linear(2, 3))
    assert [type(m).__name__ for m in s] == ["Linear", "ReLU", "Linear"]
    assert s(paddle.ones([1, 2])).shape == [1, 1]
    s[2] = nn.Linear(3, 4)
    assert [k for k, _ in s.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]

    class M(nn.Layer):
        def __init__(self):
            super().__init__()
            self.body, self.fc = nn.Linear(2, 2), nn.Linear(2, 2)
            self.fc.weight = self.body.weight          # tied: fc.weight keeps its place
    m = M()
    m.body = nn.Linear(2, 2)
    assert list(m.state_dict()) == ["body.weight", "body.bias", "fc.weight", "fc.bias"]


def test_tensor_attribute_is_a_non_persistable_buffer():
    # Paddle 3.3.1: a plain Tensor assigned to a Layer attribute is a buffer outside the
    # state dict, so named_buffers() lists it and to(dtype=...) casts it
    class M(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.lin = paddle.nn.Linear(2, 2)
            self.scale = paddle.to_tensor([2.0, 3.0])
    m = M()
    assert [k for k, _ in m.named_buffers()] == ["scale"]
    assert list(m.state_dict()) == ["lin.weight", "lin.bias"]
    m.to(dtype="float64")
    assert m.scale.dtype == paddle.float64
    m.scale = None
    assert [k for k, _ in m.named_buffers()] == [] and m.scale is None
    m.scale = paddle.ones([2])                   # still a buffer, still not persistable
    assert [k for k, _ in m.named_buffers()] == ["scale"] and "scale" not in m.state_dict()
    try:
        m.lin.weight = paddle.nn.ReLU()               # a parameter slot refuses a Layer
    except TypeError:
        pass
    else:
        raise AssertionError("assigning a Layer to a parameter should raise TypeError")
    for name, value in (("scale", 3.0), ("lin", 1), ("lin", paddle.ones([1]))):
        try:
            setattr(m, name, value)
        except TypeError:
            pass
        else:
            raise AssertionError(f"m.{name} = {value!r} should raise TypeError")
    try:
        m.lin.weight = paddle.ones([2, 2])        # a parameter slot takes a Parameter or None
    except TypeError:
        pass
    else:
        raise AssertionError("assigning a Tensor to a parameter should raise TypeError")


def test_layerlist_insert_delete_assign_and_extend_renumber():
    nn = paddle.nn
    ll = nn.LayerList([nn.Linear(i + 1, i + 2) for i in range(5)])
    ll.insert(0, nn.Linear(7, 7))
    ll.insert(-1, nn.Linear(9, 9))
    assert [m.weight.shape[0] for m in ll] == [7, 1, 2, 3, 4, 9, 5]
    del ll[1:3]
    del ll[-1]
    ll[0] = nn.Linear(6, 6)
    ll += [nn.Linear(8, 8)]
    assert [m.weight.shape[0] for m in ll] == [6, 3, 4, 9, 8]
    assert list(ll.state_dict())[::2] == [f"{i}.weight" for i in range(5)]
    assert ll.pop(1).weight.shape[0] == 3 and [m.weight.shape[0] for m in ll] == [6, 4, 9, 8]
    ll.append(sublayer=nn.Linear(5, 5))
    try:
        ll[6]
    except IndexError:
        pass
    else:
        raise AssertionError("ll[6] should raise IndexError")


def test_sequential_del_keeps_names_and_insert_renumbers():
    # Paddle 3.3.1: del seq[1] removes sublayer '1' without renumbering ('0', '2' remain)
    from collections import OrderedDict
    nn = paddle.nn
    s = nn.Sequential(*[nn.Linear(2, 2) for _ in range(3)])
    third = s[2]
    del s[1]
    assert list(s.state_dict())[::2] == ["0.weight", "2.weight"] and s[1] is third
    s = nn.Sequential(OrderedDict([("a", nn.Linear(1, 2)), ("b", nn.ReLU())]))
    assert [k for k, _ in s.named_children()] == ["a", "b"]
    s = nn.Sequential(nn.Linear(1, 2), nn.ReLU())
    s.insert(1, nn.Tanh())
    s.extend([nn.Sigmoid()])
    assert [(k, type(m).__name__) for k, m in s.named_children()] == [
        ("0", "Linear"), ("1", "Tanh"), ("2", "ReLU"), ("3", "Sigmoid")]


def test_sublayer_state_dict_hooks_run_in_the_parents_state_dict():
    # Paddle 3.3.1 runs each sublayer's state-dict hooks on the dict being built
    lin = paddle.nn.Linear(2, 2)
    lin.register_state_dict_hook(lambda sd: sd.__setitem__("extra", paddle.ones([1])))
    assert list(lin.state_dict()) == ["weight", "bias", "extra"]
    seq = paddle.nn.Sequential(lin, paddle.nn.Linear(2, 1))
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "extra", "1.weight", "1.bias"]
    assert list(seq.state_dict(use_hook=False)) == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_tensors_and_parameters_take_user_attributes():
    # Paddle 3.3.1 lets code tag tensors (`p.no_decay = True`, read back by an optimizer's
    # apply_decay_param_fun or a custom loop); jitgrad's slotted Tensor raised AttributeError
    x = paddle.to_tensor([1.0])
    x.tag = "a"
    lin = paddle.nn.Linear(2, 2)
    lin.weight.no_decay = True
    assert x.tag == "a"
    assert [getattr(p, "no_decay", False) for p in lin.parameters()] == [True, False]
    assert not hasattr(paddle.to_tensor([2.0]), "tag")


def test_to_tensor_of_a_list_holding_tensors_keeps_numpys_dtype():
    # Paddle 3.3.1: a list with a Tensor in it takes numpy's dtype, not the default float
    t = paddle.to_tensor
    assert t([t(1.0, "float64"), t(2.0, "float64")]).dtype == paddle.float64
    assert t([t(1.0), 2.0]).dtype == paddle.float64
    assert t([t(1.0), t(2.0)]).dtype == paddle.float32
    assert t([t(1, "int32"), t(2, "int32")]).dtype == paddle.int32
    assert t([1.0, 2.0]).dtype == paddle.float32 and t([[t(1.0), 2.0]]).dtype == paddle.float32
    assert paddle.Tensor([1, 2]).dtype == paddle.float32          # (torch's legacy rule)


def test_the_tensor_constructor_takes_paddles_forms():
    # Paddle 3.3.1 (measured): ints are a shape (float32, uninitialised there, zeros here),
    # no argument an empty tensor, one argument the data; a number alone is refused
    for args, shape in [((3,), [3]), ((2, 3), [2, 3]), ((0, 2), [0, 2]), ((), [0])]:
        t = paddle.Tensor(*args)
        assert t.shape == shape and t.dtype == paddle.float32 and t.stop_gradient
        assert not t.numpy().any()
    assert paddle.Tensor((2, 3)).tolist() == [2.0, 3.0]
    assert paddle.Tensor(np.array([1, 2], "int32")).dtype == paddle.int32
    with pytest.raises(ValueError, match=r"paddle.Tensor\(3.5\): a number .* paddle.to_tensor"):
        paddle.Tensor(3.5)
    with pytest.raises(TypeError, match=r"paddle.Tensor\(True\): a bool"):
        paddle.Tensor(True)
    with pytest.raises(ValueError, match=r"paddle.Tensor\(-1\): a shape's sizes must be >= 0"):
        paddle.Tensor(-1)
    with pytest.raises(ValueError, match=r"paddle.Tensor\(\[1, 2\], 'float64'\): give one"):
        paddle.Tensor([1, 2], "float64")


def test_entries_put_straight_into_a_layers_dicts_are_attributes():
    # Paddle 3.3.1 looks attributes up in _parameters / _sub_layers / _buffers, so code that
    # fills them directly (as Paddle's own containers do) reads them back as attributes
    m = paddle.nn.Layer()
    m._parameters["w"] = paddle.create_parameter([2], "float32")
    m._sub_layers["fc"] = paddle.nn.Linear(2, 2)
    m._buffers["buf"] = paddle.ones([1])
    assert m.w is m._parameters["w"] and m.fc is m._sub_layers["fc"] and m.buf.shape == [1]
    del m.fc
    assert not hasattr(m, "fc") and [k for k, _ in m.named_parameters()] == ["w"]
    try:
        m.missing
    except AttributeError as e:
        assert "missing" in str(e)
    else:
        raise AssertionError("m.missing should raise AttributeError")


def test_clip_grad_by_norm_spreads_a_nan_norm_over_the_whole_gradient():
    # Paddle 3.3.1's clip_by_norm kernel scales by clip_norm / norm whenever norm <= clip_norm
    # is false: a NaN anywhere makes the whole gradient NaN, so the step is visibly broken
    p = paddle.create_parameter([2], "float32",
                                default_initializer=paddle.nn.initializer.Constant(1.0))
    (p * paddle.to_tensor([1.0, float("nan")])).sum().backward()
    paddle.optimizer.SGD(0.1, parameters=[p], grad_clip=paddle.nn.ClipGradByNorm(1.0)).step()
    assert np.isnan(p.numpy()).all()


def test_register_buffer_and_add_parameter_refuse_a_taken_name():
    # Paddle 3.3.1 raises KeyError; jitgrad had turned the parameter `weight` into a buffer
    # (no longer trained) and `training` into a tensor
    lin = paddle.nn.Linear(2, 2)
    for call in (lambda: lin.register_buffer("weight", paddle.ones([1])),
                 lambda: lin.register_buffer("training", paddle.ones([1])),
                 lambda: lin.add_parameter("training", paddle.create_parameter([1], "float32")),
                 lambda: lin.register_buffer("a.b", paddle.ones([1]))):
        try:
            call()
        except KeyError as e:
            assert isinstance(e, ValueError)
        else:
            raise AssertionError("a taken or malformed name should raise")
    assert [k for k, _ in lin.named_parameters()] == ["weight", "bias"] and lin.training is True
    lin.register_buffer("q", paddle.ones([1]))
    lin.register_buffer("q", paddle.zeros([1]))          # a buffer may be registered again
    assert lin.add_parameter("n", None) is None and lin.n is None


def test_layer_train_takes_a_mode():
    # Paddle 3.3.1's Layer.train(mode=True): model.train(False) is eval mode
    m = paddle.nn.Sequential(paddle.nn.Linear(2, 2), paddle.nn.Dropout(0.5))
    assert m.train(False) is m
    assert [layer.training for layer in m.sublayers(include_self=True)] == [False] * 3
    m.train(mode=True)
    assert all(layer.training for layer in m.sublayers(include_self=True))
    try:
        m.train("no")
    except ValueError:
        pass
    else:
        raise AssertionError("a non-bool mode should raise ValueError")


def test_named_members_remove_duplicate_and_state_dict_keywords():
    # Paddle 3.3.1: remove_duplicate=False lists a shared layer / tensor under every name; a
    # buffer shared by two layers is listed once by default; set_state_dict(state_dict=...)
    nn = paddle.nn
    lin = nn.Linear(2, 2)
    s = nn.Sequential(lin, nn.ReLU(), lin)
    lin.register_buffer("lb", paddle.ones([1]))
    s.register_buffer("b2", lin.lb)
    s.register_buffer("np", paddle.ones([1]), persistable=False)
    assert [k for k, _ in s.named_parameters(remove_duplicate=False)] == [
        "0.weight", "0.bias", "2.weight", "2.bias"]
    assert [k for k, _ in s.named_buffers()] == ["b2", "np"]
    assert [k for k, _ in s.named_sublayers(remove_duplicate=False)] == ["0", "1", "2"]
    assert list(s.to_static_state_dict()) == ["b2", "np", "0.weight", "0.bias", "0.lb",
                                             "2.weight", "2.bias", "2.lb"]
    other = nn.Linear(2, 2)
    other.set_state_dict(state_dict=lin.state_dict())
    np.testing.assert_array_equal(other.weight.numpy(), lin.weight.numpy())
    assert nn.Linear(2, 2).float16().weight.dtype == paddle.float16


def test_optimizer_apply_gradients_uses_the_given_gradients():
    # Paddle 3.3.1: clipped (global norm 5 -> [0.6, 0.8]), plus weight decay 0.5 * w, then
    # applied; the parameter's own .grad is left alone
    w = paddle.create_parameter([2], "float32",
                                default_initializer=paddle.nn.initializer.Constant(1.0))
    (w * 10.0).sum().backward()
    opt = paddle.optimizer.SGD(0.1, parameters=[w], weight_decay=0.5,
                               grad_clip=paddle.nn.ClipGradByGlobalNorm(1.0))
    assert opt.apply_gradients([(w, paddle.to_tensor([3.0, 4.0]))]) == []
    np.testing.assert_allclose(w.numpy(), [0.89, 0.87], rtol=1e-6)
    np.testing.assert_array_equal(w.grad.numpy(), [10.0, 10.0])


def test_batch_norm_parameter_dtypes_follow_paddle():
    # Paddle 3.3.1: the old nn.BatchNorm takes its dtype argument (default float32, whatever
    # the default dtype); under a float16 default every batch norm keeps float32 parameters
    # and statistics (so float16 checkpoints from Paddle load)
    def dtypes_of(layer):
        return {str(p.dtype) for p in layer.parameters()}
    assert dtypes_of(paddle.nn.BatchNorm(2, dtype="float64")) == {"paddle.float64"}
    paddle.set_default_dtype("float64")
    try:
        assert dtypes_of(paddle.nn.BatchNorm(2)) == {"paddle.float32"}
        assert dtypes_of(paddle.nn.BatchNorm1D(2)) == {"paddle.float64"}
        paddle.set_default_dtype("float16")
        assert dtypes_of(paddle.nn.BatchNorm2D(2)) == {"paddle.float32"}
        assert dtypes_of(paddle.nn.LayerNorm(2)) == {"paddle.float16"}
    finally:
        paddle.set_default_dtype("float32")


def test_conv_and_layer_norm_take_a_dtype():
    # Paddle 3.3.1's torch-style dtype= keyword sets the parameters' dtype (was ignored)
    nn = paddle.nn
    assert {str(p.dtype) for p in nn.Conv2D(1, 1, 2, dtype="float64").parameters()} == \
        {"paddle.float64"}
    assert {str(p.dtype) for p in nn.LayerNorm(2, dtype="float64").parameters()} == \
        {"paddle.float64"}
    paddle.set_default_dtype("float64")
    try:
        assert {str(p.dtype) for p in nn.LayerNorm(2, dtype="float32").parameters()} == \
            {"paddle.float32"}
        assert {str(p.dtype) for p in nn.Conv1D(1, 1, 2).parameters()} == {"paddle.float64"}
    finally:
        paddle.set_default_dtype("float32")
