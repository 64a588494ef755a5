"""Bijections for TransformedDistribution, as paddle.distribution.transform: Transform,
AbsTransform, AffineTransform, ChainTransform, ExpTransform, IndependentTransform,
PowerTransform, ReshapeTransform, SigmoidTransform, SoftmaxTransform, StackTransform,
StickBreakingTransform, TanhTransform."""

from __future__ import annotations

import enum
import math
from typing import Any, Sequence

import numpy as np

from . import _ops as P
from ..core.tensor import Tensor
from .bernoulli import softplus

__all__ = ["Transform", "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform",
           "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "TanhTransform"]


class Type(enum.Enum):
    BIJECTION = "bijection"
    INJECTION = "injection"
    SURJECTION = "surjection"
    OTHER = "other"

    @classmethod
    def is_injective(cls, _type: "Type") -> bool:
        return _type in (cls.BIJECTION, cls.INJECTION)


class _Domain:
    """A transform's domain or codomain: here only its event rank matters."""

    def __init__(self, event_rank: int = 0) -> None:
        self.event_rank = event_rank


_REAL = _Domain(0)


def _sum_rightmost(value: Any, n: int) -> Any:
    return value.sum(list(range(-n, 0))) if n > 0 else value


def _need_tensor(x: Any, what: str, cls: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{cls}: {what} must be a Tensor, got {type(x).__name__}")


class Transform:
    """Base class: forward/inverse maps, their log-det-Jacobians and shapes."""
    _type = Type.INJECTION

    @classmethod
    def _is_injective(cls) -> bool:
        return Type.is_injective(cls._type)

    def __call__(self, input: Any) -> Any:
        from .base import Distribution
        from .transformed_distribution import TransformedDistribution
        if isinstance(input, Distribution):
            return TransformedDistribution(input, [self])
        if isinstance(input, Transform):
            return ChainTransform([self, input])
        return self.forward(input)

    def _check(self, x: Any, what: str, rank: int) -> None:
        _need_tensor(x, what, type(self).__name__)
        if x.ndim < rank:
            raise ValueError(f"{type(self).__name__}: {what} has {x.ndim} dimensions, needs at "
                             f"least {rank}")

    def forward(self, x: Tensor) -> Tensor:
        self._check(x, "x", self._domain.event_rank)
        return self._forward(x)

    def inverse(self, y: Tensor) -> Tensor:
        self._check(y, "y", self._codomain.event_rank)
        return self._inverse(y)

    def forward_log_det_jacobian(self, x: Tensor) -> Tensor:
        self._check(x, "x", self._domain.event_rank)
        if not self._is_injective():
            raise NotImplementedError(f"{type(self).__name__} is not injective: it has no "
                                      f"forward_log_det_jacobian")
        return self._call_forward_log_det_jacobian(x)

    def inverse_log_det_jacobian(self, y: Tensor) -> Tensor:
        self._check(y, "y", self._codomain.event_rank)
        return self._call_inverse_log_det_jacobian(y)

    def forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"shape must be a list or tuple of ints, got {type(shape).__name__}")
        return self._forward_shape(shape)

    def inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"shape must be a list or tuple of ints, got {type(shape).__name__}")
        return self._inverse_shape(shape)

    @property
    def _domain(self) -> _Domain:
        return _REAL

    @property
    def _codomain(self) -> _Domain:
        return _REAL

    def _forward(self, x: Tensor) -> Tensor:
        raise NotImplementedError("Forward not implemented")

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError("Inverse not implemented")

    def _call_forward_log_det_jacobian(self, x: Tensor) -> Tensor:
        if hasattr(self, "_forward_log_det_jacobian"):
            return self._forward_log_det_jacobian(x)
        if hasattr(self, "_inverse_log_det_jacobian"):
            return -self._inverse_log_det_jacobian(self.forward(x))
        raise NotImplementedError("neither _forward_log_det_jacobian nor "
                                  "_inverse_log_det_jacobian is implemented")

    def _call_inverse_log_det_jacobian(self, y: Tensor) -> Tensor:
        if hasattr(self, "_inverse_log_det_jacobian"):
            return self._inverse_log_det_jacobian(y)
        if hasattr(self, "_forward_log_det_jacobian"):
            return -self._forward_log_det_jacobian(self._inverse(y))
        raise NotImplementedError("neither _forward_log_det_jacobian nor "
                                  "_inverse_log_det_jacobian is implemented")

    def _forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return shape

    def _inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return shape


