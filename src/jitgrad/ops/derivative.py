"""Elementwise derivatives written once, run two ways.

A unary op states its derivative once, as `deriv(m, x, out, **attrs)`: an expression in
Python operators and the functions of a math namespace `m`.

- With `m` a `NumpyMath`, on the forward's arrays, it gives f'(x) as an array, which the
  forward saves: the compiled backward multiplies by it (one MUL kernel, lowered here).
- With `m` an `OpsMath`, on the node's Tensors, it gives f'(x) in jitgrad ops: the eager
  rule g * f'(x), which records a graph and can be differentiated again (create_graph,
  Hessians).
- A factor that is one of the VM's elementwise kernels (exp's `out`, log's `1 / x`, tanh's
  `1 - out * out` ...) is found by tracing the derivative once, at definition
  (factor_kernels.py): then nothing is saved, the kernel reads the values where the forward
  left them, and the eager rule is the kernel's own expression.

Conditions are computed on plain values (`m.data(x)`) and are not differentiated:
`m.mask(cond)` is a 0/1 constant, `m.where(cond, a, b)` picks between two expressions.
A derivative that is a condition alone is written `Select(cond)` (clip's, where's): the
gradient passes where the condition holds and is 0 elsewhere whatever the upstream value,
so an inf or nan arriving where the op is flat gives 0 (a multiply by 0 would give nan),
as Paddle's clip and where kernels and torch's select kernels give.
A derivative that is a weight, >= 0 and 0 exactly where the output does not depend on the
input (maximum's 1, 0.5 on a tie, 0 for the loser), is written `Weight(fn)`: the gradient
is g times it where it is > 0, and 0 elsewhere whatever the upstream value.
A binary op (`binary`) states its two partial derivatives the same way.
A function the namespaces do not know by numpy's name (an op's own special function) is
registered once with `numpy_function`: `m.name(...)` then calls it in numpy and the jitgrad
op of that name in jitgrad ops.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core.tensor import Tensor
from . import factor_kernels as FK
from .core import apply_internal, apply_xy, compiled_input, const
from .registry import OpDef, defop

_ndarray = np.ndarray

_NUMPY_FUNCTIONS: dict[str, Callable] = {
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "square": np.square,
}


def numpy_function(name: str, fn: Callable) -> None:
    """`m.<name>(...)` in a derivative runs `fn` on arrays (the jitgrad op `name` on
    Tensors)."""
    _NUMPY_FUNCTIONS[name] = fn
    _NUMPY_MATHS.clear()        # (a NumpyMath may have looked the name up in numpy already)


class NumpyMath:
    """f'(x) on arrays, in the forward's dtype."""

    def __init__(self, dtype: np.dtype) -> None:
        self.dtype = dtype

    @staticmethod
    def data(x: Any) -> Any:
        return x

    def mask(self, cond: Any) -> np.ndarray:
        return np.asarray(cond, self.dtype)

    @staticmethod
    def where(cond: Any, a: Any, b: Any) -> np.ndarray:
        return np.where(cond, a, b)

    def __getattr__(self, name: str) -> Callable:
        fn = _NUMPY_FUNCTIONS.get(name) or getattr(np, name)
        setattr(self, name, fn)
        return fn


class _NumpyMaths(dict):
    """dtype -> its NumpyMath, made at the first lookup: one per dtype, so the functions it
    looked up stay cached (a new one per factor cost ~1 us in lookups)."""

    def __missing__(self, dtype: np.dtype) -> NumpyMath:
        m = self[dtype] = NumpyMath(dtype)
        return m


_NUMPY_MATHS = _NumpyMaths()


class OpsMath:
    """f'(x) in jitgrad ops on Tensors (differentiable again)."""

    def __init__(self, dtype: np.dtype) -> None:
        self.dtype = dtype

    @staticmethod
    def data(x: Any) -> Any:
        return x._data if isinstance(x, Tensor) else x

    def mask(self, cond: Any) -> Tensor:
        return const(np.asarray(self.data(cond), self.dtype), self.dtype)

    def where(self, cond: Any, a: Any, b: Any) -> Tensor:
        from .elementwise import where
        a, b = (v if isinstance(v, Tensor) else const(v, self.dtype) for v in (a, b))
        return where(np.asarray(self.data(cond), bool), a, b)

    def __getattr__(self, name: str) -> Callable:
        from .. import ops
        fn = getattr(ops, name)
        setattr(self, name, fn)
        return fn


