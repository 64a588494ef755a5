"""paddle.save / paddle.load in PaddlePaddle's pickle format, so checkpoints move both ways.

What Paddle 3.3.1 writes (paddle/framework/io.py), and so what jitgrad writes and reads:

- A *state dict* (a dict whose values are Tensors, or dicts holding no Tensor, such as an
  optimizer's `LR_Scheduler`) is pickled as a plain dict of numpy arrays plus
  `"StructuredToParameterName@@": {key: tensor.name}`. Loading turns those arrays back into
  Tensors carrying their names and drops the table (`keep_name_table=True` keeps it).
- Anything else (a Tensor, nested lists/tuples/dicts, numbers, strings) is pickled as is,
  every Tensor written as the tuple `(name, ndarray)`. Loading turns each such tuple back into
  a Tensor; a file with no such tuple has each numpy array turned into a Tensor (Paddle 2.0
  files). So, as in Paddle, a user tuple `(str, ndarray)` loads as a Tensor.
- With protocol 2 or 3, arrays over 1 GiB are split into `key@@.0`, `key@@.1`... described by
  `"UnpackBigParamInfor@@"`, and joined again on load.

Loaded Tensors are plain (stop_gradient=True) tensors, as in Paddle; `return_numpy=True`
gives numpy arrays instead. Paddle writes bfloat16 as uint16 bit patterns; jitgrad has no
bfloat16, so those load as the float32 values they stand for (exactly), or as the raw
uint16 arrays with return_numpy=True (as in Paddle). Loading unpickles: load only files
you trust, as with Paddle and pickle.
"""

from __future__ import annotations

import math
import os
import pickle
import warnings
from collections import OrderedDict
from typing import IO, Any

import numpy as np

from .core.tensor import Tensor

NAME_TABLE = "StructuredToParameterName@@"
BIG_PARAMS = "UnpackBigParamInfor@@"  # (sic) Paddle's key


# ---- save ------------------------------------------------------------------------------------
def _contains(obj: Any, pred: Any) -> bool:
    """Paddle's _contain_x: pred anywhere in obj, looking into dicts, lists and tuples."""
    if pred(obj):
        return True
    if type(obj) in (dict, OrderedDict):
        return any(_contains(v, pred) for v in obj.values())
    if type(obj) in (list, tuple):
        return any(_contains(v, pred) for v in obj)
    return False


def _is_layer(obj: Any) -> bool:
    from .nn import Layer
    return isinstance(obj, Layer)


def _is_state_dict(obj: Any) -> bool:
    if not isinstance(obj, dict):
        return False
    for value in obj.values():
        if isinstance(value, dict):
            if any(_contains(v, lambda o: isinstance(o, Tensor) or _is_layer(o))
                   for v in value.values()):
                return False
        elif not isinstance(value, Tensor):
            return False
    return True


def _split_big(saved: dict, protocol: int) -> dict:
    """Paddle's _unpack_saved_dict: pickle protocols 2 and 3 cannot hold 4 GB objects."""
    if protocol >= 4:
        return saved
    info: dict = {}
    for key, value in list(saved.items()):
        if not isinstance(value, np.ndarray):
            continue
        limit = int((2 ** 30 - 1) / value.dtype.itemsize)
        if value.size <= limit:
            continue
        flat = value.reshape(-1)
        info[key] = {"OriginShape": value.shape, "slices": []}
        del saved[key]
        for i in range(math.ceil(value.size / limit)):
            part = f"{key}@@.{i}"
            info[key]["slices"].append(part)
            saved[part] = flat[i * limit:(i + 1) * limit]
    if info:
        saved[BIG_PARAMS] = info
    return saved


