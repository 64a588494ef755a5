"""Creating tensors: constants, ranges and seeded random numbers (paddle.seed)."""

from __future__ import annotations

from typing import Any, Sequence

import math

import numpy as np

from ..core import dtypes
from ..core.places import to_place
from ..core.tensor import Tensor

_rng = np.random.default_rng(0)
_initial_seed = 0


class Generator:
    """Paddle's handle on the random generator (what paddle.seed returns). jitgrad's ops
    draw from one global generator, which this object reseeds and whose state it reads."""

    def manual_seed(self, s: int) -> "Generator":
        global _rng, _initial_seed
        _initial_seed = int(s)
        _rng = np.random.default_rng(_initial_seed)
        return self

    def seed(self) -> int:
        """Reseed from fresh entropy; the new seed."""
        s = int(np.random.SeedSequence().entropy % (2 ** 63))
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return _initial_seed

    def get_state(self) -> dict:
        return _rng.bit_generator.state

    def set_state(self, state: dict) -> None:
        _rng.bit_generator.state = state

    def random(self) -> int:
        """A random 64-bit integer from the generator."""
        return int(_rng.integers(0, 2 ** 63))


_DEFAULT_GENERATOR = Generator()


def seed(seed: int) -> Generator:
    """Reseed jitgrad's generator (dropout, rand, randn, initializers); returns it, as
    Paddle's paddle.seed returns its Generator."""
    return _DEFAULT_GENERATOR.manual_seed(seed)


def generator() -> np.random.Generator:
    return _rng


def _dt(dtype: Any, default: Any = None) -> np.dtype:
    if dtype is None:
        return dtypes.default_float().np if default is None else np.dtype(default)
    return dtypes.to_dtype(dtype).np


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (Tensor, np.ndarray)):
        shape = shape.tolist()
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = [shape]
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"shape must be a list or tuple of ints (or an int Tensor), got "
                        f"{shape!r}")
    dims = [s.item() if isinstance(s, Tensor) else s for s in shape]
    for d in dims:
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
            raise TypeError(f"shape must hold ints, got {d!r} in {list(shape)!r}")
        if d < 0:
            raise ValueError(f"shape {list(dims)} has a negative dimension")
    return tuple(int(d) for d in dims)


def _t(arr: np.ndarray) -> Tensor:
    return Tensor._make(np.array(arr, order="C"))


