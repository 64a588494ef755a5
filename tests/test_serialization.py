"""paddle.save / paddle.load: what goes into the file (Paddle 3.3.1's pickle layout, measured
on Paddle 3.3.1 by unpickling its files) and what comes back."""

import io
import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.utils import unique_name


def roundtrip(obj, **load_configs):
    buf = io.BytesIO()
    paddle.save(obj, buf)
    raw = pickle.loads(buf.getvalue())
    buf.seek(0)
    return raw, paddle.load(buf, **load_configs)


def linear():
    with unique_name.guard():
        lin = paddle.nn.Linear(2, 3)
    lin.weight.set_value(np.arange(6, dtype="float32").reshape(2, 3))
    return lin


def test_a_state_dict_is_written_as_arrays_and_a_name_table():
    raw, back = roundtrip(linear().state_dict())
    assert list(raw) == ["weight", "bias", "StructuredToParameterName@@"]
    assert isinstance(raw["weight"], np.ndarray) and raw["weight"].dtype == np.float32
    assert raw["StructuredToParameterName@@"] == {"weight": "linear_0.w_0",
                                                  "bias": "linear_0.b_0"}
    assert type(back) is dict and list(back) == ["weight", "bias"]
    assert back["weight"].name == "linear_0.w_0" and back["weight"].stop_gradient
    assert type(back["weight"]) is paddle.Tensor           # not a Parameter, as Paddle
    np.testing.assert_array_equal(back["weight"].numpy(), np.arange(6).reshape(2, 3))


def test_a_tensor_outside_a_state_dict_is_written_as_a_name_array_tuple():
    lin = linear()
    raw, back = roundtrip({"model": lin.state_dict(), "epoch": 3, "hist": [lin.bias, "x"]})
    assert raw["epoch"] == 3 and raw["hist"][1] == "x"
    name, arr = raw["model"]["weight"]
    assert name == "linear_0.w_0" and arr.shape == (2, 3)
    assert type(back["model"]) is OrderedDict
    assert back["model"]["weight"].name == "linear_0.w_0"
    assert back["hist"][0].name == "linear_0.b_0" and back["hist"][1] == "x"


def test_a_single_tensor_and_tuples_come_back():
    t = paddle.to_tensor([1.5, 2.5], dtype="float64")
    t.name = "t0"
    raw, back = roundtrip(t)
    assert raw[0] == "t0" and raw[1].dtype == np.float64
    assert back.name == "t0" and back.dtype == paddle.float64
    _, pair = roundtrip((t, 2.5))
    assert isinstance(pair, tuple) and pair[1] == 2.5 and pair[0].numpy().tolist() == [1.5, 2.5]


