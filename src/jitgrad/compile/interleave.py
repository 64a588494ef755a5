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
"""

from __future__ import annotations

import numpy as np

from ..vm.program import EXT, OP, Program
from .slot_index import _Refs, _intervals, _overlaps, _write_spans

_GEMM, _COL2IM = OP["GEMM"], OP["COL2IM"]


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
        gtab, ctab = _tables(itab, int(code[g, 6]), int(code[r, 6]), samples)
        tables += [gtab, ctab]                  # (one pair of tables serves every sample)
        for gemm, col in _pairs(code, itab, g, r, samples):
            gemm[6], col[6] = size, size + gtab.size
            rows += [gemm, col]
            if names is not None:
                names += [prog.node_names[g], prog.node_names[r]]
        size += gtab.size + ctab.size
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


def _tables(itab, p: int, q: int, samples: int) -> tuple:
    """The GEMM's and the COL2IM's parameters for one sample: nb / samples batches, N 1."""
    gtab, ctab = itab[p:p + 9].copy(), itab[q:q + 16].copy()
    gtab[0] //= samples
    ctab[0] = 1
    return gtab, ctab


def _pairs(code, itab, g: int, c: int, samples: int):
    """Per sample j: (GEMM row, COL2IM row), fields cut to that sample; every GEMM writes
    the first sample's column region."""
    nb, m, n, _, _, _, sa, sb, sc = (int(v) for v in itab[int(code[g, 6]):][:9])
    C, H, W = (int(v) for v in itab[int(code[c, 6]) + 1:][:3])
    per, plane = nb // samples, C * H * W
    for j in range(samples):
        gemm, col = code[g].copy(), code[c].copy()
        gemm[2] += j * per * sa
        gemm[3] += j * per * sb
        gemm[5] = per * sc
        col[1] += j * plane
        col[5] = plane
        yield gemm, col
