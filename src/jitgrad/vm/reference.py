"""The numpy reference interpreter: the living definition of every opcode.

Plain and slow on purpose. The compiled interpreter must agree with it on every Program;
tests run both. Set JITGRAD_VM=reference to use it everywhere (debugging, coverage).
"""

from __future__ import annotations

import ctypes

import numpy as np

from .program import EXT, EXT_LOW, NAMES


ROUND_TYPES = {16: np.float16, 32: np.float32}      # ROUND's itab[p] -> the narrower type


def _view(arena: np.ndarray, itab: np.ndarray, off: int, n: int) -> np.ndarray:
    """The n-element operand at field value `off`: an arena slice, or for an external
    operand (program.EXT) the memory at the address itab holds (writable: an owned leaf
    gradient's row writes through one)."""
    if off < EXT:
        return arena[off:off + n]
    e = off - EXT
    if n == 0:
        return arena[:0]
    address = int(itab[e >> 32]) + (e & EXT_LOW) * arena.itemsize
    buf = (ctypes.c_char * (n * arena.itemsize)).from_address(address)
    return np.frombuffer(buf, arena.dtype, n)


def _gemm(p: np.ndarray, out: int, a: int, b: int, arena: np.ndarray, itab: np.ndarray,
          acc: bool) -> None:
    batch, m, n, k, ta, tb, sa, sb, sc = (int(v) for v in p)
    for j in range(batch):
        A = _view(arena, itab, a + j * sa, m * k)
        B = _view(arena, itab, b + j * sb, k * n)
        A = A.reshape(k, m).T if ta else A.reshape(m, k)
        B = B.reshape(n, k).T if tb else B.reshape(k, n)
        C = _view(arena, itab, out + j * sc, m * n).reshape(m, n)
        if acc or (sc == 0 and j > 0):
            C += A @ B
        else:
            C[...] = A @ B


