"""softmax and log_softmax over one axis, numerically stable, each one fused kernel."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.param_aliases import UNSET, dim_axis, input_x
from ..core.quiet import quiet
from ..core.tensor import Tensor
from ..core.torch_kwargs import out_param
from .core import (apply_xy, checks_own_tensor_args, require_float, tensor_arg_error,
                   vjp_on_arrays)
from .elementwise import _compiled_forward, numpy_exp_emulated
from .registry import defop


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    if x.ndim == 0:
        return np.ones_like(x)
    if x.size == 0:                     # (numpy's max has no identity for an empty axis)
        return np.empty_like(x)
    if axis == x.ndim - 1:                  # the rows' compiled passes (numpy's values)
        e = _softmax_matrix(x.reshape(-1, x.shape[-1]))
        if e is not None:
            return e.reshape(x.shape)
    # (ufuncs called directly: np.max / np.sum's Python wrappers cost ~1 us each)
    e = np.subtract(x, np.maximum.reduce(x, axis=axis, keepdims=True))
    np.exp(e, out=e)
    return np.divide(e, np.add.reduce(e, axis=axis, keepdims=True), out=e)


def _log_softmax(x: np.ndarray, axis: int) -> tuple[np.ndarray, tuple]:
    """(log_softmax, (softmax,)): the softmax the backward reads comes from the same exp
    (a second exp of the output cost a pass)."""
    if x.ndim == 0:
        return np.zeros_like(x), (np.ones_like(x),)
    if x.size == 0:
        return np.empty_like(x), (np.empty_like(x),)
    if axis == x.ndim - 1:                  # the rows' compiled passes (numpy's values)
        found = _log_softmax_matrix(x.reshape(-1, x.shape[-1]))
        if found is not None:
            out, (soft,) = found
            return out.reshape(x.shape), (soft.reshape(x.shape),)
    s = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(s)
    se = np.sum(e, axis=axis, keepdims=True)
    e /= se
    return s - np.log(se), (e,)


def _row_layout(shape: tuple, axis: int) -> list[int]:
    """(outer, length, inner) so the reduced axis is the middle one of a 3-D view."""
    outer = math.prod(shape[:axis])
    inner = math.prod(shape[axis + 1:])
    return [outer, shape[axis] if shape else 1, inner]


def _lower(kernel: str):
    def lower(b, node, g, gins):
        y = node.saved[0] if node.saved else node.out_data
        p = b.table(_row_layout(node.out_data.shape, node.attrs["axis"]) + [0])
        b.emit(kernel, gins[0], g, b.value(y), p=p)     # (0: g has n elements, peephole.py)
    return lower


def _interp(log: bool):
    """The interpreted rule (a new structure's first backward) of softmax (log_softmax:
    `log`) on its saved softmax: the row kernel its lowered row runs, once Numba is loaded
    (the vjp on Tensors took 0.33 / 0.45 ms of a 256 x 512 first backward; log_softmax's
    exponentiated its output again); before, the vjp."""
    def interp(node, g, want):
        y = node.saved[0] if node.saved else node.out_data
        kernels = _compiled_forward()
        if kernels is None or y.ndim == 0 or g.dtype != y.dtype or y.dtype.char not in "fd":
            return vjp_on_arrays(node, np.asarray(g), want)
        outer, length, inner = _row_layout(y.shape, node.attrs["axis"])
        out = np.empty(y.shape, y.dtype)
        kernels.softmax_bwd(out.reshape(-1), np.ascontiguousarray(g).reshape(-1),
                            np.ascontiguousarray(y).reshape(-1), outer, length, inner, log)
        return (out,)
    return interp


SOFTMAX_CASES = tuple({"shapes": (s,), "attrs": {"axis": a}}
                      for s, a in (((4,), 0), ((2, 3), 1), ((2, 3), 0), ((2, 3, 2), 1),
                                   ((), 0), ((1, 4), 1), ((4, 1), 1),
                                   ((16, 16), 1)))    # (log_softmax's compiled forward)

softmax_op = defop(
    "softmax",
    fused="the fused SOFTMAX_BWD row kernel",
    quiet=True, forward=_softmax, lower=_lower("SOFTMAX_BWD"), interp=_interp(False),
    cases=SOFTMAX_CASES,
    grad_reads=("out",),    # (x may change in place before the backward, as in Paddle 3.3.1)
    vjp=lambda g, out, x, axis: (out * (g - (g * out).sum(axis=axis, keepdim=True)),))

log_softmax_op = defop(
    "log_softmax",
    fused="softmax's fused LOG_SOFTMAX_BWD row kernel",
    quiet=True, forward=_log_softmax, forward_saves=True,
    lower=_lower("LOGSOFTMAX_BWD"), interp=_interp(True), cases=SOFTMAX_CASES,
    grad_reads=("out",),
    vjp=lambda g, out, x, axis: (g - out.exp() * g.sum(axis=axis, keepdim=True),))


def _axis(x: Tensor, axis: int, what: str = "softmax") -> int:
    require_float(x, what)
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{what}: axis must be an int, got {axis!r}")
    if not -x.ndim <= axis < x.ndim:
        if x.ndim == 0 and (axis == 0 or axis == -1):      # a 0-d x: axis 0 or -1 (Paddle)
            return 0
        raise ValueError(f"axis {axis} is out of range for a tensor with {x.ndim} dims"
                         + (" (a 0-d tensor takes axis 0 or -1)" if x.ndim == 0 else ""))
    return axis % x.ndim


# the node attributes of softmax / log_softmax along the rows of a matrix (shared: read only)
_ROWS = {"axis": 1}


def _softmax_matrix(x: np.ndarray) -> np.ndarray | None:
    """_softmax's compiled branch for a float32 / float64 [N, C] array along its rows,
    without its reshaped views and forward dispatch, numpy's warnings off around the exp
    alone (the kernels raise none); None where that branch does not apply."""
    if x.dtype.char not in "fd" or not x.flags.c_contiguous or x.size == 0:
        return None
    kernels = _compiled_forward()
    if kernels is None:
        return None
    e = np.empty(x.shape, x.dtype)
    if x.dtype is _F32 and numpy_exp_emulated():     # (one pass: numpy's exp inside)
        kernels.softmax_rows32(x, e)
        return e
    kernels.row_shift(x, e)
    _quiet_exp(e, out=e)
    kernels.softmax_finish(e)
    return e


_F32 = np.dtype(np.float32)


# numpy's vectorised exp with its warnings off: quiet around the exp alone (the kernels
# before and after it raise none)
_quiet_exp = quiet(np.exp)


@checks_own_tensor_args
def softmax(x: Tensor = UNSET, axis: int = -1, dtype: object = None, name: str | None = None,
            *, dim: Any = UNSET, input: Tensor = UNSET, out: Tensor | None = None) -> Tensor:
    """exp(x) / sum(exp(x)) along `axis`, computed without overflow. The common call, a
    float [N, C] along the classes, records its node here with the forward computed, as
    log_softmax does (the values of _softmax's compiled branch). dim=, input=, out=:
    Paddle 3.x's torch-style keywords, read here (no alias wrapper's call layer)."""
    if input is not UNSET or x is UNSET or dim is not UNSET or out is not None:
        return out_param("softmax", out, softmax(input_x("softmax", x, input),
                                                 dim_axis("softmax", axis, dim, -1), dtype))
    if not isinstance(x, Tensor):
        raise tensor_arg_error("softmax", "x", x)
    if dtype is not None:
        x = x.astype(dtype)
    d = x._data
    if type(axis) is int and d.ndim == 2 and (axis == -1 or axis == 1):
        out = _softmax_matrix(d)
        if out is not None:
            return apply_xy(softmax_op, x, None, _ROWS, out)
    return apply_xy(softmax_op, x, None, {"axis": _axis(x, axis)})


def softmax_compat(x: Tensor, axis: Any = None, dtype: object = None,
                   name: str | None = None) -> Tensor:
    """paddle.softmax and x.softmax: Paddle 3.3.1's torch-compatible softmax (paddle.compat's),
    whose axis (dim) defaults by torch's legacy rule: 0 for a 0-, 1- or 3-D x, else 1
    (x.softmax() of a [B, H, L, L] tensor is along H there); F.softmax's is -1. Paddle
    refuses axis= and name= on it; jitgrad takes them (README, kept)."""
    if axis is None and isinstance(x, Tensor):
        axis = 0 if x._data.ndim in (0, 1, 3) else 1
    return softmax(x, -1 if axis is None else axis, dtype)


softmax_compat.__name__ = softmax_compat.__qualname__ = "softmax"


def _log_softmax_matrix(x: np.ndarray) -> tuple | None:
    """_log_softmax's compiled branch for an [N, C] array along its rows (no reshaped
    views: ~0.1 us each), numpy's warnings off around the exp (the kernels raise none);
    None where that branch does not apply."""
    if x.size < 256 or x.dtype.char not in "fd" or not x.flags.c_contiguous:
        return None
    kernels = _compiled_forward()           # (once Numba is loaded)
    if kernels is None:
        return None
    s = np.empty(x.shape, x.dtype)
    kernels.row_shift(x, s)
    soft = _quiet_exp(s)
    kernels.log_softmax_finish(s, soft)     # (s becomes the output)
    return s, (soft,)


@checks_own_tensor_args
def log_softmax(x: Tensor = UNSET, axis: int = -1, dtype: object = None,
                name: str | None = None, *, dim: Any = UNSET, input: Tensor = UNSET
                ) -> Tensor:
    """log(softmax(x)) along `axis`. The common call, a float [N, C] along the classes,
    records its node here with the forward computed: no forward dispatch, and no wrapper
    (checks_own_tensor_args; dim= and input= read here)."""
    if input is not UNSET or x is UNSET or dim is not UNSET:
        return log_softmax(input_x("log_softmax", x, input),
                           dim_axis("log_softmax", axis, dim, -1), dtype)
    if not isinstance(x, Tensor):
        raise tensor_arg_error("log_softmax", "x", x)
    if dtype is not None:
        x = x.astype(dtype)
    d = x._data
    if type(axis) is int and d.ndim == 2 and (axis == -1 or axis == 1):
        found = _log_softmax_matrix(d)
        if found is not None:
            return apply_xy(log_softmax_op, x, None, _ROWS, found[0], found[1])
    return apply_xy(log_softmax_op, x, None, {"axis": _axis(x, axis, "log_softmax")})
