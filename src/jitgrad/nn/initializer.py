"""Parameter initializers (paddle.nn.initializer names), drawing from paddle.seed's generator."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..core.tensor import Tensor
from ..ops import creation


def _fans(shape: Sequence[int]) -> tuple[int, int]:
    """fan_in, fan_out with Paddle's layouts: Linear [in, out], conv [out, in, k...]."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    rf = int(np.prod(shape[2:]))
    return shape[1] * rf, shape[0] * rf


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for an activation (Paddle's table: relu sqrt(2), tanh 5/3,
    leaky_relu sqrt(2 / (1 + slope^2)) with slope param or 0.01, selu 3/4, else 1)."""
    name = str(nonlinearity).lower()
    if name in ("linear", "conv1d", "conv2d", "conv3d", "conv1d_transpose",
                "conv2d_transpose", "conv3d_transpose", "conv_transpose1d",
                "conv_transpose2d", "conv_transpose3d", "sigmoid"):
        return 1
    if name == "tanh":
        return 5.0 / 3
    if name == "relu":
        return math.sqrt(2.0)
    if name == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1 + slope ** 2))
    if name == "selu":
        return 3.0 / 4
    raise ValueError(f"calculate_gain: unknown nonlinearity {nonlinearity!r}")


class Initializer:
    """init(shape, dtype) gives the values of a new parameter (create_parameter);
    init(param) fills an existing tensor in place, as Paddle's, and returns None."""

    def _values(self, shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, shape: Any, dtype: Any = None, block: Any = None) -> np.ndarray | None:
        if isinstance(shape, Tensor):
            from ..ops.inplace import set_value
            set_value(shape, self._values(list(shape.shape), shape._data.dtype))
            return None
        return self._values(list(shape), np.dtype(dtype) if dtype is not None else
                            np.dtype(np.float32))


class Constant(Initializer):
    def __init__(self, value: float = 0.0) -> None:
        self.value = value

    def _values(self, shape, dtype):
        return np.full(shape, self.value, dtype)


class Uniform(Initializer):
    def __init__(self, low: float = -1.0, high: float = 1.0, name: str | None = None) -> None:
        if not high >= low:
            raise ValueError(f"Uniform: high ({high}) must not be below low ({low})")
        self.low, self.high = low, high

    def _values(self, shape, dtype):
        return creation.generator().uniform(self.low, self.high, shape).astype(dtype)


class Normal(Initializer):
    def __init__(self, mean: float = 0.0, std: float = 1.0, name: str | None = None) -> None:
        self.mean, self.std = mean, std

    def _values(self, shape, dtype):
        # mean + std * N(0, 1), as Paddle draws it: a negative std is the same distribution
        return creation.generator().normal(self.mean, abs(self.std), shape).astype(dtype)


class TruncatedNormal(Initializer):
    """Normal(mean, std) redrawn until inside [a, b] (absolute bounds, as Paddle 3.x)."""

    def __init__(self, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                 name: str | None = None) -> None:
        if not a < b:
            raise ValueError(f"TruncatedNormal: a ({a}) must be below b ({b})")
        self.mean, self.std, self.a, self.b = mean, std, a, b

    def _values(self, shape, dtype):
        g = creation.generator()
        out = g.normal(self.mean, self.std, shape)
        bad = (out < self.a) | (out > self.b)
        while bad.any():
            out[bad] = g.normal(self.mean, self.std, int(bad.sum()))
            bad = (out < self.a) | (out > self.b)
        return out.astype(dtype)


class XavierUniform(Initializer):
    def __init__(self, fan_in: float | None = None, fan_out: float | None = None,
                 gain: float = 1.0, name: str | None = None) -> None:
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, gain

    def _values(self, shape, dtype):
        fi, fo = _fans(shape)
        fi, fo = self.fan_in or fi, self.fan_out or fo
        lim = self.gain * math.sqrt(6.0 / (fi + fo))
        return Uniform(-lim, lim)._values(shape, dtype)


class XavierNormal(XavierUniform):
    def _values(self, shape, dtype):
        fi, fo = _fans(shape)
        fi, fo = self.fan_in or fi, self.fan_out or fo
        return Normal(0.0, self.gain * math.sqrt(2.0 / (fi + fo)))._values(shape, dtype)


class KaimingUniform(Initializer):
    def __init__(self, fan_in: float | None = None, negative_slope: float = 0.0,
                 nonlinearity: str = "relu", mode: str = "fan_in") -> None:
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"Kaiming: mode must be 'fan_in' or 'fan_out', got {mode!r}")
        if mode == "fan_out" and fan_in is not None:
            raise ValueError("Kaiming: mode='fan_out' uses the parameter's fan_out, but fan_in "
                             "is set; set fan_in to None (as Paddle requires)")
        self.fan_in, self.negative_slope = fan_in, negative_slope
        self.nonlinearity, self.mode = nonlinearity, mode

    def _std(self, shape) -> float:
        fi, fo = _fans(shape)
        fan = self.fan_in or (fi if self.mode == "fan_in" else fo)
        return calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)

    def _values(self, shape, dtype):
        lim = math.sqrt(3.0) * self._std(shape)
        return Uniform(-lim, lim)._values(shape, dtype)


class KaimingNormal(KaimingUniform):
    def _values(self, shape, dtype):
        return Normal(0.0, self._std(shape))._values(shape, dtype)