class Select:
    """A derivative that is the condition `cond(m, *values, **attrs)` (a bool array): the
    gradient is the upstream one where it holds and 0 elsewhere, an inf or nan upstream
    included. Called like any derivative, it gives the 0/1 mask the forward saves; the
    backward selects with it (the VM's RELU_BWD: a where b > 0, else 0)."""

    __slots__ = ("cond",)

    def __init__(self, cond: Callable) -> None:
        self.cond = cond

    def __call__(self, m: Any, *args: Any, **attrs: Any) -> Any:
        return m.mask(self.cond(m, *args, **attrs))


SELECT, WEIGHT = 1, 2         # _defop's kinds of derivative that select


def _weighted(m: OpsMath, g: Tensor, w: Tensor) -> Tensor:
    """g * w where the weight w (a constant) is > 0, else 0, in jitgrad ops."""
    return m.where(w._data > 0, g * w, 0.0)


class Weight:
    """A derivative that is the weight `fn(m, *values, **attrs)` (an array >= 0, 0 exactly
    where the output does not depend on the input): the gradient is the upstream one times
    the weight where it is > 0, and 0 elsewhere, an inf or nan upstream included (the
    loser of maximum gets 0, as torch's kernels give; a multiply would give nan). Called
    like any derivative, it gives the weight the forward saves; the backward multiplies
    and selects with it (the VM's MUL, then RELU_BWD)."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable) -> None:
        self.fn = fn

    def __call__(self, m: Any, *args: Any, **attrs: Any) -> Any:
        return m.mask(self.fn(m, *args, **attrs))


def _weighted_rule(g: np.ndarray, w: np.ndarray) -> np.ndarray:
    """g * w where w > 0, else 0 (on arrays: the product only where it is taken)."""
    return np.multiply(g, w, out=np.zeros(np.broadcast_shapes(g.shape, w.shape), g.dtype),
                       where=w > 0)


def _reads(*plans: FK.Plan) -> tuple:
    """grad_reads: the values the kernels read (an in-place change of another one is no
    obstacle to the backward)."""
    return FK.roles_in_order({r for plan in plans for r in plan[2]})


def unary(name: str, forward: Callable, deriv: Callable,
          domain: tuple[float, float] = (-2.0, 2.0), cases: tuple | None = None,
          **extra: Any) -> OpDef:
    """A unary op from its forward and its derivative `deriv(m, x, out, **attrs)` (above).
    numpy's nan/inf warnings are off (quiet): Paddle returns such values silently."""
    return _defop(name, forward, (deriv,), domain, cases, extra)


_SCALARS: dict = {}
_SCALAR_KEYS = (int, float, bool, str)


def kernel_scalars(name: str, make: Callable, t: type, attrs: dict) -> Any:
    """make(t, **attrs), a compiled kernel's numpy scalars (or None), kept per (name, t,
    attribute values): a numpy scalar costs ~0.2 us and these forwards make two to six a
    call. Not kept for an attribute that is not a plain int, float, bool or str, nor for
    a float 0 (-0.0 == 0.0 as keys, not as scalars) or NaN (never equal to itself)."""
    key = (name, t, *attrs.values())
    try:
        found = _SCALARS.get(key)
    except TypeError:                   # (an unhashable attribute)
        return make(t, **attrs)
    if found is None:
        found = make(t, **attrs)
        if found is not None and len(_SCALARS) < 512 and all(
                type(v) in _SCALAR_KEYS and (type(v) is not float or (v == v and v != 0))
                for v in attrs.values()):
            _SCALARS[key] = found
    return found


def apply_unary(op: OpDef, x: Tensor, attrs: dict) -> Tensor:
    """apply_internal(op, x, **attrs), for a unary op whose forward saves its derivative
    factor. An op declaring `compiled=(kernel, args[, arrays])` gets its output and that
    factor from one compiled pass once Numba is loaded (the backward loads it), for float32
    and float64: vm/forward_activation.py's `kernel(x, out, factor, *arrays(x), *args(t,
    **attrs))`, t x's scalar type (args None: no kernel for these attributes), arrays(x,
    **attrs) what numpy computes first (its transcendentals). The kernels
    give the values of the op's numpy forward and of its `deriv` on arrays, bit for bit."""
    found = op.extra.get("compiled")
    if found is None:
        return apply_internal(op, x, **attrs)
    ready = compiled_input("forward_activation", x._data)
    scalars = None if ready is None else kernel_scalars(op.name, found[1],
                                                        ready[1].dtype.type, attrs)
    if scalars is None:
        return apply_internal(op, x, **attrs)
    d = ready[1]
    out, factor = np.empty(d.shape, d.dtype), np.empty(d.shape, d.dtype)
    kernel = getattr(ready[0], found[0])
    if len(found) > 2:                  # numpy's transcendentals first
        kernel(d.reshape(-1), out.reshape(-1), factor.reshape(-1),
               *[a.reshape(-1) for a in found[2](d, **attrs)], *scalars)
    else:
        kernel(d.reshape(-1), out.reshape(-1), factor.reshape(-1), *scalars)
    return apply_xy(op, x, None, attrs, out, (factor,))