def zeros(shape: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    return _t(np.zeros(_shape(shape), _dt(dtype)))


def ones(shape: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    return _t(np.ones(_shape(shape), _dt(dtype)))


def full(shape: Any, fill_value: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    """Without dtype: bool for a bool fill value, else the default float dtype (an int
    fill value too: Paddle 3.3.1's `full([2], 3)` is float32)."""
    if dtype is None and isinstance(fill_value, (bool, np.bool_)):
        dtype = "bool"
    dt = _dt(dtype)
    if dt.kind in "iu" and isinstance(fill_value, (int, float, np.integer, np.floating)) \
            and not isinstance(fill_value, (bool, np.bool_)):
        # an integer dtype takes the value truncated and wrapped, as Paddle 3.3.1's kernel
        # casts it (full([2], -1, dtype='uint8') is [255, 255], 2.7 gives 2)
        v = np.asarray(fill_value)
        if v.dtype.kind == "f" and np.isfinite(v):
            v = np.trunc(v).astype(np.int64)
        if v.dtype.kind in "iu":
            fill_value = v.astype(dt)
    if dt == np.float16:
        fill_value = dtypes.to_dtype_array(fill_value, dt)     # (through float32, as Paddle)
    return _t(np.full(_shape(shape), fill_value, dt))


def zeros_like(x: Tensor, dtype: Any = None, name: str | None = None) -> Tensor:
    return _t(np.zeros_like(x._data, dtype=_dt(dtype, x._data.dtype)))


def ones_like(x: Tensor, dtype: Any = None, name: str | None = None) -> Tensor:
    return _t(np.ones_like(x._data, dtype=_dt(dtype, x._data.dtype)))


def full_like(x: Tensor, fill_value: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    dt = _dt(dtype, x._data.dtype)
    if dt == np.float16 and not isinstance(fill_value, Tensor):
        fill_value = dtypes.to_dtype_array(fill_value, dt)     # (through float32, as Paddle)
    try:
        return _t(np.full_like(x._data, fill_value, dtype=dt))
    except OverflowError:       # (Paddle 3.3.1's full_like refuses it too; full wraps)
        raise ValueError(f"full_like: fill_value {fill_value!r} is out of range for "
                         f"{np.dtype(dt).name}") from None


def arange(start: Any = 0, end: Any = None, step: Any = 1, dtype: Any = None,
           name: str | None = None) -> Tensor:
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if vals[2] == 0:
        raise ValueError("arange: step must not be 0")
    for k, v in zip(("start", "end", "step"), vals):
        if isinstance(v, (float, np.floating)) and not math.isfinite(v):  # (Paddle refuses:
            raise ValueError(f"arange: {k} must be finite, got {v}")    # NaN gave [])
    if dtype is None:
        dtype = "int64" if all(isinstance(v, (int, np.integer)) for v in vals) else None
    dt = _dt(dtype)
    # As Paddle's kernel: start, end and step cast to dtype first (1.3 in float32 is
    # 1.29999995, so arange(1.0, 1.3, 0.1) has 3 elements; an int dtype truncates), then
    # ceil((end - start) / step) elements, each the previous one plus step in dtype.
    s, e, st = (np.asarray(v).astype(dt) for v in vals)
    if st == 0:
        raise ValueError("arange: step must not be 0 in the output dtype")
    if dt.kind == "f":
        q = (e - s) / st
        n = int(np.ceil(q)) if q > 0 else 0
    else:
        n = int((abs(int(e) - int(s)) + abs(int(st)) - 1) // abs(int(st))) \
            if (int(e) - int(s)) * int(st) > 0 else 0
        return _t(s + st * np.arange(n, dtype=dt))     # (exact: no rounding to accumulate)
    steps = np.full(n, st, dt)
    if n:
        steps[0] = s
    return _t(np.add.accumulate(steps, dtype=dt))


def linspace(start: float, stop: float, num: int, dtype: Any = None, name: str | None = None
             ) -> Tensor:
    num = num.item() if isinstance(num, Tensor) else num
    if isinstance(num, bool) or not isinstance(num, (int, np.integer)) or num < 0:
        raise ValueError(f"linspace: num must be a non-negative int, got {num!r}")
    return _t(_linspace(start, stop, int(num), _dt(dtype)))


def _linspace(start: Any, stop: Any, num: int, dt: np.dtype) -> np.ndarray:
    """Paddle 3.3.1's linspace kernel: start and stop cast to dt, the first half counted up
    from start, the second down from stop (so stop is exact); floats in dt's own precision,
    ints through float64 steps truncated toward zero (numpy's int linspace floors)."""
    a, b = (np.asarray(v.item() if isinstance(v, Tensor) else v).astype(dt) for v in
            (start, stop))
    if num <= 1:
        return np.full(num, a, dt)
    i = np.arange(num)
    calc = dt if dt.kind == "f" else np.dtype(np.float64)
    a, b = a.astype(calc), b.astype(calc)
    step = (b - a) / calc.type(num - 1)
    up = a + step * i.astype(calc)
    down = b - step * (num - 1 - i).astype(calc)
    return np.where(i < num // 2, up, down).astype(dt)


def eye(num_rows: int, num_columns: int | None = None, dtype: Any = None,
        name: str | None = None) -> Tensor:
    num_rows, num_columns = (n.item() if isinstance(n, Tensor) else n
                             for n in (num_rows, num_columns))
    for what, n in (("num_rows", num_rows), ("num_columns", num_columns)):
        if n is not None and (isinstance(n, bool) or not isinstance(n, (int, np.integer))
                              or n < 0):
            raise ValueError(f"eye: {what} must be a non-negative int, got {n!r}")
    return _t(np.eye(num_rows, num_columns, dtype=_dt(dtype)))


def rand(shape: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    return _t(_rng.random(_shape(shape)).astype(_dt(dtype)))


def randn(shape: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    return _t(_rng.standard_normal(_shape(shape)).astype(_dt(dtype)))


def uniform(shape: Any, dtype: Any = None, min: float = 0.0, max: float = 1.0, seed: int = 0,
            name: str | None = None) -> Tensor:
    """Uniform in [min, max): [0, 1) by default, as Paddle 3.3.1 (earlier Paddle: [-1, 1))."""
    r = np.random.default_rng(seed) if seed else _rng
    return _t(r.uniform(min, max, _shape(shape)).astype(_dt(dtype)))


def normal(mean: Any = 0.0, std: Any = 1.0, shape: Any = None, name: str | None = None
           ) -> Tensor:
    """Samples of N(mean, std^2). With a Tensor mean or std the result has their
    (broadcast) shape and `shape` is ignored, as in Paddle."""
    def value(v: Any, what: str) -> Any:
        if isinstance(v, Tensor):
            return v._data
        if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
            return float(v)
        raise TypeError(f"normal: {what} must be a float or a Tensor, got {v!r}")
    m, sd = value(mean, "mean"), value(std, "std")
    if np.any(np.asarray(sd) < 0):
        raise ValueError(f"normal: std must be >= 0, got {std!r}")
    tensors = [v for v in (m, sd) if isinstance(v, np.ndarray)]
    if tensors:
        try:
            out_shape = np.broadcast_shapes(*(t.shape for t in tensors))
        except ValueError:
            raise ValueError(f"normal: mean and std have shapes {list(np.shape(m))} and "
                             f"{list(np.shape(sd))}, which do not broadcast") from None
        dt = np.result_type(*[t.dtype for t in tensors if t.dtype.kind == "f"] or [_dt(None)])
    else:
        out_shape, dt = _shape(shape if shape is not None else [1]), _dt(None)
    return _t(_rng.normal(m, sd, out_shape).astype(dt))


def randint(low: int = 0, high: int | None = None, shape: Sequence[int] = (1,),
            dtype: Any = None, name: str | None = None) -> Tensor:
    if high is None:
        low, high = 0, low
    for what, v in (("low", low), ("high", high)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise TypeError(f"randint: {what} must be an int, got {v!r}")
    if low >= high:
        raise ValueError(f"randint: low ({low}) must be less than high ({high}); the values "
                         "are drawn from [low, high)")
    return _t(_rng.integers(low, high, _shape(shape)).astype(_dt(dtype, np.int64)))


def randperm(n: int, dtype: Any = "int64", name: str | None = None) -> Tensor:
    if isinstance(n, Tensor):
        n = n.item()
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"randperm: n must be a non-negative int, got {n!r}")  # (gave [])
    return _t(_rng.permutation(int(n)).astype(_dt(dtype)))


# ---- Paddle's newer creation names (torch-style) ----------------------------------------

_reseed = seed          # (manual_seed's argument is called seed, as Paddle's)


def manual_seed(seed: int) -> Generator:
    """paddle.seed under torch's name."""
    return _reseed(seed)


def standard_normal(shape: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    return randn(shape, dtype)


def _like(x: Tensor, fn: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}: x must be a Tensor, got {type(x).__name__}")
    return x


def rand_like(input: Tensor, name: str | None = None, *, dtype: Any = None) -> Tensor:
    """Uniform [0, 1) samples of input's shape and (by default) dtype."""
    x = _like(input, "rand_like")
    return rand(x.shape, x._data.dtype if dtype is None else dtype)


def randn_like(x: Tensor, dtype: Any = None, name: str | None = None) -> Tensor:
    x = _like(x, "randn_like")
    return randn(x.shape, x._data.dtype if dtype is None else dtype)


def randint_like(x: Tensor, low: int = 0, high: int | None = None, dtype: Any = None,
                 name: str | None = None) -> Tensor:
    """Integers from [low, high) (from [0, low) with one bound) in x's shape and (by
    default) x's dtype, as Paddle."""
    x = _like(x, "randint_like")
    return randint(low, high, x.shape, x._data.dtype if dtype is None else dtype)


def as_tensor(data: Any, dtype: Any = None, place: Any = None, requires_grad: bool = False
              ) -> Tensor:
    """to_tensor with torch's requires_grad (a copy: jitgrad's tensors never alias a user's
    array, which could change under a recorded graph)."""
    from ..core.tensor import to_tensor
    return to_tensor(data, dtype, place, stop_gradient=not requires_grad)


def asarray(obj: Any, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return as_tensor(obj, dtype, requires_grad=requires_grad)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor holding a copy of the array (Paddle 3.3.1 copies too: writing the array
    afterwards leaves the tensor alone)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy array, got {type(ndarray).__name__}")
    return as_tensor(ndarray)


def range(start: Any = 0, end: Any = None, step: Any = 1, dtype: Any = None, *,
          out: Any = None, device: Any = None, requires_grad: bool = False,
          name: str | None = None) -> Tensor:
    """Paddle's deprecated range: start, start + step, ... up to end INCLUDED (unlike
    arange), in the default float dtype unless dtype says otherwise."""
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if vals[2] == 0:
        raise ValueError("range: step must not be 0")
    n = int(np.floor((vals[1] - vals[0]) / vals[2])) + 1
    from ..core import torch_kwargs
    to_place(device, "range()")
    t = _t((vals[0] + vals[2] * np.arange(max(n, 0))).astype(_dt(dtype)))
    return torch_kwargs.finish("range", t, {"requires_grad": requires_grad, "out": out})


def get_rng_state(device: Any = None) -> list:
    """The generator's state, for set_rng_state (a list, as Paddle's, of one state); device
    must name the CPU (None, 'cpu', a place: Paddle 3.3.1 reads it as Tensor.to does)."""
    if device is not None:
        to_place(device, "get_rng_state")
    return [_rng.bit_generator.state]


def set_rng_state(state_list: Sequence, device: Any = None) -> None:
    if device is not None:
        to_place(device, "set_rng_state")
    if not isinstance(state_list, (list, tuple)) or len(state_list) != 1 or \
            not isinstance(state_list[0], dict):
        raise TypeError("set_rng_state: pass the list get_rng_state() returned")
    _rng.bit_generator.state = state_list[0]
