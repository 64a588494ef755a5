"""A derivative whose factor is one of the VM's elementwise kernels needs nothing saved.

`unary` and `binary` (derivative.py) trace each derivative once, at definition, on
symbolic values: x, y and out stand for the node's values, numbers stay numbers, and any
function or condition other than `m.mask(m.data(v) > 0)` stops the trace. A factor of one of
these shapes (c a number, V and W node values)

    0            -> no row        c             -> AXPY
    c * V, V     -> MUL           c / V         -> DIV (DIVK)
    c * V / W    -> MULDIV        1 - V * V     -> TANH_BWD
    V * (1 - V)  -> SIGMOID_BWD   mask(V > 0)   -> RELU_BWD

is lowered to that kernel reading V (and W) where the forward left them, and its eager rule
is the kernel's own expression (the opcode's `value`, vm/opcodes.py) evaluated on Tensors,
so the compiled and the eager gradients agree bitwise. Any other factor is saved by the
forward and multiplied (derivative.py).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..vm.opcodes import BY_CODE, OP


class NotAKernel(Exception):
    """The traced derivative is not one of the kernel shapes."""


class Sym:
    """A traced expression: ("val", role), ("num", c), ("pos", role) or an operator node."""

    __slots__ = ("e",)

    def __init__(self, e: tuple) -> None:
        self.e = e

    @staticmethod
    def _of(v: Any) -> tuple:
        if isinstance(v, Sym):
            return v.e
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return ("num", float(v))
        raise NotAKernel

    def _op(self, name: str, other: Any, swap: bool = False) -> Sym:
        a, b = self.e, Sym._of(other)
        return Sym((name, b, a) if swap else (name, a, b))

    def __mul__(self, o: Any) -> Sym:
        return self._op("mul", o)

    def __rmul__(self, o: Any) -> Sym:
        return self._op("mul", o, swap=True)

    def __truediv__(self, o: Any) -> Sym:
        return self._op("div", o)

    def __rtruediv__(self, o: Any) -> Sym:
        return self._op("div", o, swap=True)

    def __sub__(self, o: Any) -> Sym:
        return self._op("sub", o)

    def __rsub__(self, o: Any) -> Sym:
        return self._op("sub", o, swap=True)

    def __neg__(self) -> Sym:
        return Sym(("neg", self.e))

    def __add__(self, o: Any) -> Sym:
        raise NotAKernel

    __radd__ = __pow__ = __add__


class _Data:
    """m.data(v) while tracing: only `> 0` is understood (a ReLU mask)."""

    def __init__(self, e: tuple) -> None:
        self.e = e

    def __gt__(self, o: Any) -> tuple:
        if o != 0 or self.e[0] != "val":
            raise NotAKernel
        return ("pos", self.e[1])


class SymMath:
    """The math namespace of a trace: no functions, one mask."""

    @staticmethod
    def data(v: Any) -> _Data:
        return _Data(Sym._of(v))

    @staticmethod
    def mask(cond: Any) -> Sym:
        if not (isinstance(cond, tuple) and cond[0] == "pos"):
            raise NotAKernel
        return Sym(cond)

    def __getattr__(self, name: str) -> Any:
        raise NotAKernel


Plan = tuple      # (opcode name, K, roles of the values it reads)


def _plan(e: tuple) -> Plan:
    kind = e[0]
    if e == ("num", 0.0):
        return ("NONE", 0.0, ())        # a zero gradient: no row (the prologue zeroes)
    if kind == "num":
        return ("AXPY", e[1], ())
    if kind == "val":
        return ("MUL", 1.0, (e[1],))
    if kind == "pos":
        return ("RELU_BWD", 1.0, (e[1],))
    if kind == "neg":
        op, k, roles = _plan(e[1])
        if op in ("AXPY", "MUL", "DIV", "MULDIV"):
            return (op, -k, roles)
        raise NotAKernel
    a, b = e[1], e[2]
    if kind == "mul":
        if b[0] == "num":
            a, b = b, a
        if a[0] == "num" and b[0] == "val":
            return ("MUL", a[1], (b[1],))
        if a[0] == "val" and b == ("sub", ("num", 1.0), a):
            return ("SIGMOID_BWD", 1.0, (a[1],))
        raise NotAKernel
    if kind == "div" and b[0] == "val":
        if a[0] == "num":
            return ("DIV", a[1], (b[1],))
        op, k, roles = _plan(a)
        if op == "MUL":
            return ("MULDIV", k, roles + (b[1],))
        raise NotAKernel
    if kind == "sub" and a == ("num", 1.0) and b[0] == "mul" and b[1] == b[2] and \
            b[1][0] == "val":
        return ("TANH_BWD", 1.0, (b[1][1],))
    raise NotAKernel


def trace(deriv: Callable, roles: tuple) -> Plan | None:
    """The kernel plan of `deriv(m, *values)` for values standing for `roles`, or None."""
    try:
        return _plan(Sym._of(deriv(SymMath(), *(Sym(("val", r)) for r in roles))))
    except Exception:           # NotAKernel, or attributes it needs, or numpy on a Sym
        return None


def _array(node: Any, role: Any) -> np.ndarray:
    return node.out_data if role == "out" else node.inputs[role]._data


def emit(b: Any, node: Any, g: Any, gi: Any, plan: Plan) -> None:
    """Lower one input's gradient: gi += kernel(g, values)."""
    op, k, roles = plan
    shape = node.out_data.shape
    values = [_array(node, r) for r in roles]
    if op == "NONE":
        return
    if op == "AXPY":
        b.contribute(gi, shape, "AXPY", g, k=k)
    elif op == "MUL":
        b.mul(gi, shape, g, values[0], k=k)     # (a one-element value: a constant)
    elif op == "DIV" and k == 1.0 and values[0].size == 1:
        b.contribute(gi, shape, "DIVK", g, k=b.scalar(values[0]))
    else:
        b.contribute(gi, shape, op, g, *(b.value(v, shape) for v in values), k=k)


