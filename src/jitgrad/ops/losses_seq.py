"""Sequence losses of Paddle 3.3.1's nn.functional: ctc_loss (its warpctc kernel) and rnnt_loss
(its warprnnt kernel), as measured against paddlepaddle 3.3.1 on CPU.

ctc_loss(log_probs [T, B, C], labels [B, L], input_lengths [B], label_lengths [B]):
  * log_probs are unnormalised logits: warpctc applies a softmax over C itself. The loss is
    -log p(labels | softmax(log_probs[:T_b, b])); time steps at or past T_b are ignored (zero
    gradient). The gradient is warpctc's, d loss / d logits = softmax - posterior (the true
    gradient of the value, up to the quirks below).
  * An infeasible alignment (L_b + the number of adjacent repeats in the label > T_b) gives a
    loss of 0 and a zero gradient (warpctc's rule), not inf; T_b = L_b = 0 gives inf (zero
    gradient; Paddle's heap gets corrupted there). zero_infinity then maps inf to 0.
  * norm_by_times=True scales the gradient of sample b by 1 / T_b and leaves the value alone.
  * reduction 'mean' is mean(loss_b / label_length_b), 'sum' the sum, 'none' the [B] losses.
  * warpctc's quirks, reproduced: it computes in the input's dtype; probabilities are clamped
    at the dtype's smallest normal number (a logit gap of 800 costs 708.4 in float64, 87.3 in
    float32); when a class's summed log-occupancy is exactly 0 (a saturated float32 path) its
    gradient is the probability itself; the states are pruned to windows that assume the skip
    s - 2 -> s is open whenever a label differs from the previous one, while the recursion
    closes it into a label equal to blank, which changes such labels' values.
rnnt_loss(input [B, T, U + 1, C], label [B, U], input_lengths [B], label_lengths [B]):
  * input is read as log-probabilities as given: Paddle's CPU kernel applies no log_softmax.
    The loss is -log of the sum over monotonic paths of exp(input) at the path's emissions.
  * fastemit_lambda (default 0.001) leaves the value unchanged and multiplies the gradient of
    every label emission term by 1 + fastemit_lambda; blank terms keep theirs. Where a label
    equals blank, the label term overwrites the blank one (warprnnt writes, not adds).
  * reduction 'mean' is sum(loss) / B (not divided by the label lengths), 'sum', 'none'.
Both: the gradient of sample b is scaled by the upstream gradient of loss b; Paddle has no
second-order gradient for them (here the gradient is a constant of the forward pass, so a
create_graph backward through it gives zero second derivatives). Non-finite input entries get
a zero gradient.

Where Paddle reads memory out of bounds or crashes (input_lengths past T or negative, a label
id outside [0, C), rnnt with T_b = 0, a label width other than input.shape[2] - 1), this
raises ValueError instead. Paddle demands int32 labels (and int64 ctc lengths, int32 rnnt
lengths): any integer dtype is accepted here.

Implementation: warpctc's and warprnnt's CPU algorithms ported to numpy, vectorised over the
batch (and over the lattice's anti-diagonals for rnnt), give each loss value V_b and the
kernel's gradient G; the output is V + sum(G * (x - x.detach())) over each sample, which is V
exactly and whose gradient is G, so the backward comes from existing ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import tape
from ..core.tensor import Tensor
from . import rounded
from . import reduce as R
from .core import const, require_float

NAMES = ["ctc_loss", "rnnt_loss"]

_NEG = -np.inf


def _ints(v: Any, what: str, fn: str) -> np.ndarray:
    a = np.asarray(v._data if isinstance(v, Tensor) else v)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{fn}: {what} must hold integers (int32/int64), got {a.dtype}")
    return a.astype(np.int64)


def _lengths(v: Any, what: str, B: int, hi: int, lo: int, fn: str) -> np.ndarray:
    a = _ints(v, what, fn).reshape(-1) if np.ndim(np.asarray(
        v._data if isinstance(v, Tensor) else v)) <= 1 else None
    if a is None or a.shape[0] != B:
        shape = list(np.shape(v._data if isinstance(v, Tensor) else v))
        raise ValueError(f"{fn}: {what} must be a 1-D tensor of the batch size {B}, got "
                         f"shape {shape}")
    if a.size and (a.min() < lo or a.max() > hi):
        raise ValueError(f"{fn}: {what} must lie in [{lo}, {hi}], got {a.tolist()}")
    return a


def _check_labels(lab: np.ndarray, ll: np.ndarray, C: int, fn: str) -> None:
    used = np.arange(lab.shape[1])[None, :] < ll[:, None]
    bad = used & ((lab < 0) | (lab >= C))
    if bad.any():
        raise ValueError(f"{fn}: label ids must lie in [0, {C}), got "
                         f"{sorted(set(lab[bad].tolist()))}")


def _check_blank(blank: Any, C: int, fn: str) -> int:
    if not isinstance(blank, (int, np.integer)) or isinstance(blank, bool):
        raise TypeError(f"{fn}: blank must be an int, got {blank!r}")
    if not 0 <= blank < C:
        raise ValueError(f"{fn}: blank must lie in [0, {C}) (the number of classes), got "
                         f"{blank}")
    return int(blank)


def _reduction(reduction: str, fn: str) -> None:
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"'reduction' in '{fn}' should be 'sum', 'mean' or 'none', but "
                         f"received {reduction}.")


def _log_plus(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """warpctc's log_plus / warprnnt's log_sum_exp: log(exp(a) + exp(b)) as
    log1p(exp(-|a - b|)) + max(a, b), either side -inf giving the other exactly."""
    with np.errstate(invalid="ignore", over="ignore"):
        r = rounded.log1p(np.exp(-np.abs(a - b))) + np.maximum(a, b)
    return np.where(a == _NEG, b, np.where(b == _NEG, a, r))


def _shift(a: np.ndarray, k: int) -> np.ndarray:
    """a moved k places along the last axis (right for k > 0), filled with -inf."""
    out = np.full_like(a, _NEG)
    if k > 0:
        out[..., k:] = a[..., :-k]
    else:
        out[..., :k] = a[..., -k:]
    return out


def _ctc_windows(lab: np.ndarray, T: int, L: int, rep: int
                 ) -> tuple[list[int], list[int], list[int], list[int]]:
    """warpctc's pruning windows [start, end) over the 2L + 1 blank-extended positions, per
    time step, for the forward (alpha) and the backward (beta) sweeps."""
    S = 2 * L + 1
    s_inc, e_inc = [1], []
    for i in range(1, L):
        if lab[i - 1] == lab[i]:
            s_inc += [1, 1]
            e_inc += [1, 1]
        else:
            s_inc.append(2)
            e_inc.append(2)
    e_inc.append(1)
    a_s, a_e = [0] * T, [0] * T
    start, end = (0 if L + rep - T < 0 else 1), (2 if S > 1 else 1)
    for t in range(T):
        if t:
            if L + rep - (T - t) >= 0:
                start += s_inc[L + rep - (T - t)]
            if t <= L + rep:
                end += e_inc[t - 1]
        a_s[t], a_e[t] = start, end
    b_s, b_e = [0] * T, [0] * T
    start, end = (S - 2 if S > 1 else 0), (S if T > L + rep else S - 1)
    for t in range(T - 1, -1, -1):
        if t < T - 1:
            if L + rep - (T - t) >= -1:
                start -= s_inc[L + rep - (T - t) + 1]
            if t < L + rep:
                end -= e_inc[t]
        b_s[t], b_e[t] = start, end
    return a_s, a_e, b_s, b_e


def _ctc(x: np.ndarray, lab: np.ndarray, il: np.ndarray, ll: np.ndarray, blank: int,
         want_grad: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """warpctc (CPU) on [T, B, C] logits in their own dtype: the [B] losses and (want_grad)
    the [T, B, C] gradient with respect to the logits."""
    T, B, C = x.shape
    dt = x.dtype
    neg = dt.type(_NEG)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        e = np.exp(x - x.max(axis=2, keepdims=True))
        probs = e / e.sum(axis=2, keepdims=True)
        probs = np.where(probs < np.finfo(dt).tiny, np.finfo(dt).tiny, probs)
        logp = np.log(probs)
    S = 2 * (int(ll.max()) if B else 0) + 1
    ext = np.full((B, S), blank, np.int64)
    rep = np.zeros(B, np.int64)
    for b in range(B):
        ext[b, 1:2 * ll[b]:2] = lab[b, :ll[b]]
        rep[b] = int(np.sum(lab[b, 1:ll[b]] == lab[b, :ll[b] - 1])) if ll[b] > 1 else 0
    infeasible = ll + rep > il
    empty = (il == 0) & ~infeasible                                      # T_b = L_b = 0: inf
    ok = ~infeasible & ~empty
    a_s, a_e, b_s, b_e = (np.zeros((T, B), np.int64) for _ in range(4))
    for b in np.flatnonzero(ok):
        Tb = int(il[b])
        for arr, w in zip((a_s, a_e, b_s, b_e),
                          _ctc_windows(lab[b], Tb, int(ll[b]), int(rep[b]))):
            arr[:Tb, b] = w
    s_idx = np.arange(S)
    Sb = 2 * ll + 1
    skip_a = np.zeros((B, S), bool)                  # alpha: s - 2 -> s
    skip_a[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    skip_a[:, 1] = False
    skip_b = np.zeros((B, S), bool)                  # beta: s -> s + 2
    skip_b[:, :-2] = (ext[:, :-2] != blank) & (ext[:, :-2] != ext[:, 2:])
    skip_b &= s_idx[None, :] != (Sb - 2)[:, None]
    lpe = logp[:, np.arange(B)[:, None], ext]                            # [T, B, S]
    alpha = np.full((T, B, S), neg)
    for t in range(T):
        win = (s_idx >= a_s[t][:, None]) & (s_idx < a_e[t][:, None])
        if t == 0:
            new = lpe[0]
        else:
            prev = alpha[t - 1]
            cand = _log_plus(prev, _shift(prev, 1))
            cand = np.where(skip_a, _log_plus(cand, _shift(prev, 2)), cand)
            cand[:, 0] = prev[:, 0]
            new = cand + lpe[t]
        alpha[t] = np.where(win & ok[:, None], new, neg)
    bi = np.arange(B)
    tl = np.maximum(il - 1, 0)
    logll = np.full(B, neg)
    if T:
        last = alpha[tl, bi]                                             # [B, S]
        for i in range(S):
            logll = _log_plus(logll, last[:, i])
    loss = np.where(ok, -logll, np.where(infeasible, 0.0, np.inf)).astype(dt)
    if not want_grad:
        return loss, None
    betas = np.full((B, S), neg)
    ab = np.full((T, B, S), neg)
    is_last = s_idx[None, :] == (Sb - 1)[:, None]
    for t in range(T - 1, -1, -1):
        init = ok & (t == il - 1)
        rec = ok & (t < il - 1)
        if not (init.any() or rec.any()):
            continue
        nxt = _log_plus(betas, _shift(betas, -1))
        nxt = np.where(skip_b, _log_plus(nxt, _shift(betas, -2)), nxt)
        new = np.where(is_last, betas + lpe[t], nxt + lpe[t])
        new = np.where(init[:, None], lpe[t], new)
        win = (s_idx >= b_s[t][:, None]) & (s_idx < b_e[t][:, None]) & (init | rec)[:, None]
        betas = np.where(win, new, betas)
        ab[t] = np.where(win, alpha[t] + betas, neg)
    out = np.full((T, B, C), neg)
    for i in range(S):                                   # warpctc's reduce-by-key, in order
        cur = out[:, bi, ext[:, i]]
        out[:, bi, ext[:, i]] = _log_plus(cur, ab[:, :, i])
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        occ = np.exp(out - logp - logll[None, :, None])
        grad = np.where((out == 0.0) | (out == neg) | (probs == 0.0), probs, probs - occ)
    live = (np.arange(T)[:, None] < il[None, :]) & ok[None, :]          # [T, B]
    return loss, np.where(live[:, :, None], grad, dt.type(0)).astype(dt)


def _rnnt(x: np.ndarray, lab: np.ndarray, il: np.ndarray, ll: np.ndarray, blank: int,
          lam: float, want_grad: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """warprnnt (CPU) on [B, T, U + 1, C] log-probabilities in their own dtype: the [B]
    losses and (want_grad) the gradient. Vectorised over the batch and the anti-diagonals
    t + u of the lattice; each sample's own lengths bound its lattice."""
    B, T, U1, C = x.shape
    dt = x.dtype
    neg = dt.type(_NEG)
    lpb = x[..., blank]                                                  # [B, T, U1]
    labs = np.full((B, U1), blank, np.int64)         # labels[u] for u < U_b, blank past
    labs[:, :U1 - 1] = np.where(np.arange(U1 - 1)[None, :] < ll[:, None], lab, blank)
    lpl = np.take_along_axis(x, labs[:, None, :, None], axis=3)[..., 0]  # [B, T, U1]
    alpha = np.full((B, T, U1), neg)
    alpha[:, 0, 0] = 0
    for d in range(1, T + U1 - 1):
        t = np.arange(max(0, d - U1 + 1), min(T - 1, d) + 1)
        u = d - t
        tp, up = np.maximum(t - 1, 0), np.maximum(u - 1, 0)
        no_emit = alpha[:, tp, u] + lpb[:, tp, u]
        emit = alpha[:, t, up] + lpl[:, t, up]
        alpha[:, t, u] = np.where(t == 0, emit, np.where(u == 0, no_emit,
                                                         _log_plus(emit, no_emit)))
    b1 = np.arange(B)
    loss = -(alpha[b1, il - 1, ll] + lpb[b1, il - 1, ll])
    if not want_grad:
        return loss, None
    Tb, Ub = il[:, None], ll[:, None]
    beta = np.full((B, T, U1), neg)
    for d in range(T + U1 - 2, -1, -1):
        t = np.arange(max(0, d - U1 + 1), min(T - 1, d) + 1)
        u = d - t
        tn, un = np.minimum(t + 1, T - 1), np.minimum(u + 1, U1 - 1)
        no_emit = beta[:, tn, u] + lpb[:, t, u]
        emit = beta[:, t, un] + lpl[:, t, u]
        last_t, last_u = t == Tb - 1, u == Ub
        val = np.where(last_t & last_u, lpb[:, t, u],
                       np.where(last_u, no_emit, np.where(last_t, emit,
                                                          _log_plus(emit, no_emit))))
        beta[:, t, u] = np.where((t < Tb) & (u <= Ub), val, neg)
    loglike = beta[:, 0, 0][:, None, None]
    tt = np.arange(T)[None, :, None]
    uu = np.arange(U1)[None, None, :]
    Tb, Ub = il[:, None, None], ll[:, None, None]
    beta_t1 = np.concatenate([beta[:, 1:], np.full((B, 1, U1), neg)], axis=1)
    beta_u1 = np.concatenate([beta[:, :, 1:], np.full((B, T, 1), neg)], axis=2)
    grad = np.zeros_like(x)
    with np.errstate(invalid="ignore", over="ignore"):
        gb = -np.exp(lpb + (alpha + beta_t1) - loglike)
        gl = -((1.0 + lam) * np.exp(lpl + (alpha + beta_u1) - loglike))
        gend = -np.exp(lpb + alpha - loglike)
    grad[..., blank] = np.where((tt < Tb - 1) & (uu <= Ub), gb, 0)
    bb, ti, ui = np.nonzero((tt < Tb) & (uu < Ub))                      # then the labels,
    grad[bb, ti, ui, labs[bb, ui]] = gl[bb, ti, ui]                      # overwriting
    grad[b1, il - 1, ll, blank] = gend[b1, il - 1, ll]                   # and the last blank
    return loss.astype(dt), grad


