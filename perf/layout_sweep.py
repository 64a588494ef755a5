"""Every op_steps.py case again, with its inputs in other memory layouts, dtypes and shapes.

    /work/peers/bin/python perf/layout_sweep.py                 # every case (~3-4 min)
    /work/peers/bin/python perf/layout_sweep.py --only matmul,cumsum --variants leafF,midF
    /work/peers/bin/python perf/layout_sweep.py -v              # every variant of every case

A differential test hunting silently wrong results: op_steps.py's OPS table (name ->
jitgrad loss fn, torch loss fn, inputs) builds the same seeded values as before, then
runs them through jitgrad in these variants, each compared with torch (float32 inputs
at the case's `tol`, 1e-3 unless it says otherwise, the loss at 1e-4; float64 inputs
against torch in float64 at 1e-10) and, for the float32 ones of the base shapes, with
jitgrad's own C-contiguous float32 result (reported as `own` when above 1e-4):

    base      float32, C-contiguous leaves (the op_steps check), the program cache emptied
    reseed    the same structure with other values (seed 2), the cache warm from `base`
    leafF     leaves whose numpy arrays are Fortran-ordered views (a detached transpose;
              1-D ones strided): to_tensor copies to C order, so a user gets these from
              `x.T.detach()`-like code. `warm` after base (hits its Program), `cold` after
              emptying the cache (interpreted, lowered, hit)
    leafS     leaves whose arrays are strided views (every other element of the last axis)
    leafR     leaves whose arrays have a negative last stride (`a[..., ::-1]` of a copy)
    graphF/S/R  C leaves, each turned inside the graph into such a view (transpose of a
              transposed copy, stack + select, flip copy + reversed slice), so the first op
              of each loss receives a strided array and the gradient flows back through it
    midF/S/R  the results of every `a * b` and `a @ b` (Tensor.__mul__/__matmul__, patched
              for the run) turned into such views: the op under test, which mostly sits
              on `x @ W` or `x * w`, receives the strided array itself
    C-afterF/S  C leaves again, hitting the Program lowered for the F (S) ones
    spec-warm/cold  every 7th element of each float constant a special point (near the
              range's ends, 0, +-0.05, 1e-4), hitting base's Program (warm) and cold; the
              warm run's gradients must equal the cold (interpreted) run's
    f64       every float input float64 (cold), then f64-leafF (warm), f32-after64 and
              f64-after32 (float32 and float64 of one structure, both cached), f64-midF
    mix-p64, mix-c64  float64 parameters with float32 constants, and the reverse (Paddle's
              promotion; torch's reference in float64)
    reqall-warm/cold, base-afterreq  every float input requiring gradients, on base's
              Program, then base on theirs
    retain    one graph, three backwards with retain_graph (1x, 2x, 3x)
    hook2x    a hook doubling each parameter's gradient (an uncacheable graph)
    size1     every dimension of 32 made 1 (a batch of one), where torch accepts it
    p0d, p1   every 1-D parameter made 0-d, or shape [1] (broadcast), where torch accepts it
    all0d     every input 0-d, where torch accepts it
    pt0d-j, pt1-j  every input 0-d (shape [1]) at special point j of its range
    grad      paddle.grad(loss, params) against torch.autograd.grad (C, then leafF)
    gradF     a .grad the user set from a Fortran-ordered tensor, accumulated into
    sgd       three Momentum steps against torch's SGD(momentum=0.9) (C, then leafF)
    big       every dimension of 32 made 512 (values over 64 KB: read in place by the
              lowered Program), then with leafF, midF, graphS
    hvp       Hessian-vector products (paddle.grad create_graph=True, then backward)
              against torch's: float32 C, midF, leafF; float64 C and midS (1e-8)

Each variant runs the production path (no JITGRAD_* switches): three steps without
clear_grad (gradients must be 1x, 2x, 3x torch's: interpreted, lowered, cached), then
clear_grad and a fourth step (1x), then fresh leaves of the same structure (a cache hit
writing new .grad arrays). Every .grad must be a Tensor of its parameter's shape and dtype.

Report: a line per case with any non-ok variant (`-v`: every case), then the summary line
`cases N, variant runs R: ok A, mismatch M, raises E (torch does not), n/a S, known K`.
Torch raising too (a shape the op does not take) counts as n/a; `known` are the KNOWN
table's differences (torch's own error, checked against mpmath or closed forms, or
Paddle's semantics, checked against Paddle 3.3.1).
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS",
           "JITGRAD_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
import types  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import op_steps as O  # noqa: E402  (puts ../src first on sys.path, imports jitgrad, torch)

P, torch = O.P, O.torch
Tensor = type(P.to_tensor(0.0))

F32_LOSS_TOL = 1e-4
F64_TOL = 1e-10
OWN_TOL = 1e-4
HVP64_TOL = 1e-8         # second derivatives in float64 (torch's own special functions)

# Differences that are not jitgrad bugs: torch's own error (checked against mpmath or a
# closed form), or Paddle's semantics (checked against Paddle 3.3.1), for mismatches and
# raises alike. (case, variant-name prefix) -> why; reported as `known`.
KNOWN = {
    ("digamma", "f64"): "torch's float64 trigamma is ~5e-10 off (mpmath); jitgrad's 6e-16",
    ("polygamma", "f64"): "torch's float64 polygamma(1, x) is ~5e-10 off (mpmath); jitgrad's "
                          "6e-16",
    ("hardsigmoid", "f64"): "torch's float64 hardsigmoid backward uses float32(1/6) (rel "
                            "3e-8); jitgrad's slope is the float64 1/6 the case passes",
    ("digamma", "mix-p64"): "torch's float64 trigamma (as f64)",
    ("polygamma", "mix-p64"): "torch's float64 polygamma (as f64)",
    ("hardsigmoid", "mix-p64"): "torch's float64 hardsigmoid backward (as f64)",
    ("cosine_similarity", "mix-p64"): "as Paddle 3.3.1 (same digits): the float32 operand's "
                                      "norm is computed in float32, then promoted",
    ("cosine_embedding_loss", "mix-p64"): "as cosine_similarity: the float32 operand's norm "
                                          "in float32 (Paddle's promotion per op)",
    ("cdist", "mix-p64"): "Paddle 3.3.1 raises for mixed dtypes here (its matmul); jitgrad "
                          "promotes per op, so |y|^2 of the float32 y is float32",
    ("dist", "mix-p64"): "refuses mixed dtypes (TypeError), as Paddle's dist",
    ("prelu", "mix-c64"): "refuses a weight of another dtype (TypeError), as Paddle",
    ("polygamma", "hvp64"): "torch's float64 polygamma (the loss; as f64)",
    ("binary_cross_entropy", "reqall"): "the label gets no gradient, as in Paddle (README: "
                                        "loss targets are not differentiated)",
    ("bce_with_logits", "reqall"): "the label gets no gradient, as in Paddle (README)",
    ("kl_div", "reqall"): "the target gets no gradient, as in Paddle (README)",
    ("sinc", "pt1-6"): "torch's float32 sinc'(1e-4) is -9.3e-4 (cancellation); true and "
                       "jitgrad's -3.29e-4",
    ("sinc", "pt0d-6"): "the same point 0-d: torch's -9.3e-4, true and jitgrad's -3.29e-4",
    # Paddle semantics (Paddle 3.3.1 behaves as jitgrad, checked), not torch's:
    ("put_along_axis", "all0d"): "Paddle 3.3.1 refuses 0-d x too (axis out of range)",
    ("scatter", "all0d"): "Paddle 3.3.1 refuses a 0-d x and index too",
    ("scatter_reduce_amax", "all0d"): "Paddle 3.3.1 refuses 0-d x too (axis out of range)",
    ("poisson_nll_loss", "pt1"): "Paddle 3.3.1 wants input and label of one shape (x @ W of "
                                 "two [1] vectors is 0-d; torch broadcasts)",
}


def rel_err(a: Any, b: Any) -> float:
    """op_steps.rel_err, but NaN (and inf) where both have it at the same place agrees."""
    a = np.zeros(()) if a is None else np.asarray(a, np.float64)
    b = np.zeros(()) if b is None else np.asarray(b, np.float64)
    if a.shape != b.shape and a.size > 1 and b.size > 1:
        return math.inf
    a, b = np.broadcast_arrays(a, b)
    na, nb = np.isnan(a), np.isnan(b)
    if not np.array_equal(na, nb):
        return math.inf
    keep = ~nb
    if not keep.any():
        return 0.0
    a, b = a[keep], b[keep]
    same = a == b                       # equal infinities too
    if not np.array_equal(np.isinf(a) & ~same, np.zeros_like(same)):
        return math.inf
    d = np.where(same, 0.0, np.abs(a - b))
    fin = np.abs(b[np.isfinite(b)])
    scale = float(fin.max()) if fin.size else 0.0
    return float(d.max(initial=0.0)) / max(scale, 1e-7)


# ---- inputs in a layout ---------------------------------------------------------------------

def arrays(inputs: dict, seed: int, dtype: Any, shape_fn: Callable | None,
           point: int | None = None, reqall: bool = False) -> dict:
    """name -> (numpy array, spec), op_steps' seeded values, shapes changed by shape_fn;
    with `point`, every float input filled with its point number `point` (point_value);
    with `reqall`, every float input a parameter."""
    rng = np.random.default_rng(seed)
    out = {}
    for k, spec in inputs.items():
        if shape_fn is not None:
            spec = spec._replace(shape=tuple(shape_fn(k, spec)))
        if reqall and spec.kind in ("f", "s", "z"):
            spec = spec._replace(p=True)
        a = O.make(spec, rng)
        if a.dtype.kind == "f":
            if point is not None and spec.kind == "f" and point >= 0:
                a = np.full(a.shape, point_value(spec, point), np.float32)
            elif point is not None and spec.kind == "f" and not spec.p and a.size > 1:
                # point -1: every 7th element of each float constant a special point
                flat = a.reshape(-1).copy()
                sel = np.arange(0, flat.size, 7)
                flat[sel] = [point_value(spec, j % POINTS) for j in range(sel.size)]
                a = flat.reshape(a.shape)
            a = a.astype(dtype if not isinstance(dtype, tuple) else dtype[bool(spec.p)])
        out[k] = (a, spec)
    return out


POINTS = 7


def point_value(spec: Any, j: int) -> float:
    """Special points of an input's range: near each end, the middle, 0, +-0.05, 1e-4
    (those outside the range: the middle); a parameter is 1 (multiplicative weights)
    where its range holds 1."""
    lo, hi = (-2 * spec.hi, 2 * spec.hi) if spec.normal else (spec.lo, spec.hi)
    if spec.p and lo <= 1.0 < hi:
        return 1.0
    mid = (lo + hi) / 2
    cand = [lo + 0.02 * (hi - lo), mid, hi - 0.02 * (hi - lo), 0.0, 0.05, -0.05, 1e-4][j]
    return cand if lo <= cand < hi else mid


def leaf(a: np.ndarray, layout: str) -> Tensor:
    """A leaf tensor of a's values whose array has `layout` (C, F, S or R), made as a user
    would: a view of another tensor, detached."""
    if layout == "C" or a.ndim == 0 or a.size <= 1:
        return P.to_tensor(a)
    if layout == "F" and a.ndim >= 2:
        perm = list(range(a.ndim))[::-1]
        return P.transpose(P.to_tensor(np.ascontiguousarray(a.transpose(perm))), perm).detach()
    if layout in ("F", "S"):
        return P.to_tensor(np.stack([a, np.zeros_like(a)], axis=-1))[..., 0].detach()
    if layout == "R":
        return P.to_tensor(np.ascontiguousarray(np.flip(a, -1)))[..., ::-1].detach()
    raise ValueError(layout)


def gview(t: Tensor, kind: str) -> Tensor:
    """t's values, inside the graph, as an array of layout `kind` (F, S, R)."""
    nd = t.ndim
    if nd == 0 or int(np.prod(t.shape)) <= 1:
        return t
    if kind == "F" and nd >= 2:
        perm = list(range(nd))[::-1]
        return P.transpose(P.clone(P.transpose(t, perm)), perm)
    if kind in ("F", "S"):
        return P.stack([t, t], axis=-1)[..., 0]
    if kind == "R":
        return P.clone(P.flip(t, [nd - 1]))[..., ::-1]
    raise ValueError(kind)


