"""The compiled backward of the fused recurrences (recurrent.py): BPTT as VM rows.

The steps are walked newest first with two state-gradient buffers N (the gradient of the
state a step produced) and C (of the state it started from), each [s, B, H] (s = 2 for the
LSTM's h and c), swapped after every step. A step is, with the forward's saved multipliers:

    N[1] += N[0] * q                    (LSTM: dc gains the path through h = o tanh(c))
    dgx_t = N[sel] * px_t               (GATHER_MUL; sel picks dh or dc for each gate)
    dgh_t = N[sel] * ph_t               (GRU only: the recurrent gates' gradient)
    C = N * cm_t                        (the direct path; skipped where cm is 0)
    C[0] += dgh_t @ w                   (GEMM)
    C += g_(t-1)                        (the output gradient of the next step down)

and after the walk: dgx = all dgx_t, dw = dgh^T @ hprev (one GEMM over all steps), db =
the row sum of dgh, dh0 = N[0], dc0 = N[1]. Every row is a core opcode, so the reference
interpreter and the peephole passes know them all.
"""

from __future__ import annotations

import numpy as np

from ..compile.builder import Slot


def _at(slot: Slot, i: int, n: int) -> Slot:
    """Block i of n elements of a slot (a step's rows of a [T, ...] buffer)."""
    return Slot(slot.off + i * n, n, (n,))


def _gather_index(B: int, H: int, sel: tuple) -> np.ndarray:
    """For each element (b, gate k, j) of a [B, G*H] gate gradient, its position in the
    state gradient N [s, B, H]: block sel[k], row b, column j."""
    b = np.arange(B)[:, None, None] * H
    s = np.asarray(sel)[None, :, None] * (B * H)
    return (b + s + np.arange(H)[None, None, :]).ravel()


def lower_scan(b, node, g, gins):
    name = node.op.name
    gx, w = node.inputs[0]._data, node.inputs[1]._data
    T, B, GH = gx.shape
    H = w.shape[1]
    lstm, gru = name == "lstm_scan", name == "gru_scan"
    s = 2 if lstm else 1
    ns, ng = s * B * H, B * GH
    reverse, masked = node.attrs["reverse"], node.attrs["mask"] is not None
    saved = node.saved
    hprev, px, cm = b.value(saved[0]), b.value(saved[1]), None
    extra = b.value(saved[3]) if lstm or gru else None          # q or ph
    W = b.value(w)
    # the full carry row is needed where cm is not 0: a mask, or the GRU's z (and the
    # LSTM's c always, by its own row below)
    full_carry = masked or gru
    if full_carry or lstm:
        cm = b.value(saved[2])
    N, C = b.alloc((s, B, H)), b.alloc((s, B, H))
    dgx = b.alloc((T, B, GH))
    dgh = b.alloc((T, B, GH)) if gru else dgx
    idx = None if GH == H else b.table(_gather_index(B, H, (1, 1, 1, 0) if lstm else (0,) * 3))
    step_gemm = b.table([1, B, H, GH, 0, 0, 0, 0, 0])
    order = range(T) if reverse else range(T - 1, -1, -1)   # newest first
    need_state = gins[3] is not None or (lstm and gins[4] is not None)
    b.emit("AXPY", N, _at(g, order[0], ns), acc=False)
    for j, t in enumerate(order):
        last = j == T - 1
        if lstm:
            b.emit("MUL", _at(N, 1, B * H), _at(N, 0, B * H), _at(extra, t, B * H), acc=True)
        gx_t = _at(dgx, t, ng)
        if idx is None:
            b.emit("MUL", gx_t, N, _at(px, t, ng), acc=False)
        else:
            b.emit("GATHER_MUL", gx_t, N, _at(px, t, ng), p=idx, acc=False)
        if gru:
            b.emit("GATHER_MUL", _at(dgh, t, ng), N, _at(extra, t, ng), p=idx, acc=False)
        if last and not need_state:
            break
        if full_carry:
            b.emit("MUL", C, N, _at(cm, t, ns), acc=False)
        elif lstm:
            b.emit("MUL", _at(C, 1, B * H), _at(N, 1, B * H), _at(cm, 2 * t + 1, B * H),
                   acc=False)
        b.emit("GEMM", _at(C, 0, B * H), _at(dgh, t, ng), W, p=step_gemm, acc=full_carry)
        if not last:
            b.emit("AXPY", C, _at(g, order[j + 1], ns), acc=True)
        N, C = C, N
    if gins[3] is not None:
        b.emit("AXPY", gins[3], _at(N, 0, B * H))
    if lstm and gins[4] is not None:
        b.emit("AXPY", gins[4], _at(N, 1, B * H))
    if gins[0] is not None:
        b.emit("AXPY", gins[0], dgx)
    if gins[1] is not None:
        b.emit("GEMM", gins[1], dgh, hprev, p=b.table([1, GH, H, T * B, 1, 0, 0, 0, 0]))
    if gins[2] is not None:
        b.emit("ROWSUM", gins[2], dgh, p=b.table([T * B]))


def scan_interp(node, g, want):
    """lower_scan's rows on arrays, step by step with numpy (its GEMMs by numpy's matmul):
    the interpreted rule of a new structure's first backward (the vjp reran every step's
    gates in ~30 Tensor ops)."""
    lstm, gru = node.op.name == "lstm_scan", node.op.name == "gru_scan"
    w = node.inputs[1]._data
    T, B, GH = node.inputs[0]._data.shape
    H = w.shape[1]
    s = 2 if lstm else 1
    hprev, px = node.saved[0], node.saved[1]
    cm = node.saved[2] if len(node.saved) > 2 else None
    extra = node.saved[3] if lstm or gru else None          # q or ph
    full_carry = node.attrs["mask"] is not None or gru
    sel = np.array((1, 1, 1, 0) if lstm else (0, 0, 0)) if GH != H else None
    g = np.asarray(g).reshape(T, s, B, H)
    dgx = np.empty((T, B, GH), hprev.dtype)
    dgh = np.empty((T, B, GH), hprev.dtype) if gru else dgx
    order = range(T) if node.attrs["reverse"] else range(T - 1, -1, -1)   # newest first
    need_state = want[3] or (lstm and want[4])
    N = g[order[0]].copy()
    for j, t in enumerate(order):
        last = j == T - 1
        if lstm:
            N[1] += N[0] * extra[t]
        Ng = N[0] if sel is None else N[sel].transpose(1, 0, 2).reshape(B, GH)
        dgx[t] = Ng * px[t]
        if gru:
            dgh[t] = Ng * extra[t]
        if last and not need_state:
            break
        C = N * cm[t] if full_carry else np.empty_like(N)
        if lstm and not full_carry:
            C[1] = N[1] * cm[t, 1]
        if full_carry:
            C[0] += dgh[t] @ w
        else:
            C[0] = dgh[t] @ w
        if not last:
            C += g[order[j + 1]]
        N = C
    rows = dgh.reshape(T * B, GH)
    found = [dgx if want[0] else None,
             rows.T @ hprev.reshape(T * B, H) if want[1] else None,
             rows.sum(0) if want[2] else None,
             N[0] if want[3] else None]
    if lstm:
        found.append(N[1] if want[4] else None)
    return tuple(found)
