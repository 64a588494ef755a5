"""In-place forms whose result may change x's shape or dtype (squeeze_, cast_, equal_ ...),
random fills (normal_, uniform_ ...), and the in-place forms of ops added after
ops/inplace.py (gcd_, ldexp_ ...). The rules are ops/inplace.py's: a leaf that needs a
gradient is refused while grad mode is on, a recorded change rebinds x (readers of the old
version reach its node through a stand-in), and x's version goes up.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core import dtypes
from ..core.tensor import Tensor
from . import bessel as BE
from . import bitwise as BW
from . import elementwise as E
from . import indexing as IX
from . import more_indexing as MI
from . import more_manipulation as MM
from . import more_math as MA
from . import scan as SC
from . import search as SE
from . import shape as SH
from . import special as SP
from .core import checks_own_tensor_args
from .creation import generator
from .inplace import (
    Y,
    _method,
    check_broadcast,
    check_inplace,
    inplace,
    more_versions,
    stand_in,
    take_result,
)


def become(x: Tensor, fn: Callable[[Tensor], Tensor], opname: str) -> Tensor:
    """x = fn(x) in place, x taking the result's shape and dtype too. A result with no graph
    (a comparison, a cast to int, random values) leaves a non-leaf x a constant."""
    check_inplace(x, opname)
    shadow = stand_in(x)
    new = fn(shadow)
    if not isinstance(new, Tensor):
        raise TypeError(f"{opname} produced {type(new).__name__}, not a Tensor")
    return take_result(x, shadow, new)


def _changing(fn: Callable, name: str, operands: tuple = ()) -> Callable:
    return _method(fn, name, become, "x takes the result (its shape and dtype too)",
                   operands=operands)


# ---- random fills: x's values replaced by samples of x's shape and dtype -------------------

def _fill(x: Tensor, sample: Callable[[np.random.Generator, tuple], np.ndarray],
          name: str, versions: int = 1) -> Tensor:
    """x's values replaced by samples; `versions`: the in-place steps Paddle counts (its
    cauchy_ is normal_ then five in-place arithmetic steps: 6)."""
    _check_fill_dtype(x, name)
    values = np.asarray(sample(generator(), x._data.shape)).astype(x._data.dtype)
    node = x._node
    become(x, lambda s: Tensor._make(values), name)
    more_versions(x, versions - 1, node)
    return x


def _check_fill_dtype(x: Any, name: str) -> None:
    """The random fills take float tensors (random_ integer ones too): Paddle 3.3.1 has no
    kernel for the others, and their samples were truncated here (uniform_ gave zeros)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} needs a jitgrad Tensor, got {type(x).__name__}")
    kind = x._data.dtype.kind
    if kind == "f" or name == "random_" and kind in "iu":
        return
    what, other = ("an integer or float", "") if name == "random_" else \
        ("a float", " or use random_ for integers")
    raise TypeError(f"{name} fills {what} tensor, got {x._data.dtype.name}; cast it first "
                    f"(x.astype('float32')){other}")


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
    return _fill(x, lambda g, s: g.random(s) < pv, "bernoulli_", 3)


def geometric_(x: Tensor, probs: Any, name: str | None = None) -> Tensor:
    pv = np.asarray(_value(probs), np.float64)
    if ((pv <= 0) | (pv > 1)).any():
        raise ValueError(f"geometric_: probs must be in (0, 1], got {probs!r}")
    return _fill(x, lambda g, s: g.geometric(np.broadcast_to(pv, s)), "geometric_", 3)


def cauchy_(x: Tensor, loc: float = 0, scale: float = 1, name: str | None = None) -> Tensor:
    return _fill(x, lambda g, s: loc + scale * g.standard_cauchy(s), "cauchy_", 6)


def log_normal_(x: Tensor, mean: float = 1.0, std: float = 2.0,
                name: str | None = None) -> Tensor:
    return _fill(x, lambda g, s: np.exp(g.normal(mean, std, s)), "log_normal_", 2)


