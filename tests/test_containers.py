"""nn.ParameterList and nn.LayerDict, as measured on Paddle 3.3.1."""

import numpy as np
import pytest

import jitgrad as paddle

nn = paddle.nn


def param(*shape):
    return paddle.create_parameter(list(shape), "float32")


def test_a_parameter_list_registers_its_entries_by_position():
    pl = nn.ParameterList([param(2), param(3)])
    pl.append(param(4))
    assert len(pl) == 3 and [list(p.shape) for p in pl] == [[2], [3], [4]]
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    assert list(pl.state_dict()) == ["0", "1", "2"]

    class Holder(nn.Layer):
        def __init__(self):
            super().__init__()
            self.ps = nn.ParameterList([param(2)])
    assert [n for n, _ in Holder().named_parameters()] == ["ps.0"]


def test_negative_indices_work_and_a_missing_one_is_an_index_error():
    """Paddle 3.3.1 raises KeyError '-1' for pl[-1]."""
    pl = nn.ParameterList([param(2), param(3)])
    assert pl[-1] is pl[1]
    with pytest.raises(IndexError, match="out of range"):
        pl[2]


def test_setting_an_entry_copies_into_the_registered_parameter():
    """Measured: Paddle assigns into the existing parameter (paddle.assign), shape included."""
    pl = nn.ParameterList([param(2)])
    kept = pl[0]
    opt = paddle.optimizer.SGD(0.1, parameters=pl.parameters())
    pl[0] = paddle.to_tensor([1.0, 2.0, 3.0])
    assert pl[0] is kept and kept.numpy().tolist() == [1.0, 2.0, 3.0]
    kept.sum().backward()
    opt.step()
    assert kept.numpy().tolist() == pytest.approx([0.9, 1.9, 2.9])


def test_a_parameter_list_takes_parameters_only():
    with pytest.raises(TypeError, match="should be a Parameter"):
        nn.ParameterList([paddle.ones([2])])


def test_a_layer_dict_keeps_insertion_order_and_acts_as_a_dict():
    ld = nn.LayerDict({"a": nn.Linear(2, 2), "b": nn.ReLU()})
    assert list(ld.keys()) == ["a", "b"] and "a" in ld and len(ld) == 2
    assert list(ld.state_dict()) == ["a.weight", "a.bias"]
    ld["c"] = nn.Linear(2, 3)
    assert type(ld.pop("b")).__name__ == "ReLU" and list(ld) == ["a", "c"]
    ld.update({"z": nn.Tanh()})
    ld.update([("y", nn.Tanh())])
    del ld["z"]
    assert [k for k, _ in ld.items()] == ["a", "c", "y"]
    assert [type(v).__name__ for v in ld.values()] == ["Linear", "Linear", "Tanh"]
    assert not hasattr(ld, "z") and len(ld.parameters()) == 4
    ld.clear()
    assert len(ld) == 0 and ld.parameters() == []


def test_a_layer_dict_from_pairs_and_its_errors():
    ld = nn.LayerDict([("x", nn.ReLU())])
    assert list(ld) == ["x"]
    with pytest.raises(KeyError):
        ld["nope"]
    with pytest.raises(TypeError, match="must be a Layer"):
        nn.LayerDict({"a": 1})
    with pytest.raises(ValueError, match="must be a \\(key, layer\\) pair"):
        nn.LayerDict([("a", nn.ReLU(), 3)])


def test_parameters_in_a_layer_dict_train():
    ld = nn.LayerDict({"lin": nn.Linear(2, 1)})
    opt = paddle.optimizer.SGD(0.5, parameters=ld.parameters())
    w = ld["lin"].weight.numpy().copy()
    ld["lin"](paddle.ones([1, 2])).sum().backward()
    opt.step()
    np.testing.assert_allclose(ld["lin"].weight.numpy(), w - 0.5)


def test_parameter_dict_registers_its_parameters_by_name():
    pd = paddle.nn.ParameterDict({"a": paddle.create_parameter([2], "float32"),
                                  "b": paddle.create_parameter([3], "float32")})
    assert len(pd) == 2 and list(pd) == ["a", "b"]
    assert [n for n, _ in pd.named_parameters()] == ["a", "b"]          # Paddle 3.3.1
    pd["c"] = paddle.create_parameter([1], "float32")
    assert "c" in pd and pd["c"].shape == [1]
    with pytest.raises(TypeError, match="should be a Parameter"):
        pd["d"] = paddle.to_tensor([1.0])
    holder = paddle.nn.Layer()
    holder.params = pd
    assert sorted(holder.state_dict()) == ["params.a", "params.b", "params.c"]