def on_arrays(plan: Plan) -> Callable[[np.ndarray, Any], np.ndarray | None]:
    """The factor times g on numpy arrays, as a function of (g, node) made once per plan
    (the interpreter's rule): the kernel's expression as `eager` evaluates it. None for a
    zero factor, which lowers to no row."""
    op, k, roles = plan
    if op == "NONE":
        return lambda g, node: None
    if op == "AXPY" and k == 1.0:
        return lambda g, node: g
    value = BY_CODE[OP[op]].value
    get = [(lambda node: node.out_data) if r == "out" else
           (lambda node, i=r: node.inputs[i]._data) for r in roles]
    if len(get) == 0:
        return lambda g, node: value(k, g, None, None)
    if len(get) == 1:
        a = get[0]
        return lambda g, node: value(k, g, a(node), None)
    a, b = get
    return lambda g, node: value(k, g, a(node), b(node))


def eager(g: Any, node_values: dict, plan: Plan) -> Any:
    """The same gradient in jitgrad ops: the kernel's expression on Tensors."""
    op, k, roles = plan
    values = [node_values[r] for r in roles]
    if op == "NONE":
        return g * 0.0
    if op == "AXPY" and k == 1.0:
        return g
    if k == 1.0 and op in ("MUL", "DIV", "MULDIV"):      # K * g is g exactly: no node
        out = g * values[0] if op == "MUL" or op == "MULDIV" else g / values[0]
        return out / values[1] if op == "MULDIV" else out
    if op == "RELU_BWD":                # a select: an inf or nan upstream where v <= 0 gives 0
        from .elementwise import where
        return where(values[0]._data > 0, g, 0.0)
    return BY_CODE[OP[op]].value(k, g, *values, *([None] * (2 - len(values))))