def test_plain_values_pass_through_unchanged():
    for value in (5, "hi", None, {1, 2}, [1, 2.5], {}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")            # {} warns: an empty state dict
            assert roundtrip(value)[1] == value


def test_an_empty_state_dict_warns_as_paddle_does():
    with pytest.warns(UserWarning, match="state dict is empty"):
        paddle.save({}, io.BytesIO())


def test_files_without_named_tensors_turn_numpy_arrays_into_tensors():
    """A Paddle 2.0-style file (bare arrays): every array loads as a Tensor."""
    buf = io.BytesIO(pickle.dumps({"a": np.arange(3), "b": [np.ones(2, "float32")]}))
    back = paddle.load(buf)
    assert back["a"].dtype == paddle.int64 and back["b"][0].dtype == paddle.float32
    buf.seek(0)
    assert isinstance(paddle.load(buf, return_numpy=True)["a"], np.ndarray)


def test_return_numpy_gives_arrays_everywhere():
    lin = linear()
    _, back = roundtrip({"model": lin.state_dict(), "w": lin.weight}, return_numpy=True)
    assert isinstance(back["w"], np.ndarray)
    assert isinstance(back["model"]["bias"], np.ndarray)


def test_a_state_dict_with_a_scheduler_dict_stays_a_state_dict():
    raw, back = roundtrip({"w": paddle.ones([2]), "LR_Scheduler": {"last_epoch": 2}})
    assert "StructuredToParameterName@@" in raw and back["LR_Scheduler"] == {"last_epoch": 2}


def test_paths_get_their_directories(tmp_path):
    path = tmp_path / "a" / "b" / "w.pdparams"
    paddle.save(linear().state_dict(), str(path))
    assert paddle.load(str(path))["bias"].shape == [3]
    assert paddle.load(path)["bias"].shape == [3]              # os.PathLike too


def test_protocol_2_splits_nothing_small_and_loads():
    buf = io.BytesIO()
    paddle.save(linear().state_dict(), buf, protocol=2)
    buf.seek(0)
    assert paddle.load(buf)["weight"].shape == [2, 3]


def test_big_arrays_split_under_protocols_2_and_3_are_joined(monkeypatch):
    from jitgrad import serialization
    big = np.arange(10, dtype="float32")
    saved = serialization._split_big({"w": big.copy()}, 4)
    assert list(saved) == ["w"]
    monkeypatch.setattr(serialization, "_split_big", lambda d, p: d)   # layout by hand
    info = {"w": {"OriginShape": (2, 5), "slices": ["w@@.0", "w@@.1"]}}
    buf = io.BytesIO(pickle.dumps({"w@@.0": big[:6], "w@@.1": big[6:],
                                   "UnpackBigParamInfor@@": info,
                                   "StructuredToParameterName@@": {"w": "w0"}}))
    back = paddle.load(buf)
    assert list(back) == ["w"] and back["w"].name == "w0"
    np.testing.assert_array_equal(back["w"].numpy(), big.reshape(2, 5))


@pytest.mark.parametrize("obj, path, err, match", [
    ("layer", "x.pd", ValueError, "nn.Layer"),
    ("t", 123, ValueError, "file path or a binary buffer"),
    ("t", "dir/", ValueError, "must name a file"),
])
def test_save_refuses_what_paddle_refuses(tmp_path, obj, path, err, match):
    value = {"layer": paddle.nn.Linear(1, 1), "t": paddle.ones([1])}[obj]
    where = f"{tmp_path}/{path}" if isinstance(path, str) else path
    with pytest.raises(err, match=match):
        paddle.save(value, where)


def test_save_checks_its_protocol_and_configs():
    with pytest.raises(ValueError, match="protocol must be 2, 3 or 4"):
        paddle.save(paddle.ones([1]), io.BytesIO(), protocol=5)
    with pytest.raises(ValueError, match="'foo' is not supported"):
        paddle.save(paddle.ones([1]), io.BytesIO(), foo=1)
    with pytest.raises(NotImplementedError, match="use_binary_format"):
        paddle.save(paddle.ones([1]), io.BytesIO(), use_binary_format=True)
    with pytest.raises(ValueError, match="nn.Layer"):
        paddle.save([paddle.nn.Linear(1, 1)], io.BytesIO())


def test_load_says_what_it_cannot_read(tmp_path):
    with pytest.raises(ValueError, match="is not a file"):
        paddle.load(str(tmp_path / "missing.pdparams"))
    bad = tmp_path / "garbage"
    bad.write_bytes(b"garbage")
    with pytest.raises(ValueError, match="cannot parse"):
        paddle.load(str(bad))
    with pytest.raises(ValueError, match="'bar' is not supported"):
        paddle.load(str(bad), bar=1)


def test_an_array_jitgrad_has_no_tensor_for_needs_return_numpy():
    buf = io.BytesIO(pickle.dumps(("c", np.ones(2, np.complex64))))
    with pytest.raises(TypeError, match="return_numpy=True"):
        paddle.load(buf)
    buf.seek(0)
    assert paddle.load(buf, return_numpy=True).dtype == np.complex64


def test_a_pickled_paddle_object_is_named_in_the_error():
    """A Paddle-only class in a file (say a paddle dtype) cannot be rebuilt without Paddle."""
    raw = b"\x80\x02cpaddle.base.libpaddle\nDataType\n)\x81."   # GLOBAL, NEWOBJ
    with pytest.raises(ValueError, match=r"Paddle object \(paddle.base.libpaddle.DataType\)"):
        paddle.load(io.BytesIO(raw))