class AbsTransform(Transform):
    """y = |x| (a surjection: inverse gives both preimages)."""
    _type = Type.SURJECTION

    def _forward(self, x: Tensor) -> Tensor:
        return x.abs()

    def _inverse(self, y: Tensor) -> tuple:
        return -y, y

    def _inverse_log_det_jacobian(self, y: Tensor) -> tuple:
        zero = P.zeros([], dtype=y.dtype)
        return zero, zero


class AffineTransform(Transform):
    """y = loc + scale * x (loc, scale: Tensors)."""
    _type = Type.BIJECTION

    def __init__(self, loc: Tensor, scale: Tensor) -> None:
        _need_tensor(loc, "loc", "AffineTransform")
        _need_tensor(scale, "scale", "AffineTransform")
        self._loc, self._scale = loc, scale

    @property
    def loc(self) -> Tensor:
        return self._loc

    @property
    def scale(self) -> Tensor:
        return self._scale

    def _forward(self, x: Tensor) -> Tensor:
        return self._loc + self._scale * x

    def _inverse(self, y: Tensor) -> Tensor:
        return (y - self._loc) / self._scale

    def _forward_log_det_jacobian(self, x: Tensor) -> Tensor:
        return P.abs(self._scale).log()

    def _forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return tuple(np.broadcast_shapes(tuple(shape), tuple(self._loc.shape),
                                         tuple(self._scale.shape)))

    _inverse_shape = _forward_shape


class ChainTransform(Transform):
    """The composition transforms[-1] o ... o transforms[0]."""

    def __init__(self, transforms: Sequence[Transform]) -> None:
        if not isinstance(transforms, (list, tuple)):
            raise TypeError(f"ChainTransform: transforms must be a list or tuple, got "
                            f"{type(transforms).__name__}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("ChainTransform: every element of transforms must be a Transform")
        self.transforms = transforms

    def _is_injective(self) -> bool:
        return all(t._is_injective() for t in self.transforms)

    def _forward(self, x: Tensor) -> Tensor:
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y: Tensor) -> Tensor:
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x: Tensor) -> Any:
        value = 0.0
        event_rank = self._domain.event_rank
        for t in self.transforms:
            value = value + _sum_rightmost(t.forward_log_det_jacobian(x),
                                           event_rank - t._domain.event_rank)
            x = t.forward(x)
            event_rank += t._codomain.event_rank - t._domain.event_rank
        return value

    def _forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        for t in self.transforms:
            shape = t.inverse_shape(shape)
        return shape

    @property
    def _domain(self) -> _Domain:
        if not self.transforms:
            return _REAL
        rank = self.transforms[-1]._codomain.event_rank
        for t in reversed(self.transforms):
            rank -= t._codomain.event_rank - t._domain.event_rank
            rank = max(rank, t._domain.event_rank)
        return _Domain(rank)

    @property
    def _codomain(self) -> _Domain:
        if not self.transforms:
            return _REAL
        rank = self.transforms[0]._domain.event_rank
        for t in self.transforms:
            rank += t._codomain.event_rank - t._domain.event_rank
            rank = max(rank, t._codomain.event_rank)
        return _Domain(rank)


