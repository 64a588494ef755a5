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

from ..core.tensor import Tensor
from .core import apply, const
from .elementwise import sigmoid, tanh
from .indexing import concat, stack
from .linalg import matmul
from .recurrent_lower import lower_scan, scan_interp
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
# Written for few numpy calls a step (each costs ~1 us at these sizes): sigmoid(x) is taken as
# 0.5 * tanh(x / 2) + 0.5 with the halving folded into the weights and projections' sigmoid
# columns beforehand (exact: a power of two), so one tanh serves all four LSTM gates; the
# states each step started from are copied out of S after the loop.

def _scaled(w: np.ndarray, gx: np.ndarray, b: np.ndarray, half: np.ndarray):
    """w^T, gx and b with the columns marked in `half` halved."""
    s = np.where(half, 0.5, 1.0).astype(gx.dtype)
    return np.ascontiguousarray(w.T) * s, gx * s, b * s   # (a C-ordered w^T: dot is ~2x faster)


def _starts(S: np.ndarray, first: np.ndarray, reverse: bool) -> np.ndarray:
    """The state each step started from: `first`, then S shifted by one step."""
    out = np.empty_like(S)
    if reverse:
        out[-1], out[:-1] = first, S[1:]
    else:
        out[0], out[1:] = first, S[:-1]
    return out


def _lstm_forward(gx, w, b, h0, c0, reverse, mask):
    T, B, GH = gx.shape
    H, dt = GH // 4, gx.dtype
    half = np.repeat(np.array([True, True, False, True]), H)
    wt, gxs, bs = _scaled(w, gx, b, half)
    gxs += bs
    mul, add = np.where(half, 0.5, 1.0).astype(dt), np.where(half, 0.5, 0.0).astype(dt)
    S = np.empty((T, 2, B, H), dt)
    A = np.empty((T, B, GH), dt)                    # activations i, f, g, o
    tcs = np.empty((T, B, H), dt)
    h, c, ig = h0, c0, np.empty((B, H), dt)
    for t in _order(T, reverse):
        a = A[t]
        np.dot(h, wt, out=a)
        a += gxs[t]
        np.tanh(a, out=a)
        a *= mul
        a += add
        cn = np.multiply(a[:, H:2 * H], c, out=S[t, 1])
        cn += np.multiply(a[:, :H], a[:, 2 * H:3 * H], out=ig)
        tc = np.tanh(cn, out=tcs[t])
        hn = np.multiply(a[:, 3 * H:], tc, out=S[t, 0])
        if mask is not None:
            m = mask[t][:, None]
            np.copyto(hn, h, where=~m)
            np.copyto(cn, c, where=~m)
        h, c = hn, cn
    hprev = _starts(S[:, 0], h0, reverse)
    cprev = _starts(S[:, 1], c0, reverse)
    i, f, g, o = A[..., :H], A[..., H:2 * H], A[..., 2 * H:3 * H], A[..., 3 * H:]
    # px = each gate's derivative times what multiplies it: [g, c_prev, i, tanh(c)]
    px = np.subtract(1, A)
    px *= A                                         # s (1 - s) of the sigmoid gates
    np.subtract(1, g * g, out=px[..., 2 * H:3 * H])
    px *= np.concatenate([g, cprev, i, tcs], -1)
    cm = np.empty((T, 2, B, H), dt)
    q = o * (1 - tcs * tcs)
    if mask is None:
        cm[:, 0] = 0
        cm[:, 1] = f
    else:
        mf = _mask_f(mask, dt)
        cm[:, 0] = 1 - mf
        cm[:, 1] = f * mf + (1 - mf)
        px *= mf
        q *= mf
    return S, (hprev, px, cm, q)