class Assign(Initializer):
    """The given values (a numpy array, list or Tensor) of the parameter's shape."""

    def __init__(self, value: Any, name: str | None = None) -> None:
        self.value = np.array(value._data if isinstance(value, Tensor) else value)

    def _values(self, shape, dtype):
        if self.value.size != int(np.prod(shape)):
            raise ValueError(f"Assign: the value has shape {list(self.value.shape)}, the "
                             f"parameter {list(shape)}")
        return self.value.reshape(shape).astype(dtype)


class Orthogonal(Initializer):
    """gain times a (semi-)orthogonal matrix: rows or columns orthonormal, whichever are
    fewer, of the parameter seen as [shape[0], prod(shape[1:])]."""

    def __init__(self, gain: float = 1.0, name: str | None = None) -> None:
        self.gain = gain

    def _values(self, shape, dtype):
        if len(shape) < 2:
            raise ValueError("Orthogonal: the parameter needs at least 2 dims")
        rows, cols = shape[0], int(np.prod(shape[1:]))
        a = creation.generator().normal(0.0, 1.0, (max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return (self.gain * q).reshape(shape).astype(dtype)


class Dirac(Initializer):
    """Convolution weights [out, in, k...] that pass each of the first min(out / groups, in)
    input channels of a group through unchanged (a 1 at the kernel's centre)."""

    def __init__(self, groups: int = 1, name: str | None = None) -> None:
        self.groups = groups

    def _values(self, shape, dtype):
        if len(shape) not in (3, 4, 5) or shape[0] % self.groups:
            raise ValueError(f"Dirac: needs a 3-D to 5-D conv weight whose out channels "
                             f"divide into {self.groups} groups, got shape {list(shape)}")
        out = np.zeros(shape, dtype)
        per = shape[0] // self.groups
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(self.groups):
            for i in range(min(per, shape[1])):
                out[(g * per + i, i) + centre] = 1
        return out


class Bilinear(Initializer):
    """A (K, K) bilinear interpolation kernel in every [out, in] slot of a 4-D weight
    [C_out, C_in, K, K]: a stride-f Conv2DTranspose with K = 2f - f % 2 then upsamples by f.

    As Paddle's docs describe. Paddle 3.3.1 computes its row index as `(i / K) % K` with a
    true division, so its kernels are lopsided (K=4: first row [0.0625, 0.28125, 0.375,
    0.15625], a -0.03125 in the corner) where the bilinear kernel is the outer product of
    [0.25, 0.75, 0.75, 0.25]."""

    def __init__(self, name: str | None = None) -> None:
        pass

    def _values(self, shape, dtype):
        if len(shape) != 4:
            raise ValueError(f"Bilinear: the weight must be 4-D [C_out, C_in, K, K], got "
                             f"shape {list(shape)}")
        if shape[2] != shape[3]:
            raise ValueError(f"Bilinear: the kernel must be square (shape[2] == shape[3]), "
                             f"got shape {list(shape)}")
        size = shape[3]
        f = math.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        taps = 1 - np.abs(np.arange(size) / f - c)
        kernel = np.outer(taps, taps).astype(np.float32)
        return np.broadcast_to(kernel, shape).astype(dtype)


_global: dict = {"weight": None, "bias": None}


def set_global_initializer(weight_init: Initializer | None,
                           bias_init: Initializer | None = None) -> None:
    """The initializers later parameters use when their ParamAttr names none (None resets)."""
    _global["weight"], _global["bias"] = weight_init, bias_init


def global_initializer(is_bias: bool) -> Initializer | None:
    return _global["bias" if is_bias else "weight"]


# Paddle's older names
ConstantInitializer, UniformInitializer, NormalInitializer = Constant, Uniform, Normal
TruncatedNormalInitializer, NumpyArrayInitializer = TruncatedNormal, Assign
XavierInitializer, MSRAInitializer = XavierUniform, KaimingNormal


class ParamAttr:
    """Paddle's ParamAttr: an initializer, a trainable flag and a name; learning_rate (a
    factor on the optimizer's rate), regularizer (L1Decay / L2Decay, replacing the
    optimizer's weight_decay for this parameter) and need_clip (False: grad_clip leaves the
    parameter out) reach the optimizers through the Parameter."""

    def __init__(self, name: str | None = None, initializer: Initializer | None = None,
                 learning_rate: float = 1.0, regularizer: object = None, trainable: bool = True,
                 do_model_average: bool = True, need_clip: bool = True) -> None:
        self.name, self.initializer, self.trainable = name, initializer, trainable
        self.learning_rate, self.regularizer = learning_rate, regularizer
        self.do_model_average, self.need_clip = do_model_average, need_clip


def as_param_attr(attr: Any) -> Any:
    """A weight_attr / bias_attr / attr argument as a ParamAttr, as Paddle's ParamAttr._to_attr
    reads it: a name (str), an initializer or a regularizer (L1Decay / L2Decay) on its own
    stands for a ParamAttr with just that; None and True for the defaults (None); False (no
    parameter) and a ParamAttr are returned as they are. Anything else raises TypeError (it
    was ignored silently, a regularizer included)."""
    from ..regularizer import WeightDecayRegularizer
    if attr is None or attr is False or isinstance(attr, ParamAttr):
        return attr
    if attr is True:
        return None
    if isinstance(attr, str):
        return ParamAttr(name=attr)
    if isinstance(attr, Initializer):
        return ParamAttr(initializer=attr)
    if isinstance(attr, WeightDecayRegularizer):
        return ParamAttr(regularizer=attr)
    raise TypeError(f"a parameter attribute must be a ParamAttr, a name (str), an "
                    f"initializer, a regularizer, a bool or None, got {type(attr).__name__} "
                    f"{attr!r}")
