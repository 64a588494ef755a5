"""A convolution's input gradient one sample at a time: its column-gradient GEMM and its
COL2IM interleaved per sample, through one sample's column buffer.

Why: conv2d's backward lowers to a batched GEMM writing the gradient of every sample's
columns (N x G x R x Ho*Wo: 4.7 MB for an 8 x 16 x 32 x 32 input with 16 3x3 filters),
then COL2IM summing them back onto the image. The GEMM already runs batch by batch; done
sample by sample with COL2IM right after, each sample's columns (one N-th of the buffer)
are summed back while they are still in cache, and every sample reuses the first
sample's region. Every element is computed by the same kernels in the same order (the
GEMM's batches are independent, COL2IM's samples write disjoint planes), so the values
are bitwise those of the two rows.

Blocks of channels: when the GEMM reads one group's w^T [R, O] untransposed
(ops/conv_product.py), a sample's pair is split again into a pair per block of channels
(kh * kw rows of w^T each), as many channels as keep m * n * k within OpenBLAS's
small-matrix kernel (SMALL_GEMM): the 8 samples' GEMMs and COL2IMs of an
8 x 16 x 32 x 32 input with 16 3x3 filters took 0.61 ms in blocks of 4 channels against
1.03 whole, 1.29 against 2.08 for 16 x 3 x 64 x 64 in single channels (CPU time).
That kernel computes the same products as the whole GEMM's: bitwise on the shapes of
tests/test_conv_product.py, within float32 rounding in general.
"""

from __future__ import annotations

import numpy as np

from ..vm.program import EXT, OP, Program
from .slot_index import _Refs, _intervals, _overlaps, _write_spans

_GEMM, _COL2IM = OP["GEMM"], OP["COL2IM"]
# OpenBLAS (0.3.31, numpy's) runs a GEMM of m * n * k <= 100^3 on its small-matrix kernel,
# which neither zeroes C first nor packs: 0.36 ns per element of C against 0.72 for a
# k = 16 product just above (m 61 vs 62 rows of n 1024, either transpose of A). The
# convolution gradients split their GEMMs to fit (here and ops/conv_product.py)
SMALL_GEMM = 100 ** 3


def interleave_col2im(prog: Program, protected: list) -> int:
    """Split each (batched GEMM -> COL2IM) pair whose GEMM output only COL2IM reads into
    per-sample pairs at the COL2IM's place; returns how many pairs were split."""
    code = prog.code
    cols = np.flatnonzero((code[:, 0] >> 1) == _COL2IM).tolist()
    if not cols:
        return 0
    refs = _Refs(code)
    writes = _write_spans(code)
    guard = _intervals(protected)
    itab = prog.itab
    plans = []
    for c in cols:
        plan = _plan(code, itab, refs, writes, guard, c)
        if plan is not None:
            plans.append(plan)
    if not plans:
        return 0
    tables = [itab]
    size = itab.size
    rows: list = []
    names: list | None = [] if prog.node_names else None
    drop = {g for g, _, _ in plans}
    split = {c: (g, n) for g, c, n in plans}
    for r in range(code.shape[0]):
        if r in drop:
            continue
        if r not in split:
            rows.append(code[r])
            if names is not None:
                names.append(prog.node_names[r])
            continue
        g, samples = split[r]
        block = _channel_block(itab, int(code[g, 6]), int(code[r, 6]), samples)
        pairs = _tables(itab, int(code[g, 6]), int(code[r, 6]), samples, block)
        at = []                                 # (each pair of tables serves every sample)
        for gtab, ctab in pairs:
            tables += [gtab, ctab]
            at.append((size, size + gtab.size))
            size += gtab.size + ctab.size
        for gemm, col, t in _pairs(code, itab, g, r, samples, block):
            gemm[6], col[6] = at[t]
            rows += [gemm, col]
            if names is not None:
                names += [prog.node_names[g], prog.node_names[r]]
    prog.code = np.ascontiguousarray(np.array(rows, dtype=np.int64).reshape(-1, code.shape[1]))
    prog.itab = np.ascontiguousarray(np.concatenate(tables), dtype=np.int64)
    if names is not None:
        prog.node_names = names
    return len(plans)