class MidViews:
    """Within the block, every Tensor `a * b` and `a @ b` result of floats is a view."""

    def __init__(self, kind: str | None) -> None:
        self.kind = kind

    def __enter__(self) -> None:
        if self.kind is None:
            return
        self.saved = {n: Tensor.__dict__[n] for n in ("__mul__", "__matmul__")}
        kind = self.kind

        def wrap(orig: Callable) -> Callable:
            def f(a: Any, b: Any) -> Any:
                out = orig(a, b)
                if isinstance(out, Tensor) and out.ndim >= 1 and out._data.dtype.kind == "f":
                    return gview(out, kind)
                return out
            return f
        for n, fn in self.saved.items():
            setattr(Tensor, n, wrap(fn))

    def __exit__(self, *exc: Any) -> None:
        if self.kind is not None:
            for n, fn in self.saved.items():
                setattr(Tensor, n, fn)


def layout_of(a: np.ndarray) -> str:
    if a.ndim == 0 or a.size <= 1:
        return "-"
    if a.flags.c_contiguous:
        return "C"
    if a.flags.f_contiguous:
        return "F"
    return "R" if any(s < 0 for s in a.strides) else "S"


# ---- variants -------------------------------------------------------------------------------

class V(types.SimpleNamespace):
    """One variant: dtype, leaf layout, graph view, mid view, shape fn, clear the cache
    first, seed, paddle.grad instead of backward."""