def random_(x: Tensor, from_: int = 0, to: int | None = None, *,
            generator: Any = None) -> Tensor:
    """Integers in [from_, to) (to None: up to the largest integer x's dtype holds exactly)."""
    _check_fill_dtype(x, "random_")
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


def where_(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """x = where(condition, x, y), in place: x and y Tensors, condition a bool Tensor, none
    of them broadcasting x to a bigger shape (ValueError otherwise, as Paddle's checks)."""
    for what, v in (("x", x), ("y", y)):
        if not isinstance(v, Tensor):
            raise ValueError(f"where_: {what} must be a Tensor (x is changed in place; y "  # noqa: TRY004 (Paddle's type)
                             f"gives the values where condition is False), got "
                             f"{type(v).__name__}; for Python numbers use the out-of-place "
                             "paddle.where(condition, x, y)")
    cd = condition._data.dtype if isinstance(condition, Tensor) else np.asarray(condition).dtype
    if cd != np.bool_:
        raise ValueError(f"where_: condition must be a bool Tensor, got {cd}; compare first "
                         "(x > 0) or cast it with .astype('bool')")
    check_broadcast(x, (condition, y), "where_")
    return inplace(x, lambda s: E.where(condition, s, y), "where_")


def _want_dtype(x: Tensor, dtype: Any) -> np.dtype:
    return x._data.dtype if dtype is None else dtypes.to_dtype(dtype).np


def _scan_(x: Tensor, fn: Callable[[Tensor], Tensor], name: str, flat: bool, want: np.dtype,
           steps: int) -> Tensor:
    """cumsum_ / cumprod_: x takes the result, flattened (no axis) and of dtype `want`, as
    Paddle's (its flatten_ and cast_ are in-place steps that count in x's version)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} needs a jitgrad Tensor, got {type(x).__name__}")

    def run(s: Tensor) -> Tensor:
        out = fn(s)
        return out if out._data.dtype == want else E.astype(out, want)
    node = x._node
    same = want == x._data.dtype and not (flat and x._data.ndim != 1)
    (inplace if same else become)(x, run, name)
    more_versions(x, steps - 1, node)
    return x


def cumsum_(x: Tensor, axis: int | None = None, dtype: Any = None,
            name: str | None = None) -> Tensor:
    """Running sum in place; without an axis x is flattened (x becomes 1-D), and with a
    dtype x is cast to it first (x's dtype changes), as in Paddle."""
    want = _want_dtype(x, dtype) if isinstance(x, Tensor) else None
    steps = 1 + (isinstance(x, Tensor) and want != x._data.dtype)
    return _scan_(x, lambda s: SC.cumsum(s, axis, dtype), "cumsum_", axis is None, want, steps)


def cumprod_(x: Tensor, dim: int | None = None, dtype: Any = None,
             name: str | None = None) -> Tensor:
    """Running product in place; without dim x is flattened (x becomes 1-D), and with a
    dtype x is cast to it first (x's dtype changes), as in Paddle."""
    want = _want_dtype(x, dtype) if isinstance(x, Tensor) else None
    steps = 1 + (dim is None) + (isinstance(x, Tensor) and want != x._data.dtype)
    return _scan_(x, lambda s: SC.cumprod(s, dim, dtype), "cumprod_", dim is None, want, steps)


@checks_own_tensor_args
def ldexp_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x = x * 2**y in place. As Paddle: x is cast first to float64 (when x or y is
    float64) or else the default float dtype (x's dtype may change), and that cast counts
    as an in-place step (version + 2). A non-Tensor x or y raises TypeError with Paddle's
    wording ("x must be tensor type, but got <class 'int'>")."""
    for v, arg in ((x, "x"), (y, "y")):
        if not isinstance(v, Tensor):
            raise TypeError(f"ldexp_(): {arg} must be tensor type, but got {type(v)}; convert "
                            "it with paddle.to_tensor(...)")
    check_broadcast(x, (y,), "ldexp_")
    f64 = np.dtype(np.float64)
    want = f64 if f64 in (x._data.dtype, y._data.dtype) else dtypes.default_float().np

    def run(s: Tensor) -> Tensor:
        s = s if s._data.dtype == want else E.astype(s, want)
        yw = y if y._data.dtype == want else E.astype(y, want)
        return E.multiply(s, E.pow(Tensor._make(np.asarray(2, want)), yw))
    node = x._node
    (inplace if want == x._data.dtype else become)(x, run, "ldexp_")
    more_versions(x, 1, node)
    return x


def _gcd_steps(a: np.ndarray, b: np.ndarray) -> int:
    """How many rounds Paddle's gcd_ loop runs on |a|, |b| (each round is two where_ on x)."""
    wide = np.float64 if a.dtype.kind == "f" else np.int64     # (Paddle's float gcd too)
    x = np.abs(a.astype(wide))
    y = np.broadcast_to(np.abs(np.asarray(b).astype(wide)), x.shape)
    n = 0
    while (y != 0).any():
        n += 1
        zero = y == 0
        r = np.where(zero, 0, x % np.where(zero, 1, y))
        x2 = np.where(zero, x, y)
        x, y = np.maximum(x2, r), np.minimum(x2, r)
    return n


def gcd_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """gcd in place. x's version goes up as Paddle's does: its abs_ and two where_ per round
    of its Euclid loop."""
    check_broadcast(x, (y,), "gcd_")
    old = x._data if isinstance(x, Tensor) else None
    node = getattr(x, "_node", None)
    inplace(x, lambda s: MA.gcd(s, y), "gcd_")
    more_versions(x, 2 * _gcd_steps(old, y._data if isinstance(y, Tensor) else y), node)
    return x


def _ignoring_out(fn: Callable) -> Callable:
    """fn for an in-place form that takes out= and leaves it alone (Paddle 3.3.1's
    bitwise_left_shift_(x, y, out=o) changes x only)."""
    def run(x: Any, *args: Any, out: Any = None, **kwargs: Any) -> Any:
        return fn(x, *args, **kwargs)
    return run


_CHANGING_BINARY = ("equal", "not_equal", "greater_equal", "greater_than", "less_equal",
                    "less_than", "less", "logical_and", "logical_or", "logical_xor",
                    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                    "bitwise_right_shift")
def _resized(x: Tensor, dims: tuple[int, ...]) -> Tensor:
    """x's elements in row-major order, cut or zero-padded to prod(dims), shaped dims."""
    flat = SH.reshape_exact(x, [x._data.size])
    size, have = int(np.prod(dims, dtype=np.int64)), x._data.size
    if size <= have:
        flat = flat[:size]
    else:
        pad = Tensor._make(np.zeros(size - have, x._data.dtype))
        flat = IX.concat([flat, pad]) if have else pad
    return SH.reshape_exact(flat, list(dims))


def resize_(x: Tensor, shape: Any, fill_zero: bool = False, name: str | None = None
            ) -> Tensor:
    """x takes `shape`, keeping its first elements in row-major order (Paddle 3.3.1's
    Tensor.resize_). New elements are zeros: Paddle leaves them uninitialised unless
    fill_zero=True (README, kept differences). A recorded x passes its gradient to the
    elements kept (Paddle 3.3.1 gives a grad of the new shape to x, a wrong shape)."""
    if not isinstance(shape, (list, tuple)):
        raise ValueError(f"resize_: Input (shape) should be list or tuple but received "
                         f"{type(shape)}")
    dims = tuple(int(d.item() if isinstance(d, Tensor) else d) for d in shape)
    if any(d < 0 for d in dims):
        raise ValueError(f"resize_: each value of shape must be no less than 0, got "
                         f"{list(dims)}")
    return become(x, lambda s: _resized(s, dims), "resize_")


def set_(x: Tensor, source: Tensor | None = None, shape: Any = None, stride: Any = None,
         offset: int = 0, name: str | None = None) -> Tensor:
    """x takes source's values (or the as_strided view of them given shape, stride in
    elements and offset in bytes); without a source, x becomes empty (shape [0]). Its
    gradient then flows to source, not to x's old value (Paddle 3.3.1). x holds a copy:
    Paddle's x shares source's storage, jitgrad's tensors share none (README)."""
    if source is None:
        return become(x, lambda s: Tensor._make(np.zeros(0, x._data.dtype)), "set_")
    if not isinstance(source, Tensor):
        raise ValueError(f"set_: Input (source) should be paddle.Tensor but received "
                         f"{type(source)}")
    if source._data.dtype != x._data.dtype:
        raise TypeError(f"set_: source has dtype {source.dtype}, x has {x.dtype}: they must "
                        "match (Paddle 3.3.1 reads source's bytes as x's dtype); cast source")
    dims = list(source.shape) if shape is None else list(shape)
    if stride is None:
        stride = [int(np.prod(dims[i + 1:], dtype=np.int64)) for i in range(len(dims))]
    # (x.set_(x, shape) reads x's current value: the stand-in, not x, which is rebound)
    return become(x, lambda s: MI.as_strided(s if source is x else source, dims, list(stride),
                                             offset), "set_")


MORE_INPLACE: dict[str, Callable] = {
    name + "_": _changing(fn, name + "_", Y if name in _CHANGING_BINARY else ())
    for name, fn in {
        "squeeze": SH.squeeze, "unsqueeze": SH.unsqueeze, "reshape": SH.reshape,
        "flatten": SH.flatten, "t": SH.t, "transpose": SH.transpose, "cast": E.astype,
        "equal": SE.equal, "not_equal": SE.not_equal, "greater_equal": SE.greater_equal,
        "greater_than": SE.greater_than, "less_equal": SE.less_equal,
        "less_than": SE.less_than, "less": SE.less_than, "logical_and": SE.logical_and,
        "logical_or": SE.logical_or, "logical_xor": SE.logical_xor,
        "logical_not": SE.logical_not, "bitwise_and": SE.bitwise_and,
        "bitwise_or": SE.bitwise_or, "bitwise_xor": SE.bitwise_xor,
        "bitwise_not": BW.bitwise_not, "bitwise_invert": BW.bitwise_invert,
        "bitwise_left_shift": _ignoring_out(BW.bitwise_left_shift),
        "bitwise_right_shift": _ignoring_out(BW.bitwise_right_shift),
    }.items()}
# (Paddle counts lcm_ as 4 in-place steps, gammainc_ as 3: more_versions)
MORE_INPLACE.update({name + "_": _method(fn, name + "_", operands=Y,
                                         versions={"lcm": 4, "gammainc": 3}.get(name, 1))
                     for name, fn in {"lcm": MA.lcm, "copysign": MA.copysign,
                                      "gammainc": SP.gammainc, "gammaincc": SP.gammaincc,
                                      }.items()})
MORE_INPLACE.update({name + "_": _method(fn, name + "_") for name, fn in {
    "baddbmm": MA.baddbmm, "multigammaln": MA.multigammaln, "index_put": MM.index_put,
    "masked_scatter": MM.masked_scatter, "scatter_add": MM.scatter_add, "i0": BE.i0,
}.items()})
MORE_INPLACE.update(gcd_=gcd_, ldexp_=ldexp_, cumsum_=cumsum_, cumprod_=cumprod_)
MORE_INPLACE.update(fill_diagonal_=MI.fill_diagonal_,
                    fill_diagonal_tensor_=MI.fill_diagonal_tensor_)
MORE_INPLACE.update(normal_=normal_, uniform_=uniform_, exponential_=exponential_,
                    bernoulli_=bernoulli_, geometric_=geometric_, cauchy_=cauchy_,
                    log_normal_=log_normal_, random_=random_, where_=where_,
                    increment=increment, resize_=resize_, set_=set_)
# (Paddle 3.3.1 has these as Tensor methods only; resize_ and set_ also as
# paddle.tensor.creation's functions)
METHOD_ONLY = ("uniform_", "exponential_", "random_", "fill_diagonal_", "fill_diagonal_tensor_",
               "resize_", "set_")
