"""A convolution's product of its weights w [G, O/G, R] with its columns cols [N, G, R, S]
(ops/im2col.py; R = C/G * kh * kw, plus the bias's ones row): matmul's node, whose weight
gradient is computed transposed.

Why: the weight gradient is a sum over the samples of dY_n [O/G, S] @ cols_n^T [S, R]. With
few output channels (m = O/G = 16) OpenBLAS runs that product at half its speed; its
transpose cols_n [R, S] @ dY_n^T [S, O/G] takes 0.53 ms instead of 1.06 for an 8 x 16 x
32 x 32 input with 16 3x3 filters (2.2 ms against 3.8 at 64 x 64, 1.3 against 1.6 for
16 x 3 x 64 x 64; 0.87x where O/G > R: 64 filters on 3 channels, which keeps matmul's
orientation). The lowering accumulates the transposed product over the samples in one
batched GEMM per group (beta = 1 after the first sample, as matmul's broadcast weight
gradient did) and one strided read of O * R elements (STRIDED, Builder.swap_last_axes) puts
it in the weight's layout. The Tensor rule (create_graph) is matmul's.

OpenBLAS's small-matrix kernel (m * n * k <= 100^3, compile/interleave.py SMALL_GEMM) runs
these thin products at up to twice the speed of its packed one, so, all within float32
rounding of matmul's values:
- with one group, the columns' gradient reads w^T laid out [R, O] (a strided read), whose rows
  compile/interleave.py hands to each sample's GEMM + COL2IM in blocks of channels;
- with at most 32 filters a group and 1024+ output pixels (_row_block), the weight
  gradient is one GEMM per block of rows of the columns, and the forward sums the products
  of the same blocks (_product; np.matmul otherwise).
"""

from __future__ import annotations


import numpy as np

from ..compile.builder import Slot
from ..compile.interleave import SMALL_GEMM
from ..core.tensor import Tensor
from .core import apply_xy, compiled_kernels
from .linalg import (_F32, _F64, _NO_TRANSPOSE, _forward, _interp, _lower, _np_matmul, _vjp,
                     matmul)
from .registry import defop


def transposed_weight_gradient(w_shape: tuple, cols_shape: tuple) -> bool:
    """Whether the weight gradient of w [G, O/G, R] @ cols [N, G, R, S] is computed as its
    transpose: R at least O/G (the longer side as the GEMM's rows), O/G > 1."""
    if len(w_shape) != 3 or len(cols_shape) != 4:
        return False
    G, Og, R = w_shape
    return cols_shape[1] == G and cols_shape[2] == R and 1 < Og <= R


def _interp_rule(node, g, want):
    """The array rule: the lowered rows' products in their order (per sample, added in
    sample order), matmul's rule for the columns."""
    w, cols = node.inputs[0]._data, node.inputs[1]._data
    if not (want[0] and transposed_weight_gradient(w.shape, cols.shape)):
        return _interp(node, g, want)
    g = g.reshape(cols.shape[:2] + (w.shape[1], cols.shape[3]))
    gwt = _np_matmul(cols[0], np.swapaxes(g[0], -1, -2))           # [G, R, O/G]
    for n in range(1, cols.shape[0]):
        gwt += _np_matmul(cols[n], np.swapaxes(g[n], -1, -2))
    gw = np.ascontiguousarray(np.swapaxes(gwt, -1, -2))
    return gw, (_interp(node, g, (False, True))[1] if want[1] else None)


def _lower_rule(b, node, g, gins):
    w, cols = node.inputs[0]._data, node.inputs[1]._data
    if gins[0] is not None and transposed_weight_gradient(w.shape, cols.shape):
        _lower_weight_gradient(b, b.value(cols), g, gins[0], w.shape, cols.shape)
        gins = [None, gins[1]]
    if gins[1] is not None and _rows_gradient_from_transpose(w.shape, cols.shape):
        _lower_columns_gradient(b, b.value(w), g, gins[1], w.shape, cols.shape)
        gins = [gins[0], None]
    _lower(b, node, g, gins)


def _rows_gradient_from_transpose(w_shape: tuple, cols_shape: tuple) -> bool:
    """Whether the columns' gradient reads w^T laid out [R, O] (one group): its GEMM's rows
    are then contiguous runs of w^T, which compile/interleave.py may split into blocks of
    channels (matmul's GEMM reads w [O, R] transposed, its rows strided)."""
    return len(w_shape) == 3 and len(cols_shape) == 4 and w_shape[0] == 1 and \
        cols_shape[1] == 1 and cols_shape[2] == w_shape[2]


def _lower_columns_gradient(b, w: Slot, g: Slot, dest: Slot, w_shape: tuple,
                            cols_shape: tuple) -> None:
    """dest [N, 1, R, S] (+)= w^T [R, O] @ g[n] [O, S] for each sample n: a strided read lays out
    w^T, one batched GEMM reads it untransposed (the same products as matmul's ta = 1
    GEMM: 0.87 vs 0.86 ms for 8 samples of R 145, S 1024, O 16)."""
    _, Og, R = w_shape
    N, S = cols_shape[0], cols_shape[3]
    wt = b.alloc((R, Og))
    b.swap_last_axes(wt, w, (1, Og, R))
    b.emit("GEMM", dest, wt, g, p=b.table([N, R, S, Og, 0, 0, 0, Og * S, R * S]))


