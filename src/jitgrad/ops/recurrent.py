"""Fused recurrences: a whole sequence of LSTM, GRU or simple-RNN steps as one op.

Why one op per sequence: unrolled into elementwise ops, a 20-step LSTM records ~300 nodes,
and each step of training pays ~7 us a node in Python (the eager forward, the graph walk
that finds its cached Program). As one node, the forward is a numpy loop of a few calls a
step and the backward is lowered to per-step GEMM / GATHER_MUL / MUL rows (one Program,
cached by structure like any other), the truncated-BPTT of cuDNN-style kernels. The cells
(nn.LSTMCell ...) stay composites; these ops compute exactly their recurrence.

Each op takes the input projections of every step at once, gx [T, B, G*H] = x @ W_ih^T +
b_ih (one batched matmul outside), the recurrent weight w [G*H, H] and bias b [G*H]
(Paddle's weight_hh / bias_hh), the initial state, and returns the state after each step in
time order: [T, B, H], or [T, 2, B, H] for the LSTM (h, then c). Gates are in Paddle's
order: LSTM i, f, g (cell), o; GRU r, z, c (reset applied after the matmul). Attributes:
`reverse` runs the steps from T-1 down to 0; `mask` (bool [T, B], or None) leaves the state
unchanged at steps where it is False (padding), as Paddle's sequence_length does.

The forward saves, in time order: the h each step started from, and per-element
multipliers that make every backward step linear in N, the gradient of the new state
(recurrent_lower.py): px (gate-input gradient = N[sel] * px), cm (the direct carry to the
previous state = N * cm), and q (LSTM: dc += dh * q) or ph (GRU: the recurrent gate
gradient). The mask is folded into them.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .core import apply, const
from .elementwise import sigmoid, tanh
from .indexing import concat, stack
from .linalg import matmul
from .recurrent_lower import lower_scan
from .reduce import sum as _sum
from .registry import defop


def _order(T: int, reverse: bool) -> range:
    return range(T - 1, -1, -1) if reverse else range(T)


def _sig(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)) into out (the op is `quiet`: exp overflow gives 0, as it should)."""
    np.negative(x, out=out)
    np.exp(out, out=out)
    out += 1
    return np.reciprocal(out, out=out)


def _mask_f(mask: np.ndarray | None, dt: np.dtype) -> np.ndarray | float:
    return 1.0 if mask is None else mask.astype(dt)[:, :, None]


# ---- forwards -------------------------------------------------------------------------------

def _lstm_forward(gx, w, b, h0, c0, reverse, mask):
    T, B, GH = gx.shape
    H, dt = GH // 4, gx.dtype
    wt = w.T
    S = np.empty((T, 2, B, H), dt)
    A = np.empty((T, B, GH), dt)                    # activations i, f, g, o
    hprev, cprev, tcs = (np.empty((T, B, H), dt) for _ in range(3))
    h, c = h0, c0
    for t in _order(T, reverse):
        hprev[t], cprev[t] = h, c
        G = h.dot(wt)
        G += gx[t]
        G += b
        a = A[t]
        _sig(G, a)
        np.tanh(G[:, 2 * H:3 * H], out=a[:, 2 * H:3 * H])
        cn = a[:, H:2 * H] * c
        cn += a[:, :H] * a[:, 2 * H:3 * H]
        tc = np.tanh(cn, out=tcs[t])
        hn = a[:, 3 * H:] * tc
        if mask is not None:
            m = mask[t][:, None]
            hn, cn = np.where(m, hn, h), np.where(m, cn, c)
        S[t, 0], S[t, 1] = hn, cn
        h, c = S[t, 0], S[t, 1]
    i, f, g, o = A[..., :H], A[..., H:2 * H], A[..., 2 * H:3 * H], A[..., 3 * H:]
    mf = _mask_f(mask, dt)
    px = np.empty_like(A)
    px[..., :H] = g * i * (1 - i)
    px[..., H:2 * H] = cprev * f * (1 - f)
    px[..., 2 * H:3 * H] = i * (1 - g * g)
    px[..., 3 * H:] = tcs * o * (1 - o)
    cm = np.empty((T, 2, B, H), dt)
    cm[:, 0] = 1 - mf
    cm[:, 1] = f * mf + (1 - mf)
    if mask is not None:
        px *= mf
    return S, (hprev, px, cm, o * (1 - tcs * tcs) * mf)


