"""The op registry: one `defop` entry per differentiable primitive.

The rule language
-----------------
Every entry states, in one place:

``forward(*arrays, **attrs) -> array``
    The eager numpy computation. Attributes are static (axis, keepdim, shapes).
``save(out, *arrays, **attrs) -> tuple``  (optional)
    Extra arrays the compiled backward reads, computed once in the forward pass so that the
    gradient kernels stay algebraic (sin saves cos(x); max saves its tie-split mask).
    Inputs and the output are always available to the lowering without being listed.
``forward_saves`` (optional, in ``extra``)
    True when forward returns ``(out, saved)``: values found on the way (max pooling's
    winners) are saved without a second pass; `save` is then not given.
``save_needs`` (optional, in ``extra``)
    True when `save` takes first a tuple of bools, which inputs need a gradient
    (``save(needs, out, *arrays, **attrs)``: the node's recorded edges, node.needs), and
    saves None for the factors only the other inputs' gradients read: `x % 0.7` then skips
    floor(x / 0.7), which only 0.7's gradient needs (an edge is fixed when the op is
    recorded, so a factor skipped then is never asked for).
``vjp(g, out, *inputs, **attrs) -> tuple``
    The gradient rule in jitgrad's own Tensor ops, one entry per input (None for no
    gradient). It is the eager backward, the create_graph backward, and the specification
    the compiled kernels are tested against. Contributions come back at the *output's*
    broadcast shape or the input's shape; the caller sums broadcast axes away.
``lower(b, node, g, gins)``
    Emits VM instructions for the compiled backward: `g` is the output-gradient slot,
    `gins[i]` the slot of input i's gradient (None when input i needs none).
    See compile/builder.py's Builder for the emit helpers.
``deriv`` (unary elementwise ops, through ops/derivative.py's ``unary``)
    The derivative written once, ``deriv(m, x, out, **attrs)``; ``save``, ``vjp`` and
    ``lower`` are derived from it, so such an op is its forward and this one rule.
``transpose``, ``into`` (linear ops, through ops/linear.py's ``linear``)
    An op that only moves, copies or sums values (reshape, getitem, sum, cumsum ...) states
    its transpose once, as other registry ops applied to the output gradient, and how it
    lowers as an accumulation (``into``); its ``vjp`` and ``lower`` are derived from them.
``fused`` (in ``extra``, for an op that writes its own ``vjp`` and ``lower``)
    Why the op is a fused kernel (GEMM, softmax, a scan, linear algebra ...) rather than
    one of the derived forms: an elementwise op's derivative (``unary``/``binary``,
    ops/derivative.py), a linear op's transpose (``linear``, ops/linear.py) or a
    reduction's weights (``weighted_reduction``, ops/reduce.py). tests/test_op_rules.py
    checks that every differentiable op is one or the other.
``bound_attrs`` (optional, in ``extra``)
    Names of array attributes the lowering reads only as tables or values named by their
    source (Builder.table / Builder.value), which each graph binds from its own node: the
    program cache then keys them by shape and dtype, not content (graph.py). Any other
    array attribute is keyed by content.
``uncacheable`` (optional, in ``extra``)
    A reason why a graph holding this op can never share a Program (PyLayer: user code).
    Every other op is cacheable: its lowering must name every forward value it reads
    (node inputs, output, saved arrays, array attributes), which the program cache
    verification (JITGRAD_VERIFY_CACHE=1, tests/test_op_cache.py) checks.
``interp`` (in ``extra``; derived, except for fused ops)
    The gradient rule on numpy arrays, ``interp(node, g, want) -> tuple``: what the
    interpret state runs (autograd/eager.py's node_gradients: a graph structure met for
    the first time). ``unary``/``binary``, ``linear`` and ``weighted_reduction`` derive it
    from their one rule, matmul writes its products once for Tensors and arrays; a fused
    op writes its ``lower``'s rows once more on arrays, on the same saved values (the
    compiled gradient: bit for bit where the rows' products are numpy's, within rounding
    where a VM kernel sums or multiplies matrices; tests/test_interpreted_fused.py,
    test_interpreted_rules.py). An op without one (perf/interp_coverage.py lists them)
    runs its ``vjp`` on Tensors under no_grad there.
``grad_reads`` (optional, in ``extra``)
    Which recorded values the backward (vjp and lower) reads: input positions and/or
    ``"out"``; default all. An in-place change of a value not listed does not block the
    backward (tape.check_versions): the slice gradient reads its input's shape only.
``grad_reads_for`` (optional, in ``extra``)
    ``needs -> grad_reads`` for a node whose inputs do not all need gradients (derivative.py
    sets it for kernel-factor ops: ``y * 2.0`` with only y needing one reads the constant).
``rule_reads`` (optional, in ``extra``)
    What the Tensor rule (vjp) reads beyond ``grad_reads``, for an op whose array rules
    read only the forward's saved arrays (sinc, var, glu, ...: ``grad_reads`` then says
    what Paddle's kernels keep). A backward running the Tensor rule (create_graph=True)
    through a value written in place without a stand-in raises (tape.check_rule_reads).
``grad_reads_of`` (optional, in ``extra``)
    ``attrs -> grad_reads`` for an op whose rules read other values for other attributes
    (elu reads its output alone for alpha >= 0). tape.grad_reads(node) says which applies.
``float16_exact`` (optional, in ``extra``)
    Why the op's numpy forward and gradient rules already round a float16 result once
    (an op that moves, copies, selects or masks values; one numpy ufunc, which computes
    float16 in float32). Every other differentiable op computes a float16 input in
    float32 and rounds its output once (``compute16``: ops/core.py's apply records
    cast -> op -> cast, so its gradient is float32's rounded once as well), the result of
    ``op(x.astype('float32')).astype('float16')``: Paddle 3.3.1's CPU build has no
    float16 kernel for nearly all of them.
``quiet`` (optional, in ``extra``)
    True for ops whose forward (or save) can meet log(-1), 1/0 or overflow: numpy's
    RuntimeWarnings are switched off around them, as Paddle returns nan/inf silently.
``domain``, ``cases``
    Where the generated gradient tests sample inputs (away from singularities), and which
    input shapes and attributes they try.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..core.quiet import quiet

REGISTRY: dict[str, "OpDef"] = {}

# float16_exact reasons shared by several ops
SELECTS = "selects, masks, copies or negates values: a gradient of g times 0, 1/2, 1 or -1"
ADDS = "one numpy ufunc (float16 computed in float32, rounded once) with a gradient of +-g"

# Shapes the generated gradient tests try for each arity, broadcasting included.
UNARY_CASES = (((),), ((5,),), ((2, 3),), ((1, 4),), ((4, 1),), ((2, 3, 2),))
BINARY_CASES = (((4,), (4,)), ((2, 3), (2, 3)), ((1, 3), (2, 1)), ((3,), ()), ((), (2, 2)),
                ((2, 1, 3), (4, 1)))


@dataclass(eq=False)
class OpDef:
    name: str
    forward: Callable[..., Any]
    vjp: Callable[..., tuple] | None
    lower: Callable[..., None] | None
    nin: int
    save: Callable[..., tuple] | None = None
    domain: tuple[float, float] = (-2.0, 2.0)
    cases: tuple = ()
    differentiable: bool = True
    doc: str = ""
    extra: dict = field(default_factory=dict)
    # extra["forward_saves"] as an attribute: apply() reads it on every call
    forward_saves: bool = field(init=False, repr=False)
    save_needs: bool = field(init=False, repr=False)
    interp: Callable[..., tuple] | None = field(init=False, repr=False)
    compute16: bool = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.forward_saves = bool(self.extra.get("forward_saves"))
        self.save_needs = bool(self.extra.get("save_needs"))
        self.interp = self.extra.get("interp")
        self.compute16 = self.differentiable and not self.extra.get("float16_exact")

    def __repr__(self) -> str:
        return f"<op {self.name}>"


def defop(name: str, *, forward: Callable, vjp: Callable | None, lower: Callable | None,
          nin: int = 1, save: Callable | None = None, domain: tuple[float, float] = (-2.0, 2.0),
          cases: tuple | None = None, differentiable: bool = True, **extra: Any) -> OpDef:
    if name in REGISTRY:
        raise ValueError(f"op {name!r} is defined twice")
    if differentiable and (vjp is None or lower is None):
        raise ValueError(f"differentiable op {name!r} needs both vjp and lower")
    if cases is None:
        cases = tuple({"shapes": s} for s in (UNARY_CASES if nin == 1 else BINARY_CASES))
    if extra.get("quiet"):
        forward = quiet(forward)
        save = None if save is None else quiet(save)
    op = OpDef(name, forward, vjp, lower, nin, save, domain, cases, differentiable, extra=extra)
    REGISTRY[name] = op
    return op
