"""im2col: the window-unrolling primitive under conv1d / conv2d.

Forward: one strided view of the (zero-padded) image copied into columns, no index map.
Backward: the compiled COL2IM kernel, which sums columns back onto the image with loop
bounds instead of an index table (the take_flat + SCATTER form it replaces needed an int64
map as large as the columns, rebuilt into every Program). Optionally a row of ones closes
each group's columns, so that a convolution's bias rides in the same GEMM as its weight.
"""

from __future__ import annotations

import functools
from typing import Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..core.tensor import Tensor
from .core import apply_xy, compiled_kernels, remember, vjp_on_arrays
from .registry import defop
from .shape import _scatter_flat, getitem, reshape

_ascontiguousarray = np.ascontiguousarray


def out_size(n: int, k: int, s: int, d: int, pad: tuple[int, int]) -> int:
    """Number of window positions along one spatial dim."""
    return (n + pad[0] + pad[1] - (k - 1) * d - 1) // s + 1


def _geometry(shape, ksize, stride, dil, pads):
    (N, C, H, W), (kh, kw) = shape, ksize
    Ho = out_size(H, kh, stride[0], dil[0], pads[0])
    Wo = out_size(W, kw, stride[1], dil[1], pads[1])
    return N, C, H, W, kh, kw, Ho, Wo


@functools.lru_cache(maxsize=64)
def _kernel_dims(shape: tuple, ksize: tuple, stride: tuple, dil: tuple, pads: tuple,
                 groups: int, ones_row: bool) -> tuple[np.ndarray, tuple]:
    """vm/forward_window.py im2col_pad's dims and the columns' shape (cached: a training
    loop convolves the same shapes every step)."""
    N, C, H, W, kh, kw, Ho, Wo = _geometry(shape, ksize, stride, dil, pads)
    rows = C // groups * kh * kw + ones_row
    dims = np.array([N, C, H, W, groups, kh, kw, *stride, *dil, pads[0][0], pads[1][0], Ho,
                     Wo, rows, H + sum(pads[0]), W + sum(pads[1])], np.int64)
    return dims, (N, groups, rows, Ho * Wo)


def _im2col_np(x: np.ndarray, ksize: tuple, stride: tuple, dil: tuple, pads: tuple,
               groups: int, ones_row: bool) -> np.ndarray:
    # float32 / float64 only (Numba has no float16 arrays: a half-precision convolution
    # raised NotImplementedError here once Numba was loaded)
    kernels = compiled_kernels("forward_window") if x.dtype.char in "fd" else None
    if kernels is not None:                 # (once Numba is loaded: vm/forward_window.py)
        # the padding, the columns and the ones row in one call (no Python-side padded copy)
        dims, shape = _kernel_dims(x.shape, ksize, stride, dil, pads, groups, ones_row)
        out = np.empty(shape, x.dtype)
        kernels.im2col_pad(_ascontiguousarray(x).reshape(-1), out.reshape(-1), dims)
        return out
    return _im2col_view(x, ksize, stride, dil, pads, groups, ones_row)


def _im2col_view(x: np.ndarray, ksize: tuple, stride: tuple, dil: tuple, pads: tuple,
                 groups: int, ones_row: bool) -> np.ndarray:
    """The numpy path (and the compiled kernel's reference in tests): one strided view of
    the zero-padded image copied into the columns."""
    N, C, H, W, kh, kw, Ho, Wo = _geometry(x.shape, ksize, stride, dil, pads)
    xp = x
    if any(map(any, pads)):                 # zero padding by a slice copy (np.pad's Python
        (pt, pb), (pl, pr) = pads           # overhead was ~10 us a convolution)
        xp = np.zeros((N, C, H + pt + pb, W + pl + pr), x.dtype)
        xp[:, :, pt:pt + H, pl:pl + W] = x
    G, Cg = groups, C // groups
    K = Cg * kh * kw
    s = xp.strides
    view = as_strided(xp, (N, G, Cg, kh, kw, Ho, Wo),
                      (s[0], Cg * s[1], s[1], dil[0] * s[2], dil[1] * s[3], stride[0] * s[2],
                       stride[1] * s[3]), writeable=False)
    out = np.empty((N, G, K + ones_row, Ho * Wo), x.dtype)
    np.copyto(out[:, :, :K].reshape(N, G, Cg, kh, kw, Ho, Wo), view)
    if ones_row:
        out[:, :, K] = 1
    return out


@functools.lru_cache(maxsize=8)          # as large as the columns: keep only a few
def _positions(shape: tuple, ksize: tuple, stride: tuple, dil: tuple, pads: tuple,
               groups: int) -> tuple[np.ndarray, tuple]:
    """Flat position in the padded image of every column entry (for the eager rules)."""
    N, C, H, W, kh, kw, Ho, Wo = _geometry(shape, ksize, stride, dil, pads)
    Hp, Wp = H + sum(pads[0]), W + sum(pads[1])
    plane = np.arange(N * C * Hp * Wp).reshape(N, C, Hp, Wp)
    # (flat and owning its data, read-only: a view would be copied into a rebinding
    # Workspace's itab again every step: binding.bind_values)
    idx = _im2col_np(plane, ksize, stride, dil, ((0, 0), (0, 0)), groups, False).ravel().copy()
    idx.setflags(write=False)
    return idx, (N, C, Hp, Wp)