def _gru_forward(gx, w, b, h0, reverse, mask):
    T, B, GH = gx.shape
    H, dt = GH // 3, gx.dtype
    wt = w.T
    S = np.empty((T, B, H), dt)
    hprev, R, Z, CC, HC = (np.empty((T, B, H), dt) for _ in range(5))
    h = h0
    for t in _order(T, reverse):
        hprev[t] = h
        gh = h.dot(wt)
        gh += b
        x = gx[t]
        r = _sig(x[:, :H] + gh[:, :H], R[t])
        z = _sig(x[:, H:2 * H] + gh[:, H:2 * H], Z[t])
        HC[t] = gh[:, 2 * H:]
        cc = np.tanh(x[:, 2 * H:] + r * HC[t], out=CC[t])
        hn = (h - cc) * z + cc                      # Paddle's GRUCell, to its rounding
        S[t] = hn if mask is None else np.where(mask[t][:, None], hn, h)
        h = S[t]
    mf = _mask_f(mask, dt)
    dcc = (1 - Z) * (1 - CC * CC) * mf
    px = np.concatenate([dcc * HC * R * (1 - R), (hprev - CC) * Z * (1 - Z) * mf, dcc], -1)
    ph = px.copy()
    ph[..., 2 * H:] *= R
    return S, (hprev, px, Z * mf + (1 - mf), ph)


def _rnn_forward(gx, w, b, h0, reverse, mask, activation):
    T, B, H = gx.shape
    dt = gx.dtype
    wt = w.T
    S = np.empty((T, B, H), dt)
    hprev, D = np.empty((T, B, H), dt), np.empty((T, B, H), dt)
    h = h0
    for t in _order(T, reverse):
        hprev[t] = h
        pre = h.dot(wt)
        pre += gx[t]
        pre += b
        if activation == "tanh":
            hn = np.tanh(pre)
            np.subtract(1, hn * hn, out=D[t])
        else:
            hn = np.maximum(pre, 0)
            D[t] = pre > 0
        S[t] = hn if mask is None else np.where(mask[t][:, None], hn, h)
        h = S[t]
    mf = _mask_f(mask, dt)
    if mask is not None:
        D *= mf
    return S, (hprev, D, np.broadcast_to(1 - mf, (T, B, H)).astype(dt))


# ---- gradient rules in jitgrad ops (create_graph, eager) -------------------------------------
# Each walks the steps backwards from the recorded states (out), recomputing the gates from
# the inputs, so that it is differentiable again (second order through every input).

def _steps(out: Tensor, first: tuple, T: int, reverse: bool, lstm: bool) -> dict:
    """{t: the state step t started from}, recorded states read from out."""
    prev, found = first, {}
    for t in _order(T, reverse):
        found[t] = prev
        prev = (out[t, 0], out[t, 1]) if lstm else (out[t],)
    return found


def _masks(mask, dt) -> dict:
    return {} if mask is None else {t: const(mask[t][:, None], dt) for t in range(len(mask))}


def _lstm_vjp(g, out, gx, w, b, h0, c0, reverse, mask):
    T, H = gx.shape[0], h0.shape[1]
    starts, ms = _steps(out, (h0, c0), T, reverse, True), _masks(mask, gx._data.dtype)
    dgx, dw, db, ch, cc = [None] * T, None, None, None, None
    for t in reversed(_order(T, reverse)):
        hp, cp = starts[t]
        G = gx[t] + matmul(hp, w, transpose_y=True) + b
        i, f = sigmoid(G[:, :H]), sigmoid(G[:, H:2 * H])
        gg, o = tanh(G[:, 2 * H:3 * H]), sigmoid(G[:, 3 * H:])
        tc = tanh(f * cp + i * gg)
        dh, dc = g[t, 0], g[t, 1]
        if ch is not None:
            dh, dc = dh + ch, dc + cc
        dct = dc + dh * o * (1.0 - tc * tc)
        dG = concat([dct * gg * i * (1.0 - i), dct * cp * f * (1.0 - f),
                     dct * i * (1.0 - gg * gg), dh * tc * o * (1.0 - o)], -1)
        m = ms.get(t)
        dG = dG if m is None else dG * m
        dgx[t] = dG
        dw = _add(dw, matmul(dG, hp, transpose_x=True))
        db = _add(db, _sum(dG, 0))
        ch = matmul(dG, w)
        cc = dct * f
        if m is not None:
            ch, cc = ch + dh * (1.0 - m), cc * m + dc * (1.0 - m)
    return stack(dgx, 0), dw, db, ch, cc


