"""In-place forms whose result may change x's shape or dtype (squeeze_, cast_, equal_ ...),
random fills (normal_, uniform_ ...), and the in-place forms of ops added after
ops/inplace.py (gcd_, ldexp_ ...). The rules are ops/inplace.py's: a leaf that needs a
gradient is refused while grad mode is on, a recorded change rebinds x (readers of the old
version reach its node through a stand-in), and x's version goes up.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

import numpy as np

from ..core.tensor import Tensor
from . import bessel as BE
from . import bitwise as BW
from . import elementwise as E
from . import more_indexing as MI
from . import more_manipulation as MM
from . import more_math as MA
from . import search as SE
from . import shape as SH
from . import special as SP
from .creation import generator
from .inplace import _method, bump, check_inplace, inplace, rebind, stand_in


def become(x: Tensor, fn: Callable[[Tensor], Tensor], opname: str) -> Tensor:
    """x = fn(x) in place, x taking the result's shape and dtype too. A result with no graph
    (a comparison, a cast to int, random values) leaves a non-leaf x a constant."""
    check_inplace(x, opname)
    shadow = stand_in(x)
    new = fn(shadow)
    if not isinstance(new, Tensor):
        raise TypeError(f"{opname} produced {type(new).__name__}, not a Tensor")
    if new._node is not None:
        return rebind(x, shadow, new, keep_dtype=False)
    if x._node is not None:             # readers of the old value reach its node (rebind)
        x._node.out_ref = weakref.ref(shadow)
        shadows = getattr(x, "_shadows", None)
        if shadows is None:
            x._shadows = shadows = {}
        shadows[x._version] = shadow
        x._node, x._stop_gradient = None, True
    x._data = new._data
    bump(x)
    return x


def _changing(fn: Callable, name: str) -> Callable:
    return _method(fn, name, become, "x takes the result (its shape and dtype too)")


# ---- random fills: x's values replaced by samples of x's shape and dtype -------------------

def _fill(x: Tensor, sample: Callable[[np.random.Generator, tuple], np.ndarray],
          name: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} needs a jitgrad Tensor, got {type(x).__name__}")
    values = np.asarray(sample(generator(), x._data.shape)).astype(x._data.dtype)
    return become(x, lambda s: Tensor._make(values), name)


def _value(v: Any) -> Any:
    return v._data if isinstance(v, Tensor) else v


def normal_(x: Tensor, mean: float = 0.0, std: float = 1.0, name: str | None = None) -> Tensor:
    return _fill(x, lambda g, s: g.normal(mean, std, s), "normal_")


def uniform_(x: Tensor, min: float = 0.0, max: float = 1.0, seed: int = 0,
             name: str | None = None) -> Tensor:
    if min > max:
        raise ValueError(f"uniform_: min ({min}) is larger than max ({max})")
    return _fill(x, lambda g, s: g.uniform(min, max, s), "uniform_")


def exponential_(x: Tensor, lam: float = 1.0, name: str | None = None) -> Tensor:
    if not lam > 0:
        raise ValueError(f"exponential_: lam must be positive, got {lam!r}")
    return _fill(x, lambda g, s: g.exponential(1.0 / lam, s), "exponential_")


def bernoulli_(x: Tensor, p: Any = 0.5, name: str | None = None) -> Tensor:
    pv = np.asarray(_value(p), np.float64)
    if ((pv < 0) | (pv > 1)).any():
        raise ValueError(f"bernoulli_: p must be in [0, 1], got {p!r}")
    return _fill(x, lambda g, s: g.random(s) < pv, "bernoulli_")


def geometric_(x: Tensor, probs: Any, name: str | None = None) -> Tensor:
    pv = np.asarray(_value(probs), np.float64)
    if ((pv <= 0) | (pv > 1)).any():
        raise ValueError(f"geometric_: probs must be in (0, 1], got {probs!r}")
    return _fill(x, lambda g, s: g.geometric(np.broadcast_to(pv, s)), "geometric_")


def cauchy_(x: Tensor, loc: float = 0, scale: float = 1, name: str | None = None) -> Tensor:
    return _fill(x, lambda g, s: loc + scale * g.standard_cauchy(s), "cauchy_")


def log_normal_(x: Tensor, mean: float = 1.0, std: float = 2.0,
                name: str | None = None) -> Tensor:
    return _fill(x, lambda g, s: np.exp(g.normal(mean, std, s)), "log_normal_")


def random_(x: Tensor, from_: int = 0, to: int | None = None, *,
            generator: Any = None) -> Tensor:
    """Integers in [from_, to) (to None: up to the largest integer x's dtype holds exactly)."""
    dt = x._data.dtype
    if to is None:
        to = 2 ** (np.finfo(dt).nmant + 1) if dt.kind == "f" else int(np.iinfo(dt).max)
    if to <= from_:
        raise ValueError(f"random_: to ({to}) must be larger than from_ ({from_})")
    return _fill(x, lambda g, s: g.integers(from_, to, s), "random_")


def increment(x: Tensor, value: float = 1.0, name: str | None = None) -> Tensor:
    """x += value in place (Paddle's increment, for a counter): returns x."""
    if not isinstance(x, Tensor):
        raise TypeError(f"increment needs a jitgrad Tensor, got {type(x).__name__}")
    return inplace(x, lambda s: E.add(s, value), "increment")


def where_(condition: Any, x: Tensor, y: Any, name: str | None = None) -> Tensor:
    """x = where(condition, x, y), in place."""
    return inplace(x, lambda s: E.where(condition, s, y), "where_")


MORE_INPLACE: dict[str, Callable] = {
    name + "_": _changing(fn, name + "_") for name, fn in {
        "squeeze": SH.squeeze, "unsqueeze": SH.unsqueeze, "reshape": SH.reshape,
        "flatten": SH.flatten, "t": SH.t, "transpose": SH.transpose, "cast": E.astype,
        "equal": SE.equal, "not_equal": SE.not_equal, "greater_equal": SE.greater_equal,
        "greater_than": SE.greater_than, "less_equal": SE.less_equal,
        "less_than": SE.less_than, "less": SE.less_than, "logical_and": SE.logical_and,
        "logical_or": SE.logical_or, "logical_xor": SE.logical_xor,
        "logical_not": SE.logical_not, "bitwise_and": SE.bitwise_and,
        "bitwise_or": SE.bitwise_or, "bitwise_xor": SE.bitwise_xor,
        "bitwise_not": BW.bitwise_not, "bitwise_invert": BW.bitwise_invert,
        "bitwise_left_shift": BW.bitwise_left_shift,
        "bitwise_right_shift": BW.bitwise_right_shift,
    }.items()}
MORE_INPLACE.update({name + "_": _method(fn, name + "_") for name, fn in {
    "gcd": MA.gcd, "lcm": MA.lcm, "ldexp": MA.ldexp, "copysign": MA.copysign,
    "baddbmm": MA.baddbmm, "multigammaln": MA.multigammaln, "index_put": MM.index_put,
    "masked_scatter": MM.masked_scatter, "scatter_add": MM.scatter_add,
    "i0": BE.i0, "gammainc": SP.gammainc, "gammaincc": SP.gammaincc,
}.items()})
MORE_INPLACE.update(fill_diagonal_=MI.fill_diagonal_,
                    fill_diagonal_tensor_=MI.fill_diagonal_tensor_)
MORE_INPLACE.update(normal_=normal_, uniform_=uniform_, exponential_=exponential_,
                    bernoulli_=bernoulli_, geometric_=geometric_, cauchy_=cauchy_,
                    log_normal_=log_normal_, random_=random_, where_=where_,
                    increment=increment)
# (Paddle 3.3.1 has these as Tensor methods only)
METHOD_ONLY = ("uniform_", "exponential_", "random_", "fill_diagonal_", "fill_diagonal_tensor_")
