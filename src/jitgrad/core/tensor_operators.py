"""Tensor's operators: arithmetic (x + y, x @ w, x[i]) forwards to the op functions, which
jitgrad.ops hands over at import (`OPS`; the core never imports the ops) and then binds
straight onto the class (tensor.bind_operators); comparisons and &, |, ^, ~ give bool or
integer tensors, which have no gradient, directly from numpy."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import dtypes

OPS: Any = None      # the jitgrad.ops module, set by it at import


def _tensor(data: np.ndarray) -> Any:
    from .tensor import Tensor
    return Tensor._make(data)


class TensorOperators:
    """The operator half of Tensor (a base class with no state of its own)."""

    __slots__ = ()

    def __getitem__(self, key: Any) -> Any:
        return OPS.getitem(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        OPS.setitem(self, key, value)

    def __neg__(self) -> Any:
        return OPS.neg(self)

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return OPS.abs(self)

    def __add__(self, o: Any) -> Any:
        return OPS.add(self, o)

    def __radd__(self, o: Any) -> Any:
        return OPS.add(o, self)

    def __sub__(self, o: Any) -> Any:
        return OPS.subtract(self, o)

    def __rsub__(self, o: Any) -> Any:
        return OPS.subtract(o, self)

    def __mul__(self, o: Any) -> Any:
        return OPS.multiply(self, o)

    def __rmul__(self, o: Any) -> Any:
        return OPS.multiply(o, self)

    def __truediv__(self, o: Any) -> Any:
        return OPS.divide(self, o)

    def __rtruediv__(self, o: Any) -> Any:
        return OPS.divide(o, self)

    def __floordiv__(self, o: Any) -> Any:
        return OPS.floor_divide(self, o)        # no gradient, as Paddle's floor_divide

    def __rfloordiv__(self, o: Any) -> Any:
        return OPS.floor_divide(o, self)

    def __mod__(self, o: Any) -> Any:
        return OPS.remainder(self, o)           # the sign of the divisor, as Paddle

    def __rmod__(self, o: Any) -> Any:
        return OPS.remainder(o, self)

    def __pow__(self, o: Any) -> Any:
        return OPS.power(self, o)       # (x ** 2.9 of an int x is float32: paddle.pow's
        #                                 truncated exponent is the function's, as Paddle)

    def __rpow__(self, o: Any) -> Any:
        return OPS.power(o, self)

    def __matmul__(self, o: Any) -> Any:
        return OPS.matmul(self, o)

    def __rmatmul__(self, o: Any) -> Any:
        return OPS.matmul(o, self)

    def _bitwise(self, o: Any, fn: Callable, sym: str) -> Any:
        """&, |, ^ on bool tensors (logical) and integer ones (bitwise), as Paddle."""
        other = o._data if isinstance(o, TensorOperators) else np.asarray(o)
        for a in (self._data, other):
            if a.dtype.kind not in "biu":
                raise TypeError(f"`{sym}` needs bool or integer tensors, got {a.dtype.name} "
                                "(compare first, or cast with .astype('bool'))")
        _same_kind(self, o)
        return _tensor(np.asarray(fn(self._data, other)))

    def __and__(self, o: Any) -> Any:
        return self._bitwise(o, np.bitwise_and, "&")

    __rand__ = __and__

    def __or__(self, o: Any) -> Any:
        return self._bitwise(o, np.bitwise_or, "|")

    __ror__ = __or__

    def __xor__(self, o: Any) -> Any:
        return self._bitwise(o, np.bitwise_xor, "^")

    __rxor__ = __xor__

    def __invert__(self) -> Any:
        if self._data.dtype.kind not in "biu":
            raise TypeError(f"`~` needs a bool or integer tensor, got {self._data.dtype.name}")
        return _tensor(np.invert(self._data))

    def _compare(self, o: Any, fn: Callable) -> Any:
        if not isinstance(o, _COMPARABLE):
            # None, a list, tuple, dict, ...: not compared element by element, as in
            # Paddle 3.3.1 and torch: x == None is False, x != [1, 2] True (Python's
            # fallback), x < None a TypeError
            return NotImplemented
        _same_kind(self, o)
        other = o._data if isinstance(o, TensorOperators) else \
            dtypes.number_operand(self._data.dtype, o)
        return _tensor(np.asarray(fn(self._data, other)))

    def __eq__(self, o: Any) -> Any:  # type: ignore[override]
        return self._compare(o, np.equal)

    def __ne__(self, o: Any) -> Any:  # type: ignore[override]
        return self._compare(o, np.not_equal)

    def __lt__(self, o: Any) -> Any:
        return self._compare(o, np.less)

    def __le__(self, o: Any) -> Any:
        return self._compare(o, np.less_equal)

    def __gt__(self, o: Any) -> Any:
        return self._compare(o, np.greater)

    def __ge__(self, o: Any) -> Any:
        return self._compare(o, np.greater_equal)


# what a comparison takes as its other operand (a bool is an int)
_COMPARABLE = (TensorOperators, int, float, complex, np.ndarray, np.generic)


def _same_kind(x: Any, o: Any) -> None:
    """Comparisons and &, |, ^ between two tensors: dtypes.check_combinable."""
    if isinstance(o, TensorOperators):
        dtypes.check_combinable(x._data, o._data)