def _sz1(k: str, s: Any) -> tuple:
    return tuple(1 if d == 32 else d for d in s.shape)


def _p0d(k: str, s: Any) -> tuple:
    return () if s.p and len(s.shape) == 1 else s.shape


def _p1(k: str, s: Any) -> tuple:
    return (1,) if s.p and len(s.shape) == 1 else s.shape


def _all0d(k: str, s: Any) -> tuple:
    return ()


def _all1(k: str, s: Any) -> tuple:
    return (1,)


def _big(k: str, s: Any) -> tuple:
    return tuple(512 if d == 32 else d for d in s.shape)


def variants() -> list:
    f32, f64 = np.float32, np.float64
    d = dict(dtype=f32, leaf="C", gv=None, mid=None, shape=None, cold=False, seed=1,
             grad=False, point=None, pregrad=False, opt=False, hvp=False, retain=False,
             hook=False, reqall=False)

    def v(name: str, **kw: Any) -> V:
        return V(name=name, **{**d, **kw})
    return [
        v("base", cold=True),
        v("reseed", seed=2),
        v("spec-warm", point=-1),        # special values, hitting base's Program
        v("spec-cold", point=-1, cold=True),
        v("leafF-warm", leaf="F"),
        v("leafS-warm", leaf="S"),
        v("leafR-warm", leaf="R"),
        v("leafF-cold", leaf="F", cold=True),
        v("C-afterF", leaf="C"),          # C leaves hitting the Program lowered for F ones
        v("leafS-cold", leaf="S", cold=True),
        v("C-afterS", leaf="C"),
        v("graphF", gv="F", cold=True),
        v("graphS", gv="S", cold=True),
        v("graphR", gv="R", cold=True),
        v("midF", mid="F", cold=True),
        v("midS", mid="S", cold=True),
        v("midR", mid="R", cold=True),
        v("f64", dtype=f64, cold=True),
        v("f64-leafF", dtype=f64, leaf="F"),
        v("f32-after64"),                 # float32 with the float64 Program cached
        v("f64-after32", dtype=f64),      # and back: both cached
        v("f64-midF", dtype=f64, mid="F", cold=True),
        v("reqall-warm", reqall=True),  # every float input requires grad: the structure
        v("base-afterreq"),               # of base, other leaves needing gradients
        v("reqall-cold", reqall=True, cold=True),
        v("retain", retain=True, cold=True),
        v("hook2x", hook=True, cold=True),
        v("mix-p64", dtype=(f32, f64), cold=True),
        v("mix-c64", dtype=(f64, f32), cold=True),
        v("size1", shape=_sz1, cold=True),
        v("p0d", shape=_p0d, cold=True),
        v("p1", shape=_p1, cold=True),
        v("all0d", shape=_all0d, cold=True),
        v("grad", grad=True, cold=True),
        v("grad-leafF", grad=True, leaf="F"),
        v("gradF", pregrad=True),
        v("hvp", hvp=True, cold=True),
        v("hvp-midF", hvp=True, mid="F", cold=True),
        v("hvp-leafF", hvp=True, leaf="F"),
        v("hvp64", hvp=True, dtype=f64, cold=True),
        v("hvp64-midS", hvp=True, dtype=f64, mid="S", cold=True),
        v("sgd", opt=True, cold=True),
        v("sgd-leafF", opt=True, leaf="F"),
        v("big", shape=_big, cold=True),
        v("big-leafF", shape=_big, leaf="F"),
        v("big-midF", shape=_big, mid="F", cold=True),
        v("big-graphS", shape=_big, gv="S", cold=True),
        *[v(f"pt0d-{j}", shape=_all0d, point=j, cold=True) for j in range(POINTS)],
        *[v(f"pt1-{j}", shape=_all1, point=j, cold=True) for j in range(POINTS)],
    ]


