"""Paddle 3.3.1's math functions that numeric code reaches for less often (copysign, ldexp,
vecdot, baddbmm, multigammaln, pdist, combinations, histogram, gcd, frexp, ...): composites
of the ops already here, so their gradients come from those ops' rules. Each name a user
can call is listed in NAMES (ops/__init__.py exports them and binds them as Tensor methods).
Behaviours noted
"(Paddle)" were measured on Paddle 3.3.1."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from ..core import dtypes
from ..core.tensor import Tensor
from . import elementwise as E
from . import reduce as R
from .core import binary_operands, const, require_float, sum_to
from .indexing import _take
from .linalg import matmul
from .math import remainder, sign
from .shape import broadcast_to, unsqueeze
from .special import lgamma
from .stats import vector_norm

NAMES: list[str] = ["ger", "copysign", "sgn", "ldexp", "vecdot", "baddbmm", "multigammaln",
                    "histogram", "histogram_bin_edges", "histogramdd", "gcd", "lcm", "frexp",
                    "nextafter", "reduce_as", "combinations", "pdist"]


def _tensor(x: Any, fn: str, arg: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}: {arg} must be a Tensor, got {type(x).__name__}")
    return x


def copysign(x: Tensor, y: Tensor | float, name: str | None = None) -> Tensor:
    """|x| with the sign of y (-0.0 counts as negative, as IEEE). x's gradient is
    sign(x) sign(y), 0 at x = 0; y's is zeros (Paddle). A tensor y promotes as in the
    arithmetic ops (float32 x, float64 y: float64; a 0-d y counts like a number; int with
    float refused), as Paddle 3.3.1; a Python number y keeps x's dtype."""
    _tensor(x, "copysign", "x")
    if isinstance(y, Tensor):
        x, y = binary_operands(x, y, zero_dim=True)
        if x._data.dtype != y._data.dtype:          # (float tensors keep their own there)
            x = E.astype(x, np.promote_types(x._data.dtype, y._data.dtype))
    dt = x._data.dtype
    yd = y._data if isinstance(y, Tensor) else np.asarray(y)
    out = E.abs(x) * const(np.copysign(np.ones((), dt), yd).astype(dt, copy=False), dt)
    if isinstance(y, Tensor) and not y.stop_gradient:
        # y enters only as a branch where() never takes: its gradient is zeros, as Paddle's
        out = E.where(np.zeros(out._data.shape, bool), y, out)
    return out


def sgn(x: Tensor, name: str | None = None) -> Tensor:
    """sign(x) for real x (-1, 0 or 1, NaN stays), with a zero gradient (Paddle)."""
    return sign(_tensor(x, "sgn", "x"))


