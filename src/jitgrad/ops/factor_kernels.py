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
so the compiled and the eager gradients agree bitwise.

Any other factor built from node values and numbers with + - * /, negation, m.sqrt,
m.rsqrt (1 / sqrt) and m.sign is an *expression*: the backward computes it from the values
the forward left (rows of AXPY, MUL, DIV, DIVK, ADDK, RECIP, SQRT, SIGN into temporaries,
which the peephole fuses into chains), then multiplies g by it. 1 / (x * x + 1) (atan),
rsqrt(1 - x * x) (asin), -(out * out) (reciprocal), sign(x) (abs) ...: the forward then
saves nothing and runs no numpy pass for the factor (3-6 us of a 2048-element op). Every
path evaluates the same tree, node by node in the same dtype (numpy, Tensors, the VM), and
each node is one correctly rounded operation, so they agree bitwise (x - y as x + (-y),
num - v as (-v) + num: the same numbers). Any other factor (a transcendental: cos, sinh,
exp ...) is saved by the forward and multiplied (derivative.py).
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
        return self._op("add", o)

    def __radd__(self, o: Any) -> Sym:
        return self._op("add", o, swap=True)

    def __pow__(self, o: Any) -> Sym:
        raise NotAKernel


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

    @staticmethod
    def sqrt(v: Any) -> Sym:
        return Sym(("sqrt", Sym._of(v)))

    @staticmethod
    def rsqrt(v: Any) -> Sym:
        return Sym(("div", ("num", 1.0), ("sqrt", Sym._of(v))))   # (NumpyMath's 1 / sqrt)

    @staticmethod
    def sign(v: Any) -> Sym:
        return Sym(("sign", Sym._of(v)))

    def __getattr__(self, name: str) -> Any:
        raise NotAKernel


Plan = tuple      # (opcode name, K, roles of the values it reads); ("EXPR", tree, roles)


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
    if kind not in ("mul", "div", "sub"):
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


_EXPR_KINDS = {"val": 0, "neg": 1, "sqrt": 1, "sign": 1, "mul": 2, "div": 2, "add": 2,
               "sub": 2}


def _expression(e: tuple) -> set:
    """The roles an expression reads; NotAKernel unless every node is one the backward
    computes (_EXPR_KINDS) and every number is an operand of a binary node beside a value."""
    kind = e[0]
    arity = _EXPR_KINDS.get(kind)
    if arity is None:
        raise NotAKernel
    if arity == 0:
        return {e[1]}
    args = e[1:]
    if all(a[0] == "num" for a in args):
        raise NotAKernel
    return set().union(*(_expression(a) for a in args if a[0] != "num"))


def roles_in_order(roles: set) -> tuple:
    """Input roles sorted, then "out": the order of a plan's roles and of grad_reads."""
    return tuple(sorted(r for r in roles if r != "out")) + (("out",) if "out" in roles else ())


def trace(deriv: Callable, roles: tuple) -> Plan | None:
    """The kernel plan of `deriv(m, *values)` for values standing for `roles`, or None."""
    try:
        e = Sym._of(deriv(SymMath(), *(Sym(("val", r)) for r in roles)))
    except Exception:           # NotAKernel, or attributes it needs, or numpy on a Sym
        return None
    try:
        return _plan(e)
    except NotAKernel:
        pass
    try:
        return ("EXPR", e, roles_in_order(_expression(e)))
    except NotAKernel:
        return None


def _array(node: Any, role: Any) -> np.ndarray:
    return node.out_data if role == "out" else node.inputs[role]._data


def _emit_expr(b: Any, node: Any, e: tuple, shape: tuple) -> Any:
    """Rows computing the expression e at `shape` into a new temporary (or the value's own
    slot for a bare value); returns its slot. Each node is one row, in the tree's order."""
    kind = e[0]
    if kind == "val":
        return b.value(_array(node, e[1]), shape)
    t = b.alloc(shape)
    if kind in _UNARY_ROWS:
        op, k = _UNARY_ROWS[kind]
        b.emit(op, t, _emit_expr(b, node, e[1], shape), k=k)
        return t
    x, y = e[1], e[2]
    if kind == "mul" and x[0] == "num":
        x, y = y, x                     # (c * v is v * c exactly)
    if kind == "add" and x[0] == "num":
        x, y = y, x
    if y[0] == "num":                   # v op c
        c = y[1]
        op, k = {"mul": ("AXPY", c), "div": ("DIVK", c), "add": ("ADDK", c),
                 "sub": ("ADDK", -c)}[kind]       # (v - c is v + (-c) exactly)
        b.emit(op, t, _emit_expr(b, node, x, shape), k=k)
    elif x[0] == "num":                 # c / v, c - v (as (-v) + c)
        v = _emit_expr(b, node, y, shape)
        if kind == "div":
            b.emit("RECIP", t, v, k=x[1])
        else:
            u = b.alloc(shape)
            b.emit("AXPY", u, v, k=-1.0)
            b.emit("ADDK", t, u, k=x[1])
    else:
        u, v = _emit_expr(b, node, x, shape), _emit_expr(b, node, y, shape)
        if kind in ("mul", "div"):
            b.emit("MUL" if kind == "mul" else "DIV", t, u, v)
        else:                           # u + v, u + (-v)
            b.emit("AXPY", t, u)
            b.emit("AXPY", t, v, k=1.0 if kind == "add" else -1.0)
    return t


_UNARY_ROWS = {"neg": ("AXPY", -1.0), "sqrt": ("SQRT", 1.0), "sign": ("SIGN", 1.0)}


def emit(b: Any, node: Any, g: Any, gi: Any, plan: Plan) -> None:
    """Lower one input's gradient: gi += kernel(g, values)."""
    op, k, roles = plan
    shape = node.out_data.shape
    if op == "EXPR":
        b.contribute(gi, shape, "MUL", g, _emit_expr(b, node, k, shape))
        return
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


def _evaluate(e: tuple, value: Callable, sqrt: Callable, sign: Callable) -> Any:
    """The expression e on arrays or Tensors (value(role) gives a node value), node by node
    as the rows of _emit_expr compute it."""
    kind = e[0]
    if kind == "val":
        return value(e[1])
    if kind == "num":
        return e[1]
    if kind == "neg":
        return -_evaluate(e[1], value, sqrt, sign)
    if kind == "sqrt":
        return sqrt(_evaluate(e[1], value, sqrt, sign))
    if kind == "sign":
        return sign(_evaluate(e[1], value, sqrt, sign))
    x, y = _evaluate(e[1], value, sqrt, sign), _evaluate(e[2], value, sqrt, sign)
    return x * y if kind == "mul" else x / y if kind == "div" else x + y if kind == "add" \
        else x - y


def _expr_on_arrays(g: np.ndarray, node: Any, e: tuple) -> np.ndarray:
    with np.errstate(all="ignore"):             # (inf and nan silently, as the VM and Paddle)
        return g * _evaluate(e, lambda r: _array(node, r), np.sqrt, np.sign)


def on_arrays(plan: Plan) -> Callable[[np.ndarray, Any], np.ndarray | None]:
    """The factor times g on numpy arrays, as a function of (g, node) made once per plan
    (the interpreter's rule): the kernel's expression as `eager` evaluates it. None for a
    zero factor, which lowers to no row."""
    op, k, roles = plan
    if op == "EXPR":
        return lambda g, node: _expr_on_arrays(g, node, k)
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
    if op == "EXPR":
        from .. import ops
        return g * _evaluate(k, node_values.__getitem__, ops.sqrt, ops.sign)
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