# ---- running one variant ---------------------------------------------------------------------

class NA(Exception):
    """torch refuses the variant too: not applicable."""


def hvp_dirs(arrs: dict) -> list:
    """Fixed directions r (one per parameter) for Hessian-vector products."""
    rng = np.random.default_rng(7)
    return [rng.standard_normal(a.shape).astype(a.dtype) for a, spec in arrs.values() if spec.p]


def torch_ref(tf: Callable, arrs: dict, dtype: Any = None, hvp: bool = False) -> tuple:
    """torch's loss and gradients (hvp: and instead of the gradients, the Hessian times
    hvp_dirs: the gradient of sum(grad . r))."""
    tt, pt = {}, []
    for k, (a, spec) in arrs.items():
        if dtype is not None and a.dtype.kind == "f":
            a = a.astype(dtype)
        t = torch.from_numpy(np.array(a, copy=True)).requires_grad_(spec.p)
        tt[k] = t
        if spec.p:
            pt.append(t)
    loss = tf(types.SimpleNamespace(**tt))
    g = torch.autograd.grad(loss, pt, allow_unused=True, create_graph=hvp)
    if hvp:
        r = [torch.from_numpy(x) for x in hvp_dirs(arrs)]
        tot = sum((gi * ri).sum() for gi, ri in zip(g, r) if gi is not None)
        if isinstance(tot, torch.Tensor) and tot.requires_grad:
            g = torch.autograd.grad(tot, pt, allow_unused=True)
        else:
            g = [torch.zeros_like(x) for x in pt]
    return (loss.detach().numpy().astype(np.float64),
            [None if x is None else x.numpy().astype(np.float64) for x in g])