def _plan(code, itab, refs, writes, guard, c: int) -> tuple | None:
    """(GEMM row, COL2IM row, samples) when row c's columns come from one plain batched
    GEMM that nothing else touches and whose inputs nothing rewrites before row c."""
    src = int(code[c, 2])
    at = refs.at.get(src, [])
    gs = [r for r, f in at if f == 1]
    if len(at) != 2 or len(gs) != 1 or (c, 2) not in at:
        return None
    g = gs[0]
    if g >= c or int(code[g, 0]) != _GEMM << 1:         # an overwriting GEMM, before c
        return None
    p, q = int(code[g, 6]), int(code[c, 6])
    nb, m, n, k, ta, tb, sa, sb, sc = (int(v) for v in itab[p:p + 9])
    N, C, H, W, G, R = (int(v) for v in itab[q:q + 6])
    Ho, Wo = int(itab[q + 14]), int(itab[q + 15])
    if N < 2 or nb % N or sc != m * n or (nb // N) * sc != G * R * Ho * Wo:
        return None
    total = nb * sc
    if refs.interior(src, src + total) or _overlaps(src, src + total, guard):
        return None
    for f, extent in ((2, (nb - 1) * sa + m * k), (3, (nb - 1) * sb + k * n)):
        v = int(code[g, f])                             # inputs unchanged until row c
        if v < EXT and writes.any_row_in(v, v + extent, g + 1, c):
            return None
    return g, c, N


def _channel_block(itab, p: int, q: int, samples: int) -> int:
    """Channels per (GEMM, COL2IM) pair within a sample, 0 for the whole sample: when the
    GEMM reads one group's w^T untransposed and shared by the samples (ops/conv_product.py),
    blocks of channels whose GEMM has m * n * k <= SMALL_GEMM."""
    nb, m, n, k, ta, tb, sa = (int(v) for v in itab[p:p + 7])
    C, G, kh, kw = int(itab[q + 1]), int(itab[q + 4]), int(itab[q + 6]), int(itab[q + 7])
    if G != 1 or ta or tb or sa or nb != samples:
        return 0
    block = SMALL_GEMM // (kh * kw * n * k)
    return block if 0 < block < C else 0


def _tables(itab, p: int, q: int, samples: int, block: int) -> list:
    """The GEMM's and the COL2IM's parameters for one sample (nb / samples batches, N 1),
    or for a block of `block` channels of it and for the last, shorter, block if any."""
    gtab, ctab = itab[p:p + 9].copy(), itab[q:q + 16].copy()
    gtab[0] //= samples
    ctab[0] = 1
    if not block:
        return [(gtab, ctab)]
    C, kk = int(ctab[1]), int(ctab[6] * ctab[7])
    out = []
    for c in dict.fromkeys((block, C % block)):
        if c:
            g2, c2 = gtab.copy(), ctab.copy()
            g2[1], g2[8] = c * kk, c * kk * int(gtab[2])        # m rows, C's size
            c2[1], c2[5] = c, c * kk                            # channels, rows
            out.append((g2, c2))
    return out


def _pairs(code, itab, g: int, c: int, samples: int, block: int):
    """Per sample j (and block of channels): (GEMM row, COL2IM row, index of its tables in
    _tables'), fields cut to that part; every GEMM writes the first sample's region."""
    nb, m, n, k, _, _, sa, sb, sc = (int(v) for v in itab[int(code[g, 6]):][:9])
    C, H, W = (int(v) for v in itab[int(code[c, 6]) + 1:][:3])
    kk = int(itab[int(code[c, 6]) + 6] * itab[int(code[c, 6]) + 7])
    per, plane = nb // samples, C * H * W
    for j in range(samples):
        for c0 in (range(0, C, block) if block else (0,)):
            part = min(block, C - c0) if block else C
            gemm, col = code[g].copy(), code[c].copy()
            gemm[2] += j * per * sa + c0 * kk * k       # (block: rows c0 * kk.. of w^T)
            gemm[3] += j * per * sb
            gemm[5] = per * sc if not block else part * kk * n
            col[1] += j * plane + c0 * H * W
            col[5] = part * H * W
            yield gemm, col, int(block and part != block)
