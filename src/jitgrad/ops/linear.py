"""Linear ops: the gradient written once, as the op's transpose.

An op that only moves, copies or sums values (reshape, transpose, broadcast_to, getitem,
take_flat, scatter_flat, put_flat, concat, sum, mean, cumsum, cast) is linear in its inputs, so
its vector-Jacobian product is its *transpose* applied to the output gradient, and that
transpose is again such an op: take_flat(idx) <-> scatter_flat(idx), reshape <-> reshape
back, transpose(perm) <-> transpose(argsort perm), broadcast_to <-> sum, cumsum <-> the
reversed cumsum (JAX's transposition rules for linear primitives). A vjp and a lowering
written by hand for such an op would say the same thing twice; `linear` derives both from
two declarations:

``transpose(n, **attrs)``
    The transpose, per input (a tuple for several inputs; None: no gradient): a `Chain`,
    the registry ops (with attributes) that map the output gradient to that input's, times
    a factor `k` (mean's 1 / count, put_flat's masks of what was kept and what landed).
    `n` is the recorded node as a `Recorded`: input shapes and dtypes, output shape and
    saved arrays (the node's own in the compiled backward; recomputed by the op's `save`
    in the eager one, which has no node), so an index map saved by the forward becomes
    the transpose's table (getitem's flat positions are its scatter_flat's `idx`), and
    cast's transpose casts back to the input's dtype.
``into(b, dest, src, **attrs)``
    How the op itself lowers as an accumulation, ``dest += op(src)`` in VM rows (AXPY,
    GATHER, SCATTER, a reduction ...): `src` the slot of its input, `dest` of its output
    (whatever shape that slot carries: an `into` takes its layout from its attributes and
    `src.shape`). It gets `k` only for a factor other than 1, and then must apply it; an
    op whose kernel cannot leaves `k` out of its signature, so such a call fails loudly.
    Only ops that serve as some op's transpose need one. A `view` (reshape) needs none:
    it re-labels the slot's shape and costs no row.

From these:

- the eager vjp applies the chain's ops to g, recording nodes: create_graph and higher
  orders work, since each of those ops is linear in turn, its transpose leading back;
- the compiled lowering is the `into` of the chain's one op that needs rows, from the
  output gradient's slot straight into the input gradient's (views before it re-label the
  source slot; no chain has two such ops, so there is never a temporary).

The Builder sees the same arrays as from a hand-written lowering: saved index maps and
bound index attributes by identity (named by source, bound per graph by the program
cache); tables computed from shapes and attributes are structure.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from ..core.tensor import Tensor
from .core import apply, const
from .registry import OpDef, defop


class Recorded(NamedTuple):
    """What a transpose declaration may read of the forward: shapes, dtypes, saved arrays."""
    ins: tuple          # the inputs' shapes
    out: tuple          # the output's shape
    saved: tuple        # the forward's saved arrays (op.save)
    dtypes: tuple       # the inputs' dtypes (cast's transpose casts back)


_new = tuple.__new__      # a NamedTuple made without its __new__ (which costs ~0.3 us)


def _recorded(fields: tuple) -> Recorded:
    return _new(Recorded, fields)


class Chain(NamedTuple):
    """g -> k * opN(... op1(g)): `steps` are (op, attrs) pairs; `k` None (no factor), a
    number or an array of the result's size (elementwise). A factor of 1 is still a
    multiplication in the eager rule (mean's 1 / count on one element: its gradient stays
    a node recorded from g, as mean's hand-written rule gave), not in the lowering.
    `select`: k selects, 0 elsewhere whatever g is there (an inf or NaN where put_flat
    overwrote x gives 0, not NaN: Paddle's kernels): MASK, k is a 0/1 mask (g where it is
    1); WEIGHT, k is a weight >= 0 (g * k where it is > 0: put_flat's extremes' winners)."""
    steps: tuple = ()
    k: Any = None
    select: int = 0

    def then(self, op: OpDef, **attrs: Any) -> "Chain":
        return _new(Chain, (self.steps + ((op, attrs),), self.k, self.select))

    def times(self, k: Any) -> "Chain":
        return _new(Chain, (self.steps, k, 0))

    def where(self, mask: np.ndarray) -> "Chain":
        """This chain's result kept where the 0/1 mask is 1, 0 elsewhere (a select)."""
        return _new(Chain, (self.steps, mask, MASK))

    def weighted(self, weight: np.ndarray) -> Chain:
        """This chain's result times the weight (>= 0) where it is > 0, 0 elsewhere (a
        select: an inf or NaN where the weight is 0 gives 0)."""
        return _new(Chain, (self.steps, weight, WEIGHT))


MASK, WEIGHT = 1, 2         # Chain.select


IDENTITY = Chain()


def step(op: OpDef, **attrs: Any) -> Chain:
    """The chain of one op."""
    return _new(Chain, (((op, attrs),), None, 0))


class Rule(NamedTuple):
    """A linear op's declarations, kept in its OpDef as extra["linear"]."""
    transpose: Callable[..., Any]
    into: Callable[..., None] | None
    view: bool


# registry.py's float16_exact of a linear op: it moves or copies values, or sums them in float32
# (sum); mean (1 / n), cumsum and the scatters (adding in their dtype) say float16_exact=None
MOVES_VALUES = "moves or copies values, or sums them in float32"


def linear(name: str, *, forward: Callable, transpose: Callable,
           into: Callable | None = None, view: bool = False, nin: int = 1,
           save: Callable | None = None, interp: Callable | None = None,
           **extra: Any) -> OpDef:
    """A linear op's registry entry from its forward, its transpose and (if it is some op's
    transpose) its `into` lowering (module docstring); the other `defop` fields pass
    through. `view`: the op only relabels the shape to attrs["shape"] (reshape).
    `interp`: the interpreter's rule on arrays written directly, when the transpose's
    chain run on arrays (the default) costs more than the rule (sum's, mean's)."""

    def vjp(g: Tensor, out: Tensor, *inputs: Tensor, **attrs: Any) -> tuple:
        datas = [t._data for t in inputs]
        saved = () if save is None else save(out._data, *datas, **attrs)
        c = transpose(_recorded((tuple([d.shape for d in datas]), out._data.shape, saved,
                                 tuple([d.dtype for d in datas]))), **attrs)
        return (run(c, g),) if type(c) is Chain else \
            tuple([None if ci is None else run(ci, g) for ci in c])

    def node_transpose(node: Any) -> Any:
        """The transpose of a recorded node (lower's and interp's; once per node of each new
        graph structure: kept to a few calls)."""
        ins = node.inputs
        if len(ins) == 1:
            shapes, dtypes = (ins[0]._data.shape,), (ins[0]._data.dtype,)
        else:
            shapes = tuple([t._data.shape for t in ins])
            dtypes = tuple([t._data.dtype for t in ins])
        return transpose(_recorded((shapes, node.out_data.shape, node.saved, dtypes)),
                         **node.attrs)

    def chain_interp(node: Any, g: np.ndarray, want: tuple) -> tuple:
        c = node_transpose(node)
        return (run_arrays(c, g),) if type(c) is Chain else \
            tuple([None if ci is None or not w else run_arrays(ci, g)
                   for ci, w in zip(c, want)])

    def lower(b: Any, node: Any, g: Any, gins: list) -> None:
        c = node_transpose(node)
        if type(c) is Chain:
            if gins[0] is not None:
                lower_chain(b, c, gins[0], g)
            return
        for gi, ci in zip(gins, c):
            if gi is not None and ci is not None:
                lower_chain(b, ci, gi, g)

    extra.setdefault("float16_exact", MOVES_VALUES)
    return defop(name, forward=forward, vjp=vjp, lower=lower, nin=nin, save=save,
                 linear=Rule(transpose, into, view),
                 interp=chain_interp if interp is None else interp, **extra)


def run(chain: Chain, g: Tensor) -> Tensor:
    """The chain applied to g in jitgrad ops (differentiable)."""
    for op, attrs in chain.steps:
        g = apply(op, g, **attrs)
    k = chain.k
    if k is None:
        return g
    if chain.select:
        from .elementwise import where
        k = k.reshape(g._data.shape)
        picked = g if chain.select == MASK else g * const(k, g._data.dtype)
        return where(k > 0, picked, const(np.zeros((), g._data.dtype), g._data.dtype))
    if isinstance(k, np.ndarray):
        return g * const(k.reshape(g._data.shape), g._data.dtype)
    return g * k


def run_arrays(chain: Chain, g: np.ndarray) -> np.ndarray:
    """The chain applied to g on numpy arrays (the interpreter's rule): `run`'s steps, each
    op's forward as apply would call it."""
    for op, attrs in chain.steps:
        g = op.forward(g, **attrs)
        if op.forward_saves:
            g = g[0]
        if type(g) is not np.ndarray:
            g = np.asarray(g)
    k = chain.k
    if k is None:
        return g
    if chain.select:
        k = k.reshape(g.shape)
        if chain.select == MASK:
            return np.where(k > 0, g, g.dtype.type(0))
        return np.multiply(g, k, out=np.zeros(g.shape, g.dtype), where=k > 0)
    if isinstance(k, np.ndarray):
        return g * k.reshape(g.shape).astype(g.dtype, copy=False)
    return g * k


def lower_chain(b: Any, chain: Chain, dest: Any, src: Any) -> None:
    """dest += chain(src) in VM rows: the one op of the chain that needs rows lowers by its
    `into`; views before it re-label `src`, views after it cost nothing (a slot is flat)."""
    steps, k, select = chain
    if len(steps) == 1 and k is None:       # (the common case, once per node: kept short)
        op, attrs = steps[0]
        into = op.extra["linear"].into
        if into is not None:
            into(b, dest, src, **attrs)
            return
    main, shape = None, None
    for op, attrs in steps:
        rule = op.extra["linear"]
        if rule.view:
            if main is None:
                shape = attrs["shape"]
        elif main is None:
            main = (op, rule, attrs)
            if shape is not None:
                src = shaped(src, tuple(shape))
        else:
            raise NotImplementedError(f"a transpose chain with two ops that need rows "
                                      f"({main[0].name}, {op.name}): lower it by hand")
    if main is None:                        # the identity (or views): dest += k * src
        if select == MASK:
            b.select(dest, dest.shape, src, k)
        elif select:
            b.weighted(dest, dest.shape, src, k)
        elif isinstance(k, np.ndarray):
            b.mul(dest, dest.shape, src, k)
        else:
            b.emit("AXPY", dest, src, k=1.0 if k is None else k)
        return
    op, rule, attrs = main
    if rule.into is None:
        raise NotImplementedError(f"{op.name} has no `into` lowering")
    if select:                              # the op's rows (times a weight) into a
        flat = shaped(dest, k.shape)        # temporary, then RELU_BWD selects from it
        tmp = b.alloc(k.shape)              # (at k's shape: put_flat's are flat)
        if select == MASK:
            rule.into(b, tmp, src, **attrs)
        else:
            rule.into(b, tmp, src, k=k, **attrs)
        b.select(flat, k.shape, tmp, k)
        return
    if k is not None and (isinstance(k, np.ndarray) or k != 1.0):
        rule.into(b, dest, src, k=k, **attrs)
    else:
        rule.into(b, dest, src, **attrs)


def shaped(slot: Any, shape: tuple) -> Any:
    """The slot's memory viewed at `shape` (an `into` re-labels its source or destination:
    a Slot is flat)."""
    return slot if slot.shape == shape else _new(type(slot), (slot.off, slot.n, shape))