def jg_leaves(arrs: dict, layout: str) -> tuple:
    tj, pj = {}, []
    for k, (a, spec) in arrs.items():
        t = leaf(a, layout)
        if spec.p:
            t.stop_gradient = False
            pj.append(t)
        tj[k] = t
    return tj, pj


def grad_array(p: Tensor, problems: list, where: str) -> np.ndarray | None:
    g = p.grad
    if g is None:
        return None
    if not isinstance(g, Tensor):
        problems.append(f"{where}: .grad is {type(g).__name__}, not a Tensor")
        return np.asarray(g, np.float64)
    if tuple(g.shape) != tuple(p.shape):
        problems.append(f"{where}: .grad shape {list(g.shape)} != param {list(p.shape)}")
    if g.dtype != p.dtype:
        problems.append(f"{where}: .grad dtype {g.dtype} != param {p.dtype}")
    return g.numpy().astype(np.float64)


def run_variant(name: str, v: V, own: dict) -> dict:
    jf, tf, inputs, opt = O.entry(name)
    try:
        arrs = arrays(inputs, v.seed, v.dtype, v.shape, v.point, v.reqall)
    except Exception as e:          # noqa: BLE001  (a spec that has no such shape)
        raise NA(f"inputs: {type(e).__name__}") from None
    if v.point is not None and not any(s.p for s in inputs.values()):
        raise NA("no parameter")
    if v.point == -1 and not any(s.kind == "f" and not s.p for s in inputs.values()):
        raise NA("no float constant")
    if v.shape is not None and all(tuple(arrs[k][0].shape) == tuple(inputs[k].shape)
                                   for k in arrs):
        raise NA("shapes unchanged")
    try:
        # mixed dtypes: torch's matmul and friends refuse them, and both mixes are exactly
        # a float64 computation (float32 values are float64 ones): torch in float64
        lt, gt = torch_ref(tf, arrs, np.float64 if isinstance(v.dtype, tuple) else None,
                           hvp=v.hvp)
    except Exception as e:          # noqa: BLE001
        raise NA(f"torch: {type(e).__name__}: {str(e)[:80]}") from None
    # float64 tolerances where every parameter is float64 (mix-p64: float32 constants,
    # promoted; torch promotes them too, so its gradients are float64 computations)
    f64 = v.dtype == np.float64 or (isinstance(v.dtype, tuple) and v.dtype[1] == np.float64)
    tol = F64_TOL if f64 else opt.get("tol", 1e-3)
    if v.hvp:
        tol = HVP64_TOL if f64 else max(tol, 1e-3)
    ltol = F64_TOL if f64 else F32_LOSS_TOL
    if not f64 and not isinstance(v.dtype, tuple):
        # a float32 loss that cancels (a weighted sum near 0) loses digits in both
        # libraries: then allow jitgrad 4x torch's own float32 error against float64
        lt64 = torch_ref(tf, arrs, np.float64)[0]
        t32 = rel_err(lt, lt64)
        if t32 > ltol / 4:
            lt, ltol = lt64, 4 * t32
    if v.cold:
        P.cache_clear()
    problems: list[str] = []
    worst = {"loss": 0.0, "grad": 0.0, "own": 0.0}
    compare_own = (v.dtype == np.float32 and v.shape is None and v.seed == 1 and name in own
                   and not v.grad and not v.reqall and v.point is None)

    def forward(tj: dict) -> Any:
        with MidViews(v.mid):
            ns = {k: (gview(t, v.gv) if v.gv else t) for k, t in tj.items()}
            return jf(types.SimpleNamespace(**ns))

    def note(kind: str, err: float, lim: float, where: str) -> None:
        worst[kind] = max(worst[kind], err)
        if not err < lim:
            problems.append(f"{where}: {kind} err {err:.2e}")

    def check_step(where: str, loss: Any, grads: list, k: int) -> None:
        if isinstance(loss, Tensor):
            if f64 and v.dtype == np.float64 and loss.dtype != P.float64:
                problems.append(f"{where}: loss dtype {loss.dtype}")
            larr = loss.numpy().astype(np.float64)
        else:
            larr = np.asarray(loss, np.float64)
        note("loss", rel_err(larr, lt), ltol, where)
        for i, (a, b) in enumerate(zip(grads, gt)):
            bb = None if b is None else b * k
            note("grad", rel_err(a, bb), tol, f"{where} p{i}")
            if compare_own and where.startswith("step1"):
                o = own[name][i]
                e = rel_err(a, None if o is None else o * k)
                worst["own"] = max(worst["own"], e)
                if not e < OWN_TOL:
                    problems.append(f"{where} p{i}: own err {e:.2e}")

    tj, pj = jg_leaves(arrs, v.leaf)
    if v.leaf != "C":
        lay = {layout_of(t._data) for t in tj.values()} - {"-"}
        if lay and lay <= {"C"}:
            problems.append(f"leaves not laid out {v.leaf}: {lay}")
    if v.grad:
        for s in range(1, 4):
            loss = forward(tj)
            g = P.grad(loss, pj, allow_unused=True)
            ga = []
            for i, x in enumerate(g):
                if x is not None and not isinstance(x, Tensor):
                    problems.append(f"grad{s} p{i}: {type(x).__name__}")
                ga.append(None if x is None else np.asarray(
                    x.numpy() if isinstance(x, Tensor) else x, np.float64))
            check_step(f"grad{s}", loss, ga, 1)
            for p in pj:
                if p.grad is not None and np.any(p.grad.numpy() != 0):
                    problems.append(f"grad{s}: paddle.grad left a .grad on a parameter")
                    break
        return {"problems": problems, **worst}
    if v.opt:
        return run_opt(name, arrs, tj, pj, forward, problems, worst, tol)
    if v.hvp:           # Hessian-vector products through create_graph, three steps
        r = [P.to_tensor(x) for x in hvp_dirs(arrs)]
        for s in range(1, 4):
            loss = forward(tj)
            gs = P.grad(loss, pj, create_graph=True, allow_unused=True)
            tot = None
            for gi, ri in zip(gs, r):
                if gi is not None:
                    term = (gi * ri).sum()
                    tot = term if tot is None else tot + term
            if tot is not None and not tot.stop_gradient:
                tot.backward()
            check_step(f"hvp{s}", loss, [grad_array(p, problems, f"hvp{s}") for p in pj], s)
        return {"problems": problems, **worst}
    if v.pregrad:       # a .grad set by the user from a Fortran-ordered tensor: accumulated into
        if not any(p.ndim >= 2 for p in pj):
            raise NA("no parameter of 2 dims")
        for p in pj:
            if p.ndim >= 2:
                perm = list(range(p.ndim))[::-1]
                p.grad = P.transpose(P.zeros([p.shape[i] for i in perm], p.dtype), perm)
                if sum(d > 1 for d in p.shape) >= 2 and p._grad.flags.c_contiguous:
                    problems.append("the set .grad is not Fortran-ordered")
    if v.retain:        # one graph, three backwards (retain_graph): 1x, 2x, 3x
        loss = forward(tj)
        for s in range(1, 4):
            loss.backward(retain_graph=s < 3)
            check_step(f"retain{s}", loss, [grad_array(p, problems, f"retain{s}")
                                            for p in pj], s)
        return {"problems": problems, **worst}
    if v.hook:          # a hook doubling each parameter's gradient (uncacheable graphs)
        for p in pj:
            p.register_hook(lambda g: g * 2.0)
    for s in range(1, 4):
        loss = forward(tj)
        loss.backward()
        k = 2 * s if v.hook else s
        check_step(f"step{s}", loss, [grad_array(p, problems, f"step{s}") for p in pj], k)
        if s == 1:
            got = [grad_array(p, [], "") for p in pj]
            if v.name == "base":
                own[name] = got
            twin = {"spec-cold": "spec-warm"}.get(v.name)
            if twin is not None and (name, twin) in own:   # warm (cache hit) vs cold
                for i, (a, b) in enumerate(zip(own[name, twin], got)):
                    e = rel_err(a, b)
                    worst["own"] = max(worst["own"], e)
                    if not e < 1e-6:
                        problems.append(f"p{i}: {twin} (a hit of base's Program) differs "
                                        f"from this cold run by {e:.2e}")
            own[name, v.name] = got
    for p in pj:
        p.clear_grad()
    loss = forward(tj)
    loss.backward()
    check_step("step4(clear)", loss, [grad_array(p, problems, "step4") for p in pj],
               2 if v.hook else 1)
    if v.hook:
        return {"problems": problems, **worst}
    tj, pj = jg_leaves(arrs, v.leaf)          # new leaves, the same structure: a hit
    loss = forward(tj)
    loss.backward()
    check_step("step5(fresh)", loss, [grad_array(p, problems, "step5") for p in pj], 1)
    return {"problems": problems, **worst}