def _col2im(p: np.ndarray, a: int, arena: np.ndarray) -> np.ndarray:
    N, C, H, W, G, R, kh, kw, sh, sw, dh, dw, pt, pl, Ho, Wo = (int(v) for v in p)
    cols = arena[a:a + N * G * R * Ho * Wo].reshape(N, G, R, Ho * Wo)
    cols = cols[:, :, :C // G * kh * kw].reshape(N, C, kh, kw, Ho, Wo)
    Hp = max(pt + H, (Ho - 1) * sh + (kh - 1) * dh + 1)
    Wp = max(pl + W, (Wo - 1) * sw + (kw - 1) * dw + 1)
    img = np.zeros((N, C, Hp, Wp), arena.dtype)
    for i in range(kh):
        for j in range(kw):
            img[:, :, i * dh:i * dh + (Ho - 1) * sh + 1:sh,
                j * dw:j * dw + (Wo - 1) * sw + 1:sw] += cols[:, :, i, j]
    return img[:, :, pt:pt + H, pl:pl + W].ravel()


def _pool_bwd(p: np.ndarray, a: int, b: int, arena: np.ndarray) -> np.ndarray:
    N, C, H, W, kh, kw, sh, sw, pt, pl, Ho, Wo = (int(v) for v in p)
    m = N * C * Ho * Wo
    g, k = arena[a:a + m], arena[b:b + m].astype(np.int64)
    q = np.arange(m)
    h = (q // Wo) % Ho * sh + k // kw - pt
    w = q % Wo * sw + k % kw - pl
    ok = (h >= 0) & (h < H) & (w >= 0) & (w < W)
    img = np.zeros(N * C * H * W, arena.dtype)
    np.add.at(img, (q // (Ho * Wo) * (H * W) + h * W + w)[ok], g[ok])
    return img


def _rows(x: np.ndarray, p: np.ndarray) -> np.ndarray:
    outer, length, inner = (int(v) for v in p[:3])
    return x.reshape(outer, length, inner)


_STEPS = {
    "AXPY": lambda K, A, B, C: K * A,
    "MUL": lambda K, A, B, C: K * A * B,
    "DIV": lambda K, A, B, C: K * A / B,
    "DIVK": lambda K, A, B, C: A / K,
    "MULDIV": lambda K, A, B, C: K * A * B / C,
    "TANH_BWD": lambda K, A, B, C: A * (1 - B * B),
    "SIGMOID_BWD": lambda K, A, B, C: A * B * (1 - B),
    "RELU_BWD": lambda K, A, B, C: np.where(B > 0, A, 0).astype(A.dtype),
}


def _chain(arena: np.ndarray, itab: np.ndarray, consts: np.ndarray, a: int, n: int,
           p: int) -> np.ndarray:
    """CHAIN: the fused steps one after another, each the same expression as its opcode."""
    steps, scalar = int(itab[p]), bool(itab[p + 1])
    v = np.full(n, arena[a], arena.dtype) if scalar else arena[a:a + n].copy()
    for s in range(steps):
        op, b, c, k = (int(x) for x in itab[p + 2 + 4 * s: p + 6 + 4 * s])
        v = _STEPS[NAMES[op]](consts[k], v, _view(arena, itab, b, n), _view(arena, itab, c, n))
    return v


def run(code: np.ndarray, arena: np.ndarray, itab: np.ndarray, consts: np.ndarray,
        start: int = 0, stop: int = -1) -> int:
    """Execute instructions start..stop-1 (all by default) in order; returns 0.

    inf and nan results are silent, as in the compiled interpreter (and in Paddle).
    """
    with np.errstate(all="ignore"):
        return _run(code, arena, itab, consts, start, stop)


def _run(code: np.ndarray, arena: np.ndarray, itab: np.ndarray, consts: np.ndarray,
         start: int, stop: int) -> int:
    stop = code.shape[0] if stop < 0 else stop
    for pc in range(start, stop):
        opacc, o, a, b, c, n, p, k = (int(v) for v in code[pc])
        name, acc, K = NAMES.get(opacc >> 1, str(opacc >> 1)), bool(opacc & 1), consts[k]
        A, B, C = (_view(arena, itab, v, n) for v in (a, b, c))
        idx = itab[p:p + n]
        out = _view(arena, itab, o, max(n, 1))   # (SUM writes one element whatever n is)
        if name == "ZERO":
            out[:n] = 0
            continue
        elif name == "AXPY":
            val = K * A
        elif name == "MUL":
            val = K * A * B
        elif name == "DIV":
            val = K * A / B
        elif name == "DIVK":
            val = A / K
        elif name == "MULDIV":
            val = K * A * B / C
        elif name == "TANH_BWD":
            val = A * (1 - B * B)
        elif name == "SIGMOID_BWD":
            val = A * B * (1 - B)
        elif name == "RELU_BWD":
            val = np.where(B > 0, A, 0)
        elif name == "SUM":
            s = K * A.sum()
            out[0] = out[0] + s if acc else s
            continue
        elif name == "BCAST":
            val = np.full(n, K * arena[a], arena.dtype)
        elif name == "GATHER":
            val = K * arena[a + idx]
        elif name == "GATHER_MUL":
            val = arena[a + idx] * B
        elif name == "SCATTER":
            np.add.at(arena, o + idx, A)
            continue
        elif name == "GEMM":
            _gemm(itab[p:p + 9], o, a, b, arena, itab, acc)
            continue
        elif name in ("SOFTMAX_BWD", "LOGSOFTMAX_BWD"):
            g, y = _rows(A, itab[p:p + 3]), _rows(B, itab[p:p + 3])
            if name == "SOFTMAX_BWD":
                val = (y * (g - (g * y).sum(axis=1, keepdims=True))).ravel()
            else:
                val = (g - y * g.sum(axis=1, keepdims=True)).ravel()
        elif name == "ROWSUM":
            rows = int(itab[p])
            val = out[:n] if acc else np.zeros(n, arena.dtype)
            for r in range(rows):                   # in order, as SCATTER would add them
                val = val + arena[a + r * n:a + r * n + n]
            out[:n] = val
            continue
        elif name == "CHAIN":
            val = _chain(arena, itab, consts, a, n, p)
        elif name == "CUMSUM":
            rows = _rows(A, itab[p:p + 3])
            if itab[p + 3]:
                val = np.cumsum(rows[:, ::-1], axis=1)[:, ::-1].ravel()
            else:
                val = np.cumsum(rows, axis=1).ravel()
        elif name == "COL2IM":
            val = _col2im(itab[p:p + 16], a, arena)
        elif name == "POOL_BWD":
            val = _pool_bwd(itab[p:p + 12], a, b, arena)
        elif name == "LINSCAN":
            rows, mul = _rows(A, itab[p:p + 3]), _rows(B, itab[p:p + 3])
            r, length = np.empty_like(rows), rows.shape[1]
            order = range(length - 1, -1, -1) if itab[p + 3] else range(length)
            prev = -1
            for t in order:
                r[:, t] = rows[:, t] if prev < 0 else rows[:, t] + mul[:, t] * r[:, prev]
                prev = t
            val = r.ravel()
        elif name == "ROUND":
            val = A.astype(ROUND_TYPES[int(itab[p])]).astype(arena.dtype)
        else:
            raise NotImplementedError(f"reference VM has no opcode {name}")
        if acc:
            out[:n] += val
        else:
            out[:n] = val
    return 0