def _lower_weight_gradient(b, cols: Slot, g: Slot, dest: Slot, w_shape: tuple,
                           cols_shape: tuple) -> None:
    """dest [G, O/G, R] (+)= the sum over samples n of (cols[n, j] @ g[n, j]^T)^T, per
    group j: GEMMs into a [G, R, O/G] scratch slot (one per block of rows), then a strided
    read into the weight's layout."""
    G, Og, R = w_shape
    N, S = cols_shape[0], cols_shape[3]
    tmp = b.alloc((G, R, Og))
    rows = _row_block(Og, R, S)
    tables = {m: b.table([N, m, Og, S, 0, 1, G * R * S, G * Og * S, 0])
              for m in dict.fromkeys((rows, R % rows)) if m}
    for j in range(G):
        for r0 in range(0, R, rows):
            m = min(rows, R - r0)
            b.emit("GEMM", Slot(tmp.off + (j * R + r0) * Og, m * Og, (m, Og)),
                   Slot(cols.off + (j * R + r0) * S, m * S, (m, S)),
                   Slot(g.off + j * Og * S, Og * S, (Og, S)), p=tables[m], acc=False)
    b.swap_last_axes(dest, tmp, (G, R, Og))


def _row_block(Og: int, R: int, S: int) -> int:
    """Rows of cols per weight-gradient GEMM: blocks within OpenBLAS's small-matrix kernel
    (compile/interleave.py SMALL_GEMM) for few filters and many pixels, else all R. Per
    GEMM of 8 samples (CPU ms, whole vs blocks): O/G 16, R 145, S 1024 0.59 vs 0.42; S 4096
    3.2 vs 2.7; O/G 16, R 28, S 4096 1.7 vs 1.0; O/G 32, R 145, S 1024 1.14 vs 0.88;
    O/G 8, R 73, S 4096 1.32 vs 0.58; but O/G 32, R 289, S 256 0.45 vs 0.54, O/G 64, R 577,
    S 256 2.1 vs 2.7, O/G 64, R 145, S 1024 2.2 vs 2.2."""
    rows = SMALL_GEMM // (Og * S)
    return rows if Og <= 32 and S >= _MANY_PIXELS and 8 <= rows < R else R


_MANY_PIXELS = 1024


def conv_product(w: Tensor, cols: Tensor) -> Tensor:
    """w [G, O/G, R] @ cols [N, G, R, S] as a conv_product node; matmul itself for operands
    of two dtypes (its promotion)."""
    if w._data.dtype is not cols._data.dtype:
        return matmul(w, cols)
    return apply_xy(conv_product_op, w, cols, _NO_TRANSPOSE, _product(w._data, cols._data))


def _product(w: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """w @ cols: np.matmul's product, or where the weight gradient's GEMMs are split into
    blocks of rows (_row_block), GEMMs over the same blocks of R each added to the last
    (vm/blas_lib.py, numpy's OpenBLAS). Per 8 samples, CPU ms, np.matmul vs blocks: O/G 16,
    R 145, S 1024 0.84 vs 0.55; S 4096 3.7 vs 2.3; O/G 16, R 28, S 4096 (16 samples) 1.6 vs
    1.1; O/G 32, R 289, S 1024 2.2 vs 1.8."""
    # (the pixel count first: _row_block's first test, and a small convolution's only one)
    if cols.ndim == 4 and cols.shape[3] >= _MANY_PIXELS and w.ndim == 3 and \
            cols.shape[1] == w.shape[0] and cols.shape[2] == w.shape[2] and w.shape[1] > 1 and \
            w.dtype in (_F32, _F64) and cols.dtype == w.dtype and cols.flags.c_contiguous:
        (N, G, R, S), Og = cols.shape, w.shape[1]
        block = _row_block(Og, R, S)
        if block < R and _numpys_openblas():
            wt = np.ascontiguousarray(np.swapaxes(w, -1, -2))
            out = np.empty((N, G, Og, S), w.dtype)
            kernels = compiled_kernels("forward_window")
            if kernels is not None:     # (the same calls as blas_lib's, from compiled code)
                kernels.conv_product_blocks(wt.reshape(-1), cols.reshape(-1),
                                            out.reshape(-1), N, G, R, S, Og, block)
            else:
                from ..vm import blas_lib
                blas_lib.conv_forward_blocks(wt, cols, out, block)
            return out
    return _np_matmul(w, cols)


_OPENBLAS: list = []


def _numpys_openblas() -> bool:
    """Whether jitgrad's GEMMs call numpy's OpenBLAS (vm/blas_lib.py; looked up once: the
    library is loaded on the first blocked product, not on `import jitgrad`)."""
    if not _OPENBLAS:
        from ..vm import blas_lib
        _OPENBLAS.append(blas_lib.FOUND is not None and blas_lib.FOUND.kind == "openblas")
    return _OPENBLAS[0]


def _forward_rule(w: np.ndarray, cols: np.ndarray, transpose_x: bool, transpose_y: bool
                  ) -> np.ndarray:
    if transpose_x or transpose_y:
        return _forward(w, cols, transpose_x, transpose_y)
    return _product(w, cols)


def _case(w_shape, cols_shape):
    return {"shapes": (w_shape, cols_shape), "attrs": dict(_NO_TRANSPOSE)}


conv_product_op = defop(
    "conv_product",
    fused="GEMM: a convolution's weights times its columns, the weight gradient computed "
          "transposed (fewer filters than column rows run OpenBLAS at half speed)",
    forward=_forward_rule, nin=2, vjp=_vjp, lower=_lower_rule, interp=_interp_rule, min_ndim=3,
    cases=(_case((1, 2, 5), (3, 1, 5, 4)), _case((2, 3, 4), (2, 2, 4, 3)),
           _case((1, 4, 2), (2, 1, 2, 3)), _case((2, 1, 3), (2, 2, 3, 2))))