def run_opt(name: str, arrs: dict, tj: dict, pj: list, forward: Callable, problems: list,
            worst: dict, tol: float) -> dict:
    """Three training steps with Momentum(lr=0.1, momentum=0.9) against torch's SGD with
    momentum 0.9 (the same rule): each step's loss, then the parameters' total change."""
    _, tf, _, _ = O.entry(name)
    tt, pt = {}, []
    for k, (a, spec) in arrs.items():
        t = torch.from_numpy(np.array(a, copy=True)).requires_grad_(spec.p)
        tt[k] = t
        if spec.p:
            pt.append(t)
    nst = types.SimpleNamespace(**tt)
    topt = torch.optim.SGD(pt, lr=0.1, momentum=0.9)
    jopt = P.optimizer.Momentum(learning_rate=0.1, momentum=0.9, parameters=pj)
    p0 = [p.numpy().astype(np.float64) for p in pj]
    for s in range(1, 4):
        lj, lt = forward(tj), tf(nst)
        e = rel_err(lj.numpy(), lt.detach().numpy())
        worst["loss"] = max(worst["loss"], e)
        if not e < 10 * F32_LOSS_TOL:
            problems.append(f"sgd step{s}: loss err {e:.2e}")
        lj.backward()
        lt.backward()
        jopt.step()
        jopt.clear_grad()
        topt.step()
        topt.zero_grad()
        for i, (p, q, a0) in enumerate(zip(pj, pt, p0)):
            e = rel_err(p.numpy() - a0, q.detach().numpy().astype(np.float64) - a0)
            worst["grad"] = max(worst["grad"], e)
            if not e < 10 * tol:
                problems.append(f"sgd step{s} p{i}: update err {e:.2e}")
    return {"problems": problems, **worst}