class _Pickler(pickle.Pickler):
    """Writes each Tensor as Paddle does: the tuple (name, ndarray)."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            return tuple, ((obj.name, np.asarray(obj._data)),)
        if _is_layer(obj):
            raise ValueError("paddle.save cannot save an nn.Layer object; save its "
                             "state_dict() instead")
        return NotImplemented


def _open(path: Any, mode: str, what: str) -> tuple[IO[bytes], bool]:
    """(file, whether we opened it): a path, or a binary buffer such as io.BytesIO."""
    if isinstance(path, (str, os.PathLike)):
        return open(path, mode), True
    if hasattr(path, "write" if "w" in mode else "read"):
        return path, False
    raise ValueError(f"{what}: path must be a file path or a binary buffer such as "
                     f"io.BytesIO, got {type(path).__name__}")


def save(obj: Any, path: str | os.PathLike | IO[bytes], protocol: int = 4,
         **configs: Any) -> None:
    """Write obj (a state dict, a Tensor, or nested lists/tuples/dicts of them and of plain
    Python values) to path in Paddle's format; missing directories are created."""
    for key in configs:
        if key not in ("use_binary_format", "pickle_protocol", "safetensors"):
            raise ValueError(f"paddle.save: the config {key!r} is not supported (known: "
                             "protocol, use_binary_format, safetensors)")
    if configs.get("use_binary_format") or configs.get("safetensors"):
        which = "use_binary_format" if configs.get("use_binary_format") else "safetensors"
        raise NotImplementedError(f"paddle.save: {which}=True is not supported by jitgrad; "
                                  "the default pickle format loads in Paddle as well")
    if configs.get("pickle_protocol") is not None:
        warnings.warn("'pickle_protocol' is a deprecated argument. Please use 'protocol' "
                      "instead.")
        protocol = configs["pickle_protocol"]
    if isinstance(protocol, bool) or not isinstance(protocol, int):
        raise ValueError(f"paddle.save: protocol must be an int, got {type(protocol).__name__}")
    if not 2 <= protocol <= 4:
        raise ValueError(f"paddle.save: protocol must be 2, 3 or 4, got {protocol}")
    if isinstance(path, (str, os.PathLike)):
        path = os.fspath(path)
        if not os.path.basename(path):
            raise ValueError(f"paddle.save: path must name a file (dirname/filename), got "
                             f"{path!r}")
        if os.path.dirname(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
    if _contains(obj, _is_layer):
        raise ValueError("paddle.save cannot save an nn.Layer object; save its state_dict() "
                         "instead")
    f, owned = _open(path, "wb", "paddle.save")
    try:
        if _is_state_dict(obj):
            if not obj:
                warnings.warn("The input state dict is empty, no need to save.")
            saved: dict = {}
            names: dict = {}
            for key, value in obj.items():
                if isinstance(value, Tensor):
                    saved[key] = np.asarray(value._data)
                    names[key] = value.name
                else:
                    saved[key] = value
            saved[NAME_TABLE] = names
            pickle.dump(_split_big(saved, protocol), f, protocol=protocol)
        else:
            _Pickler(f, protocol).dump(obj)
    finally:
        if owned:
            f.close()


# ---- load ------------------------------------------------------------------------------------
class _Unpickler(pickle.Unpickler):
    """NumPy 2 (Paddle 3.3.1's) pickles name numpy._core, which NumPy 1.x calls numpy.core."""

    def find_class(self, module: str, name: str) -> Any:
        if module.startswith("numpy._core") and int(np.__version__.split(".")[0]) < 2:
            module = "numpy.core" + module[len("numpy._core"):]
        if module == "paddle" or module.startswith("paddle."):
            raise pickle.UnpicklingError(f"it holds a Paddle object ({module}.{name}), which "
                                         "jitgrad cannot rebuild; save plain values instead")
        return super().find_class(module, name)


def _join_big(obj: Any) -> Any:
    if isinstance(obj, dict) and BIG_PARAMS in obj:
        for key, info in obj.pop(BIG_PARAMS).items():
            parts = [obj.pop(part) for part in info["slices"]]
            obj[key] = np.concatenate(parts).reshape(info["OriginShape"])
    return obj


def _to_tensor(arr: np.ndarray, name: str, return_numpy: bool) -> Any:
    if return_numpy:
        return arr
    if arr.dtype == np.uint16:                   # Paddle's bfloat16: the top 16 bits
        arr = (arr.astype(np.uint32) << 16).view(np.float32)
    if arr.dtype.kind not in "fiub" or arr.dtype.kind == "u" and arr.dtype != np.uint8:
        raise TypeError(f"paddle.load: the file holds a {arr.dtype} array, which jitgrad has "
                        "no tensor type for; load it with return_numpy=True")
    t = Tensor._make(np.array(arr, copy=True, order="C"))
    t.name = name
    return t


def _is_named_array(obj: Any) -> bool:
    return type(obj) is tuple and len(obj) == 2 and isinstance(obj[0], str) and \
        isinstance(obj[1], np.ndarray)


def _convert(obj: Any, pred: Any, conv: Any) -> Any:
    """Paddle's _parse_every_object: conv(x) for every x with pred(x), through dicts, lists,
    tuples and sets."""
    if pred(obj):
        return conv(obj)
    if type(obj) in (dict, OrderedDict):
        for key in list(obj):
            obj[key] = _convert(obj[key], pred, conv)
        return obj
    if type(obj) is list:
        obj[:] = [_convert(v, pred, conv) for v in obj]
        return obj
    if type(obj) is tuple:
        return tuple(_convert(v, pred, conv) for v in obj)
    if type(obj) is set:
        return {_convert(v, pred, conv) for v in obj}
    return obj


def load(path: str | os.PathLike | IO[bytes], **configs: Any) -> Any:
    """Read what paddle.save (Paddle's or jitgrad's) wrote. Configs: return_numpy=True gives
    numpy arrays instead of Tensors; keep_name_table=True keeps a state dict's name table."""
    for key in configs:
        if key not in ("return_numpy", "keep_name_table", "model_filename",
                       "params_filename", "safetensors"):
            raise ValueError(f"paddle.load: the config {key!r} is not supported (known: "
                             "return_numpy, keep_name_table)")
    for key in ("model_filename", "params_filename", "safetensors"):
        if configs.get(key):
            raise NotImplementedError(f"paddle.load: {key} is for Paddle's static-graph or "
                                      "safetensors files, which jitgrad does not read")
    return_numpy = bool(configs.get("return_numpy", False))
    if isinstance(path, (str, os.PathLike)) and not os.path.isfile(path):
        raise ValueError(f"paddle.load: the path {os.fspath(path)!r} is not a file "
                         "(jitgrad reads the single files paddle.save writes)")
    f, owned = _open(path, "rb", "paddle.load")
    try:
        obj = _Unpickler(f, encoding="latin1").load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError) as e:
        where = os.fspath(path) if owned else "the buffer"
        raise ValueError(f"paddle.load cannot parse {where} ({e}); jitgrad reads the pickle "
                         "files paddle.save writes") from None
    finally:
        if owned:
            f.close()
    obj = _join_big(obj)
    if isinstance(obj, dict) and NAME_TABLE in obj:
        for key, name in obj[NAME_TABLE].items():
            if isinstance(obj.get(key), np.ndarray):
                obj[key] = _to_tensor(obj[key], name, return_numpy)
        if not configs.get("keep_name_table"):
            del obj[NAME_TABLE]
        return obj
    if _contains(obj, _is_named_array):
        return _convert(obj, _is_named_array, lambda t: _to_tensor(t[1], t[0], return_numpy))
    return _convert(obj, lambda o: isinstance(o, np.ndarray),
                    lambda a: _to_tensor(a, "", return_numpy))
