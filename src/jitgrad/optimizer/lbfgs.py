"""paddle.optimizer.LBFGS: limited-memory BFGS driven by a closure, as Paddle 3.3.1 runs it.

Each step(closure) evaluates the loss, then runs up to max_iter quasi-Newton iterations: the
direction comes from the two-loop recursion over the last history_size (s, y) pairs (Nocedal
and Wright, Numerical Optimization, 2nd ed., algorithm 7.4), the step length is the fixed
learning_rate (the very first iteration scales it by min(1, 1 / |g|_1)) or comes from a
strong-Wolfe line search (bracketing, then zoom with cubic interpolation; algorithms 3.5/3.6).
The memory (directions, curvature pairs, the counters) lives across steps in `state`.

The arithmetic follows Paddle's types, so trajectories agree to rounding: vectors and the
values Paddle keeps as Tensors (dot products, curvature ratios, a step length interpolated
from them) are numpy scalars/arrays of the parameters' dtype, the losses Python floats.

As in Paddle 3.3.1, weight_decay and grad_clip are accepted but not applied (the closure's
gradients are used as they are), the rate of a parameter group is not read, and get_lr()
is 1.0. Unlike Paddle: the parameters of every group are optimized (Paddle: only the last
group's), set_state_dict restores the memory (Paddle's leaves it unused, so a reloaded
optimizer starts over), and state_dict() returns copies (Paddle's holds the live buffers).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from ..core import grad_mode, tape
from ..core.tensor import Tensor
from .optimizers import Optimizer

_MISSING = object()
_VECTORS = ("d", "prev_flat_grad")
_HISTORY = ("old_yk", "old_sk", "ro")
_KEYS = ("func_evals", "n_iter", "d", "alpha", "old_yk", "old_sk", "ro", "H_diag",
         "prev_flat_grad", "prev_loss")


def _dot(a: np.ndarray, b: np.ndarray) -> np.generic:
    return (a * b).sum()


def _cubic_min(x1: Any, f1: float, g1: Any, x2: Any, f2: float, g2: Any,
               bounds: tuple | None = None) -> Any:
    """Minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, clamped to
    bounds (default: the interval between the points); the midpoint when it has none
    (Nocedal and Wright, eq. 3.59)."""
    if bounds is None:
        bounds = (x1, x2) if x1 <= x2 else (x2, x1)
    lo, hi = bounds
    with np.errstate(all="ignore"):
        d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
        disc = d1 ** 2 - g1 * g2
        if not disc >= 0:
            return (lo + hi) / 2.0
        d2 = np.sqrt(disc)
        if x1 <= x2:
            t = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            t = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(t, lo), hi)


def _strong_wolfe(probe: Callable, t: Any, d: np.ndarray, f0: float, g0: np.ndarray,
                  gtd0: Any, tolerance_change: float, c1: float = 1e-4, c2: float = 0.9,
                  max_ls: int = 25) -> tuple[float, np.ndarray, Any, int]:
    """Search t along d for f(x + t d) <= f0 + c1 t gtd0 and |f'(t)| <= -c2 gtd0.
    probe(t) -> (loss, flat gradient) at x + t d. Returns (loss, gradient, t, evaluations)."""
    scale = np.abs(d).max()
    f, g = probe(t)
    evals = 1
    gtd = _dot(g, d)

    def sufficient(t: Any, f: float) -> bool:
        return bool(f <= f0 + c1 * t * gtd0)

    # bracketing: grow t until [previous, current] holds an acceptable point
    prev = (0, f0, g0, gtd0)
    pts: list[list] | None = None
    done = False
    it = 0
    while it < max_ls:
        if not sufficient(t, f) or (it > 1 and f >= prev[1]):
            pts = [list(prev), [t, f, g, gtd]]
            break
        if abs(gtd) <= -c2 * gtd0:
            pts, done = [[t, f, g, gtd]], True
            break
        if gtd >= 0:
            pts = [list(prev), [t, f, g, gtd]]
            break
        t_next = _cubic_min(prev[0], prev[1], prev[3], t, f, gtd,
                            bounds=(t + 0.01 * (t - prev[0]), t * 10))
        prev = (t, f, g, gtd)
        t = t_next
        f, g = probe(t)
        evals += 1
        gtd = _dot(g, d)
        it += 1
    if pts is None:                             # max_ls trials without a bracket
        pts = [[0, f0, g0, None], [t, f, g, None]]

    # zoom: shrink the bracket around the acceptable point; pts[lo] is the best so far
    lo, hi = (0, 1) if pts[0][1] <= pts[-1][1] else (1, 0)
    stalled = False
    while not done and it < max_ls:
        a, b = pts[0][0], pts[1][0]
        if abs(b - a) * scale < tolerance_change:
            break
        t = _cubic_min(a, pts[0][1], pts[0][3], b, pts[1][1], pts[1][3])
        left, right = min(a, b), max(a, b)
        margin = 0.1 * (right - left)
        if min(right - t, t - left) < margin:   # too close to an end: progress is slow
            if stalled or t >= right or t <= left:
                t = right - margin if abs(t - right) < abs(t - left) else left + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        f, g = probe(t)
        evals += 1
        gtd = _dot(g, d)
        it += 1
        if not sufficient(t, f) or f >= pts[lo][1]:
            pts[hi] = [t, f, g, gtd]
            lo, hi = (0, 1) if pts[0][1] <= pts[1][1] else (1, 0)
        else:
            if abs(gtd) <= -c2 * gtd0:
                done = True
            elif gtd * (pts[hi][0] - pts[lo][0]) >= 0:
                pts[hi] = pts[lo]
            pts[lo] = [t, f, g, gtd]
    t, f, g, _ = pts[lo]
    return f, g, t, evals


def _check_int(key: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"LBFGS: {key} must be an integer >= {low}, got {value!r}")
    return int(value)


class LBFGS(Optimizer):
    """paddle.optimizer.LBFGS (see the module docstring): step(closure) with a closure that
    clears the gradients, computes the loss, calls loss.backward() and returns the loss;
    step returns the closure's first loss of the step."""

    def __init__(self, learning_rate: float = 1.0, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None,
                 parameters: Iterable[Tensor] | None = None, weight_decay: Any = None,
                 grad_clip: Callable | None = None, name: str | None = None) -> None:
        if isinstance(learning_rate, bool) or not isinstance(
                learning_rate, (int, float, np.floating, np.integer)):
            raise TypeError(f"LBFGS: learning_rate must be a float (LBFGS takes no "
                            f"LRScheduler), got {learning_rate!r}")
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"LBFGS: line_search_fn must be None or 'strong_wolfe' (only "
                             f"'strong_wolfe' is supported), got {line_search_fn!r}")
        max_iter = _check_int("max_iter", max_iter, 1)
        max_eval = max_iter * 5 // 4 if max_eval is None else _check_int("max_eval",
                                                                          max_eval, 1)
        # Paddle hands the base class a rate of 1.0 (get_lr() is 1.0) and keeps its own
        super().__init__(learning_rate=1.0, parameters=parameters, weight_decay=weight_decay,
                         grad_clip=grad_clip, name=name)
        if not self._params:
            raise ValueError("LBFGS: parameters is empty; give the Tensors to optimize")
        self.learning_rate = learning_rate
        self.max_iter, self.max_eval = max_iter, max_eval
        self.tolerance_grad, self.tolerance_change = tolerance_grad, tolerance_change
        self.history_size = _check_int("history_size", history_size, 1)
        self.line_search_fn = line_search_fn
        self._dtype = np.result_type(*[p._data.dtype for p in self._params])
        self._numel = sum(int(p._data.size) for p in self._params)
        self.state: dict[str, Any] = {}     # Paddle's attribute: the memory across steps

    # the parameters as one flat vector --------------------------------------------------
    def _flat_grad(self) -> np.ndarray:
        dt = self._dtype
        return np.concatenate([
            np.zeros(p._data.size, dt) if p._grad is None
            else np.asarray(p._grad, dtype=dt).reshape(-1) for p in self._params])

    def _write(self, values: list[np.ndarray]) -> None:
        """Give each parameter new values, outside the graph (copy on write)."""
        for p, v in zip(self._params, values):
            p._data = v
            p._version += 1
        tape.bump_epoch()

    def _moved(self, base: list[np.ndarray], t: Any, d: np.ndarray) -> list[np.ndarray]:
        """base + t * d, parameter by parameter."""
        out, at = [], 0
        for p, x in zip(self._params, base):
            n = x.size
            out.append((x + (d[at:at + n] * t).reshape(x.shape)).astype(x.dtype, copy=False))
            at += n
        return out

    def _evaluate(self, closure: Callable) -> Any:
        with grad_mode.enable_grad():
            return closure()

    # the update -----------------------------------------------------------------------
    def step(self, closure: Callable = _MISSING) -> Any:  # type: ignore[assignment]
        """Run up to max_iter L-BFGS iterations; return the loss the closure gave first."""
        if closure is _MISSING:
            raise TypeError("LBFGS.step() missing 1 required positional argument: 'closure' "
                            "(a function that clears the gradients, computes the loss, calls "
                            "loss.backward() and returns the loss)")
        if not callable(closure):
            raise TypeError(f"LBFGS.step: closure must be callable, got {closure!r}")
        with grad_mode.no_grad():
            return self._run(closure)

    def _run(self, closure: Callable) -> Any:
        dt = self._dtype
        lr, hist = self.learning_rate, self.history_size
        tol_grad, tol_change = self.tolerance_grad, self.tolerance_change
        st = self.state
        st.setdefault("func_evals", 0)
        st.setdefault("n_iter", 0)

        first = self._evaluate(closure)
        loss = float(first)
        evals = 1
        st["func_evals"] += 1
        g = self._flat_grad()
        if np.abs(g).max() <= tol_grad:
            return first

        d, t = st.get("d"), st.get("alpha")
        ys_, ss_, rho = st.get("old_yk"), st.get("old_sk"), st.get("ro")
        h0, g_prev, loss_prev = st.get("H_diag"), st.get("prev_flat_grad"), st.get("prev_loss")
        for it in range(1, self.max_iter + 1):
            st["n_iter"] += 1
            if st["n_iter"] == 1:               # the first iteration ever: steepest descent
                d, ys_, ss_, rho, h0 = -g, [], [], [], dt.type(1.0)
            else:
                y, s = g - g_prev, d * dt.type(t)
                curv = _dot(y, s)
                if curv > 1e-10:                # keep the pair only if curvature is positive
                    if len(ys_) == hist:
                        del ys_[0], ss_[0], rho[0]
                    ys_.append(y)
                    ss_.append(s)
                    rho.append(1.0 / curv)
                    h0 = curv / _dot(y, y)
                d = self._two_loop(g, ys_, ss_, rho, h0)
            g_prev, loss_prev = g.copy(), loss

            t = min(1.0, 1.0 / np.abs(g).sum()) * lr if st["n_iter"] == 1 else lr
            gtd = _dot(g, d)
            if gtd > -tol_change:               # not a descent direction any more
                break

            done, used = False, 0
            if self.line_search_fn is not None:
                x0 = [p._data for p in self._params]

                def probe(step: Any, x0: list = x0, d: np.ndarray = d) -> tuple:
                    self._write(self._moved(x0, step, d))
                    value = float(self._evaluate(closure))
                    grad = self._flat_grad()
                    self._write([x.copy() for x in x0])
                    return value, grad

                loss, g, t, used = _strong_wolfe(probe, t, d, loss, g, gtd, tol_change)
                self._write(self._moved(x0, t, d))
                done = bool(np.abs(g).max() <= tol_grad)
            else:
                self._write(self._moved([p._data for p in self._params], t, d))
                if it != self.max_iter:
                    loss = float(self._evaluate(closure))
                    g = self._flat_grad()
                    done = bool(np.abs(g).max() <= tol_grad)
                    used = 1
            evals += used
            st["func_evals"] += used

            if done or np.abs(d * t).max() <= tol_change or abs(loss - loss_prev) < tol_change \
                    or evals >= self.max_eval:
                break

        st.update(d=d, alpha=t, old_yk=ys_, old_sk=ss_, ro=rho, H_diag=h0,
                  prev_flat_grad=g_prev, prev_loss=loss_prev)
        return first

    @staticmethod
    def _two_loop(g: np.ndarray, ys_: list, ss_: list, rho: list, h0: Any) -> np.ndarray:
        """-H g for the L-BFGS inverse Hessian H built from the (s, y) pairs on h0 * I."""
        q = -g
        a = [None] * len(ys_)
        for i in range(len(ys_) - 1, -1, -1):
            a[i] = _dot(ss_[i], q) * rho[i]
            q = q + ys_[i] * (-a[i])
        r = q * h0
        for i in range(len(ys_)):
            b = _dot(ys_[i], r) * rho[i]
            r = r + ss_[i] * (a[i] - b)
        return r

    def minimize(self, loss: Any, startup_program: Any = None, parameters: Any = None,
                 no_grad_set: Any = None) -> Any:
        raise NotImplementedError("LBFGS optimizer does not use this way to minimize loss. "
                                  "Call opt.step(closure), the closure clearing the gradients, "
                                  "computing the loss, calling loss.backward() and returning it.")

    # state ----------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """{'state': {...}} with Paddle's keys (func_evals, n_iter, d, alpha, old_yk, old_sk,
        ro, H_diag, prev_flat_grad, prev_loss); arrays as Tensors, copied."""
        def out(v: Any) -> Any:
            if isinstance(v, list):
                return [out(x) for x in v]
            if isinstance(v, (np.ndarray, np.generic)):
                return Tensor._make(np.array(v, copy=True))
            return v
        return {"state": {k: out(v) for k, v in self.state.items()}}

    def set_state_dict(self, state_dict: dict) -> None:
        """Restore the memory saved by state_dict() (jitgrad's or Paddle's file)."""
        if not isinstance(state_dict, dict) or not isinstance(state_dict.get("state"), dict):
            raise TypeError("LBFGS.set_state_dict: expected the dict LBFGS.state_dict() "
                            "returns, {'state': {...}}, got "
                            f"{type(state_dict).__name__}"
                            + (f" with keys {sorted(state_dict)[:4]}"
                               if isinstance(state_dict, dict) else ""))
        saved = dict(state_dict["state"])
        saved.pop("al", None)                   # Paddle's scratch buffer of the two loops
        unknown = sorted(k for k in saved if k not in _KEYS)
        if unknown:
            raise ValueError(f"LBFGS.set_state_dict: unknown entries {unknown[:4]}; an LBFGS "
                             f"state holds {list(_KEYS)}")
        dt, n = self._dtype, self._numel

        def arr(key: str, v: Any) -> Any:
            if isinstance(v, Tensor):
                v = v._data
            if isinstance(v, (np.ndarray, np.generic)):
                a = np.array(v, dtype=dt, copy=True)
                return a if a.ndim else dt.type(a)
            if isinstance(v, (int, float)) or v is None:
                return v
            raise TypeError(f"LBFGS.set_state_dict: {key!r} holds a {type(v).__name__}")

        new: dict[str, Any] = {}
        for key, v in saved.items():
            if key in _HISTORY:
                if not isinstance(v, (list, tuple)):
                    raise TypeError(f"LBFGS.set_state_dict: {key!r} must be a list, got "
                                    f"{type(v).__name__}")
                v = [arr(key, x) for x in v]
            else:
                v = arr(key, v)
            vecs = v if key in ("old_yk", "old_sk") else [v] if key in _VECTORS else []
            for x in vecs:
                if x is not None and np.shape(x) != (n,):
                    raise ValueError(f"LBFGS.set_state_dict: {key!r} has shape "
                                     f"{list(np.shape(x))}, but the parameters have {n} "
                                     "elements in all")
            new[key] = v
        for key in ("func_evals", "n_iter"):
            if key in new:
                new[key] = int(new[key])
        self.state = new

    set_dict = load_state_dict = set_state_dict