def _im2col_vjp(g, out, x, ksize, stride, dil, pads, groups, ones_row):
    """Scatter the columns onto the padded image, then crop the padding (composites)."""
    if ones_row:
        g = getitem(g, (slice(None), slice(None), slice(0, g.shape[2] - 1)))
    idx, padded = _positions(tuple(x._data.shape), ksize, stride, dil, pads, groups)
    gx = _scatter_flat(reshape(g, [-1]), idx, padded)
    (pt, _), (pl, _) = pads
    H, W = x._data.shape[2:]
    if padded[2:] != (H, W):
        gx = getitem(gx, (slice(None), slice(None), slice(pt, pt + H), slice(pl, pl + W)))
    return (gx,)


def _lower_im2col(b, node, g, gins):
    b.emit("COL2IM", gins[0], g, p=b.table(_col2im_params(node).tolist()))


def _col2im_params(node) -> np.ndarray:
    """COL2IM's itab parameters for this node (as _lower_im2col writes them)."""
    a = node.attrs
    N, C, H, W, kh, kw, Ho, Wo = _geometry(node.inputs[0]._data.shape, a["ksize"],
                                           a["stride"], a["dil"], a["pads"])
    return np.array([N, C, H, W, a["groups"], node.out_data.shape[2], kh, kw, *a["stride"],
                     *a["dil"], a["pads"][0][0], a["pads"][1][0], Ho, Wo], np.int64)


def _im2col_interp(node, g, want):
    """The interpreted rule (a new structure's first backward): the COL2IM kernel on the
    arrays once Numba is loaded (the vjp's scatter_flat through np.add.at took 7.4 ms of
    an 8x16x32x32 conv2d's first backward), else the vjp on Tensors."""
    if not want[0]:
        return (None,)
    x = node.inputs[0]._data
    kernels = compiled_kernels("forward_window")
    if kernels is None or g.dtype != x.dtype or g.dtype.char not in "fd":
        return vjp_on_arrays(node, np.asarray(g), want)
    out = np.empty(x.shape, x.dtype)
    kernels.col2im(out.reshape(-1), _ascontiguousarray(g).reshape(-1), _col2im_params(node))
    return (out,)


def _case(shape, ksize, stride, dil, pads, groups, ones_row):
    return {"shapes": (shape,), "attrs": dict(ksize=ksize, stride=stride, dil=dil, pads=pads,
                                              groups=groups, ones_row=ones_row)}


im2col_op = defop(
    "im2col",
    fused="the convolution's window unrolling: its transpose is the COL2IM kernel",
    forward=_im2col_np, vjp=_im2col_vjp, lower=_lower_im2col, interp=_im2col_interp,
    min_ndim=4,
    grad_reads=(),      # (x's shape only: x may change in place before the backward, as
                        # in Paddle 3.3.1's unfold)
    cases=(_case((2, 4, 5, 4), (2, 2), (2, 1), (1, 2), ((1, 2), (0, 1)), 2, False),
           _case((1, 2, 4, 3), (3, 2), (1, 1), (1, 1), ((1, 1), (0, 0)), 1, True),
           _case((2, 1, 3, 3), (2, 2), (1, 1), (1, 1), ((0, 0), (0, 0)), 1, False)))


def im2col(x: Tensor, ksize: Sequence[int], stride: Sequence[int], dil: Sequence[int],
           pads: Sequence[tuple[int, int]], groups: int = 1, ones_row: bool = False
           ) -> Tensor:
    """Columns [N, G, C/G*kh*kw (+1 with ones_row), Ho*Wo] of x [N, C, H, W] zero-padded by
    pads ((top, bottom), (left, right)). The node's attributes are cached per geometry (a
    training loop unrolls the same windows every step)."""
    key = (x._data.shape, tuple(ksize), tuple(stride), tuple(dil),
           tuple([tuple(p) for p in pads]), groups, ones_row)
    attrs = _ATTRS.get(key)
    if attrs is None:
        attrs = _im2col_attrs(x._data.shape, ksize, stride, dil, pads, groups, ones_row)
        remember(_ATTRS, key, attrs, 256)
    return im2col_node(x, attrs)


def im2col_node(x: Tensor, a: dict) -> Tensor:
    """The im2col node of x with these (checked) attributes, its forward computed here."""
    return apply_xy(im2col_op, x, None, a, _im2col_np(x._data, a["ksize"], a["stride"],
                                                       a["dil"], a["pads"], a["groups"],
                                                       a["ones_row"]))


_ATTRS: dict = {}       # (shape, ksize, stride, dil, pads, groups, ones_row) -> node attrs


def _im2col_attrs(shape, ksize, stride, dil, pads, groups, ones_row) -> dict:
    pads = tuple((int(p[0]), int(p[1])) for p in pads)
    N, C, H, W, kh, kw, Ho, Wo = _geometry(shape, tuple(ksize), tuple(stride), tuple(dil),
                                           pads)
    if Ho <= 0 or Wo <= 0:
        raise ValueError(f"the kernel {list(ksize)} (dilation {list(dil)}) is larger than the "
                         f"padded input {[H + sum(pads[0]), W + sum(pads[1])]}")
    return {"ksize": tuple(int(v) for v in ksize), "stride": tuple(int(v) for v in stride),
            "dil": tuple(int(v) for v in dil), "pads": pads, "groups": int(groups),
            "ones_row": bool(ones_row)}