def run_case(name: str, vs: list, verbose: bool) -> dict:
    own: dict = {}
    out = {}
    for v in vs:
        try:
            r = run_variant(name, v, own)
            r["status"] = "ok" if not r["problems"] else "mismatch"
            why = next((w for (c, pre), w in KNOWN.items()
                        if c == name and v.name.startswith(pre)), None)
            if r["status"] == "mismatch" and why:
                r["status"], r["msg"] = "known", why
        except NA as e:
            r = {"status": "n/a", "msg": str(e)}
        except Exception as e:      # noqa: BLE001
            tb = traceback.extract_tb(e.__traceback__)
            where = next((f"{os.path.relpath(f.filename, O.SRC)}:{f.lineno} {f.name}"
                          for f in reversed(tb) if f.filename.startswith(O.SRC)), "")
            r = {"status": "raises", "msg": f"{type(e).__name__}: {str(e)[:160]} [{where}]"}
            why = next((w for (c, pre), w in KNOWN.items()
                        if c == name and v.name.startswith(pre)), None)
            if why:
                r = {"status": "known", "msg": f"{why} (raises {type(e).__name__})"}
        out[v.name] = r
    return out


def fmt(vname: str, r: dict) -> str:
    if r["status"] == "mismatch":
        first = "; ".join(dict.fromkeys(r["problems"]))
        if len(first) > 300:
            first = first[:300] + " ..."
        return (f"    {vname:<12} MISMATCH loss {r['loss']:.1e} grad {r['grad']:.1e} "
                f"own {r['own']:.1e}: {first}")
    if r["status"] == "raises":
        return f"    {vname:<12} RAISES {r['msg']}"
    if r["status"] == "n/a":
        return f"    {vname:<12} n/a ({r['msg']})"
    if r["status"] == "known":
        return f"    {vname:<12} known: {r['msg']}"
    return f"    {vname:<12} ok (grad {r['grad']:.1e}, own {r['own']:.1e})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--variants", help="comma-separated variant names (base always runs)")
    ap.add_argument("-v", "--verbose", action="store_true", help="every variant of every case")
    args = ap.parse_args()
    names = list(O.OPS) if not args.only else args.only.split(",")
    vs = variants()
    if args.variants:
        keep = set(args.variants.split(",")) | {"base"}
        vs = [v for v in vs if v.name in keep]
    t0 = time.perf_counter()
    counts = {"ok": 0, "mismatch": 0, "raises": 0, "n/a": 0, "known": 0}
    bad_cases = 0
    by_variant: dict = {}
    for name in names:
        res = run_case(name, vs, args.verbose)
        bad = {k: r for k, r in res.items() if r["status"] in ("mismatch", "raises")}
        for k, r in res.items():
            counts[r["status"]] += 1
            if r["status"] in ("mismatch", "raises"):
                by_variant.setdefault(k, []).append(name)
        if bad:
            bad_cases += 1
        if bad or args.verbose:
            print(f"{name}: " + ("ok" if not bad else f"{len(bad)} of {len(res)} variants"),
                  flush=True)
            for k, r in res.items():
                if args.verbose or r["status"] in ("mismatch", "raises"):
                    print(fmt(k, r), flush=True)
    dt = time.perf_counter() - t0
    print()
    print("not ok, by variant: " + (", ".join(f"{k} {len(v)}" for k, v in by_variant.items())
                                     or "none"))
    print(f"cases {len(names)} ({bad_cases} with a problem), variant runs {sum(counts.values())}:"
          f" ok {counts['ok']}, mismatch {counts['mismatch']}, raises {counts['raises']} "
          f"(torch does not), n/a {counts['n/a']} (torch raises too), known {counts['known']} "
          f"(torch's error or Paddle's semantics); {dt:.0f} s")


if __name__ == "__main__":
    main()