def binary(name: str, forward: Callable, dx: Callable, dy: Callable,
           domain: tuple[float, float] = (-2.0, 2.0), cases: tuple | None = None,
           **extra: Any) -> OpDef:
    """A binary op from its forward and its two partial derivatives, each
    `d(m, x, y, out, **attrs)` as for `unary`; each may be a number (a constant factor).
    Each is a kernel's factor (traced) or saved by the forward, independently (remainder's
    d/dx, 1, needs no saved array). Factors at the output's broadcast shape or the input's
    are both fine: the gradient is summed over broadcast axes after the multiplication."""
    return _defop(name, forward, (dx, dy), domain, cases, extra)


def _defop(name: str, forward: Callable, derivs: tuple, domain: tuple[float, float],
           cases: tuple | None, extra: dict) -> OpDef:
    """The registry entry of an op with one derivative per input: each derivative is a
    kernel's factor (traced once, here) or a factor the forward saves."""
    extra.setdefault("quiet", True)
    nin = len(derivs)
    plans = [None if isinstance(d, (Select, Weight)) else      # None: saved
             FK.trace(d, tuple(range(nin)) + ("out",)) for d in derivs]
    saved = [(i, d) for i, (d, plan) in enumerate(zip(derivs, plans)) if plan is None]
    selects = [SELECT if isinstance(d, Select) else WEIGHT if isinstance(d, Weight) else 0
               for d in derivs]

    def save(needs: tuple, out: np.ndarray, *inputs: np.ndarray, **attrs: Any) -> tuple:
        # (None: that input needs no gradient; the node's edge to it is fixed now, so the
        # backward never asks for its factor)
        dt = out.dtype
        m = _NUMPY_MATHS[dt]
        factors = []
        for i, d in saved:
            if needs[i]:
                f = d(m, *inputs, out, **attrs)
                if type(f) is not _ndarray or f.dtype is not dt:
                    f = np.asarray(f, dtype=dt)
                factors.append(f)
            else:
                factors.append(None)
        return tuple(factors)

    def lower(b: Any, node: Any, g: Any, gins: list) -> None:
        j = -1
        for gi, plan, select in zip(gins, plans, selects):
            j += plan is None
            if gi is None:
                continue
            if select == SELECT:
                b.select(gi, node.out_data.shape, g, node.saved[j])
            elif select:
                b.weighted(gi, node.out_data.shape, g, node.saved[j])
            elif plan is None:      # (a one-element factor becomes a constant)
                b.mul(gi, node.out_data.shape, g, node.saved[j])
            else:
                FK.emit(b, node, g, gi, plan)

    # the interpreter's rule per input: g times its saved factor, or its kernel's expression
    array_rules = []
    j = -1
    for plan, select in zip(plans, selects):
        j += plan is None
        array_rules.append(
            (lambda g, node, j=j: np.where(node.saved[j] > 0, g, g.dtype.type(0)))
            if select == SELECT else
            (lambda g, node, j=j: _weighted_rule(g, node.saved[j])) if select else
            (lambda g, node, j=j: g * node.saved[j]) if plan is None else
            FK.on_arrays(plan))

    def interp(node: Any, g: np.ndarray, want: tuple) -> tuple:
        return tuple([rule(g, node) if w else None for rule, w in zip(array_rules, want)])

    def vjp(g: Tensor, out: Tensor, *inputs: Tensor, **attrs: Any) -> tuple:
        values = {**dict(enumerate(inputs)), "out": out}
        m = OpsMath(out._data.dtype)
        return tuple(m.where(d.cond(m, *inputs, out, **attrs), g, 0.0) if select == SELECT
                     else _weighted(m, g, d(m, *inputs, out, **attrs)) if select else
                     g * d(m, *inputs, out, **attrs) if plan is None else
                     FK.eager(g, values, plan) for d, plan, select in zip(derivs, plans, selects))

    if not saved:                           # kernels' factors only: what they read is all
        extra.setdefault("grad_reads", _reads(*plans))
        # (x * 2.0 with only x needing a gradient reads the constant, not x: Paddle lets x
        # change in place before the backward)
        extra.setdefault("grad_reads_for", lambda needs: _reads(
            *[plan for plan, need in zip(plans, needs) if need]))
    else:
        extra["save_needs"] = True
    return defop(name, forward=forward, vjp=vjp, lower=lower, save=save if saved else None,
                 nin=nin, domain=domain, cases=cases, deriv=derivs, interp=interp, **extra)