def _attach(x: Tensor, loss: np.ndarray, grad: np.ndarray | None, batch_axis: int) -> Tensor:
    """A [B] tensor whose value is loss and whose gradient with respect to x is grad (x's
    shape): loss + sum over the non-batch axes of grad * (x - x.detach())."""
    dt = x._data.dtype
    out = const(loss, dt)
    if grad is None:
        return out
    axes = [a for a in range(x.ndim) if a != batch_axis]
    finite = np.isfinite(x._data)
    if not finite.all():          # inf - inf would be nan: those entries carry no gradient
        from .elementwise import where
        x = where(const(finite, np.dtype(bool)), x, const(np.zeros_like(x._data), dt))
    # (a sample whose loss is infinite may have a non-finite gradient: 0 there, so that
    # the value stays exactly loss, not nan)
    grad = np.where(np.isfinite(grad), grad, 0)
    zero = (x - x.detach()) * const(grad, dt)
    return out + R.sum(zero, axis=axes)


def _wants_grad(x: Tensor) -> bool:
    return tape.is_grad_enabled() and not x._stop_gradient


def ctc_loss(log_probs: Tensor, labels: Any, input_lengths: Any, label_lengths: Any,
             blank: int = 0, reduction: str = "mean", norm_by_times: bool = False,
             zero_infinity: bool = False) -> Tensor:
    """Connectionist Temporal Classification loss (Paddle's warpctc, see the module notes):
    log_probs [T, B, C] unnormalised logits (softmax applied inside), labels [B, L] ids,
    input_lengths and label_lengths [B]."""
    fn = "ctc_loss"
    if not isinstance(log_probs, Tensor):
        raise TypeError(f"{fn}: log_probs must be a Tensor, got {type(log_probs).__name__}")
    require_float(log_probs, fn)
    if log_probs._data.dtype not in (np.float32, np.float64):
        raise TypeError(f"{fn}: log_probs must be float32 or float64, got "
                        f"{log_probs.dtype.name}")
    if log_probs.ndim != 3:
        raise ValueError(f"{fn}: log_probs must be 3-D [max_logit_length, batch_size, "
                         f"num_classes + 1], got shape {list(log_probs.shape)}")
    _reduction(reduction, fn)
    T, B, C = log_probs.shape
    blank = _check_blank(blank, C, fn)
    lab = _ints(labels, "labels", fn)
    if lab.ndim != 2 or lab.shape[0] != B:
        raise ValueError(f"{fn}: labels must be 2-D [batch_size={B}, max_label_length], got "
                         f"shape {list(lab.shape)}")
    il = _lengths(input_lengths, "input_lengths", B, T, 0, fn)
    ll = _lengths(label_lengths, "label_lengths", B, lab.shape[1], 0, fn)
    _check_labels(lab, ll, C, fn)
    want = _wants_grad(log_probs)
    loss, grad = _ctc(log_probs._data, lab, il, ll, blank, want)
    if zero_infinity:
        inf = np.isinf(loss)
        loss = np.where(inf, 0.0, loss)
        if grad is not None:
            grad = np.where(inf[None, :, None], 0.0, grad)
    if grad is not None and norm_by_times:
        grad = grad / np.maximum(il, 1)[None, :, None]
    out = _attach(log_probs, loss, grad, batch_axis=1)
    if reduction == "mean":
        return R.mean(out / const(ll, log_probs._data.dtype))
    if reduction == "sum":
        return R.sum(out)
    return out