def _gru_vjp(g, out, gx, w, b, h0, reverse, mask):
    T, H = gx.shape[0], h0.shape[1]
    starts, ms = _steps(out, (h0,), T, reverse, False), _masks(mask, gx._data.dtype)
    dgx, dw, db, carry = [None] * T, None, None, None
    for t in reversed(_order(T, reverse)):
        (hp,) = starts[t]
        gh = matmul(hp, w, transpose_y=True) + b
        x = gx[t]
        r = sigmoid(x[:, :H] + gh[:, :H])
        z = sigmoid(x[:, H:2 * H] + gh[:, H:2 * H])
        hc = gh[:, 2 * H:]
        c = tanh(x[:, 2 * H:] + r * hc)
        dh = g[t] if carry is None else g[t] + carry
        dc = dh * (1.0 - z) * (1.0 - c * c)
        dr, dz = dc * hc * r * (1.0 - r), dh * (hp - c) * z * (1.0 - z)
        m = ms.get(t)
        dx, dgh = concat([dr, dz, dc], -1), concat([dr, dz, dc * r], -1)
        direct = dh * z
        if m is not None:
            dx, dgh, direct = dx * m, dgh * m, direct * m + dh * (1.0 - m)
        dgx[t] = dx
        dw = _add(dw, matmul(dgh, hp, transpose_x=True))
        db = _add(db, _sum(dgh, 0))
        carry = matmul(dgh, w) + direct
    return stack(dgx, 0), dw, db, carry


def _rnn_vjp(g, out, gx, w, b, h0, reverse, mask, activation):
    T = gx.shape[0]
    starts, ms = _steps(out, (h0,), T, reverse, False), _masks(mask, gx._data.dtype)
    dgx, dw, db, carry = [None] * T, None, None, None
    for t in reversed(_order(T, reverse)):
        (hp,) = starts[t]
        pre = gx[t] + matmul(hp, w, transpose_y=True) + b
        if activation == "tanh":
            y = tanh(pre)
            d = 1.0 - y * y
        else:
            d = const(pre._data > 0, pre._data.dtype)   # relu'' = 0: a constant is exact
        dh = g[t] if carry is None else g[t] + carry
        m = ms.get(t)
        dp = dh * d if m is None else dh * d * m
        dgx[t] = dp
        dw = _add(dw, matmul(dp, hp, transpose_x=True))
        db = _add(db, _sum(dp, 0))
        carry = matmul(dp, w) if m is None else matmul(dp, w) + dh * (1.0 - m)
    return stack(dgx, 0), dw, db, carry


def _add(acc: Tensor | None, v: Tensor) -> Tensor:
    return v if acc is None else acc + v


# ---- registry entries -------------------------------------------------------------------------

_MASK = np.array([[True, True], [True, False], [False, False]])


def _cases(G: int, lstm: bool, extra: dict) -> tuple:
    T, B, H = 3, 2, 2
    shapes = ((T, B, G * H), (G * H, H), (G * H,), (B, H)) + (((B, H),) if lstm else ())
    return tuple({"shapes": shapes, "attrs": dict(reverse=r, mask=m, **extra)}
                 for r, m in ((False, None), (True, None), (False, _MASK), (True, _MASK)))


_COMMON = dict(forward_saves=True, quiet=True, min_ndim=1, bound_attrs=("mask",),
               domain=(-1.0, 1.0))

lstm_scan_op = defop("lstm_scan", forward=_lstm_forward, vjp=_lstm_vjp, lower=lower_scan,
                     nin=5, cases=_cases(4, True, {}), **_COMMON)
gru_scan_op = defop("gru_scan", forward=_gru_forward, vjp=_gru_vjp, lower=lower_scan,
                    nin=4, cases=_cases(3, False, {}), **_COMMON)
rnn_scan_op = defop("rnn_scan", forward=_rnn_forward, vjp=_rnn_vjp, lower=lower_scan,
                    nin=4, cases=_cases(1, False, {"activation": "tanh"})
                    + _cases(1, False, {"activation": "relu"})[:2], **_COMMON)


def recurrence(mode: str, gx: Tensor, w: Tensor, b: Tensor, state: tuple,
               reverse: bool = False, mask: np.ndarray | None = None) -> Tensor:
    """The states after each step of `mode` ('LSTM', 'GRU', 'RNN_TANH', 'RNN_RELU') over
    input projections gx [T, B, G*H] (module docstring); state is (h0,) or (h0, c0)."""
    attrs = dict(reverse=bool(reverse), mask=None if mask is None else
                 np.ascontiguousarray(mask, dtype=bool))
    if mode == "LSTM":
        return apply(lstm_scan_op, gx, w, b, *state, **attrs)
    if mode == "GRU":
        return apply(gru_scan_op, gx, w, b, *state, **attrs)
    return apply(rnn_scan_op, gx, w, b, *state,
                 activation="relu" if mode == "RNN_RELU" else "tanh", **attrs)
