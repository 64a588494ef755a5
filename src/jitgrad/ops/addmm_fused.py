"""addmm(input, x, y) with beta = alpha = 1 as one node: input + x @ y for float matrices x
[m, k], y [k, n] of one dtype and an input of that dtype broadcasting to [m, n].

The composite (ops/composites.py addmm) records matmul, input * beta, product * alpha and
their sum: four nodes. Multiplying by 1.0 changes no value (a NaN keeps its bits: numpy's
multiply returns the NaN operand), so with beta = alpha = 1 its output is input + x @ y
bit for bit: the product computed as matmul computes it (ops/linalg.py matmul: its choice
between ndarray.dot, the large-product BLAS and np.matmul), the same numpy add. The
gradients are the composite's: input's is g summed over its broadcast axes, x's g @ y^T,
y's x^T @ g (the GEMMs the matmul node ran; g * 1.0 was g).
"""

from __future__ import annotations

import numpy as np

from .core import sum_to, sum_to_array
from .linalg import _F32, _F64, _FORWARD_MIN, _big_matmul, _gemm, _np_matmul, matmul
from .linear import shaped
from .registry import defop


def product(xd: np.ndarray, yd: np.ndarray) -> np.ndarray:
    """xd @ yd for two float matrices of one dtype, computed as ops/linalg.py matmul computes
    it (the same call: its values bit for bit)."""
    dt = xd.dtype
    if (dt is _F32 or dt is _F64) and yd.dtype is dt and xd.base is None and yd.base is None:
        if xd.shape[0] * xd.shape[1] * yd.shape[1] >= _FORWARD_MIN:
            out = _big_matmul(xd, yd)
            if out is not None:
                return out
        return xd.dot(yd)
    return _np_matmul(xd, yd)


def _forward(i: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    m = product(x, y)
    if m.base is None:                  # (a new array: the sum written in its place)
        try:
            return np.add(i, m, out=m)
        except ValueError:              # (an input broadcasting beyond the product)
            pass
    return np.add(i, m)


def _vjp(g, out, i, x, y):
    return (sum_to(g, i._data.shape), matmul(g, y, transpose_y=True),
            matmul(x, g, transpose_x=True))


def _interp(node, g, want):
    i, x, y = node.inputs[0]._data, node.inputs[1]._data, node.inputs[2]._data
    g = g.reshape(node.out_data.shape)
    return (sum_to_array(g, i.shape) if want[0] else None,
            _np_matmul(g, y.T) if want[1] else None,
            _np_matmul(x.T, g) if want[2] else None)


def _lower(b, node, g, gins):
    """input: g reduced over its broadcast axes; x, y: matmul's GEMMs (ops/linalg.py
    _lower for two matrices)."""
    i, x, y = node.inputs[0]._data, node.inputs[1]._data, node.inputs[2]._data
    (m, k), n = x.shape, y.shape[1]
    if gins[0] is not None:
        b.reduce_into(shaped(gins[0], (1,) * (2 - i.ndim) + i.shape), g)
    if gins[1] is not None:
        _gemm(b, gins[1], (m, k), g, m * n, b.value(y), k * n, m, k, n, False, True, 1, ())
    if gins[2] is not None:
        _gemm(b, gins[2], (k, n), b.value(x), m * k, g, m * n, k, n, m, True, False, 1, ())


addmm_op = defop(
    "addmm",
    fused="a GEMM plus a broadcast input: x's and y's gradients GEMMs with the other one, "
          "input's the output gradient summed over its broadcast axes",
    nin=3, forward=_forward, vjp=_vjp, lower=_lower, interp=_interp, min_ndim=2,
    grad_reads=(1, 2),                  # input's shape only: it may change in place after
    cases=({"shapes": ((2, 4), (2, 3), (3, 4))}, {"shapes": ((4,), (2, 3), (3, 4))},
           {"shapes": ((2, 1), (2, 3), (3, 4))}, {"shapes": ((1, 4), (2, 3), (3, 4))},
           {"shapes": ((), (1, 3), (3, 2))}, {"shapes": ((1,), (3, 1), (1, 2))}))


def fits(i: np.ndarray, x: np.ndarray, y: np.ndarray) -> bool:
    """The fused node's case: float x [m, k] and y [k, n] and an input of ≤ 2 dims of their
    dtype broadcasting to [m, n] (anything else: the composite, and its errors)."""
    dt = x.dtype
    if not ((dt is _F32 or dt is _F64) and y.dtype is dt and i.dtype is dt and x.ndim == 2
            and y.ndim == 2 and i.ndim <= 2 and x.shape[1] == y.shape[0]):
        return False
    s = i.shape
    return (len(s) < 1 or s[-1] in (1, y.shape[1])) and \
        (len(s) < 2 or s[0] in (1, x.shape[0]))