class ExpTransform(Transform):
    """y = exp(x)."""
    _type = Type.BIJECTION

    def _forward(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def _forward_log_det_jacobian(self, x: Tensor) -> Tensor:
        return x


class IndependentTransform(Transform):
    """base applied elementwise, its rightmost reinterpreted_batch_rank dimensions made event
    dimensions (the log-det-Jacobian sums over them)."""

    def __init__(self, base: Transform, reinterpreted_batch_rank: int) -> None:
        if not isinstance(base, Transform):
            raise TypeError(f"IndependentTransform: base must be a Transform, got "
                            f"{type(base).__name__}")
        if reinterpreted_batch_rank <= 0:
            raise ValueError(f"IndependentTransform: reinterpreted_batch_rank must be > 0, got "
                             f"{reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank

    def _is_injective(self) -> bool:
        return self._base._is_injective()

    def _forward(self, x: Tensor) -> Tensor:
        return self._base.forward(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x: Tensor) -> Tensor:
        return self._base.forward_log_det_jacobian(x).sum(
            list(range(-self._reinterpreted_batch_rank, 0)))

    def _forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return self._base.forward_shape(shape)

    def _inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return self._base.inverse_shape(shape)

    @property
    def _domain(self) -> _Domain:
        return _Domain(self._base._domain.event_rank + self._reinterpreted_batch_rank)

    @property
    def _codomain(self) -> _Domain:
        return _Domain(self._base._codomain.event_rank + self._reinterpreted_batch_rank)


class PowerTransform(Transform):
    """y = x ** power (power: a Tensor)."""
    _type = Type.BIJECTION

    def __init__(self, power: Tensor) -> None:
        _need_tensor(power, "power", "PowerTransform")
        self._power = power

    @property
    def power(self) -> Tensor:
        return self._power

    def _forward(self, x: Tensor) -> Tensor:
        return x.pow(self._power)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.pow(1 / self._power)

    def _forward_log_det_jacobian(self, x: Tensor) -> Tensor:
        return (self._power * x.pow(self._power - 1)).abs().log()

    def _forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return tuple(np.broadcast_shapes(tuple(shape), tuple(self._power.shape)))

    _inverse_shape = _forward_shape


def _numel(shape: Sequence[int]) -> int:
    n = 1
    for e in shape:
        n *= e
    return n


class ReshapeTransform(Transform):
    """Reshapes the rightmost dimensions from in_event_shape to out_event_shape (same number
    of elements); its log-det-Jacobian is 0."""
    _type = Type.BIJECTION

    def __init__(self, in_event_shape: Sequence[int], out_event_shape: Sequence[int]) -> None:
        if not isinstance(in_event_shape, (list, tuple)) or \
                not isinstance(out_event_shape, (list, tuple)):
            raise TypeError(f"ReshapeTransform: in_event_shape and out_event_shape must be "
                            f"sequences of ints, got {in_event_shape!r} and "
                            f"{out_event_shape!r}")
        if _numel(in_event_shape) != _numel(out_event_shape):
            raise ValueError(f"ReshapeTransform: in_event_shape {list(in_event_shape)} and "
                             f"out_event_shape {list(out_event_shape)} hold different numbers "
                             f"of elements ({_numel(in_event_shape)} != "
                             f"{_numel(out_event_shape)})")
        self._in_event_shape = tuple(in_event_shape)
        self._out_event_shape = tuple(out_event_shape)

    @property
    def in_event_shape(self) -> tuple:
        return self._in_event_shape

    @property
    def out_event_shape(self) -> tuple:
        return self._out_event_shape

    @property
    def _domain(self) -> _Domain:
        return _Domain(len(self._in_event_shape))

    @property
    def _codomain(self) -> _Domain:
        return _Domain(len(self._out_event_shape))

    def _forward(self, x: Tensor) -> Tensor:
        lead = tuple(x.shape)[:x.ndim - len(self._in_event_shape)]
        return x.reshape(list(lead + self._out_event_shape))

    def _inverse(self, y: Tensor) -> Tensor:
        lead = tuple(y.shape)[:y.ndim - len(self._out_event_shape)]
        return y.reshape(list(lead + self._in_event_shape))

    @staticmethod
    def _swap(shape: Sequence[int], old: tuple, new: tuple) -> tuple:
        if len(shape) < len(old):
            raise ValueError(f"ReshapeTransform: shape {list(shape)} has fewer than {len(old)} "
                             f"dimensions")
        if tuple(shape[len(shape) - len(old):]) != old:
            raise ValueError(f"ReshapeTransform: event shape mismatch, expected {list(old)}, "
                             f"got {list(shape[len(shape) - len(old):])}")
        return tuple(shape[:len(shape) - len(old)]) + new

    def _forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return self._swap(shape, self._in_event_shape, self._out_event_shape)

    def _inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return self._swap(shape, self._out_event_shape, self._in_event_shape)

    def _forward_log_det_jacobian(self, x: Tensor) -> Tensor:
        return P.zeros(list(x.shape[:x.ndim - len(self._in_event_shape)]), dtype=x.dtype)


class SigmoidTransform(Transform):
    """y = sigmoid(x)."""

    def _forward(self, x: Tensor) -> Tensor:
        return P.sigmoid(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log() - (-y).log1p()

    def _forward_log_det_jacobian(self, x: Tensor) -> Tensor:
        return -softplus(-x) - softplus(x)


class SoftmaxTransform(Transform):
    """y = softmax(x) over the last axis (not injective: no log-det-Jacobian); inverse
    log(y), one of the preimages."""
    _type = Type.OTHER

    @property
    def _domain(self) -> _Domain:
        return _Domain(1)

    @property
    def _codomain(self) -> _Domain:
        return _Domain(1)

    def _forward(self, x: Tensor) -> Tensor:
        # (each row's own maximum: Paddle 3.3.1 subtracts the first row's, which overflows
        # to NaN for rows far above it; equal otherwise)
        e = (x - P.max(x, axis=-1, keepdim=True).detach()).exp()
        return e / e.sum(-1, keepdim=True)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def _forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        if len(shape) < 1:
            raise ValueError(f"SoftmaxTransform: shape needs at least one dimension, got "
                             f"{list(shape)}")
        return shape

    _inverse_shape = _forward_shape


class StackTransform(Transform):
    """transforms[i] applied to the i-th slice of x along axis (x.shape[axis] ==
    len(transforms))."""

    def __init__(self, transforms: Sequence[Transform], axis: int = 0) -> None:
        if not transforms or not isinstance(transforms, (list, tuple)):
            raise TypeError(f"StackTransform: transforms must be a non-empty sequence of "
                            f"Transforms, got {type(transforms).__name__}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("StackTransform: every element of transforms must be a Transform")
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"StackTransform: axis must be an int, got {type(axis).__name__}")
        self._transforms = transforms
        self._axis = axis

    def _is_injective(self) -> bool:
        return all(t._is_injective() for t in self._transforms)

    @property
    def transforms(self) -> Sequence[Transform]:
        return self._transforms

    @property
    def axis(self) -> int:
        return self._axis

    def _map(self, v: Tensor, method: str) -> Tensor:
        self._check_size(v)
        parts = P.unstack(v, self._axis)
        return P.stack([getattr(t, method)(p) for p, t in zip(parts, self._transforms)],
                       self._axis)

    def _forward(self, x: Tensor) -> Tensor:
        return self._map(x, "forward")

    def _inverse(self, y: Tensor) -> Tensor:
        return self._map(y, "inverse")

    def _forward_log_det_jacobian(self, x: Tensor) -> Tensor:
        return self._map(x, "forward_log_det_jacobian")

    def _check_size(self, v: Tensor) -> None:
        if not -v.ndim <= self._axis < v.ndim:
            raise ValueError(f"StackTransform: input has {v.ndim} dimensions, too few for "
                             f"axis {self._axis}")
        if v.shape[self._axis] != len(self._transforms):
            raise ValueError(f"StackTransform: input size {v.shape[self._axis]} along axis "
                             f"{self._axis} differs from the number of transforms "
                             f"({len(self._transforms)})")

    def _stack_rank(self, ranks: list) -> int:
        rank = max(ranks)
        return rank + 1 if self._axis + rank < 0 else rank

    @property
    def _domain(self) -> _Domain:
        return _Domain(self._stack_rank([t._domain.event_rank for t in self._transforms]))

    @property
    def _codomain(self) -> _Domain:
        return _Domain(self._stack_rank([t._codomain.event_rank for t in self._transforms]))


def _log_sigmoid(x: Tensor) -> Tensor:
    return -softplus(-x)


class StickBreakingTransform(Transform):
    """The stick-breaking map from R^K onto the (K+1)-simplex:
    z_i = sigmoid(x_i - log(K + 1 - i)), y_i = z_i prod_{j<i} (1 - z_j), y_K = prod (1 - z)."""
    _type = Type.BIJECTION

    @staticmethod
    def _offset(n: int, like: Tensor) -> Tensor:
        return P.to_tensor(np.arange(n, 0, -1, dtype=np.dtype(str(like._data.dtype))))

    def _forward(self, x: Tensor) -> Tensor:
        z = P.sigmoid(x - self._offset(x.shape[-1], x).log())
        z_cumprod = (1 - z).cumprod(-1)
        ones = P.ones(list(x.shape[:-1]) + [1], dtype=x.dtype)
        return P.concat([z, ones], -1) * P.concat([ones, z_cumprod], -1)

    def _inverse(self, y: Tensor) -> Tensor:
        y_crop = y[..., :-1]
        sf = 1 - y_crop.cumsum(-1)
        return y_crop.log() - sf.log() + self._offset(y.shape[-1] - 1, y).log()

    def _forward_log_det_jacobian(self, x: Tensor) -> Tensor:
        y = self.forward(x)
        x = x - self._offset(x.shape[-1], x).log()
        return (-x + _log_sigmoid(x) + y[..., :-1].log()).sum(-1)

    def _forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        if not shape:
            raise ValueError(f"StickBreakingTransform: shape must not be empty, got {shape!r}")
        return (*shape[:-1], shape[-1] + 1)

    def _inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        if not shape:
            raise ValueError(f"StickBreakingTransform: shape must not be empty, got {shape!r}")
        return (*shape[:-1], shape[-1] - 1)

    @property
    def _domain(self) -> _Domain:
        return _Domain(1)

    @property
    def _codomain(self) -> _Domain:
        return _Domain(1)


class TanhTransform(Transform):
    """y = tanh(x)."""
    _type = Type.BIJECTION

    def _forward(self, x: Tensor) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.atanh()

    def _forward_log_det_jacobian(self, x: Tensor) -> Tensor:
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))