def _gru_forward(gx, w, b, h0, reverse, mask):
    T, B, GH = gx.shape
    H, dt = GH // 3, gx.dtype
    wt, gxs, bs = _scaled(w, gx, b, np.arange(GH) < 2 * H)
    S = np.empty((T, B, H), dt)
    RZ, CC = np.empty((T, B, 2 * H), dt), np.empty((T, B, H), dt)
    GHs = np.empty((T, B, GH), dt)                  # h @ W^T + b, r and z columns halved
    h = h0
    for t in _order(T, reverse):
        gh = GHs[t]
        np.dot(h, wt, out=gh)
        gh += bs
        x = gxs[t]
        rz = np.add(x[:, :2 * H], gh[:, :2 * H], out=RZ[t])
        np.tanh(rz, out=rz)
        rz *= 0.5
        rz += 0.5
        cc = np.multiply(rz[:, :H], gh[:, 2 * H:], out=CC[t])
        cc += x[:, 2 * H:]
        np.tanh(cc, out=cc)
        hn = np.subtract(h, cc, out=S[t])
        hn *= rz[:, H:]
        hn += cc                                    # (h - c) * z + c: Paddle's rounding
        if mask is not None:
            np.copyto(hn, h, where=~mask[t][:, None])
        h = hn
    hprev = _starts(S, h0, reverse)
    R, Z, HC = RZ[..., :H], RZ[..., H:], GHs[..., 2 * H:]
    mf = _mask_f(mask, dt)
    dcc = (1 - Z) * (1 - CC * CC) * mf
    px = np.concatenate([dcc * HC * R * (1 - R), (hprev - CC) * Z * (1 - Z) * mf, dcc], -1)
    ph = px.copy()
    ph[..., 2 * H:] *= R
    return S, (hprev, px, Z * mf + (1 - mf), ph)


def _rnn_forward(gx, w, b, h0, reverse, mask, activation):
    T, B, H = gx.shape
    dt = gx.dtype
    wt, gxb = np.ascontiguousarray(w.T), gx + b
    S = np.empty((T, B, H), dt)
    pos = np.empty((T, B, H), bool) if activation == "relu" else None
    h = h0
    for t in _order(T, reverse):
        pre = h.dot(wt)
        pre += gxb[t]
        if pos is None:
            hn = np.tanh(pre, out=S[t])
        else:
            np.greater(pre, 0, out=pos[t])
            hn = np.maximum(pre, 0, out=S[t])
        if mask is not None:
            np.copyto(hn, h, where=~mask[t][:, None])
        h = hn
    hprev = _starts(S, h0, reverse)
    mf = _mask_f(mask, dt)
    D = (1 - S * S if pos is None else pos.astype(dt)) * mf     # (0 where S was held)
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
               domain=(-1.0, 1.0), interp=scan_interp)

lstm_scan_op = defop("lstm_scan",
                     fused="a fused recurrent scan (RNN kernels)",
                     forward=_lstm_forward, vjp=_lstm_vjp, lower=lower_scan,
                     nin=5, cases=_cases(4, True, {}), **_COMMON)
gru_scan_op = defop("gru_scan",
                    fused="a fused recurrent scan (RNN kernels)",
                    forward=_gru_forward, vjp=_gru_vjp, lower=lower_scan,
                    nin=4, cases=_cases(3, False, {}), **_COMMON)
rnn_scan_op = defop("rnn_scan",
                    fused="a fused recurrent scan (RNN kernels)",
                    forward=_rnn_forward, vjp=_rnn_vjp, lower=lower_scan,
                    nin=4, cases=_cases(1, False, {"activation": "tanh"})
                    + _cases(1, False, {"activation": "relu"})[:2], **_COMMON)


def recurrence(mode: str, gx: Tensor, w: Tensor, b: Tensor, state: tuple,
               reverse: bool = False, mask: np.ndarray | None = None) -> Tensor:
    """The states after each step of `mode` ('LSTM', 'GRU', 'RNN_TANH', 'RNN_RELU') over
    input projections gx [T, B, G*H] (module docstring); state is (h0,) or (h0, c0)."""
    T, B, GH = gx.shape
    H = w.shape[1]
    want = [(T, B, GH), (GH, H), (GH,)] + [(B, H)] * len(state)
    for name, t, shape in zip(("gx", "w", "b", "h0", "c0"), (gx, w, b) + tuple(state), want):
        if tuple(t.shape) != shape or t._data.dtype != gx._data.dtype:
            raise ValueError(f"{mode} recurrence: {name} must be {gx.dtype.name} of shape "
                             f"{list(shape)}, got {t.dtype.name} of shape {list(t.shape)}")
    if T == 0:
        raise ValueError(f"{mode} recurrence: the sequence has no time steps")
    attrs = dict(reverse=bool(reverse), mask=None if mask is None else
                 np.ascontiguousarray(mask, dtype=bool))
    if mode == "LSTM":
        return apply(lstm_scan_op, gx, w, b, *state, **attrs)
    if mode == "GRU":
        return apply(gru_scan_op, gx, w, b, *state, **attrs)
    return apply(rnn_scan_op, gx, w, b, *state,
                 activation="relu" if mode == "RNN_RELU" else "tanh", **attrs)