def ldexp(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x * 2**y. As Paddle 3.3.1, x (and a float y) are cast to float64 when x or y is
    float64, else to the default float dtype (an int or float16 x gives float32). An int or
    bool y scales exactly and gets no gradient (x's is 2**y); a float y is Paddle's
    x * pow(2, y), y's gradient x 2**y ln 2 (ldexp(7.5, 2.5) is 42.426...)."""
    _tensor(x, "ldexp", "x")
    yd = y._data if isinstance(y, Tensor) else np.asarray(y)
    if yd.dtype.kind not in "biuf":
        raise TypeError(f"ldexp: y must be a real tensor, got {yd.dtype}")
    f64 = np.dtype(np.float64)
    dt = f64 if f64 in (x._data.dtype, yd.dtype) else dtypes.default_float().np
    if x._data.dtype != dt:
        x = E.astype(x, dt)
    if yd.dtype.kind == "f":
        y = y if isinstance(y, Tensor) else Tensor._make(yd)
        return x * E.power(const(2, dt), y if yd.dtype == dt else E.astype(y, dt))
    with np.errstate(over="ignore"):                  # (2**200 in float32 is inf, as Paddle)
        scale = np.ldexp(np.ones((), dt), yd.astype(np.int32)).astype(dt, copy=False)
    return x * const(scale, dt)


def vecdot(x: Tensor, y: Tensor, axis: int = -1, name: str | None = None) -> Tensor:
    """sum(x * y) along axis (inputs broadcast first)."""
    _tensor(x, "vecdot", "x")
    _tensor(y, "vecdot", "y")
    return R.sum(x * y, axis=axis)


def baddbmm(input: Tensor, x: Tensor, y: Tensor, beta: float = 1.0, alpha: float = 1.0,
            name: str | None = None) -> Tensor:
    """beta * input + alpha * (x @ y) for batches of matrices x [B, n, k], y [B, k, m];
    input is [B, n, m], or [B, m], which Paddle reads as [B, 1, m] (one row per batch)."""
    for v, arg in ((input, "input"), (x, "x"), (y, "y")):
        _tensor(v, "baddbmm", arg)
    if x.ndim != 3 or y.ndim != 3:
        raise ValueError(f"baddbmm: x and y must be 3-D, got shapes {x.shape} and {y.shape}")
    if x.shape[0] != y.shape[0] or x.shape[2] != y.shape[1]:
        raise ValueError(f"baddbmm: cannot multiply batches of shapes {x.shape} and {y.shape}")
    if input.ndim not in (2, 3):
        raise ValueError(f"baddbmm: input must be 2-D or 3-D, got shape {input.shape}")
    if input.ndim == 2:
        if input.shape != [x.shape[0], y.shape[2]]:
            raise ValueError(f"baddbmm: a 2-D input must be [batch, m] = "
                             f"{[x.shape[0], y.shape[2]]}, got {input.shape}")
        input = unsqueeze(input, 1)
    return input * beta + matmul(x, y) * alpha


def multigammaln(x: Tensor, p: int, name: str | None = None) -> Tensor:
    """The log of the multivariate gamma function of dimension p:
    p (p - 1) / 4 log(pi) + sum_{j < p} lgamma(x - j / 2)."""
    require_float(_tensor(x, "multigammaln", "x"), "multigammaln")
    if not isinstance(p, (int, np.integer)) or isinstance(p, bool) or p < 1:
        raise ValueError(f"multigammaln: p must be a positive int, got {p!r}")
    total = lgamma(x)
    for j in range(1, int(p)):
        total = total + lgamma(x - j / 2)
    return total + p * (p - 1) / 4 * math.log(math.pi)


def _range(x: np.ndarray, lo: float, hi: float) -> tuple[float, float]:
    if lo == 0 and hi == 0:             # Paddle: the data's own range
        lo, hi = (float(x.min()), float(x.max())) if x.size else (0.0, 1.0)
    if lo > hi:
        raise ValueError(f"histogram: min ({lo}) must not exceed max ({hi})")
    return lo, hi


def histogram(input: Tensor, bins: int = 100, min: float = 0.0, max: float = 0.0,
              weight: Tensor | None = None, density: bool = False, name: str | None = None
              ) -> Tensor:
    """Counts (int64) of input's values in `bins` equal bins over [min, max] (the data's
    range when both are 0; values outside are dropped); float with weight or density.
    No gradient."""
    x = _tensor(input, "histogram", "input")._data
    if not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"histogram: bins must be a positive int, got {bins!r}")
    lo, hi = _range(x, float(min), float(max))
    w = None if weight is None else np.asarray(_tensor(weight, "histogram", "weight")._data)
    counts, _ = np.histogram(x.ravel(), int(bins), (lo, hi),
                             weights=None if w is None else w.ravel(), density=density)
    dt = np.int64 if w is None and not density else (x.dtype if x.dtype.kind == "f"
                                                     else np.float32)
    return Tensor._make(counts.astype(dt))


def histogram_bin_edges(input: Tensor, bins: int = 100, min: float = 0.0, max: float = 0.0,
                        name: str | None = None) -> Tensor:
    """The bins + 1 edges histogram() uses."""
    x = _tensor(input, "histogram_bin_edges", "input")._data
    lo, hi = _range(x, float(min), float(max))
    dt = x.dtype if x.dtype.kind == "f" else np.float32
    return Tensor._make(np.histogram_bin_edges(x.ravel(), int(bins), (lo, hi)).astype(dt))


_HISTDD_DTYPES = (np.float32, np.float64, np.int32, np.int64)     # (Paddle's min/max kernels)


def histogramdd(x: Tensor, bins: Any = 10, ranges: Any = None, density: bool = False,
                weights: Tensor | None = None, name: str | None = None
                ) -> tuple[Tensor, list[Tensor]]:
    """(hist, edges): the points x [..., D] (all but the last dim flattened: N points of D
    coordinates) counted, or their weights [...] summed, in a D-dim grid of bins; no
    gradient (Paddle's outputs have stop_gradient True).

    bins: an int (that many equal bins in each dim), a list of D ints, or a tuple of D 1-D
    Tensors of edges (a tuple, as Paddle 3.3.1: a list is read as bin counts). ranges: a
    flat [min_0, max_0, min_1, max_1, ...] (cast to x's dtype), the data's own min and max
    by default. Equal bins' edges are Paddle's linspace in x's dtype. A point is in bin i
    of a dim when edges[i] <= v < edges[i + 1], the last bin closed; points outside (NaN
    too) are dropped. Bins of zero width (min == max) put every point on the last edge into
    the last bin, as Paddle (numpy and torch widen the range instead). density divides
    each bin by the bins' total and its volume. hist and edges have x's dtype (float32,
    float64, int32 or int64; density needs floats). All measured on Paddle 3.3.1."""
    d = _tensor(x, "histogramdd", "x")._data
    if d.dtype not in _HISTDD_DTYPES:
        raise TypeError(f"histogramdd: x must be float32, float64, int32 or int64, got "
                        f"{d.dtype}; cast it with .astype('float32')")
    if d.ndim < 2:
        raise ValueError(f"histogramdd: x must be [..., D], each row a point of D "
                         f"coordinates (at least 2 dims), got shape {list(d.shape)}; a 1-D "
                         f"x of N values is x.reshape([-1, 1])")
    dt, D = d.dtype, d.shape[-1]
    if not D:
        raise ValueError(f"histogramdd: x's last dim holds each point's coordinates and must "
                         f"not be 0, got shape {list(d.shape)}")
    pts = d.reshape(-1, D)
    w = None
    if weights is not None:
        wd = _tensor(weights, "histogramdd", "weights")._data
        if wd.shape != d.shape[:-1]:
            raise ValueError(f"histogramdd: weights must have x's shape without its last "
                             f"dim, {list(d.shape[:-1])}, got {list(wd.shape)}")
        if wd.dtype != dt:
            raise TypeError(f"histogramdd: weights must have x's dtype {dt}, got {wd.dtype}")
        w = wd.reshape(-1)
    edges = _histdd_edges(pts, bins, ranges, dt)
    nb = tuple(len(e) - 1 for e in edges)
    keep = np.ones(len(pts), bool)
    index = []
    for i, e in enumerate(edges):            # Paddle: searchsorted(right), the last edge in
        v = pts[:, i]                        # the last bin
        at = np.searchsorted(e, v, side="right")
        at[v == e[-1]] -= 1
        keep &= (at >= 1) & (at <= nb[i])
        index.append(at)
    flat = np.ravel_multi_index(tuple(a[keep] - 1 for a in index), nb) if keep.any() else \
        np.zeros(0, np.int64)
    size = int(np.prod(nb))
    if w is None:
        hist = np.bincount(flat, minlength=size).astype(dt)
    else:                                    # in the weights' dtype, in the points' order
        hist = np.zeros(size, dt)            # (Paddle's bincount)
        np.add.at(hist, flat, w[keep])
    hist = hist.reshape(nb)
    if density:
        if dt.kind != "f":
            raise TypeError("histogramdd: density=True needs a float x (it divides by bin "
                            "volumes); cast x with .astype('float32')")
        with np.errstate(divide="ignore", invalid="ignore"):
            total = hist.sum()
            for i, e in enumerate(edges):    # Paddle's order: each dim's widths, then total
                shape = [1] * D
                shape[i] = nb[i]
                hist = hist / np.diff(e).reshape(shape)
            hist = hist / total
    return Tensor._make(np.ascontiguousarray(hist, dt)), [Tensor._make(e) for e in edges]


def _histdd_edges(pts: np.ndarray, bins: Any, ranges: Any, dt: np.dtype) -> list[np.ndarray]:
    """histogramdd's D arrays of edges, in dt, from bins and ranges as Paddle 3.3.1 reads
    them."""
    from .creation import _linspace
    D = pts.shape[1]
    if isinstance(bins, tuple):              # edges, one 1-D sequence per dim
        if len(bins) != D:
            raise ValueError(f"histogramdd: bins as a tuple gives each of x's {D} dims its "
                             f"edges (1-D Tensors), got {len(bins)}")
        edges = []
        for i, b in enumerate(bins):
            if isinstance(b, Tensor):
                if b._data.dtype != dt:
                    raise TypeError(f"histogramdd: the edges bins[{i}] must have x's dtype "
                                    f"{dt}, got {b._data.dtype}")
                e = np.array(b._data)
            elif isinstance(b, (list, np.ndarray)):
                e = np.array(b).astype(dt)
            else:
                raise ValueError(f"histogramdd: bins as a tuple gives each dim's edges as a "
                                 f"1-D Tensor, got {type(b).__name__} in bins[{i}]; for bin "
                                 f"counts pass an int or a list of ints")
            if e.ndim != 1 or e.size < 1:
                raise ValueError(f"histogramdd: the edges bins[{i}] must be 1-D and not "
                                 f"empty, got shape {list(e.shape)}")
            if (np.diff(e) < 0).any():
                raise ValueError(f"histogramdd: the edges bins[{i}] must be increasing, got "
                                 f"{e.tolist()}")
            edges.append(e)
        return edges
    counts = [bins] * D if isinstance(bins, (int, np.integer)) else bins
    if not isinstance(counts, list) or isinstance(bins, bool):
        raise ValueError(f"histogramdd: bins must be an int, a list of {D} ints (bin counts) "
                         f"or a tuple of {D} 1-D Tensors (edges), got {type(bins).__name__}")
    if len(counts) != D:
        raise ValueError(f"histogramdd: bins as a list gives each of x's {D} dims its bin "
                         f"count, got {len(counts)}")
    for i, c in enumerate(counts):
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or c < 0:
            got = repr(c) if isinstance(c, (int, np.integer)) else type(c).__name__
            raise ValueError(f"histogramdd: bins[{i}] must be a non-negative int, got {got}; "
                             f"to give edges, pass a tuple of 1-D Tensors (a list is read "
                             f"as bin counts, as in Paddle)")
    if ranges is None:
        if not len(pts):
            raise ValueError("histogramdd: x has no points, so the bins' range is undefined; "
                             "give ranges")
        lo, hi = pts.min(axis=0), pts.max(axis=0)
    else:
        r = ranges._data if isinstance(ranges, Tensor) else ranges
        if not isinstance(r, (list, tuple, np.ndarray)):
            raise TypeError(f"histogramdd: ranges must be a list or tuple [min_0, max_0, "
                            f"min_1, ...], got {type(ranges).__name__}")
        try:
            r = np.asarray(r)
        except ValueError:                   # (ragged)
            r = np.asarray(None)
        if r.dtype.kind not in "iuf":
            raise TypeError(f"histogramdd: ranges must hold numbers, got {ranges!r}")
        if r.ndim != 1 or r.size != 2 * D:
            raise ValueError(f"histogramdd: ranges must be flat [min_0, max_0, min_1, max_1, "
                             f"...], {2 * D} numbers for x's {D} dims, got {ranges!r}")
        r = r.astype(dt)
        lo, hi = r[0::2], r[1::2]
        if (lo > hi).any():
            raise ValueError(f"histogramdd: each min in ranges must not exceed its max, got "
                             f"{ranges!r}")
    return [_linspace(lo[i], hi[i], int(c) + 1, dt) for i, c in enumerate(counts)]


def _gcd_operands(x: Any, y: Any, fn: str) -> tuple[Any, Any, bool]:
    """x and y as arrays when both are integers, else as float Tensors of one dtype (Paddle
    3.3.1 computes a float gcd; an int with a float, or a bool, it refuses); and which."""
    a, b = (np.asarray(v._data if isinstance(v, Tensor) else v) for v in (x, y))
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        return a, b, True
    if a.dtype.kind != "f" or b.dtype.kind != "f":
        raise TypeError(f"{fn}: x and y must be two integer or two float tensors, got "
                        f"{a.dtype} and {b.dtype}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError(f"{fn}: x and y must be finite (Paddle 3.3.1's loop never ends on "
                         "inf or NaN)")
    x, y = (v if isinstance(v, Tensor) else Tensor._make(np.asarray(v)) for v in (x, y))
    x, y = binary_operands(x, y)
    if x._data.dtype != y._data.dtype:              # (float32 with float64: float64)
        dt = np.promote_types(x._data.dtype, y._data.dtype)
        x, y = (v if v._data.dtype == dt else E.astype(v, dt) for v in (x, y))
    return x, y, False


def _float_gcd(x: Tensor, y: Tensor) -> Tensor:
    """Paddle 3.3.1's gcd of floats, its Euclid loop op for op on |x| and |y| (mod, and
    where to keep the larger first), so values and gradients are its: gcd(7.5, 2.5) is 2.5;
    the result is one input minus multiples of the others, its gradient those multiples.
    Its `y != 0` is Paddle's float compare, which counts |y| < 1e-15 as 0 (so gcd(1e30,
    1e-30) is 1e30 there and here)."""
    shape = list(np.broadcast_shapes(x._data.shape, y._data.shape))
    x, y = E.abs(broadcast_to(x, shape)), E.abs(broadcast_to(y, shape))
    dt = x._data.dtype
    ones, zeros = Tensor._make(np.ones(shape, dt)), Tensor._make(np.zeros(shape, dt))
    while True:
        nonzero = ~(np.abs(y._data.astype(np.float64)) < 1e-15)
        if not nonzero.any():
            break
        y_safe = E.where(nonzero, y, ones)
        x, y = E.where(nonzero, y, x), E.where(nonzero, remainder(x, y_safe), zeros)
        less = x._data < y._data
        x, y = E.where(less, y, x), E.where(less, x, y)
    return x


def gcd(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """Greatest common divisor, elementwise (non-negative; gcd(0, 0) = 0). Floats take
    Paddle's Euclid loop (_float_gcd); integers carry no gradient."""
    a, b, ints = _gcd_operands(x, y, "gcd")
    return Tensor._make(np.gcd(a, b)) if ints else _float_gcd(a, b)


def lcm(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """Least common multiple, elementwise (non-negative; 0 if either is 0). Floats as
    Paddle 3.3.1: floor(|x y| / gcd(x, y)) with no gradient (lcm(7.5, 2.5) is 7.0)."""
    a, b, ints = _gcd_operands(x, y, "lcm")
    if ints:
        return Tensor._make(np.lcm(a, b))
    a, b = a._data, b._data
    d = _float_gcd(Tensor._make(a), Tensor._make(b))._data
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(d == 0, 0, np.floor_divide(np.abs(a * b), np.where(d == 0, 1, d)))
    return Tensor._make(out.astype(d.dtype, copy=False))


def frexp(x: Tensor, name: str | None = None) -> tuple[Tensor, Tensor]:
    """(mantissa, exponent) with x = mantissa * 2**exponent, |mantissa| in [0.5, 1); the
    exponent in x's dtype, as Paddle. The mantissa's gradient is 2**-exponent, 0 at x = 0
    (Paddle)."""
    require_float(_tensor(x, "frexp", "x"), "frexp")
    dt = x._data.dtype
    _, e = np.frexp(x._data)
    scale = np.where(x._data == 0, 0, np.ldexp(np.ones((), dt), -e)).astype(dt, copy=False)
    return x * const(scale, dt), Tensor._make(e.astype(dt))


def nextafter(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The next float after x towards y, elementwise. No gradient."""
    a = _tensor(x, "nextafter", "x")._data
    b = _tensor(y, "nextafter", "y")._data
    return Tensor._make(np.nextafter(a, b.astype(a.dtype, copy=False)))


def reduce_as(x: Tensor, target: Tensor, name: str | None = None) -> Tensor:
    """x summed down to target's shape (the axes broadcasting would have added)."""
    _tensor(x, "reduce_as", "x")
    shape = tuple(_tensor(target, "reduce_as", "target").shape)
    try:
        if np.broadcast_shapes(shape, tuple(x.shape)) != tuple(x.shape):
            raise ValueError
    except ValueError:
        raise ValueError(f"reduce_as: target's shape {list(shape)} does not broadcast to "
                         f"x's {x.shape}") from None
    return sum_to(x, shape)


def combinations(x: Tensor, r: int = 2, with_replacement: bool = False,
                 name: str | None = None) -> Tensor:
    """The r-element combinations of a 1-D x's elements, as rows [n_combinations, r] in
    itertools' order; [0, r] when there are none."""
    _tensor(x, "combinations", "x")
    if x.ndim != 1:
        raise ValueError(f"combinations: x must be 1-D, got shape {x.shape}")
    if not isinstance(r, (int, np.integer)) or r < 0:
        raise ValueError(f"combinations: r must be a non-negative int, got {r!r}")
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    idx = np.array(list(pick(range(x.shape[0]), int(r))), np.int64).reshape(-1, int(r))
    return _take(x, idx)


def pdist(x: Tensor, p: float = 2.0, name: str | None = None) -> Tensor:
    """The p-norm distances between each pair of rows i < j of x [n, m], in row order:
    n (n - 1) / 2 values."""
    _tensor(x, "pdist", "x")
    if x.ndim != 2:
        raise ValueError(f"pdist: x must be 2-D, got shape {x.shape}")
    n = x.shape[0]
    i, j = np.triu_indices(n, 1)
    d = _take(x, i[:, None] * x.shape[1] + np.arange(x.shape[1])) - \
        _take(x, j[:, None] * x.shape[1] + np.arange(x.shape[1]))
    out = vector_norm(d, p=float(p), axis=-1)
    if float(p) == 0 and not x.stop_gradient:
        # a count has no slope: x gets zeros, as Paddle's (d enters as the branch not taken)
        out = E.where(np.zeros(out._data.shape, bool), R.sum(d, axis=-1), out)
    return out


def ger(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The outer product of two 1-D tensors (Paddle's older name for outer)."""
    from .matrix import outer
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"ger: x and y must be 1-D, got shapes {list(x.shape)} and "
                         f"{list(y.shape)}")
    return outer(x, y)
