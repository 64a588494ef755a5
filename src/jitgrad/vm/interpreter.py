"""The compiled backward interpreter: one @njit loop over a Program's rows.

An if/elif chain over opcodes measured fastest for small and large operands alike
(NUMBA_NOTES.md section 4: ~3 ns dispatch per instruction, kernels at memory bandwidth),
ahead of function tables and per-graph code generation. Short opcodes are written out in
the loop; the longer ones call their kernel in kernels.py, and every operand is a view
made by kernels._view (the arena, or a large saved value outside it). Validation is all
done by the lowering; nothing here checks its input.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .program import OP
from ._numba import jit
from . import blas, kernels, norm_kernels, threads
from .blas import gemm, trsm
from .kernels import (TILE, _chain, _col2im, _cumsum_rows, _expand, _linscan_rows,
                      _pool_bwd, _round_into, _rows_bwd, _sign, _span, _strided, _view)
from .norm_kernels import _chansum, _midsum, _norm_bwd

ZERO, AXPY, MUL, DIV, MULDIV = OP["ZERO"], OP["AXPY"], OP["MUL"], OP["DIV"], OP["MULDIV"]
DIVK = OP["DIVK"]
TANH_BWD, SIGMOID_BWD, RELU_BWD = OP["TANH_BWD"], OP["SIGMOID_BWD"], OP["RELU_BWD"]
SUM, BCAST, GATHER, GATHER_MUL = OP["SUM"], OP["BCAST"], OP["GATHER"], OP["GATHER_MUL"]
SCATTER, GEMM = OP["SCATTER"], OP["GEMM"]
SOFTMAX_BWD, LOGSOFTMAX_BWD = OP["SOFTMAX_BWD"], OP["LOGSOFTMAX_BWD"]
CHAIN = OP["CHAIN"]
ROWSUM = OP["ROWSUM"]
CUMSUM = OP["CUMSUM"]
LINSCAN = OP["LINSCAN"]
COL2IM = OP["COL2IM"]
POOL_BWD = OP["POOL_BWD"]
ROUND = OP["ROUND"]
CHANSUM, NORM_BWD, MIDSUM = OP["CHANSUM"], OP["NORM_BWD"], OP["MIDSUM"]
EXPAND, EXPAND_MUL = OP["EXPAND"], OP["EXPAND_MUL"]
ADDK, RECIP, SQRT, SIGN = OP["ADDK"], OP["RECIP"], OP["SQRT"], OP["SIGN"]
STRIDED = OP["STRIDED"]
TRSM = OP["TRSM"]

# the files whose code Numba compiles into this file's functions: their stamps join the
# disk cache's key, so editing a kernel recompiles `run` as it did when they lived here
STAMP_WITH = (kernels.__file__, norm_kernels.__file__, blas.__file__)


@jit(stamp_with=STAMP_WITH)
def _trsm_rows(arena, itab, o, a, b, prm):  # pragma: no cover - compiled
    """TRSM (opcodes.py): b_j copied to out_j (unless they are one slot), then solved in
    place there by blas.trsm."""
    nb, m, n, left = prm[0], prm[1], prm[2], prm[3] != 0
    upper, trans, unit, sa, sb = prm[4] != 0, prm[5] != 0, prm[6] != 0, prm[7], prm[8]
    k = m if left else n
    size = m * n
    for j in range(nb):
        out = _view(arena, itab, o + j * size, size)
        if b != o or sb != size:
            src = _view(arena, itab, b + j * sb, size)
            for i in range(size):
                out[i] = src[i]
        trsm(_view(arena, itab, a + j * sa, k * k), out, m, n, left, upper, trans, unit)


@jit(stamp_with=STAMP_WITH)
def run(code, arena, itab, consts, start, stop, par_min):  # pragma: no cover - compiled
    """Rows start..stop-1; returns -1, an unknown opcode, or -2 - pc for a CHAIN row of
    at least `par_min` elements that `run_program` runs in parallel parts."""
    one = consts[0]                      # 1.0 in the arena's dtype: no float64 promotion
    zero = one - one
    # the CHAIN rows' scratch tile, allocated once per run: an allocation per CHAIN row was
    # ~35 ns of a short chain's ~140 (a program of forty 3-step chains on 64 elements: 7.2
    # -> 5.7 us); allocating it on the first CHAIN row measured slower (6.0 us)
    tile = np.empty(TILE, arena.dtype)
    for pc in range(start, stop):
        opacc = code[pc, 0]
        op = opacc >> 1
        acc = (opacc & 1) == 1
        o = code[pc, 1]
        a = code[pc, 2]
        b = code[pc, 3]
        n = code[pc, 5]
        if op == CHAIN:                  # first, and before the slices below: a view
            if n >= par_min:             # costs an NRT incref/decref pair
                return -2 - pc           # the caller splits this row between threads
            _chain(arena, itab, consts, o, a, 0, n, code[pc, 6], acc, tile)
            continue
        K = consts[code[pc, 7]]
        out = _view(arena, itab, o, n)
        A = _view(arena, itab, a, n)
        if op == AXPY:
            if acc:
                for i in range(n):
                    out[i] += K * A[i]
            else:
                for i in range(n):
                    out[i] = K * A[i]
        elif op == MUL:
            B = _view(arena, itab, b, n)
            if acc:
                for i in range(n):
                    out[i] += K * A[i] * B[i]
            else:
                for i in range(n):
                    out[i] = K * A[i] * B[i]
        elif op == TANH_BWD:
            B = _view(arena, itab, b, n)
            if acc:
                for i in range(n):
                    out[i] += A[i] * (one - B[i] * B[i])
            else:
                for i in range(n):
                    out[i] = A[i] * (one - B[i] * B[i])
        elif op == SUM:
            s = zero
            for i in range(n):
                s += A[i]
            if acc:
                out[0] += K * s
            else:
                out[0] = K * s
        elif op == BCAST:
            v = K * arena[a]
            if acc:
                for i in range(n):
                    out[i] += v
            else:
                for i in range(n):
                    out[i] = v
        elif op == DIV:
            B = _view(arena, itab, b, n)
            if acc:
                for i in range(n):
                    out[i] += K * A[i] / B[i]
            else:
                for i in range(n):
                    out[i] = K * A[i] / B[i]
        elif op == DIVK:
            if acc:
                for i in range(n):
                    out[i] += A[i] / K
            else:
                for i in range(n):
                    out[i] = A[i] / K
        elif op == MULDIV:
            B = _view(arena, itab, b, n)
            C = _view(arena, itab, code[pc, 4], n)
            if acc:
                for i in range(n):
                    out[i] += K * A[i] * B[i] / C[i]
            else:
                for i in range(n):
                    out[i] = K * A[i] * B[i] / C[i]
        elif op == SIGMOID_BWD:
            B = _view(arena, itab, b, n)
            if acc:
                for i in range(n):
                    out[i] += A[i] * B[i] * (one - B[i])
            else:
                for i in range(n):
                    out[i] = A[i] * B[i] * (one - B[i])
        elif op == RELU_BWD:
            B = _view(arena, itab, b, n)
            if acc:
                for i in range(n):
                    out[i] += A[i] if B[i] > zero else zero
            else:
                for i in range(n):
                    out[i] = A[i] if B[i] > zero else zero
        elif op == ZERO:
            out[:] = zero
        elif op == GATHER:
            idx = _span(itab, code[pc, 6], n)
            if acc:
                for i in range(n):
                    out[i] += K * arena[a + idx[i]]
            else:
                for i in range(n):
                    out[i] = K * arena[a + idx[i]]
        elif op == EXPAND or op == EXPAND_MUL:
            _expand(arena, itab, o, a, b, _span(itab, code[pc, 6], 6), K, acc,
                    op == EXPAND_MUL)
        elif op == GATHER_MUL:
            idx = _span(itab, code[pc, 6], n)
            B = _view(arena, itab, b, n)
            if acc:
                for i in range(n):
                    out[i] += arena[a + idx[i]] * B[i]
            else:
                for i in range(n):
                    out[i] = arena[a + idx[i]] * B[i]
        elif op == SCATTER:
            idx = _span(itab, code[pc, 6], n)
            for i in range(n):
                arena[o + idx[i]] += A[i]
        elif op == GEMM:
            p = code[pc, 6]
            nb, m, nn, kk = itab[p], itab[p + 1], itab[p + 2], itab[p + 3]
            ta, tb = itab[p + 4] != 0, itab[p + 5] != 0
            sa, sb, sc = itab[p + 6], itab[p + 7], itab[p + 8]
            for j in range(nb):
                gemm(_view(arena, itab, a + j * sa, m * kk),
                     _view(arena, itab, b + j * sb, kk * nn),
                     _view(arena, itab, o + j * sc, m * nn),
                     m, nn, kk, ta, tb, acc or (sc == 0 and j > 0))
        elif op == TRSM:
            p = code[pc, 6]
            _trsm_rows(arena, itab, o, a, b, _span(itab, p, 9))
        elif op == SOFTMAX_BWD or op == LOGSOFTMAX_BWD:
            p = code[pc, 6]
            _rows_bwd(out, A, _view(arena, itab, b, n), itab[p], itab[p + 1], itab[p + 2],
                      acc, op == LOGSOFTMAX_BWD, itab[p + 3] != 0, K)
        elif op == ROWSUM:               # summed in the tile, added to out once: a leaf's
            rows = itab[code[pc, 6]]     # writer row may add straight into its .grad
            for j0 in range(0, n, TILE):
                m = min(TILE, n - j0)
                buf = _span(tile, 0, m)
                for j in range(m):
                    buf[j] = zero
                for r in range(rows):
                    S = _view(arena, itab, a + r * n + j0, m)
                    for j in range(m):
                        buf[j] += S[j]
                dst = _view(arena, itab, o + j0, m)
                if acc:
                    for j in range(m):
                        dst[j] += buf[j]
                else:
                    for j in range(m):
                        dst[j] = buf[j]
        elif op == CUMSUM:
            p = code[pc, 6]
            _cumsum_rows(out, A, itab[p], itab[p + 1], itab[p + 2], acc, itab[p + 3] != 0)
        elif op == COL2IM:
            p = code[pc, 6]
            prm = _span(itab, p, 16)
            _col2im(out, arena[a:a + prm[0] * prm[4] * prm[5] * prm[14] * prm[15]], prm, acc)
        elif op == POOL_BWD:
            p = code[pc, 6]
            prm = _span(itab, p, 12)
            m = prm[0] * prm[1] * prm[10] * prm[11]
            _pool_bwd(out, arena[a:a + m], arena[b:b + m], prm, acc)
        elif op == LINSCAN:
            p = code[pc, 6]
            _linscan_rows(out, A, arena[b:b + n], itab[p], itab[p + 1], itab[p + 2], acc,
                          itab[p + 3] != 0)
        elif op == ROUND:
            _round_into(out, A, n, itab[code[pc, 6]], acc)
        elif op == CHANSUM:
            p = code[pc, 6]
            _chansum(out, arena[a:a + itab[p] * n * itab[p + 1]], itab[p], n, itab[p + 1],
                     acc)
        elif op == MIDSUM:
            p = code[pc, 6]
            _midsum(out, arena[a:a + n * itab[p]], n, itab[p], itab[p + 1], acc)
        elif op == NORM_BWD:
            p = code[pc, 6]
            prm = _span(itab, p, 5)
            _norm_bwd(out, A, _view(arena, itab, b, n), arena[code[pc, 4]:code[pc, 4] +
                      prm[1] + prm[3]], prm, acc)
        elif op == STRIDED:
            p = code[pc, 6]
            _strided(arena, itab, o, a, _span(itab, p, 2 * itab[p] + 2), K, acc)
        elif op == ADDK:
            if acc:
                for i in range(n):
                    out[i] += A[i] + K
            else:
                for i in range(n):
                    out[i] = A[i] + K
        elif op == RECIP:
            if acc:
                for i in range(n):
                    out[i] += K / A[i]
            else:
                for i in range(n):
                    out[i] = K / A[i]
        elif op == SQRT:
            if acc:
                for i in range(n):
                    out[i] += np.sqrt(A[i])
            else:
                for i in range(n):
                    out[i] = np.sqrt(A[i])
        elif op == SIGN:
            if acc:
                for i in range(n):
                    out[i] += _sign(A[i], one, zero)
            else:
                for i in range(n):
                    out[i] = _sign(A[i], one, zero)
        else:
            return op                    # unknown opcode: the caller raises
    return -1


@jit(stamp_with=STAMP_WITH)
def run_batched(code, arena, itab, consts, seed_pos, seeds, out_pos, outs):  # pragma: no cover
    """The whole Program once per row k of `seeds`: the seed slots (rows (offset, size) of
    seed_pos) take seeds[k] laid end to end, and the slots of out_pos are copied out to
    outs[k] after the run. K runs in one call: no Python between them (Jacobian rows, many
    cotangents of one retained graph). Returns -1, or an unknown opcode."""
    never = np.int64(1) << 62               # threads.NEVER: no CHAIN split between rows
    for k in range(seeds.shape[0]):
        c = 0
        for s in range(seed_pos.shape[0]):
            off, n = seed_pos[s, 0], seed_pos[s, 1]
            for i in range(n):
                arena[off + i] = seeds[k, c + i]
            c += n
        status = run(code, arena, itab, consts, 0, code.shape[0], never)
        if status != -1:
            return status
        c = 0
        for s in range(out_pos.shape[0]):
            off, n = out_pos[s, 0], out_pos[s, 1]
            for i in range(n):
                outs[k, c + i] = arena[off + i]
            c += n
    return -1


@jit(stamp_with=STAMP_WITH)
def chain_part(code, arena, itab, consts, pc, lo, hi):  # pragma: no cover - compiled
    """Elements lo..hi-1 of the CHAIN row pc (one thread's share)."""
    _chain(arena, itab, consts, code[pc, 1], code[pc, 2], lo, hi, code[pc, 6],
           (code[pc, 0] & 1) == 1, np.empty(TILE, arena.dtype))


def run_program(code: np.ndarray, arena: np.ndarray, itab: np.ndarray, consts: np.ndarray,
                start: int, stop: int) -> None:
    status = run(code, arena, itab, consts, start, stop, threads.par_min())
    if status != -1:
        resume(status, code, arena, itab, consts, stop)


def resume(status: int, code: np.ndarray, arena: np.ndarray, itab: np.ndarray,
           consts: np.ndarray, stop: int) -> None:
    """After `run` returned `status` != -1: split the CHAIN row it handed back between
    threads and carry on after it, until done; raise for an unknown opcode."""
    while status < -1:
        pc = -2 - status
        threads.split(chain_part, (code, arena, itab, consts, pc), int(code[pc, 5]), TILE)
        status = run(code, arena, itab, consts, pc + 1, stop, threads.par_min())
    if status != -1:
        raise RuntimeError(f"compiled interpreter has no kernel for opcode {status}")


# arena dtype -> `run`'s entry point for C-contiguous writeable arrays (every Workspace's):
# numba.typeof on six arguments costs ~40 us, more than a small Program's run
_entries: dict = {}


def bound_call(code: np.ndarray, arena: np.ndarray, itab: np.ndarray,
               consts: np.ndarray) -> Callable[[], None]:
    """A call of `run` over all rows through its compiled entry point for exactly these
    argument types: what run_program does, minus the dispatcher's type matching."""
    args = (code, arena, itab, consts, 0, len(code), threads.par_min())
    cf, af, itf, kf = code.flags, arena.flags, itab.flags, consts.flags
    plain = cf.c_contiguous and cf.writeable and af.c_contiguous and af.writeable and \
        itf.c_contiguous and itf.writeable and kf.c_contiguous and kf.writeable and \
        code.ndim == 2 and arena.ndim == itab.ndim == consts.ndim == 1 and \
        code.dtype == itab.dtype == np.int64 and consts.dtype == arena.dtype
    entry = _entries.get(arena.dtype) if plain else None
    if entry is None:
        from numba import typeof, types
        sig = tuple(typeof(a) for a in args[:6]) + (types.int64,)
        if sig not in run.overloads:
            run(*args)                          # compiles this signature (rare: odd arrays)
        entry = run.overloads[sig].entry_point
        if plain:
            _entries[arena.dtype] = entry
    stop = len(code)

    def call() -> None:
        status = entry(*args)
        if status != -1:
            resume(status, code, arena, itab, consts, stop)
    return call