def rnnt_loss(input: Tensor, label: Any, input_lengths: Any, label_lengths: Any,
              blank: int = 0, fastemit_lambda: float = 0.001, reduction: str = "mean",
              name: str | None = None) -> Tensor:
    """RNN-Transducer loss (Paddle's warprnnt on CPU, see the module notes): input
    [B, T, U + 1, C] log-probabilities (no softmax applied), label [B, U] ids, input_lengths
    and label_lengths [B]; fastemit_lambda scales the label emissions' gradient only."""
    fn = "rnnt_loss"
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}: input must be a Tensor, got {type(input).__name__}")
    require_float(input, fn)
    if input._data.dtype not in (np.float32, np.float64):
        raise TypeError(f"{fn}: input must be float32 or float64, got {input.dtype.name}")
    if input.ndim != 4:
        raise ValueError(f"{fn}: input must be 4-D [batch_size, max_logit_length, "
                         f"max_label_length + 1, num_classes], got shape {list(input.shape)}")
    _reduction(reduction, fn)
    lam = float(fastemit_lambda)
    if not lam >= 0:
        raise ValueError(f"{fn}: fastemit_lambda must be >= 0, got {fastemit_lambda}")
    B, T, U1, C = input.shape
    if U1 < 2:
        raise ValueError(f"{fn}: input.shape[2] (max_label_length + 1) must be at least 2, got "
                         f"shape {list(input.shape)}")
    blank = _check_blank(blank, C, fn)
    lab = _ints(label, "label", fn)
    if lab.ndim != 2 or lab.shape[0] != B or lab.shape[1] != U1 - 1:
        raise ValueError(f"{fn}: label must be 2-D [batch_size={B}, max_label_length={U1 - 1}]"
                         f" (input.shape[2] - 1), got shape {list(lab.shape)}")
    il = _lengths(input_lengths, "input_lengths", B, T, 1, fn)
    ll = _lengths(label_lengths, "label_lengths", B, U1 - 1, 0, fn)
    _check_labels(lab, ll, C, fn)
    loss, grad = _rnnt(input._data, lab, il, ll, blank, lam,
                       _wants_grad(input))
    out = _attach(input, loss, grad, batch_axis=0)
    if reduction == "mean":
        return R.sum(out) / float(B)
    if reduction == "sum":
        return R.sum(out)
    return out

